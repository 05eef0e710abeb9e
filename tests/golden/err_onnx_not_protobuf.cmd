printf "hello" > "$TMPDIR_GOLD/x.onnx"; dnnpar info "$TMPDIR_GOLD/x.onnx" 2>&1; echo "exit $?"
