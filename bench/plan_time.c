/*
 * plan_time.c - total wall time (ms) of dnp_plan_run over the zoo as it
 * was at the base commit of bench/plan_vs_base.sh (0c710f1: the nine CNNs
 * and the SynergyFlow, MPT and PaSE models, 17 in all; the zoo has since
 * grown the transformers, which that version cannot build) on one cluster
 * with one scheme, using only what every version of the public API has, so
 * that the script can build it against the base commit too.
 * Usage: plan_time SPEC SCHEME.
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
    static const char *const models[] = {
        "lenet",        "alexnet",      "vgg11",           "vgg13",          "vgg16",
        "vgg19",        "resnet18",     "resnet34",        "resnet50",       "alexnet-2012",
        "dbn-m",        "wrn-40-10",    "fractalnet",      "pase-alexnet",   "pase-inception3",
        "pase-resnet101", "pase-densenet121"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        dnp_graph *g = NULL;
        if (dnp_zoo_build(models[i], &g, &err) != DNP_OK)
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
