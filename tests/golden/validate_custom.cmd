dnnpar validate tests/data/validate_custom.csv
