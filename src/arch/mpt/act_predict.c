/*
 * act_predict.c - non-uniform quantization of Winograd-domain values
 * (Fig. 10) and conservative activation prediction through the inverse
 * transform (Sec. V-A, Fig. 11): a unit is predicted inactive only if the
 * upper end of an interval that surely contains every neuron it produces
 * is below zero.
 */
#include "arch/mpt/mpt_predict.h"

#include <math.h>

mpt_quant_params mpt_quant_default(int one_d)
{
    mpt_quant_params p = {one_d ? 5 : 6, 4, 3.0};
    return p;
}

dnp_status mpt_quantizer_make(const mpt_quant_params *p, double sigma, mpt_quantizer *q,
                              dnp_error *err)
{
    if (p->bits < 2 || p->bits > 16 || p->regions < 1 ||
        ((1 << (p->bits - 1)) % p->regions) != 0 || (1 << (p->bits - 1)) / p->regions < 2 ||
        !(p->range_sigmas > 0)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "quantizer: %d bits in %d regions (range %g sigma) is not a valid "
                      "non-uniform quantizer",
                      p->bits, p->regions, p->range_sigmas);
        return DNP_ERR_INPUT;
    }
    mpt_quantizer r;
    r.bits = p->bits;
    r.regions = p->regions;
    r.steps = (1 << (p->bits - 1)) / p->regions;
    /* top / delta = K 2^R - K - 2^(R-1): the start of the overflow code */
    double top_units = (double)r.steps * ldexp(1.0, r.regions) - r.steps -
                       ldexp(1.0, r.regions - 1);
    int e = -120;
    if (isfinite(sigma) && sigma > 0) {
        e = (int)ceil(log2(p->range_sigmas * sigma / top_units));
        e = e < -120 ? -120 : e > 120 ? 120 : e;
    }
    r.delta_log2 = e;
    r.top = ldexp(top_units, e);
    *q = r;
    return DNP_OK;
}

/* Start of region k's magnitudes, in units of delta: K (2^k - 1). */
static double region_base(const mpt_quantizer *q, int k)
{
    return (double)q->steps * (ldexp(1.0, k) - 1.0);
}

unsigned mpt_quantize(const mpt_quantizer *q, float v)
{
    unsigned sign = (signbit(v) && !isnan(v)) ? 1u : 0u;
    unsigned overflow = (unsigned)(q->steps * q->regions - 1);
    double a = fabs((double)v);
    unsigned mag;
    if (isnan(v) || a >= q->top) {
        mag = overflow;
    } else {
        double units = ldexp(a, -q->delta_log2); /* exact: scaling by a power of two */
        int k = 0;
        while (k + 1 < q->regions && units >= region_base(q, k + 1))
            k++;
        /* exact: units and the base are short binary fractions */
        double o = floor(ldexp(units - region_base(q, k), -k));
        mag = (unsigned)(k * q->steps) + (unsigned)o;
    }
    return (sign << (q->bits - 1)) | mag;
}

void mpt_code_interval(const mpt_quantizer *q, unsigned code, double *lo, double *hi)
{
    unsigned mag = code & ((1u << (q->bits - 1)) - 1u);
    int neg = (code >> (q->bits - 1)) & 1u;
    double a, b;
    if (mag == (unsigned)(q->steps * q->regions - 1)) {
        a = q->top;
        b = INFINITY;
    } else {
        int k = (int)mag / q->steps, o = (int)mag % q->steps;
        a = ldexp(region_base(q, k) + ldexp((double)o, k), q->delta_log2);
        b = ldexp(region_base(q, k) + ldexp((double)(o + 1), k), q->delta_log2);
    }
    *lo = neg ? -b : a;
    *hi = neg ? -a : b;
}

/* An interval with the magnitude bound M >= |every value in it|. */
typedef struct {
    double lo, hi, mag;
} ival;

/* out = sum_k c_k in_k over the non-zero coefficients: the lower end takes
 * c lo for c > 0 and c hi for c < 0, the upper end the opposite. */
static ival combine(const double *c, size_t c_stride, const ival *in, size_t in_stride, int n)
{
    ival r = {0.0, 0.0, 0.0};
    for (int k = 0; k < n; k++) {
        double ck = c[(size_t)k * c_stride];
        if (ck == 0.0)
            continue;
        const ival *v = &in[(size_t)k * in_stride];
        r.lo += ck > 0 ? ck * v->lo : ck * v->hi;
        r.hi += ck > 0 ? ck * v->hi : ck * v->lo;
        r.mag += fabs(ck) * v->mag;
    }
    return r;
}

static ival from_code(const mpt_quantizer *q, unsigned code)
{
    ival v;
    mpt_code_interval(q, code, &v.lo, &v.hi);
    v.mag = fmax(fabs(v.lo), fabs(v.hi));
    return v;
}

/* Depth of the layer's own float inverse pass over t terms (wino.h). */
static int inv_depth(const mpt_transform *tf) { return tf->t + (tf->coeffs_exact ? 0 : 1); }

/* y + bias surely below zero: upper + margin < 0, where the margin covers
 * the float rounding of the layer's inverse transform (depth k, gamma32),
 * of its bias addition (one more rounding, over |y| + |bias|) and of this
 * double computation (generously 1e-12 relative). */
static int surely_negative(ival y, int k, float bias)
{
    double mag = y.mag, hi = y.hi;
    if (bias != 0.0f) {
        k += 1;
        mag += fabs((double)bias);
        hi += (double)bias;
    }
    double margin = (mpt_gamma32(k) + 1e-12) * mag;
    return hi + margin < 0.0; /* false for NaN or infinite ends */
}

int mpt_predict_tile(const mpt_wshape *s, const mpt_quantizer *q, const unsigned *codes,
                     int rows_valid, int cols_valid, float bias)
{
    int th = s->th->t, tw = s->tw->t, mw = s->tw->m;
    ival Y[MPT_MAX_TILE * MPT_MAX_TILE], tmp[MPT_MAX_TILE * MPT_MAX_TILE];
    for (int e = 0; e < th * tw; e++)
        Y[e] = from_code(q, codes[e]);
    /* first pass: tmp[u][k] = sum_v Y[u][v] A_w[v][k] (A_w[v][k] = at[k][v]) */
    for (int u = 0; u < th; u++)
        for (int k = 0; k < mw; k++)
            tmp[u * mw + k] = combine(&s->tw->at[k * tw], 1, &Y[u * tw], 1, tw);
    int depth = inv_depth(s->th) + inv_depth(s->tw);
    for (int a = 0; a < rows_valid; a++)
        for (int k = 0; k < cols_valid; k++) {
            ival y = combine(&s->th->at[a * th], 1, &tmp[k], (size_t)mw, th);
            if (!surely_negative(y, depth, bias))
                return 0;
        }
    return 1;
}

int mpt_predict_line(const mpt_wshape *s, const mpt_quantizer *q, const unsigned *codes,
                     int rows_valid, float bias)
{
    int th = s->th->t;
    ival col[MPT_MAX_TILE];
    for (int u = 0; u < th; u++)
        col[u] = from_code(q, codes[u]);
    for (int a = 0; a < rows_valid; a++) {
        ival y = combine(&s->th->at[a * th], 1, col, 1, th);
        if (!surely_negative(y, inv_depth(s->th), bias))
            return 0;
    }
    return 1;
}
