/*
 * bench_config3d.c - the 3D search's wall time (docs/config3d.md "Search",
 * "Layouts"; issue 30's targets: <= 1 s for 64 mixed GPUs, <= 10 s for
 * GPT-3 175B on 1,024 GPUs of three types): the layout search against the
 * search of the cluster in the order given, same run, medians of 3.
 */
#include "bench_util.h"

#include "dnnpar.h"

#include <stdio.h>

typedef struct {
    const char *model, *cluster;
    int64_t batch;
} case3d;

static double run(const case3d *k, int layouts, double *step_s, int *n_layouts)
{
    dnp_graph *g = NULL;
    dnp_cluster c;
    dnp_error e = {0};
    if (dnp_model_load(k->model, &g, &e) != DNP_OK || dnp_cluster_parse(k->cluster, &c, &e) != DNP_OK) {
        printf("  %s\n", e.msg);
        dnp_graph_free(g);
        return -1.0;
    }
    dnp_plan_options o = {.batch = k->batch, .precision = DNP_PREC_BF16,
                          .optimizer = DNP_OPTIM_ADAM};
    static dnp_config3d best;
    static dnp_config3d_result res;
    static dnp_config3d_stats st;
    static dnp_cluster used;
    double t0 = bench_now_s();
    dnp_status s = layouts ? dnp_config3d_search_layouts(g, &c, k->batch, &o, &best, &res, &used,
                                                         &st, &e)
                           : dnp_config3d_search(g, &c, k->batch, &o, &best, &res, &st, &e);
    double t = bench_now_s() - t0;
    dnp_graph_free(g);
    if (s != DNP_OK) {
        printf("  %s\n", e.msg);
        return -1.0;
    }
    *step_s = res.step_time_s;
    *n_layouts = layouts ? st.layouts : 1;
    return t;
}

int main(void)
{
    static const case3d cases[] = {
        {"gpt3-175b", "128xdgx-a100", 1024},
        {"llama2-7b", "4xdgx-a100+2xg4dn.12xlarge+2xp3.8xlarge", 256},
        {"gpt3-175b", "48xdgx-a100-80g+48xdgx-a100+32xdgx-h100", 1024},
    };
    printf("%-10s %-42s %8s %10s %10s %7s %11s %11s\n", "model", "cluster", "layouts",
           "given (s)", "all (s)", "ratio", "step given", "step best");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double tg[3], tl[3], sg = 0.0, sl = 0.0;
        int nl = 1, n1 = 1, ok = 1;
        for (int r = 0; r < 3 && ok; r++) {
            tg[r] = run(&cases[i], 0, &sg, &n1);
            tl[r] = run(&cases[i], 1, &sl, &nl);
            ok = tg[r] >= 0.0 && tl[r] >= 0.0;
        }
        if (!ok)
            continue;
        double mg = bench_median(tg, 3), ml = bench_median(tl, 3);
        printf("%-10s %-42s %8d %10.3f %10.3f %6.2fx %10.3fs %10.3fs\n", cases[i].model,
               cases[i].cluster, nl, mg, ml, ml / mg, sg, sl);
    }
    return 0;
}
