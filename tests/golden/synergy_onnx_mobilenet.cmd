dnnpar synergy tests/data/mobilenet_v2_train.onnx:10+dbn-m:200 --simulate --sample 10
