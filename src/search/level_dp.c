/* level_dp.c - frontier dynamic programming over a DAG (see level_dp.h). */
#include "search/level_dp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRONTIER LEVEL_DP_MAX_FRONTIER

static long pow3(int k)
{
    long p = 1;
    while (k-- > 0)
        p *= 3;
    return p;
}

double level_objective(const level_problem *lp, const int *types)
{
    const layer_table *lt = lp->lt;
    double s = 0.0;
    for (int v = 0; v < lt->n_rows; v++) {
        double in = 0.0;
        for (int e = lt->in_start[v]; e < lt->in_start[v + 1]; e++)
            in += lp->edge_cost[e * 9 + types[lt->xchg[e].u] * 3 + types[v]];
        s += lp->node_cost[v * 3 + types[v]] + in;
    }
    return s;
}

int level_dp_width(const layer_table *lt)
{
    /* the frontier after node v: nodes u <= v with last_use[u] > v */
    int width = 0, live = 0;
    for (int v = 0; v < lt->n_rows; v++) {
        int c = live + 1; /* the DP's combined set before projecting */
        width = c > width ? c : width;
        live = 0;
        for (int u = 0; u <= v; u++)
            live += lt->last_use[u] > v;
    }
    return width;
}

/* Change in the objective when node v moves from state `from` to `to`. */
static double delta_of(const level_problem *lp, const int *types, const int *out_start,
                       const int *out_list, int v, int to)
{
    const layer_table *lt = lp->lt;
    int from = types[v];
    double d = lp->node_cost[v * 3 + to] - lp->node_cost[v * 3 + from];
    for (int e = lt->in_start[v]; e < lt->in_start[v + 1]; e++) {
        int tu = types[lt->xchg[e].u];
        d += lp->edge_cost[e * 9 + tu * 3 + to] - lp->edge_cost[e * 9 + tu * 3 + from];
    }
    for (int k = out_start[v]; k < out_start[v + 1]; k++) {
        int e = out_list[k], tw = types[lt->xchg[e].v];
        d += lp->edge_cost[e * 9 + to * 3 + tw] - lp->edge_cost[e * 9 + from * 3 + tw];
    }
    return d;
}

double level_local_search(const level_problem *lp, int *types)
{
    const layer_table *lt = lp->lt;
    int n = lt->n_rows;
    int *out_start = dnp_calloc((size_t)n + 1, sizeof *out_start);
    int *out_list = dnp_malloc((size_t)(lt->n_xchg > 0 ? lt->n_xchg : 1) * sizeof *out_list);
    if (out_start == NULL || out_list == NULL) {
        dnp_free(out_start);
        dnp_free(out_list);
        return level_objective(lp, types);
    }
    for (int e = 0; e < lt->n_xchg; e++)
        out_start[lt->xchg[e].u + 1]++;
    for (int v = 0; v < n; v++)
        out_start[v + 1] += out_start[v];
    int *fill = dnp_calloc((size_t)n, sizeof *fill);
    if (fill == NULL) { /* out_list would stay unfilled: no search */
        dnp_free(out_start);
        dnp_free(out_list);
        return level_objective(lp, types);
    }
    for (int e = 0; e < lt->n_xchg; e++) {
        int u = lt->xchg[e].u;
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
    int n = lp->lt->n_rows;
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

/* The same when every digit allows all three states (the caller keeps
 * rest and stops after the last entry). */
static inline void odometer3(int *digit)
{
    for (int j = 0; ++digit[j] == 3; j++)
        digit[j] = 0;
}

/* Advance the frontier digits (digit 0 least significant) to the next
 * assignment in which every digit is an allowed state of its node, keeping
 * rest = sum digit[j] 3^j.  Returns 0 after the last one (digits reset). */
static inline int odometer_next(int *digit, const int *first, const long *pw,
                         const unsigned char *allowed, const int *c, int n_f, long *rest)
{
    for (int j = 0; j < n_f; j++) {
        unsigned a = allowed[c[j]];
        int d = digit[j] + 1;
        while (d < 3 && !((a >> d) & 1))
            d++;
        if (d < 3) {
            *rest += (d - digit[j]) * pw[j];
            digit[j] = d;
            return 1;
        }
        *rest -= (digit[j] - first[j]) * pw[j];
        digit[j] = first[j];
    }
    return 0;
}

/* The frontier layout of lt, which depends on the graph only: for each
 * node v, C = (frontier before v) + v and the members of C kept after v.
 * Sizes are checked here, before any table is allocated. */
static dnp_status dp_layout(const level_problem *lp, int *n_c, int *c_start, long *back_start,
                            long *max_table, dnp_error *err)
{
    const layer_table *lt = lp->lt;
    int n_f = 0, frontier[MAX_FRONTIER + 1];
    long c_total = 0, back_total = 0, widest = 1;
    for (int v = 0; v < lt->n_rows; v++) {
        if ((lp->allowed[v] & 7) == 0) {
            dnp_error_set(err, DNP_ERR_INPUT, "search graph node %d allows no partition type", v);
            return DNP_ERR_INPUT;
        }
        n_c[v] = n_f + 1;
        if (n_c[v] > MAX_FRONTIER + 1) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "the model is too wide for the exact search: %d tensors are live at once "
                          "(limit %d)", n_c[v], MAX_FRONTIER + 1);
            return DNP_ERR_INPUT;
        }
        frontier[n_f] = v;
        int n_next = 0;
        for (int j = 0; j < n_c[v]; j++)
            if (lt->last_use[frontier[j]] > v)
                frontier[n_next++] = frontier[j];
        c_start[v] = (int)c_total;
        back_start[v] = back_total;
        c_total += n_c[v];
        back_total += pow3(n_next);
        widest = pow3(n_next) > widest ? pow3(n_next) : widest;
        n_f = n_next;
    }
    c_start[lt->n_rows] = (int)c_total;
    back_start[lt->n_rows] = back_total;
    *max_table = widest;
    return DNP_OK;
}

dnp_status level_dp_solve(const level_problem *lp, int *types, double *best, dnp_error *err)
{
    const layer_table *lt = lp->lt;
    int n = lt->n_rows;
    dnp_status st = DNP_ERR_NOMEM;
    /* One block for the layout and one for the tables: the DP runs once per
     * tree node and candidate ratio, so per-node allocations would dominate
     * small models. */
    int *n_c = dnp_malloc((size_t)(3 * n + 2) * sizeof *n_c);
    long *back_start = dnp_malloc((size_t)(n + 1) * sizeof *back_start);
    int *c_all = NULL, *back_all = NULL;
    double *tables = NULL;
    if (n_c == NULL || back_start == NULL)
        goto done;
    int *c_start = n_c + n, *pos = n_c + 2 * n + 1;
    long max_table;
    if ((st = dp_layout(lp, n_c, c_start, back_start, &max_table, err)) != DNP_OK)
        goto done;
    st = DNP_ERR_NOMEM;
    c_all = dnp_malloc((size_t)c_start[n] * sizeof *c_all);
    back_all = dnp_malloc((size_t)back_start[n] * sizeof *back_all);
    tables = dnp_malloc((size_t)(2 * max_table) * sizeof *tables);
    if (c_all == NULL || back_all == NULL || tables == NULL)
        goto done;
    double *table = tables, *next = tables + max_table;
    int frontier[MAX_FRONTIER + 1], n_f = 0;
    table[0] = 0.0;
    for (int v = 0; v < n; v++)
        pos[v] = -1;

    for (int v = 0; v < n; v++) {
        int *c = c_all + c_start[v];
        int *back = back_all + back_start[v];
        memcpy(c, frontier, (size_t)n_f * sizeof *frontier);
        c[n_f] = v;
        for (int j = 0; j < n_c[v]; j++)
            pos[c[j]] = j;
        /* The next frontier: members of C still read after v. */
        int keep[MAX_FRONTIER + 1], n_next = 0;
        for (int j = 0; j < n_c[v]; j++)
            if (lt->last_use[c[j]] > v)
                keep[n_next++] = j;
        long size_next = back_start[v + 1] - back_start[v], size_f = pow3(n_f);
        for (long i = 0; i < size_next; i++) {
            next[i] = INFINITY;
            back[i] = -1;
        }
        /* C's assignments in increasing index order (v's state is the most
         * significant digit): an odometer over the frontier's digits for
         * each allowed state of v, so disallowed states and unreachable
         * frontier entries cost nothing.  Same order as a plain scan, so the
         * same ties win. */
        int digit[MAX_FRONTIER + 1];
        int in_pos[64], n_in = lt->in_start[v + 1] - lt->in_start[v];
        int few_inputs = n_in <= 64;
        for (int k = 0; few_inputs && k < n_in; k++)
            in_pos[k] = pos[lt->xchg[lt->in_start[v] + k].u];
        /* Frontier digits step through their node's allowed states only:
         * entries with a disallowed digit are unreachable (INFINITY), so a
         * scheme allowing two types visits 2^|F| entries instead of 3^|F|. */
        int first[MAX_FRONTIER + 1], all3 = 1;
        long pw[MAX_FRONTIER + 1];
        for (int j = 0; j < n_f; j++) {
            unsigned a = lp->allowed[c[j]] & 7;
            all3 = all3 && a == 7;
            first[j] = (a & 1) ? 0 : (a & 2) ? 1 : 2;
            pw[j] = j == 0 ? 1 : pw[j - 1] * 3;
        }
        for (int tv = 0; tv < 3; tv++) {
            if (!((lp->allowed[v] >> tv) & 1))
                continue;
            long rest = 0;
            for (int j = 0; j < n_f; j++) {
                digit[j] = first[j];
                rest += first[j] * pw[j];
            }
            digit[n_f] = tv;
            const double node_c = lp->node_cost[v * 3 + tv];
            /* Eq. 9: c(L_i+1, t) = min_tt c(L_i, tt) + E_cp(t) + E_cm(tt, t),
             * for the frontier assignment `rest` (digits in digit[]). */
#define RELAX(rest_)                                                               \
    do {                                                                           \
        double val_ = table[rest_];                                                \
        if (val_ == INFINITY)                                                      \
            break;                                                                 \
        for (int k = 0; k < n_in; k++) {                                           \
            int e = lt->in_start[v] + k;                                           \
            int tu = digit[few_inputs ? in_pos[k] : pos[lt->xchg[e].u]];          \
            val_ += lp->edge_cost[e * 9 + tu * 3 + tv];                            \
        }                                                                          \
        double total_ = node_c + val_;                                             \
        long nidx_ = 0;                                                            \
        for (int k = n_next - 1; k >= 0; k--)                                      \
            nidx_ = nidx_ * 3 + digit[keep[k]];                                    \
        if (total_ < next[nidx_]) {                                                \
            next[nidx_] = total_;                                                  \
            back[nidx_] = (int)((long)tv * size_f + (rest_));                      \
        }                                                                          \
    } while (0)
            if (all3) {
                for (rest = 0; rest < size_f; rest++) {
                    if (rest > 0)
                        odometer3(digit);
                    RELAX(rest);
                }
            } else {
                do
                    RELAX(rest);
                while (odometer_next(digit, first, pw, lp->allowed, c, n_f, &rest));
            }
#undef RELAX
        }
        for (int j = 0; j < n_c[v]; j++)
            pos[c[j]] = -1;
        for (int k = 0; k < n_next; k++)
            frontier[k] = c[keep[k]]; /* c is a copy: no aliasing */
        n_f = n_next;
        double *t = table;
        table = next;
        next = t;
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
        const int *c = c_all + c_start[v];
        long idx = back_all[back_start[v] + idx_next];
        long r = idx;
        for (int j = 0; j < n_c[v]; j++) {
            types[c[j]] = (int)(r % 3);
            r /= 3;
        }
        idx_next = idx % pow3(n_c[v] - 1);
    }
    st = DNP_OK;
done:
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory in the layer-wise search");
    dnp_free(n_c);
    dnp_free(back_start);
    dnp_free(c_all);
    dnp_free(back_all);
    dnp_free(tables);
    return st;
}
