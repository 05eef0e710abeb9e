dnnpar plan pase-alexnet --search pase --cluster 8xa100
