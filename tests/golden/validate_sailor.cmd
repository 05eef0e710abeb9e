dnnpar validate data/validation/sailor.csv 2>&1 && dnnpar validate data/validation/sailor.csv --no-calibrate 2>/dev/null | tail -n 3
