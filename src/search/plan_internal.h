/*
 * plan_internal.h - the AccPar search's plan: the decided device tree
 * (plan/tree.h, the strategy the simulator lowers) with the search's own
 * figures at each node, its options, tables and results
 * (docs/time-model.md).  Shared by the planner, its evaluation and tests.
 */
#ifndef DNNPAR_PLAN_INTERNAL_H
#define DNNPAR_PLAN_INTERNAL_H

#include "dnnpar.h"
#include "plan/layer_table.h"
#include "plan/tree.h"
#include "search/level_dp.h"
#include "sim/lower.h"
#include "sim/lower_result.h"

/* The AccPar search's figures at one node of the device tree (tnode's
 * `ev`, plan/tree.h): the group's aggregates for Eqs. 7 and 8, its
 * evaluation and the default model's cached rates.  Allocated with the
 * node (plan.c: tnode_new). */
struct tnode_eval {
    double flops;        /* aggregate peak FLOP/s of the group (Eq. 8's c_i) */
    double bw_bps;       /* network bandwidth of the group's links (Eq. 7's b_i): the slowest device's */
    double mem_cap_bytes;
    /* evaluation, per search-graph node */
    double *t_s;         /* time of the node's work in this subtree (critical path) */
    double *tc_s;        /* compute part of t_s */
    double *recv_bytes;  /* bytes fetched along that path */
    double mem_bytes;    /* max per-device footprint in the subtree */
    double mem_cap_at_max;
    /* default model, cached when the node is made (plan.c: tnode_prepare) */
    double *rate;        /* per search-graph node: work per second of the group */
    double split_bw_bps, split_lat_s; /* the link tier its two halves are joined by */
};
typedef struct tnode_eval tnode_eval;

/* Cost scales: seconds normally; in reference mode element counts.  With
 * the default model (`paper` == 0) the search's level costs are the
 * per-level decomposition of docs/time-model.md ("How the search sees the
 * default model"): per-device volumes on the link tier each split spans,
 * and compute from the roofline time of each planned node's ops. */
typedef struct {
    int reference_mode;
    int bytes_per_elem;
    int paper;               /* 1: the AccPar paper's accounting (or reference mode) */
    const dnp_cluster *cl;   /* default model: device types and link tiers */
    const double *inv_time;  /* default model: [v * DNP_MAX_DEVICE_TYPES + k] = 1 / (time of
                              * node v's ops, whole batch, on one device of type k) */
} cost_units;

struct dnp_plan {
    char model[64];
    dnp_plan_options opt;
    dnp_cluster cl;
    layer_table lt;
    char **node_names;   /* per search-graph node */
    tnode *root;
    int levels, total_levels;
    cost_units units;
    double search_time_s;
    int width; /* widest frontier of the layer-wise DP */
    double *inv_time;    /* default model: see cost_units */
    double pace[DNP_MAX_DEVICE_TYPES]; /* default model: straggler factor of each device type
                                        * on its kernel times (perf_straggler_pace; 1 = none) */
    int has_sim;         /* default model: `sim` holds the simulated step */
    lower_result sim;
    lower_result paper_sim; /* paper accounting: the analytical step replayed by the simulator */
    dnp_scheme chosen;   /* whose assignment this is (accpar may report a baseline's) */
    int ratio_level_only;   /* AccPar: the full ratio search was over budget, so every ratio
                             * search judged its candidates by the level objective */
    double ratio_est_solves; /* AccPar: estimated level solves of the search that ran */
    int time_limit_hit;     /* opt.time_limit_s was reached during the search, or a
                             * baseline's simulation was cut at it (the incumbent kept) */
    double deadline_s;      /* the run's one deadline (core/clock.h dnp_deadline_at of
                             * opt.time_limit_s from opt.time_limit_from_s; 0 = none):
                             * lower_simulate stops past it */
    long long level_solves; /* level problems costed and solved by every search of this plan
                             * (a work counter: tests bound it instead of timing) */
    /* AccPar on a mixed cluster also weighs each device type alone
     * (dnp_plan_run): when one was faster, `cl` is that type's devices and
     * these say what was left idle */
    int64_t idle_devices;      /* devices of the given cluster the plan leaves idle */
    double all_devices_step_s; /* the best plan's step on every device */
};

/* The AccPar ratio searches' work budget, in level solves x planned ops
 * (about 0.4 us each for VGG-19 on one core of the build machine): a full
 * search (candidates judged by their planned subtree) estimated above it
 * judges every candidate by the level objective instead, which is linear
 * in the tree's nodes (docs/time-model.md, "Search cost"). */
#define PLAN_RATIO_BUDGET_NODE_SOLVES 2e6

/* Level objective pieces at tree node `n` for ratio alpha and the types of
 * every search-graph node; used by the planner and by tests. */
typedef struct {
    const layer_table *lt;
    const tnode *n;
    cost_units units;
    int comm_only;        /* HyPar: communication is the objective */
} level_ctx;

/* Fill a level problem's cost arrays (node_cost[V*3], edge_cost[E*9]) for alpha. */
void level_costs(const level_ctx *lc, double alpha, double *node_cost, double *edge_cost);
/* E_a and E_b of Eq. 10: each group's summed compute and communication
 * over the layers, for given types and alpha. */
void level_group_times(const level_ctx *lc, const int *types, double alpha, double *e_a,
                       double *e_b);
/* Eq. 10's per-unit costs E_a, E_b as section 5.3 defines them (every cost
 * linear in the ratio): each group's compute for all of what node n holds
 * plus each tensor Tables 4 and 5 make it access, once, at its link (Eq. 7). */
void level_unit_times(const level_ctx *lc, const int *types, double *e_a, double *e_b);
/* Eq. 10 as printed: alpha = E_b / (E_a + E_b) with level_unit_times, kept in [lo, hi]. */
double level_eq10_ratio(const level_ctx *lc, const int *types, double lo, double hi);
/* Eq. 10 solved for alpha in [lo, hi] with the tables' real dependence on
 * alpha (bisection on E_a - E_b); the nearer bound if they never cross. */
double level_balance_ratio(const level_ctx *lc, const int *types, double lo, double hi);

/* The decided tree of p (borrowed from p: valid while p is and
 * unchanged), what plan_strategy_from_tree turns into the one strategy
 * type.  O(1). */
plan_tree plan_tree_of(const dnp_plan *p);
/* A plan of graph g on cluster c under opt without a tree: what lowering
 * a strategy of g on c reads beside it (plan_lower_context: the layer
 * table whose rows the strategy's ops are, node names, straggler pace,
 * deadline), prepared as dnp_plan_run prepares a plan.  For a search that
 * makes the strategy itself (PaSE: pase_plan.c).  *out is the caller's
 * (dnp_plan_free); errors as dnp_plan_run's checks of opt and c, and
 * DNP_ERR_NOMEM.  O(ops x types). */
dnp_status plan_prepare_lowering(const dnp_graph *g, const dnp_cluster *c,
                                const dnp_plan_options *opt, dnp_plan **out, dnp_error *err);
/* Finish p (from plan_prepare_lowering, no tree yet) as the plan of
 * strategy s (its device groups, whose ops are p's layer table rows): the
 * planner's tree made from the groups (the tree dnp_plan_run_strategy
 * makes of the strategy file saying the same: nodes, alpha, types and
 * shares to the bit), p->levels its deepest leaf, then simulated as every
 * plan is (finish_plan); t0_s the dnp_now_s() at which the caller began
 * (p's search time).  On failure p keeps what was made (dnp_plan_free).
 * DNP_ERR_INPUT for a strategy without groups or of another table, the
 * lowering's errors, DNP_ERR_NOMEM.  O(groups x rows + the lowering). */
dnp_status plan_finish_groups(dnp_plan *p, const dnp_graph *g, const plan_strategy *s,
                              double t0_s, dnp_error *err);
/* What the lowering reads beside p's strategy (sim/lower.h): p's model
 * name, cluster, layer table, node names, pace and deadline, borrowed from
 * p.  O(1). */
lower_context plan_lower_context(const dnp_plan *p);
/* p's decided tree as the one strategy type (plan_strategy_from_tree),
 * handed to the lowering: lower_simulate of it for graph g under options
 * opt into *out (lower_result_free).  Its status and errors are
 * lower_simulate's (and DNP_ERR_NOMEM building the strategy).
 * O(groups x rows) besides the lowering. */
dnp_status plan_lower(const dnp_plan *p, const dnp_graph *g, const dnp_plan_options *opt,
                      lower_result *out, dnp_error *err);

/* Set err to the one message of plan p over the memory limit on graph g
 * (dnp_plan_run's refusal, dnp_plan_check_memory's; plan_memory.c): r is
 * the simulated step over it, need_bytes the smallest per-device footprint
 * found; for a transformer the hint names the Megatron-LM configuration
 * that fits, from a dnp_config3d_search of at most a few seconds.
 * O(that search). */
void plan_over_memory(const dnp_plan *p, const dnp_graph *g, const lower_result *r,
                      double need_bytes, dnp_error *err);

/* Deepest device tree a strategy or a row's types describe (2^30 devices). */
#define PLAN_MAX_LEVELS 30

/* Re-decide one row of decided plan p: types[d] (a dnp_ptype for a
 * weighted row, a layout for a join) at every tree node of depth d <
 * n_types that has decisions, and the shares below them recomputed for
 * that row (the rest of the plan unchanged).  The simulated step is not:
 * plan_simulate_row does both.  O(tree nodes). */
void plan_set_row_types(dnp_plan *p, int row, const int *types, int n_types);
/* Row `row`'s type at depth d (the first node of that depth on the first
 * branch), -1 if no node there decides.  O(depth). */
int plan_row_type(const dnp_plan *p, int row, int depth);
/* The local search of pase_refine.c on a prepared plan: plan_set_row_types,
 * then the step simulated again (default model).  The row's previous types
 * are read along the first branch (plan_row_type), so p must give the row
 * one type per depth (a plan on one device type, as PaSE's are).  If the new step is
 * faster than *best_s and fits in memory it is kept (p's simulation
 * replaced, *best_s updated, *kept 1); else the row's previous types are
 * put back (p unchanged, *kept 0).  DNP_ERR_NOMEM / DNP_ERR_INPUT from the
 * simulator (p unchanged).  O(tree nodes + the simulation). */
dnp_status plan_try_row(dnp_plan *p, const dnp_graph *g, int row, const int *types, int n_types,
                        double *best_s, int *kept, dnp_error *err);

#endif
