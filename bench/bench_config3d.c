/*
 * bench_config3d.c - the 3D search's time (docs/config3d.md "Search",
 * "Layouts"; issue 30's targets: <= 1 s for 64 mixed GPUs, <= 10 s for
 * GPT-3 175B on 1,024 GPUs of three types): the layout search against the
 * search of the cluster in the order given, same run, medians of 3 of the
 * wall time and of the process's CPU time (the figure to read on a shared
 * machine), and the targets checked on the CPU time of the layout search.
 */
#include "bench_util.h"

#include "dnnpar.h"

#include <stdio.h>

typedef struct {
    const char *model, *cluster;
    int64_t batch;
    double target_s; /* issue 30's limit on the layout search, 0: none */
    const char *target;
} case3d;

/* One search of k (layouts: every order and subset of the types); its wall
 * and CPU seconds into *wall_s, *cpu_s, its step and layouts counted.
 * Returns 0, or -1 with the error printed. */
static int run(const case3d *k, int layouts, double *wall_s, double *cpu_s, double *step_s,
               int *n_layouts, int *weighed, int *candidates)
{
    dnp_graph *g = NULL;
    dnp_cluster c;
    dnp_error e = {0};
    if (dnp_model_load(k->model, &g, &e) != DNP_OK || dnp_cluster_parse(k->cluster, &c, &e) != DNP_OK) {
        printf("  %s\n", e.msg);
        dnp_graph_free(g);
        return -1;
    }
    dnp_plan_options o = {.batch = k->batch, .precision = DNP_PREC_BF16,
                          .optimizer = DNP_OPTIM_ADAM};
    static dnp_config3d best;
    static dnp_config3d_result res;
    static dnp_config3d_stats st;
    static dnp_cluster used;
    double t0 = bench_now_s(), c0 = bench_cpu_s();
    dnp_status s = layouts ? dnp_config3d_search_layouts(g, &c, k->batch, &o, &best, &res, &used,
                                                         &st, &e)
                           : dnp_config3d_search(g, &c, k->batch, &o, &best, &res, &st, &e);
    *cpu_s = bench_cpu_s() - c0;
    *wall_s = bench_now_s() - t0;
    dnp_graph_free(g);
    if (s != DNP_OK) {
        printf("  %s\n", e.msg);
        return -1;
    }
    *step_s = res.step_time_s;
    *n_layouts = layouts ? st.layouts : 1;
    *weighed = st.weighed;
    *candidates = st.candidates;
    return 0;
}

int main(void)
{
    static const case3d cases[] = {
        {"gpt3-175b", "128xdgx-a100", 1024, 0.0, NULL},
        {"llama2-7b", "4xdgx-a100+2xg4dn.12xlarge+2xp3.8xlarge", 256, 1.0, "64 mixed GPUs"},
        {"gpt3-175b", "48xdgx-a100-80g+48xdgx-a100+32xdgx-h100", 1024, 10.0,
         "GPT-3 175B on 1,024 GPUs of three types"},
    };
    printf("%-10s %-42s %7s %9s %9s %9s %9s %15s %9s %9s\n", "model", "cluster", "layouts",
           "given (s)", "cpu (s)", "all (s)", "cpu (s)", "weighed", "step given", "step best");
    double target_cpu[sizeof cases / sizeof cases[0]];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double tg[3], cg[3], tl[3], cl[3], sg = 0.0, sl = 0.0;
        int nl = 1, n1 = 1, w = 0, cand = 0, w1 = 0, cand1 = 0, ok = 1;
        target_cpu[i] = -1.0;
        for (int r = 0; r < 3 && ok; r++)
            ok = run(&cases[i], 0, &tg[r], &cg[r], &sg, &n1, &w1, &cand1) == 0 &&
                 run(&cases[i], 1, &tl[r], &cl[r], &sl, &nl, &w, &cand) == 0;
        if (!ok)
            continue;
        double mg = bench_median(tg, 3), mcg = bench_median(cg, 3);
        double ml = bench_median(tl, 3), mcl = bench_median(cl, 3);
        char wc[32];
        snprintf(wc, sizeof wc, "%d/%d", w, cand);
        printf("%-10s %-42s %7d %9.3f %9.3f %9.3f %9.3f %15s %8.3fs %8.3fs\n", cases[i].model,
               cases[i].cluster, nl, mg, mcg, ml, mcl, wc, sg, sl);
        target_cpu[i] = mcl;
    }
    printf("issue 30's targets (CPU time of the layout search, median of 3):\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (cases[i].target != NULL && target_cpu[i] >= 0.0)
            printf("  %s (%s): %.3f s, target <= %g s: %s\n", cases[i].target, cases[i].model,
                   target_cpu[i], cases[i].target_s,
                   target_cpu[i] <= cases[i].target_s ? "met" : "NOT met");
    return 0;
}
