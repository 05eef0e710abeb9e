dnnpar plan lenet --search mcmc -p 4 --time-limit 1e-9 | grep -v '^search time'
