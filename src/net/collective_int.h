/* collective_int.h - internal helpers of the collective model (src/net/).
 *
 * The public entry point is dnp_coll_estimate (include/dnnpar.h), which
 * picks the fastest algorithm.  These helpers expose each algorithm's
 * predicted time so that tests and other modules can compare them; the
 * formulas and their sources are in src/net/collective.c and
 * docs/collectives.md.
 */
#ifndef DNNPAR_COLLECTIVE_INT_H
#define DNNPAR_COLLECTIVE_INT_H
#include "dnnpar.h"

typedef enum {
    COLL_ALGO_RING = 0,     /* ring (pipelined chain for broadcast) */
    COLL_ALGO_TREE,         /* NCCL double binary tree (all-reduce) */
    COLL_ALGO_HIERARCHICAL, /* intra reduce-scatter, inter all-reduce, intra all-gather */
    COLL_ALGO_TORUS2D,      /* 2-D torus: bidirectional rings per dimension */
    COLL_ALGO_BINOMIAL,     /* binomial tree broadcast */
    COLL_ALGO_PAIRWISE,     /* pairwise-exchange all-to-all */
    COLL_ALGO_DIRECT,       /* one message (point-to-point) */
    COLL_ALGO_COUNT
} coll_algo;

/* "ring", "tree", "hierarchical", "torus-2d", "binomial", "pairwise", "direct". */
const char *coll_algo_name(coll_algo a);

/* Predicted time in seconds of `op` on `bytes` (the nccl-tests size, see
 * dnp_coll_estimate) over g with algorithm a, or -1.0 when a does not
 * apply to this op and group (e.g. tree for all-gather, hierarchical
 * inside one node).  The group must have >= 2 members and bytes > 0.
 * O(1) except the torus factorisation, O(sqrt(per_node)). */
double coll_algo_time_s(dnp_coll_op op, coll_algo a, const dnp_comm_group *g, double bytes);

/* nccl-tests' bus-bandwidth factor of `op` on n members
 * (doc/PERFORMANCE.md): all-reduce 2(n-1)/n; reduce-scatter, all-gather,
 * all-to-all (n-1)/n; broadcast and point-to-point 1.  O(1). */
double coll_bus_factor(dnp_coll_op op, int64_t n);

/* dnp_coll_estimate on g's rates as they are: the link efficiency
 * (dnp_coll_link_efficiency) already applied, or, in the hand-worked
 * tests, textbook rates.  O(1). */
void coll_estimate_at_rates(dnp_coll_op op, const dnp_comm_group *g, double bytes,
                            dnp_coll_cost *out);

#endif
