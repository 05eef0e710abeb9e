dnnpar plan vgg11 --cluster 4xtpu-v3 --fast 2>&1
