dnnpar compare lenet --cluster 2xtpu-v3 --json "$TMPDIR_GOLD/c.json" > /dev/null && head -c 60 "$TMPDIR_GOLD/c.json" && echo && echo "temporary files left: $(ls "$TMPDIR_GOLD" | grep -c tmp)"
