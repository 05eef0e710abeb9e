dnnpar plan alexnet --batch 128 --cluster 8xa100+8xv100 | head -n 6
