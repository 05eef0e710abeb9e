/*
 * pase.h - PaSE (Elango, "PaSE: Parallelization Strategies for Efficient
 * DNN Training", IPDPS 2021): strategy search on general computation
 * graphs.  Internal to libdnnpar; the public dnp_pase_* API (dnnpar.h)
 * is built on it in pase_driver.h's files.
 *
 * PaSE's search reads the core graph's iteration spaces (src/model/
 * iter_space.h: one or more loop nests per op, and the tensors they read);
 * a "vertex" below is a loop nest, an "edge" a read.
 *
 * Pieces, one file each:
 *   pase_config.c    configurations of a nest (reference README
 *                    "Configurations")
 *   pase_cost.c      t_l per op kind and t_x per edge (Eq. 1; README "Layer
 *                    costs", "Transfer cost")
 *   pase_problem.c   an iteration space bound to p and r: configurations,
 *                    t_l tables, edge projections, the objective F
 *   pase_seq.c       GenerateSeq (Fig. 3) and the breadth-first order
 *   pase_dp.c        FindBestStrategy (Fig. 4, recurrence 4) and the
 *                    breadth-first DP (recurrence 2) on flat tables
 *   pase_exhaustive.c, pase_baselines.c, pase_mcmc.c   oracle and baselines
 *   pase_zoo.c       the iteration spaces (pase_model_*) of the prototype's
 *                    five graphs, zoo entries of src/model/zoo_pase.c
 *   pase_compare.c   one call for `dnnpar compare`
 *
 * Units: costs are FLOP-equivalents; communication of w words costs
 * r_w * w FLOP with r_w = peak FLOP/s / (bandwidth in words/s) (Eq. 1's r).
 */
#ifndef DNNPAR_PASE_H
#define DNNPAR_PASE_H

#include "dnnpar.h"
#include "model/iter_space.h"

#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Configurations and costs                                            */
/* ------------------------------------------------------------------ */

/* The configurations of one vertex, in enumeration order: split counts
 * per dimension, lexicographic with the first dimension slowest and each
 * dimension's splits ascending. */
typedef struct {
    int n;        /* number of configurations */
    int rank;
    int32_t *c;   /* n * rank split counts */
} pase_configs;

/* Number of configurations of v for p devices and cutoff, without
 * building them (returned as double: it can be huge).  O(count). */
double pase_config_count(const iter_nest *v, int p, int cutoff);
/* Enumerate them (README "Configurations": per dimension the divisors e of
 * d with d / e >= cutoff, or {1}; product <= p; fixed dimensions 1;
 * contiguous splits for ravel / unravel).  Returns DNP_OK or DNP_ERR_NOMEM.
 * O(count * rank). */
dnp_status pase_configs_build(const iter_nest *v, int p, int cutoff, pase_configs *out);
/* Free c's table (c itself is the caller's); NULL is a no-op.  O(1). */
void pase_configs_free(pase_configs *c);
/* Index of configuration `cfg` (rank split counts) in c, or -1.  O(n * rank). */
int pase_configs_find(const pase_configs *c, const int32_t *cfg);

/* Layer cost t_l (FLOP) of v under configuration cfg, for r_w FLOP per
 * word (README "Layer costs"; Eq. 1).  O(rank). */
double pase_layer_cost(const iter_nest *v, const int32_t *cfg, double r_w);
/* The words a device needs of a block a_dst (p_dst devices) that it does
 * not hold of a block a_src (p_src devices): README "Transfer cost"'s need,
 * without the factor 2.  O(rank). */
double pase_need_words(int rank, const double *a_src, const double *a_dst, double p_src,
                       double p_dst);
/* Project a configuration of an edge endpoint onto the edge's tensor:
 * split[t] = product of cfg over map[t].  O(rank * endpoint rank). */
void pase_project(const iter_read *e, int dst_side, const int32_t *cfg, int32_t *split);
/* Transfer cost t_x (FLOP) of a tensor of `rank` dims `shape` held split
 * by src and needed split by dst (README "Transfer cost"; Eq. 1's
 * r * t_x, forward and backward).  O(rank). */
double pase_transfer_cost(int rank, const int64_t *shape, const int32_t *src_split,
                          const int32_t *dst_split, double r_w);
/* The same from per-dimension extents a = shape / split of the held
 * (src) and needed (dst) blocks and their device counts.  O(rank). */
double pase_transfer_parts(int rank, const double *a_src, const double *a_dst, double p_src,
                           double p_dst, double r_w);

/* ------------------------------------------------------------------ */
/* Problem: a graph bound to p devices and the hardware ratio           */
/* ------------------------------------------------------------------ */

/* The shared performance model's view of one device type (pase_perf.h);
 * NULL in pase_params selects the prototype's accounting. */
typedef struct pase_perf pase_perf;

typedef struct {
    int p;                   /* devices */
    double r_w;              /* FLOP per word transferred (Eq. 1's r) */
    int prototype_edges;     /* 1: keep only the last edge of each (src, dst) pair, as
                              * the prototype's simple digraph does (README) */
    double max_bytes;        /* memory guard for configurations and tables */
    int cutoff;              /* least per-device extent of a split dimension (README
                              * "Configurations"); 0: 4, the README's default */
} pase_params;

/* par's cutoff, 0 read as the README's default of 4.  O(1). */
int pase_params_cutoff(const pase_params *par);

/* One endpoint's view of an edge: each configuration's projection onto
 * the tensor, deduplicated. */
typedef struct {
    int n_proj;              /* distinct projections */
    int32_t *proj_of;        /* per configuration of the endpoint: projection index */
    double *part;            /* n_proj * rank: tensor extent / split, per dim */
    double *procs;           /* n_proj: product of the splits */
} pase_side;

typedef struct {
    const iter_space *g;
    pase_params par;
    int n_v;
    pase_configs *cfg;       /* per vertex */
    double **tl;             /* per vertex, per configuration: t_l */
    int n_e;                 /* active edges */
    int *edge;               /* active edge -> index in g->read */
    pase_side *src, *dst;    /* per active edge */
    int *inc_start, *inc;    /* active edges incident to each vertex */
    int *nb_start, *nb;      /* distinct undirected neighbours, ascending */
    double build_s;          /* wall time of pase_problem_build */
    const pase_perf *perf;   /* NULL: Eq. 1 in FLOP-equivalents (--cost-model pase-paper);
                              * else t_l and t_x in seconds on this device type and its
                              * link tiers (pase_problem_build_perf; borrowed) */
    double **mem;            /* perf only: per vertex, per configuration, the bytes
                              * one device holds for it (pase_perf_mem_bytes); else NULL */
} pase_problem;

/* Bind g to par: enumerate every vertex's configurations (their count
 * estimated first against par->max_bytes), tabulate t_l and project every
 * edge.  The problem borrows g.  Errors: DNP_ERR_INPUT for p < 1 or
 * tables over the memory guard, DNP_ERR_NOMEM.
 * O(sum_v K_v * rank + sum_e (K_u + K_v) * rank). */
dnp_status pase_problem_build(const iter_space *g, const pase_params *par, pase_problem *pb,
                              dnp_error *err);
/* The same on the shared performance model (pase_perf.h): t_l and t_x in
 * seconds on perf's device and links (par->r_w unused), and every
 * configuration's per-device bytes in pb->mem.  perf is borrowed and must
 * outlive the problem.  g must come from iter_space_build (the model prices
 * its core ops; DNP_ERR_INPUT for a hand-built graph).  Same errors and
 * complexity, plus O(E) per t_l. */
dnp_status pase_problem_build_perf(const iter_space *g, const pase_params *par,
                                   const pase_perf *perf, pase_problem *pb, dnp_error *err);
/* Free what pase_problem_build allocated; NULL is a no-op.  O(V + E). */
void pase_problem_free(pase_problem *pb);
/* t_x from the parts of pase_transfer_parts, in the problem's unit: FLOP
 * with r_w (perf NULL) or seconds on perf's link tiers.  O(rank). */
double pase_problem_transfer(const pase_problem *pb, int rank, const double *a_src,
                             const double *a_dst, double p_src, double p_dst);
/* t_x of active edge k for configuration indices cu (of its src) and cv
 * (of its dst).  O(rank). */
double pase_problem_edge_cost(const pase_problem *pb, int k, int cu, int cv);
/* Eq. 1: F = sum of t_l + sum of t_x for configuration indices cfg[v].
 * O(V + E * rank). */
double pase_objective(const pase_problem *pb, const int *cfg);

/* ------------------------------------------------------------------ */
/* Searches                                                            */
/* ------------------------------------------------------------------ */

/* An elimination sequence and its dependent sets. */
typedef struct {
    int n;
    int *order;              /* order[i] = i-th vertex */
    int *pos;                /* pos[v] = index of v in order */
    int *dep_start, *dep;    /* D(order[i]) in dep[dep_start[i]..dep_start[i+1]), sorted
                              * by position in the sequence */
} pase_seq;

/* GenerateSeq (Fig. 3): repeatedly the vertex with the smallest |d[v]|,
 * ties to the smallest id; d[u] = d[u] u d[v] - {u, v} for u in d[v].
 * D(v) is d[v] when v is taken (Theorem 2).  O(V^2 * V / 64). */
dnp_status pase_generate_seq(const pase_problem *pb, pase_seq *s, dnp_error *err);
/* Breadth-first order from vertex 0 (neighbours ascending; a new
 * component starts at its smallest vertex) with recurrence (2)'s
 * dependent sets D_B(i) = N(V<=i) n V>i.  O(V * (V + E)). */
dnp_status pase_bfs_seq(const pase_problem *pb, pase_seq *s, dnp_error *err);
/* Free a sequence's arrays; NULL is a no-op.  O(1). */
void pase_seq_free(pase_seq *s);

typedef void (*pase_progress_fn)(void *user, int done, int total, double elapsed_s);

typedef struct {
    int threads;             /* worker threads; 0 = online CPUs (at most 8) */
    pase_progress_fn progress; /* called after a vertex once the search has run
                              * for a second (and with done == total at the end
                              * if it was called before); may be NULL */
    void *progress_user;
    double time_limit_s;     /* wall time, seconds; 0 = none.  Checked after each vertex's
                              * elimination: past it the search fails with DNP_ERR_INPUT
                              * (a partial DP has no strategy to return) */
    int pin_over_guard;      /* 1: where GenerateSeq's tables exceed the guard, pin ops
                              * (pase_search_pinned) instead of failing */
    double deadline_s;       /* the command's deadline (core/clock.h dnp_deadline_at), which
                              * time_limit_s only names in messages; 0 = time_limit_s from
                              * the search's start */
} pase_search_opts;

typedef struct {
    double cost;             /* F of the best strategy, FLOP */
    int *cfg;                /* per vertex: configuration index (owned) */
    double search_s;         /* wall time: sequencing + DP + back-substitution */
    double table_bytes;      /* estimated peak memory of the tables (one thread's
                              * buffers, so that reports do not depend on the CPUs) */
    double max_rows;         /* largest table: prod of K over a dependent set */
    double work;             /* sum over vertices of rows * K_v */
    int max_dep;             /* largest dependent set */
    int pinned;              /* ops pase_search_pinned held to one configuration (0: the
                              * exact DP over every op) */
} pase_result;

/* Peak bytes the DP over sequence s needs (cost tables until consumed,
 * argmin tables until the end, per-step edge matrices and thread
 * buffers), and its largest table and work.  O(sum_v |D(v)|). */
double pase_dp_estimate(const pase_problem *pb, const pase_seq *s, int threads,
                        double *max_rows, double *work);
/* The dynamic program over sequence s (Fig. 4 for GenerateSeq's sequence,
 * recurrence (2) for the breadth-first one): each vertex's table over its
 * dependent set keeps the minimum over its own configuration; the
 * strategy is recovered by back-substitution.  Ties: the lowest
 * configuration index of the vertex being minimised (docs/pase.md).
 * Fails with DNP_ERR_INPUT, giving the size it would need, if the
 * estimate exceeds pb->par.max_bytes.
 * O(sum_v K_v * prod_{u in D(v)} K_u * terms) time. */
dnp_status pase_dp_run(const pase_problem *pb, const pase_seq *s, const pase_search_opts *o,
                       pase_result *res, dnp_error *err);
/* GenerateSeq + FindBestStrategy (bfs = 0) or the breadth-first DP
 * (bfs = 1); res->search_s covers both steps. */
dnp_status pase_search(const pase_problem *pb, int bfs, const pase_search_opts *o,
                       pase_result *res, dnp_error *err);
/* The most worker threads the DP starts (online CPUs, capped); the
 * pinned search sizes its tables for this many, so that what it pins does
 * not depend on the machine. */
#define PASE_MAX_THREADS 8
/* Where the exact DP over sequence s needs more than the table guard:
 * ops pinned to one configuration until the DP fits (and does at most
 * 2e9 work), the DP exact over the rest, then the pinned ops improved
 * one at a time with the DP rerun (pase_pin.c).  res->pinned counts them;
 * the strategy is feasible and not proven optimal.  DNP_ERR_INPUT if even
 * pinning cannot fit the guard.  O(pins x sum_v |D(v)| + rounds x the
 * DP). */
dnp_status pase_search_pinned(const pase_problem *pb, const pase_seq *s, const pase_search_opts *o,
                              pase_result *res, dnp_error *err);
/* Free a result's strategy; NULL is a no-op.  O(1). */
void pase_result_free(pase_result *r);

/* Exhaustive enumeration (test oracle): the minimum of F over all
 * strategies, writing one optimal strategy (first in enumeration order)
 * to cfg.  Returns -1 if there are more than max_strategies.
 * O(prod_v K_v * (V + E)). */
double pase_exhaustive(const pase_problem *pb, double max_strategies, int *cfg);

/* ---- baselines in the same space (pase_baselines.c, pase_mcmc.c) --- */

/* Data parallelism: the batch dimension split by the largest allowed
 * count <= p, everything else 1.  O(sum_v K_v * rank). */
void pase_data_parallel(const pase_problem *pb, int *cfg);
/* The batch splits a data-parallel strategy cfg (from pase_data_parallel)
 * uses: *lo and *hi, the least and the largest over the vertices with a
 * batch dimension (both 1 if none).  *hi < p when the batch (or, for
 * some vertex, its batch extent / cutoff) allows no p-way split; the
 * remaining devices are then idle.  O(n_v). */
void pase_data_parallel_split(const pase_problem *pb, const int *cfg, int *lo, int *hi);
/* The expert strategy of the paper's section IV for the graph's family:
 * "gnmt" (an LSTM: layers on different devices, batch on the rest),
 * "mesh" (einsums: batch split m ways, model dims n ways, m * n = p, the
 * best m), else "owt" (conv and the rest data parallel, FC and the loss
 * split over their output).  Writes cfg and the name (with the mesh shape)
 * to buf.  DNP_ERR_NOMEM if the mesh search's scratch cannot be allocated
 * (no fallback mesh is passed off as the best one).
 * O(divisors(p) * (V + E) * rank). */
dnp_status pase_expert(const pase_problem *pb, int *cfg, char *buf, size_t n, dnp_error *err);

typedef struct {
    long max_iters;          /* budget (FlexFlow stops at 250,000) */
    long min_iters;          /* never stop before this many */
    double beta;             /* acceptance exp(-beta * dF / F_start) */
    uint64_t seed;
    double time_limit_s;     /* wall time, seconds; 0 = none (the clock is then never read).
                              * Past it the search stops and returns the best strategy
                              * seen so far, setting *time_limit_hit */
    int *time_limit_hit;     /* may be NULL; set to 1 or 0 by pase_mcmc */
    double deadline_s;       /* the command's deadline (dnp_deadline_at); 0 = time_limit_s
                              * from the walk's start */
} pase_mcmc_opts;

/* The defaults: 250,000 iterations at most (FlexFlow's cap in the paper's
 * section IV-A), at least 20,000, beta 200, seed 1, no time limit. */
void pase_mcmc_defaults(pase_mcmc_opts *o); /* O(1) */

/* FlexFlow-style MCMC (Metropolis-Hastings over single-vertex changes,
 * proposal uniform over the vertex's configurations) from `start`; stops
 * at max_iters or when the best has not improved for half the iterations
 * run (after min_iters).  Writes the best strategy seen to `best`, its F
 * to *cost_flop and the iterations run to *iters (either may be NULL).
 * DNP_ERR_NOMEM (best untouched) if its scratch cannot be allocated: never
 * the start passed off as a search result.  Deterministic for a seed.
 * O(iters * deg * rank). */
dnp_status pase_mcmc(const pase_problem *pb, const int *start, const pase_mcmc_opts *o, int *best,
                     long *iters, double *cost_flop, dnp_error *err);

/* ------------------------------------------------------------------ */
/* The prototype's models                                              */
/* ------------------------------------------------------------------ */

/* The prototype's reference graphs (README "The built-in models"):
 * "pase-alexnet", "pase-inception3", "pase-rnnlm", "pase-transformer",
 * "pase-resnet101": the zoo's core-IR models and their iteration spaces
 * (iter_space_build; pase_zoo.c, model/zoo_pase.c). */
/* Their count, and model i's name and one-line description (NULL out of
 * range).  O(1). */
int pase_model_count(void);
const char *pase_model_name(int i);
const char *pase_model_description(int i);
/* The paper's batch for model i (128 CNNs, 64 RNNLM and Transformer).  O(1). */
int64_t pase_model_default_batch(int i);
/* Index of `name` (case-insensitive), or -1.  O(models). */
int pase_model_find(const char *name);
/* The README's cutoff for model i: 4, or 1 for RNNLM and Transformer (0
 * out of range).  O(1). */
int pase_model_cutoff(int i);
/* The iteration space of model `name` for `batch` (it owns its core
 * graph: core_owned).  O(size of model). */
dnp_status pase_model_build(const char *name, int64_t batch, iter_space **out, dnp_error *err);
/* Variants for the benchmarks: a transformer with `layers` encoder and
 * decoder layers (cutoff 1), a ResNet with bottleneck blocks blocks[0..3]
 * (cutoff 4), built in the core IR, as iteration spaces.  NULL on any
 * failure.  O(size of model). */
iter_space *pase_build_transformer(int64_t batch, int layers);
iter_space *pase_build_resnet(int64_t batch, const int blocks[4]);

/* ------------------------------------------------------------------ */
/* For `dnnpar compare`                                                 */
/* ------------------------------------------------------------------ */

typedef struct {
    double pase_s;           /* best PaSE strategy: F / peak FLOP/s */
    double mcmc_s;           /* MCMC from the expert strategy */
    double dp_s;             /* data parallelism */
    double expert_s;         /* the expert strategy */
    char expert[32];         /* its name, e.g. "owt", "mesh 8x4" */
    double search_s;         /* wall time of the PaSE search (not deterministic) */
    int time_limit_hit;      /* MCMC stopped at the deadline: its figure is its best so far */
} pase_compare_result;

/* Convert g, bind it to p devices of peak_flops FLOP/s and net_bw_bps
 * bytes/s moving bytes_per_word-byte words (8 as the reference; a
 * cluster's element size), and evaluate PaSE, MCMC (default budget, seed
 * 1), data parallelism and the expert strategy in that one space.
 * The DP and MCMC stop at deadline_s (core/clock.h; 0 = none; the DP
 * then fails naming time_limit_s, MCMC keeps its best so far, flagged).
 * Errors: DNP_ERR_INPUT (p < 1, unsupported op, tables over 2 GiB, the
 * deadline).  O(the search). */
dnp_status pase_compare(const dnp_graph *g, int p, int64_t batch, double peak_flops,
                        double net_bw_bps, int bytes_per_word, double time_limit_s,
                        double deadline_s, pase_compare_result *out, dnp_error *err);

#endif
