dnnpar export data/onnx/bert_encoder4.onnx --cluster 1xdgx-a100 --batch 64 --format megatron 2>&1
