dnnpar plan gpt2-medium --cluster 2xdgx-a100+2xdgx1 --batch 64 | tail -n 3
