dnnpar plan tests/data/shufflenet_v2_x1_0_train.onnx --search pase -p 8 --cluster 8xa100
