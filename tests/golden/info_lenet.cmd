dnnpar info lenet
