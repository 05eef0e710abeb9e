/*
 * plan_memory.c - a plan over the memory limit (docs/time-model.md
 * "Memory"): the one message of dnp_plan_run's refusal and of
 * dnp_plan_check_memory, with, for a transformer, the Megatron-LM
 * configuration that would fit (dnp_config3d_search).
 */
#include "search/plan_internal.h"

#include "sim/config3d_int.h"

#include <stdio.h>
#include <string.h>

/* What to do when no plan fits: for a zoo transformer, the fastest
 * Megatron-LM configuration that fits, if dnp_config3d_search finds one
 * within a few seconds (tensor and pipeline parallelism, recompute and ZeRO
 * keep far less per device than splitting every layer's batch); else the
 * generic advice.  Writes at most n bytes of text into hint. */
#define HINT_3D_TIME_LIMIT_S 5.0
static void transformer_hint(const dnp_graph *g, const dnp_cluster *c,
                             const dnp_plan_options *opt, char *hint, size_t n)
{
    snprintf(hint, n, "a larger memory limit, more devices or a smaller batch would do");
    c3_shape sh;
    if (!c3_shape_of(g, &sh))
        return;
    dnp_plan_options o = *opt;
    o.time_limit_s = HINT_3D_TIME_LIMIT_S;
    o.time_limit_from_s = 0.0; /* its own few seconds, not what is left of the command's */
    o.config3d_top = 0;
    if (o.optimizer == DNP_OPTIM_MOMENTUM)
        o.optimizer = DNP_OPTIM_ADAM; /* Megatron-LM's, as plan --search 3d */
    dnp_config3d best;
    dnp_config3d_result res;
    dnp_config3d_stats *stats = dnp_malloc(sizeof *stats);
    dnp_error e = {0};
    if (stats != NULL && dnp_config3d_search(g, c, o.batch, &o, &best, &res, stats, &e) == DNP_OK &&
        res.fits)
        snprintf(hint, n,
                 "%s is a transformer: plan --search 3d finds Megatron-LM configuration tp %d, "
                 "pp %d, dp %d, micro-batch %lld, recompute %s%s%s: %.4g s per step, %.3g GB per "
                 "device",
                 dnp_graph_name(g), best.tp, best.pp, best.dp, (long long)best.microbatch,
                 best.recompute == DNP_RECOMPUTE_FULL        ? "full"
                 : best.recompute == DNP_RECOMPUTE_SELECTIVE ? "selective"
                                                             : "none",
                 best.seq_par ? ", sequence parallel" : "", best.zero ? ", ZeRO-1" : "",
                 res.step_time_s, res.mem_bytes / 1e9);
    else
        snprintf(hint, n, "%s is a transformer, but plan --search 3d finds no Megatron-LM "
                 "configuration that fits either: a larger memory limit, more devices or a smaller "
                 "batch would do", dnp_graph_name(g));
    dnp_free(stats);
}

/* The one message of a plan over the memory limit (dnp_plan_run's refusal,
 * dnp_plan_check_memory's): capacity and footprint in bytes. */
void plan_over_memory(const dnp_plan *p, const dnp_graph *g, const lower_result *r,
                      double need_bytes, dnp_error *err)
{
    char *cl = dnp_cluster_spec(&p->cl), hint[320];
    transformer_hint(g, &p->cl, &p->opt, hint, sizeof hint);
    const char *search =
        p->opt.search_name != NULL ? p->opt.search_name : dnp_scheme_name(p->opt.scheme);
    /* on a mixed cluster, the device class furthest over its own limit:
     * the largest footprint may sit on the type with the most memory */
    const lower_class *worst = NULL;
    double worst_ratio = 0.0;
    for (int c = 0; p->cl.n_types > 1 && c < r->n_classes; c++) {
        const lower_class *k = &r->classes[c];
        double limit = p->opt.memory_limit_bytes > 0.0 ? p->opt.memory_limit_bytes
                                                        : k->capacity_bytes;
        if (limit > 0.0 && k->peak_bytes / limit > worst_ratio)
            worst = k, worst_ratio = k->peak_bytes / limit;
    }
    if (worst != NULL && worst_ratio > 1.0)
        dnp_error_set(err, DNP_ERR_INPUT,
                      "no %s plan of %s at batch %lld fits on %.300s: the plan found needs "
                      "%.2f GB per %s device against its %.2f GB (%s)",
                      search, dnp_graph_name(g), (long long)p->opt.batch,
                      cl != NULL ? cl : "(out of memory)", worst->peak_bytes / 1e9,
                      p->cl.types[worst->type].name,
                      (p->opt.memory_limit_bytes > 0.0 ? p->opt.memory_limit_bytes
                                                       : worst->capacity_bytes) / 1e9,
                      hint);
    else
        dnp_error_set(err, DNP_ERR_INPUT,
                      "no %s plan of %s at batch %lld fits in %.3g GB per device on %.300s: the "
                      "smallest needs %.3g GB (%s)",
                      search, dnp_graph_name(g), (long long)p->opt.batch,
                      r->mem_capacity_bytes / 1e9, cl != NULL ? cl : "(out of memory)",
                      need_bytes / 1e9, hint);
    dnp_free(cl);
}

dnp_status dnp_plan_check_memory(const dnp_plan *p, const dnp_graph *g, dnp_error *err)
{
    if (p->opt.keep_over_memory || p->units.reference_mode)
        return DNP_OK;
    if (p->has_sim) {
        if (p->sim.fits)
            return DNP_OK;
        plan_over_memory(p, g, &p->sim, p->sim.mem_peak_bytes, err);
        return DNP_ERR_INPUT;
    }
    /* the paper's accounting has no memory model: the same tree lowered
     * under the default one, at the plan's precision, optimizer and limit */
    dnp_plan_options o = p->opt;
    o.cost_model = DNP_COST_DEFAULT;
    lower_result r;
    memset(&r, 0, sizeof r);
    dnp_status st = plan_lower(p, g, &o, &r, err);
    if (st == DNP_OK && !r.fits) {
        plan_over_memory(p, g, &r, r.mem_peak_bytes, err);
        st = DNP_ERR_INPUT;
    }
    lower_result_free(&r);
    return st;
}
