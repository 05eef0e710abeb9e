dnnpar plan pase-densenet121 --search pase -p 8 --batch 64 2>&1
