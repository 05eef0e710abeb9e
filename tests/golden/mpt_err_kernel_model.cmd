dnnpar mpt resnet34 --kernel 5 2>&1
