# Recreates tests/data/convnext_mini.onnx and tests/data/seqfirst_encoder.onnx,
# two small models whose activations are not NCHW / batch-first, for the
# importer's named-axis tracking (issue 10; docs/onnx.md, "Axes"):
#
# - convnext_mini: a ConvNeXt-style network written here by hand (Liu et
#   al. 2022, "A ConvNet for the 2020s", Fig. 4 block): a 4x4 stride-4 stem
#   conv, two blocks (7x7 depthwise conv, permute to channel-last N,H,W,C,
#   LayerNorm over C, Linear C->4C, GELU, Linear 4C->C, layer scale,
#   permute back, residual), global mean, LayerNorm, Linear head.  Input
#   3x64x96 (H != W so that a swapped axis shows), C = 32.  Opset 13: the
#   layer norms are exported decomposed (ReduceMean over the last axis).
#   Weights are initializers.
# - seqfirst_encoder: torch.nn.TransformerEncoder of two
#   TransformerEncoderLayer(d_model 64, 4 heads, feed-forward 256,
#   batch_first=False): input (sequence 12, batch, 64), the batch axis
#   (axis 1) dynamic and named `batch`; opset 17 (LayerNormalization).
#   Weights are shape-only graph inputs (export_params=False).
#
# - convnext_mini_b1: convnext_mini with the batch fixed at 1 in the file
#   (no symbolic axis) and weights shape-only: a batch of 1 has no extent,
#   so the importer places it by the unit axes (docs/onnx.md).
# - reshape_splits_batch: Linear(8, 8) on a fixed batch of 4, then
#   reshape(2, -1): the batch is split over two axes, which the importer
#   refuses (a per-sample count would be meaningless).
# - fc_on_heads: a (batch, 12, 64) input reshaped to (batch, 12, 4, 16) and
#   a Linear(16, 8) on it: a 4-D tensor that is neither an image nor
#   channel-last, whose producer is viewed C x H x W, so the importer
#   re-views it before the Linear (a free reshape op).
#
# All are exported as training graphs (no constant folding, dropout kept)
# so that PyTorch's inference fast path of TransformerEncoderLayer is not
# taken.  Needs Debian's python3-torch 1.13 (torchvision is not used); run
# with /usr/bin/python3 from the repository root.  Prints each model's
# parameter count as PyTorch counts it (tests/unit/test_onnx_axes.c checks
# the importer's count against these).
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(1e-6 * torch.ones(dim))

    def forward(self, x):
        y = self.dwconv(x)
        y = y.permute(0, 2, 3, 1)  # (N, C, H, W) -> (N, H, W, C)
        y = self.norm(y)
        y = self.pwconv1(y)
        y = self.act(y)
        y = self.pwconv2(y)
        y = self.gamma * y
        y = y.permute(0, 3, 1, 2)  # (N, H, W, C) -> (N, C, H, W)
        return x + y


class ConvNeXtMini(nn.Module):
    def __init__(self, dim=32, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, dim, kernel_size=4, stride=4)
        self.blocks = nn.Sequential(Block(dim), Block(dim))
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        x = self.norm(x.mean([-2, -1]))  # global average pool: (N, C)
        return self.head(x)


def count(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


torch.manual_seed(0)
convnext = ConvNeXtMini()
torch.onnx.export(convnext, torch.randn(2, 3, 64, 96), 'tests/data/convnext_mini.onnx',
                  export_params=True, opset_version=13, input_names=['image'],
                  dynamic_axes={'image': {0: 'batch'}},
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
print('convnext_mini parameters', count(convnext))
torch.onnx.export(convnext, torch.randn(1, 3, 64, 96), 'tests/data/convnext_mini_b1.onnx',
                  export_params=False, opset_version=13, input_names=['image'],
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)


class SplitsBatch(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x).reshape(2, -1)


class FcOnHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        return self.fc(x.reshape(x.shape[0], 12, 4, 16))


torch.onnx.export(FcOnHeads(), torch.randn(2, 12, 64), 'tests/data/fc_on_heads.onnx',
                  export_params=False, opset_version=13, input_names=['x'],
                  dynamic_axes={'x': {0: 'batch'}},
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
torch.onnx.export(SplitsBatch(), torch.randn(4, 8), 'tests/data/reshape_splits_batch.onnx',
                  export_params=False, opset_version=13, input_names=['x'],
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)

layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=256, dropout=0.1,
                                   batch_first=False)
encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
torch.onnx.export(encoder, torch.randn(12, 3, 64), 'tests/data/seqfirst_encoder.onnx',
                  export_params=False, opset_version=17, input_names=['src'],
                  dynamic_axes={'src': {1: 'batch'}},
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
print('seqfirst_encoder parameters', count(encoder))
