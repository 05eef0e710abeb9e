/*
 * plan_time.c - total wall time (ms) of dnp_plan_run over every zoo model
 * on one cluster with one scheme, using only what every version of the
 * public API has, so bench/plan_vs_base.sh can build it against an earlier
 * commit too.  Usage: plan_time SPEC SCHEME.
 */
#include "dnnpar.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    dnp_error err;
    memset(&err, 0, sizeof err);
    dnp_cluster cl;
    if (dnp_cluster_parse(argv[1], &cl, &err) != DNP_OK)
        return 1;
    struct timespec a, b;
    double total_s = 0.0;
    for (int i = 0; i < dnp_zoo_count(); i++) {
        dnp_graph *g = NULL;
        if (dnp_zoo_build(dnp_zoo_name(i), &g, &err) != DNP_OK)
            return 1;
        dnp_plan_options opt;
        memset(&opt, 0, sizeof opt);
        opt.scheme = (dnp_scheme)dnp_scheme_from_name(argv[2]);
        opt.batch = 512;
        dnp_plan *p = NULL;
        clock_gettime(CLOCK_MONOTONIC, &a);
        dnp_status st = dnp_plan_run(g, &cl, &opt, &p, &err);
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (st != DNP_OK)
            return 1;
        total_s += (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
        dnp_plan_free(p);
        dnp_graph_free(g);
    }
    printf("%.3f\n", 1e3 * total_s);
    return 0;
}
