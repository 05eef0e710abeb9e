dnnpar comm all-gather --cluster "4xcustom(name=g,tflops=100,net_gbps=800)+4xcustom(name=h,tflops=50,net_gbps=100)" --bytes 64,1M --json "$TMPDIR_GOLD/c.json" && cat "$TMPDIR_GOLD/c.json"
