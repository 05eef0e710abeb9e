dnnpar plan --help
