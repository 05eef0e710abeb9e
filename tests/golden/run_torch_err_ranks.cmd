dnnpar run-torch lenet tests/torch/lenet-dp2.json --ranks 3 2>&1
