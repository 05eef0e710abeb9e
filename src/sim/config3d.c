/*
 * config3d.c - one training step of a transformer under a Megatron-LM
 * configuration (tensor x pipeline x data parallelism, micro-batches,
 * interleaved stages, activation recompute, sequence parallelism),
 * simulated by the step simulator (docs/config3d.md).
 *
 * Sources: Shoeybi et al., "Megatron-LM" (2019), section 3 (column- then
 * row-parallel GEMM pairs: two all-reduces per layer forward and two
 * backward); Narayanan et al., "Efficient Large-Scale Language Model
 * Training on GPU Clusters Using Megatron-LM" (SC'21), sections 2.2 (1F1B
 * and interleaved schedules, bubble (p-1)/v), 4.1 (scatter/gather of
 * pipeline messages over tensor-parallel ranks) and 3.5 (model FLOPs);
 * Korthikanti et al., "Reducing Activation Recomputation in Large
 * Transformer Models" (2022), sections 4-5 (sequence parallelism,
 * selective recompute, activation memory per layer, Table 2).
 */
#include "dnnpar.h"
#include "perf/device_model.h"
#include "sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- configuration text ----------------------------------------------- */

const char *dnp_recompute_name(dnp_recompute r)
{
    static const char *const names[] = {"none", "selective", "full"};
    return (int)r >= 0 && r < DNP_RECOMPUTE_COUNT ? names[r] : "?";
}

int dnp_recompute_from_name(const char *s)
{
    for (int r = 0; r < DNP_RECOMPUTE_COUNT; r++)
        if (s != NULL && strcmp(s, dnp_recompute_name((dnp_recompute)r)) == 0)
            return r;
    return -1;
}

void dnp_config3d_defaults(dnp_config3d *c)
{
    memset(c, 0, sizeof *c);
    c->tp = c->pp = c->dp = 1;
    c->microbatch = 1;
    c->interleave = 1;
    c->recompute = DNP_RECOMPUTE_NONE;
}

dnp_status dnp_config3d_parse(const char *text, dnp_config3d *out, dnp_error *err)
{
    dnp_config3d c;
    dnp_config3d_defaults(&c);
    const char *p = text;
    while (p != NULL && *p != '\0') {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof item) {
            dnp_error_set(err, DNP_ERR_INPUT, "config '%s': empty or overlong item at column %d",
                          text, (int)(p - text) + 1);
            return DNP_ERR_INPUT;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        if (eq == NULL) {
            dnp_error_set(err, DNP_ERR_INPUT, "config '%s': '%s' is not KEY=VALUE", text, item);
            return DNP_ERR_INPUT;
        }
        *eq = '\0';
        const char *key = item, *val = eq + 1;
        if (strcmp(key, "recompute") == 0) {
            int r = dnp_recompute_from_name(val);
            if (r < 0) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "config '%s': recompute '%s' (known: none, selective, full)", text,
                              val);
                return DNP_ERR_INPUT;
            }
            c.recompute = (dnp_recompute)r;
        } else {
            char *e = NULL;
            long long v = (val[0] >= '0' && val[0] <= '9') ? strtoll(val, &e, 10) : -1;
            int ok = e != NULL && *e == '\0' && v >= 0 && v <= 1048576;
            if (strcmp(key, "tp") == 0 && ok && v >= 1)
                c.tp = (int)v;
            else if (strcmp(key, "pp") == 0 && ok && v >= 1)
                c.pp = (int)v;
            else if (strcmp(key, "dp") == 0 && ok && v >= 1)
                c.dp = (int)v;
            else if (strcmp(key, "microbatch") == 0 && ok && v >= 1)
                c.microbatch = v;
            else if (strcmp(key, "interleave") == 0 && ok && v >= 1)
                c.interleave = (int)v;
            else if (strcmp(key, "seq_par") == 0 && ok && v <= 1)
                c.seq_par = (int)v;
            else {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "config '%s': bad item '%s=%s' (keys: tp, pp, dp, microbatch, "
                              "interleave: integers >= 1; seq_par: 0 or 1; recompute: none, "
                              "selective, full)",
                              text, key, val);
                return DNP_ERR_INPUT;
            }
        }
        p = end ? end + 1 : NULL;
    }
    *out = c;
    return DNP_OK;
}

/* ---- per-layer costs from the model graph ------------------------------ */

typedef struct {
    double fwd_s, bwd_s;        /* compute of one micro-batch (bwd: input + weight gradient) */
    double attn_core_fwd_s;     /* the part selective recompute redoes (scores, softmax, context) */
    double params;              /* parameters held by one tensor-parallel rank */
    double fwd_flop;            /* model FLOP of the forward, whole micro-batch, all ranks */
} part_cost;

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Shares of op `op` on one of t tensor-parallel ranks (Shoeybi et al.
 * section 3): column-parallel GEMMs split their output, row-parallel ones
 * their input, attention splits its heads, the MLP's point-wise ops their
 * features; layer norms, residual adds and positions are replicated, or
 * split over the sequence with sequence parallelism (Korthikanti section
 * 4.2.2).  Returns 0 for ops that cost nothing (views). */
static int tp_shares(const dnp_op *op, int t, int seq_par, double *fb, double *fi, double *fo)
{
    double inv = 1.0 / t;
    *fb = *fi = *fo = 1.0;
    const char *n = op->name;
    if (op->kind == DNP_OP_RESHAPE || op->kind == DNP_OP_INPUT)
        return 0;
    if (op->kind == DNP_OP_FC) {
        if (ends_with(n, ".qkv") || ends_with(n, ".fc1") || ends_with(n, ".gate") ||
            ends_with(n, ".up") || strcmp(n, "lm_head") == 0)
            *fo = inv;
        else if (ends_with(n, ".attn.out") || ends_with(n, ".fc2") || ends_with(n, ".down"))
            *fi = inv;
        else if (seq_par)
            *fb = inv; /* the pooler: sequence-split with the rest */
        return 1;
    }
    if (op->kind == DNP_OP_MATMUL || op->kind == DNP_OP_SOFTMAX ||
        (op->kind == DNP_OP_ELTWISE && strstr(n, ".mlp.") != NULL) ||
        op->kind == DNP_OP_EMBEDDING) {
        *fb = inv; /* heads, features or the vocabulary split t ways */
        return 1;
    }
    if (seq_par)
        *fb = inv;
    return 1;
}

/* Costs of the ops whose name starts with `prefix` (one layer) or, with
 * prefix NULL, of the ops that belong to no layer and satisfy `first`
 * (1: before the layers, 0: after them). */
static void part(const dnp_graph *g, int64_t mb, const perf_rates *r, int t, int seq_par,
                 const char *prefix, int first, part_cost *out)
{
    memset(out, 0, sizeof *out);
    int seen_layer = 0;
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        int in_layer = starts_with(op->name, "layer");
        seen_layer |= in_layer;
        if (prefix != NULL ? !starts_with(op->name, prefix)
                           : (in_layer || (first ? seen_layer : !seen_layer)))
            continue;
        double fb, fi, fo;
        if (!tp_shares(op, t, seq_par, &fb, &fi, &fo))
            continue;
        perf_op_time t_op;
        perf_op_time_get(g, i, mb, fb, fi, fo, r, &t_op);
        out->fwd_s += t_op.fwd_s;
        out->bwd_s += t_op.bwd_s + t_op.wgrad_s;
        if (op->kind == DNP_OP_MATMUL || op->kind == DNP_OP_SOFTMAX)
            out->attn_core_fwd_s += t_op.fwd_s;
        dnp_op_cost c;
        dnp_op_cost_get(g, i, mb, &c);
        out->params += (double)c.params * fi * fo * (op->kind == DNP_OP_EMBEDDING ? fb : 1.0);
        out->fwd_flop += 2.0 * (double)c.macs_per_sample * (double)mb;
    }
}

/* ---- the schedule ------------------------------------------------------ */

/* Megatron's order of work units on pipeline rank s (Narayanan et al.
 * section 2.2; megatron/core/pipeline_parallel/schedules.py): with m
 * micro-batches, p ranks and v chunks per rank, forward unit k runs chunk
 * (k / p) mod v of micro-batch (k / (p v)) p + k mod p, backward unit k
 * chunk v - 1 - (k / p) mod v; warm-up forwards (p - s - 1) (1F1B) or
 * 2 (p - s - 1) + (v - 1) p (interleaved), then one forward and one
 * backward in turn, then the remaining backwards. */
typedef struct {
    int fwd;      /* 1 forward, 0 backward */
    int chunk, mb;
} unit;

static void unit_of(int k, int fwd, int p, int v, unit *u)
{
    u->fwd = fwd;
    int c = (k / p) % v;
    u->chunk = fwd ? c : v - 1 - c;
    u->mb = (k / (p * v)) * p + k % p;
}

static int rank_schedule(int s, int p, int v, int m, unit *out)
{
    int total = m * v;
    int warm = v == 1 ? p - s - 1 : 2 * (p - s - 1) + (v - 1) * p;
    if (warm > total)
        warm = total;
    int n = 0, f = 0, b = 0;
    for (; f < warm; f++)
        unit_of(f, 1, p, v, &out[n++]);
    while (f < total) {
        unit_of(f++, 1, p, v, &out[n++]);
        unit_of(b++, 0, p, v, &out[n++]);
    }
    while (b < total)
        unit_of(b++, 0, p, v, &out[n++]);
    return n;
}

/* ---- the step -------------------------------------------------------- */

/* Time of `op` on `bytes` over a group of n_nodes x per_node devices of type d. */
static double coll_s(dnp_coll_op op, int64_t n_nodes, int64_t per_node, const dnp_device_type *d,
                     double bytes)
{
    if (n_nodes * per_node <= 1 || bytes <= 0.0)
        return 0.0;
    dnp_comm_group grp;
    memset(&grp, 0, sizeof grp);
    grp.n_nodes = n_nodes;
    grp.per_node = per_node;
    grp.intra_topo = d->intra_topo == DNP_TOPO_NONE ? DNP_TOPO_SWITCH : d->intra_topo;
    grp.intra_bw_bps = d->intra_bw_bps > 0.0 ? d->intra_bw_bps : d->inter_bw_bps;
    grp.intra_lat_s = d->intra_lat_s;
    grp.inter_bw_bps = d->inter_bw_bps > 0.0 ? d->inter_bw_bps : d->net_bw_bps;
    grp.inter_lat_s = d->inter_lat_s;
    dnp_coll_cost c;
    dnp_coll_estimate(op, &grp, bytes, &c);
    return c.time_s;
}

/* A group of n ranks spaced `stride` apart in rank order (Megatron's
 * order: tensor-parallel ranks fastest, then data, then pipeline), on
 * nodes of per_node devices: how many nodes it spans and members per node. */
static void group_shape(int64_t n, int64_t stride, int64_t per_node, int64_t *nodes,
                        int64_t *members)
{
    if (per_node < 1)
        per_node = 1;
    int64_t span = n * stride; /* ranks from the first member to past the last */
    if (span <= per_node) {
        *nodes = 1;
        *members = n;
    } else {
        *members = stride >= per_node ? 1 : per_node / stride;
        *nodes = (n + *members - 1) / *members;
    }
}

enum { PH_FWD = 0, PH_BWD, PH_SEND, PH_DP, PH_OPT };

/* The layer costs of one (tensor-parallel degree, sequence parallelism,
 * micro-batch) for the search's cache: [0] a layer, [1] before the layers,
 * [2] after them. */
typedef struct {
    int valid;
    part_cost part[3];
} c3_cache;

/* Simulate cfg (or, with bound_only, stop after the memory and a lower
 * bound on the step: the busiest rank's compute without waits).  `cache`
 * may be NULL; otherwise its parts are used if valid, else filled. */
static dnp_status c3_run(const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                         const dnp_plan_options *opt, const dnp_config3d *cfg, c3_cache *cache,
                         int bound_only, double *bound_s, dnp_config3d_result *out,
                         dnp_error *err)
{
    memset(out, 0, sizeof *out);
    char nm[32];
    int L = 0;
    for (;;) {
        snprintf(nm, sizeof nm, "layer%d.add2", L);
        if (dnp_graph_find(g, nm) < 0)
            break;
        L++;
    }
    int emb = dnp_graph_find(g, "embed.tokens");
    if (L == 0 || emb < 0) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "a Megatron-LM configuration needs a transformer from the zoo (gpt(...), "
                      "bert(...), llama(...) or a preset such as gpt3-175b); '%s' is not one",
                      dnp_graph_name(g));
        return DNP_ERR_INPUT;
    }
    if (cl->n_types != 1) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "--config simulates one device type; the cluster has %d (mixed clusters "
                      "are not supported yet)",
                      cl->n_types);
        return DNP_ERR_INPUT;
    }
    const int t = cfg->tp, p = cfg->pp, v = cfg->interleave;
    const int64_t devices = cl->counts[0], mbs = cfg->microbatch;
    if ((int64_t)t * p * cfg->dp != devices) {
        dnp_error_set(err, DNP_ERR_INPUT, "config tp %d x pp %d x dp %d = %lld devices, the "
                      "cluster has %lld", t, p, cfg->dp, (long long)t * p * cfg->dp,
                      (long long)devices);
        return DNP_ERR_INPUT;
    }
    if (batch % ((int64_t)cfg->dp * mbs) != 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "batch %lld is not a multiple of dp %d x microbatch %lld",
                      (long long)batch, cfg->dp, (long long)mbs);
        return DNP_ERR_INPUT;
    }
    const int64_t m64 = batch / ((int64_t)cfg->dp * mbs);
    if (m64 > 1000000 || L % (p * v) != 0 || (v > 1 && (p < 2 || m64 % p != 0))) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "config: %d layers must divide into pp %d x interleave %d chunks, and an "
                      "interleaved schedule needs pp >= 2 and micro-batches (%lld) a multiple "
                      "of pp (at most 1,000,000)",
                      L, p, v, (long long)m64);
        return DNP_ERR_INPUT;
    }
    const int m = (int)m64;
    const dnp_op *e = dnp_graph_op(g, emb);
    const double hidden = (double)e->out.c, seq = (double)e->out.h;
    const dnp_device_type *d = &cl->types[0];
    perf_rates r;
    perf_rates_get(d, opt->precision, &r);
    r.pace = opt->no_stragglers ? 1.0 : perf_straggler_pace(d->speed_cv, (double)devices);
    out->straggler_pace = r.pace;

    /* one layer, what precedes the layers, what follows them */
    part_cost lay, pre, post;
    if (cache != NULL && cache->valid) {
        lay = cache->part[0];
        pre = cache->part[1];
        post = cache->part[2];
    } else {
        part(g, mbs, &r, t, cfg->seq_par, "layer0.", 0, &lay);
        part(g, mbs, &r, t, cfg->seq_par, NULL, 1, &pre);
        part(g, mbs, &r, t, cfg->seq_par, NULL, 0, &post);
        if (cache != NULL) {
            cache->part[0] = lay;
            cache->part[1] = pre;
            cache->part[2] = post;
            cache->valid = 1;
        }
    }

    /* tensor-parallel collectives of one layer (Shoeybi et al. section 3:
     * f and g, two all-reduces of the [b, s, h] activation forward and two
     * backward; with sequence parallelism each becomes an all-gather and a
     * reduce-scatter of the same tensor, Korthikanti section 4.2.2) */
    const int64_t per_node = d->devices_per_node > 0 ? d->devices_per_node : 1;
    int64_t tp_nodes, tp_members;
    group_shape(t, 1, per_node, &tp_nodes, &tp_members);
    const double act_bytes = (double)mbs * seq * hidden * r.act_bytes;
    double tp_one = cfg->seq_par ? coll_s(DNP_COLL_ALLGATHER, tp_nodes, tp_members, d, act_bytes) +
                                       coll_s(DNP_COLL_REDUCE_SCATTER, tp_nodes, tp_members, d,
                                              act_bytes)
                                 : coll_s(DNP_COLL_ALLREDUCE, tp_nodes, tp_members, d, act_bytes);
    const double tp_fwd_s = 2.0 * tp_one, tp_bwd_s = 2.0 * tp_one;
    double recompute_s = 0.0, recompute_tp_s = 0.0;
    if (cfg->recompute == DNP_RECOMPUTE_FULL) {
        recompute_s = lay.fwd_s; /* the layer's forward again before its backward */
        recompute_tp_s = tp_fwd_s;
    } else if (cfg->recompute == DNP_RECOMPUTE_SELECTIVE) {
        recompute_s = lay.attn_core_fwd_s; /* scores, softmax, context (section 5) */
    }
    const double layer_f = lay.fwd_s + tp_fwd_s;
    const double layer_b = lay.bwd_s + tp_bwd_s + recompute_s + recompute_tp_s;
    const int lpc = L / (p * v); /* layers per chunk */

    /* pipeline messages: the [b, s, h] activation, 1/t of it per rank when
     * t > 1 and re-gathered over the tensor-parallel ranks (Narayanan et
     * al. section 4.1) */
    int64_t stride_pp = (int64_t)t * cfg->dp;
    double msg_bytes = t > 1 ? act_bytes / t : act_bytes;
    int cross = stride_pp >= per_node || per_node % stride_pp != 0 ||
                (p > 1 && (int64_t)p * stride_pp > per_node);
    double p2p_s = coll_s(DNP_COLL_P2P, cross ? 2 : 1, cross ? 1 : 2, d, msg_bytes) +
                   (t > 1 ? coll_s(DNP_COLL_ALLGATHER, tp_nodes, tp_members, d, act_bytes) : 0.0);

    /* the gradient all-reduce and the optimizer step of one rank (the first
     * and last stages' extras both counted: an upper bound) */
    int64_t dp_nodes, dp_members;
    group_shape(cfg->dp, t, per_node, &dp_nodes, &dp_members);
    double rank_params = lay.params * (L / p) + (pre.params + post.params) / 1.0;
    double dp_s = coll_s(DNP_COLL_ALLREDUCE, dp_nodes, dp_members, d, rank_params * r.grad_bytes);
    double opt_s = perf_optimizer_time_s(rank_params, opt->optimizer, &r);
    /* memory of the first pipeline rank: weights, gradients, optimizer
     * state, and the activations of its in-flight micro-batches
     * (Korthikanti Table 2, bytes per layer for b sequences of s tokens,
     * h hidden, a heads, 2-byte activations; 1F1B keeps p micro-batches in
     * flight on the first stage, the interleaved schedule p (1 + (p-1) /
     * (p v)) (section 4.2.3 / Narayanan section 2.2.2)) */
    double heads = 0.0;
    {
        snprintf(nm, sizeof nm, "layer0.attn.scores");
        int sc = dnp_graph_find(g, nm);
        heads = sc >= 0 ? (double)dnp_graph_op(g, sc)->out_dims[0] : 1.0;
    }
    double sbh = (double)mbs * seq * hidden, as_h = heads * seq / hidden, act;
    if (cfg->recompute == DNP_RECOMPUTE_FULL)
        act = 2.0 * sbh;
    else if (cfg->recompute == DNP_RECOMPUTE_SELECTIVE)
        act = cfg->seq_par ? sbh * 34.0 / t : sbh * (10.0 + 24.0 / t);
    else
        act = cfg->seq_par ? sbh * (34.0 + 5.0 * as_h) / t
                           : sbh * (10.0 + 24.0 / t + 5.0 * as_h / t);
    double in_flight = v == 1 ? (double)(m < p ? m : p) : p * (1.0 + (p - 1.0) / (p * v));
    out->mem_weights_bytes = rank_params * perf_bytes_per_param(opt->optimizer, &r);
    out->mem_activation_bytes = act * (double)(L / p) * in_flight;
    out->mem_bytes = out->mem_weights_bytes + out->mem_activation_bytes;
    out->mem_capacity_bytes =
        opt->memory_limit_bytes > 0.0 ? opt->memory_limit_bytes : d->mem_bytes;
    out->fits = out->mem_capacity_bytes <= 0.0 || out->mem_bytes <= out->mem_capacity_bytes;
    if (bound_only) {
        /* every rank runs m x (its chunks' forward and backward), then the
         * all-reduce and the update: a lower bound on the simulated step */
        *bound_s = (double)m * v * lpc * (layer_f + layer_b) + dp_s + opt_s;
        return DNP_OK;
    }
    /* the step simulator: per rank a compute stream and a send stream each way */
    const int V = p * v, units = m * v * 2;
    sim_graph sg;
    sim_init(&sg, 3 * p);
    int *task_f = dnp_malloc((size_t)V * (size_t)m * sizeof *task_f);
    int *task_b = dnp_malloc((size_t)V * (size_t)m * sizeof *task_b);
    int *send_f = dnp_malloc((size_t)V * (size_t)m * sizeof *send_f);
    int *send_b = dnp_malloc((size_t)V * (size_t)m * sizeof *send_b);
    unit *sched = dnp_malloc((size_t)p * (size_t)units * sizeof *sched);
    int *next = dnp_calloc((size_t)p, sizeof *next), *last = dnp_malloc((size_t)p * sizeof *last);
    dnp_status st = DNP_ERR_NOMEM;
    if (!task_f || !task_b || !send_f || !send_b || !sched || !next || !last)
        goto done;
    for (int i = 0; i < V * m; i++)
        task_f[i] = task_b[i] = send_f[i] = send_b[i] = -1;
    for (int s = 0; s < p; s++) {
        rank_schedule(s, p, v, m, &sched[(size_t)s * (size_t)units]);
        last[s] = -1;
    }
    double busy_max = 0.0;
    for (int issued = 0, total = p * units; issued < total;) {
        int progress = 0;
        for (int s = 0; s < p; s++) {
            while (next[s] < units) {
                const unit *u = &sched[(size_t)s * (size_t)units + (size_t)next[s]];
                int vs = u->chunk * p + s, at = vs * m + u->mb;
                double extra_f = (vs == 0 ? pre.fwd_s : 0.0) + (vs == V - 1 ? post.fwd_s : 0.0);
                double extra_b = (vs == 0 ? pre.bwd_s : 0.0) + (vs == V - 1 ? post.bwd_s : 0.0);
                int cs = s, deps[2], nd = 0;
                if (u->fwd) {
                    if (vs > 0 && send_f[at - m] < 0)
                        break; /* the input has not been sent yet */
                    if (vs > 0)
                        deps[nd++] = send_f[at - m];
                    task_f[at] = sim_add(&sg, SIM_COMPUTE, lpc * layer_f + extra_f, vs, PH_FWD,
                                         &cs, 1, deps, nd);
                    if (vs < V - 1) {
                        int ls = p + s;
                        send_f[at] = sim_add(&sg, SIM_COMM, p2p_s, vs, PH_SEND, &ls, 1,
                                             &task_f[at], 1);
                    }
                } else {
                    if (vs < V - 1 && send_b[at + m] < 0)
                        break;
                    deps[nd++] = task_f[at];
                    if (vs < V - 1)
                        deps[nd++] = send_b[at + m];
                    task_b[at] = sim_add(&sg, SIM_COMPUTE, lpc * layer_b + extra_b, vs, PH_BWD,
                                         &cs, 1, deps, nd);
                    last[s] = task_b[at];
                    if (vs > 0) {
                        int ls = 2 * p + s;
                        send_b[at] = sim_add(&sg, SIM_COMM, p2p_s, vs, PH_SEND, &ls, 1,
                                             &task_b[at], 1);
                    }
                }
                next[s]++;
                issued++;
                progress = 1;
            }
        }
        if (!progress) {
            st = DNP_ERR_INTERNAL;
            dnp_error_set(err, DNP_ERR_INTERNAL, "config: the pipeline schedule deadlocked");
            goto done;
        }
    }
    /* gradient all-reduce over the data-parallel group after each rank's
     * last backward (not overlapped), then the optimizer step */
    for (int s = 0; s < p; s++) {
        int cs = s;
        int a = sim_add(&sg, SIM_COMM, dp_s, -1, PH_DP, &cs, 1, &last[s], 1);
        sim_add(&sg, SIM_COMPUTE, opt_s, -1, PH_OPT, &cs, 1, &a, 1);
    }
    if (sg.oom)
        goto done;
    out->step_time_s = sim_run(&sg);
    if (sg.oom)
        goto done;
    for (int s = 0; s < p; s++) {
        double busy = sim_stream_busy_s(&sg, s);
        busy_max = busy > busy_max ? busy : busy_max;
    }
    out->microbatches = m;
    out->compute_busy_s = busy_max;
    out->tp_comm_s = (double)m * (L / p) * (tp_fwd_s + tp_bwd_s + recompute_tp_s);
    out->p2p_s = p > 1 ? p2p_s : 0.0; /* no messages without a pipeline */
    out->dp_comm_s = dp_s;
    out->optimizer_s = opt_s;
    out->bubble_s = out->step_time_s - busy_max;
    /* model FLOP: forward, backward and weight gradient of every GEMM,
     * 3 x the forward, recompute not counted (Narayanan et al. 3.5) */
    double model_flop = 3.0 * (double)(batch / mbs) *
                        ((double)L * lay.fwd_flop + pre.fwd_flop + post.fwd_flop);
    out->model_flop = model_flop;
    out->mfu = model_flop / (out->step_time_s * (double)devices * r.peak_flops);
    st = DNP_OK;
done:
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory simulating the configuration");
    sim_free(&sg);
    dnp_free(task_f);
    dnp_free(task_b);
    dnp_free(send_f);
    dnp_free(send_b);
    dnp_free(sched);
    dnp_free(next);
    dnp_free(last);
    return st;
}

dnp_status dnp_config3d_simulate(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                                 const dnp_plan_options *opt, const dnp_config3d *cfg,
                                 dnp_config3d_result *out, dnp_error *err)
{
    return c3_run(g, c, batch, opt, cfg, NULL, 0, NULL, out, err);
}

/* ---- the search -------------------------------------------------------- */

typedef struct {
    dnp_config3d cfg;
    double bound_s;
    int order; /* enumeration index: ties keep the first */
    int cache; /* index into the cost cache */
} c3_cand;

static int cand_cmp(const void *a, const void *b)
{
    const c3_cand *x = a, *y = b;
    if (x->bound_s != y->bound_s)
        return x->bound_s < y->bound_s ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

#define C3_MAX_MB_CHOICES 6 /* micro-batches of 1, 2, 4, ..., 32 sequences */
#define C3_MAX_V 8          /* chunks per pipeline rank */

dnp_status dnp_config3d_search(const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                               const dnp_plan_options *opt, dnp_config3d *best,
                               dnp_config3d_result *best_res, dnp_config3d_stats *stats,
                               dnp_error *err)
{
    memset(stats, 0, sizeof *stats);
    char nm[32];
    int L = 0;
    while (snprintf(nm, sizeof nm, "layer%d.add2", L), dnp_graph_find(g, nm) >= 0)
        L++;
    int sc = dnp_graph_find(g, "layer0.attn.scores");
    if (L == 0 || sc < 0 || cl->n_types != 1) {
        dnp_config3d probe;
        dnp_config3d_defaults(&probe);
        probe.tp = (int)(cl->n_types == 1 && cl->counts[0] < 1048576 ? cl->counts[0] : 1);
        return dnp_config3d_simulate(g, cl, batch, opt, &probe, best_res, err) == DNP_OK
                   ? DNP_ERR_INTERNAL
                   : err->status;
    }
    const int64_t devices = cl->counts[0];
    const int64_t per_node = cl->types[0].devices_per_node > 0 ? cl->types[0].devices_per_node : 1;
    const int64_t heads = dnp_graph_op(g, sc)->out_dims[0];
    /* cost cache: tensor-parallel degree (powers of two up to a node) x
     * sequence parallelism x micro-batch size */
    int n_tp = 0, tps[16];
    for (int64_t t = 1; t <= per_node && t <= devices && n_tp < 16; t *= 2)
        if (devices % t == 0 && heads % t == 0)
            tps[n_tp++] = (int)t;
    c3_cache *cache = dnp_calloc((size_t)n_tp * 2 * C3_MAX_MB_CHOICES, sizeof *cache);
    c3_cand *cand = NULL;
    int n_cand = 0, cap = 0;
    dnp_status st = DNP_ERR_NOMEM;
    if (cache == NULL)
        goto done;
    int order = 0;
    for (int it = 0; it < n_tp; it++) {
        int t = tps[it];
        for (int p = 1; p <= L && (int64_t)t * p <= devices; p++) {
            if (L % p != 0 || devices % ((int64_t)t * p) != 0)
                continue;
            int64_t dp = devices / ((int64_t)t * p);
            if (batch % dp != 0)
                continue;
            for (int im = 0; im < C3_MAX_MB_CHOICES; im++) {
                int64_t mb = (int64_t)1 << im;
                if ((batch / dp) % mb != 0)
                    continue;
                int64_t m = batch / dp / mb;
                for (int v = 1; v <= C3_MAX_V; v++) {
                    if ((L / p) % v != 0 || (v > 1 && (p < 2 || m % p != 0)))
                        continue;
                    for (int rc = 0; rc < DNP_RECOMPUTE_COUNT; rc++)
                        for (int sp = 0; sp <= (t > 1); sp++) {
                            dnp_config3d c = {t, p, (int)dp, mb, v, (dnp_recompute)rc, sp};
                            int ci = (it * 2 + sp) * C3_MAX_MB_CHOICES + im;
                            dnp_config3d_result r;
                            double bound = 0.0;
                            stats->candidates++;
                            dnp_error e = {0};
                            if (c3_run(g, cl, batch, opt, &c, &cache[ci], 1, &bound, &r, &e) !=
                                DNP_OK)
                                continue;
                            if (!r.fits) {
                                if (stats->smallest_mem_bytes == 0.0 ||
                                    r.mem_bytes < stats->smallest_mem_bytes)
                                    stats->smallest_mem_bytes = r.mem_bytes;
                                continue;
                            }
                            if (n_cand == cap) {
                                cap = cap ? 2 * cap : 256;
                                c3_cand *nc = dnp_realloc(cand, (size_t)cap * sizeof *nc);
                                if (nc == NULL)
                                    goto done;
                                cand = nc;
                            }
                            cand[n_cand++] = (c3_cand){c, bound, order++, ci};
                        }
                }
            }
        }
    }
    stats->fitting = n_cand;
    if (n_cand == 0) {
        st = DNP_ERR_INPUT;
        dnp_error_set(err, st,
                      "no configuration of %s at batch %lld fits in %.3g GB per device on %lld "
                      "devices: the smallest needs %.3g GB",
                      dnp_graph_name(g), (long long)batch,
                      (opt->memory_limit_bytes > 0 ? opt->memory_limit_bytes
                                                   : cl->types[0].mem_bytes) / 1e9,
                      (long long)devices, stats->smallest_mem_bytes / 1e9);
        goto done;
    }
    /* branch and bound: simulate in order of the lower bound until the
     * bound reaches the best simulated step (exact: a step is never below
     * its bound) */
    qsort(cand, (size_t)n_cand, sizeof *cand, cand_cmp);
    double best_s = INFINITY;
    for (int i = 0; i < n_cand && cand[i].bound_s < best_s; i++) {
        dnp_config3d_result r;
        dnp_error e = {0};
        st = c3_run(g, cl, batch, opt, &cand[i].cfg, &cache[cand[i].cache], 0, NULL, &r, &e);
        if (st != DNP_OK) {
            dnp_error_set(err, st, "%s", e.msg);
            goto done;
        }
        stats->simulated++;
        if (r.step_time_s < best_s) {
            best_s = r.step_time_s;
            *best = cand[i].cfg;
            *best_res = r;
        }
    }
    st = DNP_OK;
done:
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory searching configurations");
    dnp_free(cache);
    dnp_free(cand);
    return st;
}
