dnnpar plan pase-rnnlm --search pase --cluster 4xa100 --batch 16 --strategy-json "$TMPDIR_GOLD/s.json" 2>&1 | grep -E "note|^ +[0-9] |^search|^  in a|^  channel|^step"
