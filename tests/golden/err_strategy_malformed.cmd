printf "{\n  \"levels\": 2,\n  \"paths\": [ oops ]\n}\n" > "$TMPDIR_GOLD/bad.json"; dnnpar simulate --strategy "$TMPDIR_GOLD/bad.json" 2>&1 | sed "s|$TMPDIR_GOLD/||"; echo "exit ${PIPESTATUS[0]}"
