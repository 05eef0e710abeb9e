dnnpar plan tests/data/mobilenet_v2_train.onnx --search pase --cost-model pase-paper -p 8 --cluster 8xa100
