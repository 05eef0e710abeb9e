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

#include "search/pgraph.h"

typedef struct {
    const pgraph *pg;
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

/* The objective of one assignment.  O(nodes + edges). */
double level_objective(const level_problem *lp, const int *types);

/* Exhaustive enumeration (the test oracle).  O(3^n * (n + e)), n <= 16. */
double level_brute_force(const level_problem *lp, int *types);

#endif
