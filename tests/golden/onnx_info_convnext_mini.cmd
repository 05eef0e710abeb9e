dnnpar info tests/data/convnext_mini.onnx
