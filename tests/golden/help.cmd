dnnpar --help
