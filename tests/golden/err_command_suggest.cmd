dnnpar plna resnet50 2>&1
