dnnpar info ../shared/data/onnx/alexnet.onnx
