/*
 * mpt_repro_text.c - the reproduction of the MPT paper's evaluation as
 * text (`dnnpar reproduce mpt`): Figs. 6, 7, 12, the real parallel run,
 * Figs. 15-17 beside the paper's figures, and the sensitivities.  Why ours
 * differ: docs/mpt.md, "Reproduction".
 */
#include "arch/mpt/mpt_api.h"

#include <math.h>
#include <string.h>

static void curve_text(const char *name, const mpt_traffic_curve *c, int dynamic, rbuf *tb)
{
    rbuf_printf(tb, "  %-10s %6s %12s %12s %12s %12s%s\n", name, "p", "DP", "MPT weights", "MPT tiles",
           "MPT total", dynamic ? "  MPT dynamic" : "");
    for (int k = 0; k < MPT_FIG6_POINTS; k++) {
        char a[24], b[24], d[24], e[24], f[24];
        mpt_fmt_bytes(c->dp[k], a, sizeof a);
        mpt_fmt_bytes(c->mpt_weights[k], b, sizeof b);
        mpt_fmt_bytes(c->mpt_tiles[k], d, sizeof d);
        mpt_fmt_bytes(c->mpt_weights[k] + c->mpt_tiles[k], e, sizeof e);
        rbuf_printf(tb, "  %-10s %6d %12s %12s %12s %12s", "", c->p[k], a, b, d, e);
        if (dynamic) {
            mpt_fmt_bytes(c->mpt_dynamic[k], f, sizeof f);
            rbuf_printf(tb, " %12s", f);
        }
        rbuf_printf(tb, "\n");
    }
}

/* One row of speedups; zeros (figures the paper does not give) print "-". */
static void speedup_row(const char *label, const double *v, rbuf *tb)
{
    rbuf_printf(tb, "  %-10s", label);
    for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
        if (v[c] > 0)
            rbuf_printf(tb, " %7.2fx", v[c]);
        else
            rbuf_printf(tb, " %8s", "-");
    }
    rbuf_printf(tb, "\n");
}

static void config_header(const char *first, rbuf *tb)
{
    rbuf_printf(tb, "  %-10s", first);
    for (int c = 0; c < MPT_CONFIG_COUNT; c++)
        rbuf_printf(tb, " %8s", mpt_config_name((mpt_config)c));
    rbuf_printf(tb, "\n");
}

/* Fig. 15's energy panel as our model gives it (mpt_energy.c): the three
 * components relative to w_dp's, then w_dp against w_mp+* in absolute terms
 * and as totals over the link energy per bit e_L, which no source gives -
 * the paper's "up to 3.0x" is a total (docs/mpt.md, "Energy"). */
static void energy_text(const mpt_layerwise *lw, rbuf *tb)
{
    static const double e_link_pj[4] = {0, 1, 10, 100}; /* decades: no cited value */
    mpt_hw hw = mpt_hw_paper(0);
    rbuf_printf(tb, "Fig. 15 energy per worker and iteration (modelled; the paper's \"up to 3.0x less "
           "energy\" on Late\n  layers is total energy, so it is set against our total below).  "
           "Compute: 0.9 / 3.7 pJ per FP32\n  add / multiply (Horowitz, as the paper's Sec. VII-A); "
           "DRAM: HMC 3.7 pJ/bit (Jeddeloh and Keeth,\n  not verified, docs/mpt.md); links: a SerDes "
           "burns about as much idle as busy (Sec. VII-B), so\n  link energy = e_L x capacity "
           "switched on x time, and e_L (J per bit of capacity) is given\n  neither by the paper "
           "(its link model [45]) nor by a source we can cite: a parameter.  SRAM\n  is not "
           "counted.  Components relative to w_dp's, compute / DRAM / links (capacity x time):\n");
    rbuf_printf(tb, "  %-10s", "layer");
    for (int c = 0; c < MPT_CONFIG_COUNT; c++)
        rbuf_printf(tb, " %14s", mpt_config_name((mpt_config)c));
    rbuf_printf(tb, "\n");
    double mean[3][MPT_CONFIG_COUNT] = {{0}};
    mpt_energy base[MPT_TABLE2_LAYERS], best[MPT_TABLE2_LAYERS];
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        mpt_layer_energy(&lw->t[i][MPT_W_DP], &hw, &base[i]);
        mpt_layer_energy(&lw->t[i][MPT_W_MP_PS], &hw, &best[i]);
        rbuf_printf(tb, "  %-10s", l.name);
        for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
            mpt_energy e;
            mpt_layer_energy(&lw->t[i][c], &hw, &e);
            double r[3] = {e.compute_j / base[i].compute_j, e.dram_j / base[i].dram_j,
                           e.link_bit_s / base[i].link_bit_s};
            for (int k = 0; k < 3; k++)
                mean[k][c] += r[k] / MPT_TABLE2_LAYERS;
            rbuf_printf(tb, " %4.2f/%4.2f/%4.2f", r[0], r[1], r[2]);
        }
        rbuf_printf(tb, "\n");
    }
    rbuf_printf(tb, "  %-10s", "mean");
    for (int c = 0; c < MPT_CONFIG_COUNT; c++)
        rbuf_printf(tb, " %4.2f/%4.2f/%4.2f", mean[0][c], mean[1][c], mean[2][c]);
    rbuf_printf(tb, "\n  w_dp and w_mp+*, absolute: compute and DRAM in uJ, links in Mbit of capacity "
           "x time\n");
    rbuf_printf(tb, "  %-10s %12s %8s %8s   %14s %8s %8s\n", "layer", "w_dp compute", "DRAM",
           "links", "w_mp+* compute", "DRAM", "links");
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        rbuf_printf(tb, "  %-10s %12.0f %8.0f %8.1f   %14.0f %8.0f %8.1f\n", l.name,
               1e6 * base[i].compute_j, 1e6 * base[i].dram_j, 1e-6 * base[i].link_bit_s,
               1e6 * best[i].compute_j, 1e6 * best[i].dram_j, 1e-6 * best[i].link_bit_s);
    }
    rbuf_printf(tb, "  total energy, w_dp over w_mp+*, at e_L (pJ/bit):\n");
    rbuf_printf(tb, "  %-10s", "layer");
    for (int k = 0; k < 4; k++)
        rbuf_printf(tb, " %7.0f", e_link_pj[k]);
    rbuf_printf(tb, "   links alone   e_L for %.1fx (links' share then)\n",
           PAPER_FIG15_ENERGY_LATE);
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        rbuf_printf(tb, "  %-10s", l.name);
        for (int k = 0; k < 4; k++)
            rbuf_printf(tb, " %6.2fx", mpt_energy_total_j(&base[i], 1e-12 * e_link_pj[k]) /
                                           mpt_energy_total_j(&best[i], 1e-12 * e_link_pj[k]));
        double need = mpt_energy_link_for_cut(&base[i], &best[i], PAPER_FIG15_ENERGY_LATE);
        rbuf_printf(tb, "   %10.2fx   ", base[i].link_bit_s / best[i].link_bit_s);
        if (isnan(need))
            rbuf_printf(tb, "never\n");
        else
            rbuf_printf(tb, "%.0f pJ/bit (%.0f%%)\n", 1e12 * need,
                   100 * need * base[i].link_bit_s / mpt_energy_total_j(&base[i], need));
    }
    int late[2] = {mpt_table2_find("late-1"), mpt_table2_find("late-2")};
    char para[1024], part[2][160];
    double cd[2], ln[2];
    for (int k = 0; k < 2; k++) {
        const mpt_energy *b = &base[late[k]], *e = &best[late[k]];
        cd[k] = (b->compute_j + b->dram_j) / (e->compute_j + e->dram_j);
        ln[k] = b->link_bit_s / e->link_bit_s;
        double need = mpt_energy_link_for_cut(b, e, PAPER_FIG15_ENERGY_LATE);
        if (isnan(need))
            snprintf(part[k], sizeof part[k], "never reaches %.1fx", PAPER_FIG15_ENERGY_LATE);
        else
            snprintf(part[k], sizeof part[k],
                     "reaches %.1fx only at e_L = %.0f pJ/bit, where links would be %.0f%% of "
                     "w_dp's energy",
                     PAPER_FIG15_ENERGY_LATE, 1e12 * need,
                     100 * need * b->link_bit_s / mpt_energy_total_j(b, need));
    }
    snprintf(para, sizeof para,
             "paper: w_mp+* up to %.1fx less energy on Late layers, a total.  Ours, total, Late-1 / "
             "Late-2: %.2fx / %.2fx with no link energy (compute %.2fx / %.2fx of w_dp's, DRAM "
             "%.2fx / %.2fx), rising toward the link cut alone, %.2fx / %.2fx, as e_L grows; "
             "Late-1 %s, Late-2 %s.  The link cut alone is not the paper's total.",
             PAPER_FIG15_ENERGY_LATE, cd[0], cd[1],
             best[late[0]].compute_j / base[late[0]].compute_j,
             best[late[1]].compute_j / base[late[1]].compute_j,
             best[late[0]].dram_j / base[late[0]].dram_j, best[late[1]].dram_j / base[late[1]].dram_j,
             ln[0], ln[1], part[0], part[1]);
    rbuf_fill(tb, "  ", "  ", 98, para);
    rbuf_printf(tb, "\n");
}

/* Figs. 17-18's DGX-1 bars: a modelled estimate on dnnpar's V100 model. */
static void dgx1_text(const mpt_dgx1 *d, const mpt_wholenet *wn, rbuf *tb)
{
    rbuf_printf(tb, "Figs. 17-18, DGX-1 bars - modelled estimate, dnnpar V100 model (the paper measured "
           "a DGX-1;\n  we have none): 8 V100 (node preset dgx1, NVLink 2 ring), data parallel, FP16, "
           "step simulator;\n  NDP = w_mp+* on 256 workers above.  Step times per iteration; "
           "NDP/DGX-1 = samples/s ratio\n");
    rbuf_printf(tb, "  %-11s %9s %9s %6s %9s %9s | %6s %9s %9s\n", "network", "1 V100", "DGX-1",
           "x8", "NDP", "NDP/DGX-1", "batch", "DGX-1", "NDP/DGX-1");
    for (int k = 0; k < MPT_FIG17_NETS; k++) {
        rbuf_printf(tb, "  %-11s %6.1f ms %6.1f ms %5.2fx %6.2f ms %8.1fx |", wn->names[k],
               1e3 * d->v100_s[k], 1e3 * d->dgx1_s[k], d->gpu_scaling[k], 1e3 * d->ndp_s[k],
               d->over_dgx1[k]);
        if (d->big_batch[k] > 0)
            rbuf_printf(tb, " %6lld %6.0f ms %8.1fx\n", (long long)d->big_batch[k],
                   1e3 * d->big_s[k], d->over_big[k]);
        else
            rbuf_printf(tb, " %6s %9s %9s\n", "-", "-", "-");
    }
    rbuf_printf(tb, "  mean%53.1fx |%26.1fx\n", d->mean_over_dgx1, d->mean_over_big);
    rbuf_printf(tb, "  paper: NDP w_mp+* %.1fx over 8 GPUs at batch 256; Fig. 18: GPU batch 2K-4K, "
           "9.5x per watt\n", MPT_PAPER_DGX1_SPEEDUP);
    double lo = MPT_PAPER_POWER_LO_W / MPT_PAPER_POWER_HI_W;
    char para[1024];
    snprintf(para, sizeof para,
             "per watt (Fig. 18(b)): an equal-power assumption, not a power model.  We model no NDP "
             "power, so %.1fx is the large-batch samples/s ratio above with both systems taken to "
             "draw the same power, as the paper says they roughly do (%.0f-%.0f W, input from the "
             "paper, Sec. VII-C; 8 x %.0f W V100 board power = %.0f W, V100 datasheet); %.1fx - "
             "%.1fx if each draws anywhere in that range.  It flatters NDP, whose BN, ReLU, "
             "pooling and adds are untimed while the GPU's are timed (so does the batch-256 "
             "ratio).  Paper: %.1fx, with measured power.",
             d->mean_over_big, MPT_PAPER_POWER_LO_W, MPT_PAPER_POWER_HI_W, MPT_V100_SXM2_TDP_W,
             8 * MPT_V100_SXM2_TDP_W, d->mean_over_big * lo, d->mean_over_big / lo,
             MPT_PAPER_DGX1_PER_WATT);
    rbuf_fill(tb, "  ", "  ", 98, para);
    rbuf_printf(tb, "\n");
}

/* The summary (mpt_repro_summary.c): computed figures beside the paper's,
 * the modelled estimate, the assumption, the inputs and what is not
 * reproduced. */
static void summary_text(const dnp_mpt_repro *p, rbuf *tb)
{
    mpt_repro_summary s;
    mpt_repro_summarise(p, &s);
    char para[1536], need[2][64];
    for (int k = 0; k < 2; k++) {
        double x = s.energy_late_link_j_per_bit_for_paper[k];
        if (isnan(x))
            snprintf(need[k], sizeof need[k], "never");
        else
            snprintf(need[k], sizeof need[k], "at e_L = %.0f pJ/bit", 1e12 * x);
    }
    rbuf_printf(tb, "\nSummary (why ours differ: docs/mpt.md, 'Reproduction')\n");
    snprintf(para, sizeof para,
             "computed by our model, each beside the paper's: Fig. 15 w_mp+* over w_dp %.2fx "
             "(paper %.2fx), w_mp+ Mid / Late %.2fx / %.2fx (%.2fx / %.2fx); Fig. 16 5x5 %.2fx "
             "(%.2fx); Fig. 17 w_mp+* over w_dp %.2fx (%.1fx), over one worker w_dp %.1fx (%.0fx) "
             "and w_mp+* %.1fx (%.0fx); Fig. 7 dynamic gain %.2fx (%.1fx); Fig. 12 net gather cut "
             "2D / 1D %.1f%% / %.1f%% (34.0%% / 78.1%%, on other data); Fig. 15 total energy, "
             "Late-1 / Late-2, %.2fx / %.2fx with no link energy, %.2fx / %.2fx were links all of "
             "it; the paper's %.1fx is reached on Late-1 %s, on Late-2 %s.",
             s.fig15_mpps, PAPER_FIG15_MPPS, s.fig15_mpp_mid, s.fig15_mpp_late, PAPER_FIG15_MID,
             PAPER_FIG15_LATE, s.fig16_mpps_5x5, PAPER_FIG16_5X5, s.fig17_mpps_over_wdp,
             mpt_paper_fig17_wdp[MPT_W_MP_PS], s.fig17_wdp_over_one, PAPER_FIG17_WDP_SINGLE,
             s.fig17_mpps_over_one, PAPER_FIG17_MPPS_SINGLE, s.fig7_dynamic_gain, PAPER_FIG7_DYN,
             100 * s.fig12_gather_cut_2d, 100 * s.fig12_gather_cut_1d, s.energy_late_no_links[0],
             s.energy_late_no_links[1], s.energy_late_links_alone[0],
             s.energy_late_links_alone[1], PAPER_FIG15_ENERGY_LATE, need[0], need[1]);
    rbuf_fill(tb, "  ", "    ", 98, para);
    snprintf(para, sizeof para,
             "a modelled estimate (dnnpar's V100 model, not a measurement): NDP w_mp+* over the "
             "DGX-1 %.1fx at batch 256 (paper %.1fx, measured).",
             s.dgx1_batch256, MPT_PAPER_DGX1_SPEEDUP);
    rbuf_fill(tb, "  ", "    ", 98, para);
    snprintf(para, sizeof para,
             "an assumption, no agreement figure: per watt %.1fx, the large-batch ratio at equal "
             "power (paper %.1fx).",
             s.dgx1_big_batch, MPT_PAPER_DGX1_PER_WATT);
    rbuf_fill(tb, "  ", "    ", 98, para);
    char line[768];
    rbuf_printf(tb, "  inputs from the paper:\n");
    for (int i = 0; i < mpt_repro_input_count(); i++) {
        const mpt_repro_note *e = mpt_repro_input_at(i);
        snprintf(line, sizeof line, "%s; used by %s", e->what, e->why);
        rbuf_fill(tb, "    - ", "      ", 98, line);
    }
    rbuf_printf(tb, "  not reproduced, and why:\n");
    for (int i = 0; i < mpt_repro_unreproduced_count(); i++) {
        const mpt_repro_note *e = mpt_repro_unreproduced_at(i);
        snprintf(line, sizeof line, "%s: %s", e->what, e->why);
        rbuf_fill(tb, "    - ", "      ", 98, line);
    }
}

void mpt_repro_text(const dnp_mpt_repro *p, rbuf *tb)
{
    rbuf_printf(tb, "MPT reproduction (Hong, Ro and Kim, MICRO 2018) on our model; why the numbers "
           "differ: docs/mpt.md\n");
    rbuf_printf(tb, "Sources: every figure is computed by our model unless it is marked 'paper' (the "
           "paper's published\n  value, for comparison) or 'input from the paper' (a paper figure "
           "the model uses); the NDP hardware\n  is the paper's (Table III, Sec. VI, VII-A: input "
           "from the paper); the DGX-1 bars are a modelled estimate\n\n");
    rbuf_printf(tb, "Fig. 6: bytes each worker sends per iteration, batch 256, F(2x2,3x3), "
           "Ng = Nc = sqrt(p)\n");
    curve_text("mid-1", &p->fig6[0], 0, tb);
    curve_text("late-2", &p->fig6[1], 0, tb);
    rbuf_printf(tb, "  paper: MPT cuts weight traffic for both; tiles dominate Mid-1, are a small part "
           "of Late-2 at large p\n\n");
    rbuf_printf(tb, "Fig. 7: FractalNet (modified join), every layer; DP for layers Winograd cannot "
           "serve\n");
    curve_text("fractalnet", &p->fig7, 1, tb);
    double gain = (p->fig7.mpt_weights[3] + p->fig7.mpt_tiles[3]) / p->fig7.mpt_dynamic[3];
    rbuf_printf(tb, "  dynamic clustering at p = 256: %.2fx less traffic (paper %.1fx); MPT above DP "
           "at p = 4: %s (paper: yes)\n\n",
           gain, PAPER_FIG7_DYN,
           p->fig7.mpt_weights[0] + p->fig7.mpt_tiles[0] > p->fig7.dp[0] ? "yes" : "no");
    const mpt_trained_layer *dg = mpt_digits_layer();
    rbuf_printf(tb, "Fig. 12 / Sec. V-B: activation prediction, F(2x2,3x3).  No ImageNet, CIFAR or "
           "the paper's weights here;\n  measured on (a) conv2 of a CNN trained %d epochs on the "
           "handwritten digits Debian's python3-sklearn\n  ships (%d held-out 8x8 images, %d -> %d "
           "channels, test accuracy %.1f%%; the default shares) and (b) synthetic\n  data (smooth "
           "random images -> He-initialised 3x3 conv + ReLU -> the 32 -> 32 channel 16x16 layer)\n",
           dg->epochs, dg->batch, dg->in_c, dg->out_c, 100 * dg->test_accuracy);
    rbuf_printf(tb, "  %-12s %-7s %23s %23s %10s %10s %6s\n", "data, bias", "regions",
           "tiles inactive act/pred", "lines inactive act/pred", "zero vals", "zero lines",
           "FN");
    for (int b = -1; b < 2; b++)
        for (int k = 0; k < 3; k++) {
            const mpt_predict_measure *m = b < 0 ? &p->digits[k] : &p->pred[b][k];
            char bias[24];
            if (b < 0)
                snprintf(bias, sizeof bias, "digits");
            else if (p->pred_bias[b] == 0)
                snprintf(bias, sizeof bias, "synth, 0");
            else
                snprintf(bias, sizeof bias, "synth, -%.1f", p->pred_bias[b]);
            rbuf_printf(tb, "  %-12s %-7d %11.3f / %-9.3f %11.3f / %-9.3f %10.3f %10.3f %6lld\n",
                   bias, m->regions, m->tile_actual, m->tile_predicted, m->line_actual,
                   m->line_predicted, m->zero_values_2d, m->zero_lines_1d, m->false_negatives);
        }
    for (int d = 0; d < 2; d++) {
        const mpt_predict_measure *m0 = d == 0 ? &p->digits[2] : &p->pred[0][2];
        rbuf_printf(tb, "  %s, 4 regions: net gather cut 2D %.1f%% (6-bit codes cost 18.8%%), 1D "
               "%.1f%% (5-bit: 15.6%%); paper 34.0%%, 78.1%%\n", d == 0 ? "digits" : "synth 0",
               100 * (m0->tile_predicted - 6.0 / 32), 100 * (m0->line_predicted - 5.0 / 32));
        rbuf_printf(tb, "    zero-skipping on the scatter: %.1f%% of values, %.1f%% of lines; paper "
               "39.3%%, 64.7%%\n", 100 * m0->zero_values_2d, 100 * m0->zero_lines_1d);
    }
    rbuf_printf(tb, "\n");
    rbuf_printf(tb, "Intra-tile x data-parallel run (real numerics, 4 threads): 16 -> 16 channels, 8x8, "
           "batch 8, F(2x2,3x3)\n");
    static const char *const runs[3] = {"4x2", "16x2", "16x2 +pred"};
    rbuf_printf(tb, "  %-11s %-6s %-5s %14s %14s %14s %14s %10s\n", "grid", "equal", "mode",
           "scatter B/wkr", "III-C formula", "gather B/wkr", "III-C formula", "ring B/wkr");
    for (int k = 0; k < 3; k++) {
        const mpt_selfcheck *r = &p->run[k];
        rbuf_printf(tb, "  %-11s %-6s %-5s %14.0f %14.0f %14.0f %14.0f %10.0f\n", runs[k],
               r->equal ? "yes" : "NO", r->stats.one_d ? "1D" : "2D", r->stats.scatter_bytes_max,
               r->formula_scatter, r->stats.gather_bytes_max, r->formula_gather,
               r->stats.ring_bytes_max);
    }
    rbuf_printf(tb, "  with prediction: %lld of %lld tiles predicted inactive (actual %lld); "
           "prediction codes and maps are in the gather bytes\n\n",
           p->run[2].stats.predicted_inactive, p->run[2].stats.gather_units,
           p->run[2].stats.actual_inactive);
    rbuf_printf(tb, "Figs. 15-17 use our measured prediction shares (the 4-region digits row above):\n  ");
    mpt_shares_text(&p->measured, tb);
    rbuf_printf(tb, "Fig. 15: Table II layers, 256 workers, batch 256; forward / backward time "
           "normalised to w_dp forward\n");
    config_header("layer", tb);
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        double base = p->lw[0].t[i][MPT_W_DP].fwd_s;
        rbuf_printf(tb, "  %-10s", l.name);
        for (int c = 0; c < MPT_CONFIG_COUNT; c++)
            rbuf_printf(tb, " %3.2f/%-4.2f", p->lw[0].t[i][c].fwd_s / base,
                   p->lw[0].t[i][c].bwd_s / base);
        rbuf_printf(tb, "\n");
    }
    rbuf_printf(tb, "  speedup over w_dp (forward + backward):\n");
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        speedup_row(l.name, p->lw[0].speedup[i], tb);
    }
    speedup_row("mean", p->lw[0].mean_speedup, tb);
    mpt_hw hw32 = mpt_hw_paper(0);
    int sub = hw32.array_dim / hw32.array_split;
    rbuf_printf(tb, "  array use of w_dp (F(4x4,3x3), one sample per worker; %dx%d sub-arrays):\n   ",
           sub, sub);
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        rbuf_printf(tb, " %s %.0f%%", l.name, 100 * p->lw[0].t[i][MPT_W_DP].array_use);
    }
    rbuf_printf(tb, "\n  (one monolithic %dx%d array:", hw32.array_dim, hw32.array_dim);
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        rbuf_printf(tb, " %s %.0f%%", l.name, 100 * p->lw_mono.t[i][MPT_W_DP].array_use);
    }
    rbuf_printf(tb, ")\n");
    rbuf_printf(tb, "  dynamic grids (w_mp+*):");
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        rbuf_printf(tb, " %s %dx%d", l.name, p->lw[0].t[i][MPT_W_MP_PS].ng,
               p->lw[0].t[i][MPT_W_MP_PS].nc);
    }
    rbuf_printf(tb, "\n  w_mp+* mean %.2fx (paper %.2fx); w_mp+ Mid %.2fx (paper %.2fx), Late %.2fx "
           "(paper %.2fx)\n\n",
           p->lw[0].mean_speedup[MPT_W_MP_PS], PAPER_FIG15_MPPS,
           mpt_class_mean(&p->lw[0], "mid", MPT_W_MP_P), PAPER_FIG15_MID,
           mpt_class_mean(&p->lw[0], "late", MPT_W_MP_P), PAPER_FIG15_LATE);
    energy_text(&p->lw[0], tb);
    rbuf_printf(tb, "Fig. 16: mean speedup over w_dp of the five layers, F(2x2,5x5) for 5x5\n");
    config_header("kernel", tb);
    speedup_row("3x3", p->lw[0].mean_speedup, tb);
    speedup_row("5x5", p->lw[1].mean_speedup, tb);
    rbuf_printf(tb, "  w_mp+* %.2fx and %.2fx (paper %.2fx and %.2fx)\n\n",
           p->lw[0].mean_speedup[MPT_W_MP_PS], p->lw[1].mean_speedup[MPT_W_MP_PS],
           PAPER_FIG15_MPPS, PAPER_FIG16_5X5);
    rbuf_printf(tb, "Fig. 17: whole networks, batch 256, 256 FP16 workers (96x96 arrays); speedup over "
           "one worker (w_dp)\n");
    config_header("network", tb);
    for (int k = 0; k < MPT_FIG17_NETS; k++)
        speedup_row(p->wn.names[k], p->wn.over_single[k], tb);
    speedup_row("mean", p->wn.mean_over_single, tb);
    rbuf_printf(tb, "  speedup over w_dp on 256 workers:\n");
    for (int k = 0; k < MPT_FIG17_NETS; k++)
        speedup_row(p->wn.names[k], p->wn.over_wdp[k], tb);
    speedup_row("mean", p->wn.mean_over_wdp, tb);
    speedup_row("paper", mpt_paper_fig17_wdp, tb);
    rbuf_printf(tb, "  over one worker: w_dp %.1fx (paper %.0fx), w_mp+* %.1fx (paper %.0fx)\n\n",
           p->wn.mean_over_single[MPT_W_DP], PAPER_FIG17_WDP_SINGLE,
           p->wn.mean_over_single[MPT_W_MP_PS], PAPER_FIG17_MPPS_SINGLE);
    dgx1_text(&p->dgx1, &p->wn, tb);
    rbuf_printf(tb, "Sensitivity (w_mp+* over w_dp: Fig. 15 mean, Fig. 17 mean):\n");
    rbuf_printf(tb, "  as above (our measured shares, dynamic by total time)           %.2fx  %.2fx\n",
           p->lw[0].mean_speedup[MPT_W_MP_PS], p->wn.mean_over_wdp[MPT_W_MP_PS]);
    rbuf_printf(tb, "  dynamic clustering by communication only (the paper's Sec. IV)  %.2fx  %.2fx\n",
           p->lw_comm.mean_speedup[MPT_W_MP_PS], p->wn_comm.mean_over_wdp[MPT_W_MP_PS]);
    rbuf_printf(tb, "  the paper's prediction shares (input from the paper's measured\n"
           "    result, Sec. V-B; extrapolated to the backward gather)          %.2fx  %.2fx\n",
           p->lw_paper.mean_speedup[MPT_W_MP_PS], p->wn_paper.mean_over_wdp[MPT_W_MP_PS]);
    rbuf_printf(tb, "  one monolithic array per worker (not split into sub-arrays)      %.2fx  %.2fx\n"
           "    (there w_dp scales %.1fx over one worker, w_mp+* %.1fx)\n",
           p->lw_mono.mean_speedup[MPT_W_MP_PS], p->wn_mono.mean_over_wdp[MPT_W_MP_PS],
           p->wn_mono.mean_over_single[MPT_W_DP], p->wn_mono.mean_over_single[MPT_W_MP_PS]);
    rbuf_printf(tb, "\nCommunication sensitivity: every link's bandwidth scaled (w_mp+* over w_dp)\n");
    rbuf_printf(tb, "  %-22s", "links x");
    for (int k = 0; k < 5; k++)
        rbuf_printf(tb, " %7.2f", mpt_link_scales[k]);
    rbuf_printf(tb, "\n  %-22s", "Fig. 15 mean (FP32)");
    for (int k = 0; k < 5; k++)
        rbuf_printf(tb, " %6.2fx", p->link_fig15[k]);
    rbuf_printf(tb, "\n  %-22s", "Fig. 17 mean (FP16)");
    for (int k = 0; k < 5; k++)
        rbuf_printf(tb, " %6.2fx", p->link_fig17[k]);
    int rises = p->link_fig15[4] > p->link_fig15[2] || p->link_fig17[4] > p->link_fig17[2];
    rbuf_printf(tb, "\n  MPT saves communication, so its gain should fall as links get faster; %s\n",
           rises ? "it rises a little:\n  MPT's tile transfer needs the links more than "
                   "w_dp's all-reduce, and with fast links w_dp\n  is bound by DRAM (each "
                   "worker reads all the weights every phase, MPT 1/Ng of them),\n  "
                   "docs/mpt.md"
                 : "it does");
    summary_text(p, tb);
}
