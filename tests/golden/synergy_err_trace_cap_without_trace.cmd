dnnpar synergy alexnet-2012:4 --trace-max-spans 10 2>&1
