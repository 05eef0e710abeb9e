dnnpar profile --help
