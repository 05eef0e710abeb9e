dnnpar mpt mid-1 --tile 5 2>&1
