/*
 * mpt_api.h - what the public MPT API (dnnpar.h, "MPT") keeps behind its
 * opaque handles, and the formatting its reports share: an evaluation
 * (mpt_run.c, reported by mpt_run_json.c and mpt_run_text.c) and the
 * reproduction of the paper's evaluation (mpt_repro_api.c, reported by
 * mpt_repro_json.c and mpt_repro_text.c).  Internal to src/arch/mpt.
 */
#ifndef DNNPAR_MPT_API_H
#define DNNPAR_MPT_API_H

#include "arch/mpt/mpt_exec.h"
#include "arch/mpt/mpt_model.h"
#include "core/json_text.h"
#include "report/report.h"

#include <jansson.h>

/* One evaluation of `dnnpar mpt`. */
struct dnp_mpt_run {
    mpt_sys sys;
    int kernel;
    mpt_net net;
    const char *what;     /* Table II source (static), or NULL for a model */
    int is_layer;
    mpt_net_time t[MPT_CONFIG_COUNT];
    mpt_net_time single;  /* w_dp on one worker */
    mpt_layer_time *per[MPT_CONFIG_COUNT]; /* per layer (owned) */
};

/* Paper figures quoted in the text (the plots themselves are not in it). */
#define PAPER_FIG15_MPPS 2.74   /* w_mp+* over w_dp, mean of the five 3x3 layers */
#define PAPER_FIG15_MID 2.24    /* w_mp+ over w_dp, Mid layers */
#define PAPER_FIG15_LATE 4.54   /* w_mp+ over w_dp, Late layers */
#define PAPER_FIG15_ENERGY_LATE 3.0 /* w_mp+* over w_dp, total energy, "up to", Late layers */
#define PAPER_FIG16_5X5 3.03    /* w_mp+* over w_dp, 5x5 */
#define PAPER_FIG7_DYN 1.4      /* MPT / MPT with dynamic clustering at p = 256 */
#define PAPER_FIG17_WDP_SINGLE 71.0
#define PAPER_FIG17_MPPS_SINGLE 191.0
/* Fig. 17 over w_dp per configuration (0: not given). */
extern const double mpt_paper_fig17_wdp[MPT_CONFIG_COUNT];
/* Every link's bandwidth scaled by these in the sensitivity runs. */
#define MPT_N_LINK_SCALES 5
extern const double mpt_link_scales[MPT_N_LINK_SCALES];

/* The reproduction's figures. */
struct dnp_mpt_repro {
    mpt_traffic_curve fig6[2], fig7;
    mpt_predict_measure digits[3];  /* the CNN trained on digits (the default); 1, 2, 4 regions */
    mpt_predict_measure pred[2][3]; /* synthetic: output bias 0 and -0.5 sigma; 1, 2, 4 regions */
    double pred_bias[2];
    mpt_selfcheck run[3];           /* 4x2, 16x2, 16x2 with prediction */
    mpt_layerwise lw[2];            /* 3x3, 5x5 */
    mpt_layerwise lw_comm;          /* 3x3, dynamic clustering by communication (paper) */
    mpt_wholenet wn, wn_comm;
    mpt_cuts measured;              /* the cuts our measurement gives: used throughout */
    mpt_layerwise lw_paper;         /* 3x3 with the paper's cuts (input from the paper) */
    mpt_wholenet wn_paper;
    double link_fig15[MPT_N_LINK_SCALES], link_fig17[MPT_N_LINK_SCALES]; /* w_mp+* over w_dp */
    mpt_layerwise lw_mono;          /* 3x3 on one monolithic array (hw.array_split = 1) */
    mpt_wholenet wn_mono;
    mpt_dgx1 dgx1;                  /* Figs. 17-18's DGX-1 bars, modelled on dnnpar's V100 model */
};

/* ---- formatting shared by the reports (mpt_report_fmt.c) ---------------- */

/* "1.54 MB", "768 B" (SI prefixes). */
void mpt_fmt_bytes(double bytes, char *buf, size_t n);
/* Seconds as "12.3 us". */
void mpt_fmt_us(double time_s, char *buf, size_t n);
/* "16x16". */
void mpt_grid_text(int ng, int nc, char *buf, size_t n);
/* The transform of a layer time: "F(2x2,3x3)", or "direct". */
void mpt_tf_text(const mpt_layer_time *t, const mpt_layer *l, char *buf, size_t n);
/* Where the prediction shares come from, its JSON (new reference) and its
 * text paragraph appended to tb. */
const char *mpt_shares_source(const mpt_cuts *c);
json_t *mpt_shares_json(const mpt_cuts *c);
void mpt_shares_text(const mpt_cuts *c, rbuf *tb);
/* Mean speedup of configuration cfg over the Table II layers whose names
 * start with prefix ("mid", "late"). */
double mpt_class_mean(const mpt_layerwise *lw, const char *prefix, int cfg);

/* ---- the reproduction's summary (mpt_repro_summary.c) ------------------- */

/* The summary figures.  Computed by our model: fig*, energy_late_*
 * (w_dp over w_mp+* on Late-1 and Late-2: total with no link energy, the
 * link cut alone, and the link energy per bit at which the total reaches
 * the paper's 3.0x, NAN if none does); a modelled estimate: dgx1_*.  The
 * per-watt figure is dgx1_big_batch at equal power, an assumption. */
typedef struct {
    double fig15_mpps, fig15_mpp_mid, fig15_mpp_late, fig16_mpps_5x5;
    double fig17_mpps_over_wdp, fig17_wdp_over_one, fig17_mpps_over_one;
    double fig7_dynamic_gain;
    double fig12_gather_cut_2d, fig12_gather_cut_1d; /* our measured net shares */
    double energy_late_no_links[2], energy_late_links_alone[2];
    double energy_late_link_j_per_bit_for_paper[2];
    double dgx1_batch256, dgx1_big_batch;
} mpt_repro_summary;
void mpt_repro_summarise(const dnp_mpt_repro *p, mpt_repro_summary *out);

/* An input the reproduction takes from the paper (what; why: the figures
 * using it) or an evaluation of the paper it does not reproduce (what,
 * why). */
typedef struct {
    const char *what, *why;
} mpt_repro_note;
int mpt_repro_input_count(void);
const mpt_repro_note *mpt_repro_input_at(int i); /* NULL out of range */
int mpt_repro_unreproduced_count(void);
const mpt_repro_note *mpt_repro_unreproduced_at(int i);

/* ---- the reports ------------------------------------------------------- */

json_t *mpt_run_json(const dnp_mpt_run *r);            /* mpt_run_json.c */
void mpt_run_text(const dnp_mpt_run *r, rbuf *tb);     /* mpt_run_text.c */
json_t *mpt_repro_json(const dnp_mpt_repro *p);        /* mpt_repro_json.c */
void mpt_repro_text(const dnp_mpt_repro *p, rbuf *tb); /* mpt_repro_text.c */

#endif
