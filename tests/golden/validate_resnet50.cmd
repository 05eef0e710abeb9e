dnnpar validate data/validation/resnet50.csv && dnnpar validate data/validation/resnet50.csv --no-calibrate | tail -n 3
