dnnpar validate tests/data/validate/measured_tiny.csv 2>&1
