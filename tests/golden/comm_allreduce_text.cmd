dnnpar comm allreduce --cluster "8xcustom(name=g,tflops=100,net_gbps=800)" --bytes 0,8,1K,1M,1G
