dnnpar info pase-rnnlm --batch 64
