dnnpar export alexnet --cluster 4xtpu-v3 2>&1
