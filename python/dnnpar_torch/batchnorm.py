"""Batch normalization on the ranks (training mode, statistics over the
whole batch; Ioffe and Szegedy 2015, Algorithm 1), with or without scale
and shift (norms.py).  A batchnorm acts on its owner node u's output in u's layout: the
ranks holding a channel unit hold shares of its samples (a piece twice
where u's output is replicated).  Per channel, the sum and the sum of
squares (forward) and the sums of the error and of the error times the
normalized input (backward) are all-reduced over the ranks holding the
unit, each piece counted by its lowest-numbered holder.  The same rule as
src/sim/devcomm.c (bn_stats); docs/torch.md."""
import torch
import torch.nn.functional as F

from .shards import cuts, inside

EPS = 1e-5


def reference_bn(x, gamma=None, beta=None):
    """The single-process batch norm (torch's own)."""
    return F.batch_norm(x, None, None, gamma, beta, training=True, eps=EPS)


def bn_atoms(run, u):
    """Channel-unit atoms of node u's output: [(unit range, holders)] in
    increasing order, holders the ranks whose unit range covers it."""
    regions = [run.region(d, u, "out") for d in range(run.ranks)]
    cu = cuts([r[1] for r in regions])
    res = []
    for j in range(len(cu) - 1):
        au = (cu[j], cu[j + 1])
        res.append((au, tuple(d for d in range(run.ranks) if inside(au, regions[d][1]))))
    return res, regions


def bn_holder_sets(run):
    """Every set of two or more ranks a batchnorm's statistics are
    all-reduced over."""
    m = run.model
    sets = set()
    for o in m.ops:
        if o.kind == "batchnorm" and m.owner[o.name] is not None:
            atoms, _ = bn_atoms(run, m.owner[o.name])
            sets.update(hs for _, hs in atoms if len(hs) >= 2)
    return sets


def bn_layout(run, u, rank):
    """This rank's part: [(holders, [unit ranges, local])] for the groups
    of two or more in the global order of their first atom, and the mask
    [samples, units] of the pieces it counts (it is their lowest holder)."""
    atoms, regions = bn_atoms(run, u)
    (b0, b1), (u0, u1) = regions[rank]
    mask = torch.zeros(b1 - b0, u1 - u0)
    groups, order = {}, []
    for au, hs in atoms:
        if rank not in hs:
            continue
        cb = cuts([regions[d][0] for d in hs])
        for i in range(len(cb) - 1):
            ab = (cb[i], cb[i + 1])
            if inside(ab, (b0, b1)) and \
                    min(d for d in hs if inside(ab, regions[d][0])) == rank:
                mask[ab[0] - b0:ab[1] - b0, au[0] - u0:au[1] - u0] = 1.0
        if len(hs) >= 2:
            if hs not in groups:
                groups[hs] = []
                order.append(hs)
            groups[hs].append((au[0] - u0, au[1] - u0))
    return [(hs, groups[hs]) for hs in order], mask


def _reduce_stats(comm, groups, spu, a, b):
    """All-reduce the per-channel sums a and b over each group of holders."""
    a, b = a.clone(), b.clone()
    for hs, ranges in groups:
        sl = [slice(lo * spu, hi * spu) for lo, hi in ranges]
        buf = torch.cat([a[s] for s in sl] + [b[s] for s in sl])
        comm.all_reduce(buf, hs)
        at = 0
        for t in (a, b):
            for s in sl:
                n = s.stop - s.start
                t[s] = buf[at:at + n]
                at += n
    return a, b


class SyncBatchNorm(torch.autograd.Function):
    """y = gamma xhat + beta per channel (gamma 1 and beta 0 where None).
    Backward, the all-reduced sums of dy and of dy xhat over the whole batch
    are the gradients of beta and gamma themselves (Algorithm 1's backward),
    whole on every holder: they need no exchange of their own."""

    @staticmethod
    def forward(ctx, x, gamma, beta, comm, groups, mask, spu, count):
        nb, nc = x.shape[0], x.shape[1]
        x3 = x.reshape(nb, nc, -1)
        w = mask.repeat_interleave(spu, dim=1).unsqueeze(2)
        s1, s2 = _reduce_stats(comm, groups, spu, (x3 * w).sum((0, 2)),
                               (x3 * x3 * w).sum((0, 2)))
        mean = s1 / count
        inv = torch.rsqrt(s2 / count - mean * mean + EPS)
        xhat = (x3 - mean[None, :, None]) * inv[None, :, None]
        ctx.has = (gamma is not None, beta is not None)
        scale = gamma if gamma is not None else torch.ones(nc)
        ctx.save_for_backward(xhat, inv, w, scale)
        ctx.comm, ctx.groups, ctx.spu, ctx.count = comm, groups, spu, count
        y = xhat * scale[None, :, None]
        if beta is not None:
            y = y + beta[None, :, None]
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, g):
        xhat, inv, w, scale = ctx.saved_tensors
        g3 = g.reshape(xhat.shape)
        t1, t2 = _reduce_stats(ctx.comm, ctx.groups, ctx.spu, (g3 * w).sum((0, 2)),
                               (g3 * xhat * w).sum((0, 2)))
        dx = (g3 - t1[None, :, None] / ctx.count - xhat * t2[None, :, None] / ctx.count) \
            * (scale * inv)[None, :, None]
        return (dx.reshape(g.shape), t2 if ctx.has[0] else None, t1 if ctx.has[1] else None,
                None, None, None, None, None)


def batchnorm_on_rank(run, comm, o, xin, reg, gamma=None, beta=None):
    """This rank's batchnorm of its shard xin (region reg of the owner's
    output), with its channels' scale and shift if any; the model input's
    chain is whole here: torch's own."""
    m = run.model
    u = m.owner[o.name]
    if u is None:
        return reference_bn(xin)
    key = ("bn", o.name)
    if key not in comm.routes:
        comm.routes[key] = bn_layout(run, u, comm.rank)
    groups, mask = comm.routes[key]
    units = reg[1][1] - reg[1][0]
    spu = o.out[0] // m.info[u]["out_units"]
    cell = 1
    for n in xin.shape[2:]:
        cell *= n
    count = run.batch * cell
    if xin.shape[1] != units * spu:
        raise RuntimeError("op '%s': shard of %d channels, expected %d" %
                           (o.name, xin.shape[1], units * spu))
    return SyncBatchNorm.apply(xin, gamma, beta, comm, groups, mask, spu, count)
