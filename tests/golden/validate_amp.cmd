dnnpar validate data/validation/amp.csv 2>&1 && dnnpar validate data/validation/amp.csv --no-calibrate 2>/dev/null | tail -n 3
