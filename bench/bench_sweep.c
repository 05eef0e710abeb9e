/*
 * bench_sweep.c - issue 9's full AccPar sweep, counted not timed: every zoo
 * model x clusters of 3, 5, 6, 10, 12, 24, 48, 96 devices of one type, two
 * mixed two-type clusters, a three-type cluster and powers of two x every
 * --levels x batch 32 and 512, under both cost models.  Prints how many
 * cases AccPar is slower than a dp, owt or hypar plan that fits in memory
 * (expected: 0; AccPar returns the best plan that fits, so a faster
 * baseline over the limit is no alternative) and the wall time; with
 * SWEEP_VERBOSE set, each such case on stderr.  tests/unit/test_search.c
 * runs a subset of it.
 */
#include "dnnpar.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int main(void)
{
    static const char *const specs[] = {
        "3xtpu-v3",  "5xtpu-v3",          "6xtpu-v3",          "10xtpu-v3",
        "12xtpu-v3", "24xtpu-v3",         "48xtpu-v3",         "96xtpu-v3",
        "8xtpu-v3",  "64xtpu-v2",         "4xtpu-v2+4xtpu-v3", "3xtpu-v2+5xtpu-v3",
        "16xa100",   "2xtpu-v2+2xtpu-v3+4x1080ti"};
    const int n_specs = (int)(sizeof specs / sizeof specs[0]);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int cm = 0; cm < DNP_COST_COUNT; cm++) {
        int cases = 0, slower = 0;
        double worst = 1.0;
        for (int i = 0; i < dnp_zoo_count(); i++) {
            dnp_graph *g = NULL;
            dnp_error err;
            memset(&err, 0, sizeof err);
            if (dnp_zoo_build(dnp_zoo_name(i), &g, &err) != DNP_OK)
                return 1;
            for (int c = 0; c < n_specs; c++) {
                dnp_cluster cl;
                if (dnp_cluster_parse(specs[c], &cl, &err) != DNP_OK)
                    return 1;
                int maxl = dnp_cluster_max_levels(&cl);
                for (int L = 1; L <= maxl; L++)
                    for (int bi = 0; bi < 2; bi++) {
                        double t[DNP_SCHEME_COUNT];
                        int fits[DNP_SCHEME_COUNT];
                        for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
                            dnp_plan_options o;
                            memset(&o, 0, sizeof o);
                            o.scheme = (dnp_scheme)s;
                            o.batch = bi ? 512 : 32;
                            o.levels = L;
                            o.cost_model = (dnp_cost_model)cm;
                            o.keep_over_memory = 1;
                            dnp_plan *p = NULL;
                            if (dnp_plan_run(g, &cl, &o, &p, &err) != DNP_OK) {
                                fprintf(stderr, "%s\n", err.msg);
                                return 1;
                            }
                            dnp_plan_summary su;
                            dnp_plan_get_summary(p, &su);
                            t[s] = su.step_time_s;
                            fits[s] = su.mem_fits;
                            dnp_plan_free(p);
                        }
                        cases++;
                        /* a baseline over the memory limit is no alternative to an
                         * AccPar plan that fits (AccPar returns the best plan that
                         * fits, docs/time-model.md) */
                        double best = INFINITY;
                        for (int s = 0; s < DNP_SCHEME_ACCPAR; s++)
                            if (fits[s] || !fits[DNP_SCHEME_ACCPAR])
                                best = fmin(best, t[s]);
                        if (isfinite(best) && t[3] > best * (1 + 1e-9)) {
                            slower++;
                            worst = fmax(worst, t[3] / best);
                            if (getenv("SWEEP_VERBOSE") != NULL)
                                fprintf(stderr, "  %s %s levels %d batch %d: accpar %.4g s, "
                                        "best baseline %.4g s\n", dnp_zoo_name(i), specs[c], L,
                                        bi ? 512 : 32, t[3], best);
                        }
                    }
            }
            dnp_graph_free(g);
        }
        printf("cost model %-13s: accpar slower than a baseline that fits in %d of %d cases "
               "(worst %.3fx)\n",
               dnp_cost_model_name((dnp_cost_model)cm), slower, cases, worst);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("sweep wall time %.1f s\n",
           (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
    return 0;
}
