dnnpar export --help
