"""The scale and shift of layer and batch norms (`param_elems`: one or two
values per channel) on the ranks (docs/torch.md "Norms with parameters").

A norm acts on its owner node u's output in u's layout, so a rank holds the
scale and shift of the channels of its units.  A layer norm's (Ba et al.
2016, eq. 4) gradients are summed over samples and positions like a weight:
per channel unit, all-reduced after the backward pass over the ranks holding
the unit unless they all hold the same samples, each piece counted by its
lowest-numbered holder (the others' copies enter with their parameters
detached).  A batch norm's are the backward statistics batchnorm.py
all-reduces already (Ioffe and Szegedy 2015, Algorithm 1: dbeta = sum dy,
dgamma = sum dy xhat): no exchange of their own.  The same rule as
src/sim/devcomm.c (norm_params)."""
import torch
import torch.nn.functional as F

from .batchnorm import bn_layout
from .shards import InputError

SEED_OFFSET = 2000


def with_params(model):
    """The norms with parameters, checked: one or two per channel, after a
    conv or FC (on the model input's chain each rank's error would be only
    its consumers' samples)."""
    res = []
    for o in model.ops:
        if o.kind not in ("layernorm", "batchnorm") or not o.param_elems:
            continue
        if o.param_elems not in (o.out[0], 2 * o.out[0]):
            raise InputError("op '%s' (%s): %d parameters are not one or two per channel "
                             "(scale, shift) of its %d channels"
                             % (o.name, o.kind, o.param_elems, o.out[0]))
        if model.owner[o.name] is None:
            raise InputError("op '%s' (%s): a norm with parameters on the model input's chain "
                             "(before any conv or FC) is not executable" % (o.name, o.kind))
        res.append(o)
    return res


def init_norms(model, seed):
    """Full scale (and shift) of every norm with parameters, not torch's
    default 1 and 0 (so a wrong gradient shows): 1 + N(0, 0.2^2), N(0, 0.2^2)."""
    g = torch.Generator().manual_seed(seed + SEED_OFFSET)
    res = {}
    for o in with_params(model):
        c = o.out[0]
        gamma = 1.0 + 0.2 * torch.randn(c, generator=g)
        beta = 0.2 * torch.randn(c, generator=g) if o.param_elems == 2 * c else None
        res[o.name] = (gamma, beta)
    return res


def channels(run, o, rank):
    """The channels of norm o rank holds: its owner's output units x the
    norm's channels per unit."""
    m = run.model
    u = m.owner[o.name]
    spu = o.out[0] // m.info[u]["out_units"]
    _, units = run.region(rank, u, "out")
    return units[0] * spu, units[1] * spu


def local_norms(run, full, rank):
    res = {}
    for o in with_params(run.model):
        lo, hi = channels(run, o, rank)
        gamma, beta = full[o.name]
        res[o.name] = (gamma[lo:hi].clone().requires_grad_(True),
                       None if beta is None else beta[lo:hi].clone().requires_grad_(True))
    return res


def reference_layer_norm(x, gamma, beta):
    """torch's own layer norm over the features (dim 1) of each position."""
    if x.dim() == 2:
        return F.layer_norm(x, (x.shape[1],), gamma, beta)
    return F.layer_norm(x.permute(0, 2, 3, 1), (x.shape[1],), gamma, beta).permute(0, 3, 1, 2)


def ln_layout(run, o, rank):
    """(groups of ranks this rank all-reduces o's gradients with, as
    [(holders, its channel ranges, local)], and the mask [samples, channels]
    of the pieces whose gradient it counts)."""
    m = run.model
    u = m.owner[o.name]
    spu = o.out[0] // m.info[u]["out_units"]
    groups, mask = bn_layout(run, u, rank)
    samples = [run.region(d, u, "out")[0] for d in range(run.ranks)]
    summed = []
    for hs, ranges in groups:
        if len({samples[d] for d in hs}) > 1:
            summed.append((hs, [(a * spu, b * spu) for a, b in ranges]))
        else:  # every holder computes the whole gradient: each counts it all
            for a, b in ranges:
                mask[:, a:b] = 1.0
    return summed, mask.repeat_interleave(spu, dim=1)


def ln_holder_sets(run):
    sets = set()
    for o in with_params(run.model):
        if o.kind == "layernorm":
            for d in range(run.ranks):
                sets.update(hs for hs, _ in ln_layout(run, o, d)[0])
    return sets


def layer_norm_on_rank(run, comm, o, x, params):
    """This rank's layer norm with its scale and shift: the pieces it does
    not count see them detached (no gradient)."""
    key = ("ln", o.name)
    if key not in comm.routes:
        comm.routes[key] = ln_layout(run, o, comm.rank)
    _, mask = comm.routes[key]
    gamma, beta = params[o.name]
    y = F.layer_norm(x.transpose(1, -1), (x.shape[1],)).transpose(1, -1) if x.dim() == 4 \
        else F.layer_norm(x, (x.shape[1],))
    shape = (x.shape[0], x.shape[1]) + (1,) * (x.dim() - 2)
    w = mask.reshape(shape)
    y = y * (gamma.reshape(shape[1:]) * w + gamma.detach().reshape(shape[1:]) * (1 - w))
    if beta is not None:
        y = y + beta.reshape(shape[1:]) * w + beta.detach().reshape(shape[1:]) * (1 - w)
    return y


def sync_norms(run, comm, params):
    """All-reduce each layer norm's scale and shift gradients over the groups of ln_layout."""
    for o in with_params(run.model):
        gamma, beta = params[o.name]
        for t in (gamma, beta):
            if t is not None and t.grad is None:
                t.grad = torch.zeros_like(t)
        if o.kind != "layernorm":
            continue
        for hs, ranges in comm.routes[("ln", o.name)][0]:
            grads = [t.grad for t in (gamma, beta) if t is not None]
            sl = [slice(a, b) for a, b in ranges]
            buf = torch.cat([gr[s] for gr in grads for s in sl])
            comm.all_reduce(buf, hs)
            at = 0
            for gr in grads:
                for s in sl:
                    n = s.stop - s.start
                    gr[s] = buf[at:at + n]
                    at += n
