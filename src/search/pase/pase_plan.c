/*
 * pase_plan.c - PaSE's search as a dnnpar plan (issue 10, "every plan
 * usable everywhere"): the search on the shared performance model, its
 * plan as the one strategy type (pase_strategy.c: pase_walk_groups, no
 * strategy file in between) lowered and simulated like the other
 * searches' plans, so that `dnnpar compare` puts PaSE beside dp, owt,
 * hypar and accpar in one simulator.
 */
#include "search/pase/pase_driver.h"
#include "core/clock.h"
#include "core/input.h"
#include "search/plan_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The run's cost in its unit ("21.272 ms", "F = 1.2e+12 FLOP"). */
static void put_cost(const dnp_pase_run *r, char *buf, size_t n)
{
    if (r->pp->opt.cost_model == DNP_COST_PASE_PAPER)
        snprintf(buf, n, "F = %.6g FLOP", r->cost);
    else
        dnp_fmt_time(r->cost, buf, n);
}

/* One search in opt's space and its strategy (see dnp_pase_search_strategy). */
static dnp_status search_once(const char *model, const dnp_graph *g, const dnp_pase_hw *hw,
                              const dnp_pase_options *opt, const dnp_pase_run_options *ro,
                              const dnp_cluster *c, dnp_pase_strategy_search *out,
                              dnp_error *err)
{
    dnp_status st = g != NULL ? dnp_pase_problem_from_graph(g, hw, opt, &out->problem, err)
                              : dnp_pase_problem_load(model, hw, opt, &out->problem, err);
    if (st == DNP_OK)
        st = dnp_pase_run_new(out->problem, ro, &out->run, err);
    if (st != DNP_OK)
        return st;
    /* the core graph the strategy names: g, or the one the problem's
     * iteration spaces come from (a reference graph's: its zoo model) */
    const dnp_graph *core = g != NULL ? g : out->problem->pb.g->core;
    return dnp_pase_run_strategy(out->run, core, g != NULL ? NULL : model, c,
                                 dnp_pase_problem_batch(out->problem), &out->strategy,
                                 &out->info, err);
}

dnp_status pase_plan_step_s(dnp_status made, dnp_plan *plan, const dnp_error *e,
                            double *step_s, dnp_error *err)
{
    *step_s = INFINITY;
    if (made == DNP_OK) {
        dnp_plan_summary sum;
        dnp_plan_get_summary(plan, &sum);
        *step_s = sum.mem_fits ? sum.step_time_s : INFINITY;
    }
    dnp_plan_free(plan);
    if (made == DNP_ERR_NOMEM) {
        *err = *e;
        return made;
    }
    return DNP_OK;
}

/* The step simulator's time of search s's plan on c (pase_plan_step_s). */
static dnp_status simulated_of(const dnp_pase_strategy_search *s, const dnp_cluster *c,
                               double *step_s, dnp_error *err)
{
    dnp_plan *plan = NULL;
    dnp_error e = {0};
    dnp_status st = dnp_pase_search_plan(s, c, &plan, &e);
    return pase_plan_step_s(st, plan, &e, step_s, err);
}

/* On several device types (default model, full space asked): the search
 * again in the strategy's space, where the step simulator chooses and
 * refines the type split (docs/pase.md "The type level, refined in the
 * step simulator"); kept in *out when it simulates faster than out's
 * plan. */
static dnp_status prefer_simulated(const char *model, const dnp_graph *g, const dnp_pase_hw *hw,
                                   const dnp_pase_options *opt, const dnp_pase_run_options *ro,
                                   const dnp_cluster *c, dnp_pase_strategy_search *out,
                                   dnp_error *err)
{
    double full_s, space_s;
    dnp_status st = simulated_of(out, c, &full_s, err);
    if (st != DNP_OK)
        return st;
    dnp_pase_options in_space = *opt;
    in_space.strategy_space = 1;
    dnp_pase_strategy_search alt;
    memset(&alt, 0, sizeof alt);
    dnp_error e = {0};
    st = search_once(model, g, hw, &in_space, ro, c, &alt, &e);
    if (st == DNP_OK)
        st = simulated_of(&alt, c, &space_s, &e);
    if (st == DNP_OK && space_s < full_s) {
        char optimum[sizeof out->optimum], a[96], b[32];
        put_cost(out->run, optimum, sizeof optimum);
        if (isfinite(full_s)) {
            snprintf(a, sizeof a, "simulates in ");
            dnp_fmt_time(full_s, a + strlen(a), sizeof a - strlen(a));
        } else { /* pase_plan_step_s's INFINITY */
            snprintf(a, sizeof a, "cannot run in the simulator (over a device's memory, or no "
                                  "plan it can run)");
        }
        dnp_fmt_time(space_s, b, sizeof b);
        dnp_pase_strategy_search_free(out);
        *out = alt;
        out->in_space = 1;
        out->faster = 1;
        memcpy(out->optimum, optimum, sizeof optimum);
        snprintf(out->why, sizeof out->why,
                 "on several device types the step simulator chooses: PaSE's optimum %s, the "
                 "type split of the strategy's space, chosen and refined in the simulator, "
                 "simulates in %s",
                 a, b);
        return DNP_OK;
    }
    dnp_pase_strategy_search_free(&alt);
    if (st == DNP_ERR_NOMEM) {
        *err = e;
        return st;
    }
    return DNP_OK; /* the strategy's space has nothing faster (or no plan): out stays */
}

dnp_status dnp_pase_search_strategy(const char *model, const dnp_graph *g, const dnp_pase_hw *hw,
                                    const dnp_pase_options *opt, const dnp_pase_run_options *ro,
                                    const dnp_cluster *c, dnp_pase_strategy_search *out,
                                    dnp_error *err)
{
    memset(out, 0, sizeof *out);
    dnp_status st = search_once(model, g, hw, opt, ro, c, out, err);
    if (st == DNP_ERR_INPUT && out->run != NULL && !opt->strategy_space) {
        /* the optimum splits what a strategy cannot say: PaSE again, in the
         * strategy's space (docs/pase.md "The strategy's space") */
        char optimum[sizeof out->optimum], why[sizeof out->why];
        put_cost(out->run, optimum, sizeof optimum);
        snprintf(why, sizeof why, "%s", err->msg);
        dnp_pase_strategy_search_free(out);
        dnp_pase_options in_space = *opt;
        in_space.strategy_space = 1;
        dnp_error_clear(err); /* dnp_error_set keeps the first error */
        st = search_once(model, g, hw, &in_space, ro, c, out, err);
        out->in_space = 1;
        memcpy(out->optimum, optimum, sizeof optimum);
        memcpy(out->why, why, sizeof why);
    } else if (st == DNP_OK && !opt->strategy_space && opt->cost_model == DNP_COST_DEFAULT &&
               hw->device_types > 1 && (ro == NULL || ro->search == DNP_PASE_SEARCH_DP)) {
        /* the DP's type split (MCMC has none to refine) */
        st = prefer_simulated(model, g, hw, opt, ro, c, out, err);
    }
    if (st == DNP_OK)
        put_cost(out->run, out->cost, sizeof out->cost);
    else
        dnp_pase_strategy_search_free(out);
    return st;
}

void dnp_pase_strategy_search_free(dnp_pase_strategy_search *s)
{
    if (s == NULL)
        return;
    dnp_free(s->strategy);
    dnp_pase_run_free(s->run);
    dnp_pase_problem_free(s->problem);
    memset(s, 0, sizeof *s);
}

/* DNP_ERR_INPUT unless o is the default cost model, whose plans the step
 * simulator runs. */
static dnp_status simulable(const dnp_pase_options *o, dnp_error *err)
{
    if (o->cost_model == DNP_COST_DEFAULT)
        return DNP_OK;
    dnp_error_set(err, DNP_ERR_INPUT,
                  "the step simulator runs plans of the default cost model, not %s",
                  dnp_cost_model_name(o->cost_model));
    return DNP_ERR_INPUT;
}

/* The planner's options for a PaSE plan at `batch`: o's device-model
 * options, named after search s (prepare). */
static void plan_options_of(const dnp_pase_options *o, int64_t batch, dnp_pase_search s,
                            dnp_plan_options *po)
{
    memset(po, 0, sizeof *po);
    po->batch = batch;
    po->precision = o->precision;
    po->optimizer = o->optimizer;
    po->memory_limit_bytes = o->memory_limit_bytes;
    po->no_stragglers = o->no_stragglers;
    po->keep_over_memory = 1; /* PaSE weighed memory itself; the plan says if it fits */
    po->search_name = s == DNP_PASE_SEARCH_MCMC ? "mcmc" : "pase";
}

/* Run r's plan for g on c, up to the lowering: its strategy straight from
 * the run (pase_walk_groups) on the cluster it names (info->cluster, a
 * type given no samples dropped, as the strategy file's plan reads it)
 * and the prepared plan whose layer table, pace and deadline the lowering
 * reads (*p, the caller's: dnp_plan_free; *s: plan_strategy_free; both
 * NULL on failure), with the planner's options for r (*po). */
static dnp_status prepare(const dnp_pase_run *r, const dnp_graph *g, const dnp_cluster *c,
                          dnp_plan_options *po, dnp_plan **p, plan_strategy **s,
                          dnp_pase_strategy_info *info, dnp_error *err)
{
    const dnp_pase_options *o = &r->pp->opt;
    const int64_t batch = dnp_pase_problem_batch(r->pp);
    pase_walk *w = NULL;
    dnp_cluster used;
    *p = NULL;
    *s = NULL;
    plan_options_of(o, batch, r->search, po);
    dnp_status st = simulable(o, err);
    if (st == DNP_OK)
        st = pase_walk_new(r, g, c, &w, info, err);
    if (st == DNP_OK)
        st = dnp_cluster_parse(info->cluster, &used, err);
    if (st == DNP_OK)
        st = plan_prepare_lowering(g, &used, po, p, err);
    if (st == DNP_OK)
        st = pase_walk_groups(w, &(*p)->lt, batch, s, err);
    pase_walk_free(w);
    if (st != DNP_OK) {
        dnp_plan_free(*p);
        *p = NULL;
    }
    return st;
}

dnp_status pase_run_simulate(const dnp_pase_run *r, const dnp_graph *g, const dnp_cluster *c,
                             lower_result *out, dnp_error *err)
{
    dnp_plan_options po;
    dnp_plan *p = NULL;
    plan_strategy *s = NULL;
    dnp_pase_strategy_info info;
    memset(out, 0, sizeof *out);
    dnp_status st = prepare(r, g, c, &po, &p, &s, &info, err);
    if (st == DNP_OK) {
        lower_context m = plan_lower_context(p);
        st = lower_simulate(s, &m, g, &po, out, err);
    }
    plan_strategy_free(s);
    dnp_plan_free(p);
    return st;
}

dnp_status dnp_pase_run_plan(const dnp_pase_run *r, const dnp_graph *g, const dnp_cluster *c,
                             dnp_plan **out, dnp_pase_strategy_info *info_out, dnp_error *err)
{
    /* the strategy straight to the planner, no document written or read:
     * the share searches and the refinement simulate thousands of plans */
    double t0_s = dnp_now_s();
    dnp_plan_options po;
    dnp_plan *p = NULL;
    plan_strategy *s = NULL;
    dnp_pase_strategy_info info;
    *out = NULL;
    dnp_status st = prepare(r, g, c, &po, &p, &s, &info, err);
    if (st == DNP_OK)
        st = plan_finish_groups(p, g, s, t0_s, err);
    plan_strategy_free(s);
    if (st != DNP_OK) {
        dnp_plan_free(p);
        return st;
    }
    *out = p;
    if (info_out != NULL)
        *info_out = info;
    return DNP_OK;
}

dnp_status dnp_pase_plan_run(const dnp_graph *g, const dnp_cluster *c,
                             const dnp_plan_options *opt, dnp_pase_search s, dnp_plan **out,
                             int *in_space, dnp_pase_strategy_info *info, dnp_error *err)
{
    dnp_pase_hw hw;
    dnp_pase_options po;
    memset(&po, 0, sizeof po);
    po.batch = opt->batch;
    po.precision = opt->precision;
    po.optimizer = opt->optimizer;
    po.memory_limit_bytes = opt->memory_limit_bytes;
    po.no_stragglers = opt->no_stragglers;
    dnp_pase_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.search = s;
    ro.threads = 1; /* deterministic and light beside the other searches */
    ro.time_limit_s = opt->time_limit_s;
    ro.time_limit_from_s = opt->time_limit_from_s;
    dnp_pase_strategy_search ss;
    dnp_status st = dnp_pase_hw_from_cluster(c, &hw, err);
    if (st == DNP_OK)
        st = dnp_pase_search_strategy(NULL, g, &hw, &po, &ro, c, &ss, err);
    if (st != DNP_OK)
        return st;
    st = dnp_pase_search_plan(&ss, c, out, err);
    if (st == DNP_OK && in_space != NULL)
        *in_space = ss.in_space;
    if (st == DNP_OK && info != NULL)
        *info = ss.info;
    dnp_pase_strategy_search_free(&ss);
    return st;
}

dnp_status dnp_pase_search_plan(const dnp_pase_strategy_search *s, const dnp_cluster *c,
                                dnp_plan **out, dnp_error *err)
{
    /* the run's plan, as its strategy text (s->strategy, written from the
     * same run) says it */
    return dnp_pase_run_plan(s->run, s->problem->pb.g->core, c, out, NULL, err);
}
