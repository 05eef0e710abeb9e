/* test_mpt_wino.c - MPT Winograd transforms and the Winograd layer against
 * direct convolution, within the stated rounding bounds (src/arch/mpt/wino.h). */
#include "test.h"

#include "arch/mpt/wino.h"

#include <stdlib.h>

/* ---- transforms --------------------------------------------------------- */

static int make_tf(int m, int r, mpt_transform *tf)
{
    dnp_error err = {0};
    dnp_status st = mpt_transform_make(m, r, tf, &err);
    if (st != DNP_OK)
        printf("  F(%d,%d): %s\n", m, r, err.msg);
    CHECK_EQ_INT(st, DNP_OK);
    return st == DNP_OK;
}

/* Lavin and Gray's published F(4,3) matrices (points 0, +-1, +-2, inf). */
TEST(mpt_transform_f43_matches_lavin)
{
    static const double bt[36] = {4, 0, -5, 0,  1, 0, 0, -4, -4, 1,  1, 0,
                                  0, 4, -4, -1, 1, 0, 0, -2, -1, 2,  1, 0,
                                  0, 2, -1, -2, 1, 0, 0, 4,  0,  -5, 0, 1};
    static const double g[18] = {1.0 / 4,  0,         0,        -1.0 / 6, -1.0 / 6, -1.0 / 6,
                                 -1.0 / 6, 1.0 / 6,   -1.0 / 6, 1.0 / 24, 1.0 / 12, 1.0 / 6,
                                 1.0 / 24, -1.0 / 12, 1.0 / 6,  0,        0,        1};
    static const double at[24] = {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0,
                                  0, 1, 1, 4, 4, 0, 0, 1, -1, 8, -8, 1};
    mpt_transform tf;
    if (!make_tf(4, 3, &tf))
        return;
    CHECK_EQ_INT(tf.t, 6);
    CHECK_STR(tf.points, "0, 1, -1, 2, -2, inf");
    for (int k = 0; k < 36; k++)
        CHECK_NEAR(tf.bt[k], bt[k], 0, 1e-15);
    for (int k = 0; k < 18; k++)
        CHECK_NEAR(tf.g[k], g[k], 0, 1e-15);
    for (int k = 0; k < 24; k++)
        CHECK_NEAR(tf.at[k], at[k], 0, 1e-15);
    CHECK_EQ_INT(tf.coeffs_exact, 0); /* 1/6 is not a float */
}

/* Every supported 1-D transform reproduces direct correlation, and B^T is
 * integer (the primitive-row scaling). */
TEST(mpt_transform_1d_agrees_with_correlation)
{
    static const int mr[][2] = {{2, 3}, {4, 3}, {2, 5}, {1, 1}, {3, 2}, {6, 3}};
    unsigned long long seed = 11;
    for (size_t c = 0; c < sizeof mr / sizeof mr[0]; c++) {
        mpt_transform tf;
        if (!make_tf(mr[c][0], mr[c][1], &tf))
            continue;
        for (int k = 0; k < tf.t * tf.t; k++)
            CHECK(tf.bt[k] == (double)(long long)tf.bt[k]);
        for (int trial = 0; trial < 50; trial++) {
            double d[MPT_MAX_TILE], g[MPT_MAX_TILE], y[MPT_MAX_TILE];
            for (int k = 0; k < tf.t; k++)
                d[k] = test_uniform(&seed, -2, 2);
            for (int k = 0; k < tf.r; k++)
                g[k] = test_uniform(&seed, -2, 2);
            mpt_transform_apply_1d(&tf, d, g, y);
            for (int i = 0; i < tf.m; i++) {
                double ref = 0;
                for (int k = 0; k < tf.r; k++)
                    ref += d[i + k] * g[k];
                CHECK_NEAR(y[i], ref, 1e-12, 1e-12);
            }
        }
    }
}

TEST(mpt_transform_lookup_rejects_unsupported)
{
    mpt_transform tf;
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_transform_lookup(4, 3, &tf, &err), DNP_OK);
    CHECK_EQ_INT(tf.m, 2);
    CHECK_EQ_INT(mpt_transform_lookup(6, 5, &tf, &err), DNP_OK);
    CHECK_EQ_INT(tf.m, 2);
    CHECK_EQ_INT(mpt_transform_lookup(5, 3, &tf, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "no Winograd transform with tile 5 for 3-tap kernels (supported: 4 = "
                       "F(2,3), 6 = F(4,3))");
    dnp_error_clear(&err);
    CHECK_EQ_INT(mpt_transform_lookup(8, 7, &tf, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "no Winograd transform serves 7-tap kernels (supported: 3 with tile 4 "
                       "or 6, 5 with tile 6)");
    dnp_error_clear(&err);
    CHECK_EQ_INT(mpt_transform_make(5, 5, &tf, &err), DNP_ERR_INPUT); /* tile 9 > 8 */
    CHECK_EQ_INT(mpt_default_tile(3, 1), 6);
    CHECK_EQ_INT(mpt_default_tile(3, 0), 4);
    CHECK_EQ_INT(mpt_default_tile(5, 0), 6);
    CHECK_EQ_INT(mpt_default_tile(7, 0), 0);
}

/* ---- the layer against direct convolution ------------------------------ */

typedef struct {
    int mh, rh, mw, rw; /* row and column transforms F(mh, rh), F(mw, rw) */
    int batch, in_c, out_c, in_h, in_w, pad_h, pad_w;
} layer_case;

/* Odd sizes, sizes not divisible by m, no padding, more padding than needed. */
static const layer_case cases[] = {
    {2, 3, 2, 3, 2, 3, 4, 7, 9, 1, 1},  /* F(2x2,3x3) */
    {2, 3, 2, 3, 1, 2, 3, 8, 5, 0, 0},  /* F(2x2,3x3), no padding */
    {4, 3, 4, 3, 2, 3, 2, 11, 6, 1, 1}, /* F(4x4,3x3) */
    {4, 3, 4, 3, 1, 2, 2, 5, 5, 2, 2},  /* F(4x4,3x3), padding 2 */
    {2, 5, 2, 5, 1, 2, 3, 9, 7, 2, 2},  /* F(2x2,5x5) */
    {2, 5, 2, 5, 2, 1, 2, 6, 6, 0, 1},  /* F(2x2,5x5), asymmetric padding */
    {2, 3, 1, 1, 2, 2, 3, 7, 5, 1, 0},  /* F(2,3) on rows: 3x1 kernel */
    {1, 1, 2, 3, 1, 3, 2, 4, 9, 0, 1},  /* F(2,3) on columns: 1x3 kernel */
};

typedef struct {
    mpt_transform th, tw, ah, aw;  /* transforms and their absolute values */
    mpt_wshape s, sa;              /* shape, and the shape of the magnitude runs */
    mpt_wgeom g;
    size_t nx, ny, nw, nW;         /* sizes of x, y, w, W */
} layer_fix;

static int fix_make(const layer_case *c, layer_fix *f)
{
    if (!make_tf(c->mh, c->rh, &f->th) || !make_tf(c->mw, c->rw, &f->tw))
        return 0;
    mpt_transform_abs(&f->th, &f->ah);
    mpt_transform_abs(&f->tw, &f->aw);
    f->s = (mpt_wshape){c->batch, c->in_c, c->out_c, c->in_h, c->in_w, c->pad_h, c->pad_w,
                        &f->th, &f->tw};
    f->sa = f->s;
    f->sa.th = &f->ah;
    f->sa.tw = &f->aw;
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_wshape_check(&f->s, &err), DNP_OK);
    mpt_wgeom_get(&f->s, &f->g);
    f->nx = (size_t)c->batch * c->in_c * c->in_h * c->in_w;
    f->ny = (size_t)c->batch * c->out_c * f->g.out_h * f->g.out_w;
    f->nw = (size_t)c->out_c * c->in_c * c->rh * c->rw;
    f->nW = (size_t)f->g.elems * c->in_c * c->out_c;
    return 1;
}

static float *rnd(size_t n, unsigned long long *seed)
{
    float *p = dnp_malloc(sizeof *p * n);
    for (size_t k = 0; k < n; k++)
        p[k] = (float)test_uniform(seed, -1, 1);
    return p;
}

static float *absf(const float *p, size_t n)
{
    float *q = dnp_malloc(sizeof *q * n);
    for (size_t k = 0; k < n; k++)
        q[k] = fabsf(p[k]);
    return q;
}

static double *dbl(const float *p, size_t n)
{
    double *q = dnp_malloc(sizeof *q * n);
    for (size_t k = 0; k < n; k++)
        q[k] = p[k];
    return q;
}

/* Every |got - ref| <= gamma(k) M / (1 - gamma(k)) plus 2^-40 M for the
 * double reference's own rounding; returns the largest |got - ref| / (u M). */
static double check_bound(const char *what, const float *got, const double *ref,
                          const float *mag, size_t n, int k)
{
    double gam = mpt_gamma32(k), worst = 0;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - ref[i]), M = mag[i];
        double bound = gam * M / (1.0 - gam) + M * 0x1p-40;
        if (!(e <= bound)) {
            if (bad++ < 3)
                printf("  %s[%zu]: error %.3g > bound %.3g (k = %d)\n", what, i, e, bound, k);
        }
        if (M > 0 && e / (M * 0x1p-24) > worst)
            worst = e / (M * 0x1p-24);
    }
    CHECK_EQ_INT(bad, 0);
    return worst;
}

/* fprop, bprop and the spatial weight gradient of every case agree with
 * direct convolution within the bound; the observed error is also well
 * below it (the bound is not vacuous: it is at most k units of M). */
TEST(mpt_layer_spatial_weights_match_direct)
{
    unsigned long long seed = 5;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        layer_fix f;
        if (!fix_make(&cases[c], &f))
            continue;
        float *x = rnd(f.nx, &seed), *w = rnd(f.nw, &seed), *dy = rnd(f.ny, &seed);
        float *ax = absf(x, f.nx), *aw = absf(w, f.nw), *ady = absf(dy, f.ny);
        float *W = dnp_malloc(sizeof *W * f.nW), *aW = dnp_malloc(sizeof *aW * f.nW);
        float *y = dnp_malloc(sizeof *y * f.ny), *my = dnp_malloc(sizeof *my * f.ny);
        float *dx = dnp_malloc(sizeof *dx * f.nx), *mdx = dnp_malloc(sizeof *mdx * f.nx);
        float *dW = dnp_malloc(sizeof *dW * f.nW), *mdW = dnp_malloc(sizeof *mdW * f.nW);
        float *dw = dnp_malloc(sizeof *dw * f.nw), *mdw = dnp_malloc(sizeof *mdw * f.nw);
        double *xd = dbl(x, f.nx), *wd = dbl(w, f.nw), *dyd = dbl(dy, f.ny);
        double *ry = dnp_malloc(sizeof *ry * f.ny), *rdx = dnp_malloc(sizeof *rdx * f.nx);
        double *rdw = dnp_malloc(sizeof *rdw * f.nw);
        dnp_error err = {0};
        mpt_weights_to_wino(&f.s, w, W);
        mpt_weights_to_wino(&f.sa, aw, aW);
        CHECK_EQ_INT(mpt_wino_fprop(&f.s, x, W, y, &err), DNP_OK);
        CHECK_EQ_INT(mpt_wino_fprop(&f.sa, ax, aW, my, &err), DNP_OK);
        CHECK_EQ_INT(mpt_wino_bprop(&f.s, dy, W, dx, &err), DNP_OK);
        CHECK_EQ_INT(mpt_wino_bprop(&f.sa, ady, aW, mdx, &err), DNP_OK);
        CHECK_EQ_INT(mpt_wino_wgrad(&f.s, x, dy, dW, &err), DNP_OK);
        CHECK_EQ_INT(mpt_wino_wgrad(&f.sa, ax, ady, mdW, &err), DNP_OK);
        mpt_wgrad_to_spatial(&f.s, dW, dw);
        mpt_wgrad_to_spatial(&f.sa, mdW, mdw);
        mpt_dshape ds = mpt_dshape_of(&f.s);
        mpt_direct_fprop(&ds, xd, wd, ry);
        mpt_direct_bprop(&ds, dyd, wd, rdx);
        mpt_direct_wgrad(&ds, xd, dyd, rdw);
        int kf = mpt_rounding_depth(&f.s, MPT_PHASE_FPROP, 1);
        int kb = mpt_rounding_depth(&f.s, MPT_PHASE_BPROP, 1);
        int kw = mpt_rounding_depth(&f.s, MPT_PHASE_WGRAD, 1);
        double wf = check_bound("y", y, ry, my, f.ny, kf);
        double wb = check_bound("dx", dx, rdx, mdx, f.nx, kb);
        double ww = check_bound("dw", dw, rdw, mdw, f.nw, kw);
        /* Observed errors are a small fraction of the worst case. */
        CHECK(wf < kf && wb < kb && ww < kw);
        /* A result off by 1e-3 relative would be caught: the bound is tight. */
        CHECK(mpt_gamma32(kf) < 1e-4 && mpt_gamma32(kw) < 1e-4);
        dnp_free(x), dnp_free(w), dnp_free(dy), dnp_free(ax), dnp_free(aw), dnp_free(ady), dnp_free(W), dnp_free(aW);
        dnp_free(y), dnp_free(my), dnp_free(dx), dnp_free(mdx), dnp_free(dW), dnp_free(mdW), dnp_free(dw), dnp_free(mdw);
        dnp_free(xd), dnp_free(wd), dnp_free(dyd), dnp_free(ry), dnp_free(rdx), dnp_free(rdw);
    }
}

/* Winograd-domain weights (Fig. 2b) have no spatial equivalent, so check
 * the calculus instead: for a layer linear in x and W,
 * <dy, fprop(x)> = <bprop(dy), x> = <wgrad(x, dy), W>, within the bounds of
 * the three float results. */
TEST(mpt_layer_wino_weights_adjoint_identities)
{
    unsigned long long seed = 99;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        layer_fix f;
        if (!fix_make(&cases[c], &f))
            continue;
        float *x = rnd(f.nx, &seed), *W = rnd(f.nW, &seed), *dy = rnd(f.ny, &seed);
        float *ax = absf(x, f.nx), *aW = absf(W, f.nW), *ady = absf(dy, f.ny);
        float *y = dnp_malloc(sizeof *y * f.ny), *my = dnp_malloc(sizeof *my * f.ny);
        float *dx = dnp_malloc(sizeof *dx * f.nx), *mdx = dnp_malloc(sizeof *mdx * f.nx);
        float *dW = dnp_malloc(sizeof *dW * f.nW), *mdW = dnp_malloc(sizeof *mdW * f.nW);
        dnp_error err = {0};
        CHECK_EQ_INT(mpt_wino_fprop(&f.s, x, W, y, &err), DNP_OK);
        CHECK_EQ_INT(mpt_wino_fprop(&f.sa, ax, aW, my, &err), DNP_OK);
        CHECK_EQ_INT(mpt_wino_bprop(&f.s, dy, W, dx, &err), DNP_OK);
        CHECK_EQ_INT(mpt_wino_bprop(&f.sa, ady, aW, mdx, &err), DNP_OK);
        CHECK_EQ_INT(mpt_wino_wgrad(&f.s, x, dy, dW, &err), DNP_OK);
        CHECK_EQ_INT(mpt_wino_wgrad(&f.sa, ax, ady, mdW, &err), DNP_OK);
        double s1 = 0, s2 = 0, s3 = 0, e1 = 0, e2 = 0, e3 = 0;
        double g1 = mpt_gamma32(mpt_rounding_depth(&f.s, MPT_PHASE_FPROP, 0) + 2);
        double g2 = mpt_gamma32(mpt_rounding_depth(&f.s, MPT_PHASE_BPROP, 0) + 2);
        double g3 = mpt_gamma32(mpt_rounding_depth(&f.s, MPT_PHASE_WGRAD, 0) + 2);
        for (size_t k = 0; k < f.ny; k++) {
            s1 += (double)dy[k] * y[k];
            e1 += fabs((double)dy[k]) * my[k] * g1;
        }
        for (size_t k = 0; k < f.nx; k++) {
            s2 += (double)dx[k] * x[k];
            e2 += fabs((double)x[k]) * mdx[k] * g2;
        }
        for (size_t k = 0; k < f.nW; k++) {
            s3 += (double)dW[k] * W[k];
            e3 += fabs((double)W[k]) * mdW[k] * g3;
        }
        CHECK(fabs(s1 - s2) <= e1 + e2);
        CHECK(fabs(s1 - s3) <= e1 + e3);
        CHECK(fabs(s1) > 10 * (e1 + e2 + e3)); /* the identity is not trivially met */
        dnp_free(x), dnp_free(W), dnp_free(dy), dnp_free(ax), dnp_free(aW), dnp_free(ady);
        dnp_free(y), dnp_free(my), dnp_free(dx), dnp_free(mdx), dnp_free(dW), dnp_free(mdW);
    }
}

/* One SGD step in either domain lowers the loss 0.5 |y - target|^2; with
 * spatial weights the Winograd gradient equals the direct one, so the
 * updated weights match a direct-convolution step to rounding. */
TEST(mpt_layer_sgd_step_lowers_loss)
{
    const layer_case c = {2, 3, 2, 3, 2, 3, 3, 6, 7, 1, 1};
    layer_fix f;
    if (!fix_make(&c, &f))
        return;
    unsigned long long seed = 3;
    float *x = rnd(f.nx, &seed), *w = rnd(f.nw, &seed), *target = rnd(f.ny, &seed);
    float *W = dnp_malloc(sizeof *W * f.nW), *y = dnp_malloc(sizeof *y * f.ny);
    float *dy = dnp_malloc(sizeof *dy * f.ny), *dW = dnp_malloc(sizeof *dW * f.nW);
    float *dw = dnp_malloc(sizeof *dw * f.nw);
    dnp_error err = {0};
    double loss[3] = {0, 0, 0};
    mpt_weights_to_wino(&f.s, w, W);
    mpt_wino_fprop(&f.s, x, W, y, &err);
    for (size_t k = 0; k < f.ny; k++) {
        dy[k] = y[k] - target[k];
        loss[0] += 0.5 * dy[k] * dy[k];
    }
    mpt_wino_wgrad(&f.s, x, dy, dW, &err);
    mpt_wgrad_to_spatial(&f.s, dW, dw);
    float *W2 = dnp_malloc(sizeof *W2 * f.nW), *w2 = dnp_malloc(sizeof *w2 * f.nw);
    for (size_t k = 0; k < f.nW; k++)
        W2[k] = W[k];
    for (size_t k = 0; k < f.nw; k++)
        w2[k] = w[k];
    mpt_sgd(W2, dW, f.nW, 0.002f); /* Fig. 2b: update W */
    mpt_sgd(w2, dw, f.nw, 0.002f); /* Fig. 2a: update w, transform again */
    mpt_wino_fprop(&f.s, x, W2, y, &err);
    for (size_t k = 0; k < f.ny; k++)
        loss[1] += 0.5 * (y[k] - target[k]) * (y[k] - target[k]);
    mpt_weights_to_wino(&f.s, w2, W);
    mpt_wino_fprop(&f.s, x, W, y, &err);
    for (size_t k = 0; k < f.ny; k++)
        loss[2] += 0.5 * (y[k] - target[k]) * (y[k] - target[k]);
    CHECK(loss[1] < 0.99 * loss[0]);
    CHECK(loss[2] < 0.99 * loss[0]);
    /* The spatial step equals a direct-convolution SGD step. */
    double *xd = dbl(x, f.nx), *dyd = dbl(dy, f.ny), *rdw = dnp_malloc(sizeof *rdw * f.nw);
    mpt_dshape ds = mpt_dshape_of(&f.s);
    mpt_direct_wgrad(&ds, xd, dyd, rdw);
    for (size_t k = 0; k < f.nw; k++)
        CHECK_NEAR(w2[k], w[k] - 0.002 * rdw[k], 1e-5, 1e-5);
    dnp_free(x), dnp_free(w), dnp_free(target), dnp_free(W), dnp_free(y), dnp_free(dy), dnp_free(dW), dnp_free(dw);
    dnp_free(W2), dnp_free(w2), dnp_free(xd), dnp_free(dyd), dnp_free(rdw);
}

TEST(mpt_layer_rejects_bad_shapes)
{
    mpt_transform tf;
    if (!make_tf(2, 5, &tf))
        return;
    dnp_error err = {0};
    mpt_wshape s = {1, 1, 1, 3, 3, 0, 0, &tf, &tf}; /* 5x5 kernel, 3x3 input */
    CHECK_EQ_INT(mpt_wshape_check(&s, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "Winograd layer: a 5x5 kernel does not fit a 3x3 input with padding 0,0");
    dnp_error_clear(&err);
    s.in_h = s.in_w = 5;
    s.batch = 0;
    CHECK_EQ_INT(mpt_wino_fprop(&s, NULL, NULL, NULL, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "Winograd layer: bad batch");
}
