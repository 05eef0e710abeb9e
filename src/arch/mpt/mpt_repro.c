/*
 * mpt_repro.c - the evaluations behind the paper's Figs. 15, 16 (layer by
 * layer, Sec. VII-B) and 17 (whole networks, Sec. VII-C) on our model.
 */
#include "arch/mpt/mpt_model.h"

#include <string.h>

dnp_status mpt_layerwise_run(const mpt_sys *sys, int kernel, mpt_layerwise *out,
                             dnp_error *err)
{
    mpt_layerwise r;
    memset(&r, 0, sizeof r);
    r.kernel = kernel;
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        if (!mpt_table2_layer(i, kernel, &l, NULL)) {
            dnp_error_set(err, DNP_ERR_INTERNAL, "Table II has no layer %d", i);
            return DNP_ERR_INTERNAL;
        }
        for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
            dnp_status st = mpt_layer_eval(&l, sys, (mpt_config)c, &r.t[i][c], err);
            if (st != DNP_OK)
                return st;
        }
        double base = r.t[i][MPT_W_DP].fwd_s + r.t[i][MPT_W_DP].bwd_s;
        for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
            r.speedup[i][c] = base / (r.t[i][c].fwd_s + r.t[i][c].bwd_s);
            r.mean_speedup[c] += r.speedup[i][c] / MPT_TABLE2_LAYERS;
        }
    }
    *out = r;
    return DNP_OK;
}

dnp_status mpt_wholenet_run(const mpt_sys *sys, mpt_wholenet *out, dnp_error *err)
{
    static const char *const names[MPT_FIG17_NETS] = {"wrn-40-10", "resnet34", "fractalnet"};
    mpt_wholenet r;
    memset(&r, 0, sizeof r);
    mpt_sys one = *sys;
    one.workers = 1;
    one.fixed_ng = 1;
    one.n_choices = 1;
    one.choices[0] = 1;
    dnp_status st = DNP_OK;
    for (int k = 0; k < MPT_FIG17_NETS && st == DNP_OK; k++) {
        r.names[k] = names[k];
        dnp_graph *g = NULL;
        mpt_net net;
        memset(&net, 0, sizeof net);
        st = dnp_zoo_build(names[k], &g, err);
        if (st == DNP_OK)
            st = mpt_net_from_graph(g, &net, err);
        if (st == DNP_OK)
            st = mpt_net_eval(&net, &one, MPT_W_DP, &r.single[k], NULL, err);
        for (int c = 0; c < MPT_CONFIG_COUNT && st == DNP_OK; c++)
            st = mpt_net_eval(&net, sys, (mpt_config)c, &r.t[k][c], NULL, err);
        for (int c = 0; c < MPT_CONFIG_COUNT && st == DNP_OK; c++) {
            r.over_single[k][c] = r.single[k].total_s / r.t[k][c].total_s;
            r.over_wdp[k][c] = r.t[k][MPT_W_DP].total_s / r.t[k][c].total_s;
            r.mean_over_single[c] += r.over_single[k][c] / MPT_FIG17_NETS;
            r.mean_over_wdp[c] += r.over_wdp[k][c] / MPT_FIG17_NETS;
        }
        mpt_net_free(&net);
        dnp_graph_free(g);
    }
    if (st == DNP_OK)
        *out = r;
    return st;
}
