dnnpar plan pase-rnnlm --search pase --cost-model pase-paper -p 8 --json -
