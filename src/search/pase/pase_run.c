/*
 * pase_run.c - dnp_pase_run: one search in PaSE's space (the DP of Figs.
 * 3-4, the breadth-first DP of recurrence 2, or MCMC) with the baselines
 * in the same space and cost model (Eq. 1): data parallelism, the expert
 * strategy of the paper's section IV and MCMC from the expert.
 */
#include "search/pase/pase_driver.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pase_progress_thunk(void *user, int done, int total, double elapsed_s)
{
    const pase_progress_ctx *c = user;
    if (c->fn != NULL)
        c->fn(c->user, c->what, done, total, elapsed_s);
}

/* The exact search (bfs: breadth-first) into r: strategy, F and tables. */
static dnp_status run_exact(const dnp_pase_problem *pp, int bfs, const pase_search_opts *so,
                            dnp_pase_run *r, dnp_error *err)
{
    pase_result res;
    dnp_status st = pase_search(&pp->pb, bfs, so, &res, err);
    if (st != DNP_OK)
        return st;
    r->cfg = res.cfg; /* taken over */
    r->search_s = res.search_s;
    r->cost_flop = pase_objective(&pp->pb, res.cfg);
    r->have_tables = 1;
    r->max_dep = res.max_dep;
    r->max_rows = res.max_rows;
    r->work = res.work;
    r->table_bytes = res.table_bytes;
    return DNP_OK;
}

/* The run's body: the baselines, then the search.  tmp and mcfg are
 * scratch of n_v entries. */
static dnp_status run(const dnp_pase_problem *pp, const dnp_pase_run_options *o, dnp_pase_run *r,
                      int *tmp, int *mcfg, dnp_error *err)
{
    const pase_problem *pb = &pp->pb;
    pase_progress_ctx pc = {o->progress, o->progress_user, "searching"};
    pase_search_opts so = {o->threads, pase_progress_thunk, &pc, o->time_limit_s};
    pase_mcmc_opts mo;
    pase_mcmc_defaults(&mo);
    int mcmc_limit_hit = 0;
    mo.time_limit_s = o->time_limit_s;
    mo.time_limit_hit = &mcmc_limit_hit;
    if (o->mcmc_iters > 0) {
        mo.max_iters = o->mcmc_iters;
        mo.min_iters = o->mcmc_iters < mo.min_iters ? o->mcmc_iters : mo.min_iters;
    }
    mo.seed = o->seed > 0 ? o->seed : 1;

    /* baselines: data parallelism and the expert strategy */
    pase_data_parallel(pb, tmp);
    snprintf(r->base[0].name, sizeof r->base[0].name, "data parallel");
    pase_data_parallel_split(pb, tmp, &r->dp_lo, &r->dp_hi);
    r->base[0].cost_flop = pase_objective(pb, tmp);
    char expert[40];
    dnp_status st = pase_expert(pb, tmp, expert, sizeof expert, err);
    if (st != DNP_OK)
        return st;
    snprintf(r->base[1].name, sizeof r->base[1].name, "expert (%s)", expert);
    r->base[1].cost_flop = pase_objective(pb, tmp);
    r->n_base = 2;
    if (o->search == DNP_PASE_SEARCH_MCMC) {
        double t0 = now_s();
        if ((st = pase_mcmc(pb, tmp, &mo, mcfg, NULL, &r->cost_flop, err)) != DNP_OK)
            return st;
        r->search_s = now_s() - t0;
        r->limit_hit = mcmc_limit_hit;
        r->cfg = mcfg; /* taken over by the caller */
        /* The exact search can take far longer than MCMC: only on request. */
        if (o->optimum) {
            pase_result opt;
            if ((st = pase_search(pb, 0, &so, &opt, err)) != DNP_OK)
                return st;
            r->optimum_flop = pase_objective(pb, opt.cfg);
            pase_result_free(&opt);
        }
        return DNP_OK;
    }
    if ((st = run_exact(pp, o->search == DNP_PASE_SEARCH_BFS, &so, r, err)) != DNP_OK)
        return st;
    long it = 0;
    if ((st = pase_mcmc(pb, tmp, &mo, mcfg, &it, &r->base[2].cost_flop, err)) != DNP_OK)
        return st;
    r->base_limit_hit = mcmc_limit_hit;
    snprintf(r->base[2].name, sizeof r->base[2].name, "mcmc (from the expert)");
    r->base[2].iters = it;
    r->n_base = 3;
    return DNP_OK;
}

dnp_status dnp_pase_run_new(const dnp_pase_problem *pp, const dnp_pase_run_options *o,
                            dnp_pase_run **out, dnp_error *err)
{
    dnp_pase_run_options dflt;
    memset(&dflt, 0, sizeof dflt);
    if (o == NULL)
        o = &dflt;
    if (o->search != DNP_PASE_SEARCH_DP && o->search != DNP_PASE_SEARCH_BFS &&
        o->search != DNP_PASE_SEARCH_MCMC) {
        dnp_error_set(err, DNP_ERR_INPUT, "unknown PaSE search %d", (int)o->search);
        return DNP_ERR_INPUT;
    }
    int n = pp->pb.n_v;
    dnp_pase_run *r = dnp_calloc(1, sizeof *r);
    int *tmp = dnp_calloc((size_t)n + 1, sizeof(int));
    int *mcfg = dnp_calloc((size_t)n + 1, sizeof(int));
    dnp_status st = DNP_OK;
    if (r == NULL || tmp == NULL || mcfg == NULL) {
        st = DNP_ERR_NOMEM;
        dnp_error_set(err, st, "out of memory running the PaSE search");
        goto done;
    }
    r->pp = pp;
    r->search = o->search;
    r->optimum_flop = -1.0;
    r->time_limit_s = o->time_limit_s;
    if ((st = run(pp, o, r, tmp, mcfg, err)) != DNP_OK)
        goto done;
    if (r->cfg == mcfg)
        mcfg = NULL; /* the run owns it */
    r->best_base = 0;
    for (int i = 1; i < r->n_base; i++)
        if (r->base[i].cost_flop < r->base[r->best_base].cost_flop)
            r->best_base = i;
    *out = r;
    r = NULL;
done:
    if (r != NULL && r->cfg != mcfg)
        dnp_free(r->cfg);
    dnp_free(r);
    dnp_free(tmp);
    dnp_free(mcfg);
    return st;
}

void dnp_pase_run_free(dnp_pase_run *r)
{
    if (r == NULL)
        return;
    dnp_free(r->cfg);
    dnp_free(r);
}

void dnp_pase_run_summary(const dnp_pase_run *r, dnp_pase_summary *out)
{
    dnp_pase_summary s;
    memset(&s, 0, sizeof s);
    s.cost_flop = r->cost_flop;
    s.cost_s = r->cost_flop / r->pp->hw.peak_flops;
    s.transfer_flop = pase_transfer_total(&r->pp->pb, r->cfg);
    s.optimum_flop = r->optimum_flop;
    s.search_s = r->search_s;
    s.n_baselines = r->n_base;
    s.best_baseline = r->best_base;
    s.dp_split_min = r->dp_lo;
    s.dp_split_max = r->dp_hi;
    s.time_limit_hit = r->limit_hit || r->base_limit_hit;
    *out = s;
}

dnp_status dnp_pase_run_baseline(const dnp_pase_run *r, int i, dnp_pase_baseline *out,
                                 dnp_error *err)
{
    if (i < 0 || i >= r->n_base) {
        dnp_error_set(err, DNP_ERR_INPUT, "baseline %d out of range (0 to %d)", i,
                      r->n_base - 1);
        return DNP_ERR_INPUT;
    }
    out->name = r->base[i].name;
    out->cost_flop = r->base[i].cost_flop;
    out->iterations = r->base[i].iters;
    return DNP_OK;
}

dnp_status dnp_pase_run_op(const dnp_pase_run *r, int v, dnp_pase_op *out, dnp_error *err)
{
    const pase_problem *pb = &r->pp->pb;
    if (v < 0 || v >= pb->n_v) {
        dnp_error_set(err, DNP_ERR_INPUT, "op %d out of range (0 to %d)", v, pb->n_v - 1);
        return DNP_ERR_INPUT;
    }
    const pase_vertex *x = &pb->g->v[v];
    out->name = x->name;
    out->kind = pase_kind_name(x->kind);
    pase_fmt_dims(x, out->dims, sizeof out->dims);
    pase_fmt_config(pb, v, r->cfg[v], out->config, sizeof out->config);
    out->layer_cost_flop = pb->tl[v][r->cfg[v]];
    return DNP_OK;
}
