dnnpar validate tests/data/validate/batch_hex.csv 2>&1
