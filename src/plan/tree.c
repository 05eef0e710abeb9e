/*
 * tree.c - AccPar's decided tree (plan/tree.h) as the one strategy type,
 * without loss: its device groups, and the mesh view of its first path
 * (plan_strategy_from_tree); and the check back (plan_strategy_matches_tree).
 *
 * AccPar section 3.2 (Song et al. 2020) gives what each partition type
 * splits at one level of the device tree: Type-I the batch (the weight
 * gradient then summed over the level), Type-II the input dimension (the
 * output a partial sum), Type-III the output dimension (the input's
 * gradient summed); joins take layout B (batch), C (channels) or R
 * (replicated).  Those are loop dimensions b, c and n of the op.
 */
#include "plan/tree.h"

#include <string.h>

/* Distinct nodes of the subtree at n (a shared half once). */
static int count_nodes(const tnode *n)
{
    if (n == NULL || n->child[0] == NULL)
        return n != NULL;
    return 1 + count_nodes(n->child[0]) + (n->shared ? 0 : count_nodes(n->child[1]));
}

/* Copy node n and its subtree into s's groups from index *next on
 * (depth-first, the first half first); returns n's index.  A split node
 * without decisions (types NULL) splits nothing. */
static int copy_node(plan_strategy *s, const layer_table *lt, const tnode *n, int *next)
{
    int i = (*next)++;
    plan_group *g = &s->group[i];
    memcpy(g->counts, n->counts, sizeof g->counts);
    g->n_dev = n->n_dev;
    g->depth = n->depth;
    if (n->child[0] == NULL)
        return i;
    g->shared = n->shared;
    g->alpha = n->alpha;
    for (int v = 0; n->types != NULL && v < lt->n_rows; v++)
        g->split[v] = (unsigned char)plan_split_of_type(lt->row[v].weighted, n->types[v]);
    int a = copy_node(s, lt, n->child[0], next);
    int b = n->shared ? a : copy_node(s, lt, n->child[1], next);
    g->child[0] = a;
    g->child[1] = b;
    return i;
}

dnp_status plan_strategy_from_tree(const plan_tree *t, plan_strategy **out, dnp_error *err)
{
    *out = NULL;
    const layer_table *lt = t->lt;
    plan_strategy *s = plan_strategy_new(lt->n_rows, 1);
    if (s == NULL || plan_strategy_alloc_groups(s, count_nodes(t->root)) != 0) {
        plan_strategy_free(s);
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
    int next = 0;
    if (t->root != NULL)
        copy_node(s, lt, t->root, &next);
    plan_strategy_derive_shares(s);
    plan_strategy_mesh_of_groups(s);
    *out = s;
    return DNP_OK;
}

/* plan_strategy_matches_tree below group i and node n. */
static int group_matches(const plan_strategy *s, int i, const layer_table *lt, const tnode *n)
{
    if (i < 0 || i >= s->n_groups || n == NULL)
        return 0;
    const plan_group *g = &s->group[i];
    if (memcmp(g->counts, n->counts, sizeof g->counts) != 0 || g->n_dev != n->n_dev ||
        g->depth != n->depth || (g->child[0] < 0) != (n->child[0] == NULL))
        return 0;
    if (n->child[0] == NULL)
        return 1;
    if (g->shared != n->shared || memcmp(&g->alpha, &n->alpha, sizeof g->alpha) != 0 ||
        (g->child[0] == g->child[1]) != (n->child[0] == n->child[1]))
        return 0;
    for (int v = 0; v < lt->n_rows; v++)
        if (n->types != NULL ? plan_split_type(lt->row[v].weighted, g->split[v]) != n->types[v]
                             : g->split[v] != PLAN_SPLIT_NONE)
            return 0;
    return group_matches(s, g->child[0], lt, n->child[0]) &&
           (n->shared || group_matches(s, g->child[1], lt, n->child[1]));
}

int plan_strategy_matches_tree(const plan_strategy *s, const plan_tree *t)
{
    if (s->n_ops != t->lt->n_rows)
        return 0;
    if (t->root == NULL)
        return s->n_groups == 0;
    return group_matches(s, 0, t->lt, t->root);
}
