/*
 * mpt_report_fmt.c - formatting shared by the MPT reports (`dnnpar mpt`,
 * `dnnpar reproduce mpt`): byte counts, times, grids, transforms and the
 * prediction shares' provenance (Sec. V-B).
 */
#include "arch/mpt/mpt_api.h"

#include <string.h>

/* "1.54 MB", "768 B" */
void mpt_fmt_bytes(double b, char *buf, size_t n)
{
    char s[16];
    dnp_fmt_si(b, s, sizeof s);
    size_t len = strlen(s);
    snprintf(buf, n, "%s%sB", s, len > 0 && s[len - 1] >= '0' && s[len - 1] <= '9' ? " " : "");
}

void mpt_fmt_us(double s, char *buf, size_t n) { snprintf(buf, n, "%.1f us", s * 1e6); }

void mpt_grid_text(int ng, int nc, char *buf, size_t n) { snprintf(buf, n, "%dx%d", ng, nc); }

void mpt_tf_text(const mpt_layer_time *t, const mpt_layer *l, char *buf, size_t n)
{
    if (t->th == 0) {
        snprintf(buf, n, "direct");
        return;
    }
    int mh = t->th - l->k_h + 1, mw = t->tw - l->k_w + 1;
    snprintf(buf, n, "F(%dx%d,%dx%d)", mh, mw, l->k_h, l->k_w);
}

/* Where the prediction shares come from, for text and JSON. */
const char *mpt_shares_source(const mpt_cuts *c)
{
    return c->from_paper ? "paper: input from the paper's measured result (Sec. V-B; the "
                           "backward gather extrapolated from its forward shares)"
                         : "ours: measured on a CNN trained on digits (docs/mpt.md, "
                           "'Activation prediction')";
}

json_t *mpt_shares_json(const mpt_cuts *c)
{
    return json_pack("{s:s,s:f,s:f,s:f,s:f,s:f,s:f}", "source", mpt_shares_source(c),
                     "gather_cut_2d", c->gather_2d, "gather_cut_1d", c->gather_1d,
                     "backward_gather_cut_2d", c->gather_bwd_2d, "backward_gather_cut_1d",
                     c->gather_bwd_1d, "scatter_cut_2d", c->scatter_2d, "scatter_cut_1d",
                     c->scatter_1d);
}

void mpt_shares_text(const mpt_cuts *c, rbuf *tb)
{
    rbuf_printf(tb, "prediction shares (w_mp+, w_mp+*) -%s%s:\n  gather 2D %.1f%%, 1D %.1f%%; "
           "backward gather 2D %.1f%%, 1D %.1f%%; scatter 2D %.1f%%, 1D %.1f%%\n\n",
           c->from_paper ? "\n  " : " ", mpt_shares_source(c), 100 * c->gather_2d,
           100 * c->gather_1d, 100 * c->gather_bwd_2d, 100 * c->gather_bwd_1d, 100 * c->scatter_2d,
           100 * c->scatter_1d);
}

/* Mean of w_mp+ over the Mid (or Late) layers of Table II. */
double mpt_class_mean(const mpt_layerwise *lw, const char *prefix, int cfg)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, lw->kernel, &l, NULL);
        if (strncmp(l.name, prefix, strlen(prefix)) == 0) {
            s += lw->speedup[i][cfg];
            n++;
        }
    }
    return n ? s / n : 0;
}
