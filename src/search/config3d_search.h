/*
 * config3d_search.h - internals of the search over Megatron-LM
 * configurations (config3d_search.c; dnp_config3d_search and
 * dnp_config3d_search_layouts in dnnpar/config3d.h; docs/config3d.md
 * "Search"), exposed for the unit tests.  The search lives in src/search/
 * and reaches the step simulator only through sim/config3d_int.h
 * (c3_prepare, c3_eval).
 *
 * Ownership: nothing is kept; the functions read their arguments.
 */
#ifndef DNNPAR_SEARCH_CONFIG3D_SEARCH_H
#define DNNPAR_SEARCH_CONFIG3D_SEARCH_H

#include "sim/config3d_int.h"

/* A floor under c3_eval's lower bound on the step of every configuration
 * of tp x pp x dp devices of cl with `interleave` chunks per rank, recompute
 * rc, m micro-batches per replica and any layers per stage summing to L
 * (even with interleave > 1), whatever its overlaps, ZeRO stage and links:
 * its busiest stage's forward and backward kernel time with recompute,
 * from the cost-cache entry ce of its (tp, sequence parallelism,
 * micro-batch) alone (seconds; 0 when ce is not valid).  The search
 * weighs a configuration (c3_prepare, c3_eval) only while its floor is
 * below the best step found (config3d_search.c explains why this is exact;
 * docs/config3d.md "Search").  O(pp x types). */
double c3_compute_floor_s(const dnp_cluster *cl, const c3_cache *ce, int L, int tp, int pp,
                          int dp, int interleave, dnp_recompute rc, int64_t m);

/* dnp_config3d_search without its compute floor (config3d_search.c): every
 * configuration enumerated is weighed (layers, memory, bound) before the
 * branch and bound, as the search did before the floor; for the unit
 * tests that check the floor changes no result.  Same contract and
 * results; stats->weighed is stats->candidates. */
dnp_status c3_search_unpruned(const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                              const dnp_plan_options *opt, dnp_config3d *best,
                              dnp_config3d_result *best_res, dnp_config3d_stats *stats,
                              dnp_error *err);

#endif
