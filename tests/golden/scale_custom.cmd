dnnpar scale resnet18 --cluster "custom(name=g,tflops=100,net_gbps=100,mem_gb=40,membw_gbps=1500,dtype=fp32)" --nodes 1,2,4,8,16 --batch-per-device 64
