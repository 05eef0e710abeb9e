dnnpar plan lenet --search pase --cost-model pase-paper -p 4 --max-memory 65537 2>&1
