dnnpar comm --help
