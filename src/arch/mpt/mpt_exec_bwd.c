/*
 * mpt_exec_bwd.c - the backward phases of an MPT step: the home masks the
 * output gradient by the ReLU, transforms it (dY = A dy A^T) and scatters
 * its elements; the groups compute dX (bprop) and their partial dW
 * (updateGrad, Fig. 2b) for the cluster's tiles; dX is gathered at the home,
 * transformed back (B dX B^T) and overlap-added into dx.
 */
#include "arch/mpt/mpt_exec_int.h"

static void reset_out(mpt_run *r, const mpt_worker *w)
{
    for (int d = 0; d < r->o->ng; d++)
        mpt_msg_reset(mpt_run_msg(r, w->c, w->g, d));
}

static double sent_bytes(mpt_run *r, const mpt_worker *w)
{
    double b = 0;
    for (int d = 0; d < r->o->ng; d++)
        if (d != w->g)
            b += mpt_msg_bytes(mpt_run_msg(r, w->c, w->g, d));
    return b;
}

/* dy = dz masked by the ReLU (z > 0) on the outputs of tile n, channel j. */
static void mask_tile(mpt_run *r, int n, int j)
{
    int b = n / r->g.tiles, ty = (n % r->g.tiles) / r->g.tiles_w, tx = n % r->g.tiles_w;
    int mh = r->s->th->m, mw = r->s->tw->m;
    size_t base = ((size_t)b * (size_t)r->s->out_c + (size_t)j) * (size_t)r->g.out_h *
                  (size_t)r->g.out_w;
    for (int a = 0; a < mh && ty * mh + a < r->g.out_h; a++)
        for (int k = 0; k < mw && tx * mw + k < r->g.out_w; k++) {
            size_t p = base + (size_t)(ty * mh + a) * (size_t)r->g.out_w + (size_t)(tx * mw + k);
            r->dy[p] = (!r->o->relu || r->z[p] > 0.0f) ? r->dz[p] : 0.0f;
        }
}

void mpt_bwd_scatter(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    float dY[MPT_MAX_TILE * MPT_MAX_TILE];
    reset_out(r, w);
    for (int n = w->h0; n < w->h1; n++)
        for (int j = 0; j < r->s->out_c; j++) {
            mask_tile(r, n, j);
            mpt_tile_dy(r->s, r->dy, n, j, dY, 1);
            for (int d = 0; d < r->o->ng; d++) {
                const mpt_worker *g = mpt_run_worker(r, d, w->c);
                mpt_msg *m = mpt_run_msg(r, w->c, w->g, d);
                for (int e = g->e0; e < g->e1; e++) {
                    int skipped = mpt_msg_put(m, dY[e], r->o->zero_skip);
                    if (d != w->g) {
                        w->scatter_values++;
                        w->skipped_values += skipped;
                    }
                }
            }
        }
    w->sent_scatter += sent_bytes(r, w);
}

void mpt_bwd_products(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    size_t I = (size_t)r->s->in_c, J = (size_t)r->s->out_c, rows = (size_t)(w->n1 - w->n0);
    mpt_run_gather(r, wi, w->dY, J);
    for (int e = w->e0; e < w->e1; e++) {
        size_t k = (size_t)(e - w->e0);
        const float *We = r->W + (size_t)e * I * J;
        mpt_gemm_bwd(w->dY + k * rows * J, We, w->dX + k * rows * I, (int)rows, (int)I, (int)J);
        mpt_gemm_wgrad(w->X + k * rows * I, w->dY + k * rows * J, w->dW + k * I * J, (int)rows,
                       (int)I, (int)J);
    }
}

void mpt_bwd_send(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    size_t I = (size_t)r->s->in_c, rows = (size_t)(w->n1 - w->n0);
    reset_out(r, w);
    for (int d = 0; d < r->o->ng; d++) {
        const mpt_worker *h = mpt_run_worker(r, d, w->c);
        mpt_msg *m = mpt_run_msg(r, w->c, w->g, d);
        for (int n = h->h0; n < h->h1; n++)
            for (size_t i = 0; i < I; i++)
                for (int e = w->e0; e < w->e1; e++)
                    mpt_msg_put(
                        m, w->dX[((size_t)(e - w->e0) * rows + (size_t)(n - w->n0)) * I + i], 0);
    }
    w->sent_gather += sent_bytes(r, w);
}

void mpt_bwd_receive(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    size_t E = (size_t)r->g.elems, I = (size_t)r->s->in_c;
    float dX[MPT_MAX_TILE * MPT_MAX_TILE];
    for (int n = w->h0; n < w->h1; n++)
        for (size_t i = 0; i < I; i++) {
            for (int src = 0; src < r->o->ng; src++) {
                const mpt_worker *g = mpt_run_worker(r, src, w->c);
                mpt_msg *m = mpt_run_msg(r, w->c, src, w->g);
                for (int e = g->e0; e < g->e1; e++)
                    dX[e] = mpt_msg_get(m, 0);
            }
            mpt_tile_dx(r->s, dX, 1, r->dxt + ((size_t)n * I + i) * E);
        }
}

/* Sample b of cluster c is overlap-added by group (b - first sample) mod
 * Ng, tiles in ascending order as on a single worker. */
void mpt_bwd_overlap_add(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    size_t E = (size_t)r->g.elems, I = (size_t)r->s->in_c;
    int b0 = w->n0 / r->g.tiles, b1 = w->n1 / r->g.tiles;
    for (int b = b0 + w->g; b < b1; b += r->o->ng)
        for (int n = b * r->g.tiles; n < (b + 1) * r->g.tiles; n++)
            for (size_t i = 0; i < I; i++)
                mpt_tile_dx_add(r->s, r->dxt + ((size_t)n * I + i) * E, n, (int)i, r->dx);
}
