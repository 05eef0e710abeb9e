dnnpar plan vgg11 --cluster 4xtpu-v3 --levels 3 2>&1
