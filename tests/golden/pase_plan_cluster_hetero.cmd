dnnpar plan lenet --search pase --cluster 2xtpu-v2+2xtpu-v3 --batch 64
