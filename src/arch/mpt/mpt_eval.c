/*
 * mpt_eval.c - the six configurations of Table IV on a layer and on a
 * network, with dynamic clustering (Sec. IV): per layer (or per
 * Winograd-domain join) the grid among the allowed group counts with the
 * least forward plus backward time (or, with sys->dyn_by_comm, the paper's
 * criterion: the least communication time, tile transfer plus weight
 * all-reduce).  Every grid runs on the links it really has
 * (mpt_rings_for): a single group transfers no tiles, so all its full links
 * are rings.
 */
#include "arch/mpt/mpt_model.h"

#include <stdlib.h>
#include <string.h>

/* How configuration cfg runs a Winograd layer. */
typedef struct {
    int direct, predict, dynamic, ng;
} plan;

int mpt_rings_for(const mpt_hw *hw, int ng)
{
    /* Sec. VII-B: data parallelism uses all four full links as rings; MPT
     * gives half of them to the rings and half to the flattened butterfly.
     * With one group there is no tile transfer, so every link is a ring. */
    int half = hw->full_links / 2;
    return ng <= 1 ? hw->full_links : (half > 0 ? half : 1);
}

static plan plan_of(mpt_config cfg, const mpt_sys *sys)
{
    plan p = {0, 0, 0, sys->fixed_ng};
    switch (cfg) {
    case MPT_D_DP:
        p.direct = 1;
        p.ng = 1;
        break;
    case MPT_W_DP:
        p.ng = 1;
        break;
    case MPT_W_MP_P:
        p.predict = 1;
        break;
    case MPT_W_MP_S:
        p.dynamic = 1;
        break;
    case MPT_W_MP_PS:
        p.predict = p.dynamic = 1;
        break;
    default:
        break;
    }
    return p;
}

/* What dynamic clustering minimises for layer l on ng groups: the layer's
 * forward plus backward time, or with sys->dyn_by_comm tile transfer plus
 * all-reduce time (Sec. IV); -1 if the grid does not fit. */
static double comm_time(const mpt_layer *l, const mpt_sys *sys, int ng, const plan *p)
{
    mpt_layer_time t;
    dnp_error err = {0};
    if (mpt_layer_time_grid(l, sys, ng, 0, p->predict, mpt_rings_for(&sys->hw, ng), &t, &err) !=
        DNP_OK)
        return -1.0;
    return sys->dyn_by_comm ? t.tile_s + t.ring_s : t.fwd_s + t.bwd_s;
}

/* The allowed group count with the least summed criterion over
 * layers[0..n) (ties to the earlier choice); 0 if none fits. */
static int best_grid(const mpt_layer *const *layers, int n, const mpt_sys *sys, const plan *p)
{
    int best = 0;
    double best_t = 0;
    for (int k = 0; k < sys->n_choices; k++) {
        double sum = 0;
        int ok = 1;
        for (int i = 0; i < n && ok; i++) {
            double t = comm_time(layers[i], sys, sys->choices[k], p);
            ok = t >= 0;
            sum += t;
        }
        if (ok && (best == 0 || sum < best_t)) {
            best = sys->choices[k];
            best_t = sum;
        }
    }
    return best;
}

/* Evaluate l with plan p on `ng` groups (0: choose dynamically for l alone). */
static dnp_status eval_with(const mpt_layer *l, const mpt_sys *sys, const plan *p, int ng,
                            mpt_layer_time *out, dnp_error *err)
{
    if (p->direct || l->fc || !l->wino)
        return mpt_layer_time_grid(l, sys, 1, 1, 0, mpt_rings_for(&sys->hw, 1), out, err);
    if (ng == 0)
        ng = p->dynamic ? best_grid(&l, 1, sys, p) : p->ng;
    if (ng == 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "layer '%s': no allowed group count fits its tile",
                      l->name);
        return DNP_ERR_INPUT;
    }
    return mpt_layer_time_grid(l, sys, ng, 0, p->predict, mpt_rings_for(&sys->hw, ng), out, err);
}

dnp_status mpt_layer_eval(const mpt_layer *l, const mpt_sys *sys, mpt_config cfg,
                          mpt_layer_time *out, dnp_error *err)
{
    dnp_status st = mpt_sys_check(sys, err);
    if (st != DNP_OK)
        return st;
    plan p = plan_of(cfg, sys);
    return eval_with(l, sys, &p, 0, out, err);
}

/* For a fixed grid that a layer's tile cannot hold (more groups than
 * elements), the layer runs on the largest allowed group count that fits. */
static int fitting_fixed(const mpt_layer *l, const mpt_sys *sys, const plan *p)
{
    if (comm_time(l, sys, p->ng, p) >= 0)
        return p->ng;
    int best = 0;
    for (int k = 0; k < sys->n_choices; k++)
        if (sys->choices[k] > best && comm_time(l, sys, sys->choices[k], p) >= 0)
            best = sys->choices[k];
    return best;
}

dnp_status mpt_net_eval(const mpt_net *net, const mpt_sys *sys, mpt_config cfg,
                        mpt_net_time *out, mpt_layer_time *per_layer, dnp_error *err)
{
    dnp_status st = mpt_sys_check(sys, err);
    if (st != DNP_OK)
        return st;
    plan p = plan_of(cfg, sys);
    int nj = net->n_joins > 0 ? net->n_joins : 0;
    int *join_ng = dnp_calloc((size_t)nj + 1, sizeof *join_ng);
    const mpt_layer **members = dnp_malloc(sizeof *members * ((size_t)net->n + 1));
    if (join_ng == NULL || members == NULL) {
        dnp_free(join_ng);
        dnp_free(members);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory timing '%s'", net->name);
        return DNP_ERR_NOMEM;
    }
    /* Joined convs share their tiling, so one grid per join. */
    for (int j = 0; j < nj && !p.direct; j++) {
        int n = 0;
        for (int i = 0; i < net->n; i++)
            if (net->layers[i].join_id == j)
                members[n++] = &net->layers[i];
        join_ng[j] = p.dynamic ? best_grid(members, n, sys, &p)
                               : (n > 0 ? fitting_fixed(members[0], sys, &p) : 0);
    }
    mpt_net_time t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < net->n && st == DNP_OK; i++) {
        const mpt_layer *l = &net->layers[i];
        int ng = 0;
        if (!p.direct && l->wino && !l->fc)
            ng = l->join_id >= 0 ? join_ng[l->join_id]
                                 : (p.dynamic ? 0 : fitting_fixed(l, sys, &p));
        if (!p.direct && l->wino && !l->fc && ng == 0 && (!p.dynamic || l->join_id >= 0)) {
            dnp_error_set(err, DNP_ERR_INPUT, "layer '%s': no allowed group count fits its tile",
                          l->name);
            st = DNP_ERR_INPUT;
            break;
        }
        mpt_layer_time lt;
        st = eval_with(l, sys, &p, ng, &lt, err);
        if (st != DNP_OK)
            break;
        if (per_layer != NULL)
            per_layer[i] = lt;
        t.fwd_s += lt.fwd_s;
        t.bwd_s += lt.bwd_s;
        t.weight_bytes += lt.weight_bytes;
        t.tile_bytes += lt.tile_bytes;
        if (lt.th > 0)
            for (int k = 0; k < sys->n_choices; k++)
                t.grid_counts[k] += sys->choices[k] == lt.ng;
    }
    t.total_s = t.fwd_s + t.bwd_s;
    dnp_free(join_ng);
    dnp_free(members);
    if (st == DNP_OK)
        *out = t;
    return st;
}
