dnnpar --version
