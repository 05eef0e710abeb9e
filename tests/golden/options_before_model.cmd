dnnpar info -b 4 lenet | head -n 3
