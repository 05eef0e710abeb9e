dnnpar mpt 2>&1
