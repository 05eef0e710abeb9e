dnnpar mpt mid-1 --config 3x5 2>&1
