dnnpar validate data/validation/megatron.csv && dnnpar validate data/validation/megatron.csv --no-calibrate | tail -n 3
