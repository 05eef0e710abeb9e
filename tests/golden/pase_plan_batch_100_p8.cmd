dnnpar plan pase-alexnet --search pase -p 8 --batch 100 2>&1
