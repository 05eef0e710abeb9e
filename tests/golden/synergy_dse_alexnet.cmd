dnnpar synergy alexnet-2012:100 --dse
