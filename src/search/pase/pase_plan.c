/*
 * pase_plan.c - PaSE's search as a dnnpar plan (issue 10, "every plan
 * usable everywhere"): the search on the shared performance model, its
 * strategy written as a dnnpar strategy (pase_strategy.c) and evaluated by
 * the step simulator like the other searches' plans, so that `dnnpar
 * compare` puts PaSE beside dp, owt, hypar and accpar in one simulator.
 */
#include "search/pase/pase_driver.h"
#include "core/input.h"
#include "search/strategy.h"

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

/* Strategy strat (borrowed; written for info->cluster when a type was
 * dropped, else c) as a plan of g at the batch, with o's device-model
 * options, named after search s (dnp_pase_run_plan, dnp_pase_search_plan). */
static dnp_status plan_of_strategy(const dnp_strategy *strat, const dnp_pase_strategy_info *info,
                                   const dnp_graph *g, const dnp_cluster *c,
                                   const dnp_pase_options *o, int64_t batch, dnp_pase_search s,
                                   dnp_plan **out, dnp_error *err)
{
    dnp_cluster used;
    /* a device type the type split leaves idle is dropped (info.cluster) */
    dnp_status st = info->cluster[0] != '\0' ? dnp_cluster_parse(info->cluster, &used, err)
                                              : DNP_OK;
    if (st == DNP_OK) {
        dnp_plan_options po;
        memset(&po, 0, sizeof po);
        po.batch = batch;
        po.precision = o->precision;
        po.optimizer = o->optimizer;
        po.memory_limit_bytes = o->memory_limit_bytes;
        po.no_stragglers = o->no_stragglers;
        po.keep_over_memory = 1; /* PaSE weighed memory itself; the plan says if it fits */
        po.search_name = s == DNP_PASE_SEARCH_MCMC ? "mcmc" : "pase";
        st = dnp_plan_run_strategy(g, info->cluster[0] != '\0' ? &used : c, &po, strat, out, err);
    }
    return st;
}

dnp_status dnp_pase_run_plan(const dnp_pase_run *r, const dnp_graph *g, const dnp_cluster *c,
                             dnp_plan **out, dnp_pase_strategy_info *info_out, dnp_error *err)
{
    const dnp_pase_options *o = &r->pp->opt;
    json_t *doc = NULL;
    dnp_strategy *strat = NULL;
    dnp_pase_strategy_info info;
    int64_t batch = dnp_pase_problem_batch(r->pp);
    dnp_status st = simulable(o, err);
    /* the document straight to the planner, not through its text: the
     * share searches and the refinement simulate thousands of plans */
    if (st == DNP_OK)
        st = pase_run_strategy_doc(r, g, NULL, c, batch, &doc, &info, err);
    if (st == DNP_OK) {
        char qname[DNP_QUOTE_MAX + 8];
        st = strategy_from_json(doc, dnp_quote_str("pase", qname, sizeof qname), &strat, err);
        doc = NULL; /* taken over */
    }
    if (st == DNP_OK)
        st = plan_of_strategy(strat, &info, g, c, o, batch, r->search, out, err);
    if (st == DNP_OK && info_out != NULL)
        *info_out = info;
    dnp_strategy_free(strat);
    return st;
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
    const dnp_pase_problem *pp = s->problem;
    const dnp_graph *core = pp->pb.g->core; /* a reference graph's: its zoo model */
    dnp_status st = simulable(&pp->opt, err);
    dnp_strategy *strat = NULL;
    if (st == DNP_OK)
        st = dnp_strategy_read_buffer(s->strategy, strlen(s->strategy), "pase", &strat, err);
    if (st == DNP_OK)
        st = plan_of_strategy(strat, &s->info, core, c, &pp->opt, dnp_pase_problem_batch(pp),
                              s->run->search, out, err);
    dnp_strategy_free(strat);
    return st;
}
