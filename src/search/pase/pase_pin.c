/*
 * pase_pin.c - PaSE's search where its exact DP cannot run: some ops
 * pinned to one configuration, the DP exact over the others (docs/pase.md
 * "Dense graphs: pinned ops").
 *
 * FindBestStrategy's cost is O(|V|^2 K^(M+1)) with M the largest
 * dependent set (PaSE section V): on a uniformly dense graph such as
 * DenseNet no ordering keeps M small (DenseNet-121: 25 ops, tables of
 * 4e29 rows), and the paper leaves it there.  A dependent set's table has
 * prod_{u in D} K_u rows, so an op held to one configuration (K_u = 1)
 * drops out of every table it appears in.  The search here:
 *   1. pins ops until the DP fits the table guard and a work budget: at
 *      the step with the largest table, the member of its dependent set
 *      (or the step's own op) with the most configurations, pinned to its
 *      expert configuration (PaSE section IV; its least t_l if that one
 *      is pruned), repeatedly;
 *   2. runs the exact DP with the pinned ops held (a view of the problem
 *      in which each pinned op has its one configuration);
 *   3. improves: each pinned op in turn takes the configuration of least
 *      cost given all the others (its t_l plus its edges' t_x), then the
 *      DP reruns for the unpinned ops given the pinned ones; repeated
 *      while the objective falls (at most PIN_ROUNDS rounds).
 * Each step keeps the strategy feasible and never raises Eq. 1's F, so
 * the result is at least as good as the expert's configurations on the
 * pinned ops with the best of everything else, and a local optimum in
 * the pinned ops; it is not proven optimal.
 */
#include "search/pase/pase.h"
#include "core/alloc.h"

#include <math.h>
#include <string.h>

#define PIN_ROUNDS 4
/* The DP's work budget (largest_step's measure): about a second for one
 * DP on this machine (pase-densenet121, p = 8: 1e9 in 0.6 s). */
#define PIN_MAX_WORK 1e9

/* A view of pb in which every op v with pin[v] >= 0 has the single
 * configuration pin[v]: its configuration table, t_l, memory rows and the
 * edge sides' projections are offset to that configuration; everything
 * else is pb's (borrowed). */
typedef struct {
    pase_problem view;
    pase_configs *cfg;
    double **tl, **mem;
    pase_side *src, *dst;
} pin_view;

static void view_free(pin_view *w)
{
    dnp_free(w->cfg);
    dnp_free(w->tl);
    dnp_free(w->mem);
    dnp_free(w->src);
    dnp_free(w->dst);
    memset(w, 0, sizeof *w);
}

static dnp_status view_new(const pase_problem *pb, pin_view *w)
{
    memset(w, 0, sizeof *w);
    size_t nv = (size_t)pb->n_v + 1, ne = (size_t)pb->n_e + 1;
    w->cfg = dnp_malloc(nv * sizeof *w->cfg);
    w->tl = dnp_malloc(nv * sizeof *w->tl);
    w->mem = pb->mem != NULL ? dnp_malloc(nv * sizeof *w->mem) : NULL;
    w->src = dnp_malloc(ne * sizeof *w->src);
    w->dst = dnp_malloc(ne * sizeof *w->dst);
    if (!w->cfg || !w->tl || (pb->mem != NULL && !w->mem) || !w->src || !w->dst) {
        view_free(w);
        return DNP_ERR_NOMEM;
    }
    memcpy(w->cfg, pb->cfg, (size_t)pb->n_v * sizeof *w->cfg);
    memcpy(w->tl, pb->tl, (size_t)pb->n_v * sizeof *w->tl);
    if (pb->mem != NULL)
        memcpy(w->mem, pb->mem, (size_t)pb->n_v * sizeof *w->mem);
    memcpy(w->src, pb->src, (size_t)pb->n_e * sizeof *w->src);
    memcpy(w->dst, pb->dst, (size_t)pb->n_e * sizeof *w->dst);
    w->view = *pb;
    w->view.cfg = w->cfg;
    w->view.tl = w->tl;
    w->view.mem = w->mem;
    w->view.src = w->src;
    w->view.dst = w->dst;
    return DNP_OK;
}

/* Hold op v of the view at configuration c of pb (c < 0: free again). */
static void view_pin(pin_view *w, const pase_problem *pb, int v, int c)
{
    int at = c < 0 ? 0 : c;
    const pase_configs *cf = &pb->cfg[v];
    w->cfg[v].n = c < 0 ? cf->n : 1;
    w->cfg[v].c = cf->c + (size_t)at * (size_t)cf->rank;
    w->tl[v] = pb->tl[v] + at;
    if (w->mem != NULL)
        w->mem[v] = pb->mem[v] + at;
    for (int i = pb->inc_start[v]; i < pb->inc_start[v + 1]; i++) {
        int k = pb->inc[i];
        const iter_read *e = &pb->g->read[pb->edge[k]];
        if (e->src == v)
            w->src[k].proj_of = pb->src[k].proj_of + at;
        if (e->dst == v)
            w->dst[k].proj_of = pb->dst[k].proj_of + at;
    }
}

/* The sequence position with the largest table (rows = prod of the
 * view's K over its dependent set), and the DP's work on the view: rows x
 * K_v x (1 + |D|) summed over the steps. */
static int largest_step(const pase_problem *view, const pase_seq *s, double *work)
{
    int worst = -1;
    double worst_rows = -1.0;
    *work = 0.0;
    for (int i = 0; i < s->n; i++) {
        double rows = 1.0;
        for (int k = s->dep_start[i]; k < s->dep_start[i + 1]; k++)
            rows *= view->cfg[s->dep[k]].n;
        /* each row of each K_v adds a term per dependent op (its table
         * or edge: leaf() in pase_dp.c) */
        *work += rows * view->cfg[s->order[i]].n * (1.0 + (s->dep_start[i + 1] - s->dep_start[i]));
        if (rows > worst_rows) {
            worst_rows = rows;
            worst = i;
        }
    }
    return worst;
}

/* Op v's share of F at configuration c given cfg for every other op: its
 * t_l plus the t_x of its active edges (stops adding past `stop`).
 * O(degree x rank). */
static double local_cost(const pase_problem *pb, const int *cfg, int v, int c, double stop)
{
    double f = pb->tl[v][c];
    for (int i = pb->inc_start[v]; i < pb->inc_start[v + 1] && f < stop; i++) {
        int k = pb->inc[i];
        const iter_read *e = &pb->g->read[pb->edge[k]];
        f += pase_problem_edge_cost(pb, k, e->src == v ? c : cfg[e->src],
                                    e->dst == v ? c : cfg[e->dst]);
    }
    return f;
}

/* The configuration of v of least cost given cfg for every other op
 * (local_cost), cfg[v] unless another is strictly cheaper.
 * O(K_v x degree x rank). */
static int best_local(const pase_problem *pb, const int *cfg, int v)
{
    int best = cfg[v];
    double best_cost = local_cost(pb, cfg, v, cfg[v], INFINITY);
    for (int c = 0; c < pb->cfg[v].n; c++) {
        double f = local_cost(pb, cfg, v, c, best_cost);
        if (f < best_cost) {
            best_cost = f;
            best = c;
        }
    }
    return best;
}

/* The DP on the view; cfg gets every op's configuration of pb. */
static dnp_status solve(const pin_view *w, const pase_seq *s, const pase_search_opts *o,
                        const int *pin, int *cfg, pase_result *stats, dnp_error *err)
{
    pase_result r;
    dnp_status st = pase_dp_run(&w->view, s, o, &r, err);
    if (st != DNP_OK)
        return st;
    for (int v = 0; v < s->n; v++)
        cfg[v] = pin[v] >= 0 ? pin[v] : r.cfg[v];
    *stats = r;
    stats->cfg = NULL;
    pase_result_free(&r);
    return DNP_OK;
}

dnp_status pase_search_pinned(const pase_problem *pb, const pase_seq *s, const pase_search_opts *o,
                              pase_result *res, dnp_error *err)
{
    int n = pb->n_v;
    int *pin = dnp_malloc(((size_t)n + 1) * sizeof *pin);
    int *expert = dnp_malloc(((size_t)n + 1) * sizeof *expert);
    int *cfg = dnp_malloc(((size_t)n + 1) * sizeof *cfg);
    pin_view w;
    memset(&w, 0, sizeof w);
    dnp_status st = DNP_ERR_NOMEM;
    if (!pin || !expert || !cfg || view_new(pb, &w) != DNP_OK) {
        dnp_error_set(err, st, "out of memory pinning ops for the PaSE search");
        goto done;
    }
    char what[64];
    if ((st = pase_expert(pb, expert, what, sizeof what, err)) != DNP_OK)
        goto done;
    for (int v = 0; v < n; v++) {
        pin[v] = -1;
        if (!isfinite(pb->tl[v][expert[v]])) /* pruned (memory): its least t_l instead */
            for (int c = 0; c < pb->cfg[v].n; c++)
                if (pb->tl[v][c] < pb->tl[v][expert[v]] || !isfinite(pb->tl[v][expert[v]]))
                    expert[v] = c;
    }
    /* 1. pin until the tables fit the guard and the work the budget */
    int pinned = 0, threads = PASE_MAX_THREADS; /* machine-independent */
    for (;;) {
        double work, max_rows;
        int i = largest_step(&w.view, s, &work);
        double need = pase_dp_estimate(&w.view, s, threads, &max_rows, NULL);
        if (i < 0 || (need <= pb->par.max_bytes && max_rows <= 4e18 && work <= PIN_MAX_WORK))
            break; /* fits (or an empty graph: nothing to pin) */
        int pick = -1;
        for (int k = s->dep_start[i]; k <= s->dep_start[i + 1]; k++) {
            int u = k < s->dep_start[i + 1] ? s->dep[k] : s->order[i];
            if (pin[u] < 0 && pb->cfg[u].n > 1 && (pick < 0 || pb->cfg[u].n > pb->cfg[pick].n))
                pick = u;
        }
        if (pick < 0) {
            st = DNP_ERR_INPUT;
            dnp_error_set(err, st,
                          "the PaSE tables stay over --max-memory %.0f MiB with every op of "
                          "the dependent set of '%s' pinned",
                          pb->par.max_bytes / 1048576.0, pb->g->nest[s->order[i]].name);
            goto done;
        }
        pin[pick] = expert[pick];
        view_pin(&w, pb, pick, pin[pick]);
        pinned++;
    }
    /* 2. the exact DP over the others */
    pase_result stats;
    if ((st = solve(&w, s, o, pin, cfg, &stats, err)) != DNP_OK)
        goto done;
    double best = pase_objective(pb, cfg);
    /* 3. the pinned ops one at a time, then the DP again */
    for (int round = 0; round < PIN_ROUNDS; round++) {
        int moved = 0;
        for (int v = 0; v < n; v++) {
            if (pin[v] < 0)
                continue;
            int c = best_local(pb, cfg, v);
            if (c != cfg[v]) {
                cfg[v] = pin[v] = c;
                view_pin(&w, pb, v, c);
                moved = 1;
            }
        }
        if (!moved)
            break;
        int *again = dnp_malloc(((size_t)n + 1) * sizeof *again);
        if (again == NULL) {
            st = DNP_ERR_NOMEM;
            dnp_error_set(err, st, "out of memory pinning ops for the PaSE search");
            goto done;
        }
        pase_result more;
        if ((st = solve(&w, s, o, pin, again, &more, err)) != DNP_OK) {
            dnp_free(again);
            goto done;
        }
        /* exact for the unpinned ops given the pinned: never above cfg */
        double f = pase_objective(pb, again);
        if (f <= pase_objective(pb, cfg))
            memcpy(cfg, again, (size_t)n * sizeof *cfg);
        dnp_free(again);
        f = pase_objective(pb, cfg);
        if (!(f < best))
            break;
        best = f;
    }
    memset(res, 0, sizeof *res);
    res->cost = pase_objective(pb, cfg);
    res->cfg = cfg;
    cfg = NULL;
    res->table_bytes = pase_dp_estimate(&w.view, s, 1, &res->max_rows, &res->work);
    res->max_dep = stats.max_dep;
    res->pinned = pinned;
    st = DNP_OK;
done:
    view_free(&w);
    dnp_free(pin);
    dnp_free(expert);
    dnp_free(cfg);
    return st;
}
