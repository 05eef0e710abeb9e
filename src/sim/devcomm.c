/*
 * devcomm.c - the executed accounting (lower.h: lower_device_comm, the
 * body of dnnpar.h's dnp_plan_device_comm;
 * docs/time-model.md "Executed accounting"): the bytes each device of a
 * plan sends and receives in one training step when every shard is made of
 * whole samples, channels and features.  python/dnnpar_torch executes the
 * same rules on torch.distributed and counts its calls; the two must agree
 * to the byte.
 *
 * A tensor a device holds is a rectangle: a range of samples times a range
 * of channel *units* (the channels of the tensor's producer; a flatten
 * keeps them as contiguous blocks of features).  Every rule below is stated
 * on such rectangles.
 */
#include "sim/lower.h"

#include "cost/accpar_cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVCOMM_MAX_DEPTH 32

const char *dnp_xfer_kind_name(dnp_xfer_kind k)
{
    static const char *const names[DNP_XFER_COUNT] = {"layout_fwd", "layout_bwd", "psum_fwd",
                                                      "psum_bwd"};
    return (int)k >= 0 && k < DNP_XFER_COUNT ? names[k] : "?";
}

typedef struct {
    int64_t lo, hi;
} ivl;

typedef struct {
    ivl b, u; /* samples x channel units */
} rect;

typedef struct {
    int depth;
    unsigned bits;
    const plan_group *path[DEVCOMM_MAX_DEPTH]; /* the group split at each level */
    const plan_group *leaf;
} devpath;

typedef struct {
    const plan_strategy *s;
    const lower_context *m;
    const dnp_graph *g;
    int n;               /* devices */
    devpath *dev;
    dnp_device_comm *out;
    int64_t bpe;         /* bytes per element */
    int64_t *cuts_b, *cuts_u; /* scratch, 4 n + 4 each */
} ctx;

static int count_leaves(const plan_strategy *s, int i, int depth, int limit)
{
    const plan_group *n = &s->group[i];
    if (n->child[0] < 0 || depth >= DEVCOMM_MAX_DEPTH)
        return 1;
    int a = count_leaves(s, n->child[0], depth + 1, limit);
    if (a > limit)
        return a;
    return a + count_leaves(s, n->child[1], depth + 1, limit);
}

/* Leaves in depth-first order, the first group first. */
static int walk_leaves(const plan_strategy *s, int i, int depth, unsigned bits,
                       const plan_group **path, devpath *dev, int *k)
{
    const plan_group *n = &s->group[i];
    if (n->child[0] < 0) {
        devpath *d = &dev[(*k)++];
        d->depth = depth;
        d->bits = bits;
        d->leaf = n;
        for (int j = 0; j < depth; j++)
            d->path[j] = path[j];
        return 0;
    }
    if (depth >= DEVCOMM_MAX_DEPTH)
        return -1;
    path[depth] = n;
    if (walk_leaves(s, n->child[0], depth + 1, bits, path, dev, k) != 0)
        return -1;
    return walk_leaves(s, n->child[1], depth + 1, bits | (1u << depth), path, dev, k);
}

/* The part of r a group takes at a split with ratio alpha: the first
 * group floor(alpha x len + 1/2) indices (clamped to 0 .. len), the second
 * the rest (docs/time-model.md "Executed accounting": whole indices). */
static ivl split_ivl(ivl r, double alpha, int side)
{
    int64_t len = r.hi - r.lo;
    double f = floor(alpha * (double)len + 0.5);
    int64_t first = f <= 0.0 ? 0 : f >= (double)len ? len : (int64_t)f;
    return side == 0 ? (ivl){r.lo, r.lo + first} : (ivl){r.lo + first, r.hi};
}

/* Device d's shares of planned node v: samples (Type-I levels, split b),
 * input units (Type-II, c) and output units (Type-III, n), AccPar section
 * 3.2; a join (`join`) in a batch layout splits its samples, in a channel
 * layout its channels (input and output alike, plan/strategy.h:
 * plan_split_shares), replicated nothing; an R level (PLAN_SPLIT_NONE)
 * splits nothing either. */
static void shard(const devpath *d, int v, int join, int64_t batch, int64_t in_units,
                  int64_t out_units, ivl *b, ivl *in, ivl *out)
{
    *b = (ivl){0, batch};
    *in = (ivl){0, in_units};
    *out = (ivl){0, out_units};
    for (int k = 0; k < d->depth; k++) {
        const plan_group *n = d->path[k];
        int side = (int)((d->bits >> k) & 1u), t = n->split[v];
        if (join) {
            if (t == PLAN_SPLIT_B) {
                *b = split_ivl(*b, n->alpha, side);
            } else if (t == PLAN_SPLIT_C) {
                *in = split_ivl(*in, n->alpha, side);
                *out = *in;
            }
            continue;
        }
        if (t == PLAN_SPLIT_NONE)
            continue; /* not split at this level: each half holds the whole layer */
        ivl *x = t == PLAN_SPLIT_B ? b : t == PLAN_SPLIT_C ? in : out;
        *x = split_ivl(*x, n->alpha, side);
    }
}

static int inside(ivl a, ivl outer) { return a.lo >= outer.lo && a.hi <= outer.hi; }

/* Levels from the root on which two devices' paths take the same group
 * (device b's bits with bit `flip` flipped; flip < 0: none). */
static int common_prefix(const devpath *a, const devpath *b, int flip)
{
    unsigned bb = flip >= 0 ? b->bits ^ (1u << flip) : b->bits;
    int k = 0;
    while (k < a->depth && k < b->depth && ((a->bits >> k) & 1u) == ((bb >> k) & 1u))
        k++;
    return k;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Sorted distinct cut points of the given intervals into cuts; returns how many. */
static int make_cuts(int64_t *cuts, const ivl *iv, int n_iv)
{
    int m = 0;
    for (int k = 0; k < n_iv; k++) {
        cuts[m++] = iv[k].lo;
        cuts[m++] = iv[k].hi;
    }
    qsort(cuts, (size_t)m, sizeof *cuts, cmp_i64);
    int w = 0;
    for (int k = 0; k < m; k++)
        if (w == 0 || cuts[w - 1] != cuts[k])
            cuts[w++] = cuts[k];
    return w;
}

/* Cut points of every `have` and `need` rectangle, samples and units. */
static void rect_cuts(ctx *C, const rect *have, const rect *need, int *nb, int *nu)
{
    int mb = 0, mu = 0;
    for (int d = 0; d < C->n; d++) {
        C->cuts_b[mb++] = have[d].b.lo;
        C->cuts_b[mb++] = have[d].b.hi;
        C->cuts_b[mb++] = need[d].b.lo;
        C->cuts_b[mb++] = need[d].b.hi;
        C->cuts_u[mu++] = have[d].u.lo;
        C->cuts_u[mu++] = have[d].u.hi;
        C->cuts_u[mu++] = need[d].u.lo;
        C->cuts_u[mu++] = need[d].u.hi;
    }
    qsort(C->cuts_b, (size_t)mb, sizeof *C->cuts_b, cmp_i64);
    qsort(C->cuts_u, (size_t)mu, sizeof *C->cuts_u, cmp_i64);
    int wb = 0, wu = 0;
    for (int k = 0; k < mb; k++)
        if (wb == 0 || C->cuts_b[wb - 1] != C->cuts_b[k])
            C->cuts_b[wb++] = C->cuts_b[k];
    for (int k = 0; k < mu; k++)
        if (wu == 0 || C->cuts_u[wu - 1] != C->cuts_u[k])
            C->cuts_u[wu++] = C->cuts_u[k];
    *nb = wb;
    *nu = wu;
}

/* A layout change: every device receives each piece of its `need`
 * rectangle it does not hold from one device that holds it: the holder
 * whose path shares the most levels with its own, the lowest-numbered on a
 * tie.  cell_bytes: bytes of one (sample, unit). */
static dnp_status redistribute(ctx *C, const rect *have, const rect *need, int64_t cell_bytes,
                               dnp_xfer_kind kind, const char *what, dnp_error *err)
{
    int nb, nu;
    rect_cuts(C, have, need, &nb, &nu);
    for (int d = 0; d < C->n; d++) {
        for (int i = 0; i + 1 < nb; i++) {
            ivl ab = {C->cuts_b[i], C->cuts_b[i + 1]};
            if (!inside(ab, need[d].b))
                continue;
            for (int j = 0; j + 1 < nu; j++) {
                ivl au = {C->cuts_u[j], C->cuts_u[j + 1]};
                if (!inside(au, need[d].u) || (inside(ab, have[d].b) && inside(au, have[d].u)))
                    continue;
                int best = -1, best_score = -1;
                for (int h = 0; h < C->n; h++) {
                    if (h == d || !inside(ab, have[h].b) || !inside(au, have[h].u))
                        continue;
                    int s = common_prefix(&C->dev[d], &C->dev[h], -1);
                    if (s > best_score) {
                        best_score = s;
                        best = h;
                    }
                }
                if (best < 0) {
                    dnp_error_set(err, DNP_ERR_INTERNAL,
                                  "%s: no device holds samples %lld..%lld, units %lld..%lld",
                                  what, (long long)ab.lo, (long long)ab.hi, (long long)au.lo,
                                  (long long)au.hi);
                    return DNP_ERR_INTERNAL;
                }
                int64_t bytes = (ab.hi - ab.lo) * (au.hi - au.lo) * cell_bytes;
                C->out[d].p2p_received_bytes[kind] += bytes;
                C->out[best].p2p_sent_bytes[kind] += bytes;
            }
        }
    }
    return DNP_OK;
}

/* Partial sums of node v split by `split` (PLAN_SPLIT_C of a weighted
 * node, Type-II: the output, forward; PLAN_SPLIT_N, Type-III, or a
 * channel-split matmul's PLAN_SPLIT_C: the input error, backward) over
 * region[] (each device's rectangle of the summed tensor): level by level
 * from the deepest, each device of a group whose split is that one
 * receives the other half's partial sums
 * of every piece of its rectangle, each piece from the other half's device
 * whose path, past the split, is most like its own (the lowest-numbered on
 * a tie). */
static dnp_status partial_sums(ctx *C, int v, int split, const rect *region, int64_t cell_bytes,
                               dnp_xfer_kind kind, dnp_error *err)
{
    int max_depth = 0;
    for (int d = 0; d < C->n; d++)
        max_depth = C->dev[d].depth > max_depth ? C->dev[d].depth : max_depth;
    for (int k = max_depth - 1; k >= 0; k--) {
        unsigned below = (1u << k) - 1u;
        int nb, nu;
        rect_cuts(C, region, region, &nb, &nu);
        for (int d = 0; d < C->n; d++) {
            const devpath *pd = &C->dev[d];
            if (pd->depth <= k || pd->path[k]->split[v] != split)
                continue;
            for (int i = 0; i + 1 < nb; i++) {
                ivl ab = {C->cuts_b[i], C->cuts_b[i + 1]};
                if (!inside(ab, region[d].b))
                    continue;
                for (int j = 0; j + 1 < nu; j++) {
                    ivl au = {C->cuts_u[j], C->cuts_u[j + 1]};
                    if (!inside(au, region[d].u))
                        continue;
                    int best = -1, best_score = -1;
                    for (int h = 0; h < C->n; h++) {
                        const devpath *ph = &C->dev[h];
                        if (ph->depth <= k || ((ph->bits ^ pd->bits) & below) != 0 ||
                            ((ph->bits ^ pd->bits) & (1u << k)) == 0 ||
                            !inside(ab, region[h].b) || !inside(au, region[h].u))
                            continue;
                        int s = common_prefix(ph, pd, k);
                        if (s > best_score) {
                            best_score = s;
                            best = h;
                        }
                    }
                    if (best < 0) {
                        dnp_error_set(err, DNP_ERR_INTERNAL,
                                      "op '%s': no partial sum of samples %lld..%lld at level %d",
                                      C->m->node_names[v], (long long)ab.lo, (long long)ab.hi, k);
                        return DNP_ERR_INTERNAL;
                    }
                    int64_t bytes = (ab.hi - ab.lo) * (au.hi - au.lo) * cell_bytes;
                    C->out[d].p2p_received_bytes[kind] += bytes;
                    C->out[best].p2p_sent_bytes[kind] += bytes;
                }
            }
        }
    }
    return DNP_OK;
}

/* Gradient all-reduce of one parameter tensor laid out as out units x in
 * units (cell_bytes per pair): every piece is all-reduced over exactly the
 * devices holding it.  Their sample ranges partition the batch (each level
 * either splits the samples between the halves or gives the piece to one
 * half), so the sum is the whole batch's gradient.  An R level (DNP_TYPE_R)
 * gives both halves the same samples: a piece whose holders all have the
 * same samples is not summed; otherwise the executor adds one copy per
 * sample range (the second half of an R level contributes zero) and the
 * all-reduce still spans every holder.  `samples`: each device's sample
 * range.  `bias`: a vector over
 * the output units held with input unit 0 (the weight of a constant input,
 * so a Type-II split adds it once).  `go`, `gi`: output and input units per
 * group of a grouped conv (the whole ranges for a dense layer): the weights
 * connect an output unit to the input units of its own group only
 * (Krizhevsky et al. 2012, section 3.2's two-GPU convs; PyTorch's conv2d
 * `groups`), so a piece holds the pairs of each group it spans. */
static int64_t overlap(ivl a, int64_t lo, int64_t hi)
{
    int64_t l = a.lo > lo ? a.lo : lo, h = a.hi < hi ? a.hi : hi;
    return h > l ? h - l : 0;
}

static int64_t group_pairs(ivl ao, ivl ai, int64_t go, int64_t gi)
{
    int64_t n = 0;
    for (int64_t g = ao.lo / go > ai.lo / gi ? ao.lo / go : ai.lo / gi;
         g * go < ao.hi && g * gi < ai.hi; g++)
        n += overlap(ao, g * go, (g + 1) * go) * overlap(ai, g * gi, (g + 1) * gi);
    return n;
}

static void grad_allreduce(ctx *C, const ivl *out_u, const ivl *in_u, const ivl *samples,
                           int64_t cell_bytes, int bias, int64_t go, int64_t gi)
{
    int no = make_cuts(C->cuts_b, out_u, C->n);
    int ni = bias ? 2 : make_cuts(C->cuts_u, in_u, C->n);
    if (bias) {
        C->cuts_u[0] = 0;
        C->cuts_u[1] = 1;
    }
    for (int i = 0; i + 1 < no; i++) {
        ivl ao = {C->cuts_b[i], C->cuts_b[i + 1]};
        for (int j = 0; j + 1 < ni; j++) {
            ivl ai = {C->cuts_u[j], C->cuts_u[j + 1]};
            int p = 0, same = 1, first = -1;
            for (int d = 0; d < C->n; d++)
                if (inside(ao, out_u[d]) && inside(ai, in_u[d])) {
                    p++;
                    if (first < 0)
                        first = d;
                    else if (samples[d].lo != samples[first].lo ||
                             samples[d].hi != samples[first].hi)
                        same = 0;
                }
            /* holders that all computed the same samples (split only by R
             * levels) hold the same gradient already: nothing to sum */
            if (p < 2 || same)
                continue;
            int64_t pairs = bias ? ao.hi - ao.lo : group_pairs(ao, ai, go, gi);
            if (pairs == 0)
                continue; /* no weight of any group: nothing held, nothing summed */
            int64_t bytes = pairs * cell_bytes;
            for (int d = 0; d < C->n; d++)
                if (inside(ao, out_u[d]) && inside(ai, in_u[d]))
                    C->out[d].allreduce_bytes[p] += bytes;
        }
    }
}

/* What the accounting needs of planned node v: its op, the channel units of
 * its input (the channels of the tensor's producer, or of the model input)
 * and the elements of one (sample, unit) of the tensor it reads.  A join
 * (an add of equal shapes) keeps its inputs' channels as its own. */
typedef struct {
    const dnp_op *op;
    int64_t in_units, out_units, in_cell, w_cell;
    int64_t group_out, group_in; /* output and input units per conv group */
    int producer; /* weighted ops: the planned node read, or -1 (the model input) */
    int join;
} node_info;

/* The origin of op i's input k: back over single-input ops that are not
 * weighted to a planned op or to an op without inputs. */
static const dnp_op *origin(const dnp_graph *g, const dnp_op *op, int k)
{
    const dnp_op *o = dnp_graph_op(g, op->inputs[k]);
    while (o->n_inputs == 1 && !dnp_op_is_weighted(o))
        o = dnp_graph_op(g, o->inputs[0]);
    return o;
}

/* The product of two activations (a matmul join; attention's scores and
 * context) that the executed accounting covers: two inputs, each whole
 * channels of its producer, out[j, i] = sum_k a[k, i] b'[k, j] over the
 * contracted length K = a's channels, at a's positions i (h x w), with b'
 * either b transposed (b's channels are K and its positions the output's
 * channels: Q K^T) or b itself (b's positions are K and its channels the
 * output's: scores V).  Returns 1 for A B^T, 2 for A B, 0 for any other
 * product (also when both forms fit: which one is meant is not known).
 * The same rule as python/dnnpar_torch/matmul.py (form). */
static int matmul_form(const dnp_graph *g, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    if (op->kind != DNP_OP_MATMUL || op->n_inputs != 2 || op->contract <= 0)
        return 0;
    const dnp_shape a = dnp_op_out_view(dnp_graph_op(g, op->inputs[0]));
    const dnp_shape b = dnp_op_out_view(dnp_graph_op(g, op->inputs[1]));
    for (int k = 0; k < 2; k++)
        if (dnp_op_out_view(origin(g, op, k)).c != (k ? b : a).c)
            return 0;
    if (a.c != op->contract || a.h * a.w != ov.h * ov.w)
        return 0;
    int abt = b.c == op->contract && b.h * b.w == ov.c;
    int ab = b.h * b.w == op->contract && b.c == ov.c;
    return abt && !ab ? 1 : ab && !abt ? 2 : 0;
}

static dnp_status node_info_get(const ctx *C, int v, node_info *ni, dnp_error *err)
{
    const layer_table *lt = C->m->lt;
    const dnp_op *op = dnp_graph_op(C->g, lt->row[v].op);
    const dnp_shape ov = dnp_op_out_view(op), iv = dnp_op_in_view(C->g, lt->row[v].op);
    const char *name = C->m->node_names[v];
    ni->op = op;
    ni->join = !lt->row[v].weighted;
    if (ni->join) {
        int64_t e = ov.c * ov.h * ov.w;
        int concat = op->kind == DNP_OP_CONCAT;
        /* a matmul join needs no check here: its inputs' units are their
         * own channels (edges_into) */
        int matmul = matmul_form(C->g, op) != 0;
        int ok = matmul || ((op->kind == DNP_OP_ADD || concat) && ov.c > 0);
        int64_t channels = 0;
        for (int k = 0; ok && !matmul && k < op->n_inputs; k++) {
            const dnp_shape in = dnp_op_out_view(dnp_graph_op(C->g, op->inputs[k]));
            if (concat) /* whole channels of one height and width, in order */
                ok = in.h == ov.h && in.w == ov.w &&
                     dnp_op_out_view(origin(C->g, op, k)).c == in.c;
            else
                ok = in.c * in.h * in.w == e && dnp_op_out_view(origin(C->g, op, k)).c == ov.c;
            channels += in.c;
        }
        if (ok && !matmul && concat)
            ok = channels == ov.c;
        if (!ok) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "op '%s': of the joins only an add of tensors of one shape and the "
                          "same channels, a concat of whole channels of one height and "
                          "width, and a matmul A B or A B^T over its first input's "
                          "channels (attention) are covered by the executed accounting",
                          name);
            return DNP_ERR_INPUT;
        }
        ni->in_units = ni->out_units = ov.c;
        ni->in_cell = e / ov.c;
        ni->w_cell = 0;
        ni->group_out = ni->group_in = 1;
        ni->producer = -1;
        return DNP_OK;
    }
    if ((op->kind != DNP_OP_CONV && op->kind != DNP_OP_FC) || op->n_inputs != 1) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "op '%s': only conv and FC layers "
                      "are covered by the executed accounting",
                      name);
        return DNP_ERR_INPUT;
    }
    ni->producer = lt->in_start[v] < lt->in_start[v + 1] ? lt->xchg[lt->in_start[v]].u : -1;
    const dnp_op *o = origin(C->g, op, 0);
    ni->in_units = dnp_op_out_view(o).c;
    ni->out_units = ov.c;
    int64_t in_elems = iv.c * iv.h * iv.w; /* one sample of the tensor read */
    int bad = ni->in_units <= 0 || in_elems % ni->in_units != 0;
    /* A per-position FC (keep_positions: the same weights at every position,
     * Megatron-LM's linear layers) is a 1x1 conv over the positions: its
     * units are whole blocks of features, each with every position. */
    int by_channel = op->kind == DNP_OP_CONV || op->keep_positions;
    if (!bad && by_channel)
        bad = iv.c % ni->in_units != 0;
    if (bad) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "op '%s': its input of %lld elements per sample is not made of the %lld "
                      "channels of '%s'",
                      name, (long long)in_elems, (long long)ni->in_units, o->name);
        return DNP_ERR_INPUT;
    }
    ni->in_cell = in_elems / ni->in_units;
    ni->group_out = ni->out_units;
    ni->group_in = ni->in_units;
    if (op->groups > 1) {
        /* a group's input channels must be whole units (a unit is in.c /
         * in_units channels of the tensor read) */
        int64_t g = op->groups, per_unit = iv.c / ni->in_units;
        if (op->kind != DNP_OP_CONV || iv.c % g != 0 || ov.c % g != 0 ||
            (iv.c / g) % per_unit != 0) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "op '%s': its %lld groups do not take whole channels of '%s' "
                          "(%lld input, %lld output channels)",
                          name, (long long)g, o->name, (long long)iv.c,
                          (long long)ov.c);
            return DNP_ERR_INPUT;
        }
        ni->group_out = ov.c / g;
        ni->group_in = iv.c / g / per_unit;
    }
    /* Weights per (output unit, input unit): a conv's kernel times the
     * input channels of a unit (a per-position FC: a 1x1 kernel); an FC's
     * features of a unit. */
    ni->w_cell = op->kind == DNP_OP_CONV ? (int64_t)op->kh * op->kw * (iv.c / ni->in_units)
                 : op->keep_positions    ? iv.c / ni->in_units
                                         : ni->in_cell;
    return DNP_OK;
}

/* The channels of a concat's input k (numbered from 0 in that input) that
 * its channel range u takes: the inputs' channels follow one another in
 * the output; an empty range where u takes none. */
static ivl concat_part(const dnp_graph *g, const dnp_op *op, int k, ivl u)
{
    int64_t lo = 0;
    for (int j = 0; j < k; j++)
        lo += dnp_op_out_view(dnp_graph_op(g, op->inputs[j])).c;
    int64_t hi = lo + dnp_op_out_view(dnp_graph_op(g, op->inputs[k])).c;
    int64_t a = u.lo > lo ? u.lo : lo, b = u.hi < hi ? u.hi : hi;
    return b > a ? (ivl){a - lo, b - lo} : (ivl){0, 0};
}

/* Layout changes into planned node v (forward: each producer's output as
 * it provides it -> v's input as v needs it) and, for a conv / FC, its
 * Type-III partial sums of the input error before the error goes back
 * (backward: v's layout -> the producer's).  ob: v's shards.
 *
 * A matmul join needs every channel of both inputs for its samples (the
 * contracted axis and the other operand's rows or columns span them all):
 * in a batch layout its samples, in a channel layout (which splits its
 * output channels only) its samples too, replicated everything.  A channel
 * level leaves each half with a partial input error (the products of its
 * output channels only; AccPar Table 4's A(E_l) of a Type-III layer, which
 * a channel-split matmul is without weights): summed per level like a
 * Type-III layer's, then sent back. */
static dnp_status edges_into(ctx *C, int v, const node_info *ni, const ivl *ob, rect *have,
                             rect *need, ivl *ub, dnp_error *err)
{
    const lower_context *p = C->m;
    const layer_table *lt = p->lt;
    const int N = C->n;
    const int matmul = ni->op->kind == DNP_OP_MATMUL;
    int64_t cell_bytes = ni->in_cell * C->bpe;
    for (int e = lt->in_start[v]; e < lt->in_start[v + 1]; e++) {
        int u = lt->xchg[e].u, k = lt->xchg_input[e]; /* the input of v's op it feeds */
        node_info nu;
        dnp_status st = node_info_get(C, u, &nu, err);
        if (st != DNP_OK)
            return st;
        const dnp_shape in = dnp_op_out_view(dnp_graph_op(C->g, ni->op->inputs[k]));
        if (matmul)
            cell_bytes = in.h * in.w * C->bpe;
        for (int d = 0; d < N; d++) {
            shard(&C->dev[d], u, nu.join, C->s->batch, nu.in_units, nu.out_units, &ub[3 * d],
                  &ub[3 * d + 1], &ub[3 * d + 2]);
            have[d] = (rect){ub[3 * d], ub[3 * d + 2]}; /* u's output as u provides it */
            need[d] = (rect){ob[3 * d], ob[3 * d + 1]}; /* v's input as v needs it */
            if (ni->op->kind == DNP_OP_CONCAT)
                need[d].u = concat_part(C->g, ni->op, k, need[d].u);
            if (matmul)
                need[d].u = (ivl){0, in.c};
        }
        if ((st = redistribute(C, have, need, cell_bytes, DNP_XFER_LAYOUT_FWD, p->node_names[v],
                               err)) != DNP_OK)
            return st;
        if ((!ni->join || matmul) &&
            (st = partial_sums(C, v, matmul ? PLAN_SPLIT_C : PLAN_SPLIT_N, need, cell_bytes,
                               DNP_XFER_PSUM_BWD, err)) != DNP_OK)
            return st;
        if ((st = redistribute(C, need, have, cell_bytes, DNP_XFER_LAYOUT_BWD, p->node_names[v],
                               err)) != DNP_OK)
            return st;
    }
    return DNP_OK;
}

/* The all-reduce of per-channel values of norm op `op` (owned by node u):
 * values_per_channel values of each channel, per channel unit of u's
 * output, over the devices holding that unit, each piece counted by every
 * holder; with skip_same_samples, units whose holders all hold the same
 * samples are skipped (each has the whole sum already).  ob and tmp are
 * scratch of 3 x devices and devices intervals.  DNP_ERR_INPUT when op's
 * channels are not made of u's units.  O(devices^2). */
static dnp_status unit_allreduce(ctx *C, const dnp_op *op, int u, int64_t values_per_channel,
                                 int skip_same_samples, ivl *ob, ivl *tmp, dnp_error *err)
{
    const dnp_shape ov = dnp_op_out_view(op);
    node_info nu;
    dnp_status st = node_info_get(C, u, &nu, err);
    if (st != DNP_OK)
        return st;
    if (nu.out_units <= 0 || ov.c % nu.out_units != 0) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "op '%s' (%s): its %lld channels are not made of the %lld channel units "
                      "of '%s'",
                      op->name, dnp_op_kind_name(op->kind), (long long)ov.c,
                      (long long)nu.out_units, C->m->node_names[u]);
        return DNP_ERR_INPUT;
    }
    int64_t unit_bytes = values_per_channel * (ov.c / nu.out_units) * C->bpe;
    for (int d = 0; d < C->n; d++) {
        shard(&C->dev[d], u, nu.join, C->s->batch, nu.in_units, nu.out_units, &ob[3 * d],
              &ob[3 * d + 1], &ob[3 * d + 2]);
        tmp[d] = ob[3 * d + 2];
    }
    int nc = make_cuts(C->cuts_u, tmp, C->n);
    for (int j = 0; j + 1 < nc; j++) {
        ivl au = {C->cuts_u[j], C->cuts_u[j + 1]};
        int holders = 0, same = 1, first = -1;
        for (int d = 0; d < C->n; d++)
            if (inside(au, tmp[d])) {
                holders++;
                if (first < 0)
                    first = d;
                else if (ob[3 * d].lo != ob[3 * first].lo || ob[3 * d].hi != ob[3 * first].hi)
                    same = 0;
            }
        if (holders < 2 || (skip_same_samples && same))
            continue;
        for (int d = 0; d < C->n; d++)
            if (inside(au, tmp[d]))
                C->out[d].allreduce_bytes[holders] += (au.hi - au.lo) * unit_bytes;
    }
    return DNP_OK;
}

/* Batch normalization's statistics (training mode, over the whole batch;
 * Ioffe and Szegedy 2015, Algorithm 1): a batchnorm reads its owner node
 * u's output in u's layout, so the devices holding a channel unit hold a
 * share of its samples each (some pieces twice, where u's output is
 * replicated).  Per channel unit, forward, the sum and the sum of squares
 * over every sample, and backward the sums of the output error and of the
 * error times the normalized input (Algorithm 1's backward), are
 * all-reduced over the devices holding that unit, each piece counted by one
 * holder: 2 + 2 values per statistic channel, in groups of the same
 * holders.  stats_per_unit: batchnorm channels per unit of u (a flatten
 * between them makes a unit several features).  Not modelled by the step
 * simulator. */
static dnp_status bn_stats(ctx *C, const int *owner, ivl *ob, ivl *tmp, dnp_error *err)
{
    for (int i = 0; i < dnp_graph_n_ops(C->g); i++) {
        const dnp_op *op = dnp_graph_op(C->g, i);
        int u = owner[i];
        if (op->kind != DNP_OP_BATCHNORM || u < 0)
            continue; /* the model input's chain is whole on every device */
        dnp_status st = unit_allreduce(C, op, u, 4, 0, ob, tmp, err);
        if (st != DNP_OK)
            return st;
    }
    return DNP_OK;
}

/* The scale and shift of a norm (`param_elems`: one or two values per
 * channel).  Batch norm's need no exchange of their own: their gradients
 * are the sums of the output error and of the error times the normalized
 * input over the whole batch (Ioffe and Szegedy 2015, Algorithm 1's
 * backward: dbeta = sum dy, dgamma = sum dy xhat), which bn_stats already
 * all-reduces per channel.  A layer norm's (Ba et al. 2016, eq. 4: per
 * position over the features, gain and bias per feature) are summed over
 * samples and positions like a weight: per channel unit of its owner u's
 * output, all-reduced over the devices holding the unit, unless they all
 * hold the same samples (each has the whole gradient; grad_allreduce's
 * rule), each piece counted by its lowest-numbered holder.  On the model
 * input's chain the norm is whole on every device but its error is not
 * (each consumer reads its own samples): refused. */
static dnp_status norm_params(ctx *C, const int *owner, ivl *ob, ivl *tmp, dnp_error *err)
{
    for (int i = 0; i < dnp_graph_n_ops(C->g); i++) {
        const dnp_op *op = dnp_graph_op(C->g, i);
        int u = owner[i];
        if ((op->kind != DNP_OP_BATCHNORM && op->kind != DNP_OP_LAYERNORM) ||
            op->param_elems == 0)
            continue;
        if (u < 0) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "op '%s': a norm with parameters on the model input's chain (before "
                          "any conv or FC) is not covered by the executed accounting",
                          op->name);
            return DNP_ERR_INPUT;
        }
        const int64_t channels = dnp_op_out_view(op).c;
        if (op->param_elems != channels && op->param_elems != 2 * channels) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "op '%s': %lld parameters are not one or two per channel (scale, "
                          "shift) of its %lld channels",
                          op->name, (long long)op->param_elems, (long long)channels);
            return DNP_ERR_INPUT;
        }
        if (op->kind == DNP_OP_BATCHNORM)
            continue; /* bn_stats' backward sums are the gradients */
        dnp_status st = unit_allreduce(C, op, u, op->param_elems / channels, 1, ob, tmp, err);
        if (st != DNP_OK)
            return st;
    }
    return DNP_OK;
}

static dnp_status account(ctx *C, dnp_error *err)
{
    const lower_context *p = C->m;
    const int V = p->lt->n_rows, N = C->n;
    const int64_t B = C->s->batch;
    rect *have = dnp_calloc((size_t)N, sizeof *have);
    rect *need = dnp_calloc((size_t)N, sizeof *need);
    ivl *ob = dnp_calloc((size_t)N * 3, sizeof *ob);      /* per device: samples, in, out of v */
    ivl *ub = dnp_calloc((size_t)N * 3, sizeof *ub);      /* the same for v's producer */
    ivl *tmp = dnp_calloc((size_t)N * 3, sizeof *tmp);
    int n_ops = dnp_graph_n_ops(C->g);
    int *owner = dnp_calloc((size_t)(n_ops > 0 ? n_ops : 1), sizeof *owner);
    dnp_status st = DNP_ERR_NOMEM;
    if (!have || !need || !ob || !ub || !tmp || !owner) {
        dnp_error_set(err, st, "out of memory accounting the plan's communication");
        goto done;
    }
    for (int v = 0; v < V; v++) {
        node_info ni;
        if ((st = node_info_get(C, v, &ni, err)) != DNP_OK)
            goto done;
        for (int d = 0; d < N; d++)
            shard(&C->dev[d], v, ni.join, B, ni.in_units, ni.out_units, &ob[3 * d],
                  &ob[3 * d + 1], &ob[3 * d + 2]);
        if (!ni.join) {
            /* Type-II: the output's partial sums (forward). */
            for (int d = 0; d < N; d++)
                have[d] = (rect){ob[3 * d], ob[3 * d + 2]};
            const dnp_shape ov = dnp_op_out_view(ni.op);
            if ((st = partial_sums(C, v, PLAN_SPLIT_C, have, ov.h * ov.w * C->bpe,
                                   DNP_XFER_PSUM_FWD, err)) != DNP_OK)
                goto done;
            /* Gradients: weights (out x in) and the bias (out, with input unit 0). */
            for (int d = 0; d < N; d++) {
                tmp[d] = ob[3 * d + 2];
                tmp[N + d] = ob[3 * d + 1];
                tmp[2 * N + d] = ob[3 * d];
            }
            grad_allreduce(C, tmp, tmp + N, tmp + 2 * N, ni.w_cell * C->bpe, 0, ni.group_out,
                           ni.group_in);
            if (ni.op->bias)
                grad_allreduce(C, tmp, tmp + N, tmp + 2 * N, C->bpe, 1, ni.group_out,
                               ni.group_in);
        }
        /* The model input is sliced where it is read: no edge, no gradient. */
        if ((st = edges_into(C, v, &ni, ob, have, need, ub, err)) != DNP_OK)
            goto done;
    }
    for (int i = 0; i < n_ops; i++)
        owner[i] = layer_table_owner(p->lt, C->g, i);
    if ((st = bn_stats(C, owner, ob, tmp, err)) != DNP_OK ||
        (st = norm_params(C, owner, ob, tmp, err)) != DNP_OK)
        goto done;
    /* Totals (dnnpar.h): point-to-point, then each group size's ring
     * all-reduce, 2 (p-1)/p of the buffer sent and received per member
     * (docs/collectives.md). */
    for (int d = 0; d < N; d++) {
        dnp_device_comm *o = &C->out[d];
        int64_t s = 0, r = 0;
        for (int k = 0; k < DNP_XFER_COUNT; k++) {
            s += o->p2p_sent_bytes[k];
            r += o->p2p_received_bytes[k];
        }
        o->sent_bytes = (double)s;
        o->received_bytes = (double)r;
        for (int q = 2; q <= DNP_DEVCOMM_MAX_DEVICES; q++) {
            double ar = (double)(2 * (int64_t)(q - 1) * o->allreduce_bytes[q]) / (double)q;
            o->sent_bytes += ar;
            o->received_bytes += ar;
        }
    }
    st = DNP_OK;
done:
    dnp_free(have);
    dnp_free(need);
    dnp_free(ob);
    dnp_free(ub);
    dnp_free(tmp);
    dnp_free(owner);
    return st;
}

dnp_status lower_device_comm(const plan_strategy *s, const lower_context *p,
                             const lower_result *sim, const dnp_graph *g, int bytes_per_elem,
                             dnp_device_comm **out, int *n_devices, dnp_error *err)
{
    *out = NULL;
    *n_devices = 0;
    if (s == NULL || p == NULL || g == NULL || s->n_groups < 1 || bytes_per_elem <= 0 ||
        s->n_ops != p->lt->n_rows) {
        dnp_error_set(err, DNP_ERR_INPUT, "device communication: no plan, graph or element size");
        return DNP_ERR_INPUT;
    }
    const plan_group *root = &s->group[0];
    if (root->n_dev > DNP_DEVCOMM_MAX_DEVICES ||
        count_leaves(s, 0, 0, DNP_DEVCOMM_MAX_DEVICES) > DNP_DEVCOMM_MAX_DEVICES) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "the executed accounting covers at most %d devices; the plan has %lld",
                      DNP_DEVCOMM_MAX_DEVICES, (long long)root->n_dev);
        return DNP_ERR_INPUT;
    }
    for (int v = 0; v < p->lt->n_rows; v++)
        if (p->lt->row[v].op >= dnp_graph_n_ops(g) ||
            strcmp(dnp_graph_op(g, p->lt->row[v].op)->name, p->node_names[v]) != 0) {
            dnp_error_set(err, DNP_ERR_INPUT, "the graph is not the one the plan was made for "
                                              "(op '%s')",
                          p->node_names[v]);
            return DNP_ERR_INPUT;
        }
    int n = count_leaves(s, 0, 0, DNP_DEVCOMM_MAX_DEVICES);
    ctx C = {.s = s, .m = p, .g = g, .n = n, .bpe = bytes_per_elem};
    const plan_group *path[DEVCOMM_MAX_DEPTH];
    C.dev = dnp_calloc((size_t)n, sizeof *C.dev);
    C.out = dnp_calloc((size_t)n, sizeof *C.out);
    C.cuts_b = dnp_calloc((size_t)(4 * n + 4), sizeof *C.cuts_b);
    C.cuts_u = dnp_calloc((size_t)(4 * n + 4), sizeof *C.cuts_u);
    dnp_status st = DNP_ERR_NOMEM;
    if (!C.dev || !C.out || !C.cuts_b || !C.cuts_u) {
        dnp_error_set(err, st, "out of memory accounting the plan's communication");
        goto fail;
    }
    int k = 0;
    if (walk_leaves(s, 0, 0, 0u, path, C.dev, &k) != 0 || k != n) {
        st = DNP_ERR_INPUT;
        dnp_error_set(err, st, "the device tree is deeper than %d levels", DEVCOMM_MAX_DEPTH);
        goto fail;
    }
    for (int d = 0; d < n; d++) {
        /* The simulator's class of device d: the same groups down to the
         * same leaf (identical halves are one group; the class's path holds
         * group indices). */
        C.out[d].sim_received_bytes = NAN;
        for (int c = 0; sim != NULL && c < sim->n_classes; c++) {
            const lower_class *lc = &sim->classes[c];
            int same = lc->depth == C.dev[d].depth &&
                       lc->path[lc->depth] == (int)(C.dev[d].leaf - s->group);
            for (int j = 0; same && j < lc->depth; j++)
                same = lc->path[j] == (int)(C.dev[d].path[j] - s->group);
            if (same) {
                C.out[d].sim_received_bytes = lc->recv_bytes;
                break;
            }
        }
        C.out[d].device = d;
        C.out[d].depth = C.dev[d].depth;
        C.out[d].branch_bits = C.dev[d].bits;
    }
    if ((st = account(&C, err)) != DNP_OK)
        goto fail;
    dnp_free(C.dev);
    dnp_free(C.cuts_b);
    dnp_free(C.cuts_u);
    *out = C.out;
    *n_devices = n;
    return DNP_OK;
fail:
    dnp_free(C.dev);
    dnp_free(C.out);
    dnp_free(C.cuts_b);
    dnp_free(C.cuts_u);
    return st;
}
