/*
 * config3d_search.c - the fastest Megatron-LM configuration of a
 * transformer on a cluster, one device type or several, within memory
 * (docs/config3d.md, "Search"), and the baselines a mixed cluster is
 * compared with (docs/config3d.md, "Mixed clusters").
 */
#include "search/config3d_search.h"
#include "core/clock.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Does every device type's count divide by w (each stage on one type)? */
static int types_divide(const dnp_cluster *cl, int64_t w)
{
    for (int i = 0; i < cl->n_types; i++)
        if (cl->counts[i] % w != 0)
            return 0;
    return 1;
}

/* Prepare candidate c (with the cost cache entry) and, for 1F1B, give it
 * the balanced layers per stage (kept as an even split when they are
 * even).  Returns 0 if the configuration does not apply. */
static int cand_prepare(const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                        const dnp_plan_options *opt, dnp_config3d *c, c3_cache *cache,
                        c3_ctx *x, int *layers)
{
    dnp_error e = {0};
    c->n_stage_layers = 0;
    if (c->interleave == 1) {
        /* prepare with a provisional per-stage list so that any layer
         * count is accepted, then balance */
        c->n_stage_layers = c->pp;
        for (int s = 0; s < c->pp; s++)
            c->stage_layers[s] = 1;
    }
    if (c3_prepare(g, cl, batch, opt, c, cache, x, &e) != DNP_OK)
        return 0;
    if (c->interleave == 1) {
        c3_balance(x, layers);
        int even = x->L % c->pp == 0;
        for (int s = 0; s < c->pp && even; s++)
            even = layers[s] == x->L / c->pp;
        c->n_stage_layers = even ? 0 : c->pp;
        for (int s = 0; s < c->pp; s++)
            c->stage_layers[s] = even ? 0 : layers[s];
        x->cfg = *c;
        return 1;
    }
    return c3_layers(x, layers, &e) == DNP_OK;
}

/* A configuration not weighed yet (its layers, memory and bound not
 * computed): the fields the enumeration sets, its cost-cache entry, its
 * overlap variants and its compute floor (c3_compute_floor_s). */
typedef struct {
    int tp, pp, dp, interleave, recompute, seq_par, zero, vp_group, tp_overlap;
    int64_t microbatch;
    int cache;    /* index into the cost cache */
    int n_var;    /* overlap variants: 1, 2 (overlap_grad) or 3 (and overlap_param) */
    int order;    /* the first variant's enumeration index */
    double floor_s;
} c3_lazy;

static int lazy_cmp(const void *a, const void *b)
{
    const c3_lazy *x = a, *y = b;
    if (x->floor_s != y->floor_s)
        return x->floor_s < y->floor_s ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* l's configuration (overlap variants off, layers not set) into *c. */
static void lazy_config(const c3_lazy *l, dnp_config3d *c)
{
    dnp_config3d_defaults(c);
    c->tp = l->tp;
    c->pp = l->pp;
    c->dp = l->dp;
    c->microbatch = l->microbatch;
    c->interleave = l->interleave;
    c->recompute = (dnp_recompute)l->recompute;
    c->seq_par = l->seq_par;
    c->zero = l->zero;
    c->vp_group = l->vp_group;
    c->tp_overlap = l->tp_overlap;
}

/* c3_compute_floor_s (config3d_int.h).  c3_eval's bound is the largest
 * over the stages s of m x n_s x (layer_f_s + layer_b_s) plus the overlaps'
 * stretches, the end of the step, the update and the embedding sync (all
 * >= 0), n_s the stage's layers.  stage_links makes layer_f_s the largest
 * over the stage's types k of the kernel time lay_k.fwd_s plus the exposed
 * collectives (>= 0: c3_tp_ring_s, _pipe_s and _bulk_s never end before
 * their GEMM), layer_b_s likewise with the backward and the recompute; so
 * layer_f_s + layer_b_s >= tau_s, the largest over the stage's types of
 * fwd + bwd + recompute.  With v > 1 the stages are even (n_s = L / p):
 * floor m L / p max_s tau_s.  With 1F1B the n_s are integers summing to L:
 * max_s n_s tau_s >= L / sum_s (1 / tau_s) (every n_s <= T / tau_s for T
 * the maximum) and >= ceil(L / p) min_s tau_s.  The floor is shaved by
 * 1e-9 of itself against rounding (the bound sums the same terms in
 * another order).  Stage s holds ranks [s tp dp, (s + 1) tp dp) of the
 * types in the cluster's order (c3_prepare, topo_types_strided). */
double c3_compute_floor_s(const dnp_cluster *cl, const c3_cache *ce, int L, int tp, int pp,
                          int dp, int interleave, dnp_recompute rc, int64_t m)
{
    const int64_t w = (int64_t)tp * dp;
    double tau_max = 0.0, tau_min = INFINITY, inv_sum = 0.0;
    if (pp < 1 || L < 1 || !ce->valid)
        return 0.0;
    for (int s = 0; s < pp; s++) {
        const int64_t lo = s * w, hi = lo + w;
        double tau = 0.0;
        int64_t at = 0;
        for (int k = 0; k < cl->n_types; k++) {
            const int64_t n = cl->counts[k] > 0 ? cl->counts[k] : 0;
            if (at < hi && at + n > lo) {
                const c3_part *P = &ce->part[k][0];
                const double rec = rc == DNP_RECOMPUTE_FULL        ? P->fwd_s
                                   : rc == DNP_RECOMPUTE_SELECTIVE ? P->attn_core_fwd_s
                                                                   : 0.0;
                tau = fmax(tau, P->fwd_s + P->bwd_s + rec);
            }
            at += n;
        }
        if (!(tau > 0.0))
            return 0.0;
        tau_max = fmax(tau_max, tau);
        tau_min = fmin(tau_min, tau);
        inv_sum += 1.0 / tau;
    }
    double f;
    if (interleave > 1)
        f = (double)m * ((double)L / pp) * tau_max;
    else
        f = (double)m * fmax((double)L / inv_sum, (double)((L + pp - 1) / pp) * tau_min);
    f *= 1.0 - 1e-9;
    return isfinite(f) && f > 0.0 ? f : 0.0;
}

/* A binary min-heap of candidates by (bound, enumeration order). */
typedef struct {
    c3_cand *a;
    int n, cap;
} c3_heap;

/* Adds c to h.  Returns 0, or -1 out of memory.  O(log n). */
static int heap_push(c3_heap *h, const c3_cand *c)
{
    if (h->n == h->cap) {
        int cap = h->cap ? 2 * h->cap : 256;
        c3_cand *na = dnp_realloc(h->a, (size_t)cap * sizeof *na);
        if (na == NULL)
            return -1;
        h->a = na;
        h->cap = cap;
    }
    int i = h->n++;
    while (i > 0 && cand_cmp(c, &h->a[(i - 1) / 2]) < 0) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = *c;
    return 0;
}

/* Removes and returns the first of h (h->n > 0).  O(log n). */
static c3_cand heap_pop(c3_heap *h)
{
    c3_cand top = h->a[0];
    const c3_cand *last = &h->a[--h->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && cand_cmp(&h->a[c + 1], &h->a[c]) < 0)
            c++;
        if (cand_cmp(&h->a[c], last) >= 0)
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n > 0)
        h->a[i] = *last;
    return top;
}

/* Weighs l: prepares it (its layers balanced, cand_prepare), then each of
 * its overlap variants' memory and bound (c3_eval without simulating);
 * those within memory join h, the others' footprints go to
 * stats->smallest_mem_bytes.  Returns 0, or -1 out of memory.  O(ops x
 * types + pp x (devices / pp)) for the preparation. */
static int weigh(const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                 const dnp_plan_options *opt, const c3_lazy *l, c3_cache *cache, c3_ctx *x,
                 c3_heap *h, dnp_config3d_stats *stats)
{
    dnp_config3d c;
    int layers[DNP_CONFIG3D_MAX_STAGES];
    lazy_config(l, &c);
    stats->weighed += l->n_var;
    if (!cand_prepare(g, cl, batch, opt, &c, &cache[l->cache], x, layers))
        return 0;
    for (int var = 0; var < l->n_var; var++) {
        c.overlap_grad = var >= 1;
        c.overlap_param = var == 2;
        x->cfg.overlap_grad = c.overlap_grad;
        x->cfg.overlap_param = c.overlap_param;
        dnp_config3d_result r;
        double bound = 0.0;
        dnp_error e = {0};
        if (c3_eval(x, layers, 0, &bound, &r, NULL, &e) != DNP_OK)
            continue;
        if (!r.fits) {
            if (stats->smallest_mem_bytes == 0.0 || r.mem_bytes < stats->smallest_mem_bytes)
                stats->smallest_mem_bytes = r.mem_bytes;
            continue;
        }
        stats->fitting++;
        const c3_cand cd = {c, bound, l->order + var, l->cache};
        if (heap_push(h, &cd) != 0)
            return -1;
    }
    return 0;
}

/* Configuration c with its step, cost and layout as a compact point, its
 * per-stage layers appended to pool[*used..cap) (layers_at -1 when they do
 * not fit). */
static void point_of(const dnp_config3d *c, double step_s, double cost, int n_types,
                     const int *types, int *pool, int *used, int cap, dnp_config3d_point *o)
{
    memset(o, 0, sizeof *o);
    o->step_time_s = step_s;
    o->cost_per_step = cost;
    o->n_types = n_types;
    for (int i = 0; i < n_types && i < DNP_CONFIG3D_LAYOUT_TYPES; i++)
        o->types[i] = types[i];
    o->tp = c->tp;
    o->pp = c->pp;
    o->dp = c->dp;
    o->interleave = c->interleave;
    o->zero = c->zero;
    o->seq_par = c->seq_par;
    o->gpipe = c->gpipe;
    o->grad_fp32 = c->grad_fp32;
    o->overlap_grad = c->overlap_grad;
    o->overlap_param = c->overlap_param;
    o->tp_overlap = c->tp_overlap;
    o->vp_group = c->vp_group;
    o->microbatch = c->microbatch;
    o->recompute = c->recompute;
    o->n_stage_layers = c->n_stage_layers;
    o->layers_at = *used;
    if (c->n_stage_layers > cap - *used) {
        o->layers_at = -1;
        return;
    }
    for (int s = 0; s < c->n_stage_layers; s++)
        pool[(*used)++] = c->stage_layers[s];
}

/* Point p's configuration, its layers read from pool (see
 * dnp_config3d_point_config). */
static int point_config(const dnp_config3d_point *p, const int *pool, dnp_config3d *out)
{
    dnp_config3d_defaults(out);
    out->tp = p->tp;
    out->pp = p->pp;
    out->dp = p->dp;
    out->interleave = p->interleave;
    out->zero = p->zero;
    out->seq_par = p->seq_par;
    out->gpipe = p->gpipe;
    out->grad_fp32 = p->grad_fp32;
    out->overlap_grad = p->overlap_grad;
    out->overlap_param = p->overlap_param;
    out->tp_overlap = p->tp_overlap;
    out->vp_group = p->vp_group;
    out->microbatch = p->microbatch;
    out->recompute = p->recompute;
    if (p->n_stage_layers > 0 && p->layers_at < 0)
        return 0;
    out->n_stage_layers = p->n_stage_layers;
    for (int s = 0; s < p->n_stage_layers && s < DNP_CONFIG3D_MAX_STAGES; s++)
        out->stage_layers[s] = pool[p->layers_at + s];
    return 1;
}

int dnp_config3d_point_config(const dnp_config3d_stats *stats, int i, dnp_config3d *out)
{
    if (i < 0 || i >= stats->n_pareto) {
        dnp_config3d_defaults(out);
        return 0;
    }
    return point_config(&stats->pareto[i], stats->pareto_layers, out);
}

/* Insert e into the ranked list top[0..*n) (fastest first, at most k
 * entries; a tie goes after the entries already there).  O(k). */
static void c3_rank_insert(dnp_config3d_ranked *top, int *n, int k,
                           const dnp_config3d_ranked *e)
{
    int pos = *n;
    while (pos > 0 && e->step_time_s < top[pos - 1].step_time_s)
        pos--;
    if (pos >= k)
        return;
    int last = *n < k ? *n : k - 1;
    for (int j = last; j > pos; j--)
        top[j] = top[j - 1];
    top[pos] = *e;
    if (*n < k)
        (*n)++;
}

/* dnp_config3d_search with an incumbent: only configurations whose step
 * is below cutoff_s are sought (the branch and bound stops at the cutoff
 * too).  When none is, DNP_OK with stats->n_top 0 and *best, *best_res
 * untouched.  INFINITY: the plain search. */
static dnp_status search_below(const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                               const dnp_plan_options *opt, double cutoff_s, int use_floor,
                               dnp_config3d *best, dnp_config3d_result *best_res,
                               dnp_config3d_stats *stats, dnp_error *err);

/* One line of stats->narrowed (the last slot says that more were left
 * out when they do not all fit). */
static void narrow(dnp_config3d_stats *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void narrow(dnp_config3d_stats *st, const char *fmt, ...)
{
    if (st->n_narrowed >= DNP_CONFIG3D_MAX_NARROWED)
        return;
    char *line = st->narrowed[st->n_narrowed++];
    if (st->n_narrowed == DNP_CONFIG3D_MAX_NARROWED) {
        snprintf(line, DNP_CONFIG3D_NARROWED_LEN, "(further rules left out)");
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, DNP_CONFIG3D_NARROWED_LEN, fmt, ap);
    va_end(ap);
}

/* The tensor-parallel degrees one rule left out, as one line. */
typedef struct {
    int kind;
    int n;
    int64_t t[20];
    char why[400];
} tp_out;

static void tp_left_out(tp_out *outs, int *n_outs, int kind, int64_t t, const char *why)
{
    for (int i = 0; i < *n_outs; i++)
        if (outs[i].kind == kind) {
            if (outs[i].n < 20)
                outs[i].t[outs[i].n++] = t;
            return;
        }
    tp_out *o = &outs[(*n_outs)++];
    o->kind = kind;
    o->n = 1;
    o->t[0] = t;
    snprintf(o->why, sizeof o->why, "%s", why);
}

static void narrow_tp(dnp_config3d_stats *st, const tp_out *o, const char *what)
{
    char list[256];
    size_t k = 0;
    list[0] = '\0';
    for (int i = 0; i < o->n && k < sizeof list; i++) {
        if (o->n > 4 && i >= 2 && i < o->n - 1)
            continue; /* "64, 128, ..., 16384" */
        int w = snprintf(list + k, sizeof list - k, "%s%lld",
                         i == 0 ? "" : o->n > 4 && i == o->n - 1 ? ", ..., " : ", ",
                         (long long)o->t[i]);
        if (w < 0)
            break;
        k += (size_t)w;
    }
    narrow(st, "%s %s left out: %s", what, list, o->why);
}

dnp_status dnp_config3d_search(const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                               const dnp_plan_options *opt, dnp_config3d *best,
                               dnp_config3d_result *best_res, dnp_config3d_stats *stats,
                               dnp_error *err)
{
    return search_below(g, cl, batch, opt, INFINITY, 1, best, best_res, stats, err);
}

dnp_status c3_search_unpruned(const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                              const dnp_plan_options *opt, dnp_config3d *best,
                              dnp_config3d_result *best_res, dnp_config3d_stats *stats,
                              dnp_error *err)
{
    return search_below(g, cl, batch, opt, INFINITY, 0, best, best_res, stats, err);
}

static dnp_status search_below(const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                               const dnp_plan_options *opt, double cutoff_s, int use_floor,
                               dnp_config3d *best, dnp_config3d_result *best_res,
                               dnp_config3d_stats *stats, dnp_error *err)
{
    memset(stats, 0, sizeof *stats);
    stats->layouts = 1;
    /* --time-limit: enumeration and simulation stop when the command's
     * one deadline passes (from time_limit_from_s, else this call's start) */
    const double limit_at_s = dnp_deadline_at(opt->time_limit_from_s, opt->time_limit_s);
    const double deadline_s = limit_at_s > 0.0 ? limit_at_s : INFINITY;
    /* the model's layers and shape, by structure (c3_shape_of) */
    c3_shape sh;
    const int recognised = c3_shape_of(g, &sh);
    const int L = sh.layers;
    const int64_t devices = dnp_cluster_devices(cl);
    if (!recognised) {
        dnp_config3d probe;
        dnp_config3d_defaults(&probe);
        probe.tp = (int)(devices < 1048576 ? devices : 1);
        return dnp_config3d_simulate(g, cl, batch, opt, &probe, best_res, err) == DNP_OK
                   ? DNP_ERR_INTERNAL
                   : err->status;
    }
    double min_capacity = INFINITY;
    for (int i = 0; i < cl->n_types; i++) {
        double cap = opt->memory_limit_bytes > 0 ? opt->memory_limit_bytes : cl->types[i].mem_bytes;
        min_capacity = cap < min_capacity ? cap : min_capacity;
    }
    narrow(stats, "the space: tp in powers of two, micro-batches of 1 to 32 sequences in "
                  "powers of two, 1 to 8 chunks per rank (even stages), ZeRO 0 or 1, the 1F1B "
                  "or interleaved schedule (no GPipe), overlap_grad and overlap_param off or "
                  "on, tp_overlap on with sequence parallelism");
    if (opt->config3d_space == DNP_CONFIG3D_SPACE_AMP)
        narrow(stats, "AMP's space: no ZeRO, sequence parallelism, interleaving or recompute");
    /* tensor-parallel degrees: powers of two that dnp_config3d_check's
     * rules allow (the same c3_rule_tp) and that divide every type's count
     * (each stage on one type); cost cache: tp x sequence parallelism x
     * micro-batch size */
    int n_tp = 0, tps[16], sp_ok[16];
    tp_out outs[8], sp_outs[8];
    int n_outs = 0, n_sp_outs = 0;
    for (int64_t t = 1; t <= devices && n_tp < 16 && t <= (1 << 20); t *= 2) {
        char why[400];
        int kind = c3_rule_tp(g, &sh, cl, (int)t, 0, opt->tp_across_nodes, why, sizeof why);
        if (kind == C3_RULE_OK && !types_divide(cl, t)) {
            kind = 100;
            snprintf(why, sizeof why, "not a divisor of every device type's count (a "
                     "tensor-parallel group stays on one type)");
        }
        if (kind != C3_RULE_OK) {
            if (n_outs < 8)
                tp_left_out(outs, &n_outs, kind, t, why);
            continue;
        }
        sp_ok[n_tp] = t == 1 || c3_rule_tp(g, &sh, cl, (int)t, 1, opt->tp_across_nodes, why,
                                           sizeof why) == C3_RULE_OK;
        if (!sp_ok[n_tp] && n_sp_outs < 8)
            tp_left_out(sp_outs, &n_sp_outs, C3_RULE_SEQ, t, why);
        tps[n_tp++] = (int)t;
    }
    for (int i = 0; i < n_outs; i++)
        narrow_tp(stats, &outs[i], "tp");
    for (int i = 0; i < n_sp_outs; i++)
        narrow_tp(stats, &sp_outs[i], "sequence parallelism at tp");
    int pp_max = L < DNP_CONFIG3D_MAX_STAGES ? L : DNP_CONFIG3D_MAX_STAGES;
    if (n_tp > 0 && devices / tps[0] > pp_max)
        narrow(stats, "pp at most %d (%s)", pp_max,
               pp_max == L ? "one layer per stage at least" : "the simulator's stage limit");
    int dp_batch = 0, dp_types = 0, vp_rule_out = 0;
    c3_cache *cache = dnp_calloc((size_t)(n_tp > 0 ? n_tp : 1) * 2 * C3_MAX_MB_CHOICES,
                                 sizeof *cache);
    c3_heap heap = {NULL, 0, 0};
    c3_lazy *lazy = NULL;
    c3_ctx *x = dnp_malloc(sizeof *x);
    int n_lazy = 0, lazy_cap = 0;
    dnp_status st = DNP_ERR_NOMEM;
    if (cache == NULL || x == NULL)
        goto done;
    int order = 0;
    for (int it = 0; it < n_tp; it++) {
        int t = tps[it];
        for (int p = 1; p <= L && p <= DNP_CONFIG3D_MAX_STAGES && (int64_t)t * p <= devices; p++) {
            if (devices % ((int64_t)t * p) != 0)
                continue;
            int64_t dp = devices / ((int64_t)t * p);
            if (batch % dp != 0 ||
                (opt->config3d_space == DNP_CONFIG3D_SPACE_UNIFORM &&
                 !types_divide(cl, (int64_t)t * dp))) {
                dp_batch += batch % dp != 0;
                dp_types += batch % dp == 0;
                continue;
            }
            for (int im = 0; im < C3_MAX_MB_CHOICES; im++) {
                int64_t mb = (int64_t)1 << im;
                if ((batch / dp) % mb != 0)
                    continue;
                int64_t m = batch / dp / mb;
                const int amp = opt->config3d_space == DNP_CONFIG3D_SPACE_AMP;
                for (int v = 1; v <= (amp ? 1 : C3_MAX_V); v++) {
                    if (v > 1 && (L % p != 0 || (L / p) % v != 0 || p < 2 || m < p))
                        continue;
                    /* the interleaved schedule's micro-batch rule of the
                     * chosen Megatron-LM (dnp_config3d_check): m a multiple
                     * of pp, or (core_r0.10.0 on) the smallest micro-batch
                     * group n >= pp with m mod n 0 or at least pp (n = m
                     * always is one) */
                    int vgrp = 0;
                    if (v > 1 && m % p != 0) {
                        if (opt->megatron_version == DNP_MEGATRON_LEGACY) {
                            vp_rule_out++;
                            continue;
                        }
                        for (int64_t n = p + 1; n <= m && vgrp == 0; n++)
                            if (m % n == 0 || m % n >= p)
                                vgrp = (int)n;
                    }
                    for (int rc = 0; rc < (amp ? 1 : DNP_RECOMPUTE_COUNT); rc++)
                        for (int sp = 0; sp <= (t > 1 && sp_ok[it] && !amp); sp++)
                        for (int z = 0; z <= (dp > 1 && !amp ? 1 : 0); z++) {
                            c3_lazy l;
                            memset(&l, 0, sizeof l);
                            l.tp = t;
                            l.pp = p;
                            l.dp = (int)dp;
                            l.microbatch = mb;
                            l.interleave = v;
                            l.recompute = rc;
                            l.seq_par = sp;
                            l.zero = z;
                            l.vp_group = vgrp;
                            /* --tp-comm-overlap wherever it applies: in this
                             * model it never lengthens a layer nor adds memory
                             * (docs/config3d.md, "Schedules and overlaps"), so
                             * the configuration without it is never faster */
                            l.tp_overlap = sp && t > 1 && !amp;
                            l.cache = (it * 2 + sp) * C3_MAX_MB_CHOICES + im;
                            /* the data-parallel overlaps change only the end
                             * and the ends of the step (c3_eval): each variant
                             * on the prepared configuration, overlap_grad off
                             * and on, and with ZeRO-1 overlap_param too */
                            l.n_var = dp > 1 && !amp ? (z == 1 ? 3 : 2) : 1;
                            l.order = order;
                            if ((stats->candidates & 31) == 0 && dnp_now_s() > deadline_s) {
                                stats->time_limit_hit = 1;
                                goto enumerated;
                            }
                            stats->candidates += l.n_var;
                            order += l.n_var;
                            if (use_floor && cache[l.cache].valid) {
                                /* weighed later, if its floor is below the
                                 * best step by then */
                                l.floor_s = c3_compute_floor_s(cl, &cache[l.cache], L, t, p,
                                                               (int)dp, v, (dnp_recompute)rc,
                                                               m);
                                if (n_lazy == lazy_cap) {
                                    lazy_cap = lazy_cap ? 2 * lazy_cap : 256;
                                    c3_lazy *nl =
                                        dnp_realloc(lazy, (size_t)lazy_cap * sizeof *nl);
                                    if (nl == NULL)
                                        goto done;
                                    lazy = nl;
                                }
                                lazy[n_lazy++] = l;
                                continue;
                            }
                            /* the first of its cost-cache entry (which it
                             * fills), or every one without the floor: now */
                            if (weigh(g, cl, batch, opt, &l, cache, x, &heap, stats) != 0)
                                goto done;
                        }
                }
            }
        }
    }
enumerated:
    if (vp_rule_out > 0)
        narrow(stats, "interleaving with micro-batches not a multiple of pp (Megatron-Core "
                      "core_r0.9 and earlier, --megatron-version legacy): %d left out",
               vp_rule_out);
    if (dp_batch > 0)
        narrow(stats, "dp must divide the batch of %lld: %d (tp, pp) pairs left out",
               (long long)batch, dp_batch);
    if (dp_types > 0)
        narrow(stats, "each stage on one device type (the one-type-stage space: tp x dp "
                      "divides every type's count): %d (tp, pp) pairs left out", dp_types);
    /* branch and bound, best first: simulate in order of the lower bound
     * (ties: enumeration order) until the bound reaches the best simulated
     * step, or with config3d_top = k the k-th best (exact for every k: a
     * step is never below its bound, so no unsimulated configuration can
     * beat it).  The configurations not weighed yet wait in order of their
     * compute floor (never above their bound): the heap's first is the
     * next in bound order only when its bound is below the next floor,
     * else the next configuration is weighed; so the simulations, their
     * order and the result are those of weighing everything first, and a
     * configuration whose floor reaches the best step is never weighed */
    if (n_lazy > 1)
        qsort(lazy, (size_t)n_lazy, sizeof *lazy, lazy_cmp);
    const int k_top = opt->config3d_top < 1                      ? 1
                      : opt->config3d_top > DNP_CONFIG3D_TOP_MAX ? DNP_CONFIG3D_TOP_MAX
                                                                 : opt->config3d_top;
    double best_s = INFINITY;
    int li = 0;
    for (;;) {
        const double theta = fmin(cutoff_s, stats->n_top < k_top
                                                ? INFINITY
                                                : stats->top[k_top - 1].step_time_s);
        const double next_floor_s = li < n_lazy ? lazy[li].floor_s : INFINITY;
        if (heap.n > 0 && heap.a[0].bound_s < next_floor_s) {
            if (!(heap.a[0].bound_s < theta))
                break;
            if (stats->n_top > 0 && dnp_now_s() > deadline_s) {
                stats->time_limit_hit = 1; /* the best weighed so far */
                break;
            }
            c3_cand c = heap_pop(&heap);
            /* simulated on the configuration with its cost cache: the cost
             * code the 3D lowering (sim/lower3d.c, c3_lower) drives for a
             * strategy, at a fraction of the instructions (no strategy
             * built and read back per candidate); unit
             * lower3d_equals_the_configuration checks both give the same
             * doubles.  What the user is shown is lowered from the strategy
             * (dnp_config3d_simulate -> sim_lower). */
            dnp_config3d_result r;
            dnp_error e = {0};
            double bound;
            int lay[DNP_CONFIG3D_MAX_STAGES];
            st = c3_prepare(g, cl, batch, opt, &c.cfg, &cache[c.cache], x, &e);
            if (st == DNP_OK)
                st = c3_layers(x, lay, &e);
            if (st == DNP_OK)
                st = c3_eval(x, lay, 1, &bound, &r, NULL, &e);
            if (st != DNP_OK) {
                dnp_error_set(err, st, "%s", e.msg);
                goto done;
            }
            stats->simulated++;
            if (r.step_time_s < best_s) {
                best_s = r.step_time_s;
                *best = c.cfg;
                *best_res = r;
            }
            dnp_config3d_ranked e_rank;
            memset(&e_rank, 0, sizeof e_rank);
            e_rank.cfg = c.cfg;
            e_rank.step_time_s = r.step_time_s;
            c3_rank_insert(stats->top, &stats->n_top, k_top, &e_rank);
            continue;
        }
        if (li >= n_lazy || !(next_floor_s < theta))
            break;
        if ((li & 31) == 0 && dnp_now_s() > deadline_s) {
            stats->time_limit_hit = 1;
            n_lazy = li; /* the rest is not weighed: the best weighed so far */
            continue;
        }
        if (weigh(g, cl, batch, opt, &lazy[li++], cache, x, &heap, stats) != 0)
            goto done;
    }
    if (stats->n_top > 0) {
        /* the figures shown are the one lowering's: the best configuration
         * as a strategy, lowered (dnp_config3d_simulate -> sim_lower) */
        dnp_config3d_result lowered;
        dnp_error e = {0};
        st = dnp_config3d_simulate(g, cl, batch, opt, best, &lowered, &e);
        if (st == DNP_OK)
            *best_res = lowered;
        else
            dnp_error_set(err, st, "%s", e.msg);
        goto done;
    }
    if (stats->fitting == 0 && stats->time_limit_hit) {
        st = DNP_ERR_INPUT;
        dnp_error_set(err, st,
                      "the --time-limit of %g s ran out before any configuration of %s fitted "
                      "(%d enumerated)",
                      opt->time_limit_s, dnp_graph_name(g), stats->candidates);
        goto done;
    }
    if (stats->fitting > 0 || li < n_lazy) {
        st = DNP_OK; /* nothing below the cutoff */
        goto done;
    }
    if (stats->smallest_mem_bytes == 0.0) {
        /* nothing was left to weigh: say what narrowed the space */
        st = DNP_ERR_INPUT;
        char why[300] = "";
        size_t k = 0;
        int more = 0;
        /* the last rules first (the data-parallel ones leave most out),
         * whole lines only */
        for (int i = stats->n_narrowed - 1; i >= 1; i--) {
            size_t len = strlen(stats->narrowed[i]) + (k ? 2 : 0);
            if (more || k + len >= sizeof why) {
                more++;
                continue;
            }
            snprintf(why + k, sizeof why - k, "%s%s", k ? "; " : "", stats->narrowed[i]);
            k += len;
        }
        if (more)
            snprintf(why + k, sizeof why - k, "; and %d more rule%s", more,
                     more > 1 ? "s" : "");
        dnp_error_set(err, st, "no configuration of %s at batch %lld on %lld devices is in the "
                      "search's space%s%s", dnp_graph_name(g), (long long)batch,
                      (long long)devices, why[0] ? ": " : "", why);
        goto done;
    }
    st = DNP_ERR_INPUT;
    dnp_error_set(err, st,
                  "no configuration of %s at batch %lld fits in %.3g GB per device on %lld "
                  "devices: the smallest needs %.3g GB",
                  dnp_graph_name(g), (long long)batch, min_capacity / 1e9, (long long)devices,
                  stats->smallest_mem_bytes / 1e9);
done:
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory searching configurations");
    dnp_free(cache);
    dnp_free(heap.a);
    dnp_free(lazy);
    dnp_free(x);
    return st;
}

/* Next permutation of idx[0..n) in lexicographic order; 0 after the last. */
static int next_perm(int *idx, int n)
{
    int i = n - 2;
    while (i >= 0 && idx[i] >= idx[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = n - 1;
    while (idx[j] <= idx[i])
        j--;
    int t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
    for (int a = i + 1, b = n - 1; a < b; a++, b--) {
        t = idx[a];
        idx[a] = idx[b];
        idx[b] = t;
    }
    return 1;
}

static int popcount(unsigned x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

/* GEMM work of one step of g at `batch`: the forward products of every
 * conv, FC and matmul and the weight gradients of the convs and FCs
 * (FLOP; the backward's input gradients left out), which no plan avoids:
 * a lower bound on the work the devices share, at most peak x compute_eff
 * FLOP/s each (device_model.c kernel_q). */
static double gemm_work_flop(const dnp_graph *g, int64_t batch)
{
    double w = 0.0;
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind != DNP_OP_CONV && op->kind != DNP_OP_FC && op->kind != DNP_OP_MATMUL)
            continue;
        dnp_op_cost c;
        dnp_op_cost_get(g, i, batch, &c);
        w += (double)c.fwd_flop + (op->kind != DNP_OP_MATMUL ? (double)c.grad_flop : 0.0);
    }
    return w;
}

/* The most FLOP/s the devices of cluster c can give a GEMM at precision p:
 * the sum of their peaks x compute ceilings. */
static double gemm_rate_flops(const dnp_cluster *c, dnp_precision p)
{
    double rate = 0.0;
    for (int t = 0; t < c->n_types; t++) {
        perf_rates r;
        perf_rates_get(&c->types[t], p, &r);
        rate += (double)c->counts[t] * r.peak_flops * r.compute_eff;
    }
    return rate;
}

dnp_status dnp_config3d_search_layouts(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                                       const dnp_plan_options *opt, dnp_config3d *best,
                                       dnp_config3d_result *best_res, dnp_cluster *used,
                                       dnp_config3d_stats *stats, dnp_error *err)
{
    const int k = c->n_types;
    const int by_cost = opt->config3d_objective == 1 || opt->config3d_deadline_s > 0.0;
    int priced = 1;
    for (int t = 0; t < k; t++)
        priced &= c->types[t].price_per_hour > 0.0;
    if (by_cost && !priced) {
        for (int t = 0; t < k; t++)
            if (!(c->types[t].price_per_hour > 0.0)) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "the cost objective needs price= on every device type "
                              "(price_per_hour in cluster JSON): '%s' has none",
                              c->types[t].name);
                break;
            }
        return DNP_ERR_INPUT;
    }
    if (k < 2 || k > DNP_CONFIG3D_LAYOUT_TYPES) {
        *used = *c;
        dnp_status st1 = dnp_config3d_search(g, c, batch, opt, best, best_res, stats, err);
        if (st1 == DNP_OK && priced) {
            double rate = 0.0;
            for (int t = 0; t < k; t++)
                rate += c->types[t].price_per_hour * (double)c->counts[t];
            stats->price_per_hour = rate;
            stats->cost_per_step = rate * best_res->step_time_s / 3600.0;
            stats->n_pareto = 1;
            int pool_used = 0;
            point_of(&stats->top[0].cfg, stats->top[0].step_time_s, stats->cost_per_step,
                     stats->top[0].n_types, stats->top[0].types, stats->pareto_layers,
                     &pool_used,
                     DNP_CONFIG3D_PARETO_LAYERS, &stats->pareto[0]);
        }
        if (st1 == DNP_OK && opt->config3d_deadline_s > 0.0 &&
            best_res->step_time_s > opt->config3d_deadline_s) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "no plan meets the deadline of %g s: the fastest step takes %g s",
                          opt->config3d_deadline_s, best_res->step_time_s);
            return DNP_ERR_INPUT;
        }
        return st1;
    }
    memset(stats, 0, sizeof *stats);
    /* each layout's fastest plan, for the objectives and the Pareto front */
    /* (compact: their layers in lay_layers) */
    dnp_config3d_point lay[DNP_CONFIG3D_LAYOUTS_MAX];
    int lay_layers[2 * DNP_CONFIG3D_PARETO_LAYERS], lay_used = 0;
    double lay_rate[DNP_CONFIG3D_LAYOUTS_MAX];
    int n_lay = 0;
    double fastest_s = INFINITY;
    const int k_top = opt->config3d_top < 1                      ? 1
                      : opt->config3d_top > DNP_CONFIG3D_TOP_MAX ? DNP_CONFIG3D_TOP_MAX
                                                                 : opt->config3d_top;
    const unsigned all = (1u << k) - 1u;
    double best_s = INFINITY, work_flop = -1.0;
    /* one deadline for every layout: the options' limit from their start
     * (this call's when none is given), passed on as it is */
    dnp_plan_options lo = *opt;
    if (lo.time_limit_s > 0.0 && !(lo.time_limit_from_s > 0.0))
        lo.time_limit_from_s = dnp_now_s();
    const double limit_at_s = dnp_deadline_at(lo.time_limit_from_s, lo.time_limit_s);
    const double deadline_s = limit_at_s > 0.0 ? limit_at_s : INFINITY;
    int found = 0;
    dnp_error first_err = {0};
    /* subsets by size, largest first (all types first), each in every
     * order of its types starting from the given one */
    for (int size = k; size >= 1; size--) {
        for (unsigned mask = all; mask >= 1; mask--) {
            if (popcount(mask) != size)
                continue;
            int idx[DNP_CONFIG3D_LAYOUT_TYPES], n = 0;
            for (int t = 0; t < k; t++)
                if (mask & (1u << t))
                    idx[n++] = t;
            do {
                dnp_cluster sub;
                memset(&sub, 0, sizeof sub);
                sub.n_types = n;
                int64_t idle = 0;
                for (int i = 0; i < n; i++) {
                    sub.types[i] = c->types[idx[i]];
                    sub.counts[i] = c->counts[idx[i]];
                }
                for (int t = 0; t < k; t++)
                    if (!(mask & (1u << t)))
                        idle += c->counts[t];
                int reordered = 0;
                for (int i = 1; i < n; i++)
                    reordered |= idx[i] < idx[i - 1];
                dnp_config3d cfg;
                dnp_config3d_result res;
                dnp_config3d_stats st;
                dnp_error e = {0};
                /* the incumbent: without prices (no Pareto front to fill) a
                 * layout is searched only below the k-th best step so far */
                const double cutoff = priced || stats->n_top < k_top
                                          ? INFINITY
                                          : stats->top[k_top - 1].step_time_s;
                /* a layout whose devices cannot do the step's GEMM work in
                 * less than the cutoff even at their ceilings is skipped */
                if (isfinite(cutoff)) {
                    if (work_flop < 0.0)
                        work_flop = gemm_work_flop(g, batch);
                    const double rate = gemm_rate_flops(&sub, opt->precision);
                    if (rate > 0.0 && work_flop / rate >= cutoff) {
                        stats->layouts++;
                        stats->layouts_bounded++;
                        continue;
                    }
                }
                if (found && dnp_now_s() >= deadline_s) {
                    stats->time_limit_hit = 1;
                    goto out_of_time;
                }
                dnp_status rs = search_below(g, &sub, batch, &lo, cutoff, 1, &cfg, &res, &st, &e);
                stats->time_limit_hit |= st.time_limit_hit;
                if (stats->layouts == 0) { /* the rules, as the cluster given met them */
                    stats->n_narrowed = st.n_narrowed;
                    memcpy(stats->narrowed, st.narrowed, sizeof st.narrowed);
                }
                stats->layouts++;
                stats->candidates += st.candidates;
                stats->weighed += st.weighed;
                stats->fitting += st.fitting;
                stats->simulated += st.simulated;
                for (int j = 0; rs == DNP_OK && j < st.n_top; j++) {
                    dnp_config3d_ranked e_rank = st.top[j];
                    e_rank.n_types = n;
                    for (int i = 0; i < n; i++)
                        e_rank.types[i] = idx[i];
                    c3_rank_insert(stats->top, &stats->n_top, k_top, &e_rank);
                }
                if (rs == DNP_ERR_NOMEM) {
                    dnp_error_set(err, rs, "%s", e.msg);
                    return rs;
                }
                if (rs == DNP_OK && st.n_top == 0)
                    continue; /* nothing below the incumbent */
                if (rs != DNP_OK) {
                    if (first_err.status == DNP_OK)
                        first_err = e; /* the first layout's reason (all types, as given) */
                    if (st.smallest_mem_bytes > 0.0 &&
                        (stats->smallest_mem_bytes == 0.0 ||
                         st.smallest_mem_bytes < stats->smallest_mem_bytes))
                        stats->smallest_mem_bytes = st.smallest_mem_bytes;
                    continue;
                }
                double rate = 0.0;
                for (int i = 0; i < n; i++)
                    rate += sub.types[i].price_per_hour * (double)sub.counts[i];
                fastest_s = res.step_time_s < fastest_s ? res.step_time_s : fastest_s;
                if (n_lay < DNP_CONFIG3D_LAYOUTS_MAX) {
                    point_of(&cfg, res.step_time_s, rate * res.step_time_s / 3600.0, n, idx,
                             lay_layers, &lay_used, 2 * DNP_CONFIG3D_PARETO_LAYERS,
                             &lay[n_lay]);
                    lay_rate[n_lay] = rate;
                    n_lay++;
                }
                /* the objective's order: time; cost (ties: time); the
                 * deadline: meets it, then cost, then time */
                const double cost = rate * res.step_time_s;
                const int meets = !(opt->config3d_deadline_s > 0.0) ||
                                  res.step_time_s <= opt->config3d_deadline_s;
                int better;
                if (!meets)
                    better = 0;
                else if (!found)
                    better = 1;
                else if (by_cost)
                    better = cost < best_s || (cost == best_s && res.step_time_s <
                                                                      best_res->step_time_s);
                else
                    better = res.step_time_s < best_s;
                if (better) {
                    best_s = by_cost ? cost : res.step_time_s;
                    *best = cfg;
                    *best_res = res;
                    *used = sub;
                    stats->idle_devices = idle;
                    stats->reordered = reordered;
                    stats->price_per_hour = priced ? rate : 0.0;
                    stats->cost_per_step = priced ? rate * res.step_time_s / 3600.0 : 0.0;
                    found = 1;
                }
            } while (next_perm(idx, n));
        }
    }
out_of_time:
    if (!found && isfinite(fastest_s)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "no layout meets the deadline of %g s: the fastest step takes %g s",
                      opt->config3d_deadline_s, fastest_s);
        return DNP_ERR_INPUT;
    }
    if (!found) {
        dnp_error_set(err, first_err.status != DNP_OK ? first_err.status : DNP_ERR_INPUT, "%s",
                      first_err.msg);
        return err->status;
    }
    /* the Pareto front of (step, cost) over the layouts' fastest plans:
     * those no other layout beats on both, fastest first */
    for (int a = 0; priced && a < n_lay; a++) {
        const double ca = lay_rate[a] * lay[a].step_time_s;
        int dominated = 0;
        for (int b = 0; b < n_lay && !dominated; b++) {
            const double cb = lay_rate[b] * lay[b].step_time_s;
            dominated = (lay[b].step_time_s <= lay[a].step_time_s && cb <= ca &&
                         (lay[b].step_time_s < lay[a].step_time_s || cb < ca)) ||
                        (b < a && lay[b].step_time_s == lay[a].step_time_s && cb == ca);
        }
        if (dominated)
            continue;
        int pos = stats->n_pareto;
        while (pos > 0 && stats->pareto[pos - 1].step_time_s > lay[a].step_time_s) {
            stats->pareto[pos] = stats->pareto[pos - 1];
            pos--;
        }
        stats->pareto[pos] = lay[a];
        stats->pareto[pos].cost_per_step = ca / 3600.0;
        stats->n_pareto++;
    }
    /* the front's layer lists into the stats' own pool, in front order */
    int pool_used = 0;
    for (int i = 0; i < stats->n_pareto; i++) {
        dnp_config3d_point *pt = &stats->pareto[i];
        if (pt->layers_at < 0 || pt->n_stage_layers > DNP_CONFIG3D_PARETO_LAYERS - pool_used) {
            pt->layers_at = -1;
            continue;
        }
        memmove(&stats->pareto_layers[pool_used], &lay_layers[pt->layers_at],
                (size_t)pt->n_stage_layers * sizeof *lay_layers);
        pt->layers_at = pool_used;
        pool_used += pt->n_stage_layers;
    }
    return DNP_OK;
}

/* The index of the weakest device type (lowest peak at the precision,
 * then least memory) or, with fastest, the strongest (highest peak, then
 * most memory); ties keep the first. */
static int type_by_peak(const dnp_cluster *cl, dnp_precision prec, int fastest)
{
    int best = 0;
    double best_flops = 0.0, best_mem = 0.0;
    for (int i = 0; i < cl->n_types; i++) {
        perf_rates r;
        perf_rates_get(&cl->types[i], prec, &r);
        double mem = cl->types[i].mem_bytes, sign = fastest ? 1.0 : -1.0;
        if (i == 0 || sign * (r.peak_flops - best_flops) > 0.0 ||
            (r.peak_flops == best_flops && sign * (mem - best_mem) > 0.0)) {
            best = i;
            best_flops = r.peak_flops;
            best_mem = mem;
        }
    }
    return best;
}

dnp_status dnp_config3d_mixed_baselines(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                                        const dnp_plan_options *opt,
                                        dnp_config3d_baselines *out, dnp_error *err)
{
    memset(out, 0, sizeof *out);
    if (c->n_types < 2) {
        dnp_error_set(err, DNP_ERR_INPUT, "mixed-cluster baselines need several device types");
        return DNP_ERR_INPUT;
    }
    dnp_plan_options one = *opt; /* each baseline's best only */
    one.config3d_top = 1;
    opt = &one;
    out->slowest_type = type_by_peak(c, opt->precision, 0);
    out->fastest_type = type_by_peak(c, opt->precision, 1);
    dnp_config3d_stats stats;
    dnp_error e = {0};
    /* every device counted as the slowest type: the plan a homogeneous
     * planner makes (even stages), then run on the real cluster */
    dnp_cluster slow;
    memset(&slow, 0, sizeof slow);
    slow.n_types = 1;
    slow.types[0] = c->types[out->slowest_type];
    slow.counts[0] = dnp_cluster_devices(c);
    const double limit_at_s = dnp_deadline_at(opt->time_limit_from_s, opt->time_limit_s);
    if (dnp_config3d_search(g, &slow, batch, opt, &out->slowest_cfg, &out->slowest_planned,
                            &stats, &e) == DNP_OK) {
        out->slowest_ok = 1;
        out->time_limit_hit |= stats.time_limit_hit;
        dnp_error e2 = {0};
        out->slowest_on_cluster_ok =
            dnp_config3d_simulate(g, c, batch, opt, &out->slowest_cfg, &out->slowest_on_cluster,
                                  &e2) == DNP_OK &&
            out->slowest_on_cluster.fits;
    } else if (e.status == DNP_ERR_NOMEM) {
        dnp_error_set(err, e.status, "%s", e.msg);
        return e.status;
    }
    /* the fastest type's devices alone */
    dnp_cluster fast;
    memset(&fast, 0, sizeof fast);
    fast.n_types = 1;
    fast.types[0] = c->types[out->fastest_type];
    fast.counts[0] = c->counts[out->fastest_type];
    dnp_error e3 = {0};
    if (dnp_config3d_search(g, &fast, batch, opt, &out->fastest_cfg, &out->fastest_res, &stats,
                            &e3) == DNP_OK) {
        out->fastest_ok = 1;
        out->time_limit_hit |= stats.time_limit_hit;
    } else if (e3.status == DNP_ERR_NOMEM) {
        dnp_error_set(err, e3.status, "%s", e3.msg);
        return e3.status;
    }
    /* the same cluster, as given, in AMP's space and with one-type stages */
    for (int sp = DNP_CONFIG3D_SPACE_AMP; sp <= DNP_CONFIG3D_SPACE_UNIFORM; sp++) {
        dnp_plan_options o = *opt;
        o.config3d_space = sp;
        o.config3d_top = 1;
        dnp_error e4 = {0};
        int amp = sp == DNP_CONFIG3D_SPACE_AMP;
        if (dnp_config3d_search(g, c, batch, &o, amp ? &out->amp_cfg : &out->uniform_cfg,
                                amp ? &out->amp_res : &out->uniform_res, &stats,
                                &e4) == DNP_OK) {
            if (amp)
                out->amp_ok = 1;
            else
                out->uniform_ok = 1;
            out->time_limit_hit |= stats.time_limit_hit;
        } else if (e4.status == DNP_ERR_NOMEM) {
            dnp_error_set(err, e4.status, "%s", e4.msg);
            return e4.status;
        }
    }
    /* a baseline with nothing weighed by the deadline failed for it */
    if (dnp_deadline_passed(limit_at_s))
        out->time_limit_hit = 1;
    return DNP_OK;
}
