dnnpar plan llama2-13b --search accpar --cluster 4xdgx-a100 --batch 64 2>&1; echo "status $?"; dnnpar plan resnet50 --cluster 2xa100 --batch 4096 2>&1; echo "status $?"
