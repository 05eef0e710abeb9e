# Recreates vit_tiny.onnx, swin_tiny.onnx and maxvit_tiny.onnx (needs Debian's python3-torch,
# python3-torchvision): torchvision 0.14's vision transformers at tiny sizes, with the operators
# their full-size exports use (Equal, Where, Expand, Range, Mod, Not, ScatterND, Einsum, shape
# arithmetic through Slice and Transpose).  Random initialisation, no weights in the files.
import torch
from torchvision.models.vision_transformer import VisionTransformer
from torchvision.models.swin_transformer import SwinTransformer
from torchvision.models.maxvit import MaxVit
from torch.profiler import profile, ProfilerActivity
torch.manual_seed(0)
def export(name, model, size):
    x = torch.randn(1, 3, size, size)
    torch.onnx.export(model.eval(), x, name + '.onnx', export_params=False, opset_version=13,
                      input_names=['input'], dynamic_axes={'input': {0: 'batch'}})
    # the reference multiply-accumulates: torch's own FLOP counter over the products
    # (conv2d, mm, bmm, addmm count 2 FLOP per multiply-accumulate)
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], with_flops=True) as prof:
        model(x)
    macs = sum(e.flops for e in prof.key_averages()
               if e.key in ('aten::conv2d', 'aten::mm', 'aten::bmm', 'aten::addmm')) // 2
    print(name, 'parameters in torch:', sum(p.numel() for p in model.parameters()),
          'MACs per sample (torch.profiler):', macs)
export('vit_tiny', VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                     hidden_dim=32, mlp_dim=64, num_classes=10), 32)
export('swin_tiny', SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2],
                                    num_heads=[2, 4], window_size=[4, 4], num_classes=10), 32)
export('maxvit_tiny', MaxVit(input_size=(32, 32), stem_channels=8, partition_size=2,
                             block_channels=[16, 32], block_layers=[1, 1], head_dim=8,
                             stochastic_depth_prob=0.0, num_classes=10), 32)
