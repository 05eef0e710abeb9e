dnnpar mpt wrn-40-10 --workers 16 --json "$TMPDIR_GOLD/w.json" | head -n 4 && grep -c "\"name\"" "$TMPDIR_GOLD/w.json" && echo "temporary files left: $(ls "$TMPDIR_GOLD" | grep -c tmp)"
