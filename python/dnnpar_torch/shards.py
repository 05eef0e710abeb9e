"""Shards and the executed accounting's routing rules, in plain Python.

The same rules as src/sim/devcomm.c (docs/time-model.md "Executed
accounting"); the executor routes its messages with them and counts the
bytes at the torch.distributed calls, dnnpar computes them on its own: the
two must agree to the byte.
"""
import math

TYPE_I, TYPE_II, TYPE_III = 0, 1, 2


class InputError(Exception):
    """Bad input: the message names what and where (exit status 2)."""


def split_ivl(ivl, alpha, side):
    """The part of the index range ivl = (lo, hi) a group takes at a split
    with ratio alpha: the first group floor(alpha * len + 1/2) indices
    (clamped to 0 .. len), the second the rest."""
    lo, hi = ivl
    n = hi - lo
    f = math.floor(alpha * float(n) + 0.5)
    first = 0 if f <= 0 else n if f >= n else int(f)
    return (lo, lo + first) if side == 0 else (lo + first, hi)


class Device:
    """One leaf of the device tree: its bits and, per level, (side, ratio, types)."""

    def __init__(self, d, bits, levels):
        self.rank = d
        self.bits = bits
        self.levels = levels  # [(side, ratio, [type per planned node])]

    @property
    def depth(self):
        return len(self.levels)

    def side(self, k):
        return (self.bits >> k) & 1


def shard(dev, v, batch, in_units, out_units, join=False):
    """Device dev's (samples, input units, output units) ranges of planned
    node v: Type-I levels split the samples, II the input units, III the
    output units, R (3) nothing; a join's batch layout the samples, its
    channel layout its channels (input and output alike), replicated
    nothing."""
    iv = [(0, batch), (0, in_units), (0, out_units)]
    for k, (side, ratio, types) in enumerate(dev.levels):
        t = types[v]
        if join:
            if t == 0:
                iv[0] = split_ivl(iv[0], ratio, side)
            elif t == 1:
                iv[1] = iv[2] = split_ivl(iv[1], ratio, side)
            continue
        if t == 3:  # R: not split at this level, the device holds the whole layer
            continue
        iv[t] = split_ivl(iv[t], ratio, side)
    return iv[0], iv[1], iv[2]


def common_prefix(a, b, flip=-1):
    """Levels from the root on which a's and b's paths (b's bit `flip`
    flipped) take the same group."""
    bb = b.bits ^ (1 << flip) if flip >= 0 else b.bits
    k = 0
    while k < a.depth and k < b.depth and ((a.bits >> k) & 1) == ((bb >> k) & 1):
        k += 1
    return k


def inside(a, outer):
    return a[0] >= outer[0] and a[1] <= outer[1]


def cuts(ivls):
    return sorted(set(x for iv in ivls for x in iv))


def atoms(ivls_b, ivls_u):
    """Pieces (b range, u range) of the grid cut by every range given."""
    cb, cu = cuts(ivls_b), cuts(ivls_u)
    return [((cb[i], cb[i + 1]), (cu[j], cu[j + 1]))
            for i in range(len(cb) - 1) for j in range(len(cu) - 1)]


def route_layout(devs, have, need):
    """A layout change: for each device the pieces of its need rectangle it
    does not hold, each from the holder sharing the most levels of its path
    (lowest rank on a tie).  Returns [(src, dst, (b, u))] in a fixed order."""
    grid = atoms([r[0] for r in have + need], [r[1] for r in have + need])
    moves = []
    for d, dev in enumerate(devs):
        for ab, au in grid:
            if not (inside(ab, need[d][0]) and inside(au, need[d][1])):
                continue
            if inside(ab, have[d][0]) and inside(au, have[d][1]):
                continue
            best, score = -1, -1
            for h, hd in enumerate(devs):
                if h == d or not (inside(ab, have[h][0]) and inside(au, have[h][1])):
                    continue
                s = common_prefix(dev, hd)
                if s > score:
                    best, score = h, s
            if best < 0:
                raise RuntimeError("no device holds samples %s, units %s" % (ab, au))
            moves.append((best, d, (ab, au)))
    return moves


def route_partial_sums(devs, v, ptype, region):
    """Partial sums of node v in type ptype over each device's rectangle:
    per level from the deepest, [(level, [(src, dst, piece)])]."""
    grid = atoms([r[0] for r in region], [r[1] for r in region])
    out = []
    for k in range(max(d.depth for d in devs) - 1, -1, -1):
        below = (1 << k) - 1
        moves = []
        for d, dev in enumerate(devs):
            if dev.depth <= k or dev.levels[k][2][v] != ptype:
                continue
            for ab, au in grid:
                if not (inside(ab, region[d][0]) and inside(au, region[d][1])):
                    continue
                best, score = -1, -1
                for h, hd in enumerate(devs):
                    if (hd.depth <= k or (hd.bits ^ dev.bits) & below
                            or not (hd.bits ^ dev.bits) & (1 << k)
                            or not (inside(ab, region[h][0]) and inside(au, region[h][1]))):
                        continue
                    s = common_prefix(hd, dev, k)
                    if s > score:
                        best, score = h, s
                if best < 0:
                    raise RuntimeError("no partial sum of samples %s at level %d" % (ab, k))
                moves.append((best, d, (ab, au)))
        if moves:
            out.append((k, moves))
    return out


def holder_groups(out_ivls, in_ivls, bias=False, samples=None, groups=None):
    """Gradient all-reduce pieces of one parameter: [(holders, (o, i))] for
    every piece held by two or more devices (a bias: held with input unit 0).
    groups = (output units, input units) per group of a grouped conv: the
    pieces are cut at the groups' bounds and only an output unit's own
    group's input units are weights (grouped.py)."""
    co = cuts(out_ivls)
    ci = [0, 1] if bias else cuts(in_ivls)
    if groups is not None and not bias:
        go, gi = groups
        co = sorted(set(co) | set(range(0, co[-1], go)))
        ci = sorted(set(ci) | set(range(0, ci[-1], gi)))
    res = []
    for a in range(len(co) - 1):
        ao = (co[a], co[a + 1])
        for b in range(len(ci) - 1):
            ai = (ci[b], ci[b + 1])
            if groups is not None and not bias and ao[0] // groups[0] != ai[0] // groups[1]:
                continue  # weights between two groups: none
            hs = tuple(d for d in range(len(out_ivls))
                       if inside(ao, out_ivls[d]) and inside(ai, in_ivls[d]))
            # holders that all computed the same samples (R levels only)
            # hold the same gradient already: nothing to sum
            same = samples is not None and len({samples[d] for d in hs}) == 1
            if len(hs) >= 2 and not same:
                res.append((hs, (ao, ai)))
    return res


def ring_total(p2p_bytes, allreduce_by_p):
    """sent (= received) total of the accounting: point-to-point bytes, then
    2 (p-1) x bytes / p per group size p in increasing order (dnnpar.h,
    dnp_device_comm)."""
    t = float(p2p_bytes)
    for p in sorted(allreduce_by_p):
        t += (2 * (p - 1) * allreduce_by_p[p]) / p
    return t
