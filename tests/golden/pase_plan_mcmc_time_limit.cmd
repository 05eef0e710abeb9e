dnnpar plan lenet --search mcmc --cost-model pase-paper -p 4 --time-limit 1e-9 | grep -v '^search time'
