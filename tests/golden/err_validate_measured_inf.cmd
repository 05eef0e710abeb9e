dnnpar validate tests/data/validate/measured_inf.csv 2>&1
