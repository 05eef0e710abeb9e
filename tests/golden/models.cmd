dnnpar models
