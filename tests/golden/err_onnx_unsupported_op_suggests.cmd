dnnpar info tests/data/unsupported_op.onnx 2>&1
