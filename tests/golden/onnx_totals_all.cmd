for f in alexnet vgg19 resnet50 inception_v3 squeezenet1_1_with_weights bert_encoder4; do dnnpar info data/onnx/$f.onnx | tail -n 2; done
