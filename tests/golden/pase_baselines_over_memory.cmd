dnnpar plan llama2-7b --cluster 8xtpu-v3 --batch 16 --search pase --json "$TMPDIR_GOLD/p.json" 2>&1 | sed -n '/^baselines/,/^best baseline/p' && grep -o '"fits": [a-z]*' "$TMPDIR_GOLD/p.json"
