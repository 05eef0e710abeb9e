/*
 * mpt_repro_api.c - the MPT paper's evaluation (Hong et al., MICRO 2018,
 * Sec. VII) run on our model behind the public API (dnnpar.h, "MPT"):
 * Figs. 6, 7 (traffic), 12 (activation prediction measured on a trained CNN and synthetic
 * data), a real intra-tile x data-parallel run, Figs. 15-17 and the
 * sensitivities of docs/mpt.md, "Reproduction".
 */
#include "arch/mpt/mpt_api.h"

#include <string.h>

const double mpt_paper_fig17_wdp[MPT_CONFIG_COUNT] = {0, 1.0, 0, 1.4, 2.2, 2.7};
const double mpt_link_scales[MPT_N_LINK_SCALES] = {0.25, 0.5, 1.0, 2.0, 4.0};

static dnp_status repro_run(dnp_mpt_repro *p, dnp_error *err)
{
    mpt_layer l;
    dnp_status st = DNP_OK;
    memset(p, 0, sizeof *p);
    mpt_table2_layer(mpt_table2_find("mid-1"), 3, &l, NULL);
    mpt_fig6(&l, 256, 4, &p->fig6[0]);
    mpt_table2_layer(mpt_table2_find("late-2"), 3, &l, NULL);
    mpt_fig6(&l, 256, 4, &p->fig6[1]);
    dnp_graph *g = NULL;
    mpt_net net;
    memset(&net, 0, sizeof net);
    st = dnp_zoo_build("fractalnet", &g, err);
    if (st == DNP_OK)
        st = mpt_net_from_graph(g, &net, err);
    if (st == DNP_OK)
        mpt_fig7(&net, 256, 4, &p->fig7);
    mpt_net_free(&net);
    dnp_graph_free(g);
    if (st == DNP_OK)
        st = mpt_predict_measure_trained(mpt_digits_layer(), p->digits, err);
    for (int b = 0; b < 2 && st == DNP_OK; b++) {
        mpt_measure_setup ms = mpt_measure_default();
        ms.bias_sigmas = p->pred_bias[b] = 0.5 * b;
        st = mpt_predict_measure_run(&ms, p->pred[b], err);
    }
    if (st != DNP_OK)
        return st;
    static const int runs[3][3] = {{4, 2, 0}, {16, 2, 0}, {16, 2, 1}};
    for (int k = 0; k < 3 && st == DNP_OK; k++)
        st = mpt_selfcheck_run(runs[k][0], runs[k][1], runs[k][2], &p->run[k], err);
    /* the default system, mpt_sys_paper's: our measured shares (= mpt_cuts_ours) */
    p->measured = mpt_cuts_measured(&p->digits[2]);
    mpt_sys sys = mpt_sys_paper_with(&p->measured);
    if (st == DNP_OK)
        st = mpt_layerwise_run(&sys, 3, &p->lw[0], err);
    if (st == DNP_OK)
        st = mpt_layerwise_run(&sys, 5, &p->lw[1], err);
    mpt_sys by_comm = sys;
    by_comm.dyn_by_comm = 1;
    if (st == DNP_OK)
        st = mpt_layerwise_run(&by_comm, 3, &p->lw_comm, err);
    mpt_sys fp16 = sys;
    fp16.hw = mpt_hw_paper(1); /* footnote 16: FP16, 96x96 for whole CNNs */
    if (st == DNP_OK)
        st = mpt_wholenet_run(&fp16, &p->wn, err);
    if (st == DNP_OK)
        st = mpt_dgx1_run(&p->wn, &p->dgx1, err);
    fp16.dyn_by_comm = 1;
    if (st == DNP_OK)
        st = mpt_wholenet_run(&fp16, &p->wn_comm, err);
    for (int k = 0; k < 5 && st == DNP_OK; k++) { /* every link's bandwidth scaled */
        mpt_sys ls = sys, lf = fp16;
        ls.hw.full_link_bps *= mpt_link_scales[k];
        ls.hw.narrow_link_bps *= mpt_link_scales[k];
        lf.hw.full_link_bps *= mpt_link_scales[k];
        lf.hw.narrow_link_bps *= mpt_link_scales[k];
        lf.dyn_by_comm = 0;
        mpt_layerwise *lw = dnp_malloc(sizeof *lw);
        mpt_wholenet *wn = dnp_malloc(sizeof *wn);
        if (lw == NULL || wn == NULL) {
            dnp_error_set(err, DNP_ERR_NOMEM, "out of memory");
            st = DNP_ERR_NOMEM;
        }
        if (st == DNP_OK)
            st = mpt_layerwise_run(&ls, 3, lw, err);
        if (st == DNP_OK)
            st = mpt_wholenet_run(&lf, wn, err);
        if (st == DNP_OK) {
            p->link_fig15[k] = lw->mean_speedup[MPT_W_MP_PS];
            p->link_fig17[k] = wn->mean_over_wdp[MPT_W_MP_PS];
        }
        dnp_free(lw);
        dnp_free(wn);
    }
    mpt_sys mono = sys, mono16 = fp16; /* the array not split (the model before packing) */
    mono.hw.array_split = mono16.hw.array_split = 1;
    mono16.dyn_by_comm = 0;
    if (st == DNP_OK)
        st = mpt_layerwise_run(&mono, 3, &p->lw_mono, err);
    if (st == DNP_OK)
        st = mpt_wholenet_run(&mono16, &p->wn_mono, err);
    mpt_sys paper = mpt_sys_paper_shares(); /* input from the paper's measured result */
    if (st == DNP_OK)
        st = mpt_layerwise_run(&paper, 3, &p->lw_paper, err);
    fp16.dyn_by_comm = 0;
    fp16.cuts = paper.cuts;
    if (st == DNP_OK)
        st = mpt_wholenet_run(&fp16, &p->wn_paper, err);
    return st;
}

dnp_status dnp_mpt_reproduce(dnp_mpt_repro **out, dnp_error *err)
{
    dnp_mpt_repro *p = dnp_malloc(sizeof *p);
    if (p == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory");
        return DNP_ERR_NOMEM;
    }
    dnp_status st = repro_run(p, err);
    if (st != DNP_OK) {
        dnp_free(p);
        return st;
    }
    *out = p;
    return DNP_OK;
}

void dnp_mpt_repro_free(dnp_mpt_repro *r) { dnp_free(r); }

dnp_status dnp_mpt_repro_text(const dnp_mpt_repro *r, char **out, dnp_error *err)
{
    rbuf b;
    rbuf_init(&b);
    mpt_repro_text(r, &b);
    char *text = rbuf_take(&b);
    if (text == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the report");
        return DNP_ERR_NOMEM;
    }
    *out = text;
    return DNP_OK;
}

dnp_status dnp_mpt_repro_json(const dnp_mpt_repro *r, char **out, dnp_error *err)
{
    return dnp_json_report_text(mpt_repro_json(r), out, err);
}
