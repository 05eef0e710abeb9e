dnnpar mpt late-2 --workers 0 2>&1
