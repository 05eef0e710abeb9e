/* level_dp.c - frontier dynamic programming over a DAG (see level_dp.h). */
#include "search/level_dp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRONTIER LEVEL_DP_MAX_FRONTIER

typedef struct {
    int n_c;      /* |C| = |frontier before| + 1 (the node itself, last) */
    int *c;       /* nodes of C, increasing */
    int *back;    /* per entry of the next table: the index into C's space */
} dp_step;

static long pow3(int k)
{
    long p = 1;
    while (k-- > 0)
        p *= 3;
    return p;
}

double level_objective(const level_problem *lp, const int *types)
{
    const pgraph *pg = lp->pg;
    double s = 0.0;
    for (int v = 0; v < pg->n_nodes; v++) {
        double in = 0.0;
        for (int e = pg->in_start[v]; e < pg->in_start[v + 1]; e++)
            in += lp->edge_cost[e * 9 + types[pg->edges[e].u] * 3 + types[v]];
        s += lp->node_cost[v * 3 + types[v]] + in;
    }
    return s;
}

int level_dp_width(const pgraph *pg)
{
    /* the frontier after node v: nodes u <= v with last_use[u] > v */
    int width = 0, live = 0;
    for (int v = 0; v < pg->n_nodes; v++) {
        int c = live + 1; /* the DP's combined set before projecting */
        width = c > width ? c : width;
        live = 0;
        for (int u = 0; u <= v; u++)
            live += pg->last_use[u] > v;
    }
    return width;
}

/* Change in the objective when node v moves from state `from` to `to`. */
static double delta_of(const level_problem *lp, const int *types, const int *out_start,
                       const int *out_list, int v, int to)
{
    const pgraph *pg = lp->pg;
    int from = types[v];
    double d = lp->node_cost[v * 3 + to] - lp->node_cost[v * 3 + from];
    for (int e = pg->in_start[v]; e < pg->in_start[v + 1]; e++) {
        int tu = types[pg->edges[e].u];
        d += lp->edge_cost[e * 9 + tu * 3 + to] - lp->edge_cost[e * 9 + tu * 3 + from];
    }
    for (int k = out_start[v]; k < out_start[v + 1]; k++) {
        int e = out_list[k], tw = types[pg->edges[e].v];
        d += lp->edge_cost[e * 9 + to * 3 + tw] - lp->edge_cost[e * 9 + from * 3 + tw];
    }
    return d;
}

double level_local_search(const level_problem *lp, int *types)
{
    const pgraph *pg = lp->pg;
    int n = pg->n_nodes;
    int *out_start = dnp_calloc((size_t)n + 1, sizeof *out_start);
    int *out_list = dnp_malloc((size_t)(pg->n_edges > 0 ? pg->n_edges : 1) * sizeof *out_list);
    if (out_start == NULL || out_list == NULL) {
        dnp_free(out_start);
        dnp_free(out_list);
        return level_objective(lp, types);
    }
    for (int e = 0; e < pg->n_edges; e++)
        out_start[pg->edges[e].u + 1]++;
    for (int v = 0; v < n; v++)
        out_start[v + 1] += out_start[v];
    int *fill = dnp_calloc((size_t)n, sizeof *fill);
    for (int e = 0; fill != NULL && e < pg->n_edges; e++) {
        int u = pg->edges[e].u;
        out_list[out_start[u] + fill[u]++] = e;
    }
    dnp_free(fill);
    for (int sweep = 0; sweep < 1000; sweep++) {
        int changed = 0;
        for (int v = 0; v < n; v++)
            for (int t = 0; t < 3; t++) {
                if (t == types[v] || !((lp->allowed[v] >> t) & 1))
                    continue;
                /* accept only clear improvements, so rounding cannot cycle */
                double d = delta_of(lp, types, out_start, out_list, v, t);
                if (d < -1e-12 * (1.0 + lp->node_cost[v * 3 + types[v]])) {
                    types[v] = t;
                    changed = 1;
                }
            }
        if (!changed)
            break;
    }
    dnp_free(out_start);
    dnp_free(out_list);
    return level_objective(lp, types);
}

double level_brute_force(const level_problem *lp, int *types)
{
    int n = lp->pg->n_nodes;
    int *cur = dnp_calloc((size_t)n, sizeof *cur);
    double best = INFINITY;
    if (cur == NULL)
        return NAN;
    long total = pow3(n);
    for (long idx = 0; idx < total; idx++) {
        long r = idx;
        int ok = 1;
        for (int v = 0; v < n; v++) {
            cur[v] = (int)(r % 3);
            r /= 3;
            ok &= (lp->allowed[v] >> cur[v]) & 1;
        }
        if (!ok)
            continue;
        double s = level_objective(lp, cur);
        if (s < best) {
            best = s;
            memcpy(types, cur, (size_t)n * sizeof *cur);
        }
    }
    dnp_free(cur);
    return best;
}

dnp_status level_dp_solve(const level_problem *lp, int *types, double *best, dnp_error *err)
{
    const pgraph *pg = lp->pg;
    int n = pg->n_nodes;
    dnp_status st = DNP_ERR_NOMEM;
    dp_step *steps = dnp_calloc((size_t)n, sizeof *steps);
    int *pos = dnp_malloc((size_t)n * sizeof *pos);
    int *frontier = dnp_malloc((size_t)(n + 1) * sizeof *frontier);
    double *table = dnp_malloc(sizeof *table), *next = NULL;
    int n_f = 0;
    if (!steps || !pos || !frontier || !table)
        goto done;
    table[0] = 0.0;
    for (int v = 0; v < n; v++)
        pos[v] = -1;

    for (int v = 0; v < n; v++) {
        if ((lp->allowed[v] & 7) == 0) {
            st = DNP_ERR_INPUT;
            dnp_error_set(err, st, "search graph node %d allows no partition type", v);
            goto done;
        }
        dp_step *sp = &steps[v];
        sp->n_c = n_f + 1;
        if (sp->n_c > MAX_FRONTIER + 1) {
            st = DNP_ERR_INPUT;
            dnp_error_set(err, st,
                          "the model is too wide for the exact search: %d tensors are live at once "
                          "(limit %d)", sp->n_c, MAX_FRONTIER + 1);
            goto done;
        }
        sp->c = dnp_malloc((size_t)sp->n_c * sizeof *sp->c);
        if (sp->c == NULL)
            goto done;
        memcpy(sp->c, frontier, (size_t)n_f * sizeof *frontier);
        sp->c[n_f] = v;
        for (int j = 0; j < sp->n_c; j++)
            pos[sp->c[j]] = j;
        /* The next frontier: members of C still read after v. */
        int keep[MAX_FRONTIER + 1], n_next = 0;
        for (int j = 0; j < sp->n_c; j++)
            if (pg->last_use[sp->c[j]] > v)
                keep[n_next++] = j;
        long size_c = pow3(sp->n_c), size_next = pow3(n_next), size_f = pow3(n_f);
        next = dnp_malloc((size_t)size_next * sizeof *next);
        sp->back = dnp_malloc((size_t)size_next * sizeof *sp->back);
        if (next == NULL || sp->back == NULL)
            goto done;
        for (long i = 0; i < size_next; i++) {
            next[i] = INFINITY;
            sp->back[i] = -1;
        }
        /* C's assignments in increasing index order (v's state is the most
         * significant digit): an odometer over the frontier's digits for
         * each allowed state of v, so disallowed states and unreachable
         * frontier entries cost nothing.  Same order as a plain scan, so the
         * same ties win. */
        int digit[MAX_FRONTIER + 1];
        int in_pos[64], n_in = pg->in_start[v + 1] - pg->in_start[v];
        int few_inputs = n_in <= 64;
        for (int k = 0; few_inputs && k < n_in; k++)
            in_pos[k] = pos[pg->edges[pg->in_start[v] + k].u];
        for (int tv = 0; tv < 3; tv++) {
            if (!((lp->allowed[v] >> tv) & 1))
                continue;
            for (int j = 0; j < n_f; j++)
                digit[j] = 0;
            digit[n_f] = tv;
            const double node_c = lp->node_cost[v * 3 + tv];
            for (long rest = 0; rest < size_f; rest++) {
                if (rest > 0)
                    for (int j = 0; ++digit[j] == 3; j++)
                        digit[j] = 0;
                double prev = table[rest];
                if (prev == INFINITY)
                    continue;
                /* Eq. 9: c(L_i+1, t) = min_tt c(L_i, tt) + E_cp(t) + E_cm(tt, t) */
                double val = prev;
                for (int k = 0; k < n_in; k++) {
                    int e = pg->in_start[v] + k;
                    int tu = digit[few_inputs ? in_pos[k] : pos[pg->edges[e].u]];
                    val += lp->edge_cost[e * 9 + tu * 3 + tv];
                }
                double total = node_c + val;
                long nidx = 0;
                for (int k = n_next - 1; k >= 0; k--)
                    nidx = nidx * 3 + digit[keep[k]];
                if (total < next[nidx]) {
                    next[nidx] = total;
                    sp->back[nidx] = (int)((long)tv * size_f + rest);
                }
            }
        }
        (void)size_c;
        for (int j = 0; j < sp->n_c; j++)
            pos[sp->c[j]] = -1;
        for (int k = 0; k < n_next; k++)
            frontier[k] = sp->c[keep[k]]; /* sp->c is a copy: no aliasing */
        n_f = n_next;
        dnp_free(table);
        table = next;
        next = NULL;
    }
    /* n_f == 0 now: every node's readers are processed. */
    if (table[0] == INFINITY) {
        st = DNP_ERR_INPUT;
        dnp_error_set(err, st, "no allowed assignment of partition types");
        goto done;
    }
    *best = table[0];
    long idx_next = 0;
    for (int v = n - 1; v >= 0; v--) {
        dp_step *sp = &steps[v];
        long idx = sp->back[idx_next];
        long r = idx;
        for (int j = 0; j < sp->n_c; j++) {
            types[sp->c[j]] = (int)(r % 3);
            r /= 3;
        }
        idx_next = idx % pow3(sp->n_c - 1);
    }
    st = DNP_OK;
done:
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory in the layer-wise search");
    if (steps != NULL)
        for (int v = 0; v < n; v++) {
            dnp_free(steps[v].c);
            dnp_free(steps[v].back);
        }
    dnp_free(steps);
    dnp_free(pos);
    dnp_free(frontier);
    dnp_free(table);
    dnp_free(next);
    return st;
}
