/*
 * plan.c - hierarchical partitioning (AccPar section 5) of a model over a
 * cluster, for AccPar and the baselines, and the predicted step time.
 * The time model is documented in docs/time-model.md.
 */
#include "search/plan_internal.h"
#include "core/clock.h"

#include "cost/accpar_cost.h"
#include "model/row_ops.h"
#include "perf/device_model.h"
#include "plan/strategy.h"
#include "search/strategy.h"
#include "sim/lower.h"
#include "sim/lower_any.h"
#include "topo/topology.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const scheme_names[DNP_SCHEME_COUNT] = {"dp", "owt", "hypar", "accpar"};

const char *dnp_scheme_name(dnp_scheme s)
{
    return (s >= 0 && s < DNP_SCHEME_COUNT) ? scheme_names[s] : "?";
}

int dnp_scheme_from_name(const char *s)
{
    for (int i = 0; i < DNP_SCHEME_COUNT; i++)
        if (strcasecmp(s, scheme_names[i]) == 0)
            return i;
    return -1;
}

/* ---------------------------------------------------------------- */
/* Device tree                                                       */
/* ---------------------------------------------------------------- */

static int64_t sum_counts(const dnp_cluster *cl, const int64_t *counts)
{
    int64_t n = 0;
    for (int k = 0; k < cl->n_types; k++)
        n += counts[k];
    return n;
}

/* Shallowest and deepest single-device group of the tree.  Identical
 * halves are visited once, so O(depth) for one type. */
static void leaf_depths(const dnp_cluster *cl, const int64_t *counts, int *min, int *max)
{
    *min = *max = 0;
    if (sum_counts(cl, counts) <= 1)
        return;
    int64_t a[DNP_MAX_DEVICE_TYPES] = {0}, b[DNP_MAX_DEVICE_TYPES] = {0};
    topo_tree_split(cl, counts, a, b);
    int amin, amax, bmin, bmax;
    leaf_depths(cl, a, &amin, &amax);
    if (memcmp(a, b, sizeof a) == 0)
        bmin = amin, bmax = amax;
    else
        leaf_depths(cl, b, &bmin, &bmax);
    *min = 1 + (amin < bmin ? amin : bmin);
    *max = 1 + (amax > bmax ? amax : bmax);
}

int dnp_cluster_max_levels(const dnp_cluster *c)
{
    int min, max;
    leaf_depths(c, c->counts, &min, &max);
    return min;
}

int dnp_cluster_tree_depth(const dnp_cluster *c)
{
    int min, max;
    leaf_depths(c, c->counts, &min, &max);
    return max;
}

static void tnode_free(tnode *n)
{
    if (n == NULL)
        return;
    tnode_free(n->child[0]);
    if (!n->shared)
        tnode_free(n->child[1]);
    dnp_free(n->types);
    dnp_free(n->fb);
    dnp_free(n->fi);
    dnp_free(n->fo);
    dnp_free(n->ev->t_s);
    dnp_free(n->ev->tc_s);
    dnp_free(n->ev->recv_bytes);
    dnp_free(n->ev->rate);
    dnp_free(n); /* the block of tnode_new: the node and its figures */
}

/* A tree node and the search's figures at it, allocated as one block (the
 * node first, so freeing the node frees both). */
typedef struct {
    tnode n;
    tnode_eval ev;
} tnode_block;

static tnode *tnode_new(const dnp_cluster *cl, const int64_t *counts, int depth, int n_nodes)
{
    tnode_block *blk = dnp_calloc(1, sizeof *blk);
    if (blk == NULL)
        return NULL;
    tnode *n = &blk->n;
    n->ev = &blk->ev;
    size_t V = (size_t)n_nodes;
    n->fb = dnp_malloc(V * sizeof *n->fb);
    n->fi = dnp_malloc(V * sizeof *n->fi);
    n->fo = dnp_malloc(V * sizeof *n->fo);
    n->ev->t_s = dnp_calloc(V, sizeof *n->ev->t_s);
    n->ev->tc_s = dnp_calloc(V, sizeof *n->ev->tc_s);
    n->ev->recv_bytes = dnp_calloc(V, sizeof *n->ev->recv_bytes);
    if (!n->fb || !n->fi || !n->fo || !n->ev->t_s || !n->ev->tc_s || !n->ev->recv_bytes) {
        tnode_free(n);
        return NULL;
    }
    n->depth = depth;
    n->ev->bw_bps = INFINITY;
    n->ev->mem_cap_bytes = INFINITY;
    for (int k = 0; k < cl->n_types; k++) {
        n->counts[k] = counts[k];
        if (counts[k] == 0)
            continue;
        n->n_dev += counts[k];
        n->ev->flops += (double)counts[k] * cl->types[k].peak_flops;
        if (cl->types[k].net_bw_bps < n->ev->bw_bps)
            n->ev->bw_bps = cl->types[k].net_bw_bps;
        if (cl->types[k].mem_bytes < n->ev->mem_cap_bytes)
            n->ev->mem_cap_bytes = cl->types[k].mem_bytes;
    }
    return n;
}

/* ---------------------------------------------------------------- */
/* Level costs                                                       */
/* ---------------------------------------------------------------- */

/* Default model: cache at node n the link tier its halves are joined by
 * (topo_tree_link: the network of the slowest member type when the split
 * crosses nodes, else the node's intra tier) and each planned node's work
 * rate of the group (its devices' roofline rates summed).  0 on
 * allocation failure. */
static int tnode_prepare(tnode *n, const cost_units *u, int V)
{
    if (u->paper)
        return 1;
    const dnp_cluster *cl = u->cl;
    n->ev->rate = dnp_calloc((size_t)(V > 0 ? V : 1), sizeof *n->ev->rate);
    if (n->ev->rate == NULL)
        return 0;
    for (int v = 0; v < V; v++)
        for (int k = 0; k < cl->n_types; k++)
            n->ev->rate[v] +=
                (double)n->counts[k] * u->inv_time[(size_t)v * DNP_MAX_DEVICE_TYPES + (size_t)k];
    dnp_comm_group link;
    int cross = topo_tree_link(cl, n->counts, &link);
    n->ev->split_bw_bps = cross ? link.inter_bw_bps : link.intra_bw_bps;
    n->ev->split_lat_s = cross ? link.inter_lat_s : link.intra_lat_s;
    return 1;
}

/* Default model, per-level view: what one device of half g moves when the
 * half as a whole fetches `elems` across the split of group n: its share
 * of them (the half's devices fetch in parallel) on the link tier the
 * split spans, plus that tier's latency (docs/time-model.md). */
static double tier_comm_s(const cost_units *u, const tnode *n, const tnode *g, double elems)
{
    if (!(elems > 0.0))
        return 0.0;
    return n->ev->split_lat_s +
           elems * (double)u->bytes_per_elem / (double)g->n_dev / n->ev->split_bw_bps;
}

static double comm_cost(const level_ctx *lc, double elems, const tnode *g)
{
    if (lc->units.reference_mode)
        return elems; /* the authors' code counts elements */
    if (!lc->units.paper)
        return tier_comm_s(&lc->units, lc->n, g, elems);
    return accpar_comm_s(elems, lc->units.bytes_per_elem, g->ev->bw_bps);
}

/* The fraction of node v's work held at tree node n. */
static double node_share(const layer_table *lt, const tnode *n, int v)
{
    if (!lt->row[v].weighted)
        return n->fb[v] * n->fo[v];
    return n->fb[v] * n->fi[v] * n->fo[v];
}

/* Default model: time for group g to do `share` of node v's work as held
 * at node n, its devices working in parallel at their roofline rates. */
static double roofline_group_s(const cost_units *u, const layer_table *lt, const tnode *n, int v,
                               double share, const tnode *g)
{
    (void)u;
    return g->ev->rate[v] > 0.0 ? share * node_share(lt, n, v) / g->ev->rate[v] : 0.0;
}

static double compute_cost(const level_ctx *lc, double share, double flop, const tnode *g, int v)
{
    if (lc->units.reference_mode || lc->comm_only)
        return 0.0;
    if (!lc->units.paper)
        return roofline_group_s(&lc->units, lc->lt, lc->n, v, share, g);
    if (flop == 0.0)
        return 0.0;
    return accpar_compute_s(share, flop, g->ev->flops);
}

/* Table 4: elements of the partial-sum tensor of node v in state t, as
 * held by tree node n. */
static double intra_elems(const layer_table *lt, const tnode *n, int v, int t)
{
    const layer_row *p = &lt->row[v];
    state_layouts sl;
    accpar_state_layouts(p->weighted, t, &sl);
    switch (sl.intra) {
    case INTRA_W:
        return p->w_elems * n->fi[v] * n->fo[v];
    case INTRA_FOUT:
        return p->fout_elems * n->fb[v] * n->fo[v];
    case INTRA_FIN:
        return p->fin_elems * n->fb[v] * n->fi[v];
    case INTRA_NONE:
        break;
    }
    return 0.0;
}

/* The tensor on edge e as its consumer holds it at tree node n. */
static double edge_elems(const layer_table *lt, const tnode *n, int e)
{
    int v = lt->xchg[e].v;
    return lt->xchg[e].elems * n->fb[v] * n->fi[v];
}

static double node_flop(const layer_table *lt, const tnode *n, int v)
{
    /* A weighted layer's products split along B, D_i and D_o (Table 6);
     * a join's (the product of two activations) along its batch and
     * output channels, which its channel layout scales both of. */
    if (!lt->row[v].weighted)
        return lt->row[v].flop * n->fb[v] * n->fo[v];
    return lt->row[v].flop * n->fb[v] * n->fi[v] * n->fo[v];
}

/* level_costs for the allowed states only (others are left unset; the DP
 * never reads them); allowed == NULL: every state. */
static void level_costs_masked(const level_ctx *lc, double alpha, const unsigned char *allowed,
                               double *node_cost, double *edge_cost);

void level_costs(const level_ctx *lc, double alpha, double *node_cost, double *edge_cost)
{
    level_costs_masked(lc, alpha, NULL, node_cost, edge_cost);
}

static void level_costs_masked(const level_ctx *lc, double alpha, const unsigned char *allowed,
                               double *node_cost, double *edge_cost)
{
    const layer_table *lt = lc->lt;
    const tnode *n = lc->n;
    double share[2] = {alpha, 1.0 - alpha};
    /* Identical halves (alpha is then 1/2) cost the same: one group will do. */
    const int n_groups = n->child[0] == n->child[1] ? 1 : 2;
    for (int v = 0; v < lt->n_rows; v++) {
        double flop = node_flop(lt, n, v), comp[2];
        for (int g = 0; g < n_groups; g++)
            comp[g] = compute_cost(lc, share[g], flop, n->child[g], v);
        for (int t = 0; t < 3; t++) {
            if (allowed != NULL && !((allowed[v] >> t) & 1))
                continue;
            double ie = intra_elems(lt, n, v, t), worst = 0.0;
            for (int g = 0; g < n_groups; g++) {
                /* Eq. 8 + Table 4 through Eq. 7, for each group; the
                 * slower group sets the layer's time. */
                double x = comp[g] + comm_cost(lc, ie, n->child[g]);
                worst = x > worst ? x : worst;
            }
            node_cost[v * 3 + t] = worst;
        }
    }
    for (int e = 0; e < lt->n_xchg; e++) {
        const layer_xchg *pe = &lt->xchg[e];
        int wu = lt->row[pe->u].weighted, wv = lt->row[pe->v].weighted;
        double A = edge_elems(lt, n, e);
        for (int tu = 0; tu < 3; tu++)
            for (int tv = 0; tv < 3; tv++) {
                if (allowed != NULL &&
                    (!((allowed[pe->u] >> tu) & 1) || !((allowed[pe->v] >> tv) & 1)))
                    continue;
                double worst = 0.0;
                for (int g = 0; g < n_groups; g++) {
                    /* Table 5 for group g. */
                    double x = comm_cost(lc, accpar_inter_elems(wu, tu, wv, tv, A, alpha, g),
                                         n->child[g]);
                    worst = x > worst ? x : worst;
                }
                edge_cost[e * 9 + tu * 3 + tv] = worst;
            }
    }
}

void level_group_times(const level_ctx *lc, const int *types, double alpha, double *e_a,
                       double *e_b)
{
    const layer_table *lt = lc->lt;
    const tnode *n = lc->n;
    double share[2] = {alpha, 1.0 - alpha}, e[2] = {0.0, 0.0};
    for (int g = 0; g < 2; g++) {
        const tnode *c = n->child[g];
        for (int v = 0; v < lt->n_rows; v++)
            e[g] += compute_cost(lc, share[g], node_flop(lt, n, v), c, v) +
                    comm_cost(lc, intra_elems(lt, n, v, types[v]), c);
        for (int k = 0; k < lt->n_xchg; k++) {
            const layer_xchg *pe = &lt->xchg[k];
            e[g] += comm_cost(lc,
                              accpar_inter_elems(lt->row[pe->u].weighted, types[pe->u],
                                                 lt->row[pe->v].weighted, types[pe->v],
                                                 edge_elems(lt, n, k), alpha, g),
                              c);
        }
    }
    *e_a = e[0];
    *e_b = e[1];
}

void level_unit_times(const level_ctx *lc, const int *types, double *e_a, double *e_b)
{
    /* Section 5.3 reads every cost as linear in the ratio: E_cp(alpha, p) =
     * alpha E_cp(p) (Eq. 8) and E_cm(alpha, p) = alpha E_cm(p) (Eq. 7, Tables 4
     * and 5).  The per-unit costs E_cp(p), E_cm(p) are a group's costs for the
     * whole of what the node holds: every layer's FLOP at share 1, its Table 4
     * partial sum and each tensor Table 5 makes it access, once. */
    const layer_table *lt = lc->lt;
    const tnode *n = lc->n;
    double e[2] = {0.0, 0.0};
    for (int g = 0; g < 2; g++) {
        const tnode *c = n->child[g];
        for (int v = 0; v < lt->n_rows; v++)
            e[g] += compute_cost(lc, 1.0, node_flop(lt, n, v), c, v) +
                    comm_cost(lc, intra_elems(lt, n, v, types[v]), c);
        for (int k = 0; k < lt->n_xchg; k++) {
            const layer_xchg *pe = &lt->xchg[k];
            e[g] += comm_cost(lc,
                              accpar_inter_unit_elems(lt->row[pe->u].weighted, types[pe->u],
                                                      lt->row[pe->v].weighted, types[pe->v],
                                                      edge_elems(lt, n, k)),
                              c);
        }
    }
    *e_a = e[0];
    *e_b = e[1];
}

double level_eq10_ratio(const level_ctx *lc, const int *types, double lo, double hi)
{
    /* Eq. 10 as printed: alpha E_a = beta E_b with the per-unit costs. */
    double ea, eb;
    level_unit_times(lc, types, &ea, &eb);
    double a = accpar_ratio_eq10(ea, eb);
    return a < lo ? lo : a > hi ? hi : a;
}

double level_balance_ratio(const level_ctx *lc, const int *types, double lo, double hi)
{
    /* Eq. 10: alpha E_cp(p_i) + alpha E_cm(p_i) = beta E_cp(p_j) + beta E_cm(p_j),
     * solved with each term's real dependence on alpha (Table 4 does not
     * depend on it, Table 5 does) rather than the printed linear form. */
    double ea, eb;
    level_group_times(lc, types, lo, &ea, &eb);
    if (ea - eb >= 0.0)
        return lo;
    level_group_times(lc, types, hi, &ea, &eb);
    if (ea - eb <= 0.0)
        return hi;
    for (int it = 0; it < 100 && hi - lo > 1e-15; it++) {
        double mid = 0.5 * (lo + hi);
        level_group_times(lc, types, mid, &ea, &eb);
        if (ea - eb < 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* ---------------------------------------------------------------- */
/* Per-level decisions                                               */
/* ---------------------------------------------------------------- */

typedef struct {
    level_ctx lc;
    double *node_cost, *edge_cost;
    int *types;
    int approximate; /* the graph is too wide for the exact DP */
    int *scratch;
    long long solves; /* level problems costed and solved (work counter for tests) */
} level_work;

/* Allowed states of each node under a scheme (bit t = state t). */
static void allowed_states(const layer_table *lt, dnp_scheme s, unsigned char *allowed)
{
    for (int v = 0; v < lt->n_rows; v++) {
        const layer_row *p = &lt->row[v];
        switch (s) {
        case DNP_SCHEME_DP:
            allowed[v] = 1; /* Type-I; joins batch-split */
            break;
        case DNP_SCHEME_OWT:
            allowed[v] = (p->weighted && p->is_fc) ? 2 : 1; /* FC Type-II, rest Type-I */
            break;
        case DNP_SCHEME_HYPAR:
            allowed[v] = 3; /* Types I and II; joins batch or channel */
            break;
        default:
            allowed[v] = 7;
            break;
        }
        allowed[v] &= p->types;
        if (p->no_channel) /* row_op_states */
            allowed[v] &= (unsigned char)(p->weighted ? ~4u : ~2u);
        if (allowed[v] == 0)
            allowed[v] = 1; /* every op takes Type-I */
    }
}

/* Under the default model, the row an op needing every channel of a sample
 * follows (softmax over the classes, layer norm over the features, LRN
 * over neighbouring channels) is not given a split of its output channels
 * (Type-III; a join's channel layout) by the searches: each device would
 * hold part of every sample's channels, and the reduction across them is
 * a collective neither the step simulator nor the executor (run-torch,
 * python/dnnpar_torch/execute.py check_row_ops) has.  One rule, two
 * searches: model/row_ops.h defines which ops and which row (the op's
 * decider); PaSE's search applies it to its configurations
 * (search/pase/pase_rows.c).  The paper's accounting keeps the paper's
 * freedom, and a given strategy (a file) is simulated as it is.  O(ops). */
static void row_op_states(const dnp_graph *g, layer_table *lt)
{
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        if (row_op_decider(g, i) < 0)
            continue;
        int v = layer_table_owner(lt, g, i);
        if (v >= 0 && v < lt->n_rows)
            lt->row[v].no_channel = 1;
    }
}

/* Solve the level for a fixed alpha; the types go to w->types and the
 * level objective to *obj (obj may be NULL when only the types are needed).  Graphs
 * too wide for the exact DP (w->approximate) get a local search started
 * from the best of the schemes' fixed assignments (all Type-I; FC
 * Type-II), so the result is never worse than data parallelism or OWT. */
static dnp_status solve_at(level_work *w, const unsigned char *allowed, double alpha,
                           double *obj, dnp_error *err)
{
    /* One allowed state per node (data parallelism, OWT): nothing to search,
     * and nothing to cost when the caller needs only the types (obj NULL). */
    int forced = 1;
    for (int v = 0; v < w->lc.lt->n_rows && forced; v++)
        forced = allowed[v] == 1 || allowed[v] == 2 || allowed[v] == 4;
    if (forced && obj == NULL) {
        for (int v = 0; v < w->lc.lt->n_rows; v++)
            w->types[v] = allowed[v] == 1 ? 0 : allowed[v] == 2 ? 1 : 2;
        return DNP_OK;
    }
    double unused_obj;
    obj = obj != NULL ? obj : &unused_obj;
    w->solves++;
    level_costs_masked(&w->lc, alpha, allowed, w->node_cost, w->edge_cost);
    level_problem lp = {w->lc.lt, allowed, w->node_cost, w->edge_cost};
    if (forced) {
        const layer_table *lt = w->lc.lt;
        double sum = 0.0;
        for (int v = 0; v < lt->n_rows; v++) {
            w->types[v] = allowed[v] == 1 ? 0 : allowed[v] == 2 ? 1 : 2;
            sum += w->node_cost[v * 3 + w->types[v]];
        }
        for (int e = 0; e < lt->n_xchg; e++)
            sum += w->edge_cost[e * 9 + w->types[lt->xchg[e].u] * 3 + w->types[lt->xchg[e].v]];
        *obj = sum;
        return DNP_OK;
    }
    if (!w->approximate)
        return level_dp_solve(&lp, w->types, obj, err);
    const layer_table *lt = w->lc.lt;
    double best = INFINITY;
    for (int start = 0; start < 2; start++) {
        int *t = w->scratch;
        for (int v = 0; v < lt->n_rows; v++) {
            int want = (start == 1 && lt->row[v].weighted && lt->row[v].is_fc) ? 1 : 0;
            int s = (allowed[v] >> want) & 1 ? want : 0;
            while (!((allowed[v] >> s) & 1))
                s++;
            t[v] = s;
        }
        double o = level_local_search(&lp, t);
        if (o < best) {
            best = o;
            memcpy(w->types, t, (size_t)lt->n_rows * sizeof *t);
        }
    }
    *obj = best;
    return DNP_OK;
}

/* ---------------------------------------------------------------- */
/* Building the plan tree top-down                                   */
/* ---------------------------------------------------------------- */

typedef struct {
    const dnp_cluster *cl;
    const layer_table *lt;
    dnp_scheme scheme;
    int levels;
    cost_units units;
    level_work w;
    unsigned char *allowed_scheme, *allowed_dp;
    int level_objective_only; /* nested ratio searches use the level objective */
    const dnp_strategy *given; /* decisions to evaluate instead of searching */
    char *const *names;        /* search-graph node names, for `given` */
    int ratio_rule;            /* DNP_RATIO_EQ10 or DNP_RATIO_SEARCH (resolved) */
    double deadline_s;         /* dnp_now_s() past which ratio searches stop; 0 = none */
    int timed_out;             /* the deadline was seen passed */
} builder;

/* 1 once the search's deadline has passed (then for good, so the rest of
 * the tree is decided without searching).  The clock is read only when a
 * limit was given. */
static int out_of_time(builder *bd)
{
    if (!bd->timed_out && bd->deadline_s > 0.0 && dnp_now_s() >= bd->deadline_s)
        bd->timed_out = 1;
    return bd->timed_out;
}

/* The ratio search's candidates (search_ratio): the equal and capacity
 * splits, the grid k/RATIO_GRID, at most RATIO_FIXED_POINT_ITERS Eq. 10
 * balance points (each after one level solve for the incumbent's types),
 * two per golden-section iteration and the refined midpoint; then one
 * level solve for the chosen ratio. */
#define RATIO_GRID 64
#define RATIO_FIXED_POINT_ITERS 8
#define RATIO_GOLDEN_ITERS 30
#define RATIO_CANDIDATES_MAX (2 + (RATIO_GRID - 1) + RATIO_FIXED_POINT_ITERS + 2 * RATIO_GOLDEN_ITERS + 1)
#define RATIO_EXTRA_SOLVES (RATIO_FIXED_POINT_ITERS + 1)
/* Eq. 10 as printed (eq10_ratio): at most this many level solves, each
 * followed by the ratio Eq. 10 gives for the types found, then one at the
 * chosen ratio. */
#define RATIO_EQ10_ITERS 16

static dnp_status build(builder *bd, tnode *n, unsigned bits, dnp_error *err);
static void evaluate(const layer_table *lt, const cost_units *u, tnode *n);
static dnp_status search_ratio(builder *bd, tnode *n, dnp_error *err);
static dnp_status eq10_ratio(builder *bd, tnode *n, dnp_error *err);

/* Row v's shares at child c of n, which holds `share` of what n splits
 * for it: the strategy's one rule (plan/strategy.h, plan_split_shares;
 * AccPar section 3.2), so the tree's shares and its strategy's are the
 * same doubles. */
static void child_share_row(const layer_table *lt, const tnode *n, int v, double share, tnode *c)
{
    c->fb[v] = n->fb[v];
    c->fi[v] = n->fi[v];
    c->fo[v] = n->fo[v];
    int w = lt->row[v].weighted;
    plan_split_shares(w, plan_split_of_type(w, n->types[v]), share, &c->fb[v], &c->fi[v],
                      &c->fo[v]);
}

static void child_shares(const layer_table *lt, const tnode *n, double share, tnode *c)
{
    for (int v = 0; v < lt->n_rows; v++)
        child_share_row(lt, n, v, share, c);
}

static int same_counts(const int64_t *a, const int64_t *b, int n)
{
    for (int k = 0; k < n; k++)
        if (a[k] != b[k])
            return 0;
    return 1;
}

/* Take the decisions of tree node n (at branch `bits`) from the given
 * strategy. */
static dnp_status given_decisions(builder *bd, tnode *n, unsigned bits, dnp_error *err)
{
    for (int v = 0; v < bd->lt->n_rows; v++) {
        double ratio = 0.5;
        int t = strategy_decision(bd->given, n->depth, bits, bd->names[v],
                                  bd->lt->row[v].weighted, &ratio);
        if (t < 0) {
            dnp_error_set(err, DNP_ERR_INPUT, "%s: %s for op '%s' at level %d",
                          strategy_file(bd->given),
                          t == -1 ? "no decision" : "an invalid type", bd->names[v], n->depth);
            return DNP_ERR_INPUT;
        }
        if (t != DNP_TYPE_R && !((bd->lt->row[v].types >> t) & 1u)) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "%s: op '%s' at level %d: type %s is not one it can take (an LSTM "
                          "splits its batch, I, or is replicated, R)",
                          strategy_file(bd->given), bd->names[v], n->depth,
                          t == DNP_TYPE_II ? "II" : "III");
            return DNP_ERR_INPUT;
        }
        n->types[v] = t;
        n->alpha = ratio;
    }
    return DNP_OK;
}

static dnp_status build(builder *bd, tnode *n, unsigned bits, dnp_error *err)
{
    const layer_table *lt = bd->lt;
    const int V = lt->n_rows;
    if (n->n_dev <= 1)
        return DNP_OK;
    int64_t ca[DNP_MAX_DEVICE_TYPES], cb[DNP_MAX_DEVICE_TYPES];
    topo_tree_split(bd->cl, n->counts, ca, cb);
    int identical = same_counts(ca, cb, bd->cl->n_types);
    /* A strategy's short path (version 2) leaves the levels below it data
     * parallel, as a search's unsearched levels are. */
    int planned = n->depth < bd->levels &&
                  (bd->given == NULL || strategy_has_level(bd->given, n->depth, bits));
    if (bd->given != NULL && planned) {
        n->types = dnp_malloc((size_t)V * sizeof *n->types);
        if (n->types == NULL) {
            dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building the device tree");
            return DNP_ERR_NOMEM;
        }
        dnp_status st = given_decisions(bd, n, bits, err);
        if (st != DNP_OK)
            return st;
        identical = identical && n->alpha == 0.5; /* an uneven split makes the halves differ */
    }
    n->child[0] = tnode_new(bd->cl, ca, n->depth + 1, V);
    n->child[1] = identical ? n->child[0] : tnode_new(bd->cl, cb, n->depth + 1, V);
    n->shared = identical; /* before any failure return: tnode_free frees a shared child once */
    if ((n->child[0] && !tnode_prepare(n->child[0], &bd->units, V)) ||
        (n->child[1] && !identical && !tnode_prepare(n->child[1], &bd->units, V))) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building the device tree");
        return DNP_ERR_NOMEM;
    }
    if (n->types == NULL)
        n->types = dnp_malloc((size_t)V * sizeof *n->types);
    if (!n->child[0] || !n->child[1] || !n->types) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building the device tree");
        return DNP_ERR_NOMEM;
    }

    dnp_scheme s = planned ? bd->scheme : DNP_SCHEME_DP;
    level_work *w = &bd->w;
    w->lc.n = n;
    w->lc.comm_only = s == DNP_SCHEME_HYPAR;
    const unsigned char *allowed = planned ? bd->allowed_scheme : bd->allowed_dp;
    double equal = (double)n->child[0]->n_dev / (double)n->n_dev;
    dnp_status st = DNP_OK;
    if (bd->given != NULL && planned) {
        /* decided above */
    } else if (s == DNP_SCHEME_ACCPAR && !identical && !bd->units.reference_mode) {
        st = bd->ratio_rule == DNP_RATIO_EQ10 ? eq10_ratio(bd, n, err) : search_ratio(bd, n, err);
    } else {
        /* Baselines split equally per device; identical halves get 1/2,
         * which is also what Eq. 10 gives for two equal groups. */
        n->alpha = bd->units.reference_mode ? 0.5 : equal;
        st = solve_at(w, allowed, n->alpha, NULL, err);
        memcpy(n->types, w->types, (size_t)V * sizeof *n->types);
    }
    if (st != DNP_OK)
        return st;
    child_shares(lt, n, n->alpha, n->child[0]);
    if (!identical)
        child_shares(lt, n, 1.0 - n->alpha, n->child[1]);
    if ((st = build(bd, n->child[0], bits, err)) != DNP_OK)
        return st;
    return identical ? DNP_OK : build(bd, n->child[1], bits | (1u << n->depth), err);
}

/* Free everything below n's children and their decisions, keeping the
 * children themselves (device groups) for another candidate ratio. */
static void clear_children(tnode *n)
{
    for (int g = 0; g < 2; g++) {
        tnode *c = n->child[g];
        if (g == 1 && n->shared)
            break;
        tnode_free(c->child[0]);
        if (!c->shared)
            tnode_free(c->child[1]);
        c->child[0] = c->child[1] = NULL;
        c->shared = 0;
        dnp_free(c->types);
        c->types = NULL;
    }
}

/* Predicted time of n's subtree when n splits with ratio alpha: the level
 * is solved at alpha (Eq. 9), the halves are planned below it, and the
 * step time is evaluated (docs/time-model.md).  With `level_only` the
 * level objective itself is returned instead. */
static dnp_status candidate_cost(builder *bd, tnode *n, double alpha, int level_only,
                                 double *cost, dnp_error *err)
{
    level_work *w = &bd->w;
    const int V = bd->lt->n_rows;
    double obj;
    w->lc.n = n;
    w->lc.comm_only = 0;
    dnp_status st = solve_at(w, bd->allowed_scheme, alpha, &obj, err);
    if (st != DNP_OK || level_only) {
        *cost = obj;
        return st;
    }
    n->alpha = alpha;
    memcpy(n->types, w->types, (size_t)V * sizeof *n->types);
    child_shares(bd->lt, n, alpha, n->child[0]);
    child_shares(bd->lt, n, 1.0 - alpha, n->child[1]);
    int saved = bd->level_objective_only;
    bd->level_objective_only = 1;
    st = build(bd, n->child[0], 0, err);
    if (st == DNP_OK)
        st = build(bd, n->child[1], 0, err);
    bd->level_objective_only = saved;
    if (st == DNP_OK) {
        evaluate(bd->lt, &bd->units, n);
        *cost = 0.0;
        for (int v = 0; v < V; v++)
            *cost += n->ev->t_s[v];
    }
    clear_children(n);
    return st;
}

/* AccPar's ratio for two different groups.  Eq. 10 balances the groups,
 * but when one group's communication does not shrink with its share
 * (Table 4 does not depend on alpha) balance is not optimal, so alpha is
 * the minimiser of the predicted step time of the subtree, searched among
 * the equal split, the capacity split, a grid of k/64, Eq. 10's balance
 * points and a golden-section refinement, in [1/128, 127/128].  Nested
 * searches (a group of three or more device types) judge their candidates
 * by the level objective to keep the cost linear in the tree size.
 * Deterministic: candidates are tried in a fixed order and only a strictly
 * better one replaces the incumbent.  Leaves n->alpha and n->types set. */
static dnp_status search_ratio(builder *bd, tnode *n, dnp_error *err)
{
    const int V = bd->lt->n_rows;
    const int level_only = bd->level_objective_only;
    const double lo = 1.0 / 128.0, hi = 1.0 - 1.0 / 128.0;
    /* Until a candidate is judged (or when the time limit is already
     * reached) the split is equal per device, as the baselines'. */
    double best_cost = INFINITY, best_a = (double)n->child[0]->n_dev / (double)n->n_dev, cost;
    dnp_status st;
#define TRY(a_)                                                                       \
    do {                                                                              \
        double ta_ = (a_);                                                            \
        if (out_of_time(bd))                                                          \
            goto decide;                                                              \
        if ((st = candidate_cost(bd, n, ta_, level_only, &cost, err)) != DNP_OK)       \
            return st;                                                                \
        if (cost < best_cost) {                                                       \
            best_cost = cost;                                                         \
            best_a = ta_;                                                             \
        }                                                                             \
    } while (0)

    TRY((double)n->child[0]->n_dev / (double)n->n_dev);
    TRY(n->child[0]->ev->flops / n->ev->flops);
    for (int k = 1; k < RATIO_GRID; k++)
        TRY(k / (double)RATIO_GRID);
    /* Eq. 10 fixed point: balance the groups for the incumbent's types. */
    for (int it = 0; it < RATIO_FIXED_POINT_ITERS; it++) {
        double obj;
        bd->w.lc.n = n;
        if ((st = solve_at(&bd->w, bd->allowed_scheme, best_a, &obj, err)) != DNP_OK)
            return st;
        double a = level_balance_ratio(&bd->w.lc, bd->w.types, lo, hi), before = best_cost;
        TRY(a);
        if (!(best_cost < before))
            break;
    }
    /* Golden-section refinement around the incumbent. */
    double l = best_a - 1.0 / RATIO_GRID, r = best_a + 1.0 / RATIO_GRID;
    l = l < lo ? lo : l;
    r = r > hi ? hi : r;
    const double phi = 0.6180339887498949;
    for (int it = 0; it < RATIO_GOLDEN_ITERS; it++) {
        if (out_of_time(bd))
            goto decide;
        double m1 = r - phi * (r - l), m2 = l + phi * (r - l), c1, c2;
        if ((st = candidate_cost(bd, n, m1, level_only, &c1, err)) != DNP_OK ||
            (st = candidate_cost(bd, n, m2, level_only, &c2, err)) != DNP_OK)
            return st;
        if (c1 <= c2)
            r = m2;
        else
            l = m1;
    }
    TRY(0.5 * (l + r));
#undef TRY
decide:;
    double obj;
    bd->w.lc.n = n;
    bd->w.lc.comm_only = 0;
    if ((st = solve_at(&bd->w, bd->allowed_scheme, best_a, &obj, err)) != DNP_OK)
        return st;
    n->alpha = best_a;
    memcpy(n->types, bd->w.types, (size_t)V * sizeof *n->types);
    return DNP_OK;
}

/* AccPar's ratio by Eq. 10 as printed (section 5.3; docs/time-model.md "The
 * ratio"): alpha E_a = beta E_b with each group's per-unit costs
 * (level_unit_times) for the level's types.  The types depend on alpha
 * (Eq. 9's DP at that ratio) and the ratio on the types, so the two are
 * iterated from Eq. 8's balance (the groups' peak FLOP/s, Eq. 10 without
 * communication) until the types found at alpha give alpha back, at most
 * RATIO_EQ10_ITERS times; alpha kept in [1/128, 127/128].  Deterministic.
 * Leaves n->alpha and n->types set. */
static dnp_status eq10_ratio(builder *bd, tnode *n, dnp_error *err)
{
    const int V = bd->lt->n_rows;
    const double lo = 1.0 / 128.0, hi = 1.0 - 1.0 / 128.0;
    level_work *w = &bd->w;
    double alpha = n->child[0]->ev->flops / n->ev->flops, obj;
    alpha = alpha < lo ? lo : alpha > hi ? hi : alpha;
    dnp_status st;
    if (out_of_time(bd)) /* as search_ratio: the equal split per device */
        alpha = (double)n->child[0]->n_dev / (double)n->n_dev;
    for (int it = 0; it < RATIO_EQ10_ITERS && !out_of_time(bd); it++) {
        w->lc.n = n;
        w->lc.comm_only = 0;
        if ((st = solve_at(w, bd->allowed_scheme, alpha, &obj, err)) != DNP_OK)
            return st;
        double next = level_eq10_ratio(&w->lc, w->types, lo, hi);
        if (next == alpha) /* the types at alpha give alpha: a fixed point */
            break;
        alpha = next;
    }
    w->lc.n = n;
    w->lc.comm_only = 0;
    if ((st = solve_at(w, bd->allowed_scheme, alpha, &obj, err)) != DNP_OK)
        return st;
    n->alpha = alpha;
    memcpy(n->types, w->types, (size_t)V * sizeof *n->types);
    return DNP_OK;
}

/* Upper bounds on the level solves (solve_at calls that cost and solve a
 * level) of building the AccPar subtree of group `counts` at `depth`: in
 * *nested with every ratio search judging its candidates by the level
 * objective, in *full with the searches judging them by the planned
 * subtree, as build() does from the root (search_ratio).  The tree's shape
 * depends on the counts only (topo_tree_split), so this is exact up to the
 * fixed point's early exit.  O(tree nodes); a shared half counted once. */
static void estimate_solves(const builder *bd, const int64_t *counts, int depth, double *nested,
                            double *full)
{
    *nested = *full = 0.0;
    if (sum_counts(bd->cl, counts) <= 1)
        return;
    int64_t a[DNP_MAX_DEVICE_TYPES], b[DNP_MAX_DEVICE_TYPES];
    topo_tree_split(bd->cl, counts, a, b);
    int identical = same_counts(a, b, bd->cl->n_types);
    double na, fa, nb = 0.0, fb = 0.0;
    estimate_solves(bd, a, depth + 1, &na, &fa);
    if (!identical)
        estimate_solves(bd, b, depth + 1, &nb, &fb);
    if (depth >= bd->levels) { /* data parallel: forced, nothing solved */
        *nested = na + nb;
        *full = fa + fb;
    } else if (identical) { /* one solve at the equal split */
        *nested = 1.0 + na;
        *full = 1.0 + fa;
    } else if (bd->ratio_rule == DNP_RATIO_EQ10) { /* eq10_ratio: no candidates judged */
        *nested = RATIO_EQ10_ITERS + 1.0 + na + nb;
        *full = RATIO_EQ10_ITERS + 1.0 + fa + fb;
    } else {
        *nested = RATIO_CANDIDATES_MAX + RATIO_EXTRA_SOLVES + na + nb;
        *full = RATIO_CANDIDATES_MAX * (1.0 + na + nb) + RATIO_EXTRA_SOLVES + fa + fb;
    }
}

/* ---------------------------------------------------------------- */
/* Evaluation: the step time                                          */
/* ---------------------------------------------------------------- */

static void evaluate(const layer_table *lt, const cost_units *u, tnode *n)
{
    const int V = lt->n_rows;
    if (n->child[0] == NULL) {
        /* A single device: its share of every layer's FLOP (Eq. 8). */
        double mem = 0.0;
        for (int v = 0; v < V; v++) {
            double t = u->reference_mode ? 0.0
                       : u->paper        ? node_flop(lt, n, v) / n->ev->flops
                                         : roofline_group_s(u, lt, n, v, 1.0, n);
            n->ev->t_s[v] = n->ev->tc_s[v] = t;
            n->ev->recv_bytes[v] = 0.0;
            const layer_row *p = &lt->row[v];
            if (p->weighted)
                mem += 2.0 * p->w_elems * n->fi[v] * n->fo[v] +
                       p->fin_elems * n->fb[v] * n->fi[v];
        }
        n->ev->mem_bytes = mem * u->bytes_per_elem;
        n->ev->mem_cap_at_max = n->ev->mem_cap_bytes;
        return;
    }
    evaluate(lt, u, n->child[0]);
    if (!n->shared)
        evaluate(lt, u, n->child[1]);
    level_ctx lc = {lt, n, *u, 0};
    for (int v = 0; v < V; v++) {
        /* The inter-layer conversions into v, each a synchronised exchange. */
        double edge_s = 0.0, edge_bytes = 0.0;
        for (int e = lt->in_start[v]; e < lt->in_start[v + 1]; e++) {
            const layer_xchg *pe = &lt->xchg[e];
            double A = edge_elems(lt, n, e), worst = -1.0, worst_elems = 0.0;
            for (int g = 0; g < 2; g++) {
                double el = accpar_inter_elems(lt->row[pe->u].weighted, n->types[pe->u],
                                               lt->row[v].weighted, n->types[v], A, n->alpha, g);
                double x = comm_cost(&lc, el, n->child[g]);
                if (x > worst) {
                    worst = x;
                    worst_elems = el;
                }
            }
            edge_s += worst;
            edge_bytes += worst_elems * u->bytes_per_elem;
        }
        /* Then the layer: each half does its intra-layer exchange and its
         * own subtree's work; the slower half sets the time. */
        double ie = intra_elems(lt, n, v, n->types[v]);
        int gmax = 0;
        double xmax = -1.0;
        for (int g = 0; g < 2; g++) {
            double x = comm_cost(&lc, ie, n->child[g]) + n->child[g]->ev->t_s[v];
            if (x > xmax) {
                xmax = x;
                gmax = g;
            }
        }
        n->ev->t_s[v] = edge_s + xmax;
        n->ev->tc_s[v] = n->child[gmax]->ev->tc_s[v];
        n->ev->recv_bytes[v] =
            edge_bytes + ie * u->bytes_per_elem + n->child[gmax]->ev->recv_bytes[v];
    }
    const tnode *m = n->child[0];
    if (n->child[1]->ev->mem_bytes > m->ev->mem_bytes)
        m = n->child[1];
    n->ev->mem_bytes = m->ev->mem_bytes;
    n->ev->mem_cap_at_max = m->ev->mem_cap_at_max;
}

/* ---------------------------------------------------------------- */
/* One row re-decided (the PaSE refinement's moves)                  */
/* ---------------------------------------------------------------- */

/* child_shares for row v only, through n's subtree (shared halves once). */
static void reshare_row(const layer_table *lt, tnode *n, int v)
{
    if (n->child[0] == NULL || n->types == NULL)
        return;
    for (int g = 0; g < 2; g++) {
        tnode *c = n->child[g];
        if (g == 1 && n->shared)
            break;
        child_share_row(lt, n, v, g == 0 ? n->alpha : 1.0 - n->alpha, c);
        reshare_row(lt, c, v);
    }
}

static void set_row_types(tnode *n, int v, const int *types, int n_types)
{
    if (n == NULL || n->child[0] == NULL || n->types == NULL)
        return;
    if (n->depth < n_types)
        n->types[v] = types[n->depth];
    set_row_types(n->child[0], v, types, n_types);
    if (!n->shared)
        set_row_types(n->child[1], v, types, n_types);
}

void plan_set_row_types(dnp_plan *p, int row, const int *types, int n_types)
{
    set_row_types(p->root, row, types, n_types);
    reshare_row(&p->lt, p->root, row);
}

plan_tree plan_tree_of(const dnp_plan *p)
{
    plan_tree t = {.model = p->model,
                   .cl = &p->cl,
                   .lt = &p->lt,
                   .root = p->root,
                   .batch = p->opt.batch};
    return t;
}

lower_context plan_lower_context(const dnp_plan *p)
{
    lower_context m = {.model = p->model,
                       .cl = &p->cl,
                       .lt = &p->lt,
                       .node_names = p->node_names,
                       .pace = p->pace,
                       .deadline_s = p->deadline_s,
                       .time_limit_s = p->opt.time_limit_s};
    return m;
}

dnp_status plan_lower(const dnp_plan *p, const dnp_graph *g, const dnp_plan_options *opt,
                      lower_result *out, dnp_error *err)
{
    plan_tree t = plan_tree_of(p);
    plan_strategy *s = NULL;
    dnp_status st = plan_strategy_from_tree(&t, &s, err);
    if (st != DNP_OK)
        return st;
    lower_context m = plan_lower_context(p);
    sim_lowered r; /* a tree strategy: lower_simulate's step, handed over whole */
    st = sim_lower(g, s, &m, opt, 0, 0, &r, err);
    *out = r.groups;
    plan_strategy_free(s);
    return st;
}

int plan_row_type(const dnp_plan *p, int row, int depth)
{
    const tnode *n = p->root;
    while (n != NULL && n->child[0] != NULL && n->depth < depth)
        n = n->child[0];
    return n != NULL && n->child[0] != NULL && n->types != NULL && n->depth == depth
               ? n->types[row]
               : -1;
}

dnp_status plan_try_row(dnp_plan *p, const dnp_graph *g, int row, const int *types, int n_types,
                        double *best_s, int *kept, dnp_error *err)
{
    int old[PLAN_MAX_LEVELS];
    int n = n_types < PLAN_MAX_LEVELS ? n_types : PLAN_MAX_LEVELS;
    for (int d = 0; d < n; d++)
        old[d] = plan_row_type(p, row, d);
    *kept = 0;
    plan_set_row_types(p, row, types, n);
    lower_result r;
    memset(&r, 0, sizeof r);
    dnp_status st = plan_lower(p, g, &p->opt, &r, err);
    if (st == DNP_OK && r.fits && r.step_time_s < *best_s) {
        *best_s = r.step_time_s;
        lower_result_free(&p->sim);
        p->sim = r;
        p->has_sim = 1;
        *kept = 1;
        return DNP_OK;
    }
    lower_result_free(&r);
    plan_set_row_types(p, row, old, n);
    return st;
}

/* ---------------------------------------------------------------- */
/* Public API                                                        */
/* ---------------------------------------------------------------- */

void dnp_plan_free(dnp_plan *p)
{
    if (p == NULL)
        return;
    if (p->node_names != NULL)
        for (int v = 0; v < p->lt.n_rows; v++)
            dnp_free(p->node_names[v]);
    dnp_free(p->node_names);
    dnp_free(p->inv_time);
    lower_result_free(&p->sim);
    lower_result_free(&p->paper_sim);
    tnode_free(p->root);
    layer_table_free(&p->lt);
    dnp_free(p);
}

static int cluster_bytes_per_elem(const dnp_cluster *c)
{
    int b = 0;
    for (int k = 0; k < c->n_types; k++)
        if (c->counts[k] > 0 && c->types[k].bytes_per_elem > b)
            b = c->types[k].bytes_per_elem;
    return b > 0 ? b : 4;
}

/* The step of a decided plan: its tree as the one strategy type, lowered.
 * Under the paper's accounting the analytical evaluation replayed by the
 * simulator (lower_paper), under the default model the simulated step
 * (plan_lower; the search's per-level view is not needed any more). */
static dnp_status finish_plan(dnp_plan *p, const dnp_graph *g, const dnp_plan_options *opt,
                              dnp_error *err)
{
    if (p->units.paper) {
        evaluate(&p->lt, &p->units, p->root);
        if (p->units.reference_mode)
            return DNP_OK;
        plan_tree t = plan_tree_of(p);
        plan_strategy *s = NULL;
        dnp_status st = plan_strategy_from_tree(&t, &s, err);
        if (st == DNP_OK)
            st = lower_paper(s, p->root->ev->t_s, p->root->ev->tc_s, &p->paper_sim, err);
        plan_strategy_free(s);
        return st;
    }
    dnp_status st = plan_lower(p, g, opt, &p->sim, err);
    p->has_sim = st == DNP_OK;
    return st;
}

/* 1 if finish_plan's status st is lower_simulate stopping at p's deadline
 * (its one DNP_ERR_INPUT besides a tree too deep, which no deadline
 * passes for). */
static int lowering_timed_out(const dnp_plan *p, dnp_status st)
{
    return st == DNP_ERR_INPUT && dnp_deadline_passed(p->deadline_s);
}

/* 1 if two decided trees (planned on the same graph and cluster) make the
 * same decisions everywhere: same ratios and types at every node. */
static int same_tree(const tnode *a, const tnode *b, int V)
{
    if (a == NULL || b == NULL)
        return a == b;
    if ((a->child[0] == NULL) != (b->child[0] == NULL) || a->shared != b->shared)
        return 0;
    if (a->child[0] == NULL)
        return 1;
    if (a->alpha != b->alpha || memcmp(a->types, b->types, (size_t)V * sizeof *a->types) != 0)
        return 0;
    return same_tree(a->child[0], b->child[0], V) &&
           (a->shared || same_tree(a->child[1], b->child[1], V));
}

/* Default model: each planned node's roofline time (whole batch, all its
 * ops' three passes) on one device of each type, as rates for the search's
 * per-level view. */
static dnp_status roofline_table(dnp_plan *p, const dnp_graph *g, const dnp_plan_options *opt)
{
    const int V = p->lt.n_rows, n_ops = dnp_graph_n_ops(g);
    double *time_s = dnp_calloc((size_t)V * DNP_MAX_DEVICE_TYPES, sizeof *time_s);
    if (time_s == NULL)
        return DNP_ERR_NOMEM;
    int act_bytes = 0;
    for (int k = 0; k < p->cl.n_types; k++) {
        perf_rates r;
        perf_rates_get(&p->cl.types[k], opt->precision, &r);
        /* The expected slowest of the type's devices paces its share of
         * every synchronous step (docs/device-model.md, "Stragglers"). */
        r.pace = p->pace[k] = opt->no_stragglers ? 1.0
                                                 : perf_straggler_pace(p->cl.types[k].speed_cv,
                                                                       (double)p->cl.counts[k]);
        act_bytes = r.act_bytes > act_bytes ? r.act_bytes : act_bytes;
        for (int i = 0; i < n_ops; i++) {
            int v = layer_table_owner(&p->lt, g, i);
            v = v >= 0 ? v : 0; /* the model input's chain: with the first layer */
            perf_op_time t;
            perf_op_time_get(g, i, opt->batch, 1.0, 1.0, 1.0, &r, &t);
            time_s[(size_t)v * DNP_MAX_DEVICE_TYPES + (size_t)k] += t.fwd_s + t.bwd_s + t.wgrad_s;
        }
    }
    for (size_t j = 0; j < (size_t)V * DNP_MAX_DEVICE_TYPES; j++)
        time_s[j] = time_s[j] > 0.0 ? 1.0 / time_s[j] : 0.0;
    p->inv_time = time_s;
    p->units.inv_time = time_s;
    p->units.bytes_per_elem = act_bytes > 0 ? act_bytes : 4;
    return DNP_OK;
}

/* Everything about a plan that does not depend on the search scheme: the
 * checked options, the search graph, the roofline rates, the node names.
 * On success *out has no tree yet (plan_search makes one). */
static dnp_status plan_prepare(const dnp_graph *g, const dnp_cluster *c,
                               const dnp_plan_options *opt, const dnp_strategy *given,
                               dnp_plan **out, dnp_error *err)
{
    dnp_status st = DNP_ERR_NOMEM;
    if (opt->batch <= 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "batch size must be a positive integer (got %lld)",
                      (long long)opt->batch);
        return DNP_ERR_INPUT;
    }
    if (opt->scheme < 0 || opt->scheme >= DNP_SCHEME_COUNT) {
        dnp_error_set(err, DNP_ERR_INPUT, "unknown search scheme %d", (int)opt->scheme);
        return DNP_ERR_INPUT;
    }
    if (opt->accpar_ratio < 0 || opt->accpar_ratio >= DNP_RATIO_COUNT) {
        dnp_error_set(err, DNP_ERR_INPUT, "unknown ratio rule %d", opt->accpar_ratio);
        return DNP_ERR_INPUT;
    }
    if (opt->cost_model == DNP_COST_PASE_PAPER) { /* Eq. 1 of PaSE: its own search only */
        dnp_error_set(err, DNP_ERR_INPUT, "cost model 'pase-paper' applies to the PaSE search");
        return DNP_ERR_INPUT;
    }
    if (!(opt->time_limit_s >= 0.0) || !isfinite(opt->time_limit_s) ||
        !(opt->time_limit_from_s >= 0.0) || !isfinite(opt->time_limit_from_s)) {
        dnp_error_set(err, DNP_ERR_INPUT, "time limit must be a finite number of seconds >= 0 "
                      "from a clock reading >= 0 (got %g s from %g)", opt->time_limit_s,
                      opt->time_limit_from_s);
        return DNP_ERR_INPUT;
    }
    int64_t n_dev = dnp_cluster_devices(c);
    if (n_dev < 1) {
        dnp_error_set(err, DNP_ERR_INPUT, "the cluster has no devices");
        return DNP_ERR_INPUT;
    }
    int max_levels = dnp_cluster_max_levels(c);
    int levels = given != NULL ? dnp_strategy_levels(given) : opt->levels;
    if (given != NULL && levels == 0 && max_levels > 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "the strategy covers no level");
        return DNP_ERR_INPUT;
    }
    /* A strategy may decide below the shallowest leaf on the branches deep
     * enough (short paths elsewhere): bounded by the tree's depth. */
    int bound = given != NULL ? dnp_cluster_tree_depth(c) : max_levels;
    if (levels < 0 || levels > bound) {
        char *spec = dnp_cluster_spec(c);
        dnp_error_set(err, DNP_ERR_INPUT,
                      "cluster %.300s supports at most %d hierarchy levels (every group above "
                      "the last level needs two devices); asked for %d",
                      spec != NULL ? spec : "(out of memory)", bound, levels);
        dnp_free(spec);
        return DNP_ERR_INPUT;
    }
    dnp_plan *p = dnp_calloc(1, sizeof *p);
    if (p == NULL)
        goto fail;
    snprintf(p->model, sizeof p->model, "%s", dnp_graph_name(g));
    p->opt = *opt;
    p->cl = *c;
    p->deadline_s = dnp_deadline_at(opt->time_limit_from_s, opt->time_limit_s);
    p->levels = levels == 0 ? max_levels : levels;
    int min_depth;
    leaf_depths(c, c->counts, &min_depth, &p->total_levels);
    p->units.reference_mode = opt->reference_mode;
    p->units.paper = opt->reference_mode || opt->cost_model == DNP_COST_ACCPAR_PAPER;
    p->units.bytes_per_elem = cluster_bytes_per_elem(c);
    p->units.cl = &p->cl;
    p->chosen = opt->scheme;
    if ((st = layer_table_build(g, opt->batch, &p->lt, err)) != DNP_OK)
        goto fail;
    if (!p->units.paper)
        row_op_states(g, &p->lt);
    if (!p->units.paper && (st = roofline_table(p, g, opt)) != DNP_OK)
        goto fail;
    st = DNP_ERR_NOMEM;
    const int V = p->lt.n_rows;
    p->node_names = dnp_calloc((size_t)V, sizeof *p->node_names);
    if (p->node_names == NULL)
        goto fail;
    for (int v = 0; v < V; v++) {
        p->node_names[v] = dnp_strdup(dnp_graph_op(g, p->lt.row[v].op)->name);
        if (p->node_names[v] == NULL)
            goto fail;
    }
    p->width = level_dp_width(&p->lt);
    *out = p;
    return DNP_OK;
fail:
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory while planning");
    dnp_plan_free(p);
    return st;
}

/* Build p->root (replacing none: p->root must be NULL) by searching with
 * `scheme`, or by taking the decisions of `given`. */
static dnp_status plan_search(dnp_plan *p, const dnp_cluster *c, dnp_scheme scheme,
                              const dnp_strategy *given, double deadline_s, dnp_error *err)
{
    dnp_status st = DNP_ERR_NOMEM;
    builder bd = {0};
    const int V = p->lt.n_rows;
    p->root = tnode_new(c, c->counts, 0, V);
    if (p->root == NULL || !tnode_prepare(p->root, &p->units, V))
        goto fail;
    for (int v = 0; v < V; v++)
        p->root->fb[v] = p->root->fi[v] = p->root->fo[v] = 1.0;

    bd.cl = c;
    bd.lt = &p->lt;
    bd.scheme = scheme;
    bd.levels = p->levels;
    bd.units = p->units;
    bd.given = given;
    bd.names = p->node_names;
    bd.w.lc.lt = &p->lt;
    bd.w.lc.units = p->units;
    bd.allowed_scheme = dnp_malloc((size_t)V);
    bd.allowed_dp = dnp_malloc((size_t)V);
    bd.w.node_cost = dnp_malloc((size_t)V * 3 * sizeof(double));
    bd.w.edge_cost = dnp_malloc((size_t)(p->lt.n_xchg + 1) * 9 * sizeof(double));
    bd.w.types = dnp_malloc((size_t)V * sizeof(int));
    bd.w.scratch = dnp_malloc((size_t)V * sizeof(int));
    if (!bd.allowed_scheme || !bd.allowed_dp || !bd.w.node_cost || !bd.w.edge_cost ||
        !bd.w.types || !bd.w.scratch)
        goto fail;
    bd.w.approximate = p->width > LEVEL_DP_MAX_FRONTIER + 1;
    /* The ratio rule (docs/time-model.md "The ratio"): Eq. 10 as printed is
     * the paper's accounting's, the searched ratio the default model's. */
    bd.ratio_rule = p->opt.accpar_ratio != DNP_RATIO_MODEL ? p->opt.accpar_ratio
                    : p->units.paper                         ? DNP_RATIO_EQ10
                                                             : DNP_RATIO_SEARCH;
    allowed_states(&p->lt, scheme, bd.allowed_scheme);
    allowed_states(&p->lt, DNP_SCHEME_DP, bd.allowed_dp);
    if (scheme == DNP_SCHEME_ACCPAR && given == NULL && !p->units.reference_mode) {
        /* Budget the ratio searches before starting (docs/time-model.md,
         * "Search cost"): past it every search judges its candidates by the
         * level objective, as nested searches always do. */
        double nested, full;
        estimate_solves(&bd, c->counts, 0, &nested, &full);
        p->ratio_est_solves = full;
        /* Eq. 10 as printed judges no candidates: nothing to budget. */
        if (bd.ratio_rule == DNP_RATIO_SEARCH && full * (double)V > PLAN_RATIO_BUDGET_NODE_SOLVES) {
            bd.level_objective_only = 1;
            p->ratio_level_only = 1;
            p->ratio_est_solves = nested;
        }
    }
    bd.deadline_s = deadline_s;
    st = build(&bd, p->root, 0, err);
    p->level_solves += bd.w.solves;
    p->time_limit_hit = p->time_limit_hit || bd.timed_out;
fail:
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory while planning");
    dnp_free(bd.allowed_scheme);
    dnp_free(bd.allowed_dp);
    dnp_free(bd.w.node_cost);
    dnp_free(bd.w.edge_cost);
    dnp_free(bd.w.types);
    dnp_free(bd.w.scratch);
    return st;
}

/* Plan (search, or take `given`) and simulate the step. */
static dnp_status plan_run(const dnp_graph *g, const dnp_cluster *c, const dnp_plan_options *opt,
                           const dnp_strategy *given, dnp_plan **out, dnp_error *err)
{
    double t0 = dnp_now_s();
    dnp_plan *p = NULL;
    dnp_status st = plan_prepare(g, c, opt, given, &p, err);
    if (st == DNP_OK)
        st = plan_search(p, c, opt->scheme, given, 0.0, err);
    if (st == DNP_OK)
        st = finish_plan(p, g, opt, err);
    if (st != DNP_OK) {
        dnp_plan_free(p);
        return st;
    }
    p->search_time_s = dnp_now_s() - t0;
    *out = p;
    return DNP_OK;
}

dnp_status plan_prepare_lowering(const dnp_graph *g, const dnp_cluster *c,
                                const dnp_plan_options *opt, dnp_plan **out, dnp_error *err)
{
    return plan_prepare(g, c, opt, NULL, out, err);
}

/* Group i of s and its subtree as tree nodes of p (all prepared, as
 * build() makes them: the group's devices, and at a split group its
 * alpha, halves and each row's type or layout); NULL when out of memory. */
static tnode *node_of_group(const dnp_plan *p, const plan_strategy *s, int i)
{
    const plan_group *gr = &s->group[i];
    const int V = p->lt.n_rows;
    tnode *n = tnode_new(&p->cl, gr->counts, gr->depth, V);
    if (n == NULL || !tnode_prepare(n, &p->units, V)) {
        tnode_free(n);
        return NULL;
    }
    if (gr->child[0] < 0)
        return n;
    n->alpha = gr->alpha;
    n->shared = gr->shared;
    n->types = dnp_malloc((size_t)(V > 0 ? V : 1) * sizeof *n->types);
    n->child[0] = n->types != NULL ? node_of_group(p, s, gr->child[0]) : NULL;
    n->child[1] = gr->shared || n->child[0] == NULL ? n->child[0]
                                                    : node_of_group(p, s, gr->child[1]);
    if (n->types == NULL || n->child[0] == NULL || n->child[1] == NULL) {
        n->shared = n->child[0] == n->child[1]; /* tnode_free frees a shared child once */
        tnode_free(n);
        return NULL;
    }
    for (int v = 0; v < V; v++)
        n->types[v] = plan_split_type(p->lt.row[v].weighted, gr->split[v]);
    return n;
}

/* The shares of every node below n from n's (child_shares, as build()
 * gives them).  O(nodes x rows). */
static void shares_below(const layer_table *lt, tnode *n)
{
    if (n->child[0] == NULL)
        return;
    child_shares(lt, n, n->alpha, n->child[0]);
    if (!n->shared)
        child_shares(lt, n, 1.0 - n->alpha, n->child[1]);
    shares_below(lt, n->child[0]);
    if (!n->shared)
        shares_below(lt, n->child[1]);
}

dnp_status plan_finish_groups(dnp_plan *p, const dnp_graph *g, const plan_strategy *s,
                              double t0_s, dnp_error *err)
{
    if (p->root != NULL || s->n_groups < 1 || s->n_ops != p->lt.n_rows) {
        dnp_error_set(err, DNP_ERR_INPUT, "a strategy without device groups, or not of the "
                                          "plan's layer table");
        return DNP_ERR_INPUT;
    }
    p->root = node_of_group(p, s, 0);
    if (p->root == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory while planning");
        return DNP_ERR_NOMEM;
    }
    for (int v = 0; v < p->lt.n_rows; v++)
        p->root->fb[v] = p->root->fi[v] = p->root->fo[v] = 1.0;
    shares_below(&p->lt, p->root);
    /* the levels a strategy file of these groups covers: its deepest leaf */
    p->levels = 0;
    for (int i = 0; i < s->n_groups; i++)
        p->levels = s->group[i].depth > p->levels ? s->group[i].depth : p->levels;
    dnp_status st = finish_plan(p, g, &p->opt, err);
    p->search_time_s = dnp_now_s() - t0_s;
    return st;
}

static int plan_fits(const dnp_plan *p) { return !p->has_sim || p->sim.fits; }
static double plan_step_s(const dnp_plan *p)
{
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    return s.step_time_s;
}
static double plan_mem_bytes(const dnp_plan *p)
{
    return p->has_sim ? p->sim.mem_peak_bytes : p->root->ev->mem_bytes;
}

/* The parts of a plan that belong to one searched tree, so the portfolio
 * below can keep an incumbent while it tries another scheme's tree on the
 * same prepared plan. */
typedef struct {
    tnode *root;
    int has_sim;
    lower_result sim, paper_sim;
    dnp_scheme chosen;
} tree_state;

static void tree_take(dnp_plan *p, tree_state *t)
{
    t->root = p->root;
    t->has_sim = p->has_sim;
    t->sim = p->sim;
    t->paper_sim = p->paper_sim;
    t->chosen = p->chosen;
    p->root = NULL;
    p->has_sim = 0;
    memset(&p->sim, 0, sizeof p->sim);
    memset(&p->paper_sim, 0, sizeof p->paper_sim);
}

static void tree_put(dnp_plan *p, tree_state *t)
{
    p->root = t->root;
    p->has_sim = t->has_sim;
    p->sim = t->sim;
    p->paper_sim = t->paper_sim;
    p->chosen = t->chosen;
    memset(t, 0, sizeof *t);
}

static void tree_free(tree_state *t)
{
    tnode_free(t->root);
    lower_result_free(&t->sim);
    lower_result_free(&t->paper_sim);
    memset(t, 0, sizeof *t);
}

/* AccPar's space contains the baselines' assignments (all Type-I; FC
 * Type-II; Types I/II at equal ratios), but its hierarchical search is
 * greedy level by level and the default model's per-level view is an
 * approximation of the simulated step.  So an AccPar plan is also judged
 * against the baselines' plans and the fastest that fits in memory is
 * returned (its `chosen` names whose assignment it is).  The candidates
 * share one prepared plan (search graph, rates, names).  Under the
 * default model a search whose every candidate exceeds the memory limit
 * fails with DNP_ERR_INPUT naming the smallest footprint found. */
static dnp_status plan_run_all(const dnp_graph *g, const dnp_cluster *c,
                               const dnp_plan_options *opt, dnp_plan **out, dnp_error *err)
{
    int portfolio = opt->scheme == DNP_SCHEME_ACCPAR && !opt->reference_mode && !opt->no_portfolio;
    double t0 = dnp_now_s();
    dnp_plan *p = NULL;
    dnp_status st = plan_prepare(g, c, opt, NULL, &p, err);
    /* One deadline (p->deadline_s, from the command's start): the searches
     * stop at half of the limit, the other half is kept for lowering and
     * simulating their plans, which grow with the devices and tasks
     * (10^6 devices: seconds) and read the whole deadline. */
    double search_deadline_s = 0.0;
    if (st == DNP_OK && p->deadline_s > 0.0)
        search_deadline_s = p->deadline_s - 0.5 * opt->time_limit_s;
    if (st == DNP_OK)
        st = plan_search(p, c, opt->scheme, NULL, search_deadline_s > 0.0 ? search_deadline_s
                                                                          : p->deadline_s, err);
    if (st == DNP_OK)
        st = finish_plan(p, g, opt, err);
    if (st != DNP_OK) {
        dnp_plan_free(p);
        return st;
    }
    double min_mem = plan_mem_bytes(p);
    /* Past the time limit the incumbent is the best plan found so far. */
    for (int s = 0; portfolio && !p->time_limit_hit && s < DNP_SCHEME_COUNT; s++) {
        if (s == DNP_SCHEME_ACCPAR)
            continue;
        tree_state best, cand;
        tree_take(p, &best);
        p->chosen = (dnp_scheme)s;
        st = plan_search(p, c, (dnp_scheme)s, NULL, search_deadline_s, err);
        /* A baseline that decided exactly what the incumbent did is the
         * same plan: no need to simulate it.  A baseline cut at the time
         * limit (its search, or the simulation of its step) is not that
         * baseline: dropped, the incumbent kept and flagged. */
        int cut = st == DNP_OK && p->time_limit_hit;
        if (st == DNP_OK && !cut && same_tree(p->root, best.root, p->lt.n_rows)) {
            tree_take(p, &cand);
            tree_free(&cand);
            tree_put(p, &best);
            continue;
        }
        if (st == DNP_OK && !cut) {
            st = finish_plan(p, g, opt, err);
            cut = lowering_timed_out(p, st);
        }
        if (cut) {
            tree_take(p, &cand);
            tree_free(&cand);
            tree_put(p, &best);
            p->time_limit_hit = 1;
            st = DNP_OK;
            break;
        }
        if (st != DNP_OK) {
            tree_take(p, &cand);
            tree_free(&cand);
            tree_free(&best);
            dnp_plan_free(p);
            return st;
        }
        double m = plan_mem_bytes(p), cand_step = plan_step_s(p);
        int cand_fits = plan_fits(p);
        min_mem = m < min_mem ? m : min_mem;
        tree_take(p, &cand);
        tree_put(p, &best);
        int best_fits = plan_fits(p);
        int better = (cand_fits && !best_fits) ||
                     (cand_fits == best_fits && cand_step < plan_step_s(p));
        if (better) {
            tree_take(p, &best);
            tree_free(&best);
            tree_put(p, &cand);
        } else {
            tree_free(&cand);
        }
    }
    if (p->has_sim && !p->sim.fits && !opt->keep_over_memory) {
        plan_over_memory(p, g, &p->sim, min_mem, err);
        dnp_plan_free(p);
        return DNP_ERR_INPUT;
    }
    p->search_time_s = dnp_now_s() - t0;
    *out = p;
    return DNP_OK;
}

/* AccPar's hierarchy must give every device work (its level ratios are
 * kept inside [1/128, 127/128]), so a slow device type, or more devices
 * than a small batch can use, can make the plan slower than fewer devices
 * (issue 30: AlexNet at batch 16 on 2 TPU-v2 + 2 TPU-v3, where PaSE's plan
 * on one TPU-v3 is 5.8x faster).  Under the default model the portfolio
 * therefore also plans each device type alone and, when the plan on every
 * device is mostly exposed communication, halves of each type down to one
 * device, and keeps the fastest that fits; the plan then runs on those
 * devices (dnp_plan_cluster) and says what it leaves idle.  Only with
 * opt->allow_idle (plan and compare --allow-idle); not under the
 * paper's accounting (the reproductions use every device, as the paper's
 * mechanism does), nor with no_portfolio.  Costs one more plan per type,
 * and log2(devices) more when communication-bound. */
/* 1 if the plan's step is mostly exposed communication: the case where
 * fewer devices (less to exchange) can be faster. */
static int comm_bound(const dnp_plan *p)
{
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    return s.exposed_comm_s >= 0.5 * s.step_time_s;
}

/* Whether dnp_plan_run also weighs fewer devices for plan p (the comment
 * above). */
static int weigh_fewer_devices(const dnp_plan *p, const dnp_plan_options *opt)
{
    return opt->allow_idle && opt->scheme == DNP_SCHEME_ACCPAR && !opt->reference_mode &&
           !opt->no_portfolio && !p->units.paper && p->has_sim;
}

/* The portfolio over fewer devices (the comment above): *pp, the plan on
 * every device of c, is replaced by a faster one that fits on some of
 * them, if any.  On DNP_ERR_NOMEM *pp is freed and NULL. */
static dnp_status plan_fewer_devices(const dnp_graph *g, const dnp_cluster *c,
                                     const dnp_plan_options *opt, dnp_plan **pp, dnp_error *err)
{
    dnp_plan *p = *pp;
    const double all_s = plan_step_s(p);
    const int64_t all_devices = dnp_cluster_devices(c);
    const int halve = comm_bound(p);
    /* The candidates: each device type alone (a mixed cluster), and, when
     * the plan on every device is mostly exposed communication (where
     * fewer devices have less to exchange), halves of each type's count
     * down to one device; the fastest that fits wins. */
    for (int k = 0; k < c->n_types && !p->time_limit_hit; k++) {
        dnp_cluster one = *c;
        one.n_types = 1;
        one.types[0] = c->types[k];
        for (int64_t n = c->counts[k]; n >= 1 && !p->time_limit_hit;
             n = halve && n % 2 == 0 ? n / 2 : 0) {
            if (c->n_types == 1 && n == c->counts[k])
                continue; /* the plan on every device, the incumbent */
            one.counts[0] = n;
            dnp_plan *q = NULL;
            dnp_error e = {0};
            dnp_status sq = plan_run_all(g, &one, opt, &q, &e);
            if (sq == DNP_ERR_NOMEM) {
                dnp_plan_free(p);
                *pp = NULL;
                dnp_error_set(err, DNP_ERR_NOMEM, "%s", e.msg);
                return sq;
            }
            if (sq != DNP_OK) /* e.g. too little memory on fewer devices */
                break;
            int better = !q->time_limit_hit && q->has_sim && plan_fits(q) &&
                         (!plan_fits(p) || plan_step_s(q) < plan_step_s(p));
            if (!better) {
                dnp_plan_free(q);
                continue;
            }
            q->search_time_s += p->search_time_s;
            dnp_plan_free(p);
            p = q;
            p->idle_devices = all_devices - n;
            p->all_devices_step_s = all_s;
        }
    }
    *pp = p;
    return DNP_OK;
}

/* The planner as a driver (docs/time-model.md): search -> strategy ->
 * lowering -> summary.  plan_run_all prepares the tables, searches the
 * device tree (plan_search) for AccPar and, as its portfolio, for each
 * baseline, turns each tree into the one strategy type and lowers it
 * (finish_plan: plan_lower), and keeps the fastest that fits; with
 * allow_idle the same is weighed on fewer devices.  The summary is read
 * from the plan kept (plan_views.c: dnp_plan_get_summary). */
dnp_status dnp_plan_run(const dnp_graph *g, const dnp_cluster *c, const dnp_plan_options *opt,
                        dnp_plan **out, dnp_error *err)
{
    dnp_status st = plan_run_all(g, c, opt, out, err);
    if (st != DNP_OK || !weigh_fewer_devices(*out, opt))
        return st;
    return plan_fewer_devices(g, c, opt, out, err);
}

dnp_status dnp_plan_run_strategy(const dnp_graph *g, const dnp_cluster *c,
                                 const dnp_plan_options *opt, const dnp_strategy *s,
                                 dnp_plan **out, dnp_error *err)
{
    if (dnp_strategy_config3d_text(s) != NULL) { /* a version-3 plan of the 3D search */
        dnp_error_set(err, DNP_ERR_INPUT,
                      "%s holds a Megatron-LM configuration (%.200s; plan --search 3d), not a "
                      "device-tree strategy: simulate --strategy runs it",
                      strategy_file(s), dnp_strategy_config3d_text(s));
        return DNP_ERR_INPUT;
    }
    return plan_run(g, c, opt, s, out, err);
}
