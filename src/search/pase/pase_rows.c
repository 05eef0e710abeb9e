/*
 * pase_rows.c - PaSE's search under the default model keeps whole the rows
 * a softmax, layer norm or LRN normalises (model/row_ops.h, the rule's one
 * definition; AccPar's search applies it in search/plan.c row_op_states;
 * docs/pase.md "Row ops").
 *
 * In PaSE the row op has its own configuration, so the rule has two sides:
 *   the op's own nest does not split the axis it normalises (a softmax's
 *     or layer norm's `axis`, a loss's classes, an LRN's channels): PaSE
 *     would cost it as local work, and it is not;
 *   the op it reads the row from, its decider, does not split its output
 *     channels (the dimension pase_strategy_type_of calls Type-III, or
 *     "channel" for a join): that is the layout the executor refuses
 *     (run-torch, python/dnnpar_torch/execute.py check_row_ops), since the
 *     row op follows its decider's layout in a dnnpar strategy.
 * Both are fixed dimensions (iter_nest.fixed), so every search of the
 * problem (the DP, the baselines, the pinned and type-split searches)
 * enumerates only the configurations the rule allows.
 */
#include "search/pase/pase_driver.h"
#include "model/row_ops.h"

#include <string.h>

/* The dimension of row op nest v that its op normalises over, -1 if none
 * (iter_rules.c: softmax and layer norm carry their axis, the loss its
 * classes last, an LRN is element-wise on (b, c, h, w)). */
static int normalised_dim(const iter_nest *v)
{
    switch (v->kind) {
    case ITER_SOFTMAX:
    case ITER_NORM:
        return v->axis;
    case ITER_SCE:
        return v->rank - 1;
    case ITER_ELEMWISE:
        return v->rank >= 2 ? 1 : -1;
    default:
        return -1;
    }
}

void pase_restrict_row_ops(iter_space *pg)
{
    const dnp_graph *core = pg->core;
    if (core == NULL)
        return;
    for (int i = 0; i < pg->n_nest; i++) {
        iter_nest *v = &pg->nest[i];
        int gi = v->op;
        if (gi < 0 || gi >= dnp_graph_n_ops(core))
            continue; /* a stage before an op's own nest (an FC's Ravel, ...) */
        const dnp_op *op = dnp_graph_op(core, gi);
        if (row_op_kind(op->kind)) {
            int d = normalised_dim(v);
            if (d >= 0 && d < v->rank)
                v->fixed |= 1u << (unsigned)d;
        }
        if (dnp_graph_decider(core, gi) == gi && row_op_keeps_channels(core, gi))
            for (int d = 0; d < v->rank; d++) {
                const char *t = pase_strategy_type_of(core, op, v->dim[d][0]);
                if (t != NULL && (strcmp(t, "III") == 0 || strcmp(t, "channel") == 0))
                    v->fixed |= 1u << (unsigned)d;
            }
    }
}
