dnnpar export-cluster 4xa100 -o "$TMPDIR_GOLD/c.json" && dnnpar plan alexnet --search pase --cluster "$TMPDIR_GOLD/c.json" --batch 64 2>&1 | grep -A1 "^simulated step"
