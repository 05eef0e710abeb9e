dnnpar mpt fractalnet --fp16
