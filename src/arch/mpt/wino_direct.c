/*
 * wino_direct.c - direct convolution in double (the paper's Sec. II-A
 * equations for fprop, bprop and updateGrad), the reference the Winograd
 * layer is tested against, and the rounding depths of its error bounds.
 */
#include "arch/mpt/wino.h"

#include <string.h>

mpt_dshape mpt_dshape_of(const mpt_wshape *s)
{
    mpt_dshape d = {s->batch, s->in_c, s->out_c, s->in_h, s->in_w,
                    s->th->r, s->tw->r, s->pad_h, s->pad_w};
    return d;
}

static int out_h(const mpt_dshape *s) { return s->in_h + 2 * s->pad_h - s->k_h + 1; }
static int out_w(const mpt_dshape *s) { return s->in_w + 2 * s->pad_w - s->k_w + 1; }

/* Index helpers. */
static size_t ix(const mpt_dshape *s, int b, int i, int y, int x)
{
    return (((size_t)b * (size_t)s->in_c + (size_t)i) * (size_t)s->in_h + (size_t)y) *
               (size_t)s->in_w +
           (size_t)x;
}
static size_t iy(const mpt_dshape *s, int b, int j, int y, int x)
{
    return (((size_t)b * (size_t)s->out_c + (size_t)j) * (size_t)out_h(s) + (size_t)y) *
               (size_t)out_w(s) +
           (size_t)x;
}
static size_t iw(const mpt_dshape *s, int j, int i, int p, int q)
{
    return (((size_t)j * (size_t)s->in_c + (size_t)i) * (size_t)s->k_h + (size_t)p) *
               (size_t)s->k_w +
           (size_t)q;
}

/* Calls body(b, i, j, oy, ox, p, q, iy, ix) for every term of the direct
 * convolution whose input position is inside the (unpadded) input. */
#define FOR_EACH_TERM(s, body)                                                              \
    do {                                                                                    \
        int oh_ = out_h(s), ow_ = out_w(s);                                                 \
        for (int b = 0; b < (s)->batch; b++)                                                \
            for (int j = 0; j < (s)->out_c; j++)                                            \
                for (int oy = 0; oy < oh_; oy++)                                            \
                    for (int ox = 0; ox < ow_; ox++)                                        \
                        for (int i = 0; i < (s)->in_c; i++)                                 \
                            for (int p = 0; p < (s)->k_h; p++) {                            \
                                int yy = oy + p - (s)->pad_h;                               \
                                if (yy < 0 || yy >= (s)->in_h)                              \
                                    continue;                                               \
                                for (int q = 0; q < (s)->k_w; q++) {                        \
                                    int xx = ox + q - (s)->pad_w;                           \
                                    if (xx < 0 || xx >= (s)->in_w)                          \
                                        continue;                                           \
                                    body;                                                   \
                                }                                                           \
                            }                                                               \
    } while (0)

void mpt_direct_fprop(const mpt_dshape *s, const double *x, const double *w, double *y)
{
    memset(y, 0, sizeof *y * (size_t)s->batch * (size_t)s->out_c * (size_t)out_h(s) *
                     (size_t)out_w(s));
    FOR_EACH_TERM(s, y[iy(s, b, j, oy, ox)] += x[ix(s, b, i, yy, xx)] * w[iw(s, j, i, p, q)]);
}

void mpt_direct_bprop(const mpt_dshape *s, const double *dy, const double *w, double *dx)
{
    memset(dx, 0, sizeof *dx * (size_t)s->batch * (size_t)s->in_c * (size_t)s->in_h *
                      (size_t)s->in_w);
    FOR_EACH_TERM(s, dx[ix(s, b, i, yy, xx)] += dy[iy(s, b, j, oy, ox)] * w[iw(s, j, i, p, q)]);
}

void mpt_direct_wgrad(const mpt_dshape *s, const double *x, const double *dy, double *dw)
{
    memset(dw, 0, sizeof *dw * (size_t)s->out_c * (size_t)s->in_c * (size_t)s->k_h *
                      (size_t)s->k_w);
    FOR_EACH_TERM(s, dw[iw(s, j, i, p, q)] += dy[iy(s, b, j, oy, ox)] * x[ix(s, b, i, yy, xx)]);
}

/* Depth of one transform pass over `terms` coefficients: one rounding per
 * product and per addition (gamma(terms)), plus one when the coefficients
 * themselves were rounded to float. */
static int pass(int terms, const mpt_transform *tf) { return terms + (tf->coeffs_exact ? 0 : 1); }

int mpt_rounding_depth(const mpt_wshape *s, mpt_phase phase, int spatial_weights)
{
    const mpt_transform *h = s->th, *w = s->tw;
    int wt = spatial_weights ? pass(h->r, h) + pass(w->r, w) : 0; /* W = G w G^T */
    mpt_wgeom g;
    mpt_wgeom_get(s, &g);
    switch (phase) {
    case MPT_PHASE_FPROP: /* B^T d B, product + channel sum, A^T Y A */
        return pass(h->t, h) + pass(w->t, w) + wt + s->in_c + pass(w->t, w) + pass(h->t, h);
    case MPT_PHASE_BPROP: {
        /* A dy A^T, product + channel sum, B dX B^T, overlap-add of tiles */
        int overlap = ((h->t + h->m - 1) / h->m) * ((w->t + w->m - 1) / w->m);
        return pass(h->m, h) + pass(w->m, w) + wt + s->out_c + pass(w->t, w) + pass(h->t, h) +
               overlap;
    }
    case MPT_PHASE_WGRAD: /* B^T d B times A dy A^T, product + tile sum, G^T dW G */
    default: {
        int in = pass(h->t, h) + pass(w->t, w), gr = pass(h->m, h) + pass(w->m, w);
        int back = spatial_weights ? pass(h->t, h) + pass(w->t, w) : 0;
        return in + gr + g.n + back;
    }
    }
}

double mpt_gamma32(int k)
{
    const double u = 1.0 / 16777216.0; /* 2^-24 */
    return k * u / (1.0 - k * u);
}
