/*
 * strategy.c - the one strategy type (plan/strategy.h): its building
 * blocks, device groups and the one rule for the shares a group holds.
 *
 * AccPar section 3.2 (Song et al. 2020) gives what each partition type
 * splits at one level of the device tree: Type-I the batch (the weight
 * gradient then summed over the level), Type-II the input dimension (the
 * output a partial sum), Type-III the output dimension (the input's
 * gradient summed); joins take layout B (batch), C (channels) or R
 * (replicated).  Those are loop dimensions b, c and n of the op.
 */
#include "plan/strategy.h"

#include "cost/accpar_cost.h"

#include <stdio.h>
#include <string.h>

/* A weighted op's split code is its AccPar type, a join's its layout but
 * for R (strategy.h: plan_split_type). */
_Static_assert(PLAN_SPLIT_B == (int)DNP_TYPE_I && PLAN_SPLIT_C == (int)DNP_TYPE_II &&
                   PLAN_SPLIT_N == (int)DNP_TYPE_III && PLAN_SPLIT_NONE == (int)DNP_TYPE_R,
               "split codes are AccPar's types");
_Static_assert(PLAN_SPLIT_B == (int)LAYOUT_BATCH && PLAN_SPLIT_C == (int)LAYOUT_CHANNEL &&
                   (int)LAYOUT_REPL == 2,
               "split codes are AccPar's join layouts");

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

static void free_groups(plan_strategy *s)
{
    dnp_free(s->group);
    dnp_free(s->group_split);
    dnp_free(s->group_shares);
    s->group = NULL;
    s->group_split = NULL;
    s->group_shares = NULL;
    s->n_groups = 0;
}

void plan_strategy_free(plan_strategy *s)
{
    if (s == NULL)
        return;
    free_groups(s);
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
    /* a bounded copy (the planner's hot path: no snprintf per split) */
    size_t n = 0;
    while (n + 1 < sizeof x->dim && dim[n] != '\0') {
        x->dim[n] = dim[n];
        n++;
    }
    memset(x->dim + n, 0, sizeof x->dim - n);
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

void plan_split_shares(int weighted, int split, double share, double *fb, double *fi,
                       double *fo)
{
    /* Type-I splits B, Type-II D_i, Type-III D_o (AccPar section 3.2); R
     * splits nothing (each half holds the whole layer).  A join in layout
     * C splits its channels, which are its input and output alike. */
    if (split == PLAN_SPLIT_B) {
        *fb *= share;
    } else if (split == PLAN_SPLIT_C) {
        *fi *= share;
        if (!weighted)
            *fo *= share;
    } else if (split == PLAN_SPLIT_N && weighted) {
        *fo *= share;
    }
}

int plan_strategy_alloc_groups(plan_strategy *s, int n_groups)
{
    free_groups(s);
    if (n_groups <= 0)
        return n_groups == 0 ? 0 : -1;
    size_t G = (size_t)n_groups, V = (size_t)(s->n_ops > 0 ? s->n_ops : 1);
    s->group = dnp_calloc(G, sizeof *s->group);
    s->group_split = dnp_malloc(G * V);
    s->group_shares = dnp_calloc(3 * G * V, sizeof *s->group_shares);
    if (s->group == NULL || s->group_split == NULL || s->group_shares == NULL) {
        free_groups(s);
        return -1;
    }
    memset(s->group_split, PLAN_SPLIT_NONE, G * V);
    for (size_t i = 0; i < G; i++) {
        plan_group *g = &s->group[i];
        g->child[0] = g->child[1] = -1;
        g->split = s->group_split + i * V;
        g->fb = s->group_shares + 3 * i * V;
        g->fi = g->fb + V;
        g->fo = g->fi + V;
    }
    s->n_groups = n_groups;
    return 0;
}

void plan_strategy_derive_shares(plan_strategy *s)
{
    const int V = s->n_ops;
    if (s->n_groups > 0)
        for (int v = 0; v < V; v++)
            s->group[0].fb[v] = s->group[0].fi[v] = s->group[0].fo[v] = 1.0;
    for (int i = 0; i < s->n_groups; i++) {
        const plan_group *n = &s->group[i];
        if (n->child[0] < 0)
            continue;
        for (int h = 0; h < (n->shared ? 1 : 2); h++) {
            plan_group *c = &s->group[n->child[h]];
            double share = h == 0 ? n->alpha : 1.0 - n->alpha;
            for (int v = 0; v < V; v++) {
                c->fb[v] = n->fb[v];
                c->fi[v] = n->fi[v];
                c->fo[v] = n->fo[v];
                plan_split_shares(s->ops[v].weighted, n->split[v], share, &c->fb[v], &c->fi[v],
                                  &c->fo[v]);
            }
        }
    }
}

/* The loop dimension name of split code `split` ("" for none). */
static const char *split_dim(int split)
{
    return split == PLAN_SPLIT_B   ? "b"
           : split == PLAN_SPLIT_C ? "c"
           : split == PLAN_SPLIT_N ? "n"
                                   : "";
}

/* What a group's split of op o does at mesh axis k (the file comment):
 * the dimension split, and for a weighted op the partial sum it leaves. */
static void apply_split(plan_op *o, int split, int k)
{
    if (split == PLAN_SPLIT_NONE || (!o->weighted && split == PLAN_SPLIT_N))
        return;
    plan_op_split(o, split_dim(split), k);
    if (!o->weighted)
        return;
    if (split == PLAN_SPLIT_B)
        o->wgrad_partial |= 1u << k;
    else if (split == PLAN_SPLIT_C)
        o->out_partial |= 1u << k;
    else
        o->igrad_partial |= 1u << k;
}

void plan_strategy_mesh_of_groups(plan_strategy *s)
{
    int depth = 0;
    for (int i = 0; s->n_groups > 0 && s->group[i].child[0] >= 0; i = s->group[i].child[0])
        depth++;
    int k = 0;
    for (int i = 0; depth <= PLAN_MAX_AXES && s->n_groups > 0 && s->group[i].child[0] >= 0;
         i = s->group[i].child[0], k++) {
        const plan_group *n = &s->group[i];
        char name[PLAN_AXIS_NAME];
        snprintf(name, sizeof name, "h%d", k);
        int a = plan_strategy_add_axis(s, name, 2, n->alpha);
        for (int h = 0; h < 2; h++)
            for (int d = 0; d < DNP_MAX_DEVICE_TYPES; d++)
                s->axis[a].half_counts[h][d] = s->group[n->child[h]].counts[d];
        for (int v = 0; v < s->n_ops; v++)
            apply_split(&s->ops[v], n->split[v], a);
    }
}
