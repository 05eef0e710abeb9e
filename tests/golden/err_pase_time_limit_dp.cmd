dnnpar plan lenet --search pase --cost-model pase-paper -p 4 --time-limit 1e-9
