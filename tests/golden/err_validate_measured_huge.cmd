dnnpar validate tests/data/validate/measured_huge.csv 2>&1
