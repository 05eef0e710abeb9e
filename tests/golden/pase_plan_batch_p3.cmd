dnnpar plan lenet --search pase -p 3 2>&1
