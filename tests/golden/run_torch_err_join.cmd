cd "$TMPDIR_GOLD" && dnnpar plan resnet18 --cluster 2xtpu-v3 --search dp --batch 8 --json r.json > /dev/null && dnnpar run-torch resnet18 r.json --ranks 2 2>&1
