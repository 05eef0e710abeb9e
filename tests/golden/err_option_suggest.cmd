dnnpar plan resnet50 --cluster 8xa100 --serch dp 2>&1
