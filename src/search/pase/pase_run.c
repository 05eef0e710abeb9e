/*
 * pase_run.c - dnp_pase_run: one search in PaSE's space (the DP of Figs.
 * 3-4, the breadth-first DP of recurrence 2, or MCMC) with the baselines
 * in the same space and cost model (Eq. 1, or its terms in seconds on the
 * shared model): data parallelism, the expert strategy of the paper's
 * section IV and MCMC from the expert.  Under the shared model the DP
 * keeps the plan within the device memory (pase_fit.c) and, on several
 * device types, the batch is also split across the types (pase_hetero.c;
 * docs/pase.md "Heterogeneous clusters").
 */
#include "search/pase/pase_driver.h"
#include "core/clock.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void pase_progress_thunk(void *user, int done, int total, double elapsed_s)
{
    const pase_progress_ctx *c = user;
    if (c->fn != NULL)
        c->fn(c->user, c->what, done, total, elapsed_s);
}

/* A baseline strategy's footprint and whether it fits the problem's
 * memory limit (the default model; pase_fit.c counts the same bytes). */
static void baseline_memory(const pase_problem *pb, const int *cfg, pase_baseline_row *b)
{
    b->mem_bytes = pase_footprint(pb, cfg);
    double limit = pb->perf != NULL ? pb->perf->mem_limit_bytes : 0.0;
    b->fits = !(pb->mem != NULL && limit > 0.0 && b->mem_bytes > limit);
}

/* The exact search (bfs: breadth-first) into r: strategy, F and tables.
 * The shared model's DP keeps within the device memory (pase_fit.c). */
/* The per-op budgets' strategy fits but need not be the best fitting one
 * (pase_fit.c, step 4): a memory-aware MCMC from it (pase_mcmc keeps the
 * cheapest fitting strategy it meets, so the result is never worse),
 * with the baseline's options (docs/pase.md "Memory"). */
static dnp_status improve_budgeted(const dnp_pase_problem *pp, const pase_mcmc_opts *mo,
                                   dnp_pase_run *r, dnp_error *err)
{
    const pase_problem *pb = &pp->pb;
    int *cfg = dnp_malloc(((size_t)pb->n_v + 1) * sizeof *cfg);
    if (cfg == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory improving the budgeted strategy");
        return DNP_ERR_NOMEM;
    }
    long it = 0;
    double cost;
    dnp_status st = pase_mcmc(pb, r->cfg, mo, cfg, &it, &cost, err);
    r->budgeted_cost = r->cost;
    r->budget_mcmc_iters = it;
    double bytes = pase_footprint(pb, cfg);
    if (st == DNP_OK && cost < r->cost && bytes <= pp->perf.mem_limit_bytes) {
        dnp_free(r->cfg);
        r->cfg = cfg;
        r->cost = cost;
        r->mem_bytes = bytes;
        cfg = NULL;
    }
    dnp_free(cfg);
    return st;
}

static dnp_status run_exact(const dnp_pase_problem *pp, int bfs, const pase_search_opts *so,
                            const pase_mcmc_opts *mo, dnp_pase_run *r, dnp_error *err)
{
    pase_result res;
    dnp_status st;
    if (PASE_SECONDS(pp) && !bfs) {
        pase_fit_result fit;
        if ((st = pase_fit_search(&pp->pb, so, &fit, err)) != DNP_OK)
            return st;
        res = fit.res;
        res.cfg = fit.cfg; /* taken over below */
        r->have_fit = 1;
        r->mem_bytes = fit.mem_bytes;
        r->min_mem_bytes = fit.min_mem_bytes;
        r->budgeted = fit.budgeted;
    } else if ((st = pase_search(&pp->pb, bfs, so, &res, err)) != DNP_OK) {
        return st;
    }
    r->cfg = res.cfg; /* taken over */
    r->search_s = res.search_s;
    r->cost = pase_objective(&pp->pb, res.cfg);
    if (r->budgeted && mo != NULL) {
        double t0 = dnp_now_s();
        if ((st = improve_budgeted(pp, mo, r, err)) != DNP_OK)
            return st;
        r->search_s += dnp_now_s() - t0;
    }
    r->have_tables = 1;
    r->max_dep = res.max_dep;
    r->max_rows = res.max_rows;
    r->work = res.work;
    r->table_bytes = res.table_bytes;
    r->pinned = res.pinned;
    return DNP_OK;
}

dnp_status pase_run_simulated_s(const dnp_pase_run *r, double *step_s, dnp_error *err)
{
    const dnp_pase_problem *pp = r->pp;
    lower_result res;
    dnp_error e = {0};
    dnp_status st = pase_run_simulate(r, pp->core, &pp->hw.cluster, &res, &e);
    *step_s = st == DNP_OK && res.fits ? res.step_time_s : INFINITY;
    lower_result_free(&res); /* zeroed or filled, whatever the status */
    if (st == DNP_ERR_NOMEM) {
        *err = e;
        return st;
    }
    return DNP_OK; /* a plan the simulator cannot run: INFINITY */
}

/* The type split's judge (pase_hetero_opts.judge): candidate cand as the
 * run's chosen plan, simulated.  user is the run (its own plan set). */
static dnp_status judge_split(const void *user, const pase_hetero_result *cand, double *step_s,
                              dnp_error *err)
{
    dnp_pase_run tmp = *(const dnp_pase_run *)user;
    tmp.het = *cand; /* borrowed for the call: never freed through tmp */
    tmp.have_het = 1;
    tmp.cost = INFINITY; /* the split is the chosen plan */
    return pase_run_simulated_s(&tmp, step_s, err);
}

/* Several device types: the batch split across them, PaSE inside each
 * (pase_hetero.c), searched with the run's options.  With the model's
 * core graph the shares are chosen by the step simulator, and the
 * weakest-device plan is simulated for the choice between the two
 * (pase_run_split_chosen). */
static dnp_status run_split(const dnp_pase_problem *pp, const pase_search_opts *so,
                            dnp_pase_run *r, dnp_error *err)
{
    r->own_simulated_s = NAN;
    int judged = pp->core != NULL && pp->opt.strategy_space;
    if (judged) {
        dnp_status st = pase_run_simulated_s(r, &r->own_simulated_s, err);
        if (st != DNP_OK)
            return st;
    }
    pase_hetero_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.precision = pp->opt.precision;
    ho.optimizer = pp->opt.optimizer;
    ho.mem_limit_bytes = pp->opt.memory_limit_bytes;
    ho.no_stragglers = pp->opt.no_stragglers;
    ho.max_table_bytes = pp->pb.par.max_bytes;
    ho.prototype_edges = pp->opt.prototype_edges;
    ho.cutoff = pp->pb.par.cutoff;
    ho.search = so;
    if (judged) {
        ho.judge = judge_split;
        ho.judge_user = r;
    }
    dnp_status st = pase_hetero_search(&pp->hw.cluster, pp->batch, pase_problem_rebuild,
                                       pp, &ho, &r->het, err);
    if (st != DNP_OK)
        return st;
    if (!r->het.fits) { /* no split fits: the plan over all devices stays */
        r->split_none_fits = 1;
        r->split_exhaustive = r->het.exhaustive;
        r->search_s += r->het.search_s;
        pase_hetero_result_free(&r->het);
        return DNP_OK;
    }
    r->have_het = 1;
    if (judged) {
        /* the type level with the groups' plans fixed (pase_cross.c) */
        double t0 = dnp_now_s();
        if ((st = pase_cross_refine(r, err)) != DNP_OK)
            return st;
        r->cross_s = dnp_now_s() - t0;
        r->het.search_s += r->cross_s;
    }
    r->search_s += r->het.search_s;
    return DNP_OK;
}

/* The run's body: the baselines, then the search.  tmp and mcfg are
 * scratch of n_v entries. */
static dnp_status run(const dnp_pase_problem *pp, const dnp_pase_run_options *o, dnp_pase_run *r,
                      int *tmp, int *mcfg, dnp_error *err)
{
    const pase_problem *pb = &pp->pb;
    pase_progress_ctx pc = {o->progress, o->progress_user, "searching"};
    /* one deadline for the search and its baselines, counted from the
     * command's start when the caller gives it (time_limit_from_s) */
    const double deadline_s = dnp_deadline_at(o->time_limit_from_s, o->time_limit_s);
    pase_search_opts so = {o->threads, pase_progress_thunk, &pc, o->time_limit_s, 0, deadline_s};
    pase_mcmc_opts mo;
    pase_mcmc_defaults(&mo);
    int mcmc_limit_hit = 0;
    mo.time_limit_s = o->time_limit_s;
    mo.deadline_s = deadline_s;
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
    r->base[0].cost = pase_objective(pb, tmp);
    baseline_memory(pb, tmp, &r->base[0]);
    char expert[40];
    dnp_status st = pase_expert(pb, tmp, expert, sizeof expert, err);
    if (st != DNP_OK)
        return st;
    snprintf(r->base[1].name, sizeof r->base[1].name, "expert (%s)", expert);
    r->base[1].cost = pase_objective(pb, tmp);
    baseline_memory(pb, tmp, &r->base[1]);
    r->n_base = 2;
    if (o->search == DNP_PASE_SEARCH_MCMC) {
        double t0 = dnp_now_s();
        if ((st = pase_mcmc(pb, tmp, &mo, mcfg, NULL, &r->cost, err)) != DNP_OK)
            return st;
        r->search_s = dnp_now_s() - t0;
        r->limit_hit = mcmc_limit_hit;
        r->cfg = mcfg; /* taken over by the caller */
        if (PASE_SECONDS(pp) && pb->mem != NULL) { /* the memory line, as the DP's */
            r->have_fit = 1;
            r->mem_bytes = pase_footprint(pb, mcfg);
            r->min_mem_bytes = pase_min_footprint(pb);
        }
        /* The exact search can take far longer than MCMC: only on request. */
        if (o->optimum) {
            pase_result opt;
            if ((st = pase_search(pb, 0, &so, &opt, err)) != DNP_OK)
                return st;
            r->optimum = pase_objective(pb, opt.cfg);
            pase_result_free(&opt);
        }
        return DNP_OK;
    }
    /* a dense graph whose exact tables do not fit: ops pinned (pase_pin.c;
     * the breadth-first DP keeps failing, the paper's BF column) */
    so.pin_over_guard = 1;
    if ((st = run_exact(pp, o->search == DNP_PASE_SEARCH_BFS, &so, &mo, r, err)) != DNP_OK)
        return st;
    long it = 0;
    if ((st = pase_mcmc(pb, tmp, &mo, mcfg, &it, &r->base[2].cost, err)) != DNP_OK)
        return st;
    r->base_limit_hit = mcmc_limit_hit;
    baseline_memory(pb, mcfg, &r->base[2]);
    if (r->budgeted && r->base[2].fits && r->base[2].cost < r->cost) {
        /* the memory-aware MCMC from the expert met a cheaper fitting
         * strategy than the budgets and the MCMC from them: it is kept */
        memcpy(r->cfg, mcfg, (size_t)pb->n_v * sizeof *r->cfg);
        r->cost = r->base[2].cost;
        r->mem_bytes = r->base[2].mem_bytes;
        r->budget_from_expert = 1;
    }
    snprintf(r->base[2].name, sizeof r->base[2].name, "mcmc (from the expert)");
    r->base[2].iters = it;
    r->n_base = 3;
    if (PASE_SECONDS(pp) && o->search == DNP_PASE_SEARCH_DP && pp->hw.device_types > 1)
        return run_split(pp, &so, r, err);
    if (PASE_SECONDS(pp) && o->search == DNP_PASE_SEARCH_DP && pp->core != NULL &&
        pp->hw.device_types == 1 && !o->no_refine) {
        /* one device type: the plan, refined in the step simulator */
        double t0 = dnp_now_s();
        st = pase_refine_plan(r, err);
        r->refine_s = dnp_now_s() - t0;
        r->search_s += r->refine_s;
        return st;
    }
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
    r->optimum = -1.0;
    r->own_simulated_s = NAN;
    r->time_limit_s = o->time_limit_s;
    if ((st = run(pp, o, r, tmp, mcfg, err)) != DNP_OK)
        goto done;
    if (r->cfg == mcfg)
        mcfg = NULL; /* the run owns it */
    r->used = pase_devices_used(&pp->pb, r->cfg);
    /* the best baseline that fits (the fastest of all if none does) */
    r->best_base = 0;
    for (int i = 1; i < r->n_base; i++) {
        const pase_baseline_row *b = &r->base[i], *best = &r->base[r->best_base];
        if (b->fits > best->fits || (b->fits == best->fits && b->cost < best->cost))
            r->best_base = i;
    }
    *out = r;
    r = NULL;
done:
    if (r != NULL && r->cfg != mcfg)
        dnp_free(r->cfg);
    if (r != NULL) {
        pase_hetero_result_free(&r->het);
        dnp_free(r->cross);
    }
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
    dnp_free(r->order);
    pase_hetero_result_free(&r->het);
    dnp_free(r->cross);
    dnp_free(r);
}

/* A cost of the problem's unit as FLOP (-1 under the shared model) and
 * seconds (Eq. 1's F / peak FLOP/s under pase-paper). */
static double as_flop(const dnp_pase_problem *pp, double x)
{
    return PASE_SECONDS(pp) ? -1.0 : x;
}

static double as_s(const dnp_pase_problem *pp, double x)
{
    return PASE_SECONDS(pp) ? x : x / pp->hw.peak_flops;
}

void dnp_pase_run_summary(const dnp_pase_run *r, dnp_pase_summary *out)
{
    const dnp_pase_problem *pp = r->pp;
    dnp_pase_summary s;
    memset(&s, 0, sizeof s);
    double tx = pase_transfer_total(&pp->pb, r->cfg);
    s.cost_model = pp->opt.cost_model;
    s.cost_flop = as_flop(pp, r->cost);
    s.cost_s = as_s(pp, r->cost);
    s.transfer_flop = as_flop(pp, tx);
    s.transfer_s = as_s(pp, tx);
    s.optimum_flop = r->optimum >= 0.0 ? as_flop(pp, r->optimum) : -1.0;
    s.optimum_s = r->optimum >= 0.0 ? as_s(pp, r->optimum) : -1.0;
    s.search_s = r->search_s;
    s.n_baselines = r->n_base;
    s.best_baseline = r->best_base;
    s.dp_split_min = r->dp_lo;
    s.dp_split_max = r->dp_hi;
    s.time_limit_hit = r->limit_hit || r->base_limit_hit;
    s.devices_used = r->used;
    s.mem_bytes = r->have_fit ? r->mem_bytes : -1.0;
    s.min_mem_bytes = r->have_fit ? r->min_mem_bytes : -1.0;
    s.mem_limit_bytes = r->have_fit ? pp->perf.mem_limit_bytes : 0.0;
    s.mem_budgeted = r->have_fit && r->budgeted;
    s.has_type_split = r->have_het;
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
    out->cost_flop = as_flop(r->pp, r->base[i].cost);
    out->cost_s = as_s(r->pp, r->base[i].cost);
    out->iterations = r->base[i].iters;
    out->mem_bytes = r->base[i].mem_bytes;
    out->fits = r->base[i].fits;
    return DNP_OK;
}

dnp_status dnp_pase_run_op(const dnp_pase_run *r, int v, dnp_pase_op *out, dnp_error *err)
{
    const pase_problem *pb = &r->pp->pb;
    if (v < 0 || v >= pb->n_v) {
        dnp_error_set(err, DNP_ERR_INPUT, "op %d out of range (0 to %d)", v, pb->n_v - 1);
        return DNP_ERR_INPUT;
    }
    const iter_nest *x = &pb->g->nest[v];
    out->name = x->name;
    out->kind = iter_kind_name(x->kind);
    pase_fmt_dims(x, out->dims, sizeof out->dims);
    pase_run_fmt_config(r, v, out->config, sizeof out->config);
    out->layer_cost_flop = as_flop(r->pp, pb->tl[v][r->cfg[v]]);
    out->layer_cost_s = as_s(r->pp, pb->tl[v][r->cfg[v]]);
    return DNP_OK;
}
