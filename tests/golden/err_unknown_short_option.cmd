dnnpar info lenet -x 2>&1
