dnnpar validate ../shared/data/validation/megatron.csv && dnnpar validate ../shared/data/validation/megatron.csv --no-calibrate | tail -n 3
