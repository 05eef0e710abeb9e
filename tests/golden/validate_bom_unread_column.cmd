dnnpar validate tests/data/validate/bom.csv 2>&1
