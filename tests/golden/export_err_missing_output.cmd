dnnpar export alexnet --cluster 4xtpu-v3 --format jax -o 2>&1
