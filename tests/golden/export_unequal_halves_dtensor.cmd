dnnpar export lenet --cluster 3xtpu-v3 --batch 64 --format dtensor
