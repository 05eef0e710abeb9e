dnnpar plan vgg11 --cluster 4xtpu-v3 --search hypar --levels 1 --json -
