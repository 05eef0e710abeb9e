dnnpar plan pase-alexnet --search pase --cost-model pase-paper -p 8
