/*
 * bench_sim.c - the step simulator's speed, measured not asserted:
 * simulated tasks (two events each: start and end) per second of
 * plan_lower (the plan's tree as the one strategy type, then
 * lower_simulate, which lowers the step and replays it), for the zoo
 * on data parallelism over 256 devices and AccPar on the heterogeneous
 * array.  Median of REPS runs.
 */
#include "search/plan_internal.h"
#include "sim/lower.h"

#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 11

int main(void)
{
    static const char *const specs[] = {"256xtpu-v3", "128xtpu-v2+128xtpu-v3"};
    static const dnp_scheme schemes[] = {DNP_SCHEME_DP, DNP_SCHEME_ACCPAR};
    printf("step simulator: lower + replay one step (median of %d runs)\n", REPS);
    printf("%-10s %-22s %-7s %8s %8s %10s %14s\n", "model", "cluster", "search", "classes",
           "tasks", "time ms", "events/s");
    double total_events = 0.0, total_s = 0.0;
    for (int i = 0; i < dnp_zoo_count(); i++) {
        dnp_graph *g = NULL;
        dnp_error err = {0};
        if (dnp_zoo_build(dnp_zoo_name(i), &g, &err) != DNP_OK)
            return 1;
        for (int c = 0; c < 2; c++) {
            dnp_cluster cl;
            if (dnp_cluster_parse(specs[c], &cl, &err) != DNP_OK)
                return 1;
            dnp_plan_options opt;
            memset(&opt, 0, sizeof opt);
            opt.scheme = schemes[c];
            opt.batch = 512;
            opt.keep_over_memory = 1;
            dnp_plan *p = NULL;
            if (dnp_plan_run(g, &cl, &opt, &p, &err) != DNP_OK) {
                fprintf(stderr, "%s\n", err.msg);
                return 1;
            }
            double t[REPS];
            int tasks = 0, classes = 0;
            for (int r = 0; r < REPS; r++) {
                lower_result res;
                double t0 = bench_now_s();
                if (plan_lower(p, g, &opt, &res, &err) != DNP_OK)
                    return 1;
                t[r] = bench_now_s() - t0;
                tasks = res.sim.n_tasks;
                classes = res.n_classes;
                lower_result_free(&res);
            }
            double med = bench_median(t, REPS);
            total_events += 2.0 * tasks;
            total_s += med;
            printf("%-10s %-22s %-7s %8d %8d %10.3f %14.3g\n", dnp_zoo_name(i), specs[c],
                   dnp_scheme_name(schemes[c]), classes, tasks, 1e3 * med, 2.0 * tasks / med);
            dnp_plan_free(p);
        }
        dnp_graph_free(g);
    }
    printf("all: %.3g events/s (lowering included)\n", total_events / total_s);
    return 0;
}
