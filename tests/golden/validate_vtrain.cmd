dnnpar validate data/validation/vtrain.csv && dnnpar validate data/validation/vtrain.csv --no-calibrate | tail -n 3
