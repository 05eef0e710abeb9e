dnnpar plan pase-alexnet --search pase --cost-model pase-paper -p 8 --batch 100 2>&1
