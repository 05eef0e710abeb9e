dnnpar info vgg11 --batch -5 2>&1
