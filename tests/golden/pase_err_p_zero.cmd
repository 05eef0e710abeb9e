dnnpar plan lenet --search pase -p 0 2>&1
