/*
 * mpt_exec.c - one MPT training step of a Winograd layer on an Ng x Nc grid
 * of simulated workers: set-up, the sequence of phases (each a barrier),
 * the collection of results and traffic statistics.
 */
#include "arch/mpt/mpt_exec_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

mpt_exec_opts mpt_exec_default(int ng, int nc)
{
    mpt_exec_opts o = {ng, nc, 1, 1, 0, 0, mpt_quant_default(0), mpt_quant_default(1)};
    return o;
}

mpt_worker *mpt_run_worker(mpt_run *r, int g, int c) { return &r->w[c * r->o->ng + g]; }

mpt_msg *mpt_run_msg(mpt_run *r, int c, int src, int dst)
{
    return &r->msg[((size_t)c * (size_t)r->o->ng + (size_t)src) * (size_t)r->o->ng + (size_t)dst];
}

static void run_free(mpt_run *r)
{
    int P = r->o->ng * r->o->nc;
    if (r->w != NULL)
        for (int k = 0; k < P; k++) {
            dnp_free(r->w[k].X), dnp_free(r->w[k].Y), dnp_free(r->w[k].dY), dnp_free(r->w[k].dX);
            dnp_free(r->w[k].dW), dnp_free(r->w[k].ring_out);
        }
    if (r->msg != NULL)
        for (size_t k = 0; k < (size_t)P * (size_t)r->o->ng; k++)
            mpt_msg_free(&r->msg[k]);
    dnp_free(r->w), dnp_free(r->msg), dnp_free(r->z), dnp_free(r->dx), dnp_free(r->dy), dnp_free(r->dxt);
    dnp_free(r->active), dnp_free(r->dW);
}

static void *alloc0(size_t n, size_t size) { return dnp_calloc(n ? n : 1, size); }

/* Place the workers and allocate everything; 0 on allocation failure. */
static int run_alloc(mpt_run *r)
{
    const mpt_wshape *s = r->s;
    int ng = r->o->ng, nc = r->o->nc, P = ng * nc;
    size_t I = (size_t)s->in_c, J = (size_t)s->out_c, E = (size_t)r->g.elems;
    size_t N = (size_t)r->g.n, tiles = (size_t)r->g.tiles;
    r->w = alloc0((size_t)P, sizeof *r->w);
    r->msg = alloc0((size_t)P * (size_t)ng, sizeof *r->msg);
    if (r->w == NULL || r->msg == NULL)
        return 0;
    size_t home_max = 0, eg_max = 0;
    for (int c = 0; c < nc; c++)
        for (int g = 0; g < ng; g++) {
            mpt_worker *w = mpt_run_worker(r, g, c);
            w->g = g;
            w->c = c;
            w->e0 = (int)(E * (size_t)g / (size_t)ng);
            w->e1 = (int)(E * (size_t)(g + 1) / (size_t)ng);
            size_t b0 = (size_t)s->batch * (size_t)c / (size_t)nc;
            size_t b1 = (size_t)s->batch * (size_t)(c + 1) / (size_t)nc;
            w->n0 = (int)(b0 * tiles);
            w->n1 = (int)(b1 * tiles);
            size_t nt = (size_t)(w->n1 - w->n0);
            w->h0 = w->n0 + (int)(nt * (size_t)g / (size_t)ng);
            w->h1 = w->n0 + (int)(nt * (size_t)(g + 1) / (size_t)ng);
            size_t eg = (size_t)(w->e1 - w->e0), len = eg * I * J;
            home_max = (size_t)(w->h1 - w->h0) > home_max ? (size_t)(w->h1 - w->h0) : home_max;
            eg_max = eg > eg_max ? eg : eg_max;
            w->X = alloc0(eg * nt * I, sizeof *w->X);
            w->dX = alloc0(eg * nt * I, sizeof *w->dX);
            w->Y = alloc0(eg * nt * J, sizeof *w->Y);
            w->dY = alloc0(eg * nt * J, sizeof *w->dY);
            w->dW = alloc0(len, sizeof *w->dW);
            w->ring_out = alloc0(len / (size_t)nc + 1, sizeof *w->ring_out);
            if (!w->X || !w->dX || !w->Y || !w->dY || !w->dW || !w->ring_out)
                return 0;
        }
    size_t cap = home_max * (I > J ? I : J) * eg_max;
    for (size_t k = 0; k < (size_t)P * (size_t)ng; k++)
        if (!mpt_msg_init(&r->msg[k], cap))
            return 0;
    size_t ny = (size_t)s->batch * J * (size_t)r->g.out_h * (size_t)r->g.out_w;
    size_t nx = (size_t)s->batch * I * (size_t)s->in_h * (size_t)s->in_w;
    r->z = alloc0(ny, sizeof *r->z);
    r->dy = alloc0(ny, sizeof *r->dy);
    r->dx = alloc0(nx, sizeof *r->dx);
    r->dxt = alloc0(N * I * E, sizeof *r->dxt);
    r->active = alloc0(N * J * (size_t)s->tw->m, 1);
    r->dW = alloc0(E * I * J, sizeof *r->dW);
    return r->z && r->dy && r->dx && r->dxt && r->active && r->dW;
}

static dnp_status check(const mpt_wshape *s, const mpt_exec_opts *o, dnp_error *err)
{
    dnp_status st = mpt_wshape_check(s, err);
    if (st != DNP_OK)
        return st;
    mpt_wgeom g;
    mpt_wgeom_get(s, &g);
    if (o->ng < 1 || o->nc < 1 || o->ng > g.elems) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "MPT grid %dx%d: need 1 <= groups <= %d tile elements and clusters >= 1",
                      o->ng, o->nc, g.elems);
        return DNP_ERR_INPUT;
    }
    if (o->predict && !o->relu) {
        dnp_error_set(err, DNP_ERR_INPUT, "MPT run: activation prediction needs a ReLU");
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

/* Every group's elements are whole tile rows (1D mode). */
static int whole_rows(const mpt_run *r)
{
    if (r->o->ng < 2)
        return 0;
    for (int g = 0; g < r->o->ng; g++) {
        const mpt_worker *w = &r->w[g];
        if (w->e0 % r->s->tw->t != 0 || w->e1 % r->s->tw->t != 0)
            return 0;
    }
    return 1;
}

/* sigma of the gathered values from the workers' partial sums, in worker
 * order, then the quantizer. */
static dnp_status make_quantizer(mpt_run *r, dnp_error *err)
{
    double sum = 0, sum2 = 0, cnt = 0;
    for (int k = 0; k < r->o->ng * r->o->nc; k++) {
        sum += r->w[k].sum;
        sum2 += r->w[k].sum2;
        cnt += (double)r->w[k].count;
    }
    double mean = cnt > 0 ? sum / cnt : 0, var = cnt > 0 ? sum2 / cnt - mean * mean : 0;
    return mpt_quantizer_make(r->one_d ? &r->o->quant1d : &r->o->quant2d,
                              var > 0 ? sqrt(var) : 0.0, &r->q, err);
}

static void collect_stats(const mpt_run *r, mpt_exec_stats *st)
{
    memset(st, 0, sizeof *st);
    st->one_d = r->one_d;
    for (int k = 0; k < r->o->ng * r->o->nc; k++) {
        const mpt_worker *w = &r->w[k];
        st->scatter_bytes_max = fmax(st->scatter_bytes_max, w->sent_scatter);
        st->gather_bytes_max = fmax(st->gather_bytes_max, w->sent_gather);
        st->ring_bytes_max = fmax(st->ring_bytes_max, w->sent_ring);
        st->scatter_bytes_total += w->sent_scatter;
        st->gather_bytes_total += w->sent_gather;
        st->ring_bytes_total += w->sent_ring;
        st->scatter_values += w->scatter_values;
        st->skipped_values += w->skipped_values;
        st->gather_units += w->units;
        st->predicted_inactive += w->predicted;
        st->actual_inactive += w->actual;
    }
}

/* The reduced weight gradient from cluster 0; every cluster must hold the
 * same bits after the all-gather. */
static dnp_status collect_dw(mpt_run *r, dnp_error *err)
{
    size_t IJ = (size_t)r->s->in_c * (size_t)r->s->out_c;
    for (int g = 0; g < r->o->ng; g++) {
        const mpt_worker *w0 = mpt_run_worker(r, g, 0);
        size_t len = (size_t)(w0->e1 - w0->e0) * IJ;
        memcpy(r->dW + (size_t)w0->e0 * IJ, w0->dW, sizeof *r->dW * len);
        for (int c = 1; c < r->o->nc; c++)
            if (memcmp(mpt_run_worker(r, g, c)->dW, w0->dW, sizeof *r->dW * len) != 0) {
                dnp_error_set(err, DNP_ERR_INTERNAL,
                              "MPT run: group %d's clusters disagree after the all-reduce", g);
                return DNP_ERR_INTERNAL;
            }
    }
    return DNP_OK;
}

dnp_status mpt_exec_step(const mpt_wshape *s, const float *x, const float *W, const float *dz,
                         const mpt_exec_opts *o, float *z, float *dx, float *dW,
                         mpt_exec_stats *st, dnp_error *err)
{
    dnp_status rc = check(s, o, err);
    if (rc != DNP_OK)
        return rc;
    mpt_run r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.o = o;
    r.x = x;
    r.W = W;
    r.dz = dz;
    mpt_wgeom_get(s, &r.g);
    if (!run_alloc(&r)) {
        run_free(&r);
        dnp_error_set(err, DNP_ERR_NOMEM, "MPT run: out of memory for a %dx%d grid", o->ng,
                      o->nc);
        return DNP_ERR_NOMEM;
    }
    r.one_d = whole_rows(&r);
    r.predict = o->predict && o->ng > 1;
    int P = o->ng * o->nc, T = o->threads;
    rc = mpt_parallel_for(&r, mpt_fwd_scatter, P, T, err);
    if (rc == DNP_OK)
        rc = mpt_parallel_for(&r, mpt_fwd_products, P, T, err);
    if (rc == DNP_OK && r.predict) {
        rc = mpt_parallel_for(&r, mpt_fwd_sigma, P, T, err);
        if (rc == DNP_OK)
            rc = make_quantizer(&r, err);
        if (rc == DNP_OK)
            rc = mpt_parallel_for(&r, mpt_fwd_send_codes, P, T, err);
        if (rc == DNP_OK)
            rc = mpt_parallel_for(&r, mpt_fwd_predict, P, T, err);
    }
    static const mpt_worker_fn later[] = {mpt_fwd_send_values, mpt_fwd_inverse,
                                          mpt_bwd_scatter,     mpt_bwd_products,
                                          mpt_bwd_send,        mpt_bwd_receive,
                                          mpt_bwd_overlap_add};
    for (size_t k = 0; k < sizeof later / sizeof later[0] && rc == DNP_OK; k++)
        rc = mpt_parallel_for(&r, later[k], P, T, err);
    for (int step = 0; step < 2 * (o->nc - 1) && rc == DNP_OK; step++) {
        r.ring_step = step;
        rc = mpt_parallel_for(&r, mpt_ring_put, P, T, err);
        if (rc == DNP_OK)
            rc = mpt_parallel_for(&r, step < o->nc - 1 ? mpt_ring_take_reduce
                                                       : mpt_ring_take_gather,
                                  P, T, err);
    }
    if (rc == DNP_OK)
        rc = collect_dw(&r, err);
    if (rc == DNP_OK) {
        size_t ny = (size_t)s->batch * (size_t)s->out_c * (size_t)r.g.out_h * (size_t)r.g.out_w;
        size_t nx = (size_t)s->batch * (size_t)s->in_c * (size_t)s->in_h * (size_t)s->in_w;
        memcpy(z, r.z, sizeof *z * ny);
        memcpy(dx, r.dx, sizeof *dx * nx);
        memcpy(dW, r.dW, sizeof *dW * (size_t)r.g.elems * (size_t)s->in_c * (size_t)s->out_c);
        if (st != NULL)
            collect_stats(&r, st);
    }
    run_free(&r);
    return rc;
}

void mpt_run_gather(mpt_run *r, int wi, float *dst, size_t width)
{
    mpt_worker *w = &r->w[wi];
    size_t rows = (size_t)(w->n1 - w->n0);
    for (int src = 0; src < r->o->ng; src++) {
        const mpt_worker *h = mpt_run_worker(r, src, w->c);
        mpt_msg *m = mpt_run_msg(r, w->c, src, w->g);
        for (int n = h->h0; n < h->h1; n++)
            for (size_t k = 0; k < width; k++)
                for (int e = w->e0; e < w->e1; e++)
                    dst[((size_t)(e - w->e0) * rows + (size_t)(n - w->n0)) * width + k] =
                        mpt_msg_get(m, r->o->zero_skip);
    }
}
