dnnpar plan lenet --search pase -p 4 --time-limit 1e-9
