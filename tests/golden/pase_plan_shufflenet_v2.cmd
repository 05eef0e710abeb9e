dnnpar plan tests/data/shufflenet_v2_x1_0_train.onnx --search pase --cost-model pase-paper -p 8 --cluster 8xa100
