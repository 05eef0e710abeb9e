dnnpar info data/onnx/alexnet.onnx
