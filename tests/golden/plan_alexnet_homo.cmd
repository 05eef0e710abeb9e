dnnpar plan alexnet --cluster 8xtpu-v3 --batch 128
