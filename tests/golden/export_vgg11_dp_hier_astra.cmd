dnnpar export vgg11 --cluster 2xdgx-a100 --search dp --batch 128 --format astra
