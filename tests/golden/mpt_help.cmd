dnnpar mpt --help
