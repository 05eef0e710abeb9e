dnnpar export tests/data/seqfirst_encoder.onnx --cluster 4xa100 --batch 8 --format jax
