"""The product of two activations (a matmul join: attention's scores
Q K^T and context P V) on the ranks (docs/torch.md "What each rank holds").

A matmul is planned like an add (batch-split, channel-split or
replicated), but it needs every channel of both inputs for its samples:
the contracted axis and the other operand's rows or columns span them all.
A channel layout splits only its output channels; backward each half then
holds a partial input error (the products of its output channels), summed
per channel level like a Type-III layer's.  The same rules as
src/sim/devcomm.c (matmul_form, edges_into)."""
import torch

from .shards import InputError

LAYOUT_CHANNEL = 1  # a join's channel layout (src/cost/accpar_cost.h)
AB_T, AB = 1, 2


def form(o, a, b):
    """out[j, i] = sum_k a[k, i] b'[k, j] over K = a's channels at a's
    positions i: b' = b transposed (b's channels are K, its positions the
    output's channels: Q K^T), AB_T, or b itself (b's positions are K, its
    channels the output's: P V), AB; None for any other product or when
    both fit (which one is meant is not known).  Shapes [c, h, w]."""
    pa, pb, po = a.out[1] * a.out[2], b.out[1] * b.out[2], o.out[1] * o.out[2]
    k = o.contract
    if k <= 0 or a.out[0] != k or pa != po:
        return None
    abt = b.out[0] == k and pb == o.out[0]
    ab = pb == k and b.out[0] == o.out[0]
    return AB_T if abt and not ab else AB if ab and not abt else None


def product(a, b, f):
    """a [samples, K, positions], b as form f says: [samples, out channels,
    positions]."""
    if f == AB_T:
        return torch.einsum("nki,nkj->nji", a, b)
    return torch.einsum("nki,njk->nji", a, b)


def matmul_info(m, path, o):
    """A matmul's planning facts: its units are its output channels; input k
    brings all of its own channels (whole channels of its producer)."""
    a, b = m.by_name[o.inputs[0]], m.by_name[o.inputs[1]]
    for x in (a, b):
        if m.units[x.name] != x.out[0]:
            raise InputError("%s: op '%s' (matmul): input '%s' is not whole channels of "
                             "its producer" % (path, o.name, x.name))
    f = form(o, a, b)
    if f is None:
        raise InputError("%s: op '%s' (matmul): of shapes %s x %s -> %s with contract %s is "
                         "neither A B^T nor A B over the first input's channels (the "
                         "executable products; docs/torch.md)"
                         % (path, o.name, list(a.out), list(b.out), list(o.out),
                            o.contract))
    return {"join": True, "matmul": f, "in_units": o.out[0], "out_units": o.out[0],
            "in_cell": o.out[1] * o.out[2], "in_shape": o.out,
            "producers": [m.owner[x] for x in o.inputs]}


def reference_matmul(o, f, xa, xb):
    """The single-process product (torch.matmul on [samples, positions, channels])."""
    n = xa.shape[0]
    a = xa.reshape(n, xa.shape[1], -1).transpose(1, 2)    # [n, positions, K]
    b = xb.reshape(n, xb.shape[1], -1)                      # [n, channels, positions]
    y = torch.matmul(a, b if f == AB_T else b.transpose(1, 2))  # [n, positions, out]
    return y.transpose(1, 2).reshape((n,) + tuple(o.out))


class MatmulInput(torch.autograd.Function):
    """Forward: input k from its producer u's layout to every channel of
    matmul node v's samples.  Backward: v's channel-level partial sums of
    that input's error, then the error back to u's layout."""

    @staticmethod
    def forward(ctx, x, comm, u, v, k, units):
        run = comm.run
        ctx.comm, ctx.v, ctx.key = comm, v, ("mb", u, v, k)
        ctx.have = [run.region(d, u, "out") for d in range(run.ranks)]
        ctx.need = [(run.region(d, v, "in")[0], (0, units)) for d in range(run.ranks)]
        return comm.redistribute(x, ctx.have, ctx.need, "layout_fwd", ("mf", u, v, k))

    @staticmethod
    def backward(ctx, g):
        comm = ctx.comm
        g = comm.partial_sums(g.contiguous(), ctx.v, LAYOUT_CHANNEL, ctx.need, "psum_bwd",
                              ("mp",) + ctx.key[1:])
        return (comm.redistribute(g, ctx.need, ctx.have, "layout_bwd", ctx.key),
                None, None, None, None, None)


def matmul_on_rank(run, comm, o, t):
    """This rank's shard of matmul op o: t maps op names to (tensor, region);
    returns (tensor, region): its samples and output channels."""
    m = run.model
    v = m.node_of[o.name]
    bv, iv, _ = run.shards[comm.rank][v]
    ins = []
    for k, x in enumerate(o.inputs):
        xin, reg = t[x]
        src = m.by_name[x]
        units = src.out[0]
        cells = xin.reshape(xin.shape[0], reg[1][1] - reg[1][0], src.out[1] * src.out[2])
        if m.owner[x] is None:  # the model input, whole on every rank: sliced, not moved
            ins.append(cells[bv[0]:bv[1]])
        else:
            ins.append(MatmulInput.apply(cells, comm, m.owner[x], v, k, units))
    y = product(ins[0], ins[1], m.info[v]["matmul"])[:, iv[0]:iv[1]]
    nb, nu = bv[1] - bv[0], iv[1] - iv[0]
    return y.reshape((nb, nu) + tuple(o.out[1:])), (bv, iv)
