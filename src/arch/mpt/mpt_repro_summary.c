/*
 * mpt_repro_summary.c - the summary of `dnnpar reproduce mpt`: the figures
 * our model computes (each beside the paper's), the modelled estimate, the
 * assumption-bound per-watt figure, the inputs from the paper and what the
 * paper evaluates that we do not reproduce, with why (docs/mpt.md,
 * "Reproduction").
 */
#include "arch/mpt/mpt_api.h"

#include <string.h>

void mpt_repro_summarise(const dnp_mpt_repro *p, mpt_repro_summary *out)
{
    mpt_repro_summary s;
    memset(&s, 0, sizeof s);
    s.fig15_mpps = p->lw[0].mean_speedup[MPT_W_MP_PS];
    s.fig15_mpp_mid = mpt_class_mean(&p->lw[0], "mid", MPT_W_MP_P);
    s.fig15_mpp_late = mpt_class_mean(&p->lw[0], "late", MPT_W_MP_P);
    s.fig16_mpps_5x5 = p->lw[1].mean_speedup[MPT_W_MP_PS];
    s.fig17_mpps_over_wdp = p->wn.mean_over_wdp[MPT_W_MP_PS];
    s.fig17_wdp_over_one = p->wn.mean_over_single[MPT_W_DP];
    s.fig17_mpps_over_one = p->wn.mean_over_single[MPT_W_MP_PS];
    s.fig7_dynamic_gain = (p->fig7.mpt_weights[MPT_FIG6_POINTS - 1] +
                           p->fig7.mpt_tiles[MPT_FIG6_POINTS - 1]) /
                          p->fig7.mpt_dynamic[MPT_FIG6_POINTS - 1];
    s.fig12_gather_cut_2d = p->measured.gather_2d;
    s.fig12_gather_cut_1d = p->measured.gather_1d;
    /* Fig. 15 energy on the Late layers, w_dp over w_mp+* (mpt_energy.c) */
    mpt_hw hw = mpt_hw_paper(0);
    static const char *const late[2] = {"late-1", "late-2"};
    for (int k = 0; k < 2; k++) {
        int i = mpt_table2_find(late[k]);
        mpt_energy b, e;
        mpt_layer_energy(&p->lw[0].t[i][MPT_W_DP], &hw, &b);
        mpt_layer_energy(&p->lw[0].t[i][MPT_W_MP_PS], &hw, &e);
        s.energy_late_no_links[k] = mpt_energy_total_j(&b, 0) / mpt_energy_total_j(&e, 0);
        s.energy_late_links_alone[k] = b.link_bit_s / e.link_bit_s;
        s.energy_late_link_j_per_bit_for_paper[k] =
            mpt_energy_link_for_cut(&b, &e, PAPER_FIG15_ENERGY_LATE);
    }
    s.dgx1_batch256 = p->dgx1.mean_over_dgx1;
    s.dgx1_big_batch = p->dgx1.mean_over_big;
    *out = s;
}

static const mpt_repro_note inputs[] = {
    {"the NDP worker and network: 64x64 FP32 (96x96 FP16) array, 1 GHz, 320 GB/s HMC, four "
     "30 GB/s full links, 10 GB/s narrow links, 5 ns per hop, 2 MB + 128 KB buffers (Table III, "
     "Secs. VI, VII-A, footnote 16)",
     "every timing figure"},
    {"the system: 256 workers, batch 256, grids 16x16 fixed and (1,256), (4,64), (16,16) "
     "dynamic (Sec. VII-A, Table IV)",
     "Figs. 15-17"},
    {"the five layers of Table II and the networks of Table I (built from their publications)",
     "Figs. 6, 7, 15-17"},
    {"the FP32 add and multiply energies, 0.9 and 3.7 pJ (Horowitz, as the paper's Sec. VII-A)",
     "Fig. 15's energy"},
    {"the paper's measured prediction shares (Sec. V-B)",
     "the sensitivity row 'the paper's prediction shares' only"},
    {"both systems drawing 1800-2600 W (Sec. VII-C)",
     "the per-watt figure, an equal-power assumption"},
};

static const mpt_repro_note unreproduced[] = {
    {"Fig. 14(b): FractalNet's validation accuracy on CIFAR-10 with the modified join",
     "it needs FractalNet trained on CIFAR-10; neither the data set nor the compute is here.  We "
     "model the join's traffic and time (Figs. 7, 17), not what it does to accuracy"},
    {"activation prediction on real data (Fig. 12: pre-trained weights on CIFAR and ImageNet)",
     "neither data set nor those weights are here; our shares are measured on a small CNN "
     "trained on 8x8 digits and on synthetic data; the 'no accuracy loss' we check as zero false "
     "negatives, not by training"},
    {"Fig. 1: FLOPs and L1 data cache accesses of direct and Winograd convolution",
     "a hardware-counter measurement on a CPU; we count operations in the model only"},
    {"the DGX-1 measurements of Figs. 17-18",
     "no DGX-1 here; the bars are a modelled estimate on dnnpar's V100 model"},
    {"Fig. 18(b)'s power",
     "NDP power is not modelled; the per-watt figure is the throughput ratio at equal power"},
    {"Fig. 15's SRAM energy and its CACTI-3DD / link-model [45] energies",
     "no CACTI here and no SerDes energy per bit we can cite; SRAM is not counted and the link "
     "energy per bit is a parameter"},
    {"the Booksim cycle-level network simulation",
     "links are modelled analytically (bandwidth, hops, chunks), without contention inside the "
     "network"},
    {"the area figures (array 31% of the logic layer, 3.19 mm^2 of buffers at 28 nm, CACTI 6.5)",
     "no area model"},
};

int mpt_repro_input_count(void) { return (int)(sizeof inputs / sizeof inputs[0]); }

const mpt_repro_note *mpt_repro_input_at(int i)
{
    return i >= 0 && i < mpt_repro_input_count() ? &inputs[i] : NULL;
}

int mpt_repro_unreproduced_count(void)
{
    return (int)(sizeof unreproduced / sizeof unreproduced[0]);
}

const mpt_repro_note *mpt_repro_unreproduced_at(int i)
{
    return i >= 0 && i < mpt_repro_unreproduced_count() ? &unreproduced[i] : NULL;
}
