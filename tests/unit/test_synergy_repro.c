/* test_synergy_repro.c - the claims `dnnpar reproduce synergyflow` makes
 * about the SynergyFlow paper, checked on the reproduction's own results:
 * section 4.1.2 (priority against round-robin at one block per step and
 * merged), Fig. 15 (Table 6's split held against the per-bandwidth
 * re-split), Fig. 13(b), Table 8 (Eq. 11) and the relative energy model of
 * Fig. 14.  docs/synergyflow.md, "Reproduction". */
#include "test.h"

#include "arch/synergyflow/synergyflow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One reproduction (about 10^7 events) shared by the tests below. */
static const sf_repro *repro(void)
{
    static sf_repro r;
    static int state; /* 0 not run, 1 ok, -1 failed */
    if (state == 0) {
        dnp_error err;
        dnp_error_clear(&err);
        state = sf_repro_run(&r, &err) == DNP_OK ? 1 : -1;
        if (state < 0)
            printf("  sf_repro_run: %s\n", err.msg);
    }
    CHECK(state == 1);
    return state == 1 ? &r : NULL;
}

static int row_index(const char *name)
{
    for (int i = 0; i < sf_table6_count(); i++)
        if (strcmp(sf_table6_at(i)->name, name) == 0)
            return i;
    return -1;
}

static double gain_pct(double a, double b) { return 100.0 * (a / b - 1.0); }

/* Section 4.1.2 at the simulator's resolution (one instruction block per
 * engine step): C-Engine priority and round-robin are within 0.05% on
 * five workloads and round-robin is ahead on Batch3 (0.63%): the paper's
 * 12% does not appear.  Merged into at most 32 blocks per layer (longer
 * DRAM grants) priority gains on AlexNet (2.1%) and Batch1 (7.3%). */
TEST(synergy_priority_needs_long_grants)
{
    const sf_repro *r = repro();
    if (r == NULL)
        return;
    const char *flat[] = {"AlexNet", "VGG11", "DBN-M", "Batch1", "Batch2"};
    for (size_t k = 0; k < sizeof flat / sizeof flat[0]; k++) {
        const sf_repro_row *w = &r->row[row_index(flat[k])];
        CHECK(fabs(gain_pct(w->prio1_gops, w->rr1_gops)) < 0.05);
    }
    const sf_repro_row *b3 = &r->row[row_index("Batch3")];
    CHECK(b3->rr1_gops > b3->prio1_gops);
    CHECK(gain_pct(b3->prio1_gops, b3->rr1_gops) > -1.0);
    for (int i = 0; i < sf_table6_count(); i++)
        CHECK(gain_pct(r->row[i].prio1_gops, r->row[i].rr1_gops) < 1.0);
    const sf_repro_row *a = &r->row[row_index("AlexNet")], *b1 = &r->row[row_index("Batch1")];
    CHECK(gain_pct(a->inf_gops[SF_ARCH_SF], a->rr_gops) > 1.5);
    CHECK(gain_pct(b1->inf_gops[SF_ARCH_SF], b1->rr_gops) > 5.0);
}

/* Fig. 15 below 34.2 GiB/s: with Table 6's split held, SynergyFlow is at
 * MonoArch's level or above on every workload (at most 1% below); with
 * the split re-solved by Eq. 9 at each bandwidth it falls far below
 * (Batch1 at 6.84 GiB/s: 36.9 against MonoArch's 59.0 GOPS). */
TEST(synergy_fig15_held_split_keeps_up_with_mono)
{
    const sf_repro *r = repro();
    if (r == NULL)
        return;
    for (int i = 0; i < sf_table6_count(); i++)
        for (int b = 0; b < SF_REPRO_N_BW && r->bw_gbps[b] < 34.2; b++)
            CHECK(r->row[i].bw_sf_fixed_gops[b] >= 0.99 * r->row[i].bw_mono_gops[b]);
    const sf_repro_row *b1 = &r->row[row_index("Batch1")];
    CHECK_NEAR(r->bw_gbps[1], 6.84, 0, 1e-12);
    CHECK(b1->bw_sf_gops[1] < 0.7 * b1->bw_mono_gops[1]);
    CHECK(b1->bw_sf_fixed_gops[1] > b1->bw_mono_gops[1]);
    /* the re-split moves cores to the C-Engine at low bandwidth */
    CHECK(b1->bw_nc[1] < b1->alloc.nc || b1->bw_nf[1] < b1->alloc.nf);
}

/* Fig. 13(b): MonoArch is at least as fast as SynergyFlow on every AlexNet
 * layer run alone (all 64 cores against the engine's 54 or 10), conv1 is
 * the slowest CONV layer, yet SynergyFlow wins on the network. */
TEST(synergy_fig13b_layers)
{
    const sf_repro *r = repro();
    if (r == NULL)
        return;
    CHECK_EQ_INT(r->n_fig13b, 8);
    double conv_min = INFINITY;
    for (int i = 0; i < r->n_fig13b; i++) {
        const sf_repro_layer *l = &r->fig13b[i];
        CHECK(l->mono_gops >= l->sf_gops * (1 - 1e-12));
        CHECK_EQ_INT(l->sf_cores, l->kind == SF_CONV ? 54 : 10);
        if (l->kind == SF_CONV && l->mono_gops < conv_min)
            conv_min = l->mono_gops;
    }
    CHECK_STR(r->fig13b[0].name, "conv1");
    CHECK_NEAR(r->fig13b[0].mono_gops, conv_min, 0, 0);
    /* conv1: 2 x 48 x 3 x 55 x 55 x 11 x 11 operations (Eq. 3) */
    CHECK_NEAR(r->fig13b[0].ops, 2.0 * 48 * 3 * 55 * 55 * 121, 0, 0);
    const sf_repro_row *a = &r->row[row_index("AlexNet")];
    CHECK(a->inf_gops[SF_ARCH_SF] > a->inf_gops[SF_ARCH_MONO]);
}

/* Eq. 11 as Table 8 evaluates it, on the paper's own entries: VGG11
 * 1 - 194.7/198.3 = 1.8%, AlexNet 1 - 188.5/198.3 = 4.9% (printed 5.0%),
 * Qiu's VGG16 1 - 136.97/187.80 = 27.1%. */
TEST(synergy_table8_degradation)
{
    CHECK_NEAR(sf_degradation_ratio(198.3, 194.7), 0.018154, 1e-4, 0);
    CHECK_NEAR(sf_degradation_ratio(198.3, 188.5), 0.049420, 1e-4, 0);
    CHECK_NEAR(sf_degradation_ratio(187.80, 136.97), 0.270660, 1e-4, 0);
    CHECK_NEAR(sf_degradation_ratio(100.0, 100.0), 0.0, 0, 0);
    const sf_repro *r = repro();
    if (r == NULL)
        return;
    /* SynergyFlow keeps the CONV-only throughput on the whole network
     * (both below 3%); MonoArch loses more than a third on AlexNet. */
    const char *names[] = {"AlexNet", "VGG11"};
    for (int k = 0; k < 2; k++) {
        const sf_repro_row *w = &r->row[row_index(names[k])];
        double sf = sf_degradation_ratio(w->conv_only_gops, w->inf_gops[SF_ARCH_SF]);
        double mono = sf_degradation_ratio(w->conv_only_gops, w->inf_gops[SF_ARCH_MONO]);
        CHECK(sf > 0 && sf < 0.03);
        CHECK(mono > sf);
    }
    const sf_repro_row *a = &r->row[row_index("AlexNet")];
    CHECK(sf_degradation_ratio(a->conv_only_gops, a->inf_gops[SF_ARCH_MONO]) > 0.3);
    CHECK(isnan(r->row[row_index("DBN-M")].conv_only_gops));
}

/* The relative energy model, by hand: half the time, half the bytes, the
 * same operations, with shares 0.5 / 0.25 / 0.25:
 * 0.5 x 0.5 + 0.25 x 0.5 + 0.25 x 1 = 0.625.  In the reproduction both
 * architectures move the same DRAM bytes (the tiling does not depend on
 * the core count), so the saving is the time share times the time saving. */
TEST(synergy_energy_relative)
{
    CHECK_NEAR(sf_energy_relative(2, 10, 5, 4, 20, 5, 0.5, 0.25), 0.625, 1e-15, 0);
    CHECK_NEAR(sf_energy_relative(4, 20, 5, 4, 20, 5, 0.3, 0.3), 1.0, 1e-15, 0);
    CHECK_NEAR(SF_DRAM_J_PER_BIT_LO, 20.3125e-12, 1e-12, 0);
    const sf_repro *r = repro();
    if (r == NULL)
        return;
    for (int i = 0; i < sf_table6_count(); i++) {
        const sf_repro_row *w = &r->row[i];
        CHECK_NEAR(w->inf_bytes_sf, w->inf_bytes_mono, 1e-12, 0);
        double e = sf_energy_relative(w->inf_time_s, w->inf_bytes_sf, w->inf_ops,
                                      w->inf_time_mono_s, w->inf_bytes_mono, w->inf_ops, 0.8, 0.1);
        CHECK_NEAR(1 - e, 0.8 * (1 - w->inf_time_s / w->inf_time_mono_s), 1e-9, 1e-12);
    }
}

/* Fig. 18 (sf_energy_gpu.c), worked by hand.  The power ratio from the
 * paper's quotes: AlexNet (1 - 0.867) x 0.51 / 0.39 = 0.173923, VGG11
 * (1 - 0.693) x 4.17 / 7.22 = 0.177312 (the two agree within 2%: one ratio
 * explains both inference quotes), mean 0.175617.  With our times set to
 * the paper's, the quotes come back within half a point.  The training
 * quotes imply 17.77 / (9.8 x 12.22) = 0.148385 and 141.86 / (1.9 x 233.03)
 * = 0.320402.  DDR3 (Micron IDD): (1.512 - 0.990) A x 1.5 V / (8 x 12.8e9
 * bit/s) = 7.646484375 pJ/bit; background 4 x 0.990 x 1.5 = 5.94 W;
 * at 34.2 GiB/s: 5.94 + 34.2 x 2^30 x 8 x 7.6465e-12 = 8.1864 W. */
TEST(synergy_fig18_energy_against_gpu)
{
    sf_repro *r = dnp_calloc(1, sizeof *r);
    for (int i = 0; i < sf_table6_count(); i++) {
        r->row[i].inf_time_s = sf_table6_at(i)->paper_inf_s;
        r->row[i].train_time_s = sf_table6_at(i)->paper_train_s;
    }
    sf_fig18 f;
    sf_fig18_compute(r, &f);
    CHECK_NEAR(f.rho_alexnet, 0.133 * 0.51 / 0.39, 1e-12, 0);
    CHECK_NEAR(f.rho_vgg11, 0.307 * 4.17 / 7.22, 1e-12, 0);
    CHECK_NEAR(f.rho, 0.175617, 0, 1e-6);
    CHECK_NEAR(f.inf_saving_pct[0], 86.7, 0, 0.5);
    CHECK_NEAR(f.inf_saving_pct[1], 69.3, 0, 0.5);
    CHECK_NEAR(f.inf_eff[0], 1 / (1 - f.inf_saving_pct[0] / 100), 1e-12, 0);
    /* only our time enters: the saving is 1 - rho (t_SF / t_GPU) */
    CHECK_NEAR(f.inf_time_over_gpu[0], 0.39 / 0.51, 1e-12, 0);
    CHECK_NEAR(f.train_time_over_gpu[1], 233.03 / 141.86, 1e-12, 0);
    CHECK_NEAR(f.inf_saving_pct[2], 100 * (1 - f.rho * 0.91 / 1.00), 1e-12, 0);
    CHECK_NEAR(f.rho_train_alexnet, 0.148385, 0, 1e-6);
    CHECK_NEAR(f.rho_train_vgg11, 0.320402, 0, 1e-6);
    CHECK_NEAR(f.ddr3_read_j_per_bit, 7.646484375e-12, 1e-12, 0);
    CHECK_NEAR(f.ddr3_background_w, 5.94, 1e-12, 0);
    CHECK_NEAR(f.ddr3_w_at_full_bw, 8.1864, 0, 1e-4);
    CHECK_NEAR(f.sf_w_at_k20_board, 225 * 0.175617, 0, 1e-3);
    dnp_free(r);
}

/* The summary (sf_repro_summary.c) keeps computed figures apart from the
 * paper-derived ones: each computed mean is over the six rows our model
 * computes (recomputed here from the rows), Fig. 18 contributes none, and
 * the paper-derived inputs and what is not reproduced are listed.  The
 * values at this model: Table 6 6 of 6, Fig. 13(a) 22.06%, Fig. 16 49.05%,
 * Fig. 14 at f = 1 15.5%, Fig. 17 best on 3, Table 7 inference time ratios
 * 1.060-1.158. */
TEST(synergy_summary_separates_computed_from_paper_derived)
{
    const sf_repro *r = repro();
    if (r == NULL)
        return;
    sf_repro_summary s;
    sf_repro_summarise(r, &s);
    double m13 = 0, m16 = 0, lo = 1e9, hi = 0;
    for (int i = 0; i < 6; i++) {
        const sf_repro_row *w = &r->row[i];
        m13 += gain_pct(w->inf_gops[SF_ARCH_SF], w->inf_gops[SF_ARCH_MONO]) / 6;
        m16 += gain_pct(w->train_ooo_gops, w->train_inorder_gops) / 6;
        double q = w->inf_time_s / sf_table6_at(i)->paper_inf_s;
        lo = q < lo ? q : lo;
        hi = q > hi ? q : hi;
    }
    CHECK_NEAR(s.fig13a_mean_gain_pct, m13, 1e-12, 0);
    CHECK_NEAR(s.fig16_mean_gain_pct, m16, 1e-12, 0);
    CHECK_NEAR(s.table7_inf_ratio_lo, lo, 1e-12, 0);
    CHECK_NEAR(s.table7_inf_ratio_hi, hi, 1e-12, 0);
    CHECK_EQ_INT(s.table6_exact, 6);
    CHECK_EQ_INT(s.fig17_sf_best, 3);
    CHECK_NEAR(s.fig13a_mean_gain_pct, 22.06, 0, 0.005);
    CHECK_NEAR(s.fig16_mean_gain_pct, 49.05, 0, 0.005);
    CHECK_NEAR(s.fig14_mean_saving_f1_pct, 15.5, 0, 0.05);
    CHECK_NEAR(s.table7_inf_ratio_lo, 1.060, 0, 0.0005);
    CHECK_NEAR(s.table7_inf_ratio_hi, 1.158, 0, 0.0005);
    /* the inputs name the two paper-derived ones; the list of what is not
     * reproduced names the GPU columns */
    int rho = 0, gpu_times = 0, gpu_columns = 0;
    for (int i = 0; i < sf_repro_input_count(); i++) {
        rho += strstr(sf_repro_input_at(i)->what, "back-solved") != NULL;
        gpu_times += strstr(sf_repro_input_at(i)->what, "K20M's times") != NULL;
    }
    for (int i = 0; i < sf_repro_unreproduced_count(); i++)
        gpu_columns += strstr(sf_repro_unreproduced_at(i)->what, "GPU columns") != NULL;
    CHECK_EQ_INT(rho, 1);
    CHECK_EQ_INT(gpu_times, 1);
    CHECK_EQ_INT(gpu_columns, 1);
    CHECK(sf_repro_input_at(sf_repro_input_count()) == NULL);
    CHECK(sf_repro_unreproduced_at(-1) == NULL);
}
