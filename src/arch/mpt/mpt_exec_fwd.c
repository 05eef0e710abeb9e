/*
 * mpt_exec_fwd.c - the forward phases of an MPT step (Sec. III-C): tile
 * scattering of the input tiles to the groups, the per-element products
 * (Eq. 2), and tile gathering to the home worker for the inverse transform,
 * optionally with activation prediction (Sec. V-A, Fig. 11): codes first,
 * then the values of the units predicted active only.
 */
#include "arch/mpt/mpt_exec_int.h"

#include <math.h>

/* Elements [e0, e1) of group g. */
static void elem_range(const mpt_run *r, int g, int *e0, int *e1)
{
    *e0 = (int)((long long)r->g.elems * g / r->o->ng);
    *e1 = (int)((long long)r->g.elems * (g + 1) / r->o->ng);
}

/* Valid output columns of tile n (the rest falls outside the map). */
static int cols_valid(const mpt_run *r, int n)
{
    int tx = (n % r->g.tiles) % r->g.tiles_w, mw = r->s->tw->m;
    int left = r->g.out_w - tx * mw;
    return left < mw ? left : mw;
}
static int rows_valid(const mpt_run *r, int n)
{
    int ty = (n % r->g.tiles) / r->g.tiles_w, mh = r->s->th->m;
    int left = r->g.out_h - ty * mh;
    return left < mh ? left : mh;
}

/* Bytes worker w sent in the messages it just wrote (not to itself). */
static double sent_bytes(mpt_run *r, const mpt_worker *w)
{
    double b = 0;
    for (int d = 0; d < r->o->ng; d++)
        if (d != w->g)
            b += mpt_msg_bytes(mpt_run_msg(r, w->c, w->g, d));
    return b;
}

static void reset_out(mpt_run *r, const mpt_worker *w)
{
    for (int d = 0; d < r->o->ng; d++)
        mpt_msg_reset(mpt_run_msg(r, w->c, w->g, d));
}

void mpt_fwd_scatter(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    const mpt_wshape *s = r->s;
    float X[MPT_MAX_TILE * MPT_MAX_TILE];
    reset_out(r, w);
    for (int n = w->h0; n < w->h1; n++)
        for (int i = 0; i < s->in_c; i++) {
            mpt_tile_in(s, r->x, n, i, X, 1);
            for (int d = 0; d < r->o->ng; d++) {
                int e0, e1;
                elem_range(r, d, &e0, &e1);
                mpt_msg *m = mpt_run_msg(r, w->c, w->g, d);
                for (int e = e0; e < e1; e++) {
                    int skipped = mpt_msg_put(m, X[e], r->o->zero_skip);
                    if (d != w->g) {
                        w->scatter_values++;
                        w->skipped_values += skipped;
                    }
                }
            }
        }
    w->sent_scatter += sent_bytes(r, w);
}

void mpt_fwd_products(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    size_t I = (size_t)r->s->in_c, J = (size_t)r->s->out_c, rows = (size_t)(w->n1 - w->n0);
    mpt_run_gather(r, wi, w->X, I);
    for (int e = w->e0; e < w->e1; e++) {
        size_t k = (size_t)(e - w->e0);
        mpt_gemm_fwd(w->X + k * rows * I, r->W + (size_t)e * I * J, w->Y + k * rows * J,
                     (int)rows, (int)I, (int)J);
    }
}

/* The values worker w contributes to gather unit (n, j): its elements of
 * the output tile (2D), or in 1D mode its rows of the first inverse pass
 * (all m_w columns; the caller picks column k).  Returns the count. */
static int unit_values(const mpt_run *r, const mpt_worker *w, int n, int j, float *out)
{
    const mpt_wshape *s = r->s;
    size_t J = (size_t)s->out_c, rows = (size_t)(w->n1 - w->n0);
    int tw = s->tw->t, mw = s->tw->m;
    if (!r->one_d) {
        for (int e = w->e0; e < w->e1; e++)
            out[e - w->e0] =
                w->Y[((size_t)(e - w->e0) * rows + (size_t)(n - w->n0)) * J + (size_t)j];
        return w->e1 - w->e0;
    }
    float Yt[MPT_MAX_TILE * MPT_MAX_TILE], tmp[MPT_MAX_TILE * MPT_MAX_TILE];
    int u0 = w->e0 / tw, u1 = w->e1 / tw;
    for (int e = w->e0; e < w->e1; e++)
        Yt[e] = w->Y[((size_t)(e - w->e0) * rows + (size_t)(n - w->n0)) * J + (size_t)j];
    mpt_tile_out_rows(s, Yt, 1, u0, u1, tmp);
    for (int u = u0; u < u1; u++)
        for (int k = 0; k < mw; k++)
            out[(u - u0) * mw + k] = tmp[u * mw + k];
    return (u1 - u0) * mw;
}

/* Calls `each(r, w, dst, n, j, k, vals, count)` for every gather unit the
 * worker contributes to, in message order: home, tile, channel, column. */
typedef void (*unit_fn)(mpt_run *r, mpt_worker *w, int dst, int n, int j, int k,
                        const float *vals, int count);

static void for_each_unit(mpt_run *r, mpt_worker *w, unit_fn each)
{
    int mw = r->s->tw->m, u_rows = (w->e1 - w->e0) / r->s->tw->t;
    float vals[MPT_MAX_TILE * MPT_MAX_TILE], col[MPT_MAX_TILE];
    for (int d = 0; d < r->o->ng; d++) {
        const mpt_worker *h = mpt_run_worker(r, d, w->c);
        for (int n = h->h0; n < h->h1; n++)
            for (int j = 0; j < r->s->out_c; j++) {
                int cnt = unit_values(r, w, n, j, vals);
                if (!r->one_d) {
                    each(r, w, d, n, j, 0, vals, cnt);
                    continue;
                }
                for (int k = 0; k < cols_valid(r, n); k++) {
                    for (int u = 0; u < u_rows; u++)
                        col[u] = vals[u * mw + k];
                    each(r, w, d, n, j, k, col, u_rows);
                }
            }
    }
}

static void add_sigma(mpt_run *r, mpt_worker *w, int dst, int n, int j, int k, const float *v,
                      int count)
{
    (void)r, (void)dst, (void)n, (void)j, (void)k;
    for (int q = 0; q < count; q++) {
        w->sum += v[q];
        w->sum2 += (double)v[q] * v[q];
    }
    w->count += count;
}

void mpt_fwd_sigma(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    w->sum = w->sum2 = 0;
    w->count = 0;
    for_each_unit(r, w, add_sigma);
}

static void put_codes(mpt_run *r, mpt_worker *w, int dst, int n, int j, int k, const float *v,
                      int count)
{
    (void)n, (void)j, (void)k;
    mpt_msg *m = mpt_run_msg(r, w->c, w->g, dst);
    m->code_bits = r->q.bits;
    for (int q = 0; q < count; q++)
        mpt_msg_put_code(m, mpt_quantize(&r->q, v[q]));
}

void mpt_fwd_send_codes(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    reset_out(r, w);
    for_each_unit(r, w, put_codes);
    w->sent_gather += sent_bytes(r, w);
}

/* Index of gather unit (n, j, k) in r->active. */
static size_t unit_index(const mpt_run *r, int n, int j, int k)
{
    return ((size_t)n * (size_t)r->s->out_c + (size_t)j) * (size_t)r->s->tw->m + (size_t)k;
}

void mpt_fwd_predict(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    const mpt_wshape *s = r->s;
    int tw = s->tw->t;
    long long units = 0;
    for (int n = w->h0; n < w->h1; n++)
        for (int j = 0; j < s->out_c; j++) {
            unsigned codes[MPT_MAX_TILE * MPT_MAX_TILE];
            int kmax = r->one_d ? cols_valid(r, n) : 1;
            for (int k = 0; k < kmax; k++) {
                for (int src = 0; src < r->o->ng; src++) {
                    const mpt_worker *g = mpt_run_worker(r, src, w->c);
                    mpt_msg *m = mpt_run_msg(r, w->c, src, w->g);
                    if (r->one_d)
                        for (int u = g->e0 / tw; u < g->e1 / tw; u++)
                            codes[u] = mpt_msg_get_code(m);
                    else
                        for (int e = g->e0; e < g->e1; e++)
                            codes[e] = mpt_msg_get_code(m);
                }
                int inactive = r->one_d
                                   ? mpt_predict_line(s, &r->q, codes, rows_valid(r, n), 0.0f)
                                   : mpt_predict_tile(s, &r->q, codes, rows_valid(r, n),
                                                      cols_valid(r, n), 0.0f);
                r->active[unit_index(r, n, j, k)] = (unsigned char)!inactive;
                w->predicted += inactive;
                w->actual += inactive; /* no false negatives: these are inactive */
                units++;
            }
        }
    w->units += units;
    /* The activity map (one bit per unit) goes back to every other group. */
    w->sent_gather += (double)units * (r->o->ng - 1) / 8.0;
}

static void put_values(mpt_run *r, mpt_worker *w, int dst, int n, int j, int k, const float *v,
                       int count)
{
    if (r->predict && !r->active[unit_index(r, n, j, k)])
        return;
    mpt_msg *m = mpt_run_msg(r, w->c, w->g, dst);
    for (int q = 0; q < count; q++)
        mpt_msg_put(m, v[q], 0);
}

void mpt_fwd_send_values(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    reset_out(r, w);
    for_each_unit(r, w, put_values);
    w->sent_gather += sent_bytes(r, w);
}

/* ReLU (or identity) on the outputs of column k of tile n, channel j; with
 * zero = 1 the column is known inactive and gets 0.  Returns 1 if every
 * output is <= 0. */
static int finish_column(mpt_run *r, int n, int j, int k, int zero)
{
    int b = n / r->g.tiles, ty = (n % r->g.tiles) / r->g.tiles_w, tx = n % r->g.tiles_w;
    int mh = r->s->th->m, mw = r->s->tw->m, all = 1;
    float *zc = r->z + ((size_t)b * (size_t)r->s->out_c + (size_t)j) * (size_t)r->g.out_h *
                           (size_t)r->g.out_w;
    for (int a = 0; a < rows_valid(r, n); a++) {
        float *p = &zc[(size_t)(ty * mh + a) * (size_t)r->g.out_w + (size_t)(tx * mw + k)];
        if (zero)
            *p = 0.0f;
        all &= !(*p > 0.0f);
        if (r->o->relu && !(*p > 0.0f))
            *p = 0.0f;
    }
    return all;
}

void mpt_fwd_inverse(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    const mpt_wshape *s = r->s;
    int tw = s->tw->t, mw = s->tw->m;
    float Yt[MPT_MAX_TILE * MPT_MAX_TILE], tmp[MPT_MAX_TILE * MPT_MAX_TILE];
    for (int n = w->h0; n < w->h1; n++)
        for (int j = 0; j < s->out_c; j++) {
            if (!r->one_d) {
                if (r->predict && !r->active[unit_index(r, n, j, 0)]) {
                    for (int k = 0; k < cols_valid(r, n); k++)
                        finish_column(r, n, j, k, 1);
                    continue;
                }
                for (int src = 0; src < r->o->ng; src++) {
                    const mpt_worker *g = mpt_run_worker(r, src, w->c);
                    mpt_msg *m = mpt_run_msg(r, w->c, src, w->g);
                    for (int e = g->e0; e < g->e1; e++)
                        Yt[e] = mpt_msg_get(m, 0);
                }
                mpt_tile_out_rows(s, Yt, 1, 0, s->th->t, tmp);
                int all = 1;
                for (int k = 0; k < cols_valid(r, n); k++) {
                    mpt_tile_out_col(s, tmp, n, j, k, r->z);
                    all &= finish_column(r, n, j, k, 0);
                }
                if (r->predict) {
                    w->actual += all;
                } else {
                    w->units++;
                    w->actual += all;
                }
                continue;
            }
            for (int k = 0; k < cols_valid(r, n); k++) {
                if (r->predict && !r->active[unit_index(r, n, j, k)]) {
                    finish_column(r, n, j, k, 1);
                    continue;
                }
                for (int src = 0; src < r->o->ng; src++) {
                    const mpt_worker *g = mpt_run_worker(r, src, w->c);
                    mpt_msg *m = mpt_run_msg(r, w->c, src, w->g);
                    for (int u = g->e0 / tw; u < g->e1 / tw; u++)
                        tmp[u * mw + k] = mpt_msg_get(m, 0);
                }
                mpt_tile_out_col(s, tmp, n, j, k, r->z);
                int all = finish_column(r, n, j, k, 0);
                w->actual += all;
                w->units += !r->predict;
            }
        }
}
