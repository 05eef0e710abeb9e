dnnpar mpt late-2
