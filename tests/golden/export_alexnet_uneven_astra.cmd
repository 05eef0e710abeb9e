dnnpar export alexnet --cluster 6xtpu-v3 --search accpar --format astra
