dnnpar info tests/data/reshape_splits_batch.onnx 2>&1; echo "exit $?"
