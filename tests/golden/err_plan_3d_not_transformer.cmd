dnnpar plan data/onnx/vit_tiny.onnx --cluster 1xdgx-a100 --batch 64 --search 3d 2>&1
