dnnpar synergy resnet1000:4 2>&1
