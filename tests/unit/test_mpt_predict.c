/* test_mpt_predict.c - non-uniform quantization and activation prediction
 * (src/arch/mpt/act_predict.c): intervals always contain the value, and a
 * tile or line is never predicted inactive while one of its neurons is
 * active, over many random and adversarial tiles. */
#include "test.h"

#include "arch/mpt/mpt_predict.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

TEST(mpt_quantizer_fig10_layout)
{
    mpt_quant_params p = mpt_quant_default(0); /* 6 bits, 4 regions */
    mpt_quantizer q;
    dnp_error err = {0};
    /* sigma 1, range 3 sigma: top = 112 delta >= 3 -> delta = 2^-5, top = 3.5 */
    CHECK_EQ_INT(mpt_quantizer_make(&p, 1.0, &q, &err), DNP_OK);
    CHECK_EQ_INT(q.steps, 8);
    CHECK_EQ_INT(q.delta_log2, -5);
    CHECK_NEAR(q.top, 3.5, 0, 0);
    double lo, hi;
    /* region 0: step delta; region 1 starts at 8 delta with step 2 delta */
    mpt_code_interval(&q, mpt_quantize(&q, 0.0f), &lo, &hi);
    CHECK(lo == 0.0 && hi == 1.0 / 32);
    mpt_code_interval(&q, mpt_quantize(&q, 0.25f), &lo, &hi); /* 8 delta */
    CHECK(lo == 0.25 && hi == 0.25 + 2.0 / 32);
    mpt_code_interval(&q, mpt_quantize(&q, -0.3f), &lo, &hi);
    CHECK(lo == -(0.25 + 2.0 / 32) && hi == -0.25);
    /* region 3 starts at 56 delta = 1.75 with step 8 delta = 0.25 */
    mpt_code_interval(&q, mpt_quantize(&q, 1.8f), &lo, &hi);
    CHECK(lo == 1.75 && hi == 2.0);
    /* overflow keeps the sign */
    mpt_code_interval(&q, mpt_quantize(&q, 3.5f), &lo, &hi);
    CHECK(lo == 3.5 && isinf(hi));
    mpt_code_interval(&q, mpt_quantize(&q, -1e30f), &lo, &hi);
    CHECK(isinf(lo) && lo < 0 && hi == -3.5);
    mpt_code_interval(&q, mpt_quantize(&q, NAN), &lo, &hi);
    CHECK(isinf(hi));
    /* bad settings */
    p.regions = 3;
    CHECK_EQ_INT(mpt_quantizer_make(&p, 1.0, &q, &err), DNP_ERR_INPUT);
}

/* Every value lies in its code's interval: random values of many scales,
 * exact region and step boundaries and their float neighbours. */
TEST(mpt_quantizer_interval_contains_value)
{
    unsigned long long seed = 77;
    int bad = 0;
    for (int r = 1; r <= 8; r++)
        for (int bits = 4; bits <= 7; bits++) {
            mpt_quant_params p = {bits, r, 3.0};
            if (((1 << (bits - 1)) % r) != 0 || (1 << (bits - 1)) / r < 2)
                continue;
            mpt_quantizer q;
            dnp_error err = {0};
            double sigma = exp(test_uniform(&seed, -20, 20));
            CHECK_EQ_INT(mpt_quantizer_make(&p, sigma, &q, &err), DNP_OK);
            for (int k = 0; k < 4000; k++) {
                float v;
                if (k % 2 == 0) {
                    v = (float)(sigma * test_uniform(&seed, -8, 8));
                } else { /* a code boundary, nudged */
                    unsigned code = (unsigned)(test_rand(&seed) % (1u << bits));
                    double lo, hi;
                    mpt_code_interval(&q, code, &lo, &hi);
                    double b = isinf(lo) ? hi : lo;
                    v = (float)b;
                    if (k % 3 == 0)
                        v = nextafterf(v, INFINITY);
                    else if (k % 3 == 1)
                        v = nextafterf(v, -INFINITY);
                }
                double lo, hi;
                mpt_code_interval(&q, mpt_quantize(&q, v), &lo, &hi);
                if (!(lo <= v && v <= hi) && bad++ < 3)
                    printf("  %.9g not in [%.9g, %.9g] (bits %d regions %d)\n", v, lo, hi, bits,
                           r);
            }
        }
    CHECK_EQ_INT(bad, 0);
}

/* ---- prediction --------------------------------------------------------- */

typedef struct {
    mpt_transform tf;
    mpt_wshape s; /* one tile: input t x t, no padding, output m x m */
} one_tile;

static void one_tile_make(int m, int r, one_tile *o)
{
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_transform_make(m, r, &o->tf, &err), DNP_OK);
    o->s = (mpt_wshape){1, 1, 1, o->tf.t, o->tf.t, 0, 0, &o->tf, &o->tf};
}

/* The layer's own float output of tile Y (y is m x m) and its first pass. */
static void layer_out(const one_tile *o, const float *Y, float *tmp, float *y)
{
    mpt_tile_out_rows(&o->s, Y, 1, 0, o->tf.t, tmp);
    for (int k = 0; k < o->tf.m; k++)
        mpt_tile_out_col(&o->s, tmp, 0, 0, k, y);
}

/* Solve for D with A^T D A = all ones (shifts every neuron by 1):
 * D = P 1 P^T with P = A (A^T A)^-1. */
static void shift_tile(const mpt_transform *tf, double *D)
{
    int m = tf->m, t = tf->t;
    double M[MPT_MAX_TILE][2 * MPT_MAX_TILE], P[MPT_MAX_TILE * MPT_MAX_TILE];
    for (int a = 0; a < m; a++)
        for (int b = 0; b < m; b++) {
            double s = 0;
            for (int u = 0; u < t; u++)
                s += tf->at[a * t + u] * tf->at[b * t + u];
            M[a][b] = s;
            M[a][m + b] = a == b;
        }
    for (int c = 0; c < m; c++) { /* Gauss-Jordan, SPD so no pivoting */
        double p = M[c][c];
        for (int k = 0; k < 2 * m; k++)
            M[c][k] /= p;
        for (int rr = 0; rr < m; rr++)
            if (rr != c) {
                double f = M[rr][c];
                for (int k = 0; k < 2 * m; k++)
                    M[rr][k] -= f * M[c][k];
            }
    }
    for (int u = 0; u < t; u++) /* P = A inv(A^T A), t x m */
        for (int b = 0; b < m; b++) {
            double s = 0;
            for (int a = 0; a < m; a++)
                s += tf->at[a * t + u] * M[a][m + b];
            P[u * m + b] = s;
        }
    for (int u = 0; u < t; u++)
        for (int v = 0; v < t; v++) {
            double pu = 0, pv = 0;
            for (int a = 0; a < m; a++)
                pu += P[u * m + a], pv += P[v * m + a];
            D[u * t + v] = pu * pv;
        }
}

typedef struct {
    long long tiles, predicted, false_neg, lines, lines_predicted;
} pred_count;

/* Predict tile Y (2D, and its lines in 1D) and compare with the layer's
 * float neurons over the first rows x cols outputs, plus `bias`. */
static void judge(const one_tile *o, const float *Y, int rows, int cols, float bias,
                  const mpt_quantizer *q2, const mpt_quantizer *q1, pred_count *c)
{
    int t = o->tf.t, m = o->tf.m;
    float tmp[MPT_MAX_TILE * MPT_MAX_TILE], y[MPT_MAX_TILE * MPT_MAX_TILE];
    unsigned codes[MPT_MAX_TILE * MPT_MAX_TILE], lc[MPT_MAX_TILE];
    layer_out(o, Y, tmp, y);
    int all = 1;
    for (int k = 0; k < cols; k++) {
        int col = 1;
        for (int a = 0; a < rows; a++)
            col &= !((y[a * m + k] + bias) > 0.0f);
        for (int u = 0; u < t; u++)
            lc[u] = mpt_quantize(q1, tmp[u * m + k]);
        int p = mpt_predict_line(&o->s, q1, lc, rows, bias);
        c->lines++;
        c->lines_predicted += p;
        c->false_neg += p && !col;
        all &= col;
    }
    for (int e = 0; e < t * t; e++)
        codes[e] = mpt_quantize(q2, Y[e]);
    int p = mpt_predict_tile(&o->s, q2, codes, rows, cols, bias);
    c->tiles++;
    c->predicted += p;
    c->false_neg += p && !all;
}

/* Random tiles of every transform and many scales, and adversarial ones:
 * tiles shifted so the largest neuron sits at the last float steps around
 * zero, values exactly on quantization boundaries, overflow and infinity.
 * Never a false negative; and the predictor does predict (non-vacuous). */
TEST(mpt_predict_never_false_negative)
{
    static const int mr[][2] = {{2, 3}, {4, 3}, {2, 5}};
    unsigned long long seed = 4242;
    pred_count c = {0, 0, 0, 0, 0};
    long long near_zero_active = 0;
    for (size_t tc = 0; tc < sizeof mr / sizeof mr[0]; tc++) {
        one_tile o;
        one_tile_make(mr[tc][0], mr[tc][1], &o);
        int t = o.tf.t, m = o.tf.m;
        double D[MPT_MAX_TILE * MPT_MAX_TILE];
        shift_tile(&o.tf, D);
        for (int trial = 0; trial < 3000; trial++) {
            double sigma = exp(test_uniform(&seed, -10, 10));
            mpt_quant_params p2 = mpt_quant_default(0), p1 = mpt_quant_default(1);
            p2.regions = p1.regions = 1 << (int)(test_rand(&seed) % 3);
            mpt_quantizer q2, q1;
            dnp_error err = {0};
            mpt_quantizer_make(&p2, sigma, &q2, &err);
            mpt_quantizer_make(&p1, sigma * (1 + test_uniform(&seed, 0, 2)), &q1, &err);
            float Y[MPT_MAX_TILE * MPT_MAX_TILE];
            double base[MPT_MAX_TILE * MPT_MAX_TILE];
            for (int e = 0; e < t * t; e++) /* mostly negative tiles predict more */
                base[e] = sigma * (test_uniform(&seed, -1, 1) + test_uniform(&seed, -1, 0.6));
            int rows = 1 + (int)(test_rand(&seed) % (unsigned)m);
            int cols = 1 + (int)(test_rand(&seed) % (unsigned)m);
            if (trial % 2)
                rows = cols = m;
            float bias = trial % 5 == 0 ? (float)(sigma * test_uniform(&seed, -1, 1)) : 0.0f;
            int kind = trial % 4;
            if (kind == 0) { /* plain random */
                for (int e = 0; e < t * t; e++)
                    Y[e] = (float)base[e];
                judge(&o, Y, rows, cols, bias, &q2, &q1, &c);
            } else if (kind == 1) { /* largest neuron bisected onto zero */
                double lo = -100 * sigma, hi = 100 * sigma;
                for (int it = 0; it < 200; it++) {
                    double mid = 0.5 * (lo + hi);
                    float tmp[MPT_MAX_TILE * MPT_MAX_TILE], y[MPT_MAX_TILE * MPT_MAX_TILE];
                    for (int e = 0; e < t * t; e++)
                        Y[e] = (float)(base[e] + mid * D[e]);
                    layer_out(&o, Y, tmp, y);
                    float mx = -INFINITY;
                    for (int a = 0; a < rows; a++)
                        for (int k = 0; k < cols; k++)
                            mx = fmaxf(mx, y[a * m + k] + bias);
                    if (mx > 0)
                        hi = mid;
                    else
                        lo = mid;
                    /* judge the last iterations: both sides of zero */
                    if (it >= 190) {
                        judge(&o, Y, rows, cols, bias, &q2, &q1, &c);
                        near_zero_active += mx > 0;
                    }
                }
            } else if (kind == 2) { /* values on quantization boundaries */
                for (int e = 0; e < t * t; e++) {
                    unsigned code = (unsigned)(test_rand(&seed) % 64u);
                    double l, h;
                    mpt_code_interval(&q2, code, &l, &h);
                    float v = (float)(isinf(l) ? h : l);
                    int nudge = (int)(test_rand(&seed) % 3u);
                    Y[e] = nudge == 0 ? v : nudge == 1 ? nextafterf(v, INFINITY)
                                                       : nextafterf(v, -INFINITY);
                }
                judge(&o, Y, rows, cols, bias, &q2, &q1, &c);
            } else { /* overflow, infinities, huge and tiny values mixed in */
                for (int e = 0; e < t * t; e++) {
                    Y[e] = (float)base[e];
                    unsigned pick = (unsigned)(test_rand(&seed) % 12u);
                    if (pick == 0)
                        Y[e] = (float)(50 * sigma);
                    else if (pick == 1)
                        Y[e] = -INFINITY;
                    else if (pick == 2)
                        Y[e] = FLT_MIN * 0.5f; /* subnormal */
                    else if (pick == 3)
                        Y[e] = -(float)(1e3 * sigma);
                }
                judge(&o, Y, rows, cols, bias, &q2, &q1, &c);
            }
        }
    }
    CHECK_EQ_INT(c.false_neg, 0);
    CHECK(c.predicted > c.tiles / 50); /* the predictor is not vacuous */
    CHECK(c.lines_predicted > c.lines / 20);
    CHECK(near_zero_active > 1000); /* the adversarial tiles were built */
}

/* The measurement on synthetic data: no false negatives, predicted never
 * above actual, 4 regions predict at least as well as 1 (Fig. 12's claim),
 * and 1D predict beats 2D. */
TEST(mpt_predict_measurement)
{
    mpt_measure_setup ms = mpt_measure_default();
    ms.batch = 2;
    mpt_predict_measure r[3];
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_predict_measure_run(&ms, r, &err), DNP_OK);
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(r[k].false_negatives, 0);
        CHECK(r[k].tile_predicted <= r[k].tile_actual);
        CHECK(r[k].line_predicted <= r[k].line_actual);
        CHECK(r[k].tile_actual > 0.05 && r[k].tile_actual < 0.95);
    }
    CHECK(r[2].tile_predicted >= r[0].tile_predicted);
    CHECK(r[2].line_predicted > r[2].tile_predicted);
    CHECK(r[2].tile_predicted > 0.0);
    CHECK(r[2].zero_values_2d > 0.0 && r[2].zero_values_2d < 1.0);
}

/* The trained layer act_digits.c holds (scripts/mpt-digits-train.py):
 * 64 held-out digits of 8x8 pixels in 0..16 (the UCI data's range), 1 ->
 * 32 -> 32 channels, a trained network (test accuracy recorded, above
 * chance); its measurement has no false negative, predicts something,
 * and every share lies in [0, 1] in the orders that must hold (predicted
 * <= actual inactive units; an all-zero tile has all-zero lines). */
TEST(mpt_digits_layer_measured)
{
    const mpt_trained_layer *t = mpt_digits_layer();
    CHECK_EQ_INT(t->batch, 64);
    CHECK_EQ_INT(t->size, 8);
    CHECK_EQ_INT(t->first_c, 1);
    CHECK_EQ_INT(t->in_c, 32);
    CHECK_EQ_INT(t->out_c, 32);
    CHECK(t->test_accuracy > 0.9 && t->test_accuracy <= 1.0);
    int max_px = 0;
    for (int k = 0; k < t->batch * t->size * t->size; k++)
        max_px = t->img[k] > max_px ? t->img[k] : max_px;
    CHECK_EQ_INT(max_px, 16);
    mpt_predict_measure r[3];
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_predict_measure_trained(t, r, &err), DNP_OK);
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(r[k].regions, 1 << k);
        CHECK(r[k].false_negatives == 0);
        CHECK(r[k].tile_predicted > 0 && r[k].tile_predicted <= r[k].tile_actual);
        CHECK(r[k].line_predicted > 0 && r[k].line_predicted <= r[k].line_actual);
        CHECK(r[k].zero_tiles_2d <= r[k].zero_lines_1d);
    }
    /* the values docs/mpt.md and the goldens quote (4 regions) */
    CHECK_NEAR(r[2].tile_actual, 0.269, 0, 0.0005);
    CHECK_NEAR(r[2].tile_predicted, 0.183, 0, 0.0005);
    CHECK_NEAR(r[2].line_predicted, 0.345, 0, 0.0005);
    CHECK_NEAR(r[2].zero_values_2d, 0.142, 0, 0.0005);
}

/* Our shares (the default of `dnnpar mpt`) come from the measurement on
 * the trained digits layer and say so; an all-zero input tile has all its
 * lines and values zero, so the backward-gather shares are ordered; the
 * paper's shares are Sec. V-B's figures and are marked as the paper's. */
TEST(mpt_prediction_shares_sources)
{
    mpt_predict_measure r[3];
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_predict_measure_trained(mpt_digits_layer(), r, &err), DNP_OK);
    mpt_cuts ours, want = mpt_cuts_measured(&r[2]);
    CHECK_EQ_INT(mpt_cuts_ours(&ours, &err), DNP_OK);
    CHECK_EQ_INT(ours.from_paper, 0);
    CHECK(ours.gather_2d == want.gather_2d && ours.gather_1d == want.gather_1d);
    CHECK(ours.gather_bwd_2d == r[2].zero_tiles_2d && ours.gather_bwd_1d == r[2].zero_lines_1d);
    CHECK(ours.scatter_2d == want.scatter_2d);
    CHECK(r[2].zero_tiles_2d > 0.0);
    CHECK(r[2].zero_tiles_2d <= r[2].zero_lines_1d);
    CHECK(r[2].zero_lines_1d <= r[2].zero_values_2d);
    /* nets of the code costs: 6/32 (2D), 5/32 (1D), 1/32 (zero map) */
    CHECK(fabs(ours.gather_1d - (r[2].line_predicted - 5.0 / 32)) < 1e-15);
    CHECK(fabs(ours.scatter_2d - (r[2].zero_values_2d - 1.0 / 32)) < 1e-15);
    mpt_cuts paper = mpt_cuts_paper();
    CHECK_EQ_INT(paper.from_paper, 1);
    CHECK(paper.gather_2d == 0.340 && paper.gather_1d == 0.781);
    CHECK(paper.scatter_2d == 0.393 && paper.scatter_1d == 0.647);
}
