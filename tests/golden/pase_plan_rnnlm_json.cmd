dnnpar plan pase-rnnlm --search pase -p 8 --json -
