/*
 * pase_cross.c - the levels of a type split that separate device types,
 * refined in the step simulator (docs/pase.md "The type level, refined in
 * the step simulator").
 *
 * pase_hetero.c chooses each type's share of the batch and its group's
 * plan; each group's plan is searched at its own share, so the shares it
 * tries are the ones where the group's PaSE plan is good (a batch of 90
 * on 8 devices splits unevenly, and PaSE's plan there is worse than at
 * 88).  The simulator does not need that: a dnnpar strategy gives each
 * half of a level the fraction `ratio` of the split dimension, whole
 * samples or not, as AccPar's ratio does (AccPar sec. 4.2, Eq. 10).  Two
 * choices remain at the type level once the groups' plans are fixed:
 *
 *   shares  each type's samples, moved in whole samples between types
 *           (steps batch/16, /32, ... 1) with the plans kept: the ratio
 *           AccPar's search balances continuously;
 *   types   per decided op, the dimension the type level splits: the
 *           batch (Type-I, as the share search assumes), the input
 *           (Type-II) or the output (Type-III) of a weighted layer, the
 *           batch or the channel of a join.  This is AccPar's per-layer
 *           choice at its first level (sec. 3.2, Tables 4-5), taken here
 *           on top of the groups' PaSE plans: a fully connected layer
 *           split by output across the types exchanges its activations
 *           instead of all-reducing its weight gradient between them.
 *
 * Both, and the arrangement of each group's multi-dimension splits over its
 * levels (pase_level_dims), are searched by coordinate descent on the
 * simulated step: every move that makes the step strictly faster is kept,
 * rounds of shares, types and arrangements until a round finds none (at
 * most PASE_CROSS_ROUNDS).  The result
 * is a local optimum of the simulated step in that neighbourhood (every
 * single move no faster), not a global one; it is never slower than the
 * share search's choice it starts from.
 */
#include "search/pase/pase_driver.h"
#include "model/row_ops.h"

#include <math.h>
#include <string.h>

#define PASE_CROSS_ROUNDS 4

/* What the descent shares. */
typedef struct {
    dnp_pase_run *r;
    const dnp_graph *g;
    double best_s;
    int judged;
} cross_ctx;

/* Simulate the run as it stands; keep it if strictly faster than the best
 * (*kept = 1), else leave the best alone (the caller undoes its move). */
static dnp_status try_move(cross_ctx *x, int *kept, dnp_error *err)
{
    double s;
    dnp_status st = pase_run_simulated_s(x->r, &s, err);
    x->judged++;
    *kept = st == DNP_OK && s < x->best_s;
    if (*kept)
        x->best_s = s;
    return st;
}

/* Shares: move d samples from one group to another, plans kept, for d =
 * batch/16 .. 1 halving; a group that has a plan keeps at least one
 * sample (a group with none has no plan to give it).  *moved = 1 if any
 * move was kept.  O(rounds x groups^2 x log batch simulations). */
static dnp_status descend_shares(cross_ctx *x, int *moved, dnp_error *err)
{
    pase_hetero_result *h = &x->r->het;
    int64_t batch = x->r->pp->batch;
    for (int64_t d = batch / 16 > 1 ? batch / 16 : 1; d >= 1; d /= 2) {
        int again = 1;
        while (again) {
            again = 0;
            for (int i = 0; i < h->n_groups; i++)
                for (int j = 0; j < h->n_groups; j++) {
                    pase_hetero_group *from = &h->grp[i], *to = &h->grp[j];
                    if (i == j || from->g == NULL || to->g == NULL || from->batch - d < 1)
                        continue;
                    from->batch -= d;
                    to->batch += d;
                    int kept;
                    dnp_status st = try_move(x, &kept, err);
                    if (st != DNP_OK)
                        return st;
                    if (!kept) {
                        from->batch += d;
                        to->batch -= d;
                    }
                    again |= kept;
                    *moved |= kept;
                }
        }
    }
    return DNP_OK;
}

/* Types: for each decided op of the core graph in order, each other state
 * (weighted layers: batch, input, output; LSTMs batch only (layer_table.c);
 * joins: batch, channel).  Under the default model the op a softmax, layer
 * norm or LRN reads its row from keeps its output channels whole: no
 * output (Type-III) or channel state (model/row_ops.h, pase_rows.c).
 * *moved = 1 if any was kept.  O(ops x (2 simulations + ops)). */
static dnp_status descend_types(cross_ctx *x, int *moved, dnp_error *err)
{
    unsigned char *cross = x->r->cross;
    for (int i = 0; i < dnp_graph_n_ops(x->g); i++) {
        const dnp_op *op = dnp_graph_op(x->g, i);
        int states = dnp_op_is_weighted(op) ? (op->kind == DNP_OP_LSTM ? 1 : 3)
                     : dnp_op_is_join(op)   ? 2
                                            : 1;
        /* the state that splits the output channels: Type-III, a join's channel */
        int channel_state = dnp_op_is_weighted(op) ? 2 : 1;
        int keep_row = x->r->pp->opt.cost_model == DNP_COST_DEFAULT && !x->r->pp->opt.split_rows &&
                       row_op_keeps_channels(x->g, i);
        unsigned char was = cross[i];
        for (unsigned char s = 0; s < states; s++) {
            if (s == was || (keep_row && s == channel_state))
                continue;
            unsigned char before = cross[i];
            cross[i] = s;
            int kept;
            dnp_status st = try_move(x, &kept, err);
            if (st != DNP_OK)
                return st;
            if (!kept)
                cross[i] = before;
            *moved |= kept;
        }
    }
    return DNP_OK;
}

/* gr's text for vertex v: "(b,c,...)", then its arrangement's levels. */
static void group_text(pase_hetero_group *gr, int v, const long *split, int nd)
{
    char *close = strchr(gr->cfg_text[v], ')');
    if (close != NULL)
        close[1] = '\0';
    pase_levels_text(&gr->g->nest[v], split, nd, gr->order != NULL ? gr->order[v] : 0,
                     gr->cfg_text[v], sizeof gr->cfg_text[v]);
}

/* Arrangements: in each group, each decided op whose configuration splits
 * two or more dimensions tries each other arrangement of them over the
 * group's levels (pase_level_dims: AccPar's alternating FC types), as
 * pase_refine.c does on one type.  *moved = 1 if any was kept.
 * O(groups x ops x arrangements simulations). */
static dnp_status descend_arrangements(cross_ctx *x, int *moved, dnp_error *err)
{
    pase_hetero_result *h = &x->r->het;
    for (int t = 0; t < h->n_groups; t++) {
        pase_hetero_group *gr = &h->grp[t];
        if (gr->g == NULL || gr->batch <= 0)
            continue;
        for (int v = 0; v < gr->g->n_nest; v++) {
            int gi = dnp_graph_find(x->g, gr->g->nest[v].name);
            if (gi < 0 || dnp_graph_decider(x->g, gi) != gi)
                continue; /* not decided: no levels of its own */
            long split[ITER_MAX_RANK];
            int nd = pase_config_text_split(gr->cfg_text[v], split);
            int n_orders = pase_level_orders(split, nd, PASE_LEVEL_ORDERS_MAX);
            if (n_orders < 2)
                continue;
            if (gr->order == NULL &&
                (gr->order = dnp_calloc((size_t)gr->g->n_nest, sizeof *gr->order)) == NULL) {
                dnp_error_set(err, DNP_ERR_NOMEM, "out of memory refining the type split");
                return DNP_ERR_NOMEM;
            }
            for (int o = 0; o < n_orders; o++) {
                int was = gr->order[v], kept;
                if (o == was)
                    continue;
                gr->order[v] = o;
                dnp_status st = try_move(x, &kept, err);
                if (st != DNP_OK)
                    return st;
                if (!kept)
                    gr->order[v] = was;
                *moved |= kept;
            }
            group_text(gr, v, split, nd);
        }
    }
    return DNP_OK;
}

dnp_status pase_cross_refine(dnp_pase_run *r, dnp_error *err)
{
    const dnp_graph *g = r->pp->core;
    if (!r->have_het || g == NULL || !isfinite(r->het.judged_s))
        return DNP_OK; /* nothing the simulator can run */
    int working = 0;
    for (int t = 0; t < r->het.n_groups; t++)
        working += r->het.grp[t].g != NULL && r->het.grp[t].batch > 0;
    if (working < 2)
        return DNP_OK; /* one type works: no level separates types (an idle group has
                        * no plan to give samples to) */
    int n = dnp_graph_n_ops(g);
    r->cross = dnp_calloc((size_t)(n > 0 ? n : 1), 1);
    if (r->cross == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory refining the type split");
        return DNP_ERR_NOMEM;
    }
    cross_ctx x = {r, g, r->het.judged_s, 0};
    r->cross_from_s = r->het.judged_s;
    dnp_status st = DNP_OK;
    for (int round = 0; round < PASE_CROSS_ROUNDS && st == DNP_OK; round++) {
        int moved = 0;
        st = descend_shares(&x, &moved, err);
        if (st == DNP_OK)
            st = descend_types(&x, &moved, err);
        if (st == DNP_OK)
            st = descend_arrangements(&x, &moved, err);
        if (!moved)
            break;
    }
    r->cross_judged = x.judged;
    r->het.judged_s = x.best_s;
    return st;
}
