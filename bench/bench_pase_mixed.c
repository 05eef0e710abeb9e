/*
 * bench_pase_mixed.c - PaSE's type split on mixed clusters in the strategy's
 * space, measured not asserted: per model and cluster (batch 128, default
 * model), the median over REPS runs of the whole run (dnp_pase_run_new: the
 * weakest-device search, the objective's and the simulator's share
 * searches, the refinement of the type level) and of the refinement alone
 * (pase_cross.c), as a share of the run, with the simulated step before and
 * after the refinement (docs/pase.md "The type level, refined in the step
 * simulator").
 */
#include "search/pase/pase_driver.h"

#include "bench_util.h"

#include <stdio.h>
#include <string.h>

#define REPS 5

int main(void)
{
    static const char *const models[] = {"alexnet", "vgg16", "resnet50"};
    static const char *const clusters[] = {"8xa100+8xv100", "1xdgx-a100+1xdgx1"};
    printf("PaSE type split in the strategy's space, batch 128 (median of %d runs)\n", REPS);
    printf("%-9s %-18s %9s %11s %7s %9s %11s %11s\n", "model", "cluster", "run (s)",
           "refine (s)", "share", "simulated", "before (ms)", "after (ms)");
    for (size_t c = 0; c < sizeof clusters / sizeof *clusters; c++)
        for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
            double run_s[REPS], cross_s[REPS], before_s = 0.0, after_s = 0.0;
            int judged = 0;
            for (int i = 0; i < REPS; i++) {
                dnp_error err = {0};
                dnp_cluster cl;
                dnp_pase_hw hw;
                dnp_pase_options po;
                memset(&po, 0, sizeof po);
                po.batch = 128;
                po.strategy_space = 1;
                dnp_pase_problem *pb = NULL;
                dnp_pase_run *r = NULL;
                if (dnp_cluster_parse(clusters[c], &cl, &err) != DNP_OK ||
                    dnp_pase_hw_from_cluster(&cl, &hw, &err) != DNP_OK ||
                    dnp_pase_problem_load(models[m], &hw, &po, &pb, &err) != DNP_OK) {
                    fprintf(stderr, "%s\n", err.msg);
                    return 1;
                }
                double t0 = bench_now_s();
                if (dnp_pase_run_new(pb, NULL, &r, &err) != DNP_OK) {
                    fprintf(stderr, "%s\n", err.msg);
                    dnp_pase_problem_free(pb);
                    return 1;
                }
                run_s[i] = bench_now_s() - t0;
                cross_s[i] = r->cross_s;
                judged = r->cross_judged;
                before_s = r->cross_judged > 0 ? r->cross_from_s : r->het.judged_s;
                after_s = r->het.judged_s;
                dnp_pase_run_free(r);
                dnp_pase_problem_free(pb);
            }
            double run_med = bench_median(run_s, REPS), cross_med = bench_median(cross_s, REPS);
            printf("%-9s %-18s %9.3f %11.3f %6.0f%% %9d %11.3f %11.3f\n", models[m], clusters[c],
                   run_med, cross_med, 100.0 * cross_med / run_med, judged, before_s * 1e3,
                   after_s * 1e3);
        }
    return 0;
}
