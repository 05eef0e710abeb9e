dnnpar info resnet18 --batch 32 --roofline a100 --precision amp && dnnpar info lenet --batch 4 --roofline "custom(name=x,tflops=10,net_gbps=100,membw_gbps=100)" --json - | head -12
