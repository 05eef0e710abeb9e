dnnpar plan lenet --search pase -p 4 --max-memory 65537 2>&1
