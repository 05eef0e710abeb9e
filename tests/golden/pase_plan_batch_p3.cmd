dnnpar plan lenet --search pase --cost-model pase-paper -p 3 2>&1
