dnnpar plan lenet --search pase --cost-model pase-paper --help
