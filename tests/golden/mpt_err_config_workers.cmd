dnnpar mpt mid-1 --workers 250 --config 16x16 2>&1
