dnnpar compare vgg11 2>&1
