dnnpar plan lenet --search mcmc --cost-model pase-paper -p 4 --mcmc-iters 3000 --seed 7 | grep -v '^search time'
