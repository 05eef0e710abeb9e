"""A concat (Inception, DenseNet) on the ranks: a join whose inputs'
channels follow one another in its output (docs/torch.md "What each rank
holds").  Planned like an add (batch-split, channel-split or replicated);
each input is brought to the part of that layout its channels take, the
same rule as src/sim/devcomm.c (concat_part)."""
import torch


def part(ivl, span):
    """The channels of an input spanning `span` = (lo, hi) of the concat's
    channels that the channel range ivl takes, numbered from 0 in that
    input; (0, 0) where it takes none."""
    a, b = max(ivl[0], span[0]), min(ivl[1], span[1])
    return (a - span[0], b - span[0]) if b > a else (0, 0)


class ConcatInput(torch.autograd.Function):
    """Forward: input k's cells from its producer u's layout to the part of
    concat node v's layout that k's channels take.  Backward: the error of
    that part back to u's layout (a join has no partial sums)."""

    @staticmethod
    def forward(ctx, x, comm, u, v, k, span):
        run = comm.run
        ctx.comm, ctx.key = comm, ("cb", u, v, k)
        ctx.have = [run.region(d, u, "out") for d in range(run.ranks)]
        ctx.need = []
        for d in range(run.ranks):
            b, i = run.region(d, v, "in")
            ctx.need.append((b, part(i, span)))
        return comm.redistribute(x, ctx.have, ctx.need, "layout_fwd", ("cf", u, v, k))

    @staticmethod
    def backward(ctx, g):
        return (ctx.comm.redistribute(g.contiguous(), ctx.need, ctx.have, "layout_bwd", ctx.key),
                None, None, None, None, None)


def concat_on_rank(run, comm, o, t):
    """This rank's shard of concat op o: t maps op names to (tensor, region);
    returns (tensor, region) in the concat's layout."""
    m = run.model
    v = m.node_of[o.name]
    info = m.info[v]
    bv, iv, _ = run.shards[comm.rank][v]
    nb, cell = bv[1] - bv[0], info["in_cell"]
    parts = []
    for k, x in enumerate(o.inputs):
        xin, reg = t[x]
        cells = xin.reshape(xin.shape[0], reg[1][1] - reg[1][0], cell)
        span = info["concat"][k]
        u = m.owner[x]
        if u is None:  # the model input, whole on every rank: sliced, not moved
            a, b = part(iv, span)
            parts.append(cells[bv[0]:bv[1], a:b])
        else:
            parts.append(ConcatInput.apply(cells, comm, u, v, k, span))
    y = torch.cat(parts, dim=1)
    nu = iv[1] - iv[0]
    shape = (nb, nu) + tuple(o.out[1:]) if len(o.out) == 3 and xin.dim() == 4 else (nb, nu * cell)
    return y.reshape(shape), (bv, iv)
