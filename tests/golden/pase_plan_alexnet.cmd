dnnpar plan pase-alexnet --search pase -p 8 | grep -v '^search time'
