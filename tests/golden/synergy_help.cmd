dnnpar synergy --help
