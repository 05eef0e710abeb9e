/*
 * bench_plan.c - planning speed, measured not asserted.
 *
 * 1. Median wall time of dnp_plan_run per zoo model and scheme on the
 *    heterogeneous AccPar array (128 TPU-v2 + 128 TPU-v3, batch 512, 8 levels).
 * 2. The layer-wise DP against exhaustive enumeration of the same level
 *    problem (our own baseline: what a search without Eq. 9 costs), same run,
 *    as a ratio of medians.
 */
#include "search/plan_internal.h"

#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

#define REPS 21

int main(void)
{
    dnp_error err = {0};
    dnp_cluster cl;
    if (dnp_cluster_parse("128xtpu-v2+128xtpu-v3", &cl, &err) != DNP_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    printf("plan time, 128xtpu-v2+128xtpu-v3, batch 512, 8 levels (median of %d runs, ms)\n",
           REPS);
    printf("%-10s %6s %10s %10s %10s %10s\n", "model", "nodes", "dp", "owt", "hypar", "accpar");
    for (int i = 0; i < dnp_zoo_count(); i++) {
        dnp_graph *g = NULL;
        if (dnp_zoo_build(dnp_zoo_name(i), &g, &err) != DNP_OK)
            return 1;
        printf("%-10s", dnp_zoo_name(i));
        for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
            double t[REPS];
            int nodes = 0;
            for (int r = 0; r < REPS; r++) {
                dnp_plan_options opt = {.scheme = (dnp_scheme)s, .batch = 512, .levels = 0,
                                        .reference_mode = 0, .keep_over_memory = 1};
                dnp_plan *p = NULL;
                double t0 = bench_now_s();
                if (dnp_plan_run(g, &cl, &opt, &p, &err) != DNP_OK)
                    return 1;
                t[r] = bench_now_s() - t0;
                nodes = dnp_plan_n_nodes(p);
                dnp_plan_free(p);
            }
            if (s == 0)
                printf(" %6d", nodes);
            printf(" %10.3f", 1e3 * bench_median(t, REPS));
        }
        printf("\n");
        dnp_graph_free(g);
    }

    /* DP vs exhaustive on one level of each small model. */
    printf("\none level, identical halves: layer-wise DP vs exhaustive enumeration "
           "(median of %d, ms)\n", REPS);
    printf("%-10s %6s %12s %12s %10s %s\n", "model", "nodes", "dp", "exhaustive", "ratio",
           "same optimum");
    const char *small[] = {"lenet", "alexnet", "vgg11", "vgg13"};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        dnp_graph *g = NULL;
        layer_table lt;
        if (dnp_zoo_build(small[i], &g, &err) != DNP_OK || layer_table_build(g, 512, &lt, &err))
            return 1;
        int V = lt.n_rows;
        tnode root = {0}, half = {0};
        tnode_eval root_ev = {0}, half_ev = {0};
        root.ev = &root_ev;
        half.ev = &half_ev;
        double *ones = dnp_malloc((size_t)V * sizeof *ones);
        for (int v = 0; v < V; v++)
            ones[v] = 1.0;
        root.fb = root.fi = root.fo = ones;
        half_ev.flops = 420e12;
        half_ev.bw_bps = 2e9;
        root.child[0] = root.child[1] = &half;
        level_ctx lc = {&lt, &root, {.bytes_per_elem = 2, .paper = 1}, 0};
        double *nc = dnp_malloc((size_t)V * 3 * sizeof *nc);
        double *ec = dnp_malloc((size_t)(lt.n_xchg + 1) * 9 * sizeof *ec);
        unsigned char *allowed = dnp_malloc((size_t)V);
        int *types = dnp_malloc((size_t)V * sizeof *types);
        memset(allowed, 7, (size_t)V);
        level_costs(&lc, 0.5, nc, ec);
        level_problem lp = {&lt, allowed, nc, ec};
        double td[REPS], te[REPS], best_dp = 0, best_ex = 0;
        int reps_ex = V > 12 ? 3 : REPS;
        for (int r = 0; r < REPS; r++) {
            double t0 = bench_now_s();
            level_dp_solve(&lp, types, &best_dp, &err);
            td[r] = bench_now_s() - t0;
        }
        for (int r = 0; r < reps_ex; r++) {
            double t0 = bench_now_s();
            best_ex = level_brute_force(&lp, types);
            te[r] = bench_now_s() - t0;
        }
        double md = bench_median(td, REPS), me = bench_median(te, reps_ex);
        /* the two sum the same terms in different orders: equal to rounding */
        int same = fabs(best_dp - best_ex) <= 1e-12 * best_ex;
        printf("%-10s %6d %12.4f %12.1f %9.0fx %s\n", small[i], V, 1e3 * md, 1e3 * me, me / md,
               same ? "yes" : "NO");
        dnp_free(nc);
        dnp_free(ec);
        dnp_free(allowed);
        dnp_free(types);
        dnp_free(ones);
        layer_table_free(&lt);
        dnp_graph_free(g);
    }
    return 0;
}
