dnnpar plan lenet --search pase --help
