dnnpar mpt mid-1 --workers 64 --config dynamic:1,3 2>&1
