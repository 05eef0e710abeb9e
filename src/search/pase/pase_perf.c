/*
 * pase_perf.c - PaSE's t_l and t_x in seconds on the shared performance
 * model (docs/pase.md "Shared model"; issue 10 item 3).
 *
 * The iteration space and the configurations are the README's; each term
 * is priced by the model the step simulator uses:
 *   - computation and memory: the step simulator's device model on the
 *     core ops a vertex carries (its own and the point-wise ops fused into
 *     it: perf_op_time_shares, perf_op_mem_shares) at the shares the
 *     configuration leaves one device, plus the optimizer update's traffic
 *     over the parameters held (docs/device-model.md);
 *   - the communication inside an op, the README's structure ("Layer
 *     costs"): each AR(w, q) term an all-reduce of w elements over the q
 *     devices of the split dimensions, dnp_coll_estimate on the tiers the
 *     group spans (docs/collectives.md);
 *   - t_x: the README's need (words a device lacks), forward and backward,
 *     one message each on the tier the two layouts span.
 * Device placement: devices are numbered in the configuration's dimension
 * order, the first dimension slowest (docs/pase.md), so a node holds the
 * trailing dimensions' splits first; the machine's ranks are that order,
 * and the links any group of them spans are src/topo's (topology.h).
 */
#include "search/pase/pase_perf.h"
#include "topo/topology.h"

#include <math.h>
#include <string.h>

#define BIT(d) (1u << (unsigned)(d))

/* One message of `bytes` between two devices of one node (intra = 1) or
 * of two nodes, as the collective model prices a p2p (docs/collectives.md
 * "Point-to-point"), read off as its line t = latency + bytes / bandwidth. */
static void p2p_line(const dnp_comm_group *tiers, int intra, double *lat_s, double *bw_bps)
{
    dnp_comm_group g = *tiers;
    g.n_nodes = intra ? 1 : 2;
    g.per_node = intra ? 2 : 1;
    dnp_coll_cost c1, c2;
    const double s1 = 1e6, s2 = 2e6; /* bytes: two points of the line */
    dnp_coll_estimate(DNP_COLL_P2P, &g, s1, &c1);
    dnp_coll_estimate(DNP_COLL_P2P, &g, s2, &c2);
    if (!isfinite(c1.time_s) || !isfinite(c2.time_s) || !(c2.time_s > c1.time_s)) {
        *lat_s = 0.0;
        *bw_bps = 0.0; /* unavailable tier */
        return;
    }
    *bw_bps = (s2 - s1) / (c2.time_s - c1.time_s);
    *lat_s = c1.time_s - s1 / *bw_bps;
    if (*lat_s < 0.0)
        *lat_s = 0.0;
}

dnp_status pase_perf_init(const dnp_device_type *d, int p, dnp_precision prec, dnp_optimizer o,
                          double mem_limit_bytes, int no_stragglers, pase_perf *out,
                          dnp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(d->peak_flops > 0.0) || !isfinite(d->peak_flops)) {
        dnp_error_set(err, DNP_ERR_INPUT, "device '%s' needs a positive peak FLOP/s", d->name);
        return DNP_ERR_INPUT;
    }
    out->dev = *d;
    perf_rates_get(d, prec, &out->r);
    /* docs/device-model.md "Stragglers": a synchronous step over p devices
     * waits for the slowest. */
    out->r.pace = no_stragglers ? 1.0 : perf_straggler_pace(d->speed_cv, p > 1 ? p : 1);
    out->bytes_per_param = perf_bytes_per_param(o, &out->r);
    out->opt_bytes_per_param = perf_optimizer_bytes_per_param(o, &out->r);
    out->mem_limit_bytes = mem_limit_bytes > 0.0 ? mem_limit_bytes : d->mem_bytes;
    pase_perf_set_machine(out, d, p);
    return DNP_OK;
}

void pase_perf_set_machine(pase_perf *m, const dnp_device_type *d, int p)
{
    memset(&m->machine, 0, sizeof m->machine);
    m->machine.n_types = 1;
    m->machine.types[0] = *d;
    m->machine.counts[0] = p > 1 ? p : 1;
    topo_group_counts(&m->machine, m->machine.counts, &m->tiers);
    dnp_comm_group pair;
    topo_p2p(&m->machine, 0, 1, &pair);
    m->intra_lat_s = m->intra_bw_bps = 0.0;
    if (pair.n_nodes == 1 && pair.per_node == 2)
        p2p_line(&m->tiers, 1, &m->intra_lat_s, &m->intra_bw_bps);
    p2p_line(&m->tiers, 0, &m->inter_lat_s, &m->inter_bw_bps);
}

/* ---- collectives --------------------------------------------------------- */

/* The group of devices that differ only in the dimensions of `mask`, under
 * the placement "first dimension slowest": dimension d's devices sit
 * stride_d = prod_{e > d} c_e apart, so the group holding device 0 is the
 * lattice of those strides, whose links src/topo gives (topo_group_grid:
 * the fewest members any of its nodes holds bound the NICs).  *q_out: its
 * members, the product of the masked splits. */
static void group_of(const pase_perf *m, int rank, const int32_t *c, unsigned mask,
                     dnp_comm_group *g, double *q_out)
{
    int64_t stride_of[ITER_MAX_RANK] = {0}, count[ITER_MAX_RANK] = {0},
            stride[ITER_MAX_RANK] = {0}, s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        stride_of[d] = s;
        s *= c[d];
    }
    double q = 1.0;
    int n = 0;
    for (int d = 0; d < rank; d++) /* the slowest dimension first */
        if (mask & BIT(d)) {
            q *= c[d];
            count[n] = c[d];
            stride[n++] = stride_of[d];
        }
    topo_group_grid(&m->machine, 0, n, count, stride, g);
    *q_out = q;
}

/* README "Layer costs"' AR(w, q): an all-reduce of `elems` elements of
 * `elem_bytes` over the devices of the split dimensions in mask. */
static double allreduce_s(const pase_perf *m, int rank, const int32_t *c, unsigned mask,
                          double elems, double elem_bytes)
{
    dnp_comm_group g;
    double q;
    group_of(m, rank, c, mask, &g, &q);
    if (q <= 1.0 || elems <= 0.0)
        return 0.0;
    dnp_coll_cost cc;
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &g, elems * elem_bytes, &cc);
    return cc.time_s;
}

/* One message of `bytes` on the tier that `devices` consecutive devices
 * span: the link from the first to the last of them (at least two, at
 * most the machine's; topo_p2p), intra when they share a node. */
static double message_s(const pase_perf *m, double devices, double bytes)
{
    if (bytes <= 0.0)
        return 0.0;
    int64_t last = devices >= 2.0 ? (int64_t)devices - 1 : 1;
    if (last > m->machine.counts[0] - 1)
        last = m->machine.counts[0] - 1;
    dnp_comm_group pair;
    topo_p2p(&m->machine, 0, last, &pair);
    int intra = pair.n_nodes == 1 && pair.per_node == 2;
    double lat = intra ? m->intra_lat_s : m->inter_lat_s;
    double bw = intra ? m->intra_bw_bps : m->inter_bw_bps;
    return bw > 0.0 ? lat + bytes / bw : INFINITY;
}

/* ---- communication inside an op --------------------------------------------- */

typedef struct {
    double nb, m, n, k;             /* per-device GEMM: batch count and sizes */
    unsigned mask_m, mask_n, mask_k; /* the dimensions of each role */
} gemm_shape;

/* README "Layer costs", GEMM roles: m = M / c_M etc. (as pase_cost.c). */
static void gemm_of(const iter_nest *v, const int32_t *c, gemm_shape *s)
{
    double M = 1, N = 1, K = 1, cm = 1, cn = 1, ck = 1;
    memset(s, 0, sizeof *s);
    s->nb = 1.0;
    for (int d = 0; d < v->rank; d++) {
        unsigned b = BIT(d);
        if (v->gemm_b & b)
            s->nb *= (double)v->dom[d] / c[d];
        else if (v->gemm_m & b)
            M *= (double)v->dom[d], cm *= c[d], s->mask_m |= b;
        else if (v->gemm_n & b)
            N *= (double)v->dom[d], cn *= c[d], s->mask_n |= b;
        else if (v->gemm_k & b)
            K *= (double)v->dom[d], ck *= c[d], s->mask_k |= b;
    }
    s->m = M / cm;
    s->n = N / cn;
    s->k = K / ck;
}

/* README's GEMM: AR(mn, c_K) + AR(mk, c_N) + AR(nk, c_M), each times nb:
 * the forward output's partial sums over the K splits, the input
 * gradient's over the N splits, the weight gradient's over the M splits
 * (gradient bytes). */
static double gemm_comm_s(const pase_perf *m, const iter_nest *v, const int32_t *c,
                          const gemm_shape *s)
{
    double A = m->r.act_bytes, G = m->r.grad_bytes;
    return allreduce_s(m, v->rank, c, s->mask_k, s->nb * s->m * s->n, A) +
           allreduce_s(m, v->rank, c, s->mask_n, s->nb * s->m * s->k, A) +
           allreduce_s(m, v->rank, c, s->mask_m, s->nb * s->n * s->k, G);
}

/* README's LSTM: the GEMM on (L, S B, 4N, 2K)'s all-reduces, plus per
 * layer and time step the exchange of the hidden state from a (B/c_B,
 * N/c_N) block to a (B/c_B, K/c_K) one. */
static double lstm_comm_s(const pase_perf *m, const iter_nest *v, const int32_t *c)
{
    double L = (double)v->dom[0], S = (double)v->dom[1], B = (double)v->dom[2];
    double N = (double)v->dom[3], K = (double)v->dom[4];
    gemm_shape s = {L / c[0], S * B / ((double)c[1] * c[2]), 4.0 * N / c[3], 2.0 * K / c[4],
                    BIT(1) | BIT(2), BIT(3), BIT(4)};
    double t = gemm_comm_s(m, v, c, &s);
    double a_out[2] = {B / c[2], N / c[3]}, a_in[2] = {B / c[2], K / c[4]};
    double p_out = (double)c[2] * c[3], p_in = (double)c[2] * c[4];
    double words = pase_need_words(2, a_out, a_in, p_out, p_in);
    t += (L * S) * message_s(m, p_out > p_in ? p_out : p_in, words * m->r.act_bytes);
    return t;
}

static double volume(const iter_nest *v, const int32_t *c)
{
    double e = 1.0;
    for (int d = 0; d < v->rank; d++)
        e *= (double)v->dom[d] / c[d];
    return e;
}

/* Devices of the configuration (product of its splits). */
static double devices_of(const iter_nest *v, const int32_t *c)
{
    double q = 1.0;
    for (int d = 0; d < v->rank; d++)
        q *= c[d];
    return q;
}

/* README pooling: the ghost (halo) region when h or w is split, received
 * in the forward pass and its gradient returned in the backward. */
static double pool_comm_s(const pase_perf *m, const iter_nest *v, const int32_t *c)
{
    double bc = ((double)v->dom[0] / c[0]) * ((double)v->dom[1] / c[1]);
    double h = (double)v->in_h / c[2], w = (double)v->in_w / c[3];
    double hg = h + (c[2] > 1 ? v->win_r : 0), wg = w + (c[3] > 1 ? v->win_s : 0);
    double ghost = (hg * wg - h * w) * bc;
    return 2.0 * message_s(m, devices_of(v, c), ghost * m->r.act_bytes);
}

/* README norm over axis a: 4 AR(E / (d_a/c_a), c_a) and 4 AR(d_a/c_a,
 * prod_{i != a} c_i).
 *
 * A batch norm (the axis is the batch, on a (b, c, ...) domain) is not the
 * README's norm over axis 0 alone: its statistics are per channel, over
 * the batch and every other axis (Ioffe and Szegedy 2015, Algorithm 1),
 * and its scale and shift are per channel.  Its exchanges (docs/pase.md
 * "Batch norm"):
 *   - a batch split: none for the statistics: each device normalises with
 *     its own samples' statistics, as data-parallel training does by
 *     default (PyTorch DDP's BatchNorm; SyncBatchNorm is opt-in) and as the
 *     step simulator counts (docs/time-model.md, "Batch-norm statistics");
 *   - a split of the other normalised axes (h, w): 2 AR of 2 values per
 *     local channel over those splits (forward sum and sum of squares,
 *     backward sum dy and sum dy xhat), which the statistics need;
 *   - the parameter gradients (2 per local channel) all-reduced over the
 *     devices holding the same channels, as a weight's. */
static double norm_comm_s(const pase_perf *m, const iter_nest *v, const int32_t *c)
{
    double A = m->r.act_bytes, E = volume(v, c);
    int a = v->axis;
    double per_a = (double)v->dom[a] / c[a];
    if (a == v->batch_dim && a == 0 && v->rank >= 2) {
        double per_c = (double)v->dom[1] / c[1];
        unsigned spatial = 0;
        for (int d = 2; d < v->rank; d++)
            spatial |= BIT(d);
        return 2.0 * allreduce_s(m, v->rank, c, spatial, 2.0 * per_c, A) +
               allreduce_s(m, v->rank, c, spatial | BIT(0), 2.0 * per_c, m->r.grad_bytes);
    }
    unsigned others = 0;
    for (int d = 0; d < v->rank; d++)
        if (d != a)
            others |= BIT(d);
    return 4.0 * allreduce_s(m, v->rank, c, BIT(a), E / per_a, A) +
           4.0 * allreduce_s(m, v->rank, c, others, per_a, A);
}

/* README softmax over axis a: three all-reduces over c_a of rows, rows d_a
 * and rows elements. */
static double softmax_comm_s(const pase_perf *m, const iter_nest *v, const int32_t *c)
{
    double A = m->r.act_bytes, E = volume(v, c);
    int a = v->axis;
    double rows = E / ((double)v->dom[a] / c[a]);
    return 2.0 * allreduce_s(m, v->rank, c, BIT(a), rows, A) +
           allreduce_s(m, v->rank, c, BIT(a), rows * (double)v->dom[a], A);
}

/* README softmax cross-entropy: with the classes split, 2 beta words
 * exchanged: two all-reduces of beta elements over c_last. */
static double sce_comm_s(const pase_perf *m, const iter_nest *v, const int32_t *c)
{
    double E = volume(v, c);
    int last = v->rank - 1;
    double beta = E / ((double)v->dom[last] / c[last]);
    return 2.0 * allreduce_s(m, v->rank, c, BIT(last), beta, m->r.act_bytes);
}

/* The communication inside vertex v's op under configuration c: the
 * README's all-reduces and halo messages that its splits imply. */
static double comm_s(const pase_perf *m, const iter_nest *v, const int32_t *c)
{
    gemm_shape s;
    switch (v->kind) {
    case ITER_CONV:
    case ITER_GROUP_CONV:
    case ITER_FC:
    case ITER_EINSUM:
        gemm_of(v, c, &s);
        return gemm_comm_s(m, v, c, &s);
    case ITER_LSTM:
        return lstm_comm_s(m, v, c);
    case ITER_POOL:
        return pool_comm_s(m, v, c);
    case ITER_NORM:
        return norm_comm_s(m, v, c);
    case ITER_REDUCE_MEAN: { /* README AR(E, prod of the reduced splits) */
        unsigned axes = 0;
        for (int d = 0; d < v->rank; d++)
            if (v->axes & BIT(d))
                axes |= BIT(d);
        return allreduce_s(m, v->rank, c, axes, volume(v, c), m->r.act_bytes);
    }
    case ITER_SOFTMAX:
        return softmax_comm_s(m, v, c);
    case ITER_SCE:
        return sce_comm_s(m, v, c);
    case ITER_ELEMWISE:
    case ITER_CONCAT:
    case ITER_STACK:
    case ITER_UNSTACK:
    case ITER_RAVEL:
    case ITER_UNRAVEL:
    case ITER_SLICE:
    case ITER_KIND_COUNT:
        break; /* nothing moves inside the op; views move their data on the edges (t_x) */
    }
    return 0.0;
}

/* ---- computation: the step simulator's device model -------------------- */

/* 1 / the product of c's splits over the dims in mask. */
static double share_of(const iter_nest *v, const int32_t *c, unsigned mask)
{
    double q = 1.0;
    for (int d = 0; d < v->rank; d++)
        if (mask & BIT(d))
            q *= c[d];
    return 1.0 / q;
}

/* The shares of its own core op (kind `kind`) that configuration c of v
 * leaves one device (perf_shares): the arithmetic splits over every dim;
 * a GEMM's input over its batch, M and K dims (an embedding's indices
 * over batch and M only), its output over batch, M and N, its weight
 * over batch, N and K, its bias over batch and N; an LSTM (l, s, b, d, e)
 * likewise with the layers splitting the weights; other ops' tensors over
 * the dims they span (out_mask), their parameters over the output's
 * non-batch dims (a norm's over its channel or normalised axis). */
static perf_shares own_shares(const iter_nest *v, const int32_t *c, unsigned out_mask,
                              dnp_op_kind kind)
{
    perf_shares s;
    unsigned all = (unsigned)((1ull << (unsigned)v->rank) - 1u);
    s.flop = s.in = share_of(v, c, all);
    s.out = share_of(v, c, out_mask);
    s.weight = s.bias = share_of(v, c, out_mask & ~(v->batch_dim >= 0 ? BIT(v->batch_dim) : 0u));
    if (v->kind == ITER_LSTM) {
        s.in = share_of(v, c, BIT(1) | BIT(2) | BIT(4));
        s.out = share_of(v, c, BIT(1) | BIT(2) | BIT(3));
        s.weight = share_of(v, c, BIT(0) | BIT(3) | BIT(4));
        s.bias = share_of(v, c, BIT(0) | BIT(3));
    } else if (v->gemm_m | v->gemm_n | v->gemm_k) {
        s.in = share_of(v, c, v->gemm_b | v->gemm_m | (kind == DNP_OP_EMBEDDING ? 0u : v->gemm_k));
        s.out = share_of(v, c, v->gemm_b | v->gemm_m | v->gemm_n);
        s.weight = share_of(v, c, v->gemm_b | v->gemm_n | v->gemm_k);
        s.bias = share_of(v, c, v->gemm_b | v->gemm_n);
        if (kind == DNP_OP_EMBEDDING) /* the gather writes its output's rows */
            s.flop = s.out;
    } else if (v->kind == ITER_NORM) {
        int a = v->axis == v->batch_dim && v->rank >= 2 ? 1 : v->axis;
        s.weight = s.bias = share_of(v, c, BIT(a));
    }
    return s;
}

/* Seconds of the core ops vertex vi carries under configuration c, on
 * the step simulator's device model (perf_op_time_shares: the kernels of
 * docs/device-model.md for each op's shard) plus the optimizer update's
 * traffic over the parameters the shard holds (its launches are one fused
 * update for the whole model, not counted per op). */
/* The shares of carried core op o that configuration c of vertex vi
 * leaves a device: its own op's (own_shares), or, fused, its carrier's
 * output block for every tensor. */
static perf_shares carried_shares(const iter_space *g, int vi, const int32_t *c, int o)
{
    const iter_nest *v = &g->nest[vi];
    if (o == v->op)
        return own_shares(v, c, g->carrier_mask[o], dnp_graph_op(g->core, o)->kind);
    double f = share_of(v, c, g->carrier_mask[o]);
    return (perf_shares){f, f, f, f, f};
}

static double compute_s(const pase_perf *m, const iter_space *g, int vi, const int32_t *c)
{
    double t = 0.0;
    for (int k = g->op_start[vi]; k < g->op_start[vi + 1]; k++) {
        int o = g->ops[k];
        perf_shares sh = carried_shares(g, vi, c, o);
        perf_op_time pt;
        perf_op_time_shares(g->core, o, g->batch, &sh, &m->r, &pt);
        t += pt.fwd_s + pt.bwd_s + pt.wgrad_s;
        const dnp_op *op = dnp_graph_op(g->core, o);
        if (!dnp_op_is_weighted(op) && op->param_elems <= 0 && op->kind != DNP_OP_BATCHNORM)
            continue; /* no parameters (dnp_op_cost_get's params), no update */
        dnp_op_cost cc;
        dnp_op_cost_get(g->core, o, g->batch, &cc);
        double held = (double)cc.weight_elems * sh.weight +
                      (double)(cc.params - cc.weight_elems) * sh.bias;
        double bw_bps = m->r.mem_bw_bps * m->r.mem_eff;
        if (held > 0.0 && bw_bps > 0.0)
            t += held * m->opt_bytes_per_param / bw_bps * m->r.pace;
    }
    return t;
}

double pase_perf_layer_s(const pase_perf *m, const iter_space *g, int vi, const int32_t *c)
{
    return compute_s(m, g, vi, c) + comm_s(m, &g->nest[vi], c);
}

double pase_perf_transfer_s(const pase_perf *m, int rank, const double *a_src,
                            const double *a_dst, double p_src, double p_dst)
{
    double words = pase_need_words(rank, a_src, a_dst, p_src, p_dst);
    if (words <= 0.0)
        return 0.0;
    double devices = p_src > p_dst ? p_src : p_dst;
    /* README "Transfer cost": the factor 2 is the forward tensor and its
     * gradient in the backward pass, one message each. */
    return 2.0 * message_s(m, devices, words * m->r.act_bytes);
}

unsigned char *pase_perf_saved_by_consumer(const iter_space *g)
{
    unsigned char *saved = dnp_calloc((size_t)(g->n_core > 0 ? g->n_core : 1), 1);
    if (saved == NULL)
        return NULL;
    perf_rates unit;
    memset(&unit, 0, sizeof unit);
    unit.act_bytes = 1; /* whether, not how much */
    for (int j = 0; j < g->n_core; j++) {
        perf_op_mem mm;
        perf_op_mem_get(g->core, j, g->batch, 1.0, 1.0, 1.0, &unit, &mm);
        const dnp_op *op = dnp_graph_op(g->core, j);
        for (int k = 0; k < op->n_inputs && mm.saved_input_bytes > 0.0; k++)
            saved[op->inputs[k]] = 1;
    }
    return saved;
}

double pase_perf_mem_bytes(const pase_perf *m, const iter_space *g,
                           const unsigned char *saved_by_consumer, int vi, const int32_t *c)
{
    /* The step simulator's footprint (src/sim/lower.c), op by op: the
     * parameters held x (weight, gradient, optimizer state), each op's
     * private buffers (masks, indices, statistics), the inputs it saves
     * for backward at its own shares, the output it saves unless a
     * consumer saves the same tensor (autograd stores it once; the
     * consumer's block is the one counted), and, for parameters held by
     * more than one device, their gradients' copy in the DDP buckets the
     * simulator counts (docs/time-model.md "Memory": gradient buckets). */
    double bytes = 0.0;
    const double devices = devices_of(&g->nest[vi], c);
    for (int k = g->op_start[vi]; k < g->op_start[vi + 1]; k++) {
        int o = g->ops[k];
        perf_shares sh = carried_shares(g, vi, c, o);
        perf_op_mem mm;
        perf_op_mem_shares(g->core, o, g->batch, &sh, &m->r, &mm);
        bytes += mm.param_elems * m->bytes_per_param + mm.saved_act_bytes;
        /* replicas of the held parameters: the devices over the shards */
        double held_share = sh.weight > 0.0 ? sh.weight : sh.bias;
        if (mm.param_elems > 0.0 && devices * held_share > 1.5)
            bytes += mm.param_elems * m->r.grad_bytes;
        if (saved_by_consumer[o])
            bytes -= mm.saved_output_bytes;
    }
    return bytes;
}

double pase_perf_param_elems(const iter_space *g, int vi)
{
    double n = 0.0;
    for (int k = g->op_start[vi]; k < g->op_start[vi + 1]; k++) {
        dnp_op_cost cc;
        dnp_op_cost_get(g->core, g->ops[k], g->batch, &cc);
        n += (double)cc.params;
    }
    return n;
}

int pase_devices_used(const pase_problem *pb, const int *cfg)
{
    int most = 1;
    for (int v = 0; v < pb->n_v; v++) {
        const pase_configs *cf = &pb->cfg[v];
        long long q = 1;
        for (int d = 0; d < cf->rank; d++)
            q *= cf->c[(size_t)cfg[v] * (size_t)cf->rank + (size_t)d];
        if (q > most)
            most = (int)q;
    }
    return most;
}
