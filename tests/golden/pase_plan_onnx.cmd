dnnpar plan data/onnx/bert_encoder4.onnx --search pase --cost-model pase-paper -p 4 --batch 8 | grep -E '^(model|cost|best|tables)'
