dnnpar plan tests/data/mobilenet_v2_train.onnx --search pase -p 8 --cluster 8xa100
