dnnpar validate tests/data/validate/ragged.csv 2>&1
