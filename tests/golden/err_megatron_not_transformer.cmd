dnnpar export data/onnx/vit_tiny.onnx --cluster 1xdgx-a100 --batch 64 --format megatron 2>&1
