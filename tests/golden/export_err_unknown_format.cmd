dnnpar export alexnet --cluster 4xtpu-v3 --format onnx -o "$TMPDIR_GOLD/x.py" 2>&1; rc=$?; echo "files left: $(ls "$TMPDIR_GOLD" | wc -l)"; exit $rc
