dnnpar plan resnet18 --cluster 4xtpu-v3 --batch 64 --memory-limit 100MB; echo "exit $?"
