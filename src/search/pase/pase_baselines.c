/*
 * pase_baselines.c - the strategies the paper compares against (section
 * IV), expressed in the same configuration space and cost model:
 *   data parallelism   the batch dimension split p ways, nothing else;
 *                      when the batch does not divide p ways (or a device
 *                      would hold fewer than `cutoff` samples), the
 *                      largest allowed split below p, the other devices
 *                      idle (batch 100 on p = 8, cutoff 4: 5 ways; batch
 *                      4 on p = 8: 1 way, i.e. serial);
 *   OWT [5]            conv and the other layers data parallel, FC layers
 *                      and the loss split over their outputs (CNNs);
 *   GNMT [1]           LSTM layers on different devices, batch split on
 *                      the rest, other ops data parallel (RNNs);
 *   Mesh-TensorFlow [3] batch split m ways and the model dimensions
 *                      (vocabulary, feed-forward, heads) n ways, m * n = p,
 *                      the best mesh shape (Transformer).
 * A wanted split is rounded down to the largest allowed one.
 */
#include "search/pase/pase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The configuration of v with c[d] <= want[d] for every d and the largest
 * product (ties: the first in enumeration order).  want[d] = 1 keeps d
 * unsplit.  Configuration 0 (all ones) always qualifies. */
static int pick(const pase_problem *pb, int v, const int32_t *want)
{
    const pase_configs *c = &pb->cfg[v];
    int best = 0;
    double bp = 0.0;
    for (int i = 0; i < c->n; i++) {
        const int32_t *x = c->c + (size_t)i * (size_t)c->rank;
        double prod = 1.0;
        int ok = 1;
        for (int d = 0; d < c->rank && ok; d++) {
            ok = x[d] <= want[d];
            prod *= x[d];
        }
        if (ok && prod > bp) {
            bp = prod;
            best = i;
        }
    }
    return best;
}

static void want_ones(int32_t *w)
{
    for (int d = 0; d < ITER_MAX_RANK; d++)
        w[d] = 1;
}

void pase_data_parallel(const pase_problem *pb, int *cfg)
{
    for (int v = 0; v < pb->n_v; v++) {
        int32_t want[ITER_MAX_RANK];
        want_ones(want);
        if (pb->g->nest[v].batch_dim >= 0)
            want[pb->g->nest[v].batch_dim] = pb->par.p;
        cfg[v] = pick(pb, v, want);
    }
}

void pase_data_parallel_split(const pase_problem *pb, const int *cfg, int *lo, int *hi)
{
    *lo = *hi = 0;
    for (int v = 0; v < pb->n_v; v++) {
        int d = pb->g->nest[v].batch_dim;
        if (d < 0)
            continue;
        const pase_configs *c = &pb->cfg[v];
        int s = c->c[(size_t)cfg[v] * (size_t)c->rank + (size_t)d];
        if (*lo == 0 || s < *lo)
            *lo = s;
        if (s > *hi)
            *hi = s;
    }
    if (*lo == 0)
        *lo = *hi = 1;
}

static void owt(const pase_problem *pb, int *cfg)
{
    for (int v = 0; v < pb->n_v; v++) {
        const iter_nest *x = &pb->g->nest[v];
        int32_t want[ITER_MAX_RANK];
        want_ones(want);
        int model = (x->kind == ITER_FC || x->kind == ITER_SCE) && x->model_dim >= 0;
        if (model)
            want[x->model_dim] = pb->par.p;
        else if (x->batch_dim >= 0)
            want[x->batch_dim] = pb->par.p;
        cfg[v] = pick(pb, v, want);
    }
}

static void gnmt(const pase_problem *pb, int *cfg)
{
    for (int v = 0; v < pb->n_v; v++) {
        const iter_nest *x = &pb->g->nest[v];
        int32_t want[ITER_MAX_RANK];
        want_ones(want);
        if (x->kind == ITER_LSTM) {
            /* layers over devices (dim 0), the batch over the rest */
            int32_t layers = 1;
            for (int32_t l = 1; l <= pb->par.p && l <= x->dom[0]; l++)
                if (x->dom[0] % l == 0 && pb->par.p % l == 0)
                    layers = l;
            want[0] = layers;
            want[x->batch_dim] = pb->par.p / layers;
        } else if (x->batch_dim >= 0) {
            want[x->batch_dim] = pb->par.p;
        }
        cfg[v] = pick(pb, v, want);
    }
}

static void mesh(const pase_problem *pb, int m, int *cfg)
{
    int n = pb->par.p / m;
    for (int v = 0; v < pb->n_v; v++) {
        const iter_nest *x = &pb->g->nest[v];
        int32_t want[ITER_MAX_RANK];
        want_ones(want);
        if (x->batch_dim >= 0)
            want[x->batch_dim] = m;
        if (x->model_dim >= 0 && x->model_dim != x->batch_dim)
            want[x->model_dim] = n;
        cfg[v] = pick(pb, v, want);
    }
}

dnp_status pase_expert(const pase_problem *pb, int *cfg, char *buf, size_t len, dnp_error *err)
{
    int has_lstm = 0, has_einsum = 0;
    for (int v = 0; v < pb->n_v; v++) {
        has_lstm |= pb->g->nest[v].kind == ITER_LSTM;
        has_einsum |= pb->g->nest[v].kind == ITER_EINSUM;
    }
    if (has_lstm) {
        gnmt(pb, cfg);
        snprintf(buf, len, "gnmt");
        return DNP_OK;
    }
    if (!has_einsum) {
        owt(pb, cfg);
        snprintf(buf, len, "owt");
        return DNP_OK;
    }
    /* Mesh-TensorFlow: the best m x n = p, ties to the larger batch split */
    int *tmp = dnp_malloc((size_t)pb->n_v * sizeof(int));
    if (tmp == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory choosing the expert mesh");
        return DNP_ERR_NOMEM;
    }
    double best = -1.0;
    int best_m = pb->par.p;
    for (int m = pb->par.p; m >= 1; m--) {
        if (pb->par.p % m != 0)
            continue;
        mesh(pb, m, tmp);
        double f = pase_objective(pb, tmp);
        if (best < 0.0 || f < best) {
            best = f;
            best_m = m;
        }
    }
    dnp_free(tmp);
    mesh(pb, best_m, cfg);
    snprintf(buf, len, "mesh %dx%d", best_m, pb->par.p / best_m);
    return DNP_OK;
}
