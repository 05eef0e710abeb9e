dnnpar info resnet51 2>&1
