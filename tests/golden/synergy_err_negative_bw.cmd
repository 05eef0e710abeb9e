dnnpar synergy alexnet-2012 --bw -34.2 2>&1
