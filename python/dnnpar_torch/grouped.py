"""Grouped convolutions (groups > 1; depthwise: one input channel per
group) on the ranks (docs/torch.md "Grouped convolutions").

Group g connects input channels g x C_in/G .. (g+1) x C_in/G - 1 to output
channels g x C_out/G .. (g+1) x C_out/G - 1 only (PyTorch's conv2d
`groups`; Krizhevsky et al. 2012, section 3.2).  A rank holding input
channels I and output channels O holds, of each group, the weights between
its channels in O and its channels in I: it stores its output channels'
rows of the weight W[C_out, C_in/G, kh, kw] and trains the columns its
input channels reach (the others get no gradient and are never summed).
Partial sums and layout changes move whole rectangles as for a dense conv
(an output channel whose group has no input on the rank is a zero partial
sum).  The same rule as src/sim/devcomm.c (group_pairs)."""
import torch
import torch.nn.functional as F


def group_units(model, v):
    """(output units, input units) per group of planned node v: the whole
    ranges for a dense layer.  An input unit is in.c / in_units channels."""
    o, info = model.planned[v], model.info[v]
    if o.kind != "conv" or o.groups == 1:
        return info["out_units"], info["in_units"]
    per_unit = info["in_shape"][0] // info["in_units"]
    return o.out[0] // o.groups, info["in_shape"][0] // o.groups // per_unit


def blocks(o, in_channels, ic, oc):
    """Per group that output channels oc = (lo, hi) span: (group, output
    channels, input channels of ic in that group), each a (lo, hi) pair,
    the input range empty where the group has none in ic."""
    g_in, g_out = in_channels // o.groups, o.out[0] // o.groups
    res = []
    for g in range(oc[0] // g_out, (oc[1] + g_out - 1) // g_out):
        ro = (max(oc[0], g * g_out), min(oc[1], (g + 1) * g_out))
        ri = (max(ic[0], g * g_in), min(ic[1], (g + 1) * g_in))
        res.append((g, ro, ri if ri[0] < ri[1] else (ri[0], ri[0])))
    return res


def conv_on_rank(o, in_channels, x, w, b, ic, oc):
    """This rank's partial output of grouped conv o for its output channels
    oc from its input channels ic (x: [samples, channels of ic, h, w]; w:
    rows oc of the weight)."""
    g_in = in_channels // o.groups
    parts = []
    for g, ro, ri in blocks(o, in_channels, ic, oc):
        if ri[0] < ri[1]:
            parts.append(F.conv2d(x[:, ri[0] - ic[0]:ri[1] - ic[0]],
                                  w[ro[0] - oc[0]:ro[1] - oc[0], ri[0] - g * g_in:ri[1] - g * g_in],
                                  None, tuple(o.stride), tuple(o.pad)))
        else:  # no input channel of this group here: a zero partial sum
            parts.append(torch.zeros((x.shape[0], ro[1] - ro[0]) + tuple(o.out[1:])))
    # (tied to x and w: the backward exchanges run on every rank)
    y = torch.cat(parts, dim=1) + 0.0 * x.sum() + 0.0 * w.sum()
    return y if b is None else y + b.reshape(1, -1, 1, 1)


def held(o, in_channels, ic, oc):
    """The weight blocks a rank trains, as (rows, columns) slices of the
    whole weight (its local rows are these minus oc's first)."""
    g_in = in_channels // o.groups
    return [(slice(*ro), slice(ri[0] - g * g_in, ri[1] - g * g_in))
            for g, ro, ri in blocks(o, in_channels, ic, oc) if ri[0] < ri[1]]
