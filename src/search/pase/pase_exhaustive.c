/*
 * pase_exhaustive.c - the brute force of section III-A: every strategy,
 * the minimum of Eq. 1.  The test oracle for the dynamic programs.
 */
#include "search/pase/pase.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double pase_exhaustive(const pase_problem *pb, double max_strategies, int *best)
{
    int n = pb->n_v;
    double total = 1.0;
    for (int v = 0; v < n; v++)
        total *= pb->cfg[v].n;
    if (total > max_strategies || n == 0)
        return -1.0;
    /* full t_x matrices of the (small) graph */
    double **mx = dnp_calloc((size_t)pb->n_e + 1, sizeof(double *));
    int *cur = dnp_calloc((size_t)n, sizeof(int));
    double result = -1.0;
    if (mx == NULL || cur == NULL)
        goto done;
    for (int k = 0; k < pb->n_e; k++) {
        const iter_read *e = &pb->g->read[pb->edge[k]];
        int ku = pb->cfg[e->src].n, kv = pb->cfg[e->dst].n;
        mx[k] = dnp_malloc((size_t)ku * (size_t)kv * sizeof(double));
        if (mx[k] == NULL)
            goto done;
        for (int a = 0; a < ku; a++)
            for (int b = 0; b < kv; b++)
                mx[k][(size_t)a * (size_t)kv + (size_t)b] = pase_problem_edge_cost(pb, k, a, b);
    }
    double bestf = INFINITY;
    for (;;) {
        double f = 0.0;
        for (int v = 0; v < n; v++)
            f += pb->tl[v][cur[v]];
        for (int k = 0; k < pb->n_e; k++) {
            const iter_read *e = &pb->g->read[pb->edge[k]];
            f += mx[k][(size_t)cur[e->src] * (size_t)pb->cfg[e->dst].n + (size_t)cur[e->dst]];
        }
        if (f < bestf) { /* the first optimum in enumeration order */
            bestf = f;
            memcpy(best, cur, (size_t)n * sizeof(int));
        }
        int v = n - 1; /* odometer, the last vertex fastest */
        while (v >= 0 && ++cur[v] == pb->cfg[v].n)
            cur[v--] = 0;
        if (v < 0)
            break;
    }
    result = bestf;
done:
    for (int k = 0; mx && k < pb->n_e; k++)
        dnp_free(mx[k]);
    dnp_free(mx);
    dnp_free(cur);
    return result;
}
