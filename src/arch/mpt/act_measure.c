/*
 * act_measure.c - the share of inactive tiles and lines, actual and
 * predicted (the paper's Fig. 12), and of zero input-tile data (the
 * zero-skipping of Sec. V-B), on the second layer of a small CNN trained on
 * the handwritten digits Debian's python3-sklearn ships (act_digits.c, the
 * default: mpt_cuts_ours) and on synthetic data (smooth random images
 * through random He-initialised layers).  We have neither ImageNet nor
 * CIFAR nor the pre-trained weights the paper used (docs/mpt.md).
 */
#include "arch/mpt/mpt_predict.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

mpt_measure_setup mpt_measure_default(void)
{
    mpt_measure_setup m = {4, 32, 32, 16, 3, 0.0, 2018};
    return m;
}

/* splitmix64: a small deterministic generator. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double uniform01(uint64_t *s) { return ((double)(next_u64(s) >> 11) + 0.5) * 0x1p-53; }
static double normal(uint64_t *s) /* Box-Muller */
{
    double u = uniform01(s), v = uniform01(s);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Standard deviation of n floats, in double. */
static double stddev(const float *v, size_t n)
{
    double s = 0, s2 = 0;
    for (size_t k = 0; k < n; k++) {
        s += v[k];
        s2 += (double)v[k] * v[k];
    }
    double mean = s / (double)n, var = s2 / (double)n - mean * mean;
    return var > 0 ? sqrt(var) : 0.0;
}

/* Buffers of one measurement. */
typedef struct {
    double *img, *w1, *pre1;
    float *x, *w2, *W2, *X, *Y, *y, *tmp;
} bufs;

static void bufs_free(bufs *b)
{
    dnp_free(b->img), dnp_free(b->w1), dnp_free(b->pre1), dnp_free(b->x), dnp_free(b->w2);
    dnp_free(b->W2), dnp_free(b->X), dnp_free(b->Y), dnp_free(b->y), dnp_free(b->tmp);
}

/* The synthetic input x of the measured layer: smooth images (four random
 * low-frequency cosines per channel plus a little noise) through a 3x3
 * conv with He-normal weights and ReLU. */
static void make_input(const mpt_measure_setup *m, bufs *b, uint64_t *rng)
{
    int S = m->size;
    for (int bc = 0; bc < m->batch * m->first_c; bc++) {
        double fx[4], fy[4], ph[4];
        for (int k = 0; k < 4; k++) {
            fx[k] = 0.3 * uniform01(rng) - 0.15; /* cycles per pixel */
            fy[k] = 0.3 * uniform01(rng) - 0.15;
            ph[k] = 6.283185307179586 * uniform01(rng);
        }
        for (int yy = 0; yy < S; yy++)
            for (int xx = 0; xx < S; xx++) {
                double v = 0.2 * normal(rng);
                for (int k = 0; k < 4; k++)
                    v += cos(6.283185307179586 * (fx[k] * xx + fy[k] * yy) + ph[k]);
                b->img[((size_t)bc * S + yy) * S + xx] = v;
            }
    }
    double sd1 = sqrt(2.0 / (m->first_c * 9.0));
    for (size_t k = 0; k < (size_t)m->in_c * m->first_c * 9; k++)
        b->w1[k] = sd1 * normal(rng);
    mpt_dshape d1 = {m->batch, m->first_c, m->in_c, S, S, 3, 3, 1, 1};
    mpt_direct_fprop(&d1, b->img, b->w1, b->pre1);
    for (size_t k = 0; k < (size_t)m->batch * m->in_c * S * S; k++)
        b->x[k] = b->pre1[k] > 0 ? (float)b->pre1[k] : 0.0f;
}

/* Count actual and predicted inactive units for one quantizer setting. */
static void count_units(const mpt_wshape *s, const mpt_wgeom *g, const bufs *b,
                        const float *bias, const mpt_quantizer *q2, const mpt_quantizer *q1,
                        mpt_predict_measure *r)
{
    int th = s->th->t, tw = s->tw->t, m = s->th->m, J = s->out_c;
    size_t N = (size_t)g->n;
    long long tiles = 0, tiles_act = 0, tiles_pred = 0, lines = 0, lines_act = 0,
              lines_pred = 0;
    for (int n = 0; n < g->n; n++) {
        int bb = n / g->tiles, ty = (n % g->tiles) / g->tiles_w, tx = n % g->tiles_w;
        int rows = g->out_h - ty * m < m ? g->out_h - ty * m : m;
        int cols = g->out_w - tx * m < m ? g->out_w - tx * m : m;
        for (int j = 0; j < J; j++) {
            const float *yc = b->y + ((size_t)bb * J + j) * g->out_h * g->out_w;
            unsigned codes[MPT_MAX_TILE * MPT_MAX_TILE];
            for (int e = 0; e < th * tw; e++)
                codes[e] = mpt_quantize(q2, b->Y[((size_t)e * N + n) * J + j]);
            int all = 1;
            for (int k = 0; k < cols; k++) {
                int col = 1;
                for (int a = 0; a < rows; a++)
                    col &= (yc[(size_t)(ty * m + a) * g->out_w + tx * m + k] + bias[j]) <= 0.0f;
                unsigned lc[MPT_MAX_TILE];
                for (int u = 0; u < th; u++)
                    lc[u] = mpt_quantize(q1, b->tmp[(((size_t)n * J + j) * th + u) * m + k]);
                int pred = mpt_predict_line(s, q1, lc, rows, bias[j]);
                lines++, lines_act += col, lines_pred += pred;
                r->false_negatives += pred && !col;
                all &= col;
            }
            int pred = mpt_predict_tile(s, q2, codes, rows, cols, bias[j]);
            tiles++, tiles_act += all, tiles_pred += pred;
            r->false_negatives += pred && !all;
        }
    }
    r->tile_actual = (double)tiles_act / (double)tiles;
    r->tile_predicted = (double)tiles_pred / (double)tiles;
    r->line_actual = (double)lines_act / (double)lines;
    r->line_predicted = (double)lines_pred / (double)lines;
    (void)tw;
}

/* Allocate the buffers of a measurement of shape s (first_c image
 * channels before the measured layer); 0 if out of memory. */
static int bufs_alloc(const mpt_wshape *s, const mpt_wgeom *g, int first_c, bufs *b, float **bias)
{
    size_t S2 = (size_t)s->in_h * s->in_w, N = (size_t)g->n, E = (size_t)g->elems;
    size_t I = (size_t)s->in_c, J = (size_t)s->out_c, B = (size_t)s->batch;
    memset(b, 0, sizeof *b);
    b->img = dnp_malloc(sizeof *b->img * B * (size_t)first_c * S2);
    b->w1 = dnp_malloc(sizeof *b->w1 * I * (size_t)first_c * 9);
    b->pre1 = dnp_malloc(sizeof *b->pre1 * B * I * S2);
    b->x = dnp_malloc(sizeof *b->x * B * I * S2);
    b->w2 = dnp_malloc(sizeof *b->w2 * J * I * 9);
    b->W2 = dnp_malloc(sizeof *b->W2 * E * I * J);
    b->X = dnp_malloc(sizeof *b->X * E * N * I);
    b->Y = dnp_malloc(sizeof *b->Y * E * N * J);
    b->y = dnp_malloc(sizeof *b->y * B * J * S2);
    b->tmp = dnp_malloc(sizeof *b->tmp * N * J * (size_t)s->th->t * (size_t)s->th->m);
    *bias = dnp_malloc(sizeof **bias * J);
    if (!b->img || !b->w1 || !b->pre1 || !b->x || !b->w2 || !b->W2 || !b->X || !b->Y ||
        !b->y || !b->tmp || !*bias) {
        bufs_free(b);
        dnp_free(*bias);
        *bias = NULL;
        return 0;
    }
    return 1;
}

/* The measurement proper, once b->x (the layer's input) and b->w2 (its
 * spatial weights) are set: the Winograd fprop in F(2x2,3x3), the counts
 * of actual and predicted inactive units for 1, 2 and 4 regions, and the
 * zero shares of the input tiles.  bias[j] is the output bias; if
 * bias_sigmas is not NaN, every bias is first set to -bias_sigmas times
 * the standard deviation of the pre-activation. */
static dnp_status measure(const mpt_wshape *s, const mpt_wgeom *g, bufs *b, float *bias,
                          double bias_sigmas, mpt_predict_measure out[3], dnp_error *err)
{
    const mpt_transform *tf = s->th;
    size_t S2 = (size_t)s->in_h * s->in_w, N = (size_t)g->n, E = (size_t)g->elems;
    size_t I = (size_t)s->in_c, J = (size_t)s->out_c, B = (size_t)s->batch;
    mpt_weights_to_wino(s, b->w2, b->W2);
    for (int n = 0; n < g->n; n++)
        for (size_t i = 0; i < I; i++)
            mpt_tile_in(s, b->x, n, (int)i, b->X + (size_t)n * I + i, N * I);
    for (size_t e = 0; e < E; e++)
        mpt_gemm_fwd(b->X + e * N * I, b->W2 + e * I * J, b->Y + e * N * J, g->n, (int)I,
                     (int)J);
    for (int n = 0; n < g->n; n++)
        for (size_t j = 0; j < J; j++) {
            float *tmp = b->tmp + ((size_t)n * J + j) * (size_t)(tf->t * tf->m);
            mpt_tile_out_rows(s, b->Y + (size_t)n * J + j, N * J, 0, tf->t, tmp);
            for (int k = 0; k < tf->m; k++)
                mpt_tile_out_col(s, tmp, n, (int)j, k, b->y);
        }
    if (!isnan(bias_sigmas)) {
        float bval = (float)(-bias_sigmas * stddev(b->y, B * J * S2));
        for (size_t j = 0; j < J; j++)
            bias[j] = bval;
    }
    double sY = stddev(b->Y, E * N * J), sT = stddev(b->tmp, N * J * (size_t)(tf->t * tf->m));
    long long zero_vals = 0, zero_lines = 0, zero_tiles = 0;
    for (size_t k = 0; k < E * N * I; k++)
        zero_vals += b->X[k] == 0.0f;
    for (size_t n = 0; n < N; n++) /* lines: t_w consecutive elements of one tile row */
        for (size_t i = 0; i < I; i++) {
            int tile_zero = 1;
            for (size_t e = 0; e < E; e++)
                tile_zero &= b->X[(e * N + n) * I + i] == 0.0f;
            zero_tiles += tile_zero;
            for (int u = 0; u < tf->t; u++) {
                int all = 1;
                for (int v = 0; v < tf->t; v++)
                    all &= b->X[((size_t)(u * tf->t + v) * N + n) * I + i] == 0.0f;
                zero_lines += all;
            }
        }
    dnp_status st = DNP_OK;
    for (int k = 0; k < 3 && st == DNP_OK; k++) {
        int r = 1 << k;
        mpt_quant_params p2 = mpt_quant_default(0), p1 = mpt_quant_default(1);
        p2.regions = p1.regions = r;
        mpt_quantizer q2, q1;
        if ((st = mpt_quantizer_make(&p2, sY, &q2, err)) != DNP_OK ||
            (st = mpt_quantizer_make(&p1, sT, &q1, err)) != DNP_OK)
            break;
        mpt_predict_measure *o = &out[k];
        memset(o, 0, sizeof *o);
        o->regions = r;
        count_units(s, g, b, bias, &q2, &q1, o);
        o->zero_values_2d = (double)zero_vals / (double)(E * N * I);
        o->zero_lines_1d = (double)zero_lines / (double)(N * I * (size_t)tf->t);
        o->zero_tiles_2d = (double)zero_tiles / (double)(N * I);
    }
    return st;
}

dnp_status mpt_predict_measure_run(const mpt_measure_setup *m, mpt_predict_measure out[3],
                                   dnp_error *err)
{
    mpt_transform tf;
    dnp_status st = mpt_transform_make(2, 3, &tf, err);
    if (st != DNP_OK)
        return st;
    mpt_wshape s = {m->batch, m->in_c, m->out_c, m->size, m->size, 1, 1, &tf, &tf};
    if ((st = mpt_wshape_check(&s, err)) != DNP_OK)
        return st;
    if (m->first_c < 1) {
        dnp_error_set(err, DNP_ERR_INPUT, "prediction measurement: bad image channels");
        return DNP_ERR_INPUT;
    }
    mpt_wgeom g;
    mpt_wgeom_get(&s, &g);
    bufs b;
    float *bias;
    if (!bufs_alloc(&s, &g, m->first_c, &b, &bias)) {
        dnp_error_set(err, DNP_ERR_NOMEM, "prediction measurement: out of memory");
        return DNP_ERR_NOMEM;
    }
    size_t I = (size_t)m->in_c, J = (size_t)m->out_c;
    uint64_t rng = m->seed;
    make_input(m, &b, &rng);
    double sd2 = sqrt(2.0 / ((double)I * 9.0));
    for (size_t k = 0; k < J * I * 9; k++)
        b.w2[k] = (float)(sd2 * normal(&rng));
    st = measure(&s, &g, &b, bias, m->bias_sigmas, out, err);
    bufs_free(&b);
    dnp_free(bias);
    return st;
}

dnp_status mpt_predict_measure_trained(const mpt_trained_layer *t, mpt_predict_measure out[3],
                                       dnp_error *err)
{
    mpt_transform tf;
    dnp_status st = mpt_transform_make(2, 3, &tf, err);
    if (st != DNP_OK)
        return st;
    mpt_wshape s = {t->batch, t->in_c, t->out_c, t->size, t->size, 1, 1, &tf, &tf};
    if ((st = mpt_wshape_check(&s, err)) != DNP_OK)
        return st;
    mpt_wgeom g;
    mpt_wgeom_get(&s, &g);
    bufs b;
    float *bias;
    if (!bufs_alloc(&s, &g, t->first_c, &b, &bias)) {
        dnp_error_set(err, DNP_ERR_NOMEM, "prediction measurement: out of memory");
        return DNP_ERR_NOMEM;
    }
    size_t S2 = (size_t)t->size * t->size, B = (size_t)t->batch, I = (size_t)t->in_c;
    size_t C = (size_t)t->first_c, J = (size_t)t->out_c;
    for (size_t k = 0; k < B * C * S2; k++)
        b.img[k] = t->img[k] * t->pixel_scale;
    for (size_t k = 0; k < I * C * 9; k++)
        b.w1[k] = t->w1[k];
    /* conv1 (3x3, pad 1) + bias + ReLU in double: the measured layer's input */
    mpt_dshape d1 = {t->batch, t->first_c, t->in_c, t->size, t->size, 3, 3, 1, 1};
    mpt_direct_fprop(&d1, b.img, b.w1, b.pre1);
    for (size_t n = 0; n < B; n++)
        for (size_t i = 0; i < I; i++)
            for (size_t k = 0; k < S2; k++) {
                size_t at = (n * I + i) * S2 + k;
                double v = b.pre1[at] + t->b1[i];
                b.x[at] = v > 0 ? (float)v : 0.0f;
            }
    memcpy(b.w2, t->w2, sizeof *b.w2 * J * I * 9);
    memcpy(bias, t->b2, sizeof *bias * J);
    st = measure(&s, &g, &b, bias, NAN, out, err);
    bufs_free(&b);
    dnp_free(bias);
    return st;
}

static double at_least0(double v) { return v > 0 ? v : 0.0; }

mpt_cuts mpt_cuts_measured(const mpt_predict_measure *m)
{
    mpt_cuts c;
    c.gather_2d = at_least0(m->tile_predicted - 6.0 / 32);
    c.gather_1d = at_least0(m->line_predicted - 5.0 / 32);
    c.scatter_2d = c.scatter_1d = at_least0(m->zero_values_2d - 1.0 / 32);
    c.gather_bwd_2d = m->zero_tiles_2d;
    c.gather_bwd_1d = m->zero_lines_1d;
    c.from_paper = 0;
    return c;
}

dnp_status mpt_cuts_ours(mpt_cuts *out, dnp_error *err)
{
    mpt_predict_measure m[3];
    dnp_status st = mpt_predict_measure_trained(mpt_digits_layer(), m, err);
    if (st == DNP_OK)
        *out = mpt_cuts_measured(&m[2]); /* 4 regions, the paper's setting */
    return st;
}
