dnnpar plan lenet --cluster 3xtpu-v3 --time-limit 0
