for f in alexnet vgg19 resnet50 inception_v3 squeezenet1_1_with_weights bert_encoder4; do dnnpar compare data/onnx/$f.onnx --cluster 2xtpu-v2+2xtpu-v3 --batch 16; done
