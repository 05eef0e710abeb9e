/*
 * strategy.c - the one strategy type (plan/strategy.h) and its producer
 * from AccPar's decided tree (plan/tree.h).
 *
 * AccPar section 3.2 (Song et al. 2020) gives what each partition type
 * splits at one level of the device tree: Type-I the batch (the weight
 * gradient then summed over the level), Type-II the input dimension (the
 * output a partial sum), Type-III the output dimension (the input's
 * gradient summed); joins take layout B (batch), C (channels) or R
 * (replicated).  Those are loop dimensions b, c and n of the op.
 */
#include "plan/strategy.h"

#include <stdio.h>
#include <string.h>

plan_strategy *plan_strategy_new(int n_ops, int n_stages)
{
    if (n_ops < 0 || n_stages < 0)
        return NULL;
    plan_strategy *s = dnp_calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->ops = dnp_calloc((size_t)(n_ops > 0 ? n_ops : 1), sizeof *s->ops);
    s->stage = dnp_calloc((size_t)(n_stages > 0 ? n_stages : 1), sizeof *s->stage);
    if (s->ops == NULL || s->stage == NULL) {
        plan_strategy_free(s);
        return NULL;
    }
    s->n_ops = n_ops;
    s->n_stages = n_stages;
    return s;
}

void plan_strategy_free(plan_strategy *s)
{
    if (s == NULL)
        return;
    dnp_free(s->ops);
    dnp_free(s->stage);
    dnp_free(s);
}

int plan_strategy_add_axis(plan_strategy *s, const char *name, int size, double share)
{
    if (s->n_axes >= PLAN_MAX_AXES)
        return -1;
    plan_axis *a = &s->axis[s->n_axes];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->size = size;
    a->share = share;
    return s->n_axes++;
}

int plan_op_split(plan_op *o, const char *dim, int axis)
{
    if (axis < 0 || axis >= PLAN_MAX_AXES)
        return -1;
    for (int i = 0; i < o->n_splits; i++)
        if (strncmp(o->split[i].dim, dim, PLAN_DIM_NAME - 1) == 0) {
            o->split[i].axes |= 1u << axis;
            return 0;
        }
    if (o->n_splits >= PLAN_MAX_SPLITS)
        return -1;
    plan_split *x = &o->split[o->n_splits++];
    snprintf(x->dim, sizeof x->dim, "%s", dim);
    x->axes = 1u << axis;
    return 0;
}

unsigned plan_op_axes(const plan_op *o, const char *dim)
{
    for (int i = 0; i < o->n_splits; i++)
        if (strncmp(o->split[i].dim, dim, PLAN_DIM_NAME - 1) == 0)
            return o->split[i].axes;
    return 0u;
}

unsigned plan_op_all_axes(const plan_op *o)
{
    unsigned a = 0u;
    for (int i = 0; i < o->n_splits; i++)
        a |= o->split[i].axes;
    return a;
}

const plan_op *plan_strategy_find(const plan_strategy *s, int op)
{
    int lo = 0, hi = s->n_ops - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (s->ops[mid].op == op)
            return &s->ops[mid];
        if (s->ops[mid].op < op)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

/* What type (weighted) or layout (join) `t` at tree level k does to op o
 * (AccPar section 3.2; the file comment). */
static void apply_tree_type(plan_op *o, int t, int k)
{
    if (o->weighted) {
        switch (t) {
        case DNP_TYPE_I:
            plan_op_split(o, "b", k);
            o->wgrad_partial |= 1u << k;
            break;
        case DNP_TYPE_II:
            plan_op_split(o, "c", k);
            o->out_partial |= 1u << k;
            break;
        case DNP_TYPE_III:
            plan_op_split(o, "n", k);
            o->igrad_partial |= 1u << k;
            break;
        default: /* R: the level leaves the layer whole */
            break;
        }
        return;
    }
    if (t == 0) /* layout B */
        plan_op_split(o, "b", k);
    else if (t == 1) /* layout C */
        plan_op_split(o, "c", k);
}

dnp_status plan_strategy_from_tree(const plan_tree *t, plan_strategy **out, dnp_error *err)
{
    *out = NULL;
    const layer_table *lt = t->lt;
    int depth = 0;
    for (const tnode *n = t->root; n != NULL && n->child[0] != NULL; n = n->child[0])
        depth++;
    if (depth > PLAN_MAX_AXES) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "the device tree of '%s' has %d levels; a strategy holds at most %d axes",
                      t->model != NULL ? t->model : "?", depth, PLAN_MAX_AXES);
        return DNP_ERR_INPUT;
    }
    plan_strategy *s = plan_strategy_new(lt->n_rows, 1);
    if (s == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building the strategy of a tree");
        return DNP_ERR_NOMEM;
    }
    s->batch = t->batch;
    s->stage[0].first_rank = 0;
    s->stage[0].n_ranks = t->root != NULL ? t->root->n_dev : 0;
    for (int k = 0; t->root != NULL && k < t->cl->n_types; k++)
        if (t->root->counts[k] > 0)
            s->stage[0].types |= 1u << k;
    for (int v = 0; v < lt->n_rows; v++) {
        s->ops[v].op = lt->row[v].op;
        s->ops[v].weighted = lt->row[v].weighted;
    }
    int k = 0;
    for (const tnode *n = t->root; n != NULL && n->child[0] != NULL; n = n->child[0], k++) {
        char name[PLAN_AXIS_NAME];
        snprintf(name, sizeof name, "h%d", k);
        int a = plan_strategy_add_axis(s, name, 2, n->alpha);
        for (int h = 0; h < 2; h++)
            for (int d = 0; d < DNP_MAX_DEVICE_TYPES; d++)
                s->axis[a].half_counts[h][d] = n->child[h]->counts[d];
        for (int v = 0; n->types != NULL && v < lt->n_rows; v++)
            apply_tree_type(&s->ops[v], n->types[v], a);
    }
    *out = s;
    return DNP_OK;
}
