dnnpar compare lenet --cluster 3xtpu-v3 --time-limit 1e-9 --json - | grep -B2 -A4 time_limit
