"""One strategy on torch.distributed: the sharded training of every rank,
the single-process reference and the byte counters (docs/torch.md)."""
import json
import math
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

from .batchnorm import batchnorm_on_rank, bn_holder_sets, reference_bn
from .concat import concat_on_rank
from .grouped import conv_on_rank, group_units
from .matmul import matmul_on_rank, reference_matmul
from .norms import (init_norms, with_params, layer_norm_on_rank, ln_holder_sets, local_norms,
                    reference_layer_norm, sync_norms)
from .model import Model, elems
from .shards import (TYPE_II, TYPE_III, Device, InputError, holder_groups,
                     route_layout, route_partial_sums, shard)

SEED = 20240514
# SGD's learning rate: the first of these whose float64 reference stays
# stable (run.py, stable_lr; docs/torch.md "Checks").  A wide FC under the
# squared error diverges at 0.05 (AlexNet's fc6-fc8: the step times the
# squared norm of the input, about 0.05 x 4096 x 0.1 = 20, exceeds 2).
LRS = (0.05, 0.005, 0.0005, 0.00005)
LR = LRS[0]
KINDS = ("layout_fwd", "layout_bwd", "psum_fwd", "psum_bwd")


class Run:
    """A run file written by `dnnpar run-torch` with its model."""

    def __init__(self, path):
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise InputError("%s: %s" % (path, e))
        if doc.get("format") != "dnnpar-torch-run":
            raise InputError("%s: not a dnnpar-torch-run file" % path)
        self.path = path
        self.doc = doc
        self.model = Model(doc["model_file"])
        self.batch = int(doc["batch"])
        self.steps = int(doc["steps"])
        self.ranks = int(doc["ranks"])
        self.lr = LR  # run_all sets the stable one (stable_lr)
        nodes = doc["nodes"]
        names = [o.name for o in self.model.planned]
        if nodes != names:
            raise InputError("%s: the strategy's planned ops %s are not the model's %s"
                             % (path, nodes, names))
        self.devs = [Device(d["device"], d["branch_bits"],
                            [(l["side"], float(l["ratio"]), list(l["types"]))
                             for l in d["levels"]])
                     for d in doc["devices"]]
        for dev in self.devs:
            for k, (_, _, types) in enumerate(dev.levels):
                for v, t in enumerate(types):
                    # 0..2: Types I, II, III (joins: batch, channel, replicated);
                    # 3: R, a layer not split at that level (DNP_TYPE_R)
                    if t not in ((0, 1, 2) if self.model.info[v]["join"] else (0, 1, 2, 3)):
                        raise InputError("%s: op '%s' has no partition type at level %d"
                                         % (path, names[v], k))
        self.shards = [[shard(dev, v, self.batch, i["in_units"], i["out_units"], i["join"])
                        for v, i in enumerate(self.model.info)] for dev in self.devs]
        self.check_row_ops()
        try:
            with_params(self.model)
        except InputError as e:
            raise InputError("%s: %s" % (doc["model_file"], e))

    def check_row_ops(self):
        """Ops that need every channel of a sample (softmax) must find them
        on every device: their owner may not split its output channels."""
        m = self.model
        for o in m.ops:
            if o.kind not in ("softmax", "layernorm", "lrn"):
                continue
            v = m.owner[o.name]
            if v is None:
                continue
            for dev in self.devs:
                for k, (_, _, types) in enumerate(dev.levels):
                    if types[v] == (1 if m.info[v]["join"] else 2):
                        raise InputError(
                            "%s: op '%s' (%s) needs every channel of a sample, but '%s' "
                            "splits its output channels (Type-III or a channel layout) at "
                            "level %d: a "
                            "collective dnnpar does not model; not executable"
                            % (self.path, o.name, o.kind, m.planned[v].name, k))

    def region(self, d, v, what):
        b, i, o = self.shards[d][v]
        return (b, i) if what == "in" else (b, o)


# ---------------------------------------------------------------- data
def init_params(model):
    """Full weights and biases of every planned op, from the fixed seed."""
    g = torch.Generator().manual_seed(SEED)
    params = []
    for v, o in enumerate(model.planned):
        if model.info[v]["join"]:
            params.append((None, None))
            continue
        src = model.by_name[o.inputs[0]]
        if o.kind == "conv":
            shape = (o.out[0], src.out[0] // o.groups, o.kernel[0], o.kernel[1])
        elif o.keep_positions:  # the same weights at every position
            shape = (o.out[0], src.out[0])
        else:
            shape = (o.out[0], elems(src.out))
        fan_in = elems(shape[1:])
        w = torch.randn(shape, generator=g) / math.sqrt(fan_in)
        b = torch.randn(o.out[0], generator=g) * 0.1 if o.bias else None
        params.append((w, b))
    return params


def make_data(model, batch, step):
    """Synthetic inputs and labels (softmax output) or targets, step by step."""
    g = torch.Generator().manual_seed(SEED + 1000 + step)
    x = torch.randn((batch,) + tuple(model.input.out), generator=g)
    out = model.output
    if out.kind == "softmax":
        y = torch.randint(0, out.out[0], (batch,), generator=g)
    else:
        y = torch.randn((batch,) + tuple(out.out), generator=g)
    return x, y


def local_op(o, x, nb):
    if o.kind == "relu":
        return F.relu(x)
    if o.kind == "maxpool":
        return F.max_pool2d(x, o.kernel, o.stride, o.pad)
    if o.kind == "avgpool":
        return F.avg_pool2d(x, o.kernel, o.stride, o.pad)
    if o.kind == "flatten":
        return x.reshape(nb, elems(x.shape[1:]))
    if o.kind == "dropout":
        return x
    if o.kind == "softmax":
        return F.softmax(x, dim=1)
    if o.kind == "layernorm":
        return layer_norm(x)
    if o.kind == "lrn":
        # Across o.kernel[0] channels with AlexNet's constants (Krizhevsky
        # et al. 2012, section 3.3: k 2, alpha 1e-4, beta 0.75), which the
        # model JSON does not carry; torch divides alpha by the size.
        n = o.kernel[0]
        x3 = x.unsqueeze(2) if x.dim() == 2 else x
        return F.local_response_norm(x3, n, alpha=1e-4 * n, beta=0.75, k=2.0).reshape(x.shape)
    if o.kind == "eltwise":
        return ELTWISE_FN[o.src_type](x)
    raise InputError("op '%s': kind %s" % (o.name, o.kind))


ELTWISE_FN = {"Gelu": F.gelu, "Relu": F.relu, "Tanh": torch.tanh, "Sigmoid": torch.sigmoid,
              "SiLU": F.silu, "Erf": torch.erf}


def layer_norm(x):
    """Layer norm (no scale and shift) over the features (channels, dim 1)
    of each position: [samples, features, h, w] or [samples, features]."""
    if x.dim() == 2:
        return F.layer_norm(x, (x.shape[1],))
    return F.layer_norm(x.permute(0, 2, 3, 1), (x.shape[1],)).permute(0, 3, 1, 2)


def planned_op(o, x, w, b):
    """A conv, an FC on the flattened input, or a per-position FC
    (keep_positions) on [samples, features, h, w] as a 1x1 convolution."""
    if o.kind == "conv":
        return F.conv2d(x, w, b, tuple(o.stride), tuple(o.pad), 1, o.groups)
    if o.keep_positions:
        return F.conv2d(x, w.reshape(w.shape + (1, 1)), b)
    return F.linear(x, w, b)


def per_position_linear(x, w, b):
    """The reference's per-position FC: F.linear over the features of every
    position (an implementation independent of the ranks' 1x1 convolution)."""
    return F.linear(x.permute(0, 2, 3, 1), w, b).permute(0, 3, 1, 2)


def loss_of(model, y, target, batch, b0=0, u0=0):
    """The loss of the samples and channels y holds, over the whole batch:
    cross entropy of a softmax output (-log of the label's probability),
    else half the squared error.  Both add up over samples and channels, so
    each device computes its part with no communication."""
    if model.output.kind == "softmax":
        nb, nu = y.shape[0], y.shape[1]
        lab = target[b0:b0 + nb] - u0
        mask = (lab >= 0) & (lab < nu)
        rows = torch.arange(nb)[mask]
        picked = y[rows, lab[mask]]
        return -torch.log(picked).sum() / batch + 0.0 * y.sum()
    return 0.5 * ((y - target) ** 2).sum() / batch


def trained(params, norms):
    """Every tensor SGD updates: weights, biases, norms' scales and shifts."""
    return [x for pair in list(params) + list(norms.values()) for x in pair if x is not None]


def sgd_step(params, norms, lr):
    """x -= lr x grad for every trained tensor (plain SGD), grads cleared."""
    with torch.no_grad():
        for x in trained(params, norms):
            if x.grad is not None:
                x -= lr * x.grad
    for x in trained(params, norms):
        x.grad = None


def reference(run, dtype=torch.float32, lr=None):
    """Single-process training in `dtype` (float32 as the ranks; float64 for
    the rounding that sets the tolerance, docs/torch.md "Checks"): the loss of
    every step and the final weights and norm parameters.  The same
    float32-drawn weights and data either way; lr defaults to run.lr."""
    m = run.model
    lr = run.lr if lr is None else lr

    def leaf(x):
        return x.to(dtype, copy=True).requires_grad_(True) if x is not None else None
    params = [(leaf(w), leaf(b)) for w, b in init_params(m)]
    norms = {k: tuple(leaf(x) for x in v) for k, v in init_norms(m, SEED).items()}
    losses = []
    for step in range(run.steps):
        x, target = make_data(m, run.batch, step)
        x = x.to(dtype)
        if target.is_floating_point():
            target = target.to(dtype)
        t = {m.input.name: x}
        for o in m.ops[1:]:
            xin = t[o.inputs[0]]
            if o.kind == "add":
                y = sum(t[x] for x in o.inputs[1:]) + xin
            elif o.kind == "concat":
                y = torch.cat([t[x] for x in o.inputs], dim=1)
            elif o.kind == "matmul":
                y = reference_matmul(o, m.info[m.node_of[o.name]]["matmul"], xin, t[o.inputs[1]])
            elif o.kind == "batchnorm":
                y = reference_bn(xin, *norms.get(o.name, (None, None)))
            elif o.kind == "layernorm" and o.name in norms:
                y = reference_layer_norm(xin, *norms[o.name])
            elif o.kind in ("conv", "fc"):
                w, b = params[m.node_of[o.name]]
                if o.kind == "fc" and o.keep_positions:
                    y = per_position_linear(xin, w, b)
                else:
                    if o.kind == "fc":
                        xin = xin.reshape(run.batch, -1)
                    y = planned_op(o, xin, w, b)
            else:
                y = local_op(o, xin, run.batch)
            want = (run.batch,) + tuple(o.out) if y.dim() == 4 else (run.batch, elems(o.out))
            if tuple(y.shape) != want:
                raise InputError("op '%s' (%s): torch gives shape %s, the model says %s"
                                 % (o.name, o.kind, tuple(y.shape), want))
            t[o.name] = y
        y = t[m.output.name]
        tgt = target if m.output.kind == "softmax" else target.reshape(y.shape)
        loss = loss_of(m, y, tgt, run.batch)
        losses.append(float(loss))
        loss.backward()
        sgd_step(params, norms, lr)
    return losses, detached(params), {k: detached([v])[0] for k, v in norms.items()}


def detached(pairs):
    return [tuple(x.detach() if x is not None else None for x in p) for p in pairs]


# ---------------------------------------------------------------- comm
class Comm:
    """torch.distributed calls of one rank, each counted where it is made:
    a point-to-point message sends (receives) its bytes; an all-reduce over
    p ranks is recorded by p and counted as a ring's 2 (p-1)/p of its
    buffer, sent and received."""

    def __init__(self, run, rank, groups):
        self.run, self.rank, self.groups = run, rank, groups
        self.sent = {k: 0 for k in KINDS}
        self.received = {k: 0 for k in KINDS}
        self.allreduce = {}
        self.tag = 0
        self.routes = {}

    def exchange(self, sends, recvs, kind):
        """sends: {peer: flat tensor}; recvs: {peer: elements}.  Returns {peer: tensor}."""
        self.tag = (self.tag + 1) % (1 << 30)
        reqs, bufs = [], {}
        for peer in sorted(recvs):
            bufs[peer] = torch.empty(recvs[peer])
            reqs.append(dist.irecv(bufs[peer], src=peer, tag=self.tag))
            self.received[kind] += bufs[peer].numel() * bufs[peer].element_size()
        for peer in sorted(sends):
            t = sends[peer].contiguous()
            reqs.append(dist.isend(t, dst=peer, tag=self.tag))
            self.sent[kind] += t.numel() * t.element_size()
        for r in reqs:
            r.wait()
        return bufs

    def all_reduce(self, buf, holders):
        dist.all_reduce(buf, group=self.groups[holders])
        p = len(holders)
        self.allreduce[p] = self.allreduce.get(p, 0) + buf.numel() * buf.element_size()

    def _moves(self, key, fn):
        if key not in self.routes:
            self.routes[key] = fn()
        return self.routes[key]

    def redistribute(self, x, have, need, kind, key):
        """x: this rank's [samples, units, cell] tensor of region have[rank];
        returns its tensor of region need[rank]."""
        me = self.rank
        moves = self._moves(key, lambda: route_layout(self.run.devs, have, need))
        (hb, hu), (nb_, nu_) = have[me], need[me]
        y = torch.zeros(nb_[1] - nb_[0], nu_[1] - nu_[0], x.shape[2])
        ob = (max(hb[0], nb_[0]), min(hb[1], nb_[1]))
        ou = (max(hu[0], nu_[0]), min(hu[1], nu_[1]))
        if ob[0] < ob[1] and ou[0] < ou[1]:
            y[ob[0] - nb_[0]:ob[1] - nb_[0], ou[0] - nu_[0]:ou[1] - nu_[0]] = \
                x[ob[0] - hb[0]:ob[1] - hb[0], ou[0] - hu[0]:ou[1] - hu[0]]
        self._route(moves, x, have[me], y, need[me], kind, add=False)
        return y

    def partial_sums(self, y, v, ptype, region, kind, key):
        """Add the other halves' partial sums into y (region region[rank]), per level."""
        levels = self._moves(key, lambda: route_partial_sums(self.run.devs, v, ptype, region))
        y = y.clone()
        for _, moves in levels:
            self._route(moves, y, region[self.rank], y, region[self.rank], kind, add=True)
        return y

    def _route(self, moves, x, xr, y, yr, kind, add):
        me = self.rank
        out, inc = {}, {}
        for src, dst, (ab, au) in moves:
            n = (ab[1] - ab[0]) * (au[1] - au[0]) * x.shape[2]
            if n == 0:
                continue
            if src == me:
                out.setdefault(dst, []).append(
                    x[ab[0] - xr[0][0]:ab[1] - xr[0][0], au[0] - xr[1][0]:au[1] - xr[1][0]]
                    .reshape(-1))
            if dst == me:
                inc.setdefault(src, []).append((ab, au, n))
        sends = {p: torch.cat(ts) for p, ts in out.items()}
        bufs = self.exchange(sends, {p: sum(n for _, _, n in l) for p, l in inc.items()}, kind)
        for p, pieces in inc.items():
            at = 0
            for ab, au, n in pieces:
                blk = bufs[p][at:at + n].reshape(ab[1] - ab[0], au[1] - au[0], x.shape[2])
                sl = (slice(ab[0] - yr[0][0], ab[1] - yr[0][0]),
                      slice(au[0] - yr[1][0], au[1] - yr[1][0]))
                if add:
                    y[sl] += blk
                else:
                    y[sl] = blk
                at += n


class Redistribute(torch.autograd.Function):
    """Forward: the layout change of planned node v's input (its producer's
    layout -> v's).  Backward: v's Type-III partial sums of the input error,
    then the error back to the producer's layout."""

    @staticmethod
    def forward(ctx, x, comm, u, v):
        ctx.comm, ctx.u, ctx.v = comm, u, v
        run = comm.run
        ctx.have = [run.region(d, u, "out") for d in range(run.ranks)]
        ctx.need = [run.region(d, v, "in") for d in range(run.ranks)]
        return comm.redistribute(x, ctx.have, ctx.need, "layout_fwd", ("lf", u, v))

    @staticmethod
    def backward(ctx, g):
        comm, u, v = ctx.comm, ctx.u, ctx.v
        g = g.contiguous()
        if not comm.run.model.info[v]["join"]:
            g = comm.partial_sums(g, v, TYPE_III, ctx.need, "psum_bwd", ("pb", v))
        return (comm.redistribute(g, ctx.need, ctx.have, "layout_bwd", ("lb", u, v)),
                None, None, None)


class PartialSum(torch.autograd.Function):
    """Forward: planned node v's Type-II partial sums of its output.
    Backward: nothing moves (each holder has the whole output error)."""

    @staticmethod
    def forward(ctx, y, comm, v):
        run = comm.run
        region = [run.region(d, v, "out") for d in range(run.ranks)]
        return comm.partial_sums(y, v, TYPE_II, region, "psum_fwd", ("pf", v))

    @staticmethod
    def backward(ctx, g):
        return g, None, None


def holder_sets(run):
    """Every set of ranks an all-reduce of gradients runs over, sorted."""
    sets = set()
    for v, o in enumerate(run.model.planned):
        if run.model.info[v]["join"]:
            continue
        outs = [run.shards[d][v][2] for d in range(run.ranks)]
        ins = [run.shards[d][v][1] for d in range(run.ranks)]
        smp = [run.shards[d][v][0] for d in range(run.ranks)]
        for hs, _ in holder_groups(outs, ins, samples=smp, groups=group_units(run.model, v)):
            sets.add(hs)
        if o.bias:
            for hs, _ in holder_groups(outs, ins, bias=True, samples=smp):
                sets.add(hs)
    sets.update(bn_holder_sets(run))
    sets.update(ln_holder_sets(run))
    return sorted(sets)


def sync_grads(run, comm, params):
    """Every gradient piece all-reduced over the ranks holding it."""
    me = comm.rank
    for w, b in params:  # a shard no sample reached has a zero gradient
        if w is not None and w.grad is None:
            w.grad = torch.zeros_like(w)
        if b is not None and b.grad is None:
            b.grad = torch.zeros_like(b)
    for v, o in enumerate(run.model.planned):
        if run.model.info[v]["join"]:
            continue
        # an R level computed this layer twice on the same samples: only the
        # first half's copy enters a sum (docs/torch.md)
        dup = replica(run.devs[me], v)
        outs = [run.shards[d][v][2] for d in range(run.ranks)]
        ins = [run.shards[d][v][1] for d in range(run.ranks)]
        smp = [run.shards[d][v][0] for d in range(run.ranks)]
        w, b = params[v]
        _, iv, ov = run.shards[me][v]
        info = run.model.info[v]
        per = (info["in_shape"][0] // info["in_units"]) * o.kernel[0] * o.kernel[1] \
            if o.kind == "conv" else info["in_shape"][0] // info["in_units"] \
            if o.keep_positions else info["in_cell"]
        gs = group_units(run.model, v)
        if o.kind == "conv" and o.groups > 1:
            # rows ov of the weight, every column of their groups: an input
            # unit's column is its place in its group
            gw = w.grad.reshape(ov[1] - ov[0], gs[1], per)
            col = lambda ai: ai[0] % gs[1]  # noqa: E731
        else:
            gw = w.grad.reshape(ov[1] - ov[0], iv[1] - iv[0], per)
            col = lambda ai: ai[0] - iv[0]  # noqa: E731
        for hs, pieces in grouped(holder_groups(outs, ins, samples=smp, groups=gs)):
            if me in hs:
                _reduce(comm, hs, gw, pieces, ov, col, dup)
        if b is not None:
            gb = b.grad.reshape(-1, 1, 1)
            for hs, pieces in grouped(holder_groups(outs, ins, bias=True, samples=smp)):
                if me in hs:
                    _reduce(comm, hs, gb, pieces, ov, lambda ai: 0, dup)


def replica(dev, v):
    """True if dev takes the second half at a level where planned layer v
    is R (not split): its copy of v's gradient duplicates the first half's."""
    return any(types[v] == 3 and side == 1 for side, _, types in dev.levels)


def grouped(groups):
    order, by = [], {}
    for hs, piece in groups:
        if hs not in by:
            order.append(hs)
            by[hs] = []
        by[hs].append(piece)
    return [(hs, by[hs]) for hs in order]


def _reduce(comm, hs, g, pieces, ov, col, dup=False):
    """All-reduce pieces (ao, ai) of g [output units, columns, cell] over
    ranks hs: rows ao - ov's first, columns from col(ai)."""
    views = [g[ao[0] - ov[0]:ao[1] - ov[0], col(ai):col(ai) + ai[1] - ai[0]]
             for ao, ai in pieces]
    buf = torch.cat([x.reshape(-1) for x in views])
    if dup:  # a replica's copy: the sum takes the first half's
        buf.zero_()
    comm.all_reduce(buf, hs)
    at = 0
    for x in views:
        n = x.numel()
        x.copy_(buf[at:at + n].reshape(x.shape))
        at += n


def local_params(run, full, d):
    """Rank d's shards of the full parameters: W[out units, in units] (a
    unit is a channel of the input's producer: conv channels, FC feature
    blocks), the bias with input unit 0."""
    res = []
    for v, (w, b) in enumerate(full):
        if w is None:
            res.append((None, None))
            continue
        _, iv, ov = run.shards[d][v]
        info = run.model.info[v]
        per = w.shape[1] // info["in_units"] if w.dim() == 4 or \
            run.model.planned[v].keep_positions else info["in_cell"]
        if run.model.planned[v].groups > 1:  # its rows, every column of their groups
            wl = w[ov[0]:ov[1]].clone().requires_grad_(True)
        else:
            wl = w[ov[0]:ov[1], iv[0] * per:iv[1] * per].clone().requires_grad_(True)
        bl = None
        if b is not None and iv[0] <= 0 < iv[1]:
            bl = b[ov[0]:ov[1]].clone().requires_grad_(True)
        res.append((wl, bl))
    return res


def worker_run(run, rank, groups):
    """Sharded training on this rank at run.lr; returns its results."""
    m = run.model
    comm = Comm(run, rank, groups)
    params = local_params(run, init_params(m), rank)
    norms = local_norms(run, init_norms(m, SEED), rank)
    outputs, times, counts = [], [], []
    for step in range(run.steps):
        comm.sent = {k: 0 for k in KINDS}
        comm.received = {k: 0 for k in KINDS}
        comm.allreduce = {}
        x, target = make_data(m, run.batch, step)
        dist.barrier()
        t0 = time.perf_counter()
        t = {m.input.name: (x, ((0, run.batch), (0, m.input.out[0])))}
        def input_cells(src, v, bv, iv):
            """Op src's output as planned node v needs it, [samples, units, cell]."""
            xin, reg = t[src]
            cells = xin.reshape(xin.shape[0], reg[1][1] - reg[1][0], m.info[v]["in_cell"])
            u = m.owner[src]
            if u is None:  # the model input, whole on every rank: sliced, not moved
                return cells[bv[0]:bv[1], iv[0]:iv[1]]
            return Redistribute.apply(cells, comm, u, v)

        for o in m.ops[1:]:
            xin, reg = t[o.inputs[0]]
            if o.kind == "add":
                v = m.node_of[o.name]
                bv, iv, _ = run.shards[rank][v]
                nb, nu = bv[1] - bv[0], iv[1] - iv[0]
                ycells = input_cells(o.inputs[0], v, bv, iv)
                for x in o.inputs[1:]:
                    ycells = ycells + input_cells(x, v, bv, iv)
                shape = (nb, nu) + tuple(o.out[1:]) if xin.dim() == 4 else \
                    (nb, nu * m.info[v]["in_cell"])
                t[o.name] = (ycells.reshape(shape), (bv, iv))
            elif o.kind == "concat":
                t[o.name] = concat_on_rank(run, comm, o, t)
            elif o.kind == "matmul":
                t[o.name] = matmul_on_rank(run, comm, o, t)
            elif o.kind == "batchnorm":
                t[o.name] = (batchnorm_on_rank(run, comm, o, xin, reg,
                                               *norms.get(o.name, (None, None))), reg)
            elif o.kind == "layernorm" and o.name in norms:
                t[o.name] = (layer_norm_on_rank(run, comm, o, xin, norms), reg)
            elif o.kind in ("conv", "fc"):
                v = m.node_of[o.name]
                info = m.info[v]
                bv, iv, ov = run.shards[rank][v]
                nb, nu = bv[1] - bv[0], iv[1] - iv[0]
                xv = input_cells(o.inputs[0], v, bv, iv)
                shp = info["in_shape"]
                if o.kind == "conv" or o.keep_positions:
                    xv = xv.reshape(nb, nu * shp[0] // info["in_units"], shp[1], shp[2])
                else:
                    xv = xv.reshape(nb, nu * info["in_cell"])
                w, b = params[v]
                cpu = shp[0] // info["in_units"]  # channels per input unit
                if o.kind == "conv" and o.groups > 1 and xv.numel() and w.numel():
                    y = conv_on_rank(o, shp[0], xv, w, b, (iv[0] * cpu, iv[1] * cpu), ov)
                elif xv.numel() and w.numel():
                    y = planned_op(o, xv, w, b)
                else:
                    hw = o.out[1:] if o.kind == "conv" or o.keep_positions else ()
                    # (tied to the weights too: a rank holding no input
                    # unit must still run the backward exchanges of the
                    # layers that read this output)
                    y = torch.zeros((nb, ov[1] - ov[0]) + tuple(hw)) + 0.0 * xv.sum() \
                        + 0.0 * w.sum()
                    if b is not None:
                        y = y + b.reshape((1, -1) + (1,) * len(hw))
                ycells = y.reshape(nb, ov[1] - ov[0], elems(o.out[1:]))
                ycells = PartialSum.apply(ycells, comm, v)
                y = ycells.reshape(y.shape)
                t[o.name] = (y, (bv, ov))
            else:
                nb = reg[0][1] - reg[0][0]
                t[o.name] = (local_op(o, xin, nb), reg)
        y, (bo, uo) = t[m.output.name]
        if m.output.kind == "softmax":
            tgt = target
        else:
            tc = target.reshape(run.batch, m.units[m.output.name], -1)
            tgt = tc[bo[0]:bo[1], uo[0]:uo[1]].reshape(y.shape)
        loss = loss_of(m, y, tgt, run.batch, bo[0], uo[0])
        loss.backward()
        sync_grads(run, comm, params)
        sync_norms(run, comm, norms)
        sgd_step(params, norms, run.lr)
        times.append(time.perf_counter() - t0)
        outputs.append((y.detach().clone(), (bo, uo)))
        counts.append((comm.sent, comm.received, comm.allreduce))
    # Every step makes the same calls: the counts of one step are reported,
    # and a step that differs from the first is a failed check.
    return {"rank": rank, "outputs": outputs, "times": times,
            "params": detached(params),
            "norms": {k: detached([v])[0] for k, v in norms.items()},
            "sent": counts[0][0], "received": counts[0][1], "allreduce": counts[0][2],
            "steps_alike": all(c == counts[0] for c in counts)}
