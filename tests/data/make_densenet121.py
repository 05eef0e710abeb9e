# Recreates tests/data/densenet121_train.onnx: torchvision's DenseNet-121
# exported as a training graph (batch norm kept, not folded into the convs),
# weights as shape-only graph inputs.  Needs Debian's python3-torch and
# python3-torchvision (1.13 / 0.14); run with /usr/bin/python3 from the
# repository root.
import torch
import torchvision

model = torchvision.models.densenet121(weights=None)
torch.onnx.export(model, torch.randn(1, 3, 224, 224), 'tests/data/densenet121_train.onnx',
                  export_params=False, opset_version=13, input_names=['input'],
                  dynamic_axes={'input': {0: 'batch'}},
                  training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
