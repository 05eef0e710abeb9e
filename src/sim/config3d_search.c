/*
 * config3d_search.c - the fastest Megatron-LM configuration of a
 * transformer on a cluster, one device type or several, within memory
 * (docs/config3d.md, "Search"), and the baselines a mixed cluster is
 * compared with (docs/config3d.md, "Mixed clusters").
 */
#include "sim/config3d_int.h"

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

static int count_layers(const dnp_graph *g)
{
    char nm[32];
    int L = 0;
    while (snprintf(nm, sizeof nm, "layer%d.add2", L), dnp_graph_find(g, nm) >= 0)
        L++;
    return L;
}

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
    memset(stats, 0, sizeof *stats);
    const int L = count_layers(g);
    int sc = dnp_graph_find(g, "layer0.attn.scores");
    const int64_t devices = dnp_cluster_devices(cl);
    if (L == 0 || sc < 0) {
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
                  "or interleaved schedule (no GPipe)");
    /* tensor-parallel degrees: powers of two that dnp_config3d_check's
     * rules allow (the same c3_rule_tp) and that divide every type's count
     * (each stage on one type); cost cache: tp x sequence parallelism x
     * micro-batch size */
    c3_shape sh;
    c3_shape_of(g, &sh);
    int n_tp = 0, tps[16], sp_ok[16];
    tp_out outs[8], sp_outs[8];
    int n_outs = 0, n_sp_outs = 0;
    for (int64_t t = 1; t <= devices && n_tp < 16 && t <= (1 << 20); t *= 2) {
        char why[400];
        int kind = c3_rule_tp(g, &sh, cl, (int)t, 0, opt->tp_across_nodes, why, sizeof why);
        if (kind == C3_RULE_OK && !types_divide(cl, t)) {
            kind = 100;
            snprintf(why, sizeof why, "not a divisor of every device type's count (the search "
                     "keeps each stage on one type)");
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
    int dp_batch = 0, dp_types = 0;
    c3_cache *cache = dnp_calloc((size_t)(n_tp > 0 ? n_tp : 1) * 2 * C3_MAX_MB_CHOICES,
                                 sizeof *cache);
    c3_cand *cand = NULL;
    c3_ctx *x = dnp_malloc(sizeof *x);
    int n_cand = 0, cap = 0;
    dnp_status st = DNP_ERR_NOMEM;
    if (cache == NULL || x == NULL)
        goto done;
    int order = 0;
    int layers[DNP_CONFIG3D_MAX_STAGES];
    for (int it = 0; it < n_tp; it++) {
        int t = tps[it];
        for (int p = 1; p <= L && p <= DNP_CONFIG3D_MAX_STAGES && (int64_t)t * p <= devices; p++) {
            if (devices % ((int64_t)t * p) != 0)
                continue;
            int64_t dp = devices / ((int64_t)t * p);
            if (batch % dp != 0 || !types_divide(cl, (int64_t)t * dp)) {
                dp_batch += batch % dp != 0;
                dp_types += batch % dp == 0;
                continue;
            }
            for (int im = 0; im < C3_MAX_MB_CHOICES; im++) {
                int64_t mb = (int64_t)1 << im;
                if ((batch / dp) % mb != 0)
                    continue;
                int64_t m = batch / dp / mb;
                for (int v = 1; v <= C3_MAX_V; v++) {
                    if (v > 1 && (L % p != 0 || (L / p) % v != 0 || p < 2 || m % p != 0))
                        continue;
                    for (int rc = 0; rc < DNP_RECOMPUTE_COUNT; rc++)
                        for (int sp = 0; sp <= (t > 1 && sp_ok[it]); sp++)
                        for (int z = 0; z <= (dp > 1 ? 1 : 0); z++) {
                            dnp_config3d c;
                            dnp_config3d_defaults(&c);
                            c.tp = t;
                            c.pp = p;
                            c.dp = (int)dp;
                            c.microbatch = mb;
                            c.interleave = v;
                            c.recompute = (dnp_recompute)rc;
                            c.seq_par = sp;
                            c.zero = z;
                            int ci = (it * 2 + sp) * C3_MAX_MB_CHOICES + im;
                            stats->candidates++;
                            if (!cand_prepare(g, cl, batch, opt, &c, &cache[ci], x, layers))
                                continue;
                            dnp_config3d_result r;
                            double bound = 0.0;
                            dnp_error e = {0};
                            if (c3_eval(x, layers, 0, &bound, &r, NULL, &e) != DNP_OK)
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
    if (dp_batch > 0)
        narrow(stats, "dp must divide the batch of %lld: %d (tp, pp) pairs left out",
               (long long)batch, dp_batch);
    if (dp_types > 0)
        narrow(stats, "each stage on one device type (tp x dp divides every type's count): %d "
                      "(tp, pp) pairs left out", dp_types);
    stats->fitting = n_cand;
    if (n_cand == 0 && stats->smallest_mem_bytes == 0.0) {
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
    if (n_cand == 0) {
        st = DNP_ERR_INPUT;
        dnp_error_set(err, st,
                      "no configuration of %s at batch %lld fits in %.3g GB per device on %lld "
                      "devices: the smallest needs %.3g GB",
                      dnp_graph_name(g), (long long)batch, min_capacity / 1e9,
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
        double bound;
        st = c3_prepare(g, cl, batch, opt, &cand[i].cfg, &cache[cand[i].cache], x, &e);
        if (st == DNP_OK)
            st = c3_layers(x, layers, &e);
        if (st == DNP_OK)
            st = c3_eval(x, layers, 1, &bound, &r, NULL, &e);
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
    dnp_free(x);
    return st;
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
    if (dnp_config3d_search(g, &slow, batch, opt, &out->slowest_cfg, &out->slowest_planned,
                            &stats, &e) == DNP_OK) {
        out->slowest_ok = 1;
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
                            &e3) == DNP_OK)
        out->fastest_ok = 1;
    else if (e3.status == DNP_ERR_NOMEM) {
        dnp_error_set(err, e3.status, "%s", e3.msg);
        return e3.status;
    }
    return DNP_OK;
}
