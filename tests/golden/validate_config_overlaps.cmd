dnnpar validate tests/data/validate/overlaps.csv --no-calibrate
