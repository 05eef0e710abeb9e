dnnpar synergy lenet --nc 2 --nf 1 --blocks
