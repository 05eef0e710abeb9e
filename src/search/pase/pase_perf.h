/*
 * pase_perf.h - PaSE's search on the shared performance model (issue 10
 * item 3, docs/pase.md "Shared model"): t_l and t_x in seconds from the
 * device model's roofline (src/perf/device_model.h), the collective model
 * over the link tiers a group spans (src/net/collective.c) and the
 * per-device memory a configuration holds.  Internal to libdnnpar.
 *
 * Pieces:
 *   pase_perf.c     the seconds model of one device type (t_l, t_x, memory)
 *   pase_fit.c      the search under a device memory limit
 *   pase_hetero.c   several device types: a batch split across the types
 *                   (AccPar Eq. 10's balance, searched), PaSE inside each
 */
#ifndef DNNPAR_PASE_PERF_H
#define DNNPAR_PASE_PERF_H

#include "perf/device_model.h"
#include "search/pase/pase.h"

struct pase_perf {
    dnp_device_type dev;      /* the device type (a copy) */
    perf_rates r;             /* its rates at the precision (perf_rates_get), pace set */
    double bytes_per_param;   /* master + gradient + optimizer state (perf_bytes_per_param) */
    double opt_bytes_per_param; /* the optimizer update's traffic per parameter
                               * (perf_optimizer_bytes_per_param) */
    double mem_limit_bytes;   /* per device; 0 = no memory pruning */
    dnp_cluster machine;      /* the devices PaSE places: p of one type, numbered as src/topo
                               * numbers ranks (nodes of devices_per_node, in order), which
                               * is PaSE's placement, the first dimension slowest; every
                               * group of them is src/topo's (topology.h) */
    dnp_comm_group tiers;     /* the link figures of all p (topo_group_counts): the tiers
                               * the point-to-point lines are read on */
    double intra_lat_s, intra_bw_bps; /* one message inside a node (the p2p model's line;
                                       * 0 when no two devices share a node) */
    double inter_lat_s, inter_bw_bps; /* one message between nodes */
};

/* The model of p devices of type d training at precision prec with
 * optimizer o: rates from perf_rates_get with the straggler pace of p
 * devices (perf_straggler_pace, unless no_stragglers), the machine of p
 * such devices on d's nodes (pase_perf_set_machine).  mem_limit_bytes: the per-device limit (0 = the
 * device's mem_bytes; a device without a capacity is not pruned).
 * DNP_ERR_INPUT if d has no positive peak.  O(1). */
dnp_status pase_perf_init(const dnp_device_type *d, int p, dnp_precision prec, dnp_optimizer o,
                          double mem_limit_bytes, int no_stragglers, pase_perf *out,
                          dnp_error *err);

/* t_l in seconds of vertex v of g under configuration cfg on one device
 * of m: the step simulator's device model on the core ops v carries (its
 * own and the point-wise ops fused into it: perf_op_time_shares at the
 * shares cfg leaves a device, plus the optimizer update's traffic over
 * the parameters held), plus the collectives the configuration implies
 * (README "Layer costs"' AR terms, each an all-reduce over the devices of
 * the split dimensions, priced by dnp_coll_estimate on the tiers that
 * group spans).  O(rank x carried ops) plus O(1) per collective. */
double pase_perf_layer_s(const pase_perf *m, const iter_space *g, int v, const int32_t *cfg);

/* t_x in seconds of a re-layout (README "Transfer cost"'s need, forward
 * and backward): 2 x (latency + need x activation bytes / bandwidth) on the
 * intra tier when both layouts' devices fit in one node, else the inter
 * tier; 0 when nothing moves.  O(rank). */
double pase_perf_transfer_s(const pase_perf *m, int rank, const double *a_src,
                            const double *a_dst, double p_src, double p_dst);

/* Bytes one device holds for vertex v under cfg, as the step simulator
 * counts them per op (perf_op_mem_shares over the core ops v carries):
 * the parameters held x bytes_per_param (weights, gradient, optimizer
 * state), private buffers, the inputs saved for backward, a saved output
 * no consumer saves too (saved_by_consumer, from
 * pase_perf_saved_by_consumer), and the DDP bucket copy of the gradients
 * of parameters held by more than one device.  Where it differs from the
 * simulator's total: docs/pase.md "Memory".  O(rank x carried ops). */
double pase_perf_mem_bytes(const pase_perf *m, const iter_space *g,
                           const unsigned char *saved_by_consumer, int v, const int32_t *cfg);
/* Per core op of g: 1 if a consumer keeps its output for backward (the
 * device model's saved inputs; pase_perf_mem_bytes then counts the tensor
 * once, at the consumer).  Owned by the caller (dnp_free); NULL on
 * allocation failure.  O(ops + inputs). */
unsigned char *pase_perf_saved_by_consumer(const iter_space *g);

/* The parameters of the core ops vertex v carries, unsplit.
 * O(carried ops). */
double pase_perf_param_elems(const iter_space *g, int v);

/* The devices the busiest vertex of strategy cfg uses (max over vertices
 * of the product of its splits): p minus it are idle all step.  O(V rank). */
int pase_devices_used(const pase_problem *pb, const int *cfg);
/* Bytes one device holds for strategy cfg: the sum of the chosen rows of
 * pb->mem (0 without a perf model).  O(V). */
double pase_footprint(const pase_problem *pb, const int *cfg);
/* The least footprint of any strategy: the sum over vertices of their
 * smallest row of pb->mem (0 without a perf model).  O(sum of K_v). */
double pase_min_footprint(const pase_problem *pb);

/* ---- the search under a memory limit (pase_fit.c) ------------------ */

typedef struct {
    double cost;             /* the strategy's objective (seconds under a perf model) */
    int *cfg;                /* per vertex (owned) */
    double mem_bytes;        /* per-device footprint: sum of the chosen rows of pb->mem */
    double min_mem_bytes;    /* the least footprint of any strategy (sum of row minima) */
    int budgeted;            /* 1: the optimum did not fit and per-op budgets were used */
    int devices_used;        /* pase_devices_used */
    pase_result res;         /* the last DP's figures (cfg owned here, not in res) */
} pase_fit_result;

/* GenerateSeq + FindBestStrategy on pb (built with a perf model) under
 * the model's memory limit L (docs/pase.md "Memory"): configurations whose
 * own footprint exceeds L are pruned; if no strategy fits (the sum of the
 * per-op minima exceeds L) DNP_ERR_INPUT says so with both figures; if the
 * optimum's footprint exceeds L, the DP is rerun with every op held to the
 * budget min_mem_v x L / sum_u min_mem_u, which guarantees a fitting plan
 * (not necessarily the best fitting one).  pb is read only (the pruning
 * works on a copy of its t_l); out->cost is on pb's own t_l.  With no
 * limit it is pase_search.  On failure out holds nothing to free.
 * O(1 or 2 searches + sum_v K_v). */
dnp_status pase_fit_search(const pase_problem *pb, const pase_search_opts *o,
                           pase_fit_result *out, dnp_error *err);
void pase_fit_result_free(pase_fit_result *r); /* NULL-safe.  O(1). */

/* ---- heterogeneous clusters (pase_hetero.c) ------------------------- */

/* Build the iteration space of the model for a mini-batch (the batch
 * dimension is part of every domain).  Returns DNP_OK and *out owned by
 * the caller, or an error. */
typedef dnp_status (*pase_space_builder)(const void *user, int64_t batch, iter_space **out,
                                         dnp_error *err);

struct pase_hetero_result;

/* The groups' plans of a type split: each group's PaSE optimum at its
 * share, or (chosen by a judge) PaSE's data-parallel or expert strategy
 * of the group, the baselines of the same space (pase_baselines.c). */
typedef enum {
    PASE_HETERO_OPTIMUM = 0,
    PASE_HETERO_DATA_PARALLEL,
    PASE_HETERO_EXPERT,
    PASE_HETERO_VARIANTS
} pase_hetero_variant;
/* "PaSE optimum", "data-parallel plan", "expert plan".  O(1). */
const char *pase_hetero_variant_name(pase_hetero_variant v);

typedef struct {
    dnp_precision precision;
    dnp_optimizer optimizer;
    double mem_limit_bytes;  /* 0 = each device's capacity */
    int no_stragglers;
    double max_table_bytes;  /* the DP's table guard (pase_params.max_bytes) */
    int prototype_edges;
    int cutoff;              /* pase_params.cutoff */
    const pase_search_opts *search;
    /* When set, the shares and the groups' plan variant are chosen by
     * judge (the step simulator: pase_run.c) among the splits whose plans
     * it can run: `judge` gets a candidate (its groups' plans at their
     * shares, its variant; borrowed for the call) and sets *step_s,
     * INFINITY for a plan it cannot run. */
    dnp_status (*judge)(const void *user, const struct pase_hetero_result *cand, double *step_s,
                        dnp_error *err);
    const void *judge_user;
} pase_hetero_opts;

typedef struct {
    int type;                /* index into the cluster's types */
    int n_dev;
    int64_t batch;           /* its share of the mini-batch (0: idle group) */
    int64_t plan_batch;      /* the share its plan was searched at: batch, unless the
                              * simulator moved the share with the plan kept
                              * (pase_cross.c); time_s and mem_bytes are at this share */
    double time_s;           /* its PaSE optimum at that share, seconds */
    double mem_bytes;        /* its plan's per-device footprint */
    int devices_used;
    iter_space *g;           /* the graph at that share (owned; NULL if batch 0) */
    int *cfg;                /* per vertex of g (owned) */
    char (*cfg_text)[48];    /* per vertex: "(b,c,...)", then " levels c c n" when
                              * order is not 0 (owned) */
    int *order;              /* per vertex: the arrangement of its split dimensions over
                              * the group's levels (pase_level_dims); NULL: all 0
                              * (pase_cross.c; owned) */
} pase_hetero_group;

typedef struct pase_hetero_result {
    int n_groups;
    pase_hetero_group grp[DNP_MAX_DEVICE_TYPES];
    double sync_s;           /* the cross-group gradient all-reduce */
    double param_bytes;      /* gradient bytes it sums */
    double step_s;           /* max over groups of time_s, plus sync_s (the objective) */
    double best_objective_s; /* the least step_s over the splits tried */
    double judged_s;         /* the judge's step of this split; NAN without a judge or
                              * when it could run none (then the objective chose) */
    int judged;              /* splits the judge evaluated */
    pase_hetero_variant variant; /* the groups' plans (the optimum unless judged) */
    int candidates;          /* group plans searched: one PaSE search of one group at one
                              * share (a share searched before is not counted again) */
    int exhaustive;          /* 1: every integer split was evaluated (two types) */
    int fits;                /* 1: some split fits in the groups' memory (the rest of the
                              * result is its); 0: none of the candidates does (no
                              * groups' plans: n_groups, candidates and exhaustive only) */
    double search_s;         /* wall time */
} pase_hetero_result;

/* Split the mini-batch across the cluster's device types (one group per
 * type, its devices and links), PaSE with pase_fit_search inside each
 * group at its share, and the groups' weight gradients all-reduced across
 * the groups on the slowest inter-node tier (docs/pase.md "Heterogeneous
 * clusters").  The shares start at AccPar Eq. 10's balance (proportional
 * to each group's speed) and are searched: with two types every integer
 * split when the batch is at most 32, else a grid of 32 and refinement;
 * with more types the Eq. 10 fixed point (shares proportional to
 * share / time) and coordinate refinement.  Shares giving a group nothing
 * are candidates (the group idles).  With o->judge the same grid and
 * refinement run again from the objective's best on the judge's step, for
 * each pase_hetero_variant of the groups' plans; the fastest is kept
 * (out->variant, out->judged_s).
 * No split fitting in memory is a result (out->fits 0), not an error: the
 * caller keeps its one plan over all devices.  O(candidates x groups x one
 * PaSE search, plus 3 x the judge's candidates x (one group plan + the
 * judge)). */
dnp_status pase_hetero_search(const dnp_cluster *c, int64_t batch, pase_space_builder build,
                              const void *user, const pase_hetero_opts *o,
                              pase_hetero_result *out, dnp_error *err);
void pase_hetero_result_free(pase_hetero_result *r); /* NULL-safe.  O(groups x V). */

/* The model of the field-wise weakest device and link of c, the device
 * PaSE plans for when a mixed cluster is treated as one homogeneous field
 * (the paper's section V): for p = all of c's devices, the least achieved
 * tensor and vector rates and memory bandwidth of any type at prec, the
 * largest element sizes, overheads and straggler pace, the smallest memory;
 * its machine p such devices on nodes of dnp_cluster_comm_group(c)'s shape
 * and tiers (as many per node as c's emptiest node holds, the slowest of
 * each tier).  O(types). */
dnp_status pase_perf_init_weakest(const dnp_cluster *c, dnp_precision prec, dnp_optimizer o,
                                  double mem_limit_bytes, int no_stragglers, pase_perf *out,
                                  dnp_error *err);
/* Places m's p devices (p < 1 read as 1) on the nodes of device type d's
 * node and link fields, m->machine (a copy of *d): PaSE's devices in
 * placement order, ranks as src/topo numbers them; sets m->tiers to the
 * figures of all of them (topo_group_counts) and the point-to-point line
 * (latency, bandwidth) of each tier, read off dnp_coll_estimate: inside a
 * node when ranks 0 and 1 share one (topo_p2p), between nodes always.
 * O(1). */
void pase_perf_set_machine(pase_perf *m, const dnp_device_type *d, int p);

#endif
