/* quickstart.c - libdnnpar in one page (docs/library.md, "Quick start"): load a
 * model and a cluster, let AccPar split every layer, then find the fastest
 * Megatron-LM configuration, and print what each predicts.  Build against an
 * installed dnnpar with `cc quickstart.c $(pkg-config --cflags --libs dnnpar)`. */
#include <dnnpar.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    dnp_error err = {0};
    dnp_graph *g = NULL;
    dnp_cluster cl;
    /* a zoo model and a cluster spec, exactly as the command line takes them */
    if (dnp_model_load("gpt2-medium", &g, &err) != DNP_OK ||
        dnp_cluster_parse("2xdgx-a100+2xdgx1", &cl, &err) != DNP_OK) {
        fprintf(stderr, "quickstart: %s\n", err.msg);
        dnp_graph_free(g);
        return 2;
    }
    printf("%s on %lld devices\n", dnp_graph_name(g), (long long)dnp_cluster_devices(&cl));

    /* 1. AccPar: a partition type and a split ratio per layer, per level of
     *    the device tree; the step comes from the step simulator */
    dnp_plan_options opt;
    memset(&opt, 0, sizeof opt); /* zero: the defaults (docs/library.md) */
    opt.scheme = DNP_SCHEME_ACCPAR;
    opt.batch = 64;
    opt.optimizer = DNP_OPTIM_ADAM;
    dnp_plan *p = NULL;
    if (dnp_plan_run(g, &cl, &opt, &p, &err) != DNP_OK) {
        fprintf(stderr, "quickstart: %s\n", err.msg);
        dnp_graph_free(g);
        return 2;
    }
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    printf("accpar: step %.1f ms (compute %.1f ms, exposed communication %.1f ms), "
           "%.1f GB on the fullest device\n",
           1e3 * s.step_time_s, 1e3 * s.compute_s, 1e3 * s.exposed_comm_s,
           s.mem_bytes_max / 1e9);
    dnp_plan_free(p);

    /* 2. the fastest Megatron-LM configuration (tensor, pipeline and data
     *    parallelism, micro-batch, schedule, recompute, ZeRO, overlaps) over
     *    the ways to place the two device types */
    static dnp_config3d_stats stats; /* large: the search's record of what it weighed */
    dnp_config3d best;
    dnp_config3d_result res;
    dnp_cluster used;
    if (dnp_config3d_search_layouts(g, &cl, opt.batch, &opt, &best, &res, &used, &stats, &err) !=
        DNP_OK) {
        fprintf(stderr, "quickstart: %s\n", err.msg);
        dnp_graph_free(g);
        return 2;
    }
    char cfg[512];
    dnp_config3d_format(&best, cfg, sizeof cfg);
    printf("megatron: %s\n  on %lld of the %lld devices: step %.1f ms, MFU %.1f%%, %.1f GB on "
           "the fullest device\n",
           cfg, (long long)dnp_cluster_devices(&used), (long long)dnp_cluster_devices(&cl),
           1e3 * res.step_time_s, 100.0 * res.mfu, res.mem_bytes / 1e9);
    dnp_graph_free(g);
    return 0;
}
