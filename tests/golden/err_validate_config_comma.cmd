dnnpar validate tests/data/validate/config_comma.csv 2>&1
