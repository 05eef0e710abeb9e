dnnpar mpt late-3 2>&1
