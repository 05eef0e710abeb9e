dnnpar validate tests/data/validate/measured_hex.csv 2>&1
