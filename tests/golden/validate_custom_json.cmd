dnnpar validate tests/data/validate_custom.csv --no-calibrate --json - | head -n 30
