dnnpar plan vgg11 --cluster 0xtpu-v3 2>&1
