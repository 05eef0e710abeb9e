/*
 * mpt_repro_json.c - the reproduction of the MPT paper's evaluation as
 * JSON (`dnnpar reproduce mpt --json`): Figs. 6, 7, 12, the real parallel
 * run, Figs. 15-17, ours beside the paper's, and the sensitivities.  Why
 * ours differ: docs/mpt.md, "Reproduction".
 */
#include "arch/mpt/mpt_api.h"

#include <math.h>

static json_t *curve_json(const mpt_traffic_curve *c, int dynamic)
{
    json_t *p = json_array(), *dp = json_array(), *w = json_array(), *t = json_array(),
           *d = json_array();
    for (int k = 0; k < MPT_FIG6_POINTS; k++) {
        json_array_append_new(p, json_integer(c->p[k]));
        json_array_append_new(dp, json_real(c->dp[k]));
        json_array_append_new(w, json_real(c->mpt_weights[k]));
        json_array_append_new(t, json_real(c->mpt_tiles[k]));
        json_array_append_new(d, json_real(c->mpt_dynamic[k]));
    }
    json_t *o = json_pack("{s:o,s:o,s:o,s:o}", "workers", p, "dp_bytes", dp,
                          "mpt_weight_bytes", w, "mpt_tile_bytes", t);
    if (dynamic)
        json_object_set_new(o, "mpt_dynamic_bytes", d);
    else
        json_decref(d);
    return o;
}

static json_t *speedups_json(const double *v)
{
    json_t *o = json_object();
    for (int c = 0; c < MPT_CONFIG_COUNT; c++)
        json_object_set_new(o, mpt_config_name((mpt_config)c), json_real(v[c]));
    return o;
}

static json_t *layerwise_json(const mpt_layerwise *lw)
{
    json_t *layers = json_object();
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, lw->kernel, &l, NULL);
        json_t *cfg = json_object();
        double base = lw->t[i][MPT_W_DP].fwd_s;
        for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
            char grid[16];
            mpt_grid_text(lw->t[i][c].ng, lw->t[i][c].nc, grid, sizeof grid);
            json_object_set_new(cfg, mpt_config_name((mpt_config)c),
                                json_pack("{s:f,s:f,s:f,s:s}", "forward_norm",
                                          lw->t[i][c].fwd_s / base, "backward_norm",
                                          lw->t[i][c].bwd_s / base, "speedup_over_w_dp",
                                          lw->speedup[i][c], "grid", grid));
        }
        json_object_set_new(layers, l.name, cfg);
    }
    return json_pack("{s:i,s:o,s:o}", "kernel", lw->kernel, "layers", layers,
                     "mean_speedup_over_w_dp", speedups_json(lw->mean_speedup));
}

static json_t *wholenet_json(const mpt_wholenet *wn)
{
    json_t *nets = json_object();
    for (int k = 0; k < MPT_FIG17_NETS; k++)
        json_object_set_new(nets, wn->names[k],
                            json_pack("{s:o,s:o}", "speedup_over_one_worker",
                                      speedups_json(wn->over_single[k]), "speedup_over_w_dp",
                                      speedups_json(wn->over_wdp[k])));
    return json_pack("{s:o,s:o,s:o}", "networks", nets, "mean_speedup_over_one_worker",
                     speedups_json(wn->mean_over_single), "mean_speedup_over_w_dp",
                     speedups_json(wn->mean_over_wdp));
}

/* NAN (never) as null: JSON has no NaN. */
static json_t *real_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

/* Fig. 15's energy panel (mpt_energy.c; docs/mpt.md, "Energy"): the
 * components per configuration, and w_dp's total over w_mp+*'s as a
 * function of the link energy per bit, a parameter. */
static json_t *energy_json(const mpt_layerwise *lw)
{
    static const double e_link_pj[4] = {0, 1, 10, 100};
    mpt_hw hw = mpt_hw_paper(0);
    json_t *layers = json_object();
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        json_t *o = json_object();
        for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
            mpt_energy e;
            mpt_layer_energy(&lw->t[i][c], &hw, &e);
            json_object_set_new(o, mpt_config_name((mpt_config)c),
                                json_pack("{s:f,s:f,s:f}", "compute_j_per_worker", e.compute_j,
                                          "dram_j_per_worker", e.dram_j,
                                          "link_bit_s_per_worker", e.link_bit_s));
        }
        mpt_energy b, m;
        mpt_layer_energy(&lw->t[i][MPT_W_DP], &hw, &b);
        mpt_layer_energy(&lw->t[i][MPT_W_MP_PS], &hw, &m);
        json_t *at = json_array();
        for (int k = 0; k < 4; k++)
            json_array_append_new(
                at, json_pack("{s:f,s:f}", "link_pj_per_bit", e_link_pj[k], "cut",
                              mpt_energy_total_j(&b, 1e-12 * e_link_pj[k]) /
                                  mpt_energy_total_j(&m, 1e-12 * e_link_pj[k])));
        double need = mpt_energy_link_for_cut(&b, &m, PAPER_FIG15_ENERGY_LATE);
        json_object_set_new(
            o, "total_w_dp_over_w_mp+*",
            json_pack("{s:o,s:f,s:o}", "at_link_energy", at, "links_alone",
                      b.link_bit_s / m.link_bit_s, "link_pj_per_bit_for_paper_cut",
                      real_or_null(1e12 * need)));
        json_object_set_new(layers, l.name, o);
    }
    return json_pack(
        "{s:s,s:s,s:f,s:o}", "model",
        "modelled: compute 0.9 / 3.7 pJ per FP32 add / multiply (Horowitz, ISSCC 2014, as the "
        "paper's Sec. VII-A); HMC DRAM 3.7 pJ/bit (Jeddeloh and Keeth, VLSI 2012, not verified); "
        "links: energy per bit of capacity switched on x capacity x time, the energy per bit a "
        "parameter (neither the paper nor a source we can cite gives it); SRAM not counted",
        "compare",
        "the paper's up to 3.0x (Late layers) is total energy: compare it with "
        "total_w_dp_over_w_mp+*, not with a link ratio",
        "paper_total_cut_late", PAPER_FIG15_ENERGY_LATE, "layers", layers);
}

static json_t *measure_json(const mpt_predict_measure *m, double bias_sigmas)
{
    json_t *o = json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I}", "regions", m->regions,
                          "tile_actual", m->tile_actual, "tile_predicted", m->tile_predicted,
                          "line_actual", m->line_actual, "line_predicted", m->line_predicted,
                          "zero_values_2d", m->zero_values_2d, "zero_lines_1d",
                          m->zero_lines_1d, "zero_tiles_2d", m->zero_tiles_2d,
                          "false_negatives", (json_int_t)m->false_negatives);
    if (!isnan(bias_sigmas))
        json_object_set_new(o, "bias_sigmas", json_real(bias_sigmas));
    return o;
}

static json_t *pred_json(const dnp_mpt_repro *p)
{
    json_t *synth = json_array(), *digits = json_array();
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < 3; k++)
            json_array_append_new(synth, measure_json(&p->pred[b][k], p->pred_bias[b]));
    for (int k = 0; k < 3; k++)
        json_array_append_new(digits, measure_json(&p->digits[k], NAN));
    const mpt_trained_layer *dg = mpt_digits_layer();
    return json_pack(
        "{s:{s:s,s:i,s:i,s:i,s:i,s:i,s:f,s:o},s:{s:s,s:o},s:{s:f,s:f,s:f,s:f}}", "trained",
        "data",
        "conv2 (3x3, bias, ReLU) of a CNN trained on the UCI handwritten digits shipped by "
        "Debian's python3-sklearn (scripts/mpt-digits-train.py), held-out images; the default "
        "shares",
        "images", dg->batch, "size", dg->size, "in_channels", dg->in_c, "out_channels",
        dg->out_c, "epochs", dg->epochs, "test_accuracy", dg->test_accuracy, "measurements",
        digits, "synthetic", "data",
        "smooth random images, one He-initialised 3x3 conv + ReLU, then the measured 3x3 layer "
        "(32 -> 32 channels, 16x16, batch 4)",
        "measurements", synth, "paper", "gather_cut_2d", 0.340, "gather_cut_1d", 0.781,
        "scatter_cut_2d", 0.393, "scatter_cut_1d", 0.647);
}

static json_t *run_json(const dnp_mpt_repro *p)
{
    static const char *const names[3] = {"4x2", "16x2", "16x2+predict"};
    json_t *o = json_object();
    for (int k = 0; k < 3; k++) {
        const mpt_selfcheck *r = &p->run[k];
        json_object_set_new(
            o, names[k],
            json_pack("{s:b,s:b,s:f,s:f,s:f,s:f,s:f,s:I,s:I}", "equals_single_worker", r->equal,
                      "one_d", r->stats.one_d, "scatter_bytes_per_worker",
                      r->stats.scatter_bytes_max, "gather_bytes_per_worker",
                      r->stats.gather_bytes_max, "ring_bytes_per_worker", r->stats.ring_bytes_max,
                      "formula_scatter_bytes", r->formula_scatter, "formula_gather_bytes",
                      r->formula_gather, "units_predicted_inactive",
                      (json_int_t)r->stats.predicted_inactive, "units_actual_inactive",
                      (json_int_t)r->stats.actual_inactive));
    }
    return o;
}

/* Figs. 17-18's DGX-1 bars (mpt_dgx1.c): a modelled estimate. */
static json_t *dgx1_json(const mpt_dgx1 *d, const mpt_wholenet *wn)
{
    json_t *nets = json_array();
    for (int k = 0; k < MPT_FIG17_NETS; k++)
        json_array_append_new(
            nets, json_pack("{s:s,s:f,s:b,s:f,s:f,s:f,s:f,s:I,s:f,s:f}", "network", wn->names[k],
                            "one_v100_step_s", d->v100_s[k], "one_v100_fits", d->v100_fits[k],
                            "dgx1_step_s", d->dgx1_s[k], "dgx1_over_one_v100",
                            d->gpu_scaling[k], "ndp_w_mp+*_step_s", d->ndp_s[k],
                            "ndp_over_dgx1_batch_256", d->over_dgx1[k], "fig18_gpu_batch",
                            (json_int_t)d->big_batch[k], "fig18_dgx1_step_s", d->big_s[k],
                            "fig18_ndp_over_dgx1", d->over_big[k]));
    double lo = MPT_PAPER_POWER_LO_W / MPT_PAPER_POWER_HI_W;
    return json_pack(
        "{s:s,s:s,s:o,s:f,s:f,s:{s:s,s:f,s:f,s:f,s:s,s:s},s:{s:f,s:f,s:f,s:f,s:f}}", "label",
        "modelled estimate, dnnpar V100 model", "gpu_side",
        "dnnpar node preset dgx1 (8 x v100), data parallel, fp16, default performance model",
        "networks", nets, "mean_ndp_over_dgx1_batch_256", d->mean_over_dgx1,
        "mean_fig18_ndp_over_dgx1", d->mean_over_big, "per_watt", "label",
        "an equal-power assumption, not a power model: NDP power is not modelled",
        "at_equal_power", d->mean_over_big, "over_power_range_low", d->mean_over_big * lo,
        "over_power_range_high", d->mean_over_big / lo, "power_source",
        "input from the paper (Sec. VII-C): both systems 1800-2600 W", "flattered_by",
        "BN, ReLU, pooling and adds untimed on NDP, timed on the GPU", "paper",
        "ndp_over_8_gpus_batch_256", MPT_PAPER_DGX1_SPEEDUP, "per_watt_mean",
        MPT_PAPER_DGX1_PER_WATT, "power_low_w", MPT_PAPER_POWER_LO_W, "power_high_w",
        MPT_PAPER_POWER_HI_W, "v100_board_power_w_datasheet", MPT_V100_SXM2_TDP_W);
}

/* The summary (mpt_repro_summary.c). */
static json_t *summary_json(const dnp_mpt_repro *p)
{
    mpt_repro_summary s;
    mpt_repro_summarise(p, &s);
    json_t *inputs = json_array(), *not_done = json_array();
    for (int i = 0; i < mpt_repro_input_count(); i++)
        json_array_append_new(inputs, json_pack("{s:s,s:s}", "what", mpt_repro_input_at(i)->what,
                                                "used_by", mpt_repro_input_at(i)->why));
    for (int i = 0; i < mpt_repro_unreproduced_count(); i++)
        json_array_append_new(not_done,
                              json_pack("{s:s,s:s}", "what", mpt_repro_unreproduced_at(i)->what,
                                        "why", mpt_repro_unreproduced_at(i)->why));
    json_t *computed = json_pack(
        "{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:[f,f],s:[f,f]}", "fig15_w_mp+*_over_w_dp",
        s.fig15_mpps, "fig15_w_mp+_mid", s.fig15_mpp_mid, "fig15_w_mp+_late", s.fig15_mpp_late,
        "fig16_w_mp+*_5x5", s.fig16_mpps_5x5, "fig17_w_mp+*_over_w_dp", s.fig17_mpps_over_wdp,
        "fig17_w_dp_over_one_worker", s.fig17_wdp_over_one, "fig17_w_mp+*_over_one_worker",
        s.fig17_mpps_over_one, "fig7_dynamic_gain", s.fig7_dynamic_gain, "fig12_gather_cut_2d",
        s.fig12_gather_cut_2d, "fig12_gather_cut_1d", s.fig12_gather_cut_1d,
        "fig15_total_energy_cut_late_no_link_energy", s.energy_late_no_links[0],
        s.energy_late_no_links[1], "fig15_link_cut_late", s.energy_late_links_alone[0],
        s.energy_late_links_alone[1]);
    json_t *need = json_array();
    for (int k = 0; k < 2; k++)
        json_array_append_new(need, real_or_null(1e12 * s.energy_late_link_j_per_bit_for_paper[k]));
    json_object_set_new(computed, "fig15_link_pj_per_bit_for_paper_cut_late", need);
    return json_pack("{s:o,s:{s:f},s:{s:f,s:s},s:o,s:o}", "computed", computed,
                     "modelled_estimate", "dgx1_ndp_over_dgx1_batch_256", s.dgx1_batch256,
                     "assumption", "per_watt_at_equal_power", s.dgx1_big_batch, "label",
                     "an equal-power assumption, no agreement figure", "inputs_from_paper",
                     inputs, "not_reproduced", not_done);
}

json_t *mpt_repro_json(const dnp_mpt_repro *p)
{
    json_t *fig15 = layerwise_json(&p->lw[0]);
    json_object_set_new(fig15, "paper",
                        json_pack("{s:f,s:f,s:f}", "w_mp+*_mean", PAPER_FIG15_MPPS,
                                  "w_mp+_mid", PAPER_FIG15_MID, "w_mp+_late", PAPER_FIG15_LATE));
    json_object_set_new(fig15, "w_mp+_mid", json_real(mpt_class_mean(&p->lw[0], "mid", MPT_W_MP_P)));
    json_object_set_new(fig15, "w_mp+_late",
                        json_real(mpt_class_mean(&p->lw[0], "late", MPT_W_MP_P)));
    json_t *use = json_object(), *use_mono = json_object();
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        json_object_set_new(use, l.name, json_real(p->lw[0].t[i][MPT_W_DP].array_use));
        json_object_set_new(use_mono, l.name, json_real(p->lw_mono.t[i][MPT_W_DP].array_use));
    }
    json_object_set_new(fig15, "w_dp_array_use", use);
    json_object_set_new(fig15, "energy", energy_json(&p->lw[0]));
    json_object_set_new(fig15, "w_dp_array_use_monolithic", use_mono);
    json_t *fig17 = wholenet_json(&p->wn);
    json_object_set_new(fig17, "paper",
                        json_pack("{s:f,s:f,s:o}", "w_dp_over_one_worker",
                                  PAPER_FIG17_WDP_SINGLE, "w_mp+*_over_one_worker",
                                  PAPER_FIG17_MPPS_SINGLE, "over_w_dp",
                                  json_pack("{s:f,s:f,s:f}", "w_mp+", 1.4, "w_mp*", 2.2,
                                            "w_mp+*", 2.7)));
    json_t *fig7 = curve_json(&p->fig7, 1);
    json_object_set_new(fig7, "paper_dynamic_gain_at_256", json_real(PAPER_FIG7_DYN));
    json_t *root = json_pack(
        "{s:{s:o,s:o},s:o,s:o,s:o,s:o,s:{s:o,s:o,s:f},s:o,s:{s:f,s:f}}", "fig6", "mid-1",
        curve_json(&p->fig6[0], 0), "late-2", curve_json(&p->fig6[1], 0), "fig7", fig7,
        "fig12", pred_json(p), "parallel_run", run_json(p), "fig15", fig15, "fig16", "3x3",
        speedups_json(p->lw[0].mean_speedup), "5x5", speedups_json(p->lw[1].mean_speedup),
        "paper_w_mp+*_5x5", PAPER_FIG16_5X5, "fig17", fig17, "dynamic_by_communication_paper_criterion",
        "fig15_w_mp+*_mean", p->lw_comm.mean_speedup[MPT_W_MP_PS], "fig17_w_mp+*_over_w_dp",
        p->wn_comm.mean_over_wdp[MPT_W_MP_PS]);
    json_object_set_new(root, "prediction_shares", mpt_shares_json(&p->measured));
    json_object_set_new(root, "dgx1", dgx1_json(&p->dgx1, &p->wn));
    json_t *links = json_array();
    for (int k = 0; k < 5; k++)
        json_array_append_new(links, json_pack("{s:f,s:f,s:f}", "link_bandwidth_scale",
                                               mpt_link_scales[k], "fig15_w_mp+*_over_w_dp",
                                               p->link_fig15[k], "fig17_w_mp+*_over_w_dp",
                                               p->link_fig17[k]));
    json_object_set_new(root, "link_sensitivity", links);
    mpt_cuts pc = mpt_cuts_paper();
    json_object_set_new(root, "with_paper_prediction_shares",
                        json_pack("{s:o,s:f,s:f}", "shares", mpt_shares_json(&pc),
                                  "fig15_w_mp+*_mean", p->lw_paper.mean_speedup[MPT_W_MP_PS],
                                  "fig17_w_mp+*_over_w_dp",
                                  p->wn_paper.mean_over_wdp[MPT_W_MP_PS]));
    json_object_set_new(root, "summary", summary_json(p));
    json_object_set_new(root, "monolithic_array",
                        json_pack("{s:f,s:f,s:f,s:f}", "fig15_w_mp+*_mean",
                                  p->lw_mono.mean_speedup[MPT_W_MP_PS], "fig17_w_mp+*_over_w_dp",
                                  p->wn_mono.mean_over_wdp[MPT_W_MP_PS],
                                  "fig17_w_dp_over_one_worker",
                                  p->wn_mono.mean_over_single[MPT_W_DP],
                                  "fig17_w_mp+*_over_one_worker",
                                  p->wn_mono.mean_over_single[MPT_W_MP_PS]));
    return root;
}
