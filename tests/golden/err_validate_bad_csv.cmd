dnnpar validate tests/data/validate_bad_header.csv; echo "exit $?"
