dnnpar compare vgg19 --cluster 128xtpu-v2+128xtpu-v3
