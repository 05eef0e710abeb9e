dnnpar plan lenet --search pase --cost-model pase-paper -p 0 2>&1
