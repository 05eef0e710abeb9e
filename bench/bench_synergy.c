/*
 * bench_synergy.c - the SynergyFlow model's speed and the accuracy of its
 * shortcuts, measured not asserted.
 *
 * 1. Median wall time of the whole reproduction (sf_repro_run).
 * 2. Full simulations of the Table 6 workloads (inference, SynergyFlow,
 *    one block per engine step): median wall time and events per second.
 * 3. What the reproduction's shortcuts cost: GOPS with at most 32 blocks
 *    per layer against one block per engine step (full counts), and the
 *    steady-state estimate from sample units against the full simulation
 *    (both with 32 blocks per layer), for every architecture in inference
 *    and for SynergyFlow in one training epoch, in and out of order.
 */
#include "arch/synergyflow/synergyflow.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, const dnp_error *err)
{
    fprintf(stderr, "bench_synergy: %s: %s\n", what, err->msg);
    return 1;
}

static void config(sf_sim_config *c, int arch, const sf_alloc *a, int training, int ooo,
                   int max_blocks)
{
    sf_sim_config_default(c);
    c->training = training;
    c->ooo = ooo;
    c->max_blocks = max_blocks;
    if (arch == SF_ARCH_MONO)
        c->mono = 1;
    else if (arch == SF_ARCH_SF)
        c->nc = a->nc, c->nf = a->nf;
    else
        sf_arch_ata_split((sf_arch)arch, &c->nc, &c->nf);
}

int main(void)
{
    sf_platform p;
    sf_platform_p395ab(&p);
    dnp_error err = {0};

    /* 1. the reproduction */
    enum { REPS = 5 };
    double t[REPS];
    sf_repro *r = dnp_malloc(sizeof *r);
    if (r == NULL)
        return 1;
    for (int i = 0; i < REPS; i++) {
        double t0 = bench_now_s();
        if (sf_repro_run(r, &err) != DNP_OK)
            return fail("reproduction", &err);
        t[i] = bench_now_s() - t0;
    }
    dnp_free(r);
    printf("reproduce synergyflow (library part): median %.3f s of %d runs\n\n", bench_median(t, REPS),
           REPS);

    /* 2. full simulations, one block per engine step */
    printf("full simulation, inference, SynergyFlow split, one block per engine step\n");
    printf("  %-8s %10s %12s %10s %12s\n", "workload", "GOPS", "events", "wall", "events/s");
    for (int i = 0; i < sf_table6_count(); i++) {
        const sf_table6_row *row = sf_table6_at(i);
        sf_workload w;
        sf_workload_char ch;
        sf_alloc a;
        if (sf_workload_parse(row->spec, &w, &err) != DNP_OK ||
            sf_characterise(&w, &p, &ch, &err) != DNP_OK)
            return fail(row->spec, &err);
        sf_allocate(&p, ch.r_ctf, ch.k, ch.s, &a);
        sf_sim_config c;
        config(&c, SF_ARCH_SF, &a, 0, 1, 0);
        double wall[3];
        sf_sim_result res;
        for (int k = 0; k < 3; k++) {
            double t0 = bench_now_s();
            if (sf_simulate(&w, &p, &c, &res, &err) != DNP_OK)
                return fail(row->spec, &err);
            wall[k] = bench_now_s() - t0;
        }
        double m = bench_median(wall, 3);
        printf("  %-8s %10.2f %12lld %9.3fs %12.3g\n", row->name, res.gops, (long long)res.events,
               m, (double)res.events / m);
        sf_workload_free(&w);
    }

    /* 3. the shortcuts */
    printf("\nshortcut errors (GOPS, percent against the full simulation)\n");
    printf("  %-8s %-6s %10s %10s %8s %10s %8s\n", "workload", "arch", "exact", "32 blocks", "diff",
           "estimate", "diff");
    double worst_blocks = 0, worst_est = 0;
    for (int i = 0; i < sf_table6_count(); i++) {
        const sf_table6_row *row = sf_table6_at(i);
        sf_workload w, w1;
        sf_workload_char ch;
        sf_alloc a;
        if (sf_workload_parse(row->spec, &w, &err) != DNP_OK ||
            sf_characterise(&w, &p, &ch, &err) != DNP_OK)
            return fail(row->spec, &err);
        sf_allocate(&p, ch.r_ctf, ch.k, ch.s, &a);
        for (int arch = SF_ARCH_SF; arch <= SF_ARCH_ATA5; arch++) {
            sf_sim_config exact, capped;
            config(&exact, arch, &a, 0, 1, 0);
            config(&capped, arch, &a, 0, 1, SF_REPRO_MAX_BLOCKS);
            sf_sim_result re, rc, rs;
            if (sf_simulate(&w, &p, &exact, &re, &err) != DNP_OK ||
                sf_simulate(&w, &p, &capped, &rc, &err) != DNP_OK ||
                sf_estimate(&w, row->unit_inference, &p, &capped, &rs, &err) != DNP_OK)
                return fail(row->spec, &err);
            double db = 100 * (rc.gops / re.gops - 1), de = 100 * (rs.gops / rc.gops - 1);
            worst_blocks = fmax(worst_blocks, fabs(db));
            worst_est = fmax(worst_est, fabs(de));
            printf("  %-8s %-6s %10.2f %10.2f %+7.2f%% %10.2f %+7.2f%%\n", row->name,
                   sf_arch_name((sf_arch)arch), re.gops, rc.gops, db, rs.gops, de);
        }
        /* one training epoch: the estimate on the reproduction's unit, scaled
         * to one epoch, against the whole epoch */
        for (int ooo = 1; ooo >= 0; ooo--) {
            sf_sim_config c;
            config(&c, SF_ARCH_SF, &a, 1, ooo, SF_REPRO_MAX_BLOCKS);
            sf_sim_result full, est;
            int64_t k = row->unit_training / SF_REPRO_EPOCHS;
            if (sf_simulate(&w, &p, &c, &full, &err) != DNP_OK ||
                sf_workload_rescale(&w, 1, 1, &w1, &err) != DNP_OK ||
                sf_estimate(&w1, k, &p, &c, &est, &err) != DNP_OK)
                return fail(row->spec, &err);
            double de = 100 * (est.gops / full.gops - 1);
            worst_est = fmax(worst_est, fabs(de));
            printf("  %-8s %-6s %10s %10.2f %8s %10.2f %+7.2f%%  (training, %s)\n", row->name, "sf",
                   "-", full.gops, "", est.gops, de, ooo ? "out of order" : "in order");
            sf_workload_free(&w1);
        }
        sf_workload_free(&w);
    }
    printf("  worst: 32 blocks per layer %.2f%%, estimate %.2f%%\n", worst_blocks, worst_est);
    return 0;
}
