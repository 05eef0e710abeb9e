/*
 * mpt_selfcheck.c - the MPT run against the single worker on a fixed small
 * layer, with the measured traffic beside the Sec. III-C formula; what
 * `dnnpar reproduce mpt` prints as "Intra-tile x data-parallel run".
 */
#include "arch/mpt/mpt_exec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A fixed pseudo-random stream (64-bit LCG), uniform in [0, 1). */
static double next01(unsigned long long *r)
{
    *r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*r >> 11) * 0x1p-53;
}

typedef struct {
    float *x, *W, *dz, *z, *dx, *dW, *y1, *dy1, *dx1, *dW1, *ax, *ady, *mag;
} bufs;

static void bufs_free(bufs *b)
{
    dnp_free(b->x), dnp_free(b->W), dnp_free(b->dz), dnp_free(b->z), dnp_free(b->dx), dnp_free(b->dW), dnp_free(b->y1);
    dnp_free(b->dy1), dnp_free(b->dx1), dnp_free(b->dW1), dnp_free(b->ax), dnp_free(b->ady), dnp_free(b->mag);
}

dnp_status mpt_selfcheck_run(int ng, int nc, int predict, mpt_selfcheck *out, dnp_error *err)
{
    mpt_transform tf, at;
    dnp_status st = mpt_transform_make(2, 3, &tf, err);
    if (st != DNP_OK)
        return st;
    mpt_transform_abs(&tf, &at);
    mpt_wshape s = {8, 16, 16, 8, 8, 1, 1, &tf, &tf}, sa = s;
    sa.th = sa.tw = &at;
    mpt_wgeom g;
    mpt_wgeom_get(&s, &g);
    size_t n = 8 * 16 * 64, nW = (size_t)g.elems * 16 * 16;
    bufs b;
    float **all[] = {&b.x, &b.dz, &b.z, &b.dx, &b.y1, &b.dy1, &b.dx1, &b.ax, &b.ady};
    float **allW[] = {&b.W, &b.dW, &b.dW1, &b.mag};
    int ok = 1;
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        ok &= (*all[k] = dnp_malloc(sizeof(float) * n)) != NULL;
    for (size_t k = 0; k < sizeof allW / sizeof allW[0]; k++)
        ok &= (*allW[k] = dnp_malloc(sizeof(float) * nW)) != NULL;
    if (!ok) {
        bufs_free(&b);
        dnp_error_set(err, DNP_ERR_NOMEM, "MPT self-check: out of memory");
        return DNP_ERR_NOMEM;
    }
    unsigned long long r = 12345;
    for (size_t k = 0; k < n; k++) { /* post-ReLU-like input: half zeros */
        double u = next01(&r);
        b.x[k] = u < 0.5 ? 0.0f : (float)(2 * u - 1);
        b.dz[k] = (float)(u - 0.5);
    }
    for (size_t k = 0; k < nW; k++) /* a negative mean makes inactive tiles */
        b.W[k] = (float)(next01(&r) - 0.6) * 0.5f;
    mpt_exec_opts o = mpt_exec_default(ng, nc);
    o.threads = 4;
    o.predict = o.zero_skip = predict;
    st = mpt_exec_step(&s, b.x, b.W, b.dz, &o, b.z, b.dx, b.dW, &out->stats, err);
    if (st == DNP_OK)
        st = mpt_wino_fprop(&s, b.x, b.W, b.y1, err);
    for (size_t k = 0; k < n && st == DNP_OK; k++) {
        b.y1[k] = b.y1[k] > 0.0f ? b.y1[k] : 0.0f;
        b.dy1[k] = b.y1[k] > 0.0f ? b.dz[k] : 0.0f;
        b.ax[k] = fabsf(b.x[k]);
        b.ady[k] = fabsf(b.dy1[k]);
    }
    if (st == DNP_OK)
        st = mpt_wino_bprop(&s, b.dy1, b.W, b.dx1, err);
    if (st == DNP_OK)
        st = mpt_wino_wgrad(&s, b.x, b.dy1, b.dW1, err);
    if (st == DNP_OK) /* magnitudes for the reassociation bound */
        st = mpt_wino_wgrad(&sa, b.ax, b.ady, b.mag, err);
    if (st == DNP_OK) {
        int same = memcmp(b.z, b.y1, sizeof(float) * n) == 0 &&
                   memcmp(b.dx, b.dx1, sizeof(float) * n) == 0;
        double gam = mpt_gamma32(g.n + 2);
        for (size_t k = 0; k < nW; k++)
            same &= fabs((double)b.dW[k] - b.dW1[k]) <= 2 * gam * b.mag[k];
        out->equal = same;
        /* III-C: |X| = |dY| = batch x tiles x channels x elements x 4 bytes */
        double tiles = (double)g.n * 16 * g.elems * 4;
        double one = tiles / ((double)ng * nc) * (ng - 1) / ng;
        out->formula_scatter = 2 * one;
        out->formula_gather =
            one * (out->stats.one_d ? (double)tf.m / tf.t : 1.0) + one;
    }
    bufs_free(&b);
    return st;
}
