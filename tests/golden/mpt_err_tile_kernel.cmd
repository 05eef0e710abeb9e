dnnpar mpt late-2 --kernel 5 --tile 4 2>&1
