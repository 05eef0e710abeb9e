/*
 * pase_plan.c - PaSE's search as a dnnpar plan (issue 10, "every plan
 * usable everywhere"): the search on the shared performance model, its
 * strategy written as a dnnpar strategy (pase_strategy.c) and evaluated by
 * the step simulator like the other searches' plans, so that `dnnpar
 * compare` puts PaSE beside dp, owt, hypar and accpar in one simulator.
 */
#include "search/pase/pase_driver.h"

#include <stdio.h>
#include <string.h>

/* PaSE (search s) on g over c with opt's batch and device-model options,
 * in the strategy's space when space is 1: the problem and the run (the
 * caller frees both, also on failure). */
static dnp_status search(const dnp_graph *g, const dnp_cluster *c, const dnp_plan_options *opt,
                         dnp_pase_search s, int space, dnp_pase_problem **pb, dnp_pase_run **run,
                         dnp_error *err)
{
    dnp_pase_hw hw;
    dnp_pase_options po;
    memset(&po, 0, sizeof po);
    po.batch = opt->batch;
    po.precision = opt->precision;
    po.optimizer = opt->optimizer;
    po.memory_limit_bytes = opt->memory_limit_bytes;
    po.no_stragglers = opt->no_stragglers;
    po.strategy_space = space;
    dnp_pase_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.search = s;
    ro.threads = 1; /* deterministic and light beside the other searches */
    ro.time_limit_s = opt->time_limit_s;
    dnp_status st = dnp_pase_hw_from_cluster(c, &hw, err);
    if (st == DNP_OK)
        st = dnp_pase_problem_from_graph(g, &hw, &po, pb, err);
    if (st == DNP_OK)
        st = dnp_pase_run_new(*pb, &ro, run, err);
    return st;
}

dnp_status dnp_pase_run_plan(const dnp_pase_run *r, const dnp_graph *g, const dnp_cluster *c,
                             dnp_plan **out, dnp_pase_strategy_info *info_out, dnp_error *err)
{
    const dnp_pase_options *o = &r->pp->opt;
    if (o->cost_model != DNP_COST_DEFAULT) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "the step simulator runs plans of the default cost model, not %s",
                      dnp_cost_model_name(o->cost_model));
        return DNP_ERR_INPUT;
    }
    char *text = NULL;
    dnp_pase_strategy_info info;
    dnp_strategy *strat = NULL;
    dnp_cluster used;
    int64_t batch = dnp_pase_problem_batch(r->pp);
    dnp_status st = dnp_pase_run_strategy(r, g, NULL, c, batch, &text, &info, err);
    if (st == DNP_OK)
        st = dnp_strategy_read_buffer(text, strlen(text), "pase", &strat, err);
    if (st == DNP_OK) /* a device type the type split leaves idle is dropped (info.cluster) */
        st = dnp_cluster_parse(info.cluster, &used, err);
    if (st == DNP_OK) {
        dnp_plan_options po;
        memset(&po, 0, sizeof po);
        po.batch = batch;
        po.precision = o->precision;
        po.optimizer = o->optimizer;
        po.memory_limit_bytes = o->memory_limit_bytes;
        po.no_stragglers = o->no_stragglers;
        po.keep_over_memory = 1; /* PaSE weighed memory itself; the plan says if it fits */
        po.search_name = r->search == DNP_PASE_SEARCH_MCMC ? "mcmc" : "pase";
        st = dnp_plan_run_strategy(g, info.cluster[0] != '\0' ? &used : c, &po, strat, out, err);
    }
    if (st == DNP_OK && info_out != NULL)
        *info_out = info;
    dnp_strategy_free(strat);
    dnp_free(text);
    return st;
}

dnp_status dnp_pase_plan_run(const dnp_graph *g, const dnp_cluster *c,
                             const dnp_plan_options *opt, dnp_pase_search s, dnp_plan **out,
                             int *in_space, dnp_pase_strategy_info *info, dnp_error *err)
{
    dnp_status st = DNP_ERR_INPUT;
    dnp_error first = {0};
    for (int space = 0; space < 2 && st == DNP_ERR_INPUT; space++) {
        dnp_pase_problem *pb = NULL;
        dnp_pase_run *run = NULL;
        st = search(g, c, opt, s, space, &pb, &run, err);
        if (st == DNP_OK) {
            st = dnp_pase_run_plan(run, g, c, out, info, err);
            if (st == DNP_OK && in_space != NULL)
                *in_space = space;
        }
        dnp_pase_run_free(run);
        dnp_pase_problem_free(pb);
        if (space == 0 && st == DNP_ERR_INPUT) /* the optimum is no strategy: its space */
            first = *err;
        else if (st != DNP_OK && err->msg[0] == '\0')
            *err = first;
    }
    return st;
}
