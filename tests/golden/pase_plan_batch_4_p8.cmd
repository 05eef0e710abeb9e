dnnpar plan pase-alexnet --search pase -p 8 --batch 4 2>&1
