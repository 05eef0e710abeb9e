/*
 * dnnpar/pase.h - PaSE (Elango, IPDPS 2021): per-op iteration-space strategies, its
 * searches and baselines, strategies and plans from them, and the paper's
 * evaluation (src/search/pase/, docs/pase.md).
 *
 * Part of libdnnpar's public API: include <dnnpar.h>, which includes each
 * header under dnnpar/, or this header alone (it includes what it needs).  Its
 * conventions are dnnpar.h's (status and error record, dnp_X_new / dnp_X_free
 * pairs, units in names; docs/library.md).
 * Ownership: problems, runs and reproductions are opaque, the caller's, each
 * freed with its dnp_pase_X_free (runs before their problem); a
 * dnp_pase_strategy_search owns what dnp_pase_strategy_search_free frees;
 * texts are freed with dnp_free; names in the figures are borrowed from the
 * run or problem.
 */
#ifndef DNNPAR_PUBLIC_PASE_H
#define DNNPAR_PUBLIC_PASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"

/* Default visibility for what this header declares (core.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------ */
/* PaSE: per-op iteration-space strategies (Elango, "PaSE", IPDPS      */
/* 2021; src/search/pase/, docs/pase.md)                               */
/* ------------------------------------------------------------------ */

/* PaSE splits every op's iteration space (any dimension, any divisor)
 * over p identical devices and minimises Eq. 1's F = sum of layer costs
 * t_l + sum of transfer costs t_x.  Two cost models (dnp_pase_options):
 *   DNP_COST_DEFAULT     t_l and t_x in seconds on the shared performance
 *                        model: roofline kernels of the device model,
 *                        collectives on the link tiers a split spans, the
 *                        device memory (configurations over it pruned); a
 *                        cluster of several device types also gets a batch
 *                        split across the types (docs/pase.md "Shared
 *                        model", "Heterogeneous clusters")
 *   DNP_COST_PASE_PAPER  the prototype's Eq. 1 in FLOP-equivalents: moving
 *                        w words costs r x w FLOP with r = peak FLOP/s /
 *                        (link words/s); `reproduce pase` and `compare` use it
 * The driver below is what `dnnpar plan --search pase|mcmc` and `dnnpar
 * reproduce pase` run: build a problem (model, hardware, batch, cutoff,
 * cost model), run a search and the baselines in the same space, report. */

/* PaSE's hardware: p devices of one peak and one link (Eq. 1's r). */
typedef struct {
    int p;                   /* devices */
    double peak_flops;       /* per device, FLOP/s */
    double link_bps;         /* per device link, bytes/s */
    int word_bytes;          /* bytes per word moved (8 in the prototype) */
    char description[320];   /* one line for reports */
    int device_types;        /* types with devices: 0 from dnp_pase_hw_uniform (the default
                              * cost model then sees one bare fp32 device of that peak and
                              * link, memory unknown), else 1 or more */
    dnp_cluster cluster;     /* dnp_pase_hw_from_cluster's c (a copy); zero otherwise */
} dnp_pase_hw;

/* p devices of peak_flops FLOP/s with links of link_bps bytes/s moving
 * 8-byte words (the prototype's; 10 TFLOP/s and 16 GB/s give its r =
 * 5000 FLOP per word).  DNP_ERR_INPUT unless 1 <= p <= 65536 and both
 * figures are positive and finite.  O(1). */
dnp_status dnp_pase_hw_uniform(int p, double peak_flops, double link_bps, dnp_pase_hw *out,
                               dnp_error *err);
/* Cluster c as PaSE sees it: all its devices, the weakest peak and link of
 * its device types (a mixed cluster is planned for its weakest device,
 * paper section V) and the widest element type as the word.
 * DNP_ERR_INPUT for more than 65536 devices or a type without a positive
 * peak and network bandwidth.  O(device types). */
dnp_status dnp_pase_hw_from_cluster(const dnp_cluster *c, dnp_pase_hw *out, dnp_error *err);
/* Eq. 1's r in FLOP per word: peak_flops x word_bytes / link_bps.  O(1). */
double dnp_pase_hw_r_flop_per_word(const dnp_pase_hw *hw);

/* A model bound to hardware: every op's configurations and layer costs,
 * every edge's projections (opaque; src/search/pase/pase_setup.c). */
typedef struct dnp_pase_problem dnp_pase_problem;

typedef struct {
    int64_t batch;           /* mini-batch; 0: a reference graph's (128 for the CNNs, 64
                              * for pase-rnnlm and pase-transformer), else 128 */
    int cutoff;              /* smallest per-device extent of a split dimension; 0: the
                              * graph's (4; 1 for pase-rnnlm and pase-transformer) */
    int prototype_edges;     /* 1: an op feeding two inputs of one consumer counts once,
                              * as in the prototype */
    double max_memory_bytes; /* refuse configurations and DP tables needing more; 0:
                              * 2048 MiB */
    int skip_unknown;        /* ONNX: unknown operators become free element-wise ops */
    dnp_cost_model cost_model; /* DNP_COST_DEFAULT (0): seconds on the shared model;
                              * DNP_COST_PASE_PAPER: Eq. 1 in FLOP-equivalents; any other:
                              * DNP_ERR_INPUT */
    /* The default cost model only (DNP_ERR_INPUT with pase-paper unless zero): */
    dnp_precision precision; /* 0: the devices' dtype */
    dnp_optimizer optimizer; /* the optimizer state each device holds; 0: momentum */
    double memory_limit_bytes; /* per device; 0: the device's capacity (none for the bare
                              * device of dnp_pase_hw_uniform) */
    int no_stragglers;       /* 1: ignore the devices' speed spread */
    int split_rows;          /* 1: let a softmax, layer norm or LRN split the axis it
                              * normalises, and the op it reads from its output channels,
                              * as the paper's space does (the reproductions); 0: such a row
                              * stays whole, a reduction the simulator and the executor do
                              * not model (docs/pase.md "Row ops") */
    /* Either cost model: */
    int strategy_space;      /* 1: search only configurations a dnnpar strategy holds
                              * (dnp_pase_run_strategy): every op the strategy decides splits
                              * its batch, input or output dimension (joins: batch or
                              * channel), by powers of two (docs/pase.md "The strategy's
                              * space") */
} dnp_pase_options;

/* Build the problem of `model`: a PaSE reference graph (pase-alexnet,
 * pase-inception3, pase-rnnlm, pase-transformer, pase-resnet101), else a
 * zoo name or model file (dnp_model_load_opts) converted to PaSE's
 * iteration spaces (docs/pase.md "Iteration spaces"); opt may be NULL (all
 * defaults: the default cost model).  On success *out is the caller's
 * (dnp_pase_problem_free); it keeps a copy of `model` as the reports'
 * source and the loaded model (the type split rebuilds it at other
 * batches).  The default cost model plans for hw's one device type, or
 * for the field-wise weakest of several (docs/pase.md).  Errors: a
 * loader's own; "MODEL: reason" for an op without a PaSE iteration space
 * (DNP_ERR_INPUT); DNP_ERR_INPUT for tables over max_memory_bytes, an
 * unknown cost model, default-model options under pase-paper, a device
 * type without a positive peak; DNP_ERR_NOMEM.  O(sum over ops of
 * configurations x rank + sum over edges of the endpoints'
 * configurations). */
dnp_status dnp_pase_problem_load(const char *model, const dnp_pase_hw *hw,
                                 const dnp_pase_options *opt, dnp_pase_problem **out,
                                 dnp_error *err);
/* The same from a core graph g (borrowed: it must outlive the problem,
 * whose type split rebuilds it at other batches; the source is its name);
 * conversion errors are not prefixed. */
dnp_status dnp_pase_problem_from_graph(const dnp_graph *g, const dnp_pase_hw *hw,
                                       const dnp_pase_options *opt, dnp_pase_problem **out,
                                       dnp_error *err);
/* Free a problem; NULL is a no-op.  Free its runs first.  O(ops + edges). */
void dnp_pase_problem_free(dnp_pase_problem *pb);
/* Its ops (vertices), active edges and mini-batch.  O(1). */
int dnp_pase_problem_n_ops(const dnp_pase_problem *pb);
int dnp_pase_problem_n_edges(const dnp_pase_problem *pb);
int64_t dnp_pase_problem_batch(const dnp_pase_problem *pb);

typedef enum {
    DNP_PASE_SEARCH_DP = 0,  /* GenerateSeq + FindBestStrategy (Figs. 3, 4): exact */
    DNP_PASE_SEARCH_BFS,     /* the breadth-first DP (recurrence 2): exact, larger tables */
    DNP_PASE_SEARCH_MCMC     /* FlexFlow-style MCMC from the expert strategy */
} dnp_pase_search;

/* Progress of a long search: `what` names the search ("searching", or the
 * model and p in a reproduction), done of total ops eliminated after
 * elapsed_s seconds.  Called once a search has run for a second, and with
 * done == total at its end if it was called before. */
typedef void (*dnp_pase_progress_fn)(void *user, const char *what, int done, int total,
                                     double elapsed_s);

typedef struct {
    dnp_pase_search search;
    int threads;             /* DP worker threads; 0: the online CPUs, at most 8 */
    long mcmc_iters;         /* MCMC budget; 0: 250,000 (FlexFlow's) */
    uint64_t seed;           /* MCMC seed; 0: 1 */
    int optimum;             /* with MCMC: also run the exact search and compare */
    double time_limit_s;     /* wall time; 0: none.  MCMC then keeps its best so far; the
                              * exact search fails with DNP_ERR_INPUT */
    dnp_pase_progress_fn progress; /* may be NULL */
    void *progress_user;
    int no_refine;           /* default model, one device type: keep PaSE's optimum; else
                              * it is refined in the step simulator (docs/pase.md "The
                              * plan, refined in the step simulator") */
    double time_limit_from_s; /* the dnp_clock_s() reading time_limit_s counts from (the
                              * command's start: one deadline, as dnp_plan_options); 0 =
                              * the call's start */
} dnp_pase_run_options;

/* A search's strategy with the baselines in the same space and cost model
 * (opaque; src/search/pase/pase_run.c). */
typedef struct dnp_pase_run dnp_pase_run;

/* Run search o->search on pb (o may be NULL: the DP, defaults) and
 * evaluate the baselines: data parallelism, the expert strategy of the
 * paper's section IV and, after an exact search, MCMC from the expert.
 * Under the default cost model the DP keeps the plan within the device
 * memory (docs/pase.md "Memory": configurations over the limit pruned,
 * per-op budgets if the optimum does not fit; the breadth-first DP and
 * MCMC do not prune), and on a cluster of several device types the DP
 * also splits the batch across the types, PaSE inside each
 * (dnp_pase_run_type_split).  The run borrows pb (read only: runs on one
 * problem may proceed in parallel): free it before pb.  On success *out
 * is the caller's (dnp_pase_run_free).  Errors: DNP_ERR_INPUT (DP tables
 * over the memory limit, time limit of an exact search, no strategy fits
 * in the device memory, naming the figures; a type split that fits
 * nowhere is no error: the plan over all devices stays),
 * DNP_ERR_NOMEM.  O(the search: sum over ops of K_v x prod of K over its
 * dependent set; the type split: one per share evaluated and type). */
dnp_status dnp_pase_run_new(const dnp_pase_problem *pb, const dnp_pase_run_options *o,
                            dnp_pase_run **out, dnp_error *err);
/* Free a run; NULL is a no-op.  O(1). */
void dnp_pase_run_free(dnp_pase_run *r);

/* Costs: a *_flop figure is Eq. 1's FLOP-equivalents under pase-paper and
 * -1 under the default cost model; a *_s figure is seconds under both
 * (pase-paper: the FLOP figure / peak FLOP/s). */
typedef struct {
    dnp_cost_model cost_model; /* the problem's */
    double cost_flop;        /* F of the strategy found (Eq. 1) */
    double cost_s;           /* F in seconds: the step time under the default model */
    double transfer_flop;    /* its transfer part, sum of t_x */
    double transfer_s;
    double optimum_flop;     /* MCMC with o->optimum: the exact search's F; else -1 */
    double optimum_s;        /* the same in seconds; else -1 */
    double search_s;         /* wall time of the search (varies run to run) */
    int n_baselines;         /* 2 after MCMC, 3 after an exact search */
    int best_baseline;       /* index of the cheapest that fits the memory (of all
                              * if none does; the first of ties) */
    int dp_split_min, dp_split_max; /* batch splits data parallelism uses (< p: idle
                              * devices) */
    int time_limit_hit;      /* 1: MCMC (the search or the baseline) stopped at the
                              * time limit and kept its best so far */
    int devices_used;        /* the most devices any op of the strategy uses (the rest
                              * idle all step) */
    /* The default model's DP (else -1, -1, 0, 0): */
    double mem_bytes;        /* the plan's per-device footprint */
    double min_mem_bytes;    /* the least footprint of any strategy */
    double mem_limit_bytes;  /* the limit it was planned for; 0: none */
    int mem_budgeted;        /* 1: the optimum did not fit; per-op budgets were used */
    int has_type_split;      /* 1: a batch split across device types was searched */
} dnp_pase_summary;
/* The run's figures.  O(edges x rank). */
void dnp_pase_run_summary(const dnp_pase_run *r, dnp_pase_summary *out);

typedef struct {
    const char *name;        /* "data parallel", "expert (owt)", "mcmc (from the
                              * expert)"; borrowed from the run */
    double cost_flop;        /* F, FLOP-equivalents (pase-paper; -1 under the default) */
    double cost_s;           /* F in seconds */
    long iterations;         /* MCMC's, else 0 */
    double mem_bytes;        /* per-device footprint (default model; 0 under pase-paper) */
    int fits;                /* 1 unless over the run's memory limit; the best baseline
                              * (dnp_pase_summary.best_baseline) is the fastest that fits */
} dnp_pase_baseline;
/* Baseline i (0 .. n_baselines - 1); DNP_ERR_INPUT out of range.  O(1). */
dnp_status dnp_pase_run_baseline(const dnp_pase_run *r, int i, dnp_pase_baseline *out,
                                 dnp_error *err);

typedef struct {
    const char *name;        /* borrowed from the problem */
    const char *kind;        /* "Conv", "FC", ... (the prototype's class names) */
    char dims[64];           /* iteration-space dimension names, e.g. "bchwrsn" */
    char config[96];         /* split count per dimension, e.g. "(4,1,1,1,1,1,2)" */
    double layer_cost_flop;  /* t_l under that configuration (pase-paper; -1 under the
                              * default model) */
    double layer_cost_s;     /* t_l in seconds */
} dnp_pase_op;
/* Op v (0 .. n_ops - 1) of the strategy; DNP_ERR_INPUT out of range.
 * O(rank). */
dnp_status dnp_pase_run_op(const dnp_pase_run *r, int v, dnp_pase_op *out, dnp_error *err);

/* The batch split across device types of a default-model DP run on a
 * cluster of several types (docs/pase.md "Heterogeneous clusters"): one
 * group per type with devices, step = max over groups of their PaSE
 * optimum at their share + the gradient all-reduce across the groups. */
typedef struct {
    char device[32];         /* the type's name */
    int devices;
    int64_t batch;           /* its share (0: the group idles) */
    int64_t plan_batch;      /* the share its plan was searched at: batch, unless the step
                              * simulator moved the share with the plan kept (in the
                              * strategy's space; docs/pase.md "The type level, refined in
                              * the step simulator") */
    double time_s;           /* its PaSE optimum at plan_batch */
    double mem_bytes;        /* that plan's per-device footprint at plan_batch */
    int devices_used;        /* the most devices an op of that plan uses (0 if idle) */
} dnp_pase_type_group;
typedef struct {
    int n_groups;
    dnp_pase_type_group group[DNP_MAX_DEVICE_TYPES];
    double sync_s;           /* the gradient all-reduce across the groups */
    double grad_bytes;       /* the gradient bytes it sums */
    double step_s;           /* the step with the split */
    int candidates;          /* group plans searched (one PaSE search of one group at
                              * one share; shares searched before are not counted) */
    int exhaustive;          /* 1: every integer split was tried (two types) */
    int chosen;              /* 1: faster than the plan on the weakest device */
} dnp_pase_type_split;
/* The run's type split; DNP_ERR_INPUT if it has none.  O(types). */
dnp_status dnp_pase_run_type_split(const dnp_pase_run *r, dnp_pase_type_split *out,
                                   dnp_error *err);
/* The configuration of op v (0 .. n_ops - 1) in group g's plan, "(b,c,...)",
 * borrowed from the run; NULL out of range or for an idle group.  O(1). */
const char *dnp_pase_run_type_config(const dnp_pase_run *r, int g, int v);

/* Under the default cost model: a warning line on f for the chosen plan's
 * devices idle all step (the weakest-device plan, or each group of the
 * chosen type split), as the report also shows; the CLI writes them to
 * stderr.  Returns the lines written.  O(groups). */
int dnp_pase_run_warn(const dnp_pase_run *r, FILE *f);

/* The report `dnnpar plan --search pase|mcmc` prints, to f: the model and
 * hardware (and cost model), every op's configuration and t_l, F or the
 * step time, the memory, the baselines, idle devices, the type split and
 * the table sizes; with timing, the search time (without it, the bytes are
 * the same on every run).  Write errors stay on f's error flag.  O(ops). */
void dnp_pase_run_print(const dnp_pase_run *r, int timing, FILE *f);
/* The same as JSON (docs/formats.md): a new NUL-terminated text the caller
 * frees with dnp_free; NULL on allocation failure.  Deterministic (no
 * times).  O(ops). */
char *dnp_pase_run_json(const dnp_pase_run *r);

/* What dnp_pase_run_strategy wrote. */
typedef struct {
    int idle_ops;            /* ops whose configuration leaves devices idle: their unused
                              * levels are R (layers) / "replicated" (joins) */
    int type_split;          /* 1: the run's batch split across device types is the top
                              * levels (Type-I with ratio b_t / samples) */
    char idle_types[128];    /* device types the split gives no samples ("2xv100"; "" none):
                              * dropped, the strategy is for the rest */
    char cluster[DNP_CLUSTER_SPEC_MAX]; /* the cluster spec the strategy names, whole */
} dnp_pase_strategy_info;

/* Run r's strategy as a dnnpar strategy, version 2 (docs/formats.md
 * "Strategy", the file `plan --json` writes and `simulate --strategy`,
 * `export --strategy` read) for model g (the core graph r's problem was
 * converted from; its source text model_source, NULL for its name) on
 * cluster c at `batch`: per level of c's binary device tree each weighted
 * op's type (I batch, II input, III output, R not split) and each join's
 * ("batch", "channel", "replicated").  Exact for configurations that split
 * only those dimensions, in powers of two: levels a configuration leaves
 * unused are R / "replicated" (each half computes all of the op, the time
 * of one half working while the other idles; info->idle_ops counts those
 * ops).  When r chose the batch split across device types, the levels
 * separating the types split the batch with ratio b_t / samples and each
 * type's group takes its own plan below them (paths of different lengths);
 * a type with no samples is dropped (info->idle_types) and the strategy
 * names the cluster without it (info->cluster).  Other splits, a group
 * that is not a power of two, or a tree that does not halve the plan's
 * devices evenly are refused (DNP_ERR_INPUT naming the op or the group).
 * *out is a new NUL-terminated JSON text the caller frees with dnp_free.
 * O(ops x levels x distinct paths). */
dnp_status dnp_pase_run_strategy(const dnp_pase_run *r, const dnp_graph *g,
                                 const char *model_source, const dnp_cluster *c, int64_t batch,
                                 char **out, dnp_pase_strategy_info *info, dnp_error *err);

/* A PaSE run whose plan is a dnnpar strategy (dnp_pase_search_strategy). */
typedef struct {
    dnp_pase_problem *problem;   /* owned (dnp_pase_strategy_search_free) */
    dnp_pase_run *run;           /* owned; a run of problem */
    char *strategy;              /* the run's strategy JSON (dnp_pase_run_strategy; owned) */
    dnp_pase_strategy_info info;
    int in_space;                /* 1: the run is the search in the strategy's space: PaSE's
                                  * optimum was no strategy, or (faster) it was but the
                                  * strategy's space simulates faster */
    int faster;                  /* 1: in_space because on several device types the type
                                  * split of the strategy's space, chosen and refined in the
                                  * step simulator, simulates faster than PaSE's optimum */
    char cost[64];               /* the run's cost in its unit ("21.733 ms", "F = ... FLOP") */
    char optimum[64];            /* in_space: the optimum's cost, the same way */
    char why[512];               /* in_space: why the optimum is no strategy, or (faster)
                                  * both simulated step times */
} dnp_pase_strategy_search;

/* PaSE with opt and ro on a model, its plan written as a dnnpar strategy
 * for cluster c (dnp_pase_run_strategy).  The model is g when given (its
 * strategy names g), else the file, zoo or reference model `model`
 * (dnp_pase_problem_load; the strategy names `model` as its source).  When
 * the optimum splits what a strategy cannot hold and opt did not ask for
 * the strategy's space, the search runs again in that space
 * (dnp_pase_options.strategy_space) and out->in_space, optimum and why
 * say so (docs/pase.md "The strategy's space").  On a cluster of several
 * device types under the default model, when the DP's optimum is a strategy,
 * the strategy's space is searched too and its plan kept when the step
 * simulator runs it faster (out->faster; docs/pase.md "The type level,
 * refined in the step simulator").  Errors: the loaders' and
 * searches' own; DNP_ERR_INPUT when no strategy exists even in that space
 * (the message names the op or the group).  On success *out owns the
 * problem, the run and the text (dnp_pase_strategy_search_free); on
 * failure *out holds nothing.  O(one or two searches + ops x levels, and
 * two plans simulated on several device types). */
dnp_status dnp_pase_search_strategy(const char *model, const dnp_graph *g, const dnp_pase_hw *hw,
                                    const dnp_pase_options *opt, const dnp_pase_run_options *ro,
                                    const dnp_cluster *c, dnp_pase_strategy_search *out,
                                    dnp_error *err);
/* s's strategy as a plan (named "pase" or "mcmc") of its model on cluster
 * c, evaluated by the step simulator as dnp_pase_run_plan does, without
 * writing the strategy again (the model is the problem's core graph, or
 * loaded again for a reference graph's problem).  Errors: the loader's and
 * the simulator's own.  *out is the caller's (dnp_plan_free).  O(the
 * simulation). */
dnp_status dnp_pase_search_plan(const dnp_pase_strategy_search *s, const dnp_cluster *c,
                                dnp_plan **out, dnp_error *err);
/* Free what s owns (NULL-safe) and zero it.  O(ops). */
void dnp_pase_strategy_search_free(dnp_pase_strategy_search *s);

/* `dnnpar reproduce pase`: the paper's Table I (search per model and p = 4
 * .. 64 beside the paper's and the prototype's times and totals) and
 * Table II (strategies at p = 32) on our implementation (opaque;
 * src/search/pase/pase_repro.c). */
typedef struct dnp_pase_repro dnp_pase_repro;

typedef struct {
    int max_p;               /* only device counts p (4, 8, 16, 32, 64) up to this; Table
                              * II at min(max_p, 32); 0: 64 */
    int threads;             /* 0: the online CPUs, at most 8 */
    dnp_pase_progress_fn progress; /* may be NULL */
    void *progress_user;
} dnp_pase_repro_options;

/* Run the evaluation (10 TFLOP/s, 16 GB/s, 8-byte words: r = 5000; each
 * model at its paper batch); o may be NULL.  On success *out is the
 * caller's (dnp_pase_repro_free).  Errors: DNP_ERR_INTERNAL naming the
 * model and p if a reference search fails, DNP_ERR_NOMEM.  O(the searches:
 * minutes for p = 64). */
dnp_status dnp_pase_reproduce(const dnp_pase_repro_options *o, dnp_pase_repro **out,
                              dnp_error *err);
/* Free it; NULL is a no-op.  O(1). */
void dnp_pase_repro_free(dnp_pase_repro *r);
/* Table I's cell of `model` (e.g. "pase-alexnet") at p: our best F and the
 * prototype's total (-1 if unknown).  DNP_ERR_INPUT if the cell was not
 * run.  O(cells). */
dnp_status dnp_pase_repro_cell(const dnp_pase_repro *r, const char *model, int p,
                               double *cost_flop, double *prototype_flop, dnp_error *err);
/* The tables as `dnnpar reproduce pase` prints them, to f; with timing,
 * our search times.  O(ops of the four models). */
void dnp_pase_repro_print(const dnp_pase_repro *r, int timing, FILE *f);
/* The same as JSON (no times): new text, dnp_free; NULL on allocation
 * failure.  O(ops). */
char *dnp_pase_repro_json(const dnp_pase_repro *r);

/* `dnnpar compare`'s PaSE block: g at `batch` on cluster c as one flat
 * mesh of all its devices, each counted at the weakest type's peak and
 * link, moving words of the widest element type, with
 * PaSE, MCMC (default budget, seed 1), data parallelism and the expert
 * strategy in that one space, in seconds of the device's peak (F / peak
 * FLOP/s). */
typedef struct {
    double pase_s;           /* the best PaSE strategy */
    double mcmc_s;           /* MCMC from the expert strategy */
    double dp_s;             /* data parallelism */
    double expert_s;         /* the expert strategy */
    char expert[32];         /* its name, e.g. "owt", "mesh 8x4" */
    double search_s;         /* wall time of the PaSE search (varies run to run) */
    int time_limit_hit;      /* MCMC stopped at opt's deadline: mcmc_s is its best so far */
} dnp_pase_compare_result;
/* opt (may be NULL: no limit) gives the time limit and its start
 * (time_limit_s, time_limit_from_s; the command's one deadline): the DP
 * past it fails (DNP_ERR_INPUT, "time limit of S s reached in the PaSE
 * search ..."), MCMC keeps its best so far (time_limit_hit).
 * Errors: DNP_ERR_INPUT (unsupported op, too many devices, tables over 2
 * GiB, the deadline), DNP_ERR_NOMEM.  O(the search). */
dnp_status dnp_pase_compare(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                            const dnp_plan_options *opt, dnp_pase_compare_result *out,
                            dnp_error *err);

/* Run r's strategy as a dnnpar plan: written as dnp_pase_run_strategy does
 * (for g, the core graph r's problem was converted from, on cluster c at
 * the problem's batch) and evaluated by the step simulator like any plan
 * (dnp_plan_run_strategy, with the problem's precision, optimizer, memory
 * limit and stragglers; a plan over memory is returned, flagged).  info
 * (may be NULL) as dnp_pase_run_strategy's.  Errors: DNP_ERR_INPUT when r
 * is of the pase-paper model or its strategy cannot be written (the
 * message names the op or the group), the simulator's own.  *out is the
 * caller's (dnp_plan_free).  O(ops x levels + the simulation). */
dnp_status dnp_pase_run_plan(const dnp_pase_run *r, const dnp_graph *g, const dnp_cluster *c,
                             dnp_plan **out, dnp_pase_strategy_info *info, dnp_error *err);

/* PaSE's search s (DP or MCMC) on g over cluster c as a dnnpar plan: the
 * search on the shared performance model with opt's batch, precision,
 * optimizer, memory limit, stragglers and time limit, its strategy
 * written as a dnnpar strategy (dnp_pase_run_strategy) and evaluated like
 * any plan by the step simulator (dnp_plan_run_strategy; the plan names
 * its search "pase" or "mcmc").  When the optimum splits what a strategy
 * cannot hold, the strategy's space is searched instead
 * (dnp_pase_options.strategy_space) and *in_space (may be NULL) is 1.  A
 * device type the batch split leaves idle is dropped: the plan is for the
 * other devices (info, may be NULL, says which and counts the ops that
 * leave devices idle, as dnp_pase_run_strategy).  Errors: DNP_ERR_INPUT (no strategy even in that space:
 * a device tree that does not halve evenly, tables over 2 GiB), the
 * searches' own; *out is the caller's (dnp_plan_free).  O(the search +
 * the simulation). */
dnp_status dnp_pase_plan_run(const dnp_graph *g, const dnp_cluster *c,
                             const dnp_plan_options *opt, dnp_pase_search s, dnp_plan **out,
                             int *in_space, dnp_pase_strategy_info *info, dnp_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* DNNPAR_PUBLIC_PASE_H */
