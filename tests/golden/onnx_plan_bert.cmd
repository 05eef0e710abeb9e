dnnpar plan data/onnx/bert_encoder4.onnx --cluster 4xtpu-v3 --batch 8 --search accpar | head -n 40
