/* test_mpt_exec.c - MPT really run on a grid of workers (src/arch/mpt/
 * mpt_exec.c) against the single worker: same bits, deterministic for any
 * thread count, prediction and zero-skipping exact, traffic as hand-worked. */
#include "test.h"

#include "arch/mpt/mpt_exec_int.h"

#include <stdlib.h>

typedef struct {
    mpt_transform th, tw;
    mpt_wshape s;
    mpt_wgeom g;
    size_t nx, ny, nW;
    float *x, *W, *dz;
} exec_fix;

static int fix_make(exec_fix *f, int m, int r, int batch, int in_c, int out_c, int h, int w,
                    int pad, unsigned long long seed)
{
    dnp_error err = {0};
    if (mpt_transform_make(m, r, &f->th, &err) != DNP_OK) {
        CHECK(0);
        return 0;
    }
    f->tw = f->th;
    f->s = (mpt_wshape){batch, in_c, out_c, h, w, pad, pad, &f->th, &f->tw};
    mpt_wgeom_get(&f->s, &f->g);
    f->nx = (size_t)batch * in_c * h * w;
    f->ny = (size_t)batch * out_c * f->g.out_h * f->g.out_w;
    f->nW = (size_t)f->g.elems * in_c * out_c;
    f->x = dnp_malloc(sizeof *f->x * f->nx);
    f->W = dnp_malloc(sizeof *f->W * f->nW);
    f->dz = dnp_malloc(sizeof *f->dz * f->ny);
    for (size_t k = 0; k < f->nx; k++) /* post-ReLU-like input: about half zeros */
        f->x[k] = (float)fmax(0.0, test_uniform(&seed, -1, 1));
    for (size_t k = 0; k < f->nW; k++)
        f->W[k] = (float)test_uniform(&seed, -0.5, 0.5);
    for (size_t k = 0; k < f->ny; k++)
        f->dz[k] = (float)test_uniform(&seed, -1, 1);
    return 1;
}

static void fix_free(exec_fix *f) { dnp_free(f->x), dnp_free(f->W), dnp_free(f->dz); }

typedef struct {
    float *z, *dx, *dW, *dy;
} results;

static void res_alloc(const exec_fix *f, results *r)
{
    r->z = dnp_malloc(sizeof *r->z * f->ny);
    r->dy = dnp_malloc(sizeof *r->dy * f->ny);
    r->dx = dnp_malloc(sizeof *r->dx * f->nx);
    r->dW = dnp_malloc(sizeof *r->dW * f->nW);
}
static void res_free(results *r) { dnp_free(r->z), dnp_free(r->dy), dnp_free(r->dx), dnp_free(r->dW); }

/* The single worker: z = f(y), dy = dz masked by the ReLU, dx, dW. */
static void single(const exec_fix *f, int relu, results *r)
{
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_wino_fprop(&f->s, f->x, f->W, r->z, &err), DNP_OK);
    for (size_t k = 0; k < f->ny; k++) {
        if (relu && !(r->z[k] > 0.0f))
            r->z[k] = 0.0f;
        r->dy[k] = (!relu || r->z[k] > 0.0f) ? f->dz[k] : 0.0f;
    }
    CHECK_EQ_INT(mpt_wino_bprop(&f->s, r->dy, f->W, r->dx, &err), DNP_OK);
    CHECK_EQ_INT(mpt_wino_wgrad(&f->s, f->x, r->dy, r->dW, &err), DNP_OK);
}

/* dW as the ring computes it: each cluster's partial on a single worker,
 * chunk k of each group's slice summed in cluster order k, k+1, ... */
static void ring_reference(const exec_fix *f, const results *ref, int ng, int nc, float *out)
{
    size_t IJ = (size_t)f->s.in_c * f->s.out_c;
    size_t xs = f->nx / (size_t)f->s.batch, ys = f->ny / (size_t)f->s.batch;
    float **part = dnp_malloc(sizeof *part * (size_t)nc);
    for (int c = 0; c < nc; c++) {
        int b0 = f->s.batch * c / nc, b1 = f->s.batch * (c + 1) / nc;
        part[c] = dnp_calloc(f->nW, sizeof **part);
        if (b1 == b0)
            continue;
        mpt_wshape sc = f->s;
        sc.batch = b1 - b0;
        dnp_error err = {0};
        CHECK_EQ_INT(mpt_wino_wgrad(&sc, f->x + (size_t)b0 * xs, ref->dy + (size_t)b0 * ys,
                                    part[c], &err),
                     DNP_OK);
    }
    for (int g = 0; g < ng; g++) {
        size_t e0 = (size_t)f->g.elems * g / ng, e1 = (size_t)f->g.elems * (g + 1) / ng;
        size_t off = e0 * IJ, len = (e1 - e0) * IJ;
        for (int k = 0; k < nc; k++) {
            size_t b, e;
            mpt_ring_chunk(len, nc, k, &b, &e);
            for (size_t q = b; q < e; q++) {
                float acc = part[k][off + q];
                for (int step = 1; step < nc; step++)
                    acc = acc + part[(k + step) % nc][off + q];
                out[off + q] = acc;
            }
        }
    }
    for (int c = 0; c < nc; c++)
        dnp_free(part[c]);
    dnp_free(part);
}

static int same_bits(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, sizeof *a * n) == 0;
}

static void run_grid(const exec_fix *f, mpt_exec_opts *o, results *out, mpt_exec_stats *st)
{
    dnp_error err = {0};
    dnp_status rc = mpt_exec_step(&f->s, f->x, f->W, f->dz, o, out->z, out->dx, out->dW, st,
                                  &err);
    if (rc != DNP_OK)
        printf("  grid %dx%d: %s\n", o->ng, o->nc, err.msg);
    CHECK_EQ_INT(rc, DNP_OK);
}

/* Grids of every shape on three transforms: z and dx equal the single
 * worker's bit for bit, dW equals the ring-order sum of the clusters'
 * single-worker partials bit for bit (and the single worker's sum within
 * the reassociation bound), and 1 or 3 OS threads give the same bits. */
TEST(mpt_exec_equals_single_worker)
{
    static const struct {
        int m, r, batch, in_c, out_c, h, w, pad, ng, nc, relu;
    } cases[] = {
        {2, 3, 3, 3, 4, 7, 9, 1, 1, 1, 1},  {2, 3, 3, 3, 4, 7, 9, 1, 2, 1, 1},
        {2, 3, 4, 3, 2, 7, 5, 1, 4, 2, 1},  {2, 3, 4, 2, 3, 6, 6, 1, 16, 2, 0},
        {2, 3, 5, 2, 3, 5, 7, 0, 3, 3, 1},  {2, 3, 2, 2, 2, 5, 5, 1, 1, 3, 1},
        {4, 3, 2, 2, 3, 9, 7, 1, 4, 2, 1},  {4, 3, 2, 2, 2, 6, 6, 1, 6, 2, 1},
        {2, 5, 3, 2, 2, 7, 6, 2, 2, 3, 1},  {2, 3, 2, 2, 2, 4, 4, 1, 2, 4, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        exec_fix f;
        if (!fix_make(&f, cases[c].m, cases[c].r, cases[c].batch, cases[c].in_c,
                      cases[c].out_c, cases[c].h, cases[c].w, cases[c].pad, 100 + c))
            continue;
        results ref, par, par3;
        res_alloc(&f, &ref);
        res_alloc(&f, &par);
        res_alloc(&f, &par3);
        single(&f, cases[c].relu, &ref);
        mpt_exec_opts o = mpt_exec_default(cases[c].ng, cases[c].nc);
        o.relu = cases[c].relu;
        run_grid(&f, &o, &par, NULL);
        o.threads = 3;
        run_grid(&f, &o, &par3, NULL);
        CHECK(same_bits(par.z, ref.z, f.ny));
        CHECK(same_bits(par.dx, ref.dx, f.nx));
        float *ring = dnp_malloc(sizeof *ring * f.nW);
        ring_reference(&f, &ref, cases[c].ng, cases[c].nc, ring);
        CHECK(same_bits(par.dW, ring, f.nW));
        if (cases[c].nc == 1)
            CHECK(same_bits(par.dW, ref.dW, f.nW));
        /* within reassociation of nc partial sums of the single worker's dW */
        double gam = mpt_gamma32(f.g.n + 2);
        float *mag = dnp_malloc(sizeof *mag * f.nW), *ax = dnp_malloc(sizeof *ax * f.nx);
        float *ady = dnp_malloc(sizeof *ady * f.ny);
        for (size_t k = 0; k < f.nx; k++)
            ax[k] = fabsf(f.x[k]);
        for (size_t k = 0; k < f.ny; k++)
            ady[k] = fabsf(ref.dy[k]);
        mpt_transform at;
        mpt_transform_abs(&f.th, &at);
        mpt_wshape sa = f.s;
        sa.th = sa.tw = &at;
        dnp_error err = {0};
        mpt_wino_wgrad(&sa, ax, ady, mag, &err);
        int bad = 0;
        for (size_t k = 0; k < f.nW; k++)
            bad += !(fabs((double)par.dW[k] - ref.dW[k]) <= 2 * gam * mag[k]);
        CHECK_EQ_INT(bad, 0);
        CHECK(same_bits(par3.z, par.z, f.ny) && same_bits(par3.dx, par.dx, f.nx) &&
              same_bits(par3.dW, par.dW, f.nW));
        dnp_free(ring), dnp_free(mag), dnp_free(ax), dnp_free(ady);
        res_free(&ref), res_free(&par), res_free(&par3);
        fix_free(&f);
    }
}

/* Prediction and zero-skipping only leave out data that is surely zero, so
 * the step gives the same bits; it does leave data out. */
TEST(mpt_exec_predict_and_zero_skip_are_exact)
{
    static const int grids[][2] = {{16, 2}, {4, 2}, {2, 1}, {8, 1}};
    for (size_t c = 0; c < sizeof grids / sizeof grids[0]; c++) {
        exec_fix f;
        if (!fix_make(&f, 2, 3, 4, 6, 8, 8, 7, 1, 7 + c))
            continue;
        for (size_t k = 0; k < f.nW; k++) /* a negative bias: many inactive tiles */
            f.W[k] -= (k / ((size_t)f.s.in_c * f.s.out_c)) == 0 ? 0.4f : 0.0f;
        results ref, par;
        res_alloc(&f, &ref);
        res_alloc(&f, &par);
        single(&f, 1, &ref);
        mpt_exec_opts o = mpt_exec_default(grids[c][0], grids[c][1]);
        mpt_exec_stats plain, pred;
        run_grid(&f, &o, &par, &plain);
        o.predict = o.zero_skip = 1;
        o.threads = 2;
        run_grid(&f, &o, &par, &pred);
        CHECK(same_bits(par.z, ref.z, f.ny));
        CHECK(same_bits(par.dx, ref.dx, f.nx));
        if (grids[c][1] == 1)
            CHECK(same_bits(par.dW, ref.dW, f.nW));
        CHECK_EQ_INT(pred.one_d, grids[c][0] == 4 || grids[c][0] == 2 ? 1 : 0);
        CHECK_EQ_INT(pred.gather_units, plain.gather_units);
        CHECK(pred.predicted_inactive > 0);
        CHECK(pred.predicted_inactive <= pred.actual_inactive);
        CHECK_EQ_INT(pred.actual_inactive, plain.actual_inactive);
        CHECK(pred.skipped_values > 0);
        CHECK(pred.scatter_bytes_total < plain.scatter_bytes_total);
        CHECK(pred.ring_bytes_total == plain.ring_bytes_total);
        res_free(&ref), res_free(&par);
        fix_free(&f);
    }
}

/* Bytes per worker, worked by hand for F(2x2,3x3), batch 4, 2 -> 3
 * channels, 8x8 maps (16 tiles per sample, 64 in all), E = 16. */
TEST(mpt_exec_traffic_hand_worked)
{
    exec_fix f;
    if (!fix_make(&f, 2, 3, 4, 2, 3, 8, 8, 1, 1))
        return;
    results par;
    res_alloc(&f, &par);
    mpt_exec_stats st;
    /* 4x2: 1D mode (4 elements = one tile row per group); a cluster holds 2
     * samples = 32 tiles, 8 per home.
     * scatter: X 8 tiles x 2 ch x 12 foreign elements x 4 B = 768, dY
     * 8 x 3 x 12 x 4 = 1152; total 1920 = |X|/(Ng Nc) (Ng-1)/Ng + the same
     * for dY, |X| = 64 x 2 x 16 x 4 = 8192 -> 768.
     * gather: 1D lines, 1 row x 2 columns per (tile, channel) to 3 homes:
     * 8 x 3 x 2 x 4 x 3 = 576; dX 8 x 2 x 4 elements x 4 B x 3 = 768.
     * ring: slice 4 x 2 x 3 = 24 floats, 2 chunks of 12, 2 steps: 96 =
     * 2 |W|/Ng (Nc-1)/Nc with |W| = 16 x 6 x 4 = 384. */
    mpt_exec_opts o = mpt_exec_default(4, 2);
    run_grid(&f, &o, &par, &st);
    CHECK_EQ_INT(st.one_d, 1);
    CHECK_NEAR(st.scatter_bytes_max, 1920, 0, 0);
    CHECK_NEAR(st.gather_bytes_max, 576 + 768, 0, 0);
    CHECK_NEAR(st.ring_bytes_max, 96, 0, 0);
    CHECK_NEAR(st.scatter_bytes_total, 8 * 1920, 0, 0);
    /* 16x1: 2D mode, one element per group, 4 home tiles each.
     * scatter: 4 x 2 x 15 x 4 = 480 + dY 4 x 3 x 15 x 4 = 720 -> 1200;
     * gather: Y 4 tiles x 3 ch x 1 element x 4 B x 15 homes = 720, dX
     * 4 x 2 x 1 x 4 x 15 = 480 -> 1200; no ring. */
    o = mpt_exec_default(16, 1);
    run_grid(&f, &o, &par, &st);
    CHECK_EQ_INT(st.one_d, 0);
    CHECK_NEAR(st.scatter_bytes_max, 1200, 0, 0);
    CHECK_NEAR(st.gather_bytes_max, 1200, 0, 0);
    CHECK_NEAR(st.ring_bytes_max, 0, 0, 0);
    /* 1x8: data parallelism, no tile transfer; the ring carries
     * 2 x 7/8 x |W| = 2 x 7/8 x 96 floats x 4 B = 672 per worker (half the
     * clusters have no sample: their partial is zero). */
    o = mpt_exec_default(1, 8);
    run_grid(&f, &o, &par, &st);
    CHECK_NEAR(st.scatter_bytes_max + st.gather_bytes_max, 0, 0, 0);
    CHECK_NEAR(st.ring_bytes_max, 672, 0, 0);
    res_free(&par);
    fix_free(&f);
}

TEST(mpt_exec_rejects_bad_grids)
{
    exec_fix f;
    if (!fix_make(&f, 2, 3, 2, 1, 1, 4, 4, 1, 1))
        return;
    results par;
    res_alloc(&f, &par);
    dnp_error err = {0};
    mpt_exec_opts o = mpt_exec_default(17, 1); /* 17 groups > 16 elements */
    CHECK_EQ_INT(mpt_exec_step(&f.s, f.x, f.W, f.dz, &o, par.z, par.dx, par.dW, NULL, &err),
                 DNP_ERR_INPUT);
    CHECK_STR(err.msg, "MPT grid 17x1: need 1 <= groups <= 16 tile elements and clusters >= 1");
    dnp_error_clear(&err);
    o = mpt_exec_default(2, 1);
    o.relu = 0;
    o.predict = 1;
    CHECK_EQ_INT(mpt_exec_step(&f.s, f.x, f.W, f.dz, &o, par.z, par.dx, par.dW, NULL, &err),
                 DNP_ERR_INPUT);
    res_free(&par);
    fix_free(&f);
}
