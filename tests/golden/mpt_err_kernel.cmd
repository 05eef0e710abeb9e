dnnpar mpt late-2 --kernel 7 2>&1
