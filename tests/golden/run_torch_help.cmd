dnnpar run-torch --help
