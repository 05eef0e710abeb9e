dnnpar frobnicate 2>&1
