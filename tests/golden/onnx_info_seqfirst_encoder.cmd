dnnpar info tests/data/seqfirst_encoder.onnx | head -n 30
