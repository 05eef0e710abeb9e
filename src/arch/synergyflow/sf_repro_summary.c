/*
 * sf_repro_summary.c - the summary of `dnnpar reproduce synergyflow`: the
 * figures our model computes (each beside the paper's), which rest on an
 * input derived from the paper, which are paper-derived and so no
 * agreement, and what the paper evaluates that we do not reproduce, with
 * why (docs/synergyflow.md, "Reproduction").
 */
#include "arch/synergyflow/synergyflow.h"

#include <string.h>

/* Percent by which a exceeds b. */
static double gain_pct(double a, double b) { return 100.0 * (a / b - 1.0); }

void sf_repro_summarise(const sf_repro *r, sf_repro_summary *out)
{
    sf_repro_summary s;
    memset(&s, 0, sizeof s);
    int n = sf_table6_count();
    for (int i = 0; i < n; i++) {
        const sf_table6_row *t = sf_table6_at(i);
        const sf_repro_row *w = &r->row[i];
        s.table6_exact += w->alloc.nc == t->paper_nc && w->alloc.nf == t->paper_nf;
        s.fig13a_mean_gain_pct += gain_pct(w->inf_gops[SF_ARCH_SF], w->inf_gops[SF_ARCH_MONO]) / n;
        s.fig16_mean_gain_pct += gain_pct(w->train_ooo_gops, w->train_inorder_gops) / n;
        /* Fig. 14 at f = 1 (sf_energy_relative): the saving is the time saving */
        double e1 = sf_energy_relative(w->inf_time_s, w->inf_bytes_sf, w->inf_ops,
                                       w->inf_time_mono_s, w->inf_bytes_mono, w->inf_ops, 1.0, 0.0);
        s.fig14_mean_saving_f1_pct += 100.0 * (1.0 - e1) / n;
        int best = 1;
        for (int a = 0; a < SF_N_ARCHS; a++)
            if (a != SF_ARCH_SPLIT && a != SF_ARCH_MONO)
                best &= w->inf_gops[SF_ARCH_SF] >= w->inf_gops[a];
        s.fig17_sf_best += best;
        double ri = w->inf_time_s / t->paper_inf_s, rt = w->train_time_s / t->paper_train_s;
        s.table7_inf_ratio_lo = i == 0 || ri < s.table7_inf_ratio_lo ? ri : s.table7_inf_ratio_lo;
        s.table7_inf_ratio_hi = i == 0 || ri > s.table7_inf_ratio_hi ? ri : s.table7_inf_ratio_hi;
        s.table7_train_ratio_lo =
            i == 0 || rt < s.table7_train_ratio_lo ? rt : s.table7_train_ratio_lo;
        s.table7_train_ratio_hi =
            i == 0 || rt > s.table7_train_ratio_hi ? rt : s.table7_train_ratio_hi;
        s.sec412_mean_gain_pct += gain_pct(w->prio1_gops, w->rr1_gops) / n;
    }
    *out = s;
}

static const sf_repro_note inputs[] = {
    {"the platform: N = 64 cores of 4x4 PEs, 34.2 GiB/s, 100 MHz, 16-bit words (section 6.1, "
     "Table 2)",
     "every figure"},
    {"the workloads and their instance counts (Table 6)", "every figure"},
    {"Table 6's printed R_ctf and K", "the 'from paper R,K' split only"},
    {"the K20M's times (Table 7's GPU columns)", "Fig. 18"},
    {"P_SF/P_GPU = 0.176, back-solved from the paper's AlexNet and VGG11 inference energy quotes "
     "and its Table 7 times",
     "Fig. 18, so paper-derived"},
    {"f = 1, the time-proportional energy share the paper's AlexNet speed-up and saving imply",
     "Fig. 14's f = 1 column"},
};

static const sf_repro_note unreproduced[] = {
    {"Table 7's GPU columns (K20M time and GOPS)",
     "paper numbers only: the K20M ran Caffe in FP32 (sections 6.1, 6.2.6), and dnnpar has neither a K20M "
     "preset nor Caffe's efficiency on it to predict them"},
    {"Fig. 18's energies",
     "neither the FPGA design's nor the K20M's power is published; our rows are paper-derived "
     "(only our time is computed)"},
    {"Fig. 14's absolute energy",
     "the FPGA's static and clock power are not published (Table 5 lists resources only): "
     "relative, with f an assumption"},
    {"Table 5 (FPGA resources) and timing closure at 100 MHz", "we synthesise no hardware"},
    {"Table 8's and Fig. 2's prior designs (Qiu, Suda, DaDianNao)",
     "other accelerators' published numbers; MonoArch stands in for the monolithic ones"},
    {"Fig. 13(b)'s and Figs. 15-17's plotted values",
     "the plots give no numbers beyond those the text quotes; the rest is compared in pattern"},
    {"section 3.1's shared against private local stores (private: about 6% more DRAM traffic)",
     "our cores have private stores, as the paper's design; the shared variant is not simulated"},
};

int sf_repro_input_count(void) { return (int)(sizeof inputs / sizeof inputs[0]); }

const sf_repro_note *sf_repro_input_at(int i)
{
    return i >= 0 && i < sf_repro_input_count() ? &inputs[i] : NULL;
}

int sf_repro_unreproduced_count(void)
{
    return (int)(sizeof unreproduced / sizeof unreproduced[0]);
}

const sf_repro_note *sf_repro_unreproduced_at(int i)
{
    return i >= 0 && i < sf_repro_unreproduced_count() ? &unreproduced[i] : NULL;
}
