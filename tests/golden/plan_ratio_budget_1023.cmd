dnnpar plan vgg19 --cluster 1023xtpu-v3 --json - | grep -A3 ratio_search
