dnnpar compare vgg11 --cluster "4xtpu-v3+" 2>&1
