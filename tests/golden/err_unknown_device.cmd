dnnpar plan vgg11 --cluster 4xtpu-v9 2>&1
