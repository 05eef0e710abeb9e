dnnpar plan gpt2-medium --search accpar --cluster 2xdgx-a100+2xdgx1 --batch 256 2>&1; echo "status $?"
