printf "num_layers 1\nconv1 CONV\nin_ch 3\n" > "$TMPDIR_GOLD/bad.txt"; dnnpar info "$TMPDIR_GOLD/bad.txt" 2>&1 | sed "s|$TMPDIR_GOLD/||"
