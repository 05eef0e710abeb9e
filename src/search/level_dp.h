/*
 * level_dp.h - exact minimisation of a sum of node and edge costs over one
 * state (0..2) per node of a DAG: AccPar's layer-wise dynamic programming
 * (Eq. 9) generalised from chains to any graph.
 *
 * Nodes are processed in topological order.  The table after node k is
 * keyed by the states of the *frontier*: nodes already processed whose
 * output is still read by a later node.  For a chain the frontier is the
 * previous layer and this is exactly Eq. 9; for a residual block the
 * frontier is {fork, current layer of a path}, which is section 5.2's
 * enumeration of (L_i, tt) x (L_i+1, t) with a layer-wise DP per path.
 *
 * Ties go to the lower state: tables are scanned in increasing index with
 * the newest node as the most significant digit and only a strictly
 * smaller cost replaces an entry, so among equal costs the lowest type of
 * the later node wins, then of the earlier ones (the rule of the AccPar
 * authors' code).
 */
#ifndef DNNPAR_LEVEL_DP_H
#define DNNPAR_LEVEL_DP_H

#include "plan/layer_table.h"

typedef struct {
    const layer_table *lt;
    const unsigned char *allowed; /* per node: bit t set if state t may be used */
    const double *node_cost;      /* [v * 3 + t] */
    const double *edge_cost;      /* [e * 9 + tu * 3 + tv] */
} level_problem;

/* Minimise over allowed states.  Writes the states to types[n_nodes] and
 * the minimum to *best.  Fails (DNP_ERR_INPUT) if the frontier of the
 * topological order exceeds 12 nodes, or a node allows no state.
 * Time: O(sum_v 3^(|frontier_v|+1) * indegree(v)); memory: the back
 * pointers, O(sum_v 3^|frontier_v|) ints. */
dnp_status level_dp_solve(const level_problem *lp, int *types, double *best, dnp_error *err);

/* The widest frontier of the topological order: the largest number of
 * nodes whose states the DP must key a table by (the DP refuses more than
 * LEVEL_DP_MAX_FRONTIER + 1).  O(nodes + edges). */
#define LEVEL_DP_MAX_FRONTIER 12
int level_dp_width(const layer_table *lt);

/* For graphs too wide for the exact DP (e.g. DenseNet's dense blocks):
 * start from `types` (allowed states) and change one node's state at a
 * time while the objective strictly decreases, nodes in order, states in
 * order, until a full sweep changes nothing (at most 1000 sweeps).  Never
 * worse than the start.  Returns the objective.  O(sweeps x states x
 * (nodes + edges)). */
double level_local_search(const level_problem *lp, int *types);

/* The objective of one assignment.  O(nodes + edges). */
double level_objective(const level_problem *lp, const int *types);

/* Exhaustive enumeration (the test oracle).  O(3^n * (n + e)), n <= 16. */
double level_brute_force(const level_problem *lp, int *types);

#endif
