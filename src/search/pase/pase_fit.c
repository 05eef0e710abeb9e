/*
 * pase_fit.c - PaSE's search under a per-device memory limit (issue 10
 * item 5; docs/pase.md "Memory").
 *
 * A device holds, for every op, its shard of the weights (with gradient
 * and optimizer state) and the activations it saves for backward, as the
 * step simulator counts them (pase_perf_mem_bytes), so a strategy's
 * footprint is the sum over ops of
 * the chosen configurations' bytes.  That sum is not a term of Eq. 1's
 * recurrence, so the DP cannot carry it exactly; instead:
 *   1. a configuration whose own bytes exceed the limit L is pruned (no
 *      strategy using it fits): exact;
 *   2. if sum_v min_c mem(v, c) > L no strategy fits: exact, reported;
 *   3. the DP's optimum is taken if its footprint is within L (then it is
 *      the best fitting strategy);
 *   4. else every op is held to the budget min_v x L / sum_u min_u (the
 *      limit shared in proportion to each op's least need), under which any
 *      strategy fits, and the DP reruns: a fitting strategy, not
 *      necessarily the best fitting one (reported as "budgeted").
 * The pruning works on a copy of the layer costs: the problem is read only.
 */
#include "search/pase/pase_perf.h"

#include <math.h>
#include <string.h>

/* work's t_l: pb's, with every configuration over cap[v] pruned (cap
 * NULL: the single limit L for every op). */
static void prune(pase_problem *work, const pase_problem *pb, const double *cap, double limit)
{
    for (int v = 0; v < pb->n_v; v++) {
        double c_v = cap != NULL ? cap[v] : limit;
        for (int c = 0; c < pb->cfg[v].n; c++)
            work->tl[v][c] = c_v > 0.0 && pb->mem[v][c] > c_v ? INFINITY : pb->tl[v][c];
    }
}

double pase_footprint(const pase_problem *pb, const int *cfg)
{
    double b = 0.0;
    if (pb->mem == NULL)
        return b;
    for (int v = 0; v < pb->n_v; v++)
        b += pb->mem[v][cfg[v]];
    return b;
}

/* The least bytes op v holds over its configurations.  O(K_v). */
static double op_min_bytes(const pase_problem *pb, int v)
{
    double lo = INFINITY;
    for (int c = 0; c < pb->cfg[v].n; c++)
        lo = pb->mem[v][c] < lo ? pb->mem[v][c] : lo;
    return lo;
}

double pase_min_footprint(const pase_problem *pb)
{
    double b = 0.0;
    for (int v = 0; pb->mem != NULL && v < pb->n_v; v++)
        b += op_min_bytes(pb, v);
    return b;
}

/* The result of res (its strategy taken over), costed on pb's own t_l. */
static void take(pase_fit_result *out, pase_result *res, const pase_problem *pb)
{
    out->cfg = res->cfg;
    res->cfg = NULL;
    out->res = *res;
    out->cost = pase_objective(pb, out->cfg);
    out->mem_bytes = pase_footprint(pb, out->cfg);
    out->devices_used = pase_devices_used(pb, out->cfg);
}

/* A shallow copy of pb whose t_l rows are its own (for pruning). */
static dnp_status work_copy(const pase_problem *pb, pase_problem *work)
{
    *work = *pb;
    work->tl = dnp_calloc((size_t)pb->n_v + 1, sizeof *work->tl);
    if (work->tl == NULL)
        return DNP_ERR_NOMEM;
    for (int v = 0; v < pb->n_v; v++)
        if ((work->tl[v] = dnp_malloc(((size_t)pb->cfg[v].n + 1) * sizeof(double))) == NULL)
            return DNP_ERR_NOMEM;
    return DNP_OK;
}

static void work_free(const pase_problem *pb, pase_problem *work)
{
    for (int v = 0; work->tl != NULL && v < pb->n_v; v++)
        dnp_free(work->tl[v]);
    dnp_free(work->tl);
    work->tl = NULL;
}

/* The searches of steps 3 and 4 on work (pb with t_l pruned). */
static dnp_status fit(const pase_problem *pb, pase_problem *work, const pase_search_opts *o,
                      double *cap, double sum_min, double limit, pase_fit_result *out,
                      dnp_error *err)
{
    pase_result res;
    dnp_status st;
    prune(work, pb, NULL, limit);
    if ((st = pase_search(work, 0, o, &res, err)) != DNP_OK)
        return st;
    take(out, &res, pb);
    if (out->mem_bytes <= limit)
        return DNP_OK;
    for (int v = 0; v < pb->n_v; v++)
        cap[v] *= limit / sum_min;
    prune(work, pb, cap, limit);
    dnp_free(out->cfg);
    out->cfg = NULL;
    if ((st = pase_search(work, 0, o, &res, err)) != DNP_OK)
        return st;
    take(out, &res, pb);
    out->budgeted = 1;
    return DNP_OK;
}

dnp_status pase_fit_search(const pase_problem *pb, const pase_search_opts *o,
                           pase_fit_result *out, dnp_error *err)
{
    memset(out, 0, sizeof *out);
    const pase_perf *m = pb->perf;
    double limit = m != NULL ? m->mem_limit_bytes : 0.0;
    pase_result res;
    dnp_status st;
    if (m == NULL || pb->mem == NULL || !(limit > 0.0)) {
        if ((st = pase_search(pb, 0, o, &res, err)) != DNP_OK)
            return st;
        take(out, &res, pb);
        return DNP_OK;
    }
    double *cap = dnp_malloc((size_t)pb->n_v * sizeof(double) + 1);
    if (cap == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory for the memory budgets");
        return DNP_ERR_NOMEM;
    }
    double sum_min = 0.0;
    int worst = 0;
    for (int v = 0; v < pb->n_v; v++) {
        cap[v] = op_min_bytes(pb, v);
        sum_min += cap[v];
        if (cap[v] > cap[worst])
            worst = v;
    }
    out->min_mem_bytes = sum_min;
    if (sum_min > limit) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "no strategy fits in %.3g GB per device: every strategy on %d devices "
                      "needs at least %.3g GB (weights, gradients, optimizer state and saved "
                      "activations; op '%s' alone %.3g GB)",
                      limit / 1e9, pb->par.p, sum_min / 1e9, pb->g->nest[worst].name,
                      cap[worst] / 1e9);
        dnp_free(cap);
        return DNP_ERR_INPUT;
    }
    pase_problem work;
    if ((st = work_copy(pb, &work)) != DNP_OK)
        dnp_error_set(err, st, "out of memory for the pruned layer costs");
    else
        st = fit(pb, &work, o, cap, sum_min, limit, out, err);
    work_free(pb, &work);
    dnp_free(cap);
    if (st != DNP_OK) {
        double min_mem = out->min_mem_bytes;
        pase_fit_result_free(out);
        memset(out, 0, sizeof *out);
        out->min_mem_bytes = min_mem;
    }
    return st;
}

void pase_fit_result_free(pase_fit_result *r)
{
    if (r == NULL)
        return;
    dnp_free(r->cfg);
    r->cfg = NULL;
}
