/*
 * pase_setup.c - dnp_pase_problem: a model (a PaSE reference graph, or
 * any model the tool loads, converted) bound to PaSE hardware and a cost
 * model: every op's configurations and t_l, every edge's projections
 * (pase_problem_build_perf on the shared model, pase_problem_build on the
 * prototype's Eq. 1).
 */
#include "search/pase/pase_driver.h"

#include <stdio.h>
#include <string.h>

/* --batch's default for a model that is not a reference graph. */
#define PASE_DEFAULT_BATCH 128

/* The options' cost model and its settings, checked. */
static dnp_status check_options(const dnp_pase_options *o, dnp_error *err)
{
    if (o->cost_model != DNP_COST_DEFAULT && o->cost_model != DNP_COST_PASE_PAPER) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "cost model %d is not one of PaSE's (default, pase-paper)",
                      (int)o->cost_model);
        return DNP_ERR_INPUT;
    }
    if ((int)o->precision < 0 || o->precision >= DNP_PREC_COUNT || (int)o->optimizer < 0 ||
        o->optimizer >= DNP_OPTIM_COUNT || !(o->memory_limit_bytes >= 0.0)) {
        dnp_error_set(err, DNP_ERR_INPUT, "invalid precision, optimizer or memory limit");
        return DNP_ERR_INPUT;
    }
    if (o->cost_model == DNP_COST_PASE_PAPER &&
        (o->precision != DNP_PREC_DEFAULT || o->optimizer != DNP_OPTIM_MOMENTUM ||
         o->memory_limit_bytes > 0.0 || o->no_stragglers)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "precision, optimizer, memory limit and stragglers belong to the default "
                      "cost model, not pase-paper");
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

/* The shared model of hw's devices (docs/pase.md "Shared model"): its one
 * device type, the field-wise weakest of several (paper section V), or a
 * bare device of hw's peak and link (fp32; memory traffic and capacity
 * unknown, so neither is charged). */
static dnp_status setup_perf(const dnp_pase_hw *hw, const dnp_pase_options *o, pase_perf *perf,
                             dnp_error *err)
{
    if (hw->device_types > 1)
        return pase_perf_init_weakest(&hw->cluster, o->precision, o->optimizer,
                                      o->memory_limit_bytes, o->no_stragglers, perf, err);
    if (hw->device_types == 1) {
        int t = 0;
        while (t < hw->cluster.n_types - 1 && hw->cluster.counts[t] < 1)
            t++;
        return pase_perf_init(&hw->cluster.types[t], hw->p, o->precision, o->optimizer,
                              o->memory_limit_bytes, o->no_stragglers, perf, err);
    }
    dnp_device_type d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "custom");
    d.peak_flops = hw->peak_flops;
    d.net_bw_bps = d.inter_bw_bps = hw->link_bps;
    d.bytes_per_elem = 4;
    snprintf(d.dtype, sizeof d.dtype, "fp32");
    d.devices_per_node = 1;
    return pase_perf_init(&d, hw->p, o->precision, o->optimizer, o->memory_limit_bytes,
                          o->no_stragglers, perf, err);
}

/* With opt->strategy_space: restrict pg to a dnnpar strategy's space
 * (pase_restrict_to_strategy).  Under the default model, the rows a
 * softmax, layer norm or LRN needs stay whole (pase_restrict_row_ops); the
 * paper's accounting and opt->split_rows (the reproductions) keep the
 * paper's freedom. */
static void restrict_space(const dnp_pase_options *opt, iter_space *pg)
{
    if (opt->strategy_space)
        pase_restrict_to_strategy(pg);
    if (opt->cost_model == DNP_COST_DEFAULT && !opt->split_rows)
        pase_restrict_row_ops(pg);
}

/* Bind graph g (taken over: freed on failure too) and core (the model
 * before conversion, NULL for a reference graph) to hw and opt; owned is
 * core when the problem takes it over (freed on failure too), else NULL. */
static dnp_status bind(iter_space *g, const dnp_graph *core, dnp_graph *owned,
                       const char *source, int64_t batch, const dnp_pase_hw *hw,
                       const dnp_pase_options *opt, dnp_pase_problem **out, dnp_error *err)
{
    dnp_pase_problem *pp = dnp_calloc(1, sizeof *pp);
    char *src = dnp_strdup(source);
    if (pp == NULL || src == NULL) {
        dnp_free(pp);
        dnp_free(src);
        iter_space_free(g);
        dnp_graph_free(owned);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building the PaSE problem");
        return DNP_ERR_NOMEM;
    }
    pp->g = g;
    pp->source = src;
    pp->hw = *hw;
    pp->batch = batch;
    pp->core = core;
    pp->core_owned = owned;
    if (opt != NULL)
        pp->opt = *opt;
    int model = pase_model_find(source);
    int cutoff = pp->opt.cutoff > 0 ? pp->opt.cutoff : core == NULL ? pase_model_cutoff(model) : 0;
    dnp_status st = check_options(&pp->opt, err);
    if (st == DNP_OK)
        restrict_space(&pp->opt, g);
    int seconds = pp->opt.cost_model == DNP_COST_DEFAULT;
    if (st == DNP_OK && seconds)
        st = setup_perf(hw, &pp->opt, &pp->perf, err);
    if (st == DNP_OK) {
        /* Eq. 1's r: FLOP per word moved (pase-paper only) */
        pase_params par = {hw->p, dnp_pase_hw_r_flop_per_word(hw), pp->opt.prototype_edges,
                           pp->opt.max_memory_bytes > 0.0 ? pp->opt.max_memory_bytes
                                                          : PASE_DEFAULT_MAX_BYTES,
                           cutoff};
        st = pase_problem_build_perf(g, &par, seconds ? &pp->perf : NULL, &pp->pb, err);
    }
    if (st != DNP_OK) {
        memset(&pp->pb, 0, sizeof pp->pb); /* nothing to free */
        dnp_pase_problem_free(pp);
        return st;
    }
    *out = pp;
    return DNP_OK;
}

static int64_t batch_of(const dnp_pase_options *opt, int64_t dflt)
{
    return opt != NULL && opt->batch > 0 ? opt->batch : dflt;
}

dnp_status dnp_pase_problem_load(const char *model, const dnp_pase_hw *hw,
                                 const dnp_pase_options *opt, dnp_pase_problem **out,
                                 dnp_error *err)
{
    iter_space *pg = NULL;
    dnp_status st;
    int m = pase_model_find(model);
    int64_t batch = batch_of(opt, m >= 0 ? pase_model_default_batch(m) : PASE_DEFAULT_BATCH);
    if (m >= 0) {
        if ((st = pase_model_build(model, batch, &pg, err)) != DNP_OK)
            return st;
        return bind(pg, NULL, NULL, model, batch, hw, opt, out, err);
    }
    dnp_graph *g = NULL;
    dnp_load_options lo = {opt != NULL && opt->skip_unknown};
    if ((st = dnp_model_load_opts(model, &lo, &g, err)) != DNP_OK)
        return st;
    dnp_error cerr = {0};
    st = iter_space_build(g, batch, &pg, &cerr);
    if (st != DNP_OK) {
        dnp_graph_free(g);
        dnp_error_set(err, st, "%s: %s", model, cerr.msg);
        return st;
    }
    return bind(pg, g, g, model, batch, hw, opt, out, err);
}

dnp_status dnp_pase_problem_from_graph(const dnp_graph *g, const dnp_pase_hw *hw,
                                       const dnp_pase_options *opt, dnp_pase_problem **out,
                                       dnp_error *err)
{
    iter_space *pg = NULL;
    int64_t batch = batch_of(opt, PASE_DEFAULT_BATCH);
    dnp_status st = iter_space_build(g, batch, &pg, err);
    if (st != DNP_OK)
        return st;
    return bind(pg, g, NULL, dnp_graph_name(g), batch, hw, opt, out, err);
}

dnp_status pase_problem_rebuild(const void *user, int64_t batch, iter_space **out,
                                dnp_error *err)
{
    const dnp_pase_problem *pp = user;
    dnp_status st = pp->core == NULL ? pase_model_build(pp->source, batch, out, err)
                                     : iter_space_build(pp->core, batch, out, err);
    if (st == DNP_OK)
        restrict_space(&pp->opt, *out);
    return st;
}

void dnp_pase_problem_free(dnp_pase_problem *pp)
{
    if (pp == NULL)
        return;
    pase_problem_free(&pp->pb);
    iter_space_free(pp->g);
    dnp_graph_free(pp->core_owned);
    dnp_free(pp->source);
    dnp_free(pp);
}

int dnp_pase_problem_n_ops(const dnp_pase_problem *pp)
{
    return pp->pb.n_v;
}

int dnp_pase_problem_n_edges(const dnp_pase_problem *pp)
{
    return pp->pb.n_e;
}

int64_t dnp_pase_problem_batch(const dnp_pase_problem *pp)
{
    return pp->batch;
}
