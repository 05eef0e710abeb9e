dnnpar export vgg11 --cluster 8xtpu-v3 --search dp --batch 128 --format astra
