dnnpar devices
