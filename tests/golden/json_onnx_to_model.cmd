dnnpar export-model data/onnx/squeezenet1_1_with_weights.onnx -o "$TMPDIR_GOLD/s.json" && dnnpar info "$TMPDIR_GOLD/s.json" | tail -n 2 && head -n 12 "$TMPDIR_GOLD/s.json"
