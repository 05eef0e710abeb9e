dnnpar mpt mid-1 --config 16by16 2>&1
