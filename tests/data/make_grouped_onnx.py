# Recreates tests/data/mobilenet_v2_train.onnx and
# tests/data/shufflenet_v2_x1_0_train.onnx: torchvision's MobileNet-v2 and
# ShuffleNet-v2 x1.0, whose depthwise convolutions PaSE plans as GroupConv
# (issue 10), exported as training graphs (batch norm kept, not folded into
# the convs) with the weights as shape-only graph inputs.  Needs Debian's
# python3-torch and python3-torchvision (1.13 / 0.14); run with
# /usr/bin/python3 from the repository root.
import torch
import torchvision

for name in ('mobilenet_v2', 'shufflenet_v2_x1_0'):
    model = getattr(torchvision.models, name)(weights=None)
    torch.onnx.export(model, torch.randn(1, 3, 224, 224), 'tests/data/%s_train.onnx' % name,
                      export_params=False, opset_version=13, input_names=['input'],
                      dynamic_axes={'input': {0: 'batch'}},
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
