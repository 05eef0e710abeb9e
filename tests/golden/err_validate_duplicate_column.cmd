dnnpar validate tests/data/validate/dup_column.csv 2>&1
