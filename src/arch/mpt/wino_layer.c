/*
 * wino_layer.c - the Winograd layer on one worker: fprop, bprop and weight
 * update with weights in the Winograd domain (Fig. 2b) or spatial weights
 * transformed on the fly (Fig. 2a).  Work is organised as the paper's
 * Fig. 3b: transform every tile of every (sample, channel), then one
 * matrix product per tile element, then the inverse transform.
 */
#include "arch/mpt/wino.h"

#include <stdlib.h>
#include <string.h>

void mpt_gemm_fwd(const float *X, const float *W, float *Y, int rows, int in_c, int out_c)
{
    for (int n = 0; n < rows; n++) {
        float *yr = Y + (size_t)n * (size_t)out_c;
        const float *xr = X + (size_t)n * (size_t)in_c;
        for (int j = 0; j < out_c; j++)
            yr[j] = 0.0f;
        /* Each yr[j] sums i = 0, 1, ... in order. */
        for (int i = 0; i < in_c; i++) {
            float xv = xr[i];
            const float *wr = W + (size_t)i * (size_t)out_c;
            for (int j = 0; j < out_c; j++)
                yr[j] += xv * wr[j];
        }
    }
}

void mpt_gemm_bwd(const float *dY, const float *W, float *dX, int rows, int in_c, int out_c)
{
    for (int n = 0; n < rows; n++) {
        const float *dr = dY + (size_t)n * (size_t)out_c;
        float *xr = dX + (size_t)n * (size_t)in_c;
        for (int i = 0; i < in_c; i++) {
            const float *wr = W + (size_t)i * (size_t)out_c;
            float acc = 0.0f;
            for (int j = 0; j < out_c; j++)
                acc += dr[j] * wr[j];
            xr[i] = acc;
        }
    }
}

void mpt_gemm_wgrad(const float *X, const float *dY, float *dW, int rows, int in_c, int out_c)
{
    memset(dW, 0, sizeof *dW * (size_t)in_c * (size_t)out_c);
    for (int n = 0; n < rows; n++) {
        const float *xr = X + (size_t)n * (size_t)in_c;
        const float *dr = dY + (size_t)n * (size_t)out_c;
        for (int i = 0; i < in_c; i++) {
            float xv = xr[i];
            float *wr = dW + (size_t)i * (size_t)out_c;
            for (int j = 0; j < out_c; j++)
                wr[j] += xv * dr[j];
        }
    }
}

void mpt_weights_to_wino(const mpt_wshape *s, const float *w, float *W)
{
    int th = s->th->t, tw = s->tw->t, rh = s->th->r, rw = s->tw->r;
    int I = s->in_c, J = s->out_c;
    for (int j = 0; j < J; j++)
        for (int i = 0; i < I; i++) {
            const float *k = w + ((size_t)j * (size_t)I + (size_t)i) * (size_t)(rh * rw);
            float tmp[MPT_MAX_TILE * MPT_MAX_TILE];
            for (int u = 0; u < th; u++) /* tmp = G_h k (t_h x r_w) */
                for (int q = 0; q < rw; q++) {
                    float acc = 0.0f;
                    for (int p = 0; p < rh; p++)
                        acc += s->th->g_f[u * rh + p] * k[p * rw + q];
                    tmp[u * rw + q] = acc;
                }
            for (int u = 0; u < th; u++) /* W = tmp G_w^T */
                for (int v = 0; v < tw; v++) {
                    float acc = 0.0f;
                    for (int q = 0; q < rw; q++)
                        acc += tmp[u * rw + q] * s->tw->g_f[v * rw + q];
                    W[((size_t)(u * tw + v) * (size_t)I + (size_t)i) * (size_t)J + (size_t)j] =
                        acc;
                }
        }
}

void mpt_wgrad_to_spatial(const mpt_wshape *s, const float *dW, float *dw)
{
    int th = s->th->t, tw = s->tw->t, rh = s->th->r, rw = s->tw->r;
    int I = s->in_c, J = s->out_c;
    for (int j = 0; j < J; j++)
        for (int i = 0; i < I; i++) {
            float tmp[MPT_MAX_TILE * MPT_MAX_TILE];
            for (int u = 0; u < th; u++) /* tmp = dW G_w (t_h x r_w) */
                for (int q = 0; q < rw; q++) {
                    float acc = 0.0f;
                    for (int v = 0; v < tw; v++)
                        acc += dW[((size_t)(u * tw + v) * (size_t)I + (size_t)i) * (size_t)J +
                                  (size_t)j] *
                               s->tw->g_f[v * rw + q];
                    tmp[u * rw + q] = acc;
                }
            float *k = dw + ((size_t)j * (size_t)I + (size_t)i) * (size_t)(rh * rw);
            for (int p = 0; p < rh; p++) /* dw = G_h^T tmp */
                for (int q = 0; q < rw; q++) {
                    float acc = 0.0f;
                    for (int u = 0; u < th; u++)
                        acc += s->th->g_f[u * rh + p] * tmp[u * rw + q];
                    k[p * rw + q] = acc;
                }
        }
}

void mpt_sgd(float *p, const float *grad, size_t n, float lr)
{
    for (size_t k = 0; k < n; k++)
        p[k] -= lr * grad[k];
}

/* Allocate `count` floats of scratch, or record DNP_ERR_NOMEM. */
static float *scratch(size_t count, const char *what, dnp_error *err)
{
    float *p = dnp_malloc(sizeof *p * (count ? count : 1));
    if (p == NULL)
        dnp_error_set(err, DNP_ERR_NOMEM, "Winograd layer: out of memory for %s", what);
    return p;
}

/* X [E][N][I] = input transform of every tile. */
static void all_tiles_in(const mpt_wshape *s, const mpt_wgeom *g, const float *x, float *X)
{
    size_t stride = (size_t)g->n * (size_t)s->in_c;
    for (int n = 0; n < g->n; n++)
        for (int i = 0; i < s->in_c; i++)
            mpt_tile_in(s, x, n, i, X + (size_t)n * (size_t)s->in_c + (size_t)i, stride);
}

/* dY [E][N][J] = adjoint inverse transform of every output-gradient tile. */
static void all_tiles_dy(const mpt_wshape *s, const mpt_wgeom *g, const float *dy, float *dY)
{
    size_t stride = (size_t)g->n * (size_t)s->out_c;
    for (int n = 0; n < g->n; n++)
        for (int j = 0; j < s->out_c; j++)
            mpt_tile_dy(s, dy, n, j, dY + (size_t)n * (size_t)s->out_c + (size_t)j, stride);
}

dnp_status mpt_wino_fprop(const mpt_wshape *s, const float *x, const float *W, float *y,
                          dnp_error *err)
{
    dnp_status st = mpt_wshape_check(s, err);
    if (st != DNP_OK)
        return st;
    mpt_wgeom g;
    mpt_wgeom_get(s, &g);
    size_t E = (size_t)g.elems, N = (size_t)g.n, I = (size_t)s->in_c, J = (size_t)s->out_c;
    float *X = scratch(E * N * I, "input tiles", err);
    float *Y = X ? scratch(E * N * J, "output tiles", err) : NULL;
    if (Y == NULL) {
        dnp_free(X);
        return DNP_ERR_NOMEM;
    }
    all_tiles_in(s, &g, x, X);
    for (size_t e = 0; e < E; e++)
        mpt_gemm_fwd(X + e * N * I, W + e * I * J, Y + e * N * J, g.n, s->in_c, s->out_c);
    float tmp[MPT_MAX_TILE * MPT_MAX_TILE];
    for (int n = 0; n < g.n; n++)
        for (int j = 0; j < s->out_c; j++) {
            mpt_tile_out_rows(s, Y + (size_t)n * J + (size_t)j, N * J, 0, s->th->t, tmp);
            for (int k = 0; k < s->tw->m; k++)
                mpt_tile_out_col(s, tmp, n, j, k, y);
        }
    dnp_free(X);
    dnp_free(Y);
    return DNP_OK;
}

dnp_status mpt_wino_bprop(const mpt_wshape *s, const float *dy, const float *W, float *dx,
                          dnp_error *err)
{
    dnp_status st = mpt_wshape_check(s, err);
    if (st != DNP_OK)
        return st;
    mpt_wgeom g;
    mpt_wgeom_get(s, &g);
    size_t E = (size_t)g.elems, N = (size_t)g.n, I = (size_t)s->in_c, J = (size_t)s->out_c;
    float *dY = scratch(E * N * J, "output-gradient tiles", err);
    float *dX = dY ? scratch(E * N * I, "input-gradient tiles", err) : NULL;
    if (dX == NULL) {
        dnp_free(dY);
        return DNP_ERR_NOMEM;
    }
    all_tiles_dy(s, &g, dy, dY);
    for (size_t e = 0; e < E; e++)
        mpt_gemm_bwd(dY + e * N * J, W + e * I * J, dX + e * N * I, g.n, s->in_c, s->out_c);
    memset(dx, 0, sizeof *dx * (size_t)s->batch * I * (size_t)s->in_h * (size_t)s->in_w);
    float dxt[MPT_MAX_TILE * MPT_MAX_TILE];
    for (int n = 0; n < g.n; n++)
        for (int i = 0; i < s->in_c; i++) {
            mpt_tile_dx(s, dX + (size_t)n * I + (size_t)i, N * I, dxt);
            mpt_tile_dx_add(s, dxt, n, i, dx);
        }
    dnp_free(dY);
    dnp_free(dX);
    return DNP_OK;
}

dnp_status mpt_wino_wgrad(const mpt_wshape *s, const float *x, const float *dy, float *dW,
                          dnp_error *err)
{
    dnp_status st = mpt_wshape_check(s, err);
    if (st != DNP_OK)
        return st;
    mpt_wgeom g;
    mpt_wgeom_get(s, &g);
    size_t E = (size_t)g.elems, N = (size_t)g.n, I = (size_t)s->in_c, J = (size_t)s->out_c;
    float *X = scratch(E * N * I, "input tiles", err);
    float *dY = X ? scratch(E * N * J, "output-gradient tiles", err) : NULL;
    if (dY == NULL) {
        dnp_free(X);
        return DNP_ERR_NOMEM;
    }
    all_tiles_in(s, &g, x, X);
    all_tiles_dy(s, &g, dy, dY);
    for (size_t e = 0; e < E; e++)
        mpt_gemm_wgrad(X + e * N * I, dY + e * N * J, dW + e * I * J, g.n, s->in_c, s->out_c);
    dnp_free(X);
    dnp_free(dY);
    return DNP_OK;
}
