dnnpar info tests/fuzz/corpus/onnx/crash_same_upper_stride0.onnx 2>&1; echo "exit $?"
