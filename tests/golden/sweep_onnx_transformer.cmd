dnnpar sweep data/onnx/bert_encoder4.onnx --cluster 1xdgx-a100 --batch 64 --search 3d --vary inter_gbps=100Gbps,400Gbps 2>&1
