dnnpar comm allreduce --cluster "8xcustom(name=g,tflops=100,net_gbps=800)" --bytes 1K,12x 2>&1
