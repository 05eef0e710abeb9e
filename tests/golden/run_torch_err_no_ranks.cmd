dnnpar run-torch lenet tests/torch/lenet-dp2.json 2>&1
