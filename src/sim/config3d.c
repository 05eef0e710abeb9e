/*
 * config3d.c - one training step of a transformer under a Megatron-LM
 * configuration (tensor x pipeline x data parallelism, micro-batches,
 * interleaved stages, activation recompute, sequence parallelism),
 * simulated by the step simulator (docs/config3d.md): the layer-granular
 * costing and schedule that the 3D lowering (lower3d.c) runs on the
 * decisions it reads from a strategy; dnp_config3d_check / _simulate /
 * _trace are in config3d_api.c.
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
#include "core/clock.h"
#include "dnnpar.h"
#include "model/zoo_transformer.h"
#include "sim/config3d_int.h"
#include "sim/config3d_stages.h"
#include "sim/sim.h"
#include "sim/trace_events.h"
#include "topo/topology.h"

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
        char item[2048];
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
        if (strcmp(key, "layers") == 0) {
            /* layers per pipeline stage, "14:18:18:14" */
            c.n_stage_layers = 0;
            for (const char *q = val;;) {
                char *e = NULL;
                long long v = (*q >= '0' && *q <= '9') ? strtoll(q, &e, 10) : -1;
                if (e == NULL || v < 0 || v > 1048576 || (*e != ':' && *e != '\0') ||
                    c.n_stage_layers == DNP_CONFIG3D_MAX_STAGES) {
                    dnp_error_set(err, DNP_ERR_INPUT,
                                  "config '%s': layers '%s' must be 1 to %d counts >= 0 "
                                  "separated by ':' (one per pipeline stage; 0 only for the "
                                  "first or last stage)",
                                  text, val, DNP_CONFIG3D_MAX_STAGES);
                    return DNP_ERR_INPUT;
                }
                c.stage_layers[c.n_stage_layers++] = (int)v;
                if (*e == '\0')
                    break;
                q = e + 1;
            }
        } else if (strcmp(key, "grad_dtype") == 0) {
            /* DeepSpeed's fp32_allreduce: gradients cast to fp32 for the
             * all-reduce (deepspeed/runtime/engine.py, allreduce_bucket) */
            if (strcmp(val, "fp32") != 0 && strcmp(val, "default") != 0) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "config '%s': grad_dtype '%s' (known: fp32, default)", text, val);
                return DNP_ERR_INPUT;
            }
            c.grad_fp32 = strcmp(val, "fp32") == 0;
        } else if (strcmp(key, "schedule") == 0) {
            if (strcmp(val, "1f1b") != 0 && strcmp(val, "gpipe") != 0) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "config '%s': schedule '%s' (known: 1f1b, gpipe)", text, val);
                return DNP_ERR_INPUT;
            }
            c.gpipe = strcmp(val, "gpipe") == 0;
        } else if (strcmp(key, "recompute") == 0) {
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
            else if (strcmp(key, "zero") == 0 && ok && v <= 3)
                c.zero = (int)v;
            else if (strcmp(key, "overlap_grad") == 0 && ok && v <= 1)
                c.overlap_grad = (int)v;
            else if (strcmp(key, "overlap_param") == 0 && ok && v <= 1)
                c.overlap_param = (int)v;
            else if (strcmp(key, "tp_overlap") == 0 && ok && v <= 1)
                c.tp_overlap = (int)v;
            else if (strcmp(key, "vp_group") == 0 && ok)
                c.vp_group = (int)v;
            else {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "config '%s': bad item '%s=%s' (keys: tp, pp, dp, microbatch, "
                              "interleave: integers >= 1; seq_par, overlap_grad, overlap_param, "
                              "tp_overlap: 0 or 1; zero: 0 to 3; vp_group: an integer >= 0; "
                              "recompute: none, selective, full; schedule: 1f1b, gpipe; "
                              "layers: per-stage counts as 14:18:18:14; grad_dtype: fp32, "
                              "default)",
                              text, key, val);
                return DNP_ERR_INPUT;
            }
        }
        p = end ? end + 1 : NULL;
    }
    *out = c;
    return DNP_OK;
}

size_t dnp_config3d_format(const dnp_config3d *c, char *buf, size_t n)
{
    char tmp[64];
    size_t k = 0;
    /* appends to buf[n] (truncated), counting what it needs */
#define C3_PUT(...)                                                                    \
    do {                                                                               \
        int w_ = snprintf(tmp, sizeof tmp, __VA_ARGS__);                               \
        for (int i_ = 0; i_ < w_ && i_ < (int)sizeof tmp - 1; i_++, k++)                \
            if (k + 1 < n)                                                             \
                buf[k] = tmp[i_];                                                      \
    } while (0)
    C3_PUT("tp=%d,pp=%d,dp=%d", c->tp, c->pp, c->dp);
    if (c->microbatch != 1)
        C3_PUT(",microbatch=%lld", (long long)c->microbatch);
    if (c->interleave != 1)
        C3_PUT(",interleave=%d", c->interleave);
    if (c->recompute != DNP_RECOMPUTE_NONE)
        C3_PUT(",recompute=%s", dnp_recompute_name(c->recompute));
    if (c->seq_par)
        C3_PUT(",seq_par=1");
    if (c->zero)
        C3_PUT(",zero=%d", c->zero);
    if (c->gpipe)
        C3_PUT(",schedule=gpipe");
    for (int s = 0; s < c->n_stage_layers && s < DNP_CONFIG3D_MAX_STAGES; s++)
        C3_PUT("%s%d", s ? ":" : ",layers=", c->stage_layers[s]);
    if (c->grad_fp32)
        C3_PUT(",grad_dtype=fp32");
    if (c->overlap_grad)
        C3_PUT(",overlap_grad=1");
    if (c->overlap_param)
        C3_PUT(",overlap_param=1");
    if (c->tp_overlap)
        C3_PUT(",tp_overlap=1");
    if (c->vp_group)
        C3_PUT(",vp_group=%d", c->vp_group);
#undef C3_PUT
    if (n > 0)
        buf[k < n ? k : n - 1] = '\0';
    return k;
}

const char *dnp_megatron_version_name(dnp_megatron_version v)
{
    return v == DNP_MEGATRON_LEGACY ? "legacy" : v == DNP_MEGATRON_CURRENT ? "current" : "?";
}

int dnp_megatron_version_from_name(const char *s)
{
    if (s == NULL)
        return -1;
    /* Megatron-Core releases: the micro-batch groups came in core_r0.10.0 */
    static const char *const legacy[] = {"legacy", "core_r0.9", "core_r0.9.0", "core_r0.8",
                                         "core_r0.8.0"};
    static const char *const current[] = {"current", "core_r0.10", "core_r0.10.0"};
    for (size_t i = 0; i < sizeof legacy / sizeof *legacy; i++)
        if (strcmp(s, legacy[i]) == 0)
            return DNP_MEGATRON_LEGACY;
    for (size_t i = 0; i < sizeof current / sizeof *current; i++)
        if (strcmp(s, current[i]) == 0)
            return DNP_MEGATRON_CURRENT;
    return -1;
}

/* ---- per-layer costs from the model graph ------------------------------ */

/* What tensor parallelism does to an op of role `role` (the layout's,
 * dnp_graph_transformer_layout): Shoeybi et al. section 3 (column-parallel
 * Q/K/V and MLP up/gate and an untied output layer, row-parallel
 * projection and MLP down, attention split by heads, the MLP's point-wise
 * ops by features, the token embedding and tied logits by the
 * vocabulary); Korthikanti et al. section 4.2.2 (the rest over the
 * sequence with sequence parallelism). */
c3_tp_role c3_tp_role_for(const dnp_op *op, dnp_tf_role role, int seq_par)
{
    if (op->kind == DNP_OP_RESHAPE || op->kind == DNP_OP_INPUT)
        return C3_TP_SKIP;
    switch (role) {
    case DNP_TF_QKV:
    case DNP_TF_Q:
    case DNP_TF_K:
    case DNP_TF_V:
    case DNP_TF_MLP_UP:
    case DNP_TF_MLP_GATE:
    case DNP_TF_HEAD:
        return C3_TP_COLUMN;
    case DNP_TF_PROJ:
    case DNP_TF_MLP_DOWN:
        return C3_TP_ROW;
    case DNP_TF_EMBED_TOKENS:
    case DNP_TF_HEAD_TIED:
        return C3_TP_VOCAB;
    case DNP_TF_ATTN_PREP:
    case DNP_TF_SCORES:
    case DNP_TF_ATTN_MASK:
    case DNP_TF_SOFTMAX:
    case DNP_TF_ATTN_DROPOUT:
    case DNP_TF_CONTEXT:
        return C3_TP_HEADS;
    case DNP_TF_MLP_ACT:
        return C3_TP_FEATURES;
    default: /* norms, residual adds, dropouts, the pooler: replicated or over the sequence */
        return seq_par ? C3_TP_SEQUENCE : C3_TP_NONE;
    }
}

c3_tp_role c3_tp_role_at(const dnp_transformer_layout *lay, const dnp_graph *g, int i,
                         int seq_par)
{
    return c3_tp_role_for(dnp_graph_op(g, i), lay->role[i], seq_par);
}

/* Shares of op `op` on one of t tensor-parallel ranks by its role
 * (c3_tp_role_at): column-parallel GEMMs split their output, row-parallel
 * ones their input, the rest what their role names (fb).  Returns 0 for
 * ops that cost nothing (views). */
static int tp_shares(c3_tp_role role, int t, double *fb, double *fi, double *fo)
{
    double inv = 1.0 / t;
    *fb = *fi = *fo = 1.0;
    switch (role) {
    case C3_TP_SKIP:
        return 0;
    case C3_TP_COLUMN:
        *fo = inv;
        break;
    case C3_TP_ROW:
        *fi = inv;
        break;
    case C3_TP_NONE:
        break;
    default: /* heads, features, vocabulary or sequence split t ways */
        *fb = inv;
        break;
    }
    return 1;
}

/* Costs of a part of the model in lay (dnp_graph_transformer_layout):
 * `which` C3_PART_LAYER the ops of layer 0 (every layer is alike),
 * C3_PART_PRE the ops before the layers, C3_PART_POST those after them.
 * The device cannot run a kernel
 * before the host has issued it (docs/device-model.md, "Host dispatch"):
 * with host and device starting together, op k ends on the device at
 * max(its predecessor's end, the host's time to issue ops 1..k) + its
 * device time, forward in graph order and backward in reverse. */
enum { C3_PART_LAYER = 0, C3_PART_PRE, C3_PART_POST };
static void part(const dnp_graph *g, const dnp_transformer_layout *lay,
                 const unsigned char *tp_role, int64_t mb, const perf_rates *r, int t,
                 int seq_par, int which, c3_part *out)
{
    memset(out, 0, sizeof *out);
    int n_ops = dnp_graph_n_ops(g), n_in = 0;
    double host_f = 0.0;
    /* the backward's (device, host) times of the part's ops, in graph order */
    double *bwd = dnp_malloc(2 * (size_t)(n_ops > 0 ? n_ops : 1) * sizeof *bwd);
    for (int i = 0; i < n_ops; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        const int l = lay->layer[i];
        if (which == C3_PART_LAYER ? l != 0
                                   : l >= 0 || (which == C3_PART_PRE ? i > lay->first_op
                                                                     : i < lay->last_op))
            continue;
        const dnp_tf_role role = lay->role[i];
        double fb, fi, fo;
        const c3_tp_role tr =
            tp_role != NULL ? (c3_tp_role)tp_role[i] : c3_tp_role_for(op, role, seq_par);
        if (!tp_shares(tr, t, &fb, &fi, &fo))
            continue;
        perf_op_time t_op;
        perf_op_time_get(g, i, mb, fb, fi, fo, r, &t_op);
        host_f += t_op.fwd_host_s;
        out->fwd_s = (out->fwd_s > host_f ? out->fwd_s : host_f) + t_op.fwd_s;
        out->fwd_device_s += t_op.fwd_s;
        if (bwd != NULL) {
            bwd[2 * n_in] = t_op.bwd_s + t_op.wgrad_s;
            bwd[2 * n_in + 1] = t_op.bwd_host_s + t_op.wgrad_host_s;
        } else { /* no memory for the order: the device's sum alone */
            out->bwd_s += t_op.bwd_s + t_op.wgrad_s;
        }
        n_in++;
        out->bwd_device_s += t_op.bwd_s + t_op.wgrad_s;
        int gi = -1; /* a GEMM a tensor-parallel collective feeds (C3_GEMM_*) */
        if (op->kind == DNP_OP_FC && which == C3_PART_LAYER)
            gi = role == DNP_TF_QKV || role == DNP_TF_Q || role == DNP_TF_K || role == DNP_TF_V
                     ? C3_GEMM_QKV
                 : role == DNP_TF_PROJ                             ? C3_GEMM_PROJ
                 : role == DNP_TF_MLP_UP || role == DNP_TF_MLP_GATE ? C3_GEMM_FC1
                 : role == DNP_TF_MLP_DOWN                         ? C3_GEMM_FC2
                                                                   : -1;
        if (gi >= 0) {
            out->gemm_fwd_s[gi] += t_op.fwd_s;
            out->gemm_dgrad_s[gi] += t_op.bwd_s;
            out->gemm_wgrad_s[gi] += t_op.wgrad_s;
        }
        if (role == DNP_TF_SCORES || role == DNP_TF_ATTN_MASK || role == DNP_TF_SOFTMAX ||
            role == DNP_TF_ATTN_DROPOUT || role == DNP_TF_CONTEXT)
            out->attn_core_fwd_s += t_op.fwd_s; /* the core attention (Korthikanti section 5) */
        dnp_op_cost c;
        dnp_op_cost_get(g, i, mb, &c);
        out->params += (double)c.params * fi * fo * (op->kind == DNP_OP_EMBEDDING ? fb : 1.0);
        out->fwd_flop += 2.0 * (double)c.macs_per_sample * (double)mb;
    }
    double host_b = 0.0;
    for (int k = n_in - 1; bwd != NULL && k >= 0; k--) {
        host_b += bwd[2 * k + 1];
        out->bwd_s = (out->bwd_s > host_b ? out->bwd_s : host_b) + bwd[2 * k];
    }
    dnp_free(bwd);
}

/* ---- the schedule ------------------------------------------------------ */

/* Megatron's order of work units on pipeline rank s (Narayanan et al.
 * section 2.2; megatron/core/pipeline_parallel/schedules.py,
 * get_schedule_table and get_pp_rank_microbatches): with m micro-batches,
 * p ranks and v chunks per rank, the micro-batches go in groups of n
 * (--microbatch-group-size-per-virtual-pipeline-stage, default p; the last
 * group takes what remains, [g0, m) once g0 + n >= m) and within a group
 * every chunk in turn runs the group's micro-batches: forward unit k runs
 * chunk c of micro-batch g0 + i, backward unit k chunk v - 1 - c; with
 * n = p and m a multiple of p that is chunk (k / p) mod v of micro-batch
 * (k / (p v)) p + k mod p.  Warm-up forwards (p - s - 1) (1F1B) or
 * 2 (p - s - 1) + (v - 1) n (interleaved), then one forward and one
 * backward in turn, then the remaining backwards. */
typedef struct {
    int fwd;      /* 1 forward, 0 backward */
    int chunk, mb;
} unit;

static void unit_of(int k, int fwd, int v, int n, int m, unit *u)
{
    u->fwd = fwd;
    const int last_start = ((m - 1) / n) * n; /* the first group start with g0 + n >= m */
    int g0, size;
    if (k < last_start * v) {
        g0 = (k / (n * v)) * n;
        size = n;
    } else {
        g0 = last_start;
        size = m - last_start;
    }
    const int i = k - g0 * v, c = i / size;
    u->chunk = fwd ? c : v - 1 - c;
    u->mb = g0 + i % size;
}

/* Warm-up forwards of rank s (above), at most every unit; GPipe runs
 * every forward before the first backward (Huang et al., "GPipe", 2019). */
static int64_t warmup_units(int s, int p, int v, int n, int64_t m, int gpipe)
{
    int64_t warm = v == 1 ? p - s - 1 : 2 * (int64_t)(p - s - 1) + (int64_t)(v - 1) * n;
    if (gpipe)
        warm = m * v;
    return warm < m * v ? warm : m * v;
}

static int rank_schedule(int s, int p, int v, int n, int m, int gpipe, unit *out)
{
    int total = m * v;
    int warm = (int)warmup_units(s, p, v, n, m, gpipe);
    int k = 0, f = 0, b = 0;
    for (; f < warm; f++)
        unit_of(f, 1, v, n, m, &out[k++]);
    while (f < total) {
        unit_of(f++, 1, v, n, m, &out[k++]);
        unit_of(b++, 0, v, n, m, &out[k++]);
    }
    while (b < total)
        unit_of(b++, 0, v, n, m, &out[k++]);
    return k;
}

/* ---- overlapping communication with compute ----------------------------- */

/* SMs a collective's kernels hold while a GEMM runs beside it: Transformer
 * Engine's userbuffers give the pipelined and bulk overlaps num_sm = 16
 * (transformer_engine/pytorch/module/base.py, initialize_ub's default
 * configuration; the ring exchange moves data with the copy engines,
 * use_ce, and holds none).  NCCL runs one thread block per channel; we take
 * the same 16 SMs for its collectives (an assumption, not a measurement:
 * docs/config3d.md, "Schedules and overlaps"). */
#define C3_COMM_SMS 16
/* Transformer Engine's splits of a pipelined GEMM + reduce-scatter
 * (num_splits 4 for the "pipeline" method, initialize_ub's defaults). */
#define C3_TP_PIPE_SPLITS 4
/* Megatron-LM's gradient bucket: max(40,000,000, 1,000,000 x dp)
 * parameters (megatron/core/distributed/distributed_data_parallel.py,
 * "bucket_size = max(40000000, 1000000 * dp_group.size())" when
 * overlap_grad_reduce). */
#define C3_BUCKET_PARAMS 40000000.0
#define C3_BUCKET_PARAMS_PER_DP 1000000.0

/* How much slower a GEMM runs while a collective holds C3_COMM_SMS of the
 * device's sms SMs (its tiles run on the rest): sms / (sms - 16); 1 when
 * the SM count is unknown (docs/device-model.md). */
double c3_comm_slowdown(int sms)
{
    return sms > 2 * C3_COMM_SMS ? (double)sms / (double)(sms - C3_COMM_SMS) : 1.0;
}

/* A GEMM of g seconds beside a collective of c seconds that slows it by k
 * while both run: both end at c when the GEMM fits inside the collective
 * at the slower pace (c >= g k); otherwise the GEMM runs c at 1/k of its
 * speed and the rest at full speed, ending at g + c (1 - 1/k).  Never more
 * than g + c. */
double c3_beside_s(double g, double c, double k)
{
    return c >= g * k ? c : g + c * (1.0 - 1.0 / k);
}

/* Transformer Engine's userbuffers overlaps (--tp-comm-overlap; initialize_ub's
 * default methods), the time of a GEMM of g seconds with its collective of
 * c seconds on a t-rank group:
 * ring exchange (the all-gathers before the QKV and FC1 forward GEMMs and
 * before the projection's and FC2's input-gradient GEMMs): the GEMM in t
 * chunks, the local chunk first, each next one arriving (c / (t - 1)) over
 * the copy engines while the previous is multiplied:
 *   g / t + (t - 1) max(g / t, c / (t - 1)); */
double c3_tp_ring_s(double g, double c, int t)
{
    return g / t + (t - 1) * fmax(g / t, c / (t - 1));
}

/* pipeline (the reduce-scatters after the projection and FC2 forward
 * GEMMs): the GEMM in n = 4 chunks, each chunk's reduce-scatter beside the
 * next chunk's GEMM (slowed by k), the last one after:
 *   g / n + (n - 1) beside(g / n, c / n, k) + c / n; */
double c3_tp_pipe_s(double g, double c, double k)
{
    const double n = C3_TP_PIPE_SPLITS;
    return g / n + (n - 1) * c3_beside_s(g / n, c / n, k) + c / n;
}

/* bulk (the reduce-scatters of the QKV and FC1 input gradients beside
 * their weight-gradient GEMMs): side by side, beside(g, c, k). */
double c3_tp_bulk_s(double g, double c, double k)
{
    return c3_beside_s(g, c, k);
}

/* Megatron-LM's bucketed gradient reduction (--overlap-grad-reduce;
 * megatron/core/distributed/param_and_grad_buffer.py: a bucket's
 * collective starts when its last gradient is ready, on the last
 * micro-batch's backward, one bucket at a time on the communication
 * stream): the gradients of `params` parameters become ready evenly over a
 * backward of work_s seconds, in buckets of `bucket` parameters (the last
 * holds the rest); a full bucket's collective takes c_full, the last's
 * c_last; the backward runs k times slower while a collective runs.
 * Returns how long the collectives go on after the backward ends (at
 * least c_last: the last bucket is ready only then) and *stretch_s how much
 * the backward lengthened. */
double c3_grad_overlap_s(double work_s, double params, double bucket, double c_full,
                             double c_last, double k, double *stretch_s)
{
    const double nb = ceil(params / bucket);
    double t = 0.0, done = 0.0, comm_free = 0.0;
    for (double j = 1.0; j <= nb; j += 1.0) {
        const double target = work_s * fmin(1.0, j * bucket / params);
        if (t < comm_free) { /* compute beside the running collective */
            double can = (comm_free - t) / k;
            if (done + can >= target) {
                t += (target - done) * k;
                done = target;
            } else {
                done += can;
                t = comm_free;
            }
        }
        t += target - done;
        done = target;
        comm_free = fmax(t, comm_free) + (j == nb ? c_last : c_full);
    }
    *stretch_s = t - work_s;
    return comm_free - t;
}

/* Megatron-LM's overlapped parameter all-gather (--overlap-param-gather
 * with the distributed optimizer; param_and_grad_buffer.py
 * finish_param_sync: the forward waits for a bucket's all-gather before
 * its first layer, then dispatches the next bucket's): the first bucket's
 * all-gather starts when the step does, the forward of work_s seconds
 * starts `offset_s` later and needs bucket j's parameters (evenly spread)
 * before its j-th piece; a full bucket's all-gather takes c_full, the
 * last's c_last, and slows the forward by k while it runs.  Returns how
 * much later the forward ends than offset_s + work_s. */
double c3_param_overlap_s(double work_s, double offset_s, double params, double bucket,
                              double c_full, double c_last, double k)
{
    const double nb = ceil(params / bucket);
    double t = offset_s, ag_end = nb > 1.0 ? c_full : c_last;
    for (double j = 1.0; j <= nb; j += 1.0) {
        t = fmax(t, ag_end); /* wait for bucket j */
        const double piece = work_s * (fmin(1.0, j * bucket / params) -
                                       fmin(1.0, (j - 1.0) * bucket / params));
        double c = j < nb ? (j + 1.0 == nb ? c_last : c_full) : 0.0; /* bucket j + 1 */
        ag_end = t + c;
        t += c >= piece * k ? piece * k : piece + c * (1.0 - 1.0 / k);
    }
    return t - (offset_s + work_s);
}

/* ---- links ------------------------------------------------------------- */

/* Time of `op` on `bytes` over link group g (src/topo/topology.h). */
static double grp_s(dnp_coll_op op, const dnp_comm_group *g, double bytes)
{
    if (g->n_nodes * g->per_node <= 1 || bytes <= 0.0)
        return 0.0;
    dnp_coll_cost c;
    dnp_coll_estimate(op, g, bytes, &c);
    return c.time_s;
}

/* Adds g to the distinct groups list[0..*n) (at most C3_MAX_GROUPS; past
 * that the last entry becomes the elementwise slowest of it and g: least
 * bandwidths, largest latencies, the larger node count). */
static void grp_add(dnp_comm_group *list, int *n, const dnp_comm_group *g)
{
    for (int i = 0; i < *n; i++)
        if (memcmp(&list[i], g, sizeof *g) == 0)
            return;
    if (*n < C3_MAX_GROUPS) {
        list[(*n)++] = *g;
        return;
    }
    dnp_comm_group *w = &list[*n - 1];
    if (g->n_nodes > w->n_nodes) {
        w->n_nodes = g->n_nodes;
        w->per_node = g->per_node;
    }
    w->intra_bw_bps = fmin(w->intra_bw_bps, g->intra_bw_bps);
    w->inter_bw_bps = fmin(w->inter_bw_bps, g->inter_bw_bps);
    w->intra_lat_s = fmax(w->intra_lat_s, g->intra_lat_s);
    w->inter_lat_s = fmax(w->inter_lat_s, g->inter_lat_s);
}

/* The slowest of `op` on `bytes` over the groups list[0..n). */
static double grp_max_s(dnp_coll_op op, const dnp_comm_group *list, int n, double bytes)
{
    double t = 0.0;
    for (int i = 0; i < n; i++)
        t = fmax(t, grp_s(op, &list[i], bytes));
    return t;
}

/* The links and pace of stage s (its types set; x->ty filled): each
 * data-parallel replica's tensor-parallel group runs every layer at its
 * slowest member's pace (each member computes its share at its own type's
 * speed and all meet at the layer's collectives, Shoeybi et al. section 3),
 * its collectives on the links the group spans; the stage runs at its
 * slowest replica's pace (a synchronous step: every replica runs the same
 * micro-batches and meets the others at the gradient all-reduce). */
static void stage_links(c3_ctx *x, int s)
{
    const dnp_config3d *cfg = &x->cfg;
    const dnp_cluster *cl = x->cl;
    const int64_t t = cfg->tp, width = t * cfg->dp, first = s * width;
    c3_stage *S = &x->st[s];
    const unsigned types = S->types;
    memset(S, 0, sizeof *S);
    S->types = types;
    for (int k = 0; k < cl->n_types; k++) {
        if (!(types & (1u << k)))
            continue;
        const c3_type *T = &x->ty[k];
        S->pre_f_s = fmax(S->pre_f_s, T->pre.fwd_s);
        S->pre_b_s = fmax(S->pre_b_s, T->pre.bwd_s);
        S->post_f_s = fmax(S->post_f_s, T->post.fwd_s);
        S->post_b_s = fmax(S->post_b_s, T->post.bwd_s);
        S->grad_comm_bytes_pp = fmax(S->grad_comm_bytes_pp, T->grad_comm_bytes_pp);
        S->weight_bytes_pp = fmax(S->weight_bytes_pp, T->weight_bytes_pp);
    }
    /* tensor-parallel collectives of one layer (Shoeybi et al. section 3:
     * f and g, two all-reduces of the [b, s, h] activation forward and two
     * backward; with sequence parallelism each becomes an all-gather and a
     * reduce-scatter of the same tensor, Korthikanti section 4.2.2); groups
     * of the same types and links cost the same (memo) */
    struct {
        unsigned types;
        dnp_comm_group g;
        double f, b, tpf, rtp, hid_f, hid_b;
    } memo[C3_MAX_GROUPS];
    int n_memo = 0;
    for (int64_t d = 0; d < cfg->dp; d++) {
        dnp_comm_group g;
        topo_group_strided(cl, first + d * t, t, 1, &g);
        unsigned m = topo_types_strided(cl, first + d * t, t, 1);
        int hit = -1;
        for (int i = 0; i < n_memo && hit < 0; i++)
            if (memo[i].types == m && memcmp(&memo[i].g, &g, sizeof g) == 0)
                hit = i;
        if (hit < 0) {
            hit = n_memo < C3_MAX_GROUPS ? n_memo++ : C3_MAX_GROUPS - 1;
            memo[hit].types = m;
            memo[hit].g = g;
            double act_r = 0.0;
            for (int k = 0; k < cl->n_types; k++)
                if (m & (1u << k))
                    act_r = fmax(act_r, x->ty[k].r.act_bytes);
            const double act_bytes = (double)cfg->microbatch * x->seq * x->hidden * act_r;
            double tp_one = cfg->seq_par ? grp_s(DNP_COLL_ALLGATHER, &g, act_bytes) +
                                               grp_s(DNP_COLL_REDUCE_SCATTER, &g, act_bytes)
                                         : grp_s(DNP_COLL_ALLREDUCE, &g, act_bytes);
            double tpf = 2.0 * tp_one;
            const int full = cfg->recompute == DNP_RECOMPUTE_FULL;
            double rtp = full ? tpf : 0.0;
            double f = 0.0, b = 0.0, hid_f = INFINITY, hid_b = INFINITY;
            const int over = cfg->tp_overlap && cfg->seq_par && t > 1;
            const double ag = over ? grp_s(DNP_COLL_ALLGATHER, &g, act_bytes) : 0.0;
            const double rs = over ? grp_s(DNP_COLL_REDUCE_SCATTER, &g, act_bytes) : 0.0;
            for (int k = 0; k < cl->n_types; k++) {
                if (!(m & (1u << k)))
                    continue;
                const c3_type *T = &x->ty[k];
                /* exposed collective time of one layer forward and backward;
                 * with tp_overlap the four collectives each way are
                 * pipelined with the GEMM they feed or drain (tp_ring_s,
                 * tp_pipe_s, tp_bulk_s): forward the all-gathers before QKV
                 * and FC1 (ring) and the reduce-scatters after the
                 * projection and FC2 (pipeline); backward the all-gathers
                 * before the projection's and FC2's input-gradient GEMMs
                 * (ring) and the reduce-scatters of the QKV and FC1 input
                 * gradients beside their weight-gradient GEMMs (bulk) */
                double ef = tpf, eb = tpf;
                if (over) {
                    const c3_part *P = &T->lay;
                    const double ks = c3_comm_slowdown(T->d->sm_count);
                    const double *gf = P->gemm_fwd_s, *gd = P->gemm_dgrad_s,
                                 *gw = P->gemm_wgrad_s;
                    ef = c3_tp_ring_s(gf[C3_GEMM_QKV], ag, (int)t) - gf[C3_GEMM_QKV] +
                         c3_tp_pipe_s(gf[C3_GEMM_PROJ], rs, ks) - gf[C3_GEMM_PROJ] +
                         c3_tp_ring_s(gf[C3_GEMM_FC1], ag, (int)t) - gf[C3_GEMM_FC1] +
                         c3_tp_pipe_s(gf[C3_GEMM_FC2], rs, ks) - gf[C3_GEMM_FC2];
                    eb = c3_tp_ring_s(gd[C3_GEMM_PROJ], ag, (int)t) - gd[C3_GEMM_PROJ] +
                         c3_tp_ring_s(gd[C3_GEMM_FC2], ag, (int)t) - gd[C3_GEMM_FC2] +
                         c3_tp_bulk_s(gw[C3_GEMM_QKV], rs, ks) - gw[C3_GEMM_QKV] +
                         c3_tp_bulk_s(gw[C3_GEMM_FC1], rs, ks) - gw[C3_GEMM_FC1];
                    ef = fmin(ef, tpf); /* never above the collectives alone */
                    eb = fmin(eb, tpf);
                }
                hid_f = fmin(hid_f, tpf - ef);
                hid_b = fmin(hid_b, tpf - eb);
                f = fmax(f, T->lay.fwd_s + ef);
                b = fmax(b, T->lay.bwd_s + eb + T->recompute_s + (full ? ef : 0.0));
            }
            memo[hit].f = f;
            memo[hit].b = b;
            memo[hit].tpf = tpf;
            memo[hit].rtp = rtp;
            memo[hit].hid_f = hid_f;
            memo[hit].hid_b = hid_b;
        }
        S->layer_f_s = fmax(S->layer_f_s, memo[hit].f);
        S->layer_b_s = fmax(S->layer_b_s, memo[hit].b);
        S->tp_fwd_s = S->tp_bwd_s = fmax(S->tp_fwd_s, memo[hit].tpf);
        S->recompute_tp_s = fmax(S->recompute_tp_s, memo[hit].rtp);
        S->tp_hidden_f_s = d == 0 ? memo[hit].hid_f : fmin(S->tp_hidden_f_s, memo[hit].hid_f);
        S->tp_hidden_b_s = d == 0 ? memo[hit].hid_b : fmin(S->tp_hidden_b_s, memo[hit].hid_b);
    }
    /* the data-parallel groups: rank j of every replica, j < t */
    for (int64_t j = 0; j < t; j++) {
        dnp_comm_group g;
        topo_group_strided(cl, first + j, cfg->dp, t, &g);
        grp_add(S->dp_grp, &S->n_dp_grp, &g);
    }
    /* ZeRO-2 reduce-scatters each layer's gradients as its backward
     * produces them (every micro-batch), ZeRO-3 also all-gathers each
     * layer's weights before its forward and its backward; both are
     * prefetched / bucketed so that they overlap the layer's compute
     * (DeepSpeed overlap_comm, FSDP backward prefetch): a layer takes the
     * longer of its compute and its traffic */
    if (cfg->zero >= 2 && cfg->dp > 1) {
        double lp = x->ty[x->stage_type[s]].lay.params;
        double rs = grp_max_s(DNP_COLL_REDUCE_SCATTER, S->dp_grp, S->n_dp_grp,
                              lp * S->grad_comm_bytes_pp);
        double ag = cfg->zero == 3 ? grp_max_s(DNP_COLL_ALLGATHER, S->dp_grp, S->n_dp_grp,
                                               lp * S->weight_bytes_pp)
                                   : 0.0;
        S->zero_layer_f_s = ag;
        S->zero_layer_b_s = ag + rs;
        S->layer_f_s = fmax(S->layer_f_s, S->zero_layer_f_s);
        S->layer_b_s = fmax(S->layer_b_s, S->zero_layer_b_s);
    }
}

/* One pipeline message from stage a to stage b: rank i of stage a sends
 * to rank i of stage b over the link between them (src/topo/topology.h:
 * one node's intra tier, else the slower NIC share and the larger
 * latency), the [b, s, h] activation, 1/t of it per rank when t > 1,
 * re-gathered over the receiving tensor-parallel group (Narayanan et al.
 * section 4.1); the slowest pair and group pace the stage. */
static double message_s(const c3_ctx *x, int a, int b)
{
    const dnp_config3d *c = &x->cfg;
    const int64_t t = c->tp, width = t * c->dp;
    double act_r = 0.0;
    for (int k = 0; k < x->cl->n_types; k++)
        if (x->st[b].types & (1u << k))
            act_r = fmax(act_r, x->ty[k].r.act_bytes);
    const double act_bytes = (double)c->microbatch * x->seq * x->hidden * act_r;
    const double msg_bytes = t > 1 ? act_bytes / t : act_bytes;
    dnp_comm_group list[C3_MAX_GROUPS], g;
    int n = 0;
    memset(list, 0, sizeof list);
    for (int64_t i = 0; i < width; i++) {
        topo_p2p(x->cl, a * width + i, b * width + i, &g);
        grp_add(list, &n, &g);
    }
    double send = grp_max_s(DNP_COLL_P2P, list, n, msg_bytes);
    if (t <= 1)
        return send;
    n = 0;
    for (int64_t d = 0; d < c->dp; d++) {
        topo_group_strided(x->cl, b * width + d * t, t, 1, &g);
        grp_add(list, &n, &g);
    }
    return send + grp_max_s(DNP_COLL_ALLGATHER, list, n, act_bytes);
}

/* ---- Megatron-LM's rules ---------------------------------------------- */

int dnp_config3d_recognises(const dnp_graph *g)
{
    c3_shape sh;
    return c3_shape_of(g, &sh);
}

dnp_status c3_shape_read(const dnp_graph *g, c3_shape *t, dnp_error *err)
{
    dnp_transformer_layout *lay = NULL;
    memset(t, 0, sizeof *t);
    dnp_status st = dnp_graph_transformer_layout(g, &lay, err);
    if (st != DNP_OK)
        return st;
    int ok = c3_shape_from_layout(g, lay, t);
    dnp_transformer_layout_free(lay);
    if (!ok) {
        dnp_error_set(err, DNP_ERR_INPUT, "'%s' has no transformer layer of one shape",
                      dnp_graph_name(g));
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

int c3_shape_of(const dnp_graph *g, c3_shape *t)
{
    dnp_error err = {0};
    return c3_shape_read(g, t, &err) == DNP_OK;
}

int c3_shape_from_layout(const dnp_graph *g, const dnp_transformer_layout *lay, c3_shape *t)
{
    memset(t, 0, sizeof *t);
    t->layers = lay->layers;
    t->embed_op = lay->embed_op;
    t->hidden = lay->hidden;
    t->seq = lay->seq;
    t->vocab = lay->vocab;
    t->heads = lay->heads;
    t->positions = t->seq;
    int64_t qkv_out = 0, k_out = 0, gate = 0, up = 0;
    double attn_drop = -1.0, drop = -1.0;
    for (int i = 0; i < lay->n_ops; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        const int first_layer = lay->layer[i] == 0;
        switch (lay->role[i]) {
        case DNP_TF_EMBED_POSITIONS:
            t->positions = t->hidden > 0 ? op->param_elems / t->hidden : t->seq;
            break;
        case DNP_TF_QKV:
            qkv_out = first_layer && qkv_out == 0 ? dnp_op_out_view(op).c : qkv_out;
            break;
        case DNP_TF_K:
            k_out = first_layer && k_out == 0 ? dnp_op_out_view(op).c : k_out;
            break;
        case DNP_TF_SCORES:
            if (first_layer)
                t->flash = strcmp(op->src_type, ZOO_FLASH_ATTENTION) == 0;
            break;
        case DNP_TF_MLP_GATE:
            gate = first_layer && gate == 0 ? dnp_op_out_view(op).c : gate;
            break;
        case DNP_TF_MLP_UP:
            up = first_layer && up == 0 ? dnp_op_out_view(op).c : up;
            break;
        case DNP_TF_ATTN_DROPOUT:
            attn_drop = first_layer && attn_drop < 0 ? op->ratio : attn_drop;
            break;
        case DNP_TF_DROPOUT: /* the hidden states' dropout: the MLP's (the last of layer 0) */
            drop = first_layer ? op->ratio : drop;
            break;
        case DNP_TF_POOLER:
            t->bert = 1;
            break;
        case DNP_TF_HEAD:
            t->untied = 1;
            break;
        case DNP_TF_HEAD_TIED:
            t->tied = 1;
            break;
        default:
            break;
        }
    }
    /* Q, K and V fused: H + 2 KV features (src/model/zoo_transformer.c);
     * separate: K's own */
    const int64_t kv = qkv_out > t->hidden ? (qkv_out - t->hidden) / 2 : k_out;
    const int64_t head_dim = t->heads > 0 ? t->hidden / t->heads : 1;
    t->kv_heads = head_dim > 0 && kv > 0 ? kv / head_dim : t->heads;
    t->llama = gate > 0;
    t->ffn = gate > 0 ? gate : up;
    t->attn_dropout = attn_drop > 0 ? attn_drop : 0.0;
    t->hidden_dropout = drop > 0 ? drop : 0.0;
    if (t->layers == 0 || t->ffn == 0) {
        int layers = t->layers;
        memset(t, 0, sizeof *t);
        t->layers = layers;
        return 0;
    }
    return 1;
}

/* The Megatron-LM checks cited: megatron/core/transformer/
 * transformer_config.py (__post_init__: "num_attention_heads must be a
 * multiple of tensor_model_parallel_size", "num_query_groups must be a
 * multiple of tensor_model_parallel_size"), megatron/core/utils.py divide()
 * as ColumnParallelLinear splits the MLP's ffn_hidden_size, and
 * megatron/core/tensor_parallel/mappings.py _split_along_first_dim (the
 * sequence split of sequence parallelism).  The vocabulary needs no rule:
 * Megatron-LM pads it to a multiple of 128 x tp
 * (--make-vocab-size-divisible-by). */
int c3_rule_tp(const dnp_graph *g, const c3_shape *sh, const dnp_cluster *cl, int tp,
               int seq_par, int across_nodes, char *why, size_t n)
{
    const char *name = dnp_graph_name(g);
    const long long t = tp;
    if (t > 1 && sh->heads % t != 0) {
        snprintf(why, n, "%.64s has %lld attention heads, not a multiple of tp (Megatron-LM "
                 "gives each tensor-parallel rank heads / tp of them)", name,
                 (long long)sh->heads);
        return C3_RULE_HEADS;
    }
    if (t > 1 && sh->kv_heads != sh->heads && sh->kv_heads % t != 0) {
        snprintf(why, n, "%.64s has %lld key-value heads (query groups), not a multiple of tp "
                 "(Megatron-LM's --num-query-groups must divide by the tensor-parallel size)",
                 name, (long long)sh->kv_heads);
        return C3_RULE_KV;
    }
    if (t > 1 && sh->ffn % t != 0) {
        snprintf(why, n, "the MLP hidden size of %.64s, %lld, is not a multiple of tp "
                 "(Megatron-LM's column-parallel layer splits it evenly)", name,
                 (long long)sh->ffn);
        return C3_RULE_FFN;
    }
    if (t > 1 && seq_par && sh->seq % t != 0) {
        snprintf(why, n, "sequence parallelism splits the sequence of %lld tokens over the "
                 "tensor-parallel ranks; it is not a multiple of tp", (long long)sh->seq);
        return C3_RULE_SEQ;
    }
    /* tensor-parallel groups are runs of tp consecutive ranks; each type's
     * devices fill nodes of its own (src/topo/topology.c): every group is
     * inside one node iff tp divides every type's devices per node and
     * count */
    for (int k = 0; t > 1 && !across_nodes && k < cl->n_types; k++) {
        const dnp_device_type *d = &cl->types[k];
        if (cl->counts[k] <= 0)
            continue;
        if (d->devices_per_node <= 1) {
            snprintf(why, n, "its tensor-parallel groups would span nodes: %.64s %s (a node "
                     "preset such as dgx-a100 puts several on one; --tp-across-nodes allows "
                     "it)", d->name,
                     d->devices_per_node == 1 ? "has one device per node"
                                              : "devices have no node preset (one per node)");
            return C3_RULE_NODE;
        }
        if (d->devices_per_node % t != 0 || cl->counts[k] % t != 0) {
            snprintf(why, n, "its tensor-parallel groups would span nodes: tp must divide the "
                     "%lld devices per node and the %lld devices of %.64s (--tp-across-nodes "
                     "allows it)", (long long)d->devices_per_node, (long long)cl->counts[k],
                     d->name);
            return C3_RULE_NODE;
        }
    }
    return C3_RULE_OK;
}

dnp_status c3_check_rules(const c3_ctx *x, const dnp_plan_options *opt, dnp_error *err)
{
    char why[400];
    if (c3_rule_tp(x->g, &x->shape, x->cl, x->cfg.tp, x->cfg.seq_par, opt->tp_across_nodes, why,
                   sizeof why) != C3_RULE_OK) {
        dnp_error_set(err, DNP_ERR_INPUT, "config tp %d: %s", x->cfg.tp, why);
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

dnp_status c3_check_memory(const c3_ctx *x, const dnp_plan_options *opt,
                           const dnp_config3d_result *res, dnp_error *err)
{
    if (res->fits || opt->keep_over_memory)
        return DNP_OK;
    const dnp_config3d *c = &x->cfg;
    dnp_error_set(err, DNP_ERR_INPUT,
                  "config tp %d, pp %d, dp %d, micro-batch %lld does not fit: stage %d of %d "
                  "needs %.1f GB per device (weights, gradients and optimizer state %.1f GB, "
                  "activations %.1f GB) against %.1f GB (recompute, ZeRO, a smaller "
                  "micro-batch, more stages or a larger --memory-limit would do)",
                  c->tp, c->pp, c->dp, (long long)c->microbatch, res->mem_stage + 1, c->pp,
                  res->mem_bytes / 1e9, res->mem_weights_bytes / 1e9,
                  res->mem_activation_bytes / 1e9, res->mem_capacity_bytes / 1e9);
    return DNP_ERR_INPUT;
}

/* ---- preparing a configuration ---------------------------------------- */

/* c3_prepare with g's layout (NULL when the cache holds the costs) and
 * each op's tensor-parallel role (tp_role[op], c3_tp_role values; NULL:
 * c3_tp_role_for of the layout's roles). */
static dnp_status prepare(const dnp_graph *g, const dnp_transformer_layout *lay,
                          const unsigned char *tp_role, const dnp_cluster *cl, int64_t batch,
                          const dnp_plan_options *opt, const dnp_config3d *cfg, c3_cache *cache,
                          c3_ctx *x, dnp_error *err);

dnp_status c3_read_model(const dnp_graph *g, dnp_transformer_layout **lay, c3_shape *sh,
                         dnp_error *err)
{
    memset(sh, 0, sizeof *sh);
    dnp_error lerr = {0};
    dnp_status st = dnp_graph_transformer_layout(g, lay, &lerr);
    if (st != DNP_OK) { /* its reason: what the structure lacks */
        *lay = NULL;
        dnp_error_set(err, st, "%s", lerr.msg);
        return st;
    }
    if (!c3_shape_from_layout(g, *lay, sh)) {
        dnp_transformer_layout_free(*lay);
        *lay = NULL;
        dnp_error_set(err, DNP_ERR_INPUT,
                      "a Megatron-LM configuration needs a transformer (a zoo gpt(...), "
                      "bert(...) or llama(...), or a model of that structure); '%s' is "
                      "not one",
                      dnp_graph_name(g));
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

dnp_status c3_check_degrees(const dnp_config3d *cfg, const dnp_cluster *cl, dnp_error *err)
{
    const int t = cfg->tp, p = cfg->pp;
    const int64_t devices = dnp_cluster_devices(cl);
    if ((int64_t)t * p * cfg->dp != devices) {
        dnp_error_set(err, DNP_ERR_INPUT, "config tp %d x pp %d x dp %d = %lld devices, the "
                      "cluster has %lld", t, p, cfg->dp, (long long)t * p * cfg->dp,
                      (long long)devices);
        return DNP_ERR_INPUT;
    }
    if (p > DNP_CONFIG3D_MAX_STAGES) {
        dnp_error_set(err, DNP_ERR_INPUT, "config pp %d: at most %d pipeline stages", p,
                      DNP_CONFIG3D_MAX_STAGES);
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

dnp_status c3_prepare(const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                      const dnp_plan_options *opt, const dnp_config3d *cfg, c3_cache *cache,
                      c3_ctx *x, dnp_error *err)
{
    /* the model's layers and shape: from the cache when it holds them (the
     * search prepares thousands of configurations of one model), else
     * read from its structure (dnp_graph_transformer_layout) */
    dnp_transformer_layout *lay = NULL;
    c3_shape sh;
    memset(&sh, 0, sizeof sh);
    if (cache == NULL || !cache->valid) {
        dnp_status st = c3_read_model(g, &lay, &sh, err);
        if (st != DNP_OK) {
            memset(x, 0, sizeof *x);
            return st;
        }
    }
    if (lay != NULL && cache != NULL) {
        cache->L = sh.layers;
        cache->shape = sh;
    }
    c3_cache local = {0};
    if (cache == NULL) { /* the shape travels through a cache of this call alone */
        local.L = sh.layers;
        local.shape = sh;
    }
    dnp_status st =
        prepare(g, lay, NULL, cl, batch, opt, cfg, cache != NULL ? cache : &local, x, err);
    dnp_transformer_layout_free(lay);
    return st;
}

dnp_status c3_prepare_roles(const dnp_graph *g, const dnp_transformer_layout *lay,
                            const c3_shape *sh, const unsigned char *tp_role,
                            const dnp_cluster *cl, int64_t batch, const dnp_plan_options *opt,
                            const dnp_config3d *cfg, c3_ctx *x, dnp_error *err)
{
    c3_cache local = {0}; /* the shape travels through a cache of this call alone */
    local.L = sh->layers;
    local.shape = *sh;
    return prepare(g, lay, tp_role, cl, batch, opt, cfg, &local, x, err);
}

static dnp_status prepare(const dnp_graph *g, const dnp_transformer_layout *lay,
                          const unsigned char *tp_role, const dnp_cluster *cl, int64_t batch,
                          const dnp_plan_options *opt, const dnp_config3d *cfg, c3_cache *cache,
                          c3_ctx *x, dnp_error *err)
{
    memset(x, 0, sizeof *x);
    x->g = g;
    x->cl = cl;
    x->cfg = *cfg;
    x->batch = batch;
    x->optimizer = opt->optimizer;
    x->deadline_s = dnp_deadline_at(opt->time_limit_from_s, opt->time_limit_s);
    x->time_limit_s = opt->time_limit_s;
    x->L = cache->L;
    x->shape = cache->shape;
    const int emb = x->shape.embed_op;
    const int t = cfg->tp, p = cfg->pp, v = cfg->interleave;
    const int64_t mbs = cfg->microbatch;
    dnp_status dst = c3_check_degrees(cfg, cl, err);
    if (dst != DNP_OK)
        return dst;
    if (batch % ((int64_t)cfg->dp * mbs) != 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "batch %lld is not a multiple of dp %d x microbatch %lld",
                      (long long)batch, cfg->dp, (long long)mbs);
        return DNP_ERR_INPUT;
    }
    const int64_t m64 = batch / ((int64_t)cfg->dp * mbs);
    int uneven = cfg->n_stage_layers > 0;
    const int legacy = opt->megatron_version == DNP_MEGATRON_LEGACY;
    if (cfg->vp_group != 0 && (v < 2 || legacy)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "config: vp_group (Megatron-LM's "
                      "--microbatch-group-size-per-virtual-pipeline-stage) %s",
                      v < 2 ? "needs an interleaved schedule (interleave >= 2)"
                            : "is not in Megatron-Core core_r0.9 and earlier (--megatron-version "
                              "legacy): they need micro-batches a multiple of pp");
        return DNP_ERR_INPUT;
    }
    /* the interleaved schedule's micro-batch rule of the chosen Megatron-LM
     * (megatron/core/pipeline_parallel/schedules.py): core_r0.9.0 and
     * earlier, "number of microbatches ... is not divisible by
     * pipeline-model-parallel-size"; core_r0.10.0 on, groups of n
     * micro-batches with pp <= n <= m and m mod n either 0 or at least pp
     * (forward_backward_pipelining_with_interleaving) */
    const int64_t vgrp = cfg->vp_group ? cfg->vp_group : p;
    if (cfg->vp_group != 0 && m64 <= 1000000 &&
        (vgrp < p || vgrp > m64 || (m64 % vgrp != 0 && m64 % vgrp < p))) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "config: vp_group %d needs pp %d <= vp_group <= the micro-batches (%lld), "
                      "and the micro-batches mod vp_group (%lld) 0 or at least pp (Megatron-LM "
                      "schedules.py: a smaller last group leaves dependency bubbles)",
                      cfg->vp_group, p, (long long)m64,
                      (long long)(vgrp > 0 ? m64 % vgrp : 0));
        return DNP_ERR_INPUT;
    }
    if (m64 > 1000000 || (!uneven && x->L % (p * v) != 0) ||
        (v > 1 && (p < 2 || (cfg->vp_group == 0 && m64 % p != 0)))) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "config: %d layers must divide into pp %d x interleave %d chunks, and an "
                      "interleaved schedule needs pp >= 2 and micro-batches (%lld) a multiple "
                      "of pp (at most 1,000,000)",
                      x->L, p, v, (long long)m64);
        return DNP_ERR_INPUT;
    }
    if (uneven && (cfg->n_stage_layers != p || v != 1)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "config: layers= lists %d stages, pp is %d%s", cfg->n_stage_layers, p,
                      v != 1 ? ", and uneven stages need interleave 1" : "");
        return DNP_ERR_INPUT;
    }
    if (cfg->gpipe && v != 1) {
        dnp_error_set(err, DNP_ERR_INPUT, "config: the GPipe schedule needs interleave 1");
        return DNP_ERR_INPUT;
    }
    /* Megatron-LM's prerequisites of the overlaps (megatron/training/
     * arguments.py: "--overlap-param-gather only supported with distributed
     * optimizer", "Must use --overlap-param-gather with --overlap-grad-reduce",
     * "Tensor parallel communication/GEMM overlap can happen only when
     * sequence parallelism is enabled"; sequence parallelism is turned off at
     * tp 1) */
    const char *why = NULL;
    if (cfg->overlap_param && (cfg->zero != 1 || !cfg->overlap_grad))
        why = "overlap_param needs zero=1 (the distributed optimizer) and overlap_grad=1, as "
              "Megatron-LM's --overlap-param-gather does";
    else if (cfg->overlap_grad && cfg->zero >= 2)
        why = "overlap_grad applies to zero=0 or 1 (ZeRO-2/3's traffic is already overlapped "
              "layer by layer here)";
    else if (cfg->tp_overlap && (!cfg->seq_par || t < 2))
        why = "tp_overlap needs tp >= 2 and seq_par=1, as Megatron-LM's --tp-comm-overlap does";
    if (why != NULL) {
        dnp_error_set(err, DNP_ERR_INPUT, "config: %s", why);
        return DNP_ERR_INPUT;
    }
    x->m = m64;
    x->vp_group = (int)vgrp;
    x->grad_fp32 = cfg->grad_fp32 || opt->grad_fp32;
    /* stages onto ranks: stage s holds ranks [s t dp, (s+1) t dp) of the
     * cluster's devices in order (Megatron-LM's rank order,
     * megatron/core/parallel_state.py: tensor-parallel ranks fastest, then
     * data, then pipeline) */
    const int64_t width = (int64_t)t * cfg->dp;
    for (int s = 0; s < p; s++) {
        int64_t node;
        x->st[s].types = topo_types_strided(cl, s * width, width, 1);
        if (topo_locate(cl, s * width, &x->stage_type[s], &node) != 0)
            x->stage_type[s] = 0;
    }
    const dnp_op *e = dnp_graph_op(g, emb);
    x->hidden = (double)dnp_op_out_view(e).c;
    x->seq = (double)dnp_op_out_view(e).h;
    x->heads = x->shape.heads > 0 ? (double)x->shape.heads : 1.0;
    x->pace_max = 1.0;
    for (int i = 0; i < cl->n_types; i++) {
        c3_type *T = &x->ty[i];
        const dnp_device_type *d = &cl->types[i];
        T->d = d;
        perf_rates_get(d, opt->precision, &T->r);
        if (cache != NULL && cache->valid)
            T->r.pace = cache->pace[i]; /* the quadrature is most of a candidate's cost */
        else
            T->r.pace =
                opt->no_stragglers ? 1.0 : perf_straggler_pace(d->speed_cv, (double)cl->counts[i]);
        if (cache != NULL)
            cache->pace[i] = T->r.pace;
        if (T->r.pace > x->pace_max)
            x->pace_max = T->r.pace;
        x->peak_total_flops += (double)cl->counts[i] * T->r.peak_flops;
        if (cache != NULL && cache->valid) {
            T->lay = cache->part[i][0];
            T->pre = cache->part[i][1];
            T->post = cache->part[i][2];
        } else {
            part(g, lay, tp_role, mbs, &T->r, t, cfg->seq_par, C3_PART_LAYER, &T->lay);
            part(g, lay, tp_role, mbs, &T->r, t, cfg->seq_par, C3_PART_PRE, &T->pre);
            part(g, lay, tp_role, mbs, &T->r, t, cfg->seq_par, C3_PART_POST, &T->post);
            if (cache != NULL) {
                cache->part[i][0] = T->lay;
                cache->part[i][1] = T->pre;
                cache->part[i][2] = T->post;
            }
        }
        T->recompute_s = 0.0;
        if (cfg->recompute == DNP_RECOMPUTE_FULL)
            T->recompute_s = T->lay.fwd_s; /* the layer's forward again before its backward */
        else if (cfg->recompute == DNP_RECOMPUTE_SELECTIVE)
            T->recompute_s = T->lay.attn_core_fwd_s; /* scores, softmax, context (section 5) */
        /* activations per layer for b sequences of s tokens, h hidden, a
         * heads, t-way tensor parallelism (Korthikanti Table 2 and section
         * 4.1, whose 34 sbh + 5 as^2 b counts 2-byte activations and 1-byte
         * dropout masks), at this precision's activation bytes A and
         * with dropout only where the model has it:
         *   held by every tensor-parallel rank (split only by sequence
         *   parallelism): the two layer-norm inputs, the QKV and MLP inputs
         *   (4 A sbh) and the two hidden dropout masks (2 sbh);
         *   split t ways: Q, K, V, the projection input, the GeLU input
         *   and the fc2 input (1 + 1 + 1 + 1 + 4 + 4 = 12 A sbh), in
         *   general Q (1), K and V at kv_heads / heads each (grouped-query
         *   attention, Ainslie et al. 2023), the projection input (1) and
         *   the MLP's: GeLU's fc1 output and fc2 input (2 ffn / h), or
         *   SwiGLU's fused gate-and-up output (2 ffn / h, all that
         *   Megatron-LM's fused SwiGLUFunction saves, on by default:
         *   --no-bias-swiglu-fusion, megatron/core/fusions/
         *   fused_bias_swiglu.py) and the fc2 input (ffn / h);
         *   the attention's as^2 b: the softmax output (A) and, with
         *   attention dropout, its mask (1) and output (A), split t ways.
         * A = 2 with dropout gives Korthikanti's 10 + 24/t and 5 as^2 b.
         * A fused (flash) core keeps only its row statistics (Dao et al.
         * 2022, section 3.1): the s^2 terms vanish. */
        double sbh = (double)mbs * x->seq * x->hidden, as_h = x->heads * x->seq / x->hidden;
        const double A = T->r.act_bytes;
        const double rep = 4.0 * A + (x->shape.hidden_dropout > 0.0 ? 2.0 : 0.0);
        const double kv_per_q = x->shape.heads > 0 && x->shape.kv_heads > 0
                                    ? (double)x->shape.kv_heads / (double)x->shape.heads
                                    : 1.0;
        const double ffn_per_h = x->hidden > 0 && x->shape.ffn > 0
                                     ? (double)x->shape.ffn / (double)x->hidden
                                     : 4.0;
        const double split =
            A * (1.0 + 2.0 * kv_per_q + 1.0 + (x->shape.llama ? 3.0 : 2.0) * ffn_per_h);
        double s2 = A + (x->shape.attn_dropout > 0.0 ? A + 1.0 : 0.0);
        if (x->shape.flash) /* FlashAttention keeps no s x s tensor, one fp32 log-sum-exp per
                             * row instead: 4 a s b bytes = sbh x 4 a / h, split t ways */
            s2 = 4.0 / x->seq;
        if (cfg->recompute == DNP_RECOMPUTE_FULL)
            T->act_layer_bytes = A * sbh; /* the layer's input */
        else if (cfg->recompute == DNP_RECOMPUTE_SELECTIVE)
            T->act_layer_bytes = cfg->seq_par ? sbh * (rep + split) / t : sbh * (rep + split / t);
        else
            T->act_layer_bytes = cfg->seq_par ? sbh * (rep + split + s2 * as_h) / t
                                              : sbh * (rep + split / t + s2 * as_h / t);
        /* Megatron-LM's --fp16 / --bf16 train in mixed precision: the
         * optimizer updates fp32 master weights and state beside the 16-bit
         * copy (Micikevicius et al., "Mixed Precision Training", ICLR 2018),
         * so its update moves the amp traffic of docs/device-model.md */
        T->r_state = T->r;
        if (T->r.master_bytes < 4.0) {
            perf_rates_get(d, DNP_PREC_AMP, &T->r_state);
            T->r_state.pace = T->r.pace;
        }
        /* bytes per parameter in three classes, as Megatron-LM keeps them
         * (docs/source/distrib_optimizer.md, "Data flow"): the weights the
         * kernels read W, the gradient buffer the all-reduce moves G, and
         * the optimizer's own O (the fp32 master, an fp32 gradient copy
         * under fp16, the state tensors): fp16 2 + 2 + 16 = 20, bf16
         * 2 + 4 + 12 = 18 (gradients accumulated and reduced in fp32),
         * fp32 4 + 4 + 8 = 16 under Adam.  ZeRO shards them over the
         * data-parallel group by stage (Rajbhandari et al., "ZeRO", SC'20,
         * section 5: P_os, P_os+g, P_os+g+p; stage 1 is Megatron's
         * distributed optimizer, 4 + 16/d and 6 + 12/d bytes) */
        perf_rates r32;
        perf_rates_get(d, DNP_PREC_FP32, &r32);
        double n_state = (perf_bytes_per_param(opt->optimizer, &r32) - 8.0) / 4.0;
        int fp16 = opt->precision == DNP_PREC_FP16 || opt->precision == DNP_PREC_AMP ||
                   (opt->precision == DNP_PREC_DEFAULT && strcmp(d->dtype, "fp16") == 0);
        double own;
        if (T->r.master_bytes < 4) { /* a 16-bit training precision: mixed */
            T->weight_bytes_pp = 2.0;
            T->grad_bytes_pp = fp16 ? 2.0 : 4.0;
            own = 4.0 + (fp16 ? 4.0 : 0.0) + 4.0 * n_state;
        } else {
            T->weight_bytes_pp = 4.0;
            T->grad_bytes_pp = 4.0;
            own = 4.0 * n_state;
        }
        double dpn = (double)cfg->dp;
        T->bytes_per_param = T->weight_bytes_pp + T->grad_bytes_pp + own;
        if (cfg->zero == 1)
            T->bytes_per_param = T->weight_bytes_pp + T->grad_bytes_pp + own / dpn;
        else if (cfg->zero == 2)
            T->bytes_per_param = T->weight_bytes_pp + (T->grad_bytes_pp + own) / dpn;
        else if (cfg->zero == 3)
            T->bytes_per_param = (T->weight_bytes_pp + T->grad_bytes_pp + own) / dpn;
        /* DeepSpeed's fp32_allreduce casts each gradient bucket to fp32
         * for the all-reduce (deepspeed/runtime/engine.py, allreduce_bucket:
         * tensor.float() when fp32_allreduce), whatever the precision */
        T->grad_comm_bytes_pp = x->grad_fp32 ? 4.0 : T->grad_bytes_pp;
        T->capacity_bytes = opt->memory_limit_bytes > 0.0 ? opt->memory_limit_bytes : d->mem_bytes;
    }
    /* the word embedding: vocab x hidden, one 1/t shard per rank
     * (vocabulary-parallel, Shoeybi et al. section 3); GPT ties the output
     * layer to it (the logits a product with the table: the layout's
     * DNP_TF_HEAD_TIED, src/model/recognize.c), as
     * Megatron-LM does by default (--untie-embeddings-and-output-weights
     * unties) */
    dnp_op_cost ec;
    dnp_op_cost_get(g, emb, 1, &ec);
    x->word_params = (double)ec.params / t;
    x->tied = x->shape.tied;
    for (int s = 0; s < p; s++)
        stage_links(x, s);
    if (p > 1)
        for (int s = 0; s < p; s++) {
            x->st[s].to_next_s = message_s(x, s, (s + 1) % p);
            x->st[s].to_prev_s = message_s(x, s, (s + p - 1) % p);
        }
    /* the tied word-embedding gradient all-reduce between the first and
     * the last stage (Megatron-LM megatron/training.py
     * _allreduce_word_embedding_grads, later
     * megatron/core/distributed/finalize_model_grads.py
     * _allreduce_word_embedding_grads; DeepSpeed's pipeline engine likewise,
     * deepspeed/runtime/pipe/engine.py _exec_reduce_tied_grads): pp > 1
     * only, each rank of the first stage with the corresponding rank of the
     * last, the vocab x hidden / t gradient shard in the gradient's own
     * precision (the grad buffer itself: fp32_allreduce casts only the
     * data-parallel buckets), after the data-parallel all-reduce and before
     * the optimizer step */
    if (p > 1 && x->tied) {
        double gb = 0.0;
        for (int k = 0; k < cl->n_types; k++)
            if ((x->st[0].types | x->st[p - 1].types) & (1u << k))
                gb = fmax(gb, x->ty[k].grad_bytes_pp);
        dnp_comm_group list[C3_MAX_GROUPS], grp;
        int n = 0;
        memset(list, 0, sizeof list);
        for (int64_t i = 0; i < width; i++) {
            topo_group_strided(cl, i, 2, (int64_t)(p - 1) * width, &grp);
            grp_add(list, &n, &grp);
        }
        x->embed_sync_s = grp_max_s(DNP_COLL_ALLREDUCE, list, n, x->word_params * gb);
    }
    cache->valid = 1;
    return DNP_OK;
}

dnp_status c3_layers(const c3_ctx *x, int *layers, dnp_error *err)
{
    const dnp_config3d *c = &x->cfg;
    c3_stage_layers(c, x->L, layers); /* config3d_stages.c: the one stage rule */
    if (c->n_stage_layers == 0)
        return DNP_OK;
    int64_t sum = 0;
    for (int s = 0; s < c->pp; s++)
        sum += layers[s];
    if (sum != x->L) {
        dnp_error_set(err, DNP_ERR_INPUT, "config: layers= sums to %lld, the model has %d layers",
                      (long long)sum, x->L);
        return DNP_ERR_INPUT;
    }
    /* a stage without decoder layers: the first may hold only the
     * embedding, the last only the final norm and head (Megatron-Core's
     * custom pipeline layouts, "E|t*12|..."); one in the middle would hold
     * nothing */
    for (int s = 0; s < c->pp; s++)
        if (layers[s] == 0 && ((s > 0 && s < c->pp - 1) || c->pp == 1)) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "config: layers= gives stage %d of %d no layers; only the first stage "
                          "(embedding only) or the last (final norm and head only) may have 0",
                          s + 1, c->pp);
            return DNP_ERR_INPUT;
        }
    return DNP_OK;
}

/* Parameters held by one rank of stage s with `n` layers: its layers, the
 * embedding on the first stage, the final norm and output layer on the
 * last (Megatron-LM places them so).  With tied embeddings and pp > 1 the
 * last stage keeps its own copy of the word embedding for the output layer
 * (megatron/model/module.py, initialize_word_embeddings; kept equal by the
 * embedding gradient all-reduce), a full parameter with its gradient and
 * optimizer state. */
static double stage_params(const c3_ctx *x, int s, int n)
{
    const c3_type *T = &x->ty[x->stage_type[s]];
    const int last = s == x->cfg.pp - 1;
    return T->lay.params * n + (s == 0 ? T->pre.params : 0.0) + (last ? T->post.params : 0.0) +
           (last && s > 0 && x->tied ? x->word_params : 0.0);
}

/* Chunks rank s holds activations for at its peak: its warm-up forwards
 * and one more (Narayanan et al. section 2.2; for the first rank this is
 * Korthikanti's p (1 + (p - 1) / (p v)) layers' worth, section 4.2.3). */
static double chunks_in_flight(const c3_ctx *x, int s)
{
    int64_t w =
        warmup_units(s, x->cfg.pp, x->cfg.interleave, x->vp_group, x->m, x->cfg.gpipe) + 1;
    int64_t all = x->m * x->cfg.interleave;
    return (double)(w < all ? w : all);
}

int c3_balance(const c3_ctx *x, int *layers)
{
    const int p = x->cfg.pp, L = x->L;
    double load[DNP_CONFIG3D_MAX_STAGES], per[DNP_CONFIG3D_MAX_STAGES];
    int64_t cap[DNP_CONFIG3D_MAX_STAGES];
    if (p > L)
        return 0;
    for (int s = 0; s < p; s++) {
        const c3_stage *S = &x->st[s];
        per[s] = S->layer_f_s + S->layer_b_s;
        load[s] = (s == 0 ? S->pre_f_s + S->pre_b_s : 0.0) +
                  (s == p - 1 ? S->post_f_s + S->post_b_s : 0.0);
        cap[s] = L;
        /* memory: every device type of the stage within its own capacity */
        for (int k = 0; k < x->cl->n_types; k++) {
            const c3_type *T = &x->ty[k];
            if (!(S->types & (1u << k)) || !(T->capacity_bytes > 0.0))
                continue;
            double fixed = stage_params(x, s, 0) * T->bytes_per_param;
            double one = T->lay.params * T->bytes_per_param +
                         T->act_layer_bytes * chunks_in_flight(x, s);
            double room = T->capacity_bytes - fixed;
            int64_t c = room < one ? 0 : (int64_t)floor(room / one);
            cap[s] = c < cap[s] ? c : cap[s];
        }
        layers[s] = 1;
        load[s] += per[s];
    }
    int ok = 1;
    for (int s = 0; s < p; s++)
        ok &= cap[s] >= 1;
    for (int k = p; k < L && ok; k++) {
        int best = -1;
        for (int s = 0; s < p; s++)
            if (layers[s] < cap[s] && (best < 0 || load[s] + per[s] < load[best] + per[best]))
                best = s;
        if (best < 0) {
            ok = 0;
            break;
        }
        layers[best]++;
        load[best] += per[best];
    }
    if (!ok) /* does not fit: an even split for the footprint report */
        for (int s = 0; s < p; s++)
            layers[s] = L / p + (s < L % p);
    return ok;
}

/* ---- memory, bound and step -------------------------------------------- */

enum { PH_FWD = 0, PH_BWD, PH_SEND, PH_DP, PH_OPT, PH_EMB };

/* One change of a stage's activations in flight: +1 chunk at a forward's
 * start, -1 at its backward's end. */
typedef struct {
    double t_s;
    int delta;
} c3_live;

static int cmp_live(const void *a, const void *b)
{
    const c3_live *x = a, *y = b;
    if (x->t_s != y->t_s)
        return x->t_s < y->t_s ? -1 : 1;
    return x->delta - y->delta; /* at one instant, frees before allocations */
}

/* Stage s's memory counter track (docs/reports.md, "Timelines"): per device
 * type of the stage, the bytes one device holds as c3_eval accounts them
 * (Korthikanti Table 2, section 4.2.3): weights, gradients and optimizer
 * state throughout, plus act_layer_bytes x layers per chunk for every
 * chunk whose forward has started and whose backward has not ended.  Its
 * largest value is c3_eval's footprint of the stage (chunks_in_flight).
 * 0 or an allocation failure. */
static int c3_trace_memory(trace_buf *b, const c3_ctx *x, const int *layers,
                           const sim_graph *sg, int s, double end_s)
{
    const char *names[DNP_MAX_DEVICE_TYPES];
    double fixed[DNP_MAX_DEVICE_TYPES], chunk[DNP_MAX_DEVICE_TYPES], val[DNP_MAX_DEVICE_TYPES];
    int n = 0;
    for (int k = 0; k < x->cl->n_types; k++) {
        if (!(x->st[s].types & (1u << k)))
            continue;
        const c3_type *T = &x->ty[k];
        names[n] = x->cl->types[k].name;
        fixed[n] = stage_params(x, s, layers[s]) * T->bytes_per_param;
        chunk[n] = T->act_layer_bytes * ((double)layers[s] / x->cfg.interleave);
        n++;
    }
    int n_ev = 0;
    for (int t = 0; t < sg->n_tasks; t++) {
        const sim_task *tk = &sg->tasks[t];
        n_ev += tk->kind == SIM_COMPUTE && (tk->phase == PH_FWD || tk->phase == PH_BWD) &&
                sg->refs[tk->first_stream] == s;
    }
    c3_live *ev = dnp_malloc((size_t)(n_ev > 0 ? n_ev : 1) * sizeof *ev);
    if (ev == NULL)
        return -1;
    n_ev = 0;
    for (int t = 0; t < sg->n_tasks; t++) {
        const sim_task *tk = &sg->tasks[t];
        if (tk->kind != SIM_COMPUTE || (tk->phase != PH_FWD && tk->phase != PH_BWD) ||
            sg->refs[tk->first_stream] != s)
            continue;
        ev[n_ev].t_s = tk->phase == PH_FWD ? tk->start_s : tk->end_s;
        ev[n_ev++].delta = tk->phase == PH_FWD ? 1 : -1;
    }
    qsort(ev, (size_t)n_ev, sizeof *ev, cmp_live);
    static const char track[] = "memory per device (bytes)";
    for (int i = 0; i < n; i++)
        val[i] = fixed[i];
    if (n_ev == 0 || ev[0].t_s > 0.0) /* before the first forward */
        trace_counter(b, track, s + 1, 0.0, n, names, val);
    int live = 0;
    for (int e = 0; e < n_ev;) {
        double t_s = ev[e].t_s;
        for (; e < n_ev && ev[e].t_s == t_s; e++)
            live += ev[e].delta;
        for (int i = 0; i < n; i++)
            val[i] = fixed[i] + chunk[i] * live;
        trace_counter(b, track, s + 1, t_s, n, names, val);
    }
    if (end_s > (n_ev > 0 ? ev[n_ev - 1].t_s : 0.0))
        trace_counter(b, track, s + 1, end_s, n, names, val);
    dnp_free(ev);
    return 0;
}

/* The simulated step as Chrome trace events (Trace Event Format, Google,
 * docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU):
 * one process per pipeline stage (its first rank), threads for compute,
 * the two send streams, the overlapped data-parallel reduction and the
 * exposed tensor-parallel collectives; a flow arrow ("s" / "f") from each
 * pipeline send to the compute that receives it; a memory counter per
 * stage (c3_trace_memory).  A unit's exposed tensor-parallel time (two
 * collectives per layer each way, Shoeybi et al. section 3, interleaved
 * with the layer's GEMMs in the step) is drawn as one block at the end of
 * the unit on the collectives' thread, and the unit's compute event stops
 * where it begins. */
static char *c3_trace(const c3_ctx *x, const int *layers, const sim_graph *sg)
{
    const dnp_config3d *cfg = &x->cfg;
    const int p = cfg->pp, v = cfg->interleave, mi = (int)x->m;
    const int full = cfg->recompute == DNP_RECOMPUTE_FULL;
    trace_buf b;
    trace_begin(&b);
    /* thread ids 1..5: compute, sends each way, the overlapped data-parallel
     * reduction (overlap_grad), the tensor-parallel collectives (tp > 1) */
    const char *threads[5] = {"compute", "sends to the next stage",
                              "sends to the previous stage",
                              "data-parallel reduction (overlap_grad)",
                              cfg->seq_par ? "tensor-parallel AG/RS, exposed"
                                           : "tensor-parallel all-reduces, exposed"};
    double tp_f_s[DNP_CONFIG3D_MAX_STAGES], tp_b_s[DNP_CONFIG3D_MAX_STAGES];
    int first_layer[DNP_CONFIG3D_MAX_STAGES];
    for (int s = 0, acc = 0; s < p; s++) {
        char name[192], on[128] = "";
        const c3_stage *S = &x->st[s];
        first_layer[s] = acc;
        acc += layers[s];
        /* the exposed tensor-parallel time of one layer forward and backward
         * (stage_links; full recompute redoes the forward's) */
        double ef = fmax(0.0, S->tp_fwd_s - S->tp_hidden_f_s);
        double eb = fmax(0.0, S->tp_bwd_s - S->tp_hidden_b_s) + (full ? ef : 0.0);
        tp_f_s[s] = cfg->tp > 1 ? ef * ((double)layers[s] / v) : 0.0;
        tp_b_s[s] = cfg->tp > 1 ? eb * ((double)layers[s] / v) : 0.0;
        /* the stage's device types, "v100+t4" when it spans several */
        for (int k = 0, n = 0; k < x->cl->n_types; k++)
            if (S->types & (1u << k))
                n += snprintf(on + n, sizeof on - (size_t)n, "%s%s", n ? "+" : "",
                              x->cl->types[k].name),
                    n = n < (int)sizeof on ? n : (int)sizeof on - 1;
        snprintf(name, sizeof name, "stage %d: %d layers on %s (tp %d x dp %d ranks)", s + 1,
                 layers[s], on, cfg->tp, cfg->dp);
        trace_meta(&b, "process_name", s + 1, 0, name);
        for (int k = 0; k < 5; k++)
            if (k < 3 || (k == 3 && cfg->overlap_grad) || (k == 4 && cfg->tp > 1))
                trace_meta(&b, "thread_name", s + 1, k + 1, threads[k]);
    }
    for (int t = 0; t < sg->n_tasks; t++) {
        const sim_task *tk = &sg->tasks[t];
        if (!(tk->dur_s > 0.0))
            continue;
        int stream = sg->refs[tk->first_stream], s = stream % p, thread = stream / p;
        char name[160], range[64] = "";
        double tp_s = 0.0;
        if (tk->phase == PH_DP) {
            snprintf(name, sizeof name, "gradient all-reduce");
        } else if (tk->phase == PH_OPT) {
            snprintf(name, sizeof name, "optimizer");
        } else if (tk->phase == PH_EMB) {
            snprintf(name, sizeof name, "embedding gradient all-reduce with stage %d", p);
        } else {
            int vs = tk->label / mi, mb = tk->label % mi, chunk = vs / p;
            int lpc = layers[s] / v, lo = first_layer[s] + chunk * lpc;
            if (v > 1) /* chunk c of rank s holds layers of virtual stage c p + s */
                lo = vs * (x->L / (p * v));
            if (lpc > 0)
                snprintf(range, sizeof range, "layers %d-%d", lo + 1, lo + lpc);
            if (tk->phase == PH_SEND)
                snprintf(name, sizeof name, "micro-batch %d %s", mb + 1,
                         thread == 1 ? "activations" : "gradients");
            else if (lpc == 0) /* a stage of the embedding or the head only */
                snprintf(name, sizeof name, "micro-batch %d %s, %s", mb + 1,
                         tk->phase == PH_FWD ? "forward" : "backward",
                         s == 0 ? "embedding" : "final norm and head");
            else
                snprintf(name, sizeof name, "micro-batch %d %s, %s", mb + 1,
                         tk->phase == PH_FWD ? "forward" : "backward", range);
            if (tk->kind == SIM_COMPUTE && lpc > 0)
                tp_s = fmin(tk->dur_s, tk->phase == PH_FWD ? tp_f_s[s] : tp_b_s[s]);
        }
        double split_s = tk->end_s - tp_s;
        trace_event(&b, name, tk->kind == SIM_COMPUTE ? "compute" : "comm", s + 1, thread + 1,
                    tk->start_s, split_s);
        if (tp_s > 0.0) {
            int mb = tk->label % mi;
            /* "micro-batch 3 tensor-parallel fwd" (short: the collectives
             * are the thread's name, the layers the compute event's) */
            snprintf(name, sizeof name, "micro-batch %d tensor-parallel %s", mb + 1,
                     tk->phase == PH_FWD ? "fwd" : "bwd");
            trace_event(&b, name, "comm", s + 1, 5, split_s, tk->end_s);
        }
    }
    /* pipeline sends as flows: from the send (its middle) to the middle of
     * the compute event it feeds, id = the send's task index + 1 */
    for (int t = 0; t < sg->n_tasks; t++) {
        const sim_task *tk = &sg->tasks[t];
        if (tk->kind != SIM_COMPUTE || (tk->phase != PH_FWD && tk->phase != PH_BWD))
            continue;
        for (int d = 0; d < tk->n_deps; d++) {
            int k = sg->refs[tk->first_dep + d];
            const sim_task *snd = &sg->tasks[k];
            if (snd->phase != PH_SEND || !(snd->dur_s > 0.0))
                continue;
            int from = sg->refs[snd->first_stream], to = sg->refs[tk->first_stream];
            int mb = snd->label % mi;
            double tp_s = tk->phase == PH_FWD ? tp_f_s[to % p] : tp_b_s[to % p];
            double mid_s = tk->start_s + 0.5 * fmax(0.0, tk->dur_s - fmin(tk->dur_s, tp_s));
            char name[96];
            snprintf(name, sizeof name, "micro-batch %d %s", mb + 1,
                     from / p == 1 ? "activations" : "gradients");
            trace_flow(&b, 1, k + 1LL, name, "pipeline", from % p + 1, from / p + 1,
                       0.5 * (snd->start_s + snd->end_s));
            trace_flow(&b, 0, k + 1LL, name, "pipeline", to % p + 1, 1, mid_s);
        }
    }
    double end_s = 0.0;
    for (int t = 0; t < sg->n_tasks; t++)
        end_s = fmax(end_s, sg->tasks[t].end_s);
    for (int s = 0; s < p; s++)
        if (c3_trace_memory(&b, x, layers, sg, s, end_s) != 0)
            b.oom = 1;
    return trace_end(&b);
}

dnp_status c3_eval(const c3_ctx *x, const int *layers, int simulate, double *bound_s,
                   dnp_config3d_result *out, char **trace_json, dnp_error *err)
{
    memset(out, 0, sizeof *out);
    const dnp_config3d *cfg = &x->cfg;
    const int p = cfg->pp, v = cfg->interleave;
    const int64_t m = x->m;
    double dp_s[DNP_CONFIG3D_MAX_STAGES], opt_s[DNP_CONFIG3D_MAX_STAGES];
    /* the reduction and the all-gather of dp_s; what of it the end of the
     * step waits for (dp_end), and how much the overlaps lengthen the
     * last backward (stretch_b) and the first forward (stretch_f) */
    double dp_red[DNP_CONFIG3D_MAX_STAGES], dp_ag[DNP_CONFIG3D_MAX_STAGES];
    double dp_end[DNP_CONFIG3D_MAX_STAGES], stretch_b[DNP_CONFIG3D_MAX_STAGES];
    double stretch_f[DNP_CONFIG3D_MAX_STAGES], dp_fin[DNP_CONFIG3D_MAX_STAGES];
    /* overlap_grad per chunk kind (0: chunk 0, 1: a middle chunk, 2: chunk
     * v - 1): the last backward's lengthening and the reduction's tail */
    double g_st[DNP_CONFIG3D_MAX_STAGES][3], g_tail[DNP_CONFIG3D_MAX_STAGES][3];
    double fwd_offset = 0.0; /* the earliest start of stage s's first forward */
    double fwd_unit[DNP_CONFIG3D_MAX_STAGES], bwd_unit[DNP_CONFIG3D_MAX_STAGES];
    double to_next[DNP_CONFIG3D_MAX_STAGES], to_prev[DNP_CONFIG3D_MAX_STAGES];
    double worst = -1.0, bound = 0.0;
    out->fits = 1;
    out->straggler_pace = x->pace_max;
    for (int s = 0; s < p; s++) {
        const c3_stage *S = &x->st[s];
        out->stage_layers[s] = layers[s];
        out->stage_type[s] = x->stage_type[s];
        out->stage_types[s] = S->types;
        const double lpc = (double)layers[s] / v; /* layers per chunk */
        fwd_unit[s] = lpc * S->layer_f_s;
        bwd_unit[s] = lpc * S->layer_b_s;
        /* the gradient all-reduce over the stage's data-parallel groups and
         * the optimizer step of its parameters */
        double params = stage_params(x, s, layers[s]);
        const int same =
            s > 0 && S->types == x->st[s - 1].types && S->n_dp_grp == x->st[s - 1].n_dp_grp &&
            memcmp(S->dp_grp, x->st[s - 1].dp_grp, (size_t)S->n_dp_grp * sizeof *S->dp_grp) ==
                0 &&
            S->grad_comm_bytes_pp == x->st[s - 1].grad_comm_bytes_pp &&
            params == stage_params(x, s - 1, layers[s - 1]);
        if (same) {
            /* the same types, links and parameters as the previous stage:
             * the same end of step (most stages; saves the estimates) */
            dp_s[s] = dp_s[s - 1];
            dp_red[s] = dp_red[s - 1];
            dp_ag[s] = dp_ag[s - 1];
            opt_s[s] = opt_s[s - 1];
        } else {
            /* without ZeRO one all-reduce of the gradients; ZeRO-1 reduce-
             * scatters them and all-gathers the updated weights (the same
             * volume; Megatron-LM's distributed optimizer); ZeRO-2 has
             * reduce-scattered them layer by layer already, ZeRO-3 also
             * needs no weights gathered (ZeRO section 7); with ZeRO each
             * rank updates 1/dp of the parameters; the slowest of the
             * stage's t data-parallel groups paces it */
            const double dpn = (double)cfg->dp;
            const dnp_comm_group *G = S->dp_grp;
            const int nG = S->n_dp_grp;
            dp_red[s] = dp_ag[s] = 0.0;
            if (cfg->zero == 0)
                dp_red[s] = grp_max_s(DNP_COLL_ALLREDUCE, G, nG, params * S->grad_comm_bytes_pp);
            else if (cfg->zero == 1)
                dp_red[s] =
                    grp_max_s(DNP_COLL_REDUCE_SCATTER, G, nG, params * S->grad_comm_bytes_pp);
            if (cfg->zero == 1 || cfg->zero == 2)
                dp_ag[s] = grp_max_s(DNP_COLL_ALLGATHER, G, nG, params * S->weight_bytes_pp);
            dp_s[s] = dp_red[s] + dp_ag[s];
            opt_s[s] = 0.0;
            for (int k = 0; k < x->cl->n_types; k++)
                if (S->types & (1u << k))
                    opt_s[s] = fmax(opt_s[s], perf_optimizer_time_s(cfg->zero > 0 ? params / dpn
                                                                                  : params,
                                                                     x->optimizer,
                                                                     &x->ty[k].r_state));
        }
        /* Megatron-LM's overlaps of the data-parallel traffic with compute
         * (c3_grad_overlap_s, c3_param_overlap_s).  dp_fin: the traffic left
         * at the end of the step on the compute stream; dp_end: what the
         * end waits for after the last backward */
        dp_end[s] = dp_fin[s] = dp_s[s];
        stretch_b[s] = stretch_f[s] = 0.0;
        memset(g_st[s], 0, sizeof g_st[s]);
        memset(g_tail[s], 0, sizeof g_tail[s]);
        const double bucket = fmax(C3_BUCKET_PARAMS, C3_BUCKET_PARAMS_PER_DP * cfg->dp);
        const double nb = params > 0.0 ? ceil(params / bucket) : 0.0;
        const double last_params = params - (nb - 1.0) * bucket;
        double kslow = 1.0;
        for (int k = 0; k < x->cl->n_types; k++)
            if (S->types & (1u << k))
                kslow = fmax(kslow, c3_comm_slowdown(x->ty[k].d->sm_count));
        if (cfg->overlap_grad && cfg->dp > 1 && cfg->zero <= 1 && nb >= 1.0) {
            if (same && bwd_unit[s] == bwd_unit[s - 1] && s != p - 1 && s - 1 != 0) {
                memcpy(g_st[s], g_st[s - 1], sizeof g_st[s]);
                memcpy(g_tail[s], g_tail[s - 1], sizeof g_tail[s]);
            } else {
                /* each model chunk's gradients are reduced from the last
                 * backward of that chunk (the last micro-batch's; Megatron-LM
                 * enables each chunk's grad sync there, schedules.py), in its
                 * own buckets, on the data-parallel stream */
                const dnp_coll_op op =
                    cfg->zero == 1 ? DNP_COLL_REDUCE_SCATTER : DNP_COLL_ALLREDUCE;
                const double gb = S->grad_comm_bytes_pp;
                const c3_type *T = &x->ty[x->stage_type[s]];
                const double base = T->lay.params * ((double)layers[s] / v);
                const double extra_pre = s == 0 ? T->pre.params : 0.0;
                const double extra_post = params - base * v - extra_pre;
                for (int kind = 0; kind < 3; kind++) {
                    const int c = kind == 0 ? 0 : kind == 2 ? v - 1 : 1;
                    if ((kind == 2 && v == 1) || (kind == 1 && v < 3))
                        continue;
                    const double pc = base + (c == 0 ? extra_pre : 0.0) +
                                      (c == v - 1 ? extra_post : 0.0);
                    const double work = bwd_unit[s] + (s == 0 && c == 0 ? S->pre_b_s : 0.0) +
                                        (s == p - 1 && c == v - 1 ? S->post_b_s : 0.0);
                    const double nbc = pc > 0.0 ? ceil(pc / bucket) : 0.0;
                    if (nbc < 1.0)
                        continue;
                    const double lastc = pc - (nbc - 1.0) * bucket;
                    double c_full =
                        grp_max_s(op, S->dp_grp, S->n_dp_grp, fmin(bucket, pc) * gb);
                    double c_last = grp_max_s(op, S->dp_grp, S->n_dp_grp, lastc * gb);
                    g_tail[s][kind] = c3_grad_overlap_s(work, pc, bucket, c_full, c_last, kslow,
                                                        &g_st[s][kind]);
                }
            }
            stretch_b[s] = g_st[s][0] + (v > 1 ? g_st[s][2] : 0.0) +
                           (v > 2 ? (v - 2) * g_st[s][1] : 0.0);
            dp_fin[s] = dp_ag[s];
            dp_end[s] = g_tail[s][0] + dp_fin[s]; /* chunk 0's backward is the last */
        }
        if (cfg->overlap_param && cfg->dp > 1 && cfg->zero == 1 && nb >= 1.0) {
            const double wb = S->weight_bytes_pp;
            double c_full = grp_max_s(DNP_COLL_ALLGATHER, S->dp_grp, S->n_dp_grp,
                                      fmin(bucket, params) * wb);
            double c_last =
                grp_max_s(DNP_COLL_ALLGATHER, S->dp_grp, S->n_dp_grp, last_params * wb);
            /* the parameters are needed in the first forward of each chunk:
             * taken as spread over v forward units */
            double work = v * fwd_unit[s] + (s == 0 ? S->pre_f_s : 0.0);
            double d = c3_param_overlap_s(work, fwd_offset, params, bucket, c_full, c_last, kslow);
            stretch_f[s] = d;
            dp_end[s] -= dp_ag[s];
            dp_fin[s] -= dp_ag[s];
        }
        /* the earliest the next stage's first forward can start: after this
         * one's first forward and its message (a lower bound on the
         * simulated start, so param_overlap_s errs on the exposed side) */
        fwd_offset += fwd_unit[s] + (s == 0 ? S->pre_f_s : 0.0) + (p > 1 ? S->to_next_s : 0.0);
        /* memory of every device type of the stage: weights, gradients and
         * optimizer state, and the activations of the chunks in flight
         * (Korthikanti Table 2, section 4.2.3), against its own capacity */
        for (int k = 0; k < x->cl->n_types; k++) {
            if (!(S->types & (1u << k)))
                continue;
            const c3_type *T = &x->ty[k];
            double wb = params * T->bytes_per_param;
            double ab = T->act_layer_bytes * lpc * chunks_in_flight(x, s);
            double frac = T->capacity_bytes > 0.0 ? (wb + ab) / T->capacity_bytes : 0.0;
            if (T->capacity_bytes > 0.0 && wb + ab > T->capacity_bytes)
                out->fits = 0;
            if (frac > worst) {
                worst = frac;
                out->mem_stage = s;
                out->mem_weights_bytes = wb;
                out->mem_activation_bytes = ab;
                out->mem_bytes = wb + ab;
                out->mem_capacity_bytes = T->capacity_bytes;
            }
        }
        /* every rank runs m x v chunks forward and backward, then its
         * all-reduce, the embedding sync on the first and last stage, and
         * the update: a lower bound on the simulated step */
        double b = (double)m * v * (fwd_unit[s] + bwd_unit[s]) + stretch_f[s] + stretch_b[s] +
                   dp_end[s] + opt_s[s];
        if (s == 0 || s == p - 1)
            b += x->embed_sync_s;
        bound = b > bound ? b : bound;
        double tp = (double)m * layers[s] * (S->tp_fwd_s + S->tp_bwd_s + S->recompute_tp_s);
        out->tp_comm_s = tp > out->tp_comm_s ? tp : out->tp_comm_s;
        double tph = (double)m * layers[s] *
                     (S->tp_hidden_f_s + S->tp_hidden_b_s +
                      (cfg->recompute == DNP_RECOMPUTE_FULL ? S->tp_hidden_f_s : 0.0));
        out->tp_hidden_s = fmax(out->tp_hidden_s, tph);
        out->dp_comm_s = dp_end[s] > out->dp_comm_s ? dp_end[s] : out->dp_comm_s;
        out->dp_hidden_s =
            fmax(out->dp_hidden_s, dp_s[s] - dp_end[s] - stretch_b[s] - stretch_f[s]);
        out->optimizer_s = opt_s[s] > out->optimizer_s ? opt_s[s] : out->optimizer_s;
    }
    out->embed_sync_s = x->embed_sync_s;
    *bound_s = bound;
    out->microbatches = (int)m;
    if (!simulate)
        return DNP_OK;
    for (int s = 0; s < p; s++) {
        to_next[s] = p > 1 ? x->st[s].to_next_s : 0.0;
        to_prev[s] = p > 1 ? x->st[s].to_prev_s : 0.0;
        if (p > 1 && (v > 1 || s < p - 1))
            out->p2p_s = to_next[s] > out->p2p_s ? to_next[s] : out->p2p_s;
    }
    const c3_stage *first = &x->st[0], *lastS = &x->st[p - 1];
    /* the step simulator: per rank a compute stream and a send stream each way */
    const int V = p * v, units = (int)m * v * 2;
    const int mi = (int)m;
    sim_graph sg;
    /* streams: compute 0..p-1, sends to the next p..2p-1 and the previous
     * stage 2p..3p-1, the data-parallel reduction of overlap_grad 3p..4p-1 */
    sim_init(&sg, 4 * p);
    int *task_f = dnp_malloc((size_t)V * (size_t)m * sizeof *task_f);
    int *task_b = dnp_malloc((size_t)V * (size_t)m * sizeof *task_b);
    int *send_f = dnp_malloc((size_t)V * (size_t)m * sizeof *send_f);
    int *send_b = dnp_malloc((size_t)V * (size_t)m * sizeof *send_b);
    unit *sched = dnp_malloc((size_t)p * (size_t)units * sizeof *sched);
    int *next = dnp_calloc((size_t)p, sizeof *next), *last = dnp_malloc((size_t)p * sizeof *last);
    /* backwards done per (stage, chunk) and each stage's last reduction */
    int *b_done = dnp_calloc((size_t)p * (size_t)v, sizeof *b_done);
    int *last_dp = dnp_malloc((size_t)p * sizeof *last_dp);
    const int og = cfg->overlap_grad && cfg->dp > 1 && cfg->zero <= 1;
    dnp_status st = DNP_ERR_NOMEM;
    if (!task_f || !task_b || !send_f || !send_b || !sched || !next || !last || !b_done ||
        !last_dp)
        goto done;
    for (int i = 0; i < V * mi; i++)
        task_f[i] = task_b[i] = send_f[i] = send_b[i] = -1;
    for (int s = 0; s < p; s++) {
        rank_schedule(s, p, v, x->vp_group, mi, cfg->gpipe, &sched[(size_t)s * (size_t)units]);
        last[s] = last_dp[s] = -1;
    }
    double busy_max = 0.0;
    /* the deadline, read every 2^16 units issued (and once before) */
    for (int issued = 0, checked = -65536, total = p * units; issued < total;) {
        if (issued - checked >= 65536) {
            checked = issued;
            if (dnp_deadline_passed(x->deadline_s)) {
                st = DNP_ERR_INPUT;
                dnp_error_set(err, st,
                              "time limit of %g s reached while simulating the step of %s "
                              "(%d of %d micro-batch chunks issued): no result to report (a "
                              "larger --time-limit would do)",
                              x->time_limit_s, dnp_graph_name(x->g), issued, total);
                goto done;
            }
        }
        int progress = 0;
        for (int s = 0; s < p; s++) {
            while (next[s] < units) {
                const unit *u = &sched[(size_t)s * (size_t)units + (size_t)next[s]];
                int vs = u->chunk * p + s, at = vs * mi + u->mb;
                double extra_f =
                    (vs == 0 ? first->pre_f_s : 0.0) + (vs == V - 1 ? lastS->post_f_s : 0.0);
                double extra_b =
                    (vs == 0 ? first->pre_b_s : 0.0) + (vs == V - 1 ? lastS->post_b_s : 0.0);
                int cs = s, deps[2], nd = 0;
                if (u->fwd) {
                    if (vs > 0 && send_f[at - mi] < 0)
                        break; /* the input has not been sent yet */
                    if (vs > 0)
                        deps[nd++] = send_f[at - mi];
                    if (next[s] == 0) /* the parameter all-gather (overlap_param) */
                        extra_f += stretch_f[s];
                    task_f[at] = sim_add(&sg, SIM_COMPUTE, fwd_unit[s] + extra_f, at, PH_FWD,
                                         &cs, 1, deps, nd);
                    if (vs < V - 1) {
                        int ls = p + s;
                        send_f[at] = sim_add(&sg, SIM_COMM, to_next[s], at, PH_SEND, &ls, 1,
                                             &task_f[at], 1);
                    }
                } else {
                    if (vs < V - 1 && send_b[at + mi] < 0)
                        break;
                    deps[nd++] = task_f[at];
                    if (vs < V - 1)
                        deps[nd++] = send_b[at + mi];
                    /* the last backward of a chunk: its gradients reduced in
                     * buckets beside it (overlap_grad), the rest after it on
                     * the data-parallel stream */
                    const int kind = u->chunk == 0 ? 0 : u->chunk == v - 1 ? 2 : 1;
                    const int chunk_done = og && ++b_done[s * v + u->chunk] == mi;
                    if (chunk_done)
                        extra_b += g_st[s][kind];
                    task_b[at] = sim_add(&sg, SIM_COMPUTE, bwd_unit[s] + extra_b, at, PH_BWD,
                                         &cs, 1, deps, nd);
                    last[s] = task_b[at];
                    if (chunk_done) {
                        int ds = 3 * p + s;
                        last_dp[s] = sim_add(&sg, SIM_COMM, g_tail[s][kind], -1, PH_DP, &ds, 1,
                                             &task_b[at], 1);
                    }
                    if (vs > 0) {
                        int ls = 2 * p + s;
                        send_b[at] = sim_add(&sg, SIM_COMM, to_prev[s], at, PH_SEND, &ls, 1,
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
     * last backward (without overlap_grad; with it what is left: ZeRO-1's
     * all-gather unless overlap_param, after the reductions); with tied
     * embeddings and pp > 1 the first and last stage then all-reduce the
     * word-embedding gradient together (both wait for it); then the
     * optimizer step */
    int ar[DNP_CONFIG3D_MAX_STAGES];
    const int emb = p > 1 && x->embed_sync_s > 0.0;
    for (int s = 0; s < p; s++) {
        int cs = s, wait[2] = {last[s], last_dp[s]};
        ar[s] = sim_add(&sg, SIM_COMM, dp_fin[s], -1, PH_DP, &cs, 1, wait,
                        last_dp[s] >= 0 ? 2 : 1);
        if (!emb || (s > 0 && s < p - 1))
            sim_add(&sg, SIM_COMPUTE, opt_s[s], -1, PH_OPT, &cs, 1, &ar[s], 1);
    }
    if (emb) {
        int ends[2] = {0, p - 1}, deps[2] = {ar[0], ar[p - 1]};
        int e = sim_add(&sg, SIM_COMM, x->embed_sync_s, -1, PH_EMB, ends, 2, deps, 2);
        for (int k = 0; k < 2; k++)
            sim_add(&sg, SIM_COMPUTE, opt_s[ends[k]], -1, PH_OPT, &ends[k], 1, &e, 1);
    }
    if (sg.oom)
        goto done;
    out->step_time_s = sim_run(&sg);
    if (sg.oom)
        goto done;
    double busy[DNP_CONFIG3D_MAX_STAGES];
    sim_streams_busy_s(&sg, p, busy); /* the compute streams are 0 .. p-1 */
    for (int s = 0; s < p; s++)
        busy_max = busy[s] > busy_max ? busy[s] : busy_max;
    out->compute_busy_s = busy_max;
    out->bubble_s = out->step_time_s - busy_max;
    /* model FLOP: forward, backward and weight gradient of every GEMM,
     * 3 x the forward, recompute not counted (Narayanan et al. 3.5) */
    const c3_type *T0 = &x->ty[0];
    out->model_flop = 3.0 * (double)(x->batch / cfg->microbatch) *
                      ((double)x->L * T0->lay.fwd_flop + T0->pre.fwd_flop + T0->post.fwd_flop);
    out->mfu = out->model_flop / (out->step_time_s * x->peak_total_flops);
    out->tokens = (double)x->batch * x->seq;
    if (trace_json != NULL && (*trace_json = c3_trace(x, layers, &sg)) == NULL)
        goto done;
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
    dnp_free(b_done);
    dnp_free(last_dp);
    return st;
}
