/*
 * pase_hetero.c - PaSE on a cluster of several device types (issue 10
 * item 4; docs/pase.md "Heterogeneous clusters").
 *
 * The space: the mini-batch is split across the device types, b_t samples
 * to type t (AccPar's Type-I split between the groups with uneven shares,
 * section 3.2 and Eq. 10), and inside each group a homogeneous PaSE
 * strategy over its n_t devices and links, found by the exact DP
 * (pase_fit_search) on the graph at batch b_t, each group charged its own
 * device's time (pase_perf.c).  The groups then hold partial weight
 * gradients, summed by one all-reduce across the groups on the slowest
 * inter-node tier:
 *     step(b) = max_t T_t(b_t) + AR(grad bytes / min_t n_t, groups)
 * (each of the smallest group's devices carries 1 / n_t of the gradient
 * across; docs/pase.md).  Eq. 10 balances the groups' times (alpha T_i =
 * beta T_j); as in the AccPar search (src/search/plan.c search_ratio) the
 * share is the minimiser of the predicted step over candidates around
 * that balance, since the all-reduce does not shrink with the share.
 * With a judge (the step simulator, pase_run.c) the same search runs again
 * from the objective's best on the judge's step, once per plan variant of
 * the groups (optimum, data parallel, expert), keeping the fastest
 * (docs/pase.md "Shares and plans chosen by the step simulator").
 */
#include "search/pase/pase_perf.h"
#include "core/clock.h"
#include "topo/topology.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *pase_hetero_variant_name(pase_hetero_variant v)
{
    static const char *const names[PASE_HETERO_VARIANTS] = {"PaSE optimum", "data-parallel plan",
                                                           "expert plan"};
    return (int)v >= 0 && v < PASE_HETERO_VARIANTS ? names[v] : "unknown";
}

typedef struct {
    const dnp_cluster *c;
    int64_t batch;
    pase_space_builder build;
    const void *user;
    const pase_hetero_opts *o;
    int k;                                   /* groups (types with devices) */
    int type[DNP_MAX_DEVICE_TYPES];
    int n_dev[DNP_MAX_DEVICE_TYPES];
    pase_perf perf[DNP_MAX_DEVICE_TYPES];
    double *memo[DNP_MAX_DEVICE_TYPES];      /* T_t(b), NAN until computed */
    double param_elems;                      /* weights of the model (batch-free) */
    double grad_bytes;                       /* widest gradient element of the types */
    int candidates;
    int variant;                             /* the groups' plans (pase_hetero_variant) */
    double *judge_memo;                      /* two groups: the judge's step by variant
                                              * and b_0, NAN until judged */
    int judged;
} hctx;

/* A group's plan under variant h->variant other than the optimum: PaSE's
 * data-parallel or expert strategy (pase_baselines.c) of pb into fr (cost,
 * footprint, devices; cfg owned by fr), INFINITY when over the group's
 * memory limit. */
static dnp_status baseline_plan(const hctx *h, int t, const pase_problem *pb, pase_fit_result *fr,
                                dnp_error *err)
{
    memset(fr, 0, sizeof *fr);
    fr->cfg = dnp_calloc((size_t)(pb->n_v > 0 ? pb->n_v : 1), sizeof *fr->cfg);
    if (fr->cfg == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory for a group's plan");
        return DNP_ERR_NOMEM;
    }
    if (h->variant == PASE_HETERO_DATA_PARALLEL) {
        pase_data_parallel(pb, fr->cfg);
    } else {
        char name[40];
        dnp_status st = pase_expert(pb, fr->cfg, name, sizeof name, err);
        if (st != DNP_OK)
            return st;
    }
    fr->mem_bytes = pase_footprint(pb, fr->cfg);
    double limit = h->perf[t].mem_limit_bytes;
    fr->cost = limit > 0.0 && fr->mem_bytes > limit ? INFINITY : pase_objective(pb, fr->cfg);
    fr->devices_used = pase_devices_used(pb, fr->cfg);
    return DNP_OK;
}

/* One group's PaSE plan at batch b.  want != NULL: keep the plan in it.
 * A group whose plan does not fit in memory costs INFINITY. */
static dnp_status group_plan(hctx *h, int t, int64_t b, pase_hetero_group *want, double *time_s,
                             dnp_error *err)
{
    *time_s = 0.0;
    if (b <= 0)
        return DNP_OK;
    if (want == NULL && !isnan(h->memo[t][b])) {
        *time_s = h->memo[t][b];
        return DNP_OK;
    }
    iter_space *g = NULL;
    dnp_status st = h->build(h->user, b, &g, err);
    if (st != DNP_OK)
        return st;
    pase_params par = {h->n_dev[t], 1.0, h->o->prototype_edges, h->o->max_table_bytes,
                       h->o->cutoff};
    pase_problem pb;
    if ((st = pase_problem_build_perf(g, &par, &h->perf[t], &pb, err)) != DNP_OK) {
        iter_space_free(g);
        return st;
    }
    pase_fit_result fr;
    dnp_error ferr = {0};
    if (h->variant != PASE_HETERO_OPTIMUM) { /* judged variants only (want set) */
        if ((st = baseline_plan(h, t, &pb, &fr, err)) == DNP_OK && !isfinite(fr.cost)) {
            *time_s = INFINITY;
            if (want != NULL)
                want->time_s = INFINITY;
        }
        if (st != DNP_OK || !isfinite(fr.cost)) {
            pase_fit_result_free(&fr);
            pase_problem_free(&pb);
            iter_space_free(g);
            return st;
        }
    } else {
        st = pase_fit_search(&pb, h->o->search, &fr, &ferr);
    }
    if (st == DNP_ERR_INPUT && ferr.msg[0] != '\0' && strstr(ferr.msg, "no strategy fits")) {
        *time_s = INFINITY; /* this share does not fit: another may */
        st = DNP_OK;
        if (want != NULL) {
            want->time_s = INFINITY;
        }
        pase_problem_free(&pb);
        iter_space_free(g);
        h->memo[t][b] = INFINITY;
        return st;
    }
    if (st != DNP_OK) {
        if (err != NULL)
            *err = ferr;
        pase_problem_free(&pb);
        iter_space_free(g);
        return st;
    }
    *time_s = fr.cost;
    if (h->variant == PASE_HETERO_OPTIMUM)
        h->memo[t][b] = fr.cost;
    h->candidates++;
    if (want != NULL) {
        want->time_s = fr.cost;
        want->mem_bytes = fr.mem_bytes;
        want->devices_used = fr.devices_used;
        want->cfg = fr.cfg;
        fr.cfg = NULL;
        want->cfg_text = dnp_calloc((size_t)(pb.n_v > 0 ? pb.n_v : 1), sizeof *want->cfg_text);
        if (want->cfg_text == NULL) {
            st = DNP_ERR_NOMEM;
        } else {
            for (int v = 0; v < pb.n_v; v++) {
                const pase_configs *cf = &pb.cfg[v];
                size_t n = sizeof want->cfg_text[v], k = (size_t)snprintf(want->cfg_text[v], n, "(");
                for (int d = 0; d < cf->rank && k < n; d++)
                    k += (size_t)snprintf(want->cfg_text[v] + k, n - k, "%s%d", d ? "," : "",
                                          cf->c[(size_t)want->cfg[v] * (size_t)cf->rank + (size_t)d]);
                if (k < n)
                    snprintf(want->cfg_text[v] + k, n - k, ")");
            }
        }
        want->g = g;
        g = NULL;
    }
    pase_fit_result_free(&fr);
    pase_problem_free(&pb);
    iter_space_free(g);
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory keeping a group's plan");
    return st;
}

/* The cross-group all-reduce of the weight gradients (see the top): over
 * one device of each group with samples, src/topo's group of them
 * (topo_group_counts: each type on its own nodes, so one member per node
 * on the slowest of their NIC shares). */
static double sync_s(const hctx *h, const int64_t *b)
{
    int active = 0, min_n = 0;
    int64_t one[DNP_MAX_DEVICE_TYPES] = {0};
    for (int t = 0; t < h->k; t++)
        if (b[t] > 0) {
            active++;
            min_n = (min_n == 0 || h->n_dev[t] < min_n) ? h->n_dev[t] : min_n;
            one[h->type[t]] = 1;
        }
    if (active < 2 || h->param_elems <= 0.0)
        return 0.0;
    dnp_comm_group g;
    topo_group_counts(h->c, one, &g);
    dnp_coll_cost cc;
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &g, h->param_elems * h->grad_bytes / min_n, &cc);
    return cc.time_s;
}

static dnp_status step_of(hctx *h, const int64_t *b, double *step, dnp_error *err)
{
    double worst = 0.0;
    for (int t = 0; t < h->k; t++) {
        double ts;
        dnp_status st = group_plan(h, t, b[t], NULL, &ts, err);
        if (st != DNP_OK)
            return st;
        worst = ts > worst ? ts : worst;
    }
    *step = worst + sync_s(h, b);
    return DNP_OK;
}

/* How a split is scored: the objective (step_of) or the judge (judge_of). */
typedef dnp_status (*split_eval)(hctx *h, const int64_t *b, double *step, dnp_error *err);

/* The judge's step of split b: the groups' plans at their shares, run by
 * o->judge (INFINITY when a group does not fit or the judge cannot run
 * the plan).  Memoised for two groups. */
static dnp_status judge_of(hctx *h, const int64_t *b, double *step, dnp_error *err)
{
    size_t memo = (size_t)h->variant * (size_t)(h->batch + 1) + (size_t)b[0];
    if (h->k == 2 && !isnan(h->judge_memo[memo])) {
        *step = h->judge_memo[memo];
        return DNP_OK;
    }
    pase_hetero_result cand;
    memset(&cand, 0, sizeof cand);
    cand.n_groups = h->k;
    cand.variant = (pase_hetero_variant)h->variant;
    dnp_status st = DNP_OK;
    double worst = 0.0;
    for (int t = 0; t < h->k && st == DNP_OK; t++) {
        pase_hetero_group *gr = &cand.grp[t];
        gr->type = h->type[t];
        gr->n_dev = h->n_dev[t];
        gr->batch = b[t];
        double ts;
        st = group_plan(h, t, b[t], b[t] > 0 ? gr : NULL, &ts, err);
        gr->time_s = ts;
        worst = ts > worst ? ts : worst;
    }
    *step = INFINITY;
    if (st == DNP_OK && isfinite(worst)) {
        cand.sync_s = sync_s(h, b);
        cand.step_s = worst + cand.sync_s;
        cand.judged_s = NAN;
        st = h->o->judge(h->o->judge_user, &cand, step, err);
        h->judged++;
    }
    pase_hetero_result_free(&cand);
    if (st == DNP_OK && h->k == 2)
        h->judge_memo[memo] = *step;
    return st;
}

/* Largest-remainder rounding of real shares w (summing to anything > 0)
 * to integers summing to the batch. */
static void round_shares(const hctx *h, const double *w, int64_t *b)
{
    double sum = 0.0, rem[DNP_MAX_DEVICE_TYPES], by[DNP_MAX_DEVICE_TYPES];
    for (int t = 0; t < h->k; t++)
        sum += (by[t] = w[t]);
    if (!(sum > 0.0) || !isfinite(sum)) { /* no weights to go by: shares by devices */
        sum = 0.0;
        for (int t = 0; t < h->k; t++)
            sum += (by[t] = (double)h->n_dev[t]);
    }
    int64_t given = 0;
    for (int t = 0; t < h->k; t++) {
        double x = (double)h->batch * by[t] / sum;
        b[t] = (int64_t)floor(x);
        rem[t] = x - (double)b[t];
        given += b[t];
    }
    while (given < h->batch) {
        int best = 0;
        for (int t = 1; t < h->k; t++)
            if (rem[t] > rem[best])
                best = t;
        b[best]++;
        rem[best] = -1.0;
        given++;
    }
}

/* Try split b under eval; keep it if strictly better (ties: the first
 * tried). */
static dnp_status try_split(hctx *h, split_eval eval, const int64_t *b, int64_t *best,
                            double *best_s, dnp_error *err)
{
    double s;
    dnp_status st = eval(h, b, &s, err);
    if (st == DNP_OK && s < *best_s) {
        *best_s = s;
        memcpy(best, b, (size_t)h->k * sizeof *b);
    }
    return st;
}

/* From best (scored *best_s under eval): two groups: b_0 over a grid of
 * at most 32 steps (every integer when the batch is at most 32), then a
 * pattern search around the best, step halving to 1.  More groups: moves
 * of samples between pairs of groups, halving. */
static dnp_status refine_shares(hctx *h, split_eval eval, int64_t *best, double *best_s,
                                int *exhaustive, dnp_error *err)
{
    dnp_status st;
    int64_t b[DNP_MAX_DEVICE_TYPES];
    *exhaustive = 0;
    if (h->k == 2) {
        int64_t steps = h->batch < 32 ? h->batch : 32;
        *exhaustive = steps == h->batch;
        for (int64_t i = 0; i <= steps; i++) {
            b[0] = (h->batch * i + steps / 2) / steps;
            b[1] = h->batch - b[0];
            if ((st = try_split(h, eval, b, best, best_s, err)) != DNP_OK)
                return st;
        }
        for (int64_t d = (h->batch / steps + 1) / 2; d >= 1 && !*exhaustive; d /= 2) {
            int moved = 1;
            while (moved) {
                moved = 0;
                for (int sgn = -1; sgn <= 1; sgn += 2) {
                    b[0] = best[0] + sgn * d;
                    b[1] = h->batch - b[0];
                    if (b[0] < 0 || b[1] < 0)
                        continue;
                    double before = *best_s;
                    if ((st = try_split(h, eval, b, best, best_s, err)) != DNP_OK)
                        return st;
                    moved |= *best_s < before;
                }
            }
        }
        return DNP_OK;
    }
    for (int64_t d = h->batch / 8 > 1 ? h->batch / 8 : 1; d >= 1; d /= 2) {
        int moved = 1;
        while (moved) {
            moved = 0;
            for (int i = 0; i < h->k; i++)
                for (int j = 0; j < h->k; j++) {
                    if (i == j || best[i] < d)
                        continue;
                    memcpy(b, best, (size_t)h->k * sizeof *b);
                    b[i] -= d;
                    b[j] += d;
                    double before = *best_s;
                    if ((st = try_split(h, eval, b, best, best_s, err)) != DNP_OK)
                        return st;
                    moved |= *best_s < before;
                }
        }
    }
    return DNP_OK;
}

/* The objective's search: Eq. 10's balance, its fixed point, then
 * refine_shares. */
static dnp_status search_shares(hctx *h, int64_t *best, double *best_s, int *exhaustive,
                                dnp_error *err)
{
    dnp_status st;
    int64_t b[DNP_MAX_DEVICE_TYPES];
    double w[DNP_MAX_DEVICE_TYPES];
    *best_s = INFINITY;
    /* Eq. 10's balance for linear times: shares proportional to speed
     * (devices x peak x compute efficiency) */
    for (int t = 0; t < h->k; t++)
        w[t] = h->n_dev[t] * h->perf[t].r.peak_flops * h->perf[t].r.compute_eff;
    round_shares(h, w, b);
    if ((st = try_split(h, step_of, b, best, best_s, err)) != DNP_OK)
        return st;
    /* Eq. 10 fixed point: alpha T(alpha) balanced, shares ~ share / time
     * (from a balance that fits: else there are no times to go by) */
    for (int it = 0; it < 4 && isfinite(*best_s); it++) {
        double times[DNP_MAX_DEVICE_TYPES];
        int ok = 1;
        for (int t = 0; t < h->k; t++) {
            if ((st = group_plan(h, t, best[t], NULL, &times[t], err)) != DNP_OK)
                return st;
            if (best[t] > 0 && !(times[t] > 0.0 && isfinite(times[t])))
                ok = 0;
            w[t] = best[t] > 0 && ok ? (double)best[t] / times[t] : 0.0;
        }
        if (!ok)
            break;
        round_shares(h, w, b);
        double before = *best_s;
        if ((st = try_split(h, step_of, b, best, best_s, err)) != DNP_OK)
            return st;
        if (!(*best_s < before))
            break;
    }
    return refine_shares(h, step_of, best, best_s, exhaustive, err);
}

dnp_status pase_hetero_search(const dnp_cluster *c, int64_t batch, pase_space_builder build,
                              const void *user, const pase_hetero_opts *o,
                              pase_hetero_result *out, dnp_error *err)
{
    double t0 = dnp_now_s();
    memset(out, 0, sizeof *out);
    hctx h;
    memset(&h, 0, sizeof h);
    h.c = c;
    h.batch = batch;
    h.build = build;
    h.user = user;
    h.o = o;
    dnp_status st = DNP_OK;
    for (int t = 0; t < c->n_types; t++) {
        if (c->counts[t] < 1)
            continue;
        if (c->counts[t] > 65536) {
            dnp_error_set(err, DNP_ERR_INPUT, "device type '%s' has %lld devices (at most 65536)",
                          c->types[t].name, (long long)c->counts[t]);
            return DNP_ERR_INPUT;
        }
        h.type[h.k] = t;
        h.n_dev[h.k] = (int)c->counts[t];
        st = pase_perf_init(&c->types[t], h.n_dev[h.k], o->precision, o->optimizer,
                            o->mem_limit_bytes, o->no_stragglers, &h.perf[h.k], err);
        if (st != DNP_OK)
            return st;
        if (h.perf[h.k].r.grad_bytes > h.grad_bytes)
            h.grad_bytes = h.perf[h.k].r.grad_bytes;
        h.k++;
    }
    if (h.k < 2 || batch < 1) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "the heterogeneous search needs two device types and a batch >= 1");
        return DNP_ERR_INPUT;
    }
    for (int t = 0; t < h.k; t++) {
        h.memo[t] = dnp_malloc((size_t)(batch + 1) * sizeof(double));
        if (h.memo[t] == NULL) {
            st = DNP_ERR_NOMEM;
            dnp_error_set(err, st, "out of memory for the share search");
            goto done;
        }
        for (int64_t b = 0; b <= batch; b++)
            h.memo[t][b] = NAN;
    }
    {
        iter_space *g = NULL;
        if ((st = build(user, batch, &g, err)) != DNP_OK)
            goto done;
        for (int v = 0; v < g->n_nest; v++)
            h.param_elems += pase_perf_param_elems(g, v);
        iter_space_free(g);
    }
    int64_t best[DNP_MAX_DEVICE_TYPES] = {0};
    double best_s;
    if ((st = search_shares(&h, best, &best_s, &out->exhaustive, err)) != DNP_OK)
        goto done;
    out->n_groups = h.k;
    out->candidates = h.candidates;
    if (!isfinite(best_s))
        goto done; /* no split fits: out->fits 0 */
    out->fits = 1;
    out->best_objective_s = best_s;
    out->judged_s = NAN;
    if (o->judge != NULL) {
        /* the same search again on the judge's step, from the objective's
         * best, once with the groups' optima and once with each of PaSE's
         * baselines of the same space (data parallel, expert): the judge
         * keeps the fastest, as the AccPar search reports a baseline when
         * it is faster (dnp_plan_summary.chosen_scheme) */
        size_t n_memo = (size_t)PASE_HETERO_VARIANTS * (size_t)(batch + 1);
        if (h.k == 2) {
            h.judge_memo = dnp_malloc(n_memo * sizeof(double));
            if (h.judge_memo == NULL) {
                st = DNP_ERR_NOMEM;
                dnp_error_set(err, st, "out of memory for the share search");
                goto done;
            }
            for (size_t i = 0; i < n_memo; i++)
                h.judge_memo[i] = NAN;
        }
        int64_t start[DNP_MAX_DEVICE_TYPES];
        memcpy(start, best, sizeof start);
        for (int v = 0; v < PASE_HETERO_VARIANTS; v++) {
            int64_t jbest[DNP_MAX_DEVICE_TYPES];
            double jbest_s = INFINITY;
            int exhaustive;
            h.variant = v;
            memcpy(jbest, start, sizeof jbest);
            if ((st = try_split(&h, judge_of, start, jbest, &jbest_s, err)) != DNP_OK ||
                (st = refine_shares(&h, judge_of, jbest, &jbest_s, &exhaustive, err)) != DNP_OK)
                goto done;
            /* strictly faster: ties keep the optimum, then the earlier baseline;
             * none runnable: the objective's choice */
            if (isfinite(jbest_s) && !(jbest_s >= out->judged_s)) {
                memcpy(best, jbest, sizeof jbest);
                out->judged_s = jbest_s;
                out->variant = (pase_hetero_variant)v;
            }
        }
        h.variant = out->variant;
        out->judged = h.judged;
    }
    out->n_groups = h.k;
    double worst = 0.0;
    for (int t = 0; t < h.k; t++) {
        pase_hetero_group *gr = &out->grp[t];
        gr->type = h.type[t];
        gr->n_dev = h.n_dev[t];
        gr->batch = best[t];
        gr->plan_batch = best[t];
        double ts;
        if ((st = group_plan(&h, t, best[t], best[t] > 0 ? gr : NULL, &ts, err)) != DNP_OK)
            goto done;
        gr->time_s = ts;
        worst = ts > worst ? ts : worst;
    }
    out->sync_s = sync_s(&h, best);
    out->param_bytes = h.param_elems * h.grad_bytes;
    out->step_s = worst + out->sync_s; /* the objective of the groups' plans */
    out->candidates = h.candidates;
done:
    for (int t = 0; t < h.k; t++)
        dnp_free(h.memo[t]);
    dnp_free(h.judge_memo);
    out->search_s = dnp_now_s() - t0;
    if (st != DNP_OK)
        pase_hetero_result_free(out);
    return st;
}

void pase_hetero_result_free(pase_hetero_result *r)
{
    if (r == NULL)
        return;
    for (int t = 0; t < DNP_MAX_DEVICE_TYPES; t++) {
        iter_space_free(r->grp[t].g);
        dnp_free(r->grp[t].cfg);
        dnp_free(r->grp[t].cfg_text);
        dnp_free(r->grp[t].order);
        r->grp[t].g = NULL;
        r->grp[t].cfg = NULL;
        r->grp[t].cfg_text = NULL;
        r->grp[t].order = NULL;
    }
}

dnp_status pase_perf_init_weakest(const dnp_cluster *c, dnp_precision prec, dnp_optimizer o,
                                  double mem_limit_bytes, int no_stragglers, pase_perf *out,
                                  dnp_error *err)
{
    int64_t p = dnp_cluster_devices(c);
    int first = -1;
    for (int t = 0; t < c->n_types && first < 0; t++)
        if (c->counts[t] > 0)
            first = t;
    if (first < 0 || p < 1) {
        dnp_error_set(err, DNP_ERR_INPUT, "the cluster has no devices");
        return DNP_ERR_INPUT;
    }
    dnp_status st = pase_perf_init(&c->types[first], (int)p, prec, o, mem_limit_bytes,
                                   no_stragglers, out, err);
    if (st != DNP_OK)
        return st;
    for (int t = first + 1; t < c->n_types; t++) {
        if (c->counts[t] < 1)
            continue;
        pase_perf m;
        if ((st = pase_perf_init(&c->types[t], (int)p, prec, o, mem_limit_bytes, no_stragglers,
                                 &m, err)) != DNP_OK)
            return st;
        perf_rates *r = &out->r;
        /* the least achieved rates, the largest overheads and elements */
        if (m.r.peak_flops * m.r.compute_eff < r->peak_flops * r->compute_eff) {
            r->peak_flops = m.r.peak_flops;
            r->compute_eff = m.r.compute_eff;
            r->sm_count = m.r.sm_count; /* that device's tiles and waves */
            r->l2_bw_bps = m.r.l2_bw_bps;
        }
        r->host_kernel_s = m.r.host_kernel_s > r->host_kernel_s ? m.r.host_kernel_s : r->host_kernel_s;
        r->vector_flops = m.r.vector_flops < r->vector_flops ? m.r.vector_flops : r->vector_flops;
        if (m.r.mem_bw_bps * m.r.mem_eff < r->mem_bw_bps * r->mem_eff) {
            r->mem_bw_bps = m.r.mem_bw_bps;
            r->mem_eff = m.r.mem_eff;
        }
        r->kernel_overhead_s =
            m.r.kernel_overhead_s > r->kernel_overhead_s ? m.r.kernel_overhead_s : r->kernel_overhead_s;
        r->pace = m.r.pace > r->pace ? m.r.pace : r->pace;
        r->act_bytes = m.r.act_bytes > r->act_bytes ? m.r.act_bytes : r->act_bytes;
        r->param_bytes = m.r.param_bytes > r->param_bytes ? m.r.param_bytes : r->param_bytes;
        r->grad_bytes = m.r.grad_bytes > r->grad_bytes ? m.r.grad_bytes : r->grad_bytes;
        r->master_bytes = m.r.master_bytes > r->master_bytes ? m.r.master_bytes : r->master_bytes;
        out->bytes_per_param =
            m.bytes_per_param > out->bytes_per_param ? m.bytes_per_param : out->bytes_per_param;
        out->opt_bytes_per_param = m.opt_bytes_per_param > out->opt_bytes_per_param
                                       ? m.opt_bytes_per_param
                                       : out->opt_bytes_per_param;
        if (m.mem_limit_bytes < out->mem_limit_bytes)
            out->mem_limit_bytes = m.mem_limit_bytes;
    }
    /* links: p weakest devices on nodes of the cluster's group (src/topo
     * through dnp_cluster_comm_group: as many per node as the emptiest
     * node holds, the slowest of each tier) */
    dnp_comm_group all;
    dnp_cluster_comm_group(c, &all);
    dnp_device_type field = out->dev;
    field.devices_per_node = (int)all.per_node;
    field.intra_topo = all.intra_topo;
    field.intra_bw_bps = all.intra_bw_bps;
    field.intra_lat_s = all.intra_lat_s;
    field.inter_bw_bps = all.inter_bw_bps;
    field.inter_lat_s = all.inter_lat_s;
    snprintf(field.name, sizeof field.name, "weakest");
    pase_perf_set_machine(out, &field, (int)p);
    snprintf(out->dev.name, sizeof out->dev.name, "weakest");
    return DNP_OK;
}
