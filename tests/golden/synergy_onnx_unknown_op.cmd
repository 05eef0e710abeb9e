dnnpar synergy tests/data/unsupported_op.onnx 2>&1; echo "exit $?"; dnnpar synergy tests/data/unsupported_op.onnx:4 --skip-unknown --simulate | tail -n 5
