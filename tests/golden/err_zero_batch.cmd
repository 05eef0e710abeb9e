dnnpar plan vgg11 --cluster 4xtpu-v3 --batch 0 2>&1
