dnnpar plan vgg16 --search pase --strategy-space --cluster 8xa100+8xv100 --batch 128 --json "$TMPDIR_GOLD/p.json" >/dev/null && sed -n '/"simulated_s"/,/^  },/p' "$TMPDIR_GOLD/p.json"
