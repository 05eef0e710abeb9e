dnnpar synergy alexnet-2012 --cores 0 2>&1
