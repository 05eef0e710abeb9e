dnnpar plan lenet --cluster 16xtpu-v3 --json "$TMPDIR_GOLD/s.json" > /dev/null && cd "$TMPDIR_GOLD" && dnnpar simulate --strategy s.json --cluster 4xtpu-v3 2>&1
