dnnpar plan lenet --search pase --cost-model pase-paper --cluster 2xtpu-v2+2xtpu-v3 --batch 64
