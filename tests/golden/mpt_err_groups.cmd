dnnpar mpt late-2 --config 32x8 2>&1
