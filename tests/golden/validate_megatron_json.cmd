dnnpar validate data/validation/megatron.csv --json -
