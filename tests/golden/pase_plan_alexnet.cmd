dnnpar plan pase-alexnet --search pase -p 8
