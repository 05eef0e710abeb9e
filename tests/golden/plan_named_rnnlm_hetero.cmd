dnnpar plan pase-rnnlm --cluster 2xa100+2xv100 --batch 64
