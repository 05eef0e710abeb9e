dnnpar plan lenet --search mcmc -p 4 --mcmc-iters 3000 --seed 7 --optimum
