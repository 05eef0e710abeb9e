dnnpar plan vgg11 --cluster 4xtpu-v3 --search greedy 2>&1
