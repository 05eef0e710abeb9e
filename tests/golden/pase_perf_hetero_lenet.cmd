dnnpar plan lenet --search pase --cluster 2xa100+2xv100 2>&1
