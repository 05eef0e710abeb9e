/*
 * dnnpar/config3d.h - Megatron-LM configurations (tensor x pipeline x data
 * parallelism): checks, the step simulator, the 3D search over configurations
 * and layouts, the mixed-cluster baselines, Megatron-LM's arguments
 * (src/sim/config3d.c; the search in src/search/config3d_search.c;
 * docs/config3d.md).
 *
 * Part of libdnnpar's public API: include <dnnpar.h>, which includes each
 * header under dnnpar/, or this header alone (it includes what it needs).  Its
 * conventions are dnnpar.h's (status and error record, dnp_X_new / dnp_X_free
 * pairs, units in names; docs/library.md).
 * Ownership: configurations, results and statistics are plain values in
 * the caller's structs; texts (traces, arguments) are freed with dnp_free.
 */
#ifndef DNNPAR_PUBLIC_CONFIG3D_H
#define DNNPAR_PUBLIC_CONFIG3D_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"
#include "report.h" /* dnp_export_format */

/* Default visibility for what this header declares (core.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------ */
/* Transformer configurations: tensor x pipeline x data parallelism     */
/* (src/sim/config3d.c, docs/config3d.md)                               */
/* ------------------------------------------------------------------ */

typedef enum {
    DNP_RECOMPUTE_NONE = 0,
    DNP_RECOMPUTE_SELECTIVE, /* attention's scores, softmax and context (Korthikanti 2022) */
    DNP_RECOMPUTE_FULL,      /* every layer's forward again before its backward */
    DNP_RECOMPUTE_COUNT
} dnp_recompute;
const char *dnp_recompute_name(dnp_recompute r); /* "none", "selective", "full" */
int dnp_recompute_from_name(const char *s);      /* -1 if unknown */

#define DNP_CONFIG3D_MAX_STAGES 256 /* pipeline stages with a layer count of their own */

/* Which Megatron-LM's rules a configuration follows (dnp_plan_options.
 * megatron_version; docs/config3d.md, "Schedules and overlaps"): the
 * interleaved schedule's micro-batch rule changed in Megatron-Core
 * core_r0.10.0 (megatron/core/pipeline_parallel/schedules.py). */
typedef enum {
    DNP_MEGATRON_CURRENT = 0, /* core_r0.10.0 and later: micro-batch groups of N
                               * (--microbatch-group-size-per-virtual-pipeline-stage, default
                               * pp): pp <= N <= m and m mod N is 0 or at least pp */
    DNP_MEGATRON_LEGACY,      /* core_r0.9.0 and earlier: m a multiple of pp, no groups */
    DNP_MEGATRON_COUNT
} dnp_megatron_version;
const char *dnp_megatron_version_name(dnp_megatron_version v); /* "current", "legacy" */
/* "current" / "core_r0.10" ... and "legacy" / "core_r0.9" ...; -1 if unknown */
int dnp_megatron_version_from_name(const char *s);

/* A Megatron-LM configuration.  Pipeline stage s runs on ranks
 * [s tp dp, (s + 1) tp dp) in Megatron's order (tensor-parallel ranks
 * fastest, then data, then pipeline) over the cluster's devices (types in
 * the order the cluster lists them); a stage, a tensor-parallel group or a
 * data-parallel group may span device types (docs/config3d.md, "Mixed
 * clusters"). */
typedef struct {
    int tp, pp, dp;          /* tensor-, pipeline-, data-parallel degrees (>= 1) */
    int64_t microbatch;      /* sequences per micro-batch */
    int interleave;          /* model chunks per pipeline rank (1: 1F1B, > 1: interleaved) */
    dnp_recompute recompute;
    int seq_par;             /* 1: sequence parallelism */
    int zero;                /* ZeRO stage over the data-parallel group (Rajbhandari et al.
                              * 2020): 0 none, 1 optimizer state, 2 + gradients, 3 + weights */
    int gpipe;               /* 1: GPipe's schedule (every forward, then every backward;
                              * Huang et al. 2019), 0: 1F1B / interleaved */
    /* Transformer layers per pipeline stage (uneven stages, 1F1B only):
     * n_stage_layers = 0 splits the layers evenly; otherwise it equals pp,
     * every entry is >= 1 (0 allowed for the first stage, which then holds
     * only the embedding, and the last, only the final norm and head) and
     * they sum to the model's layers. */
    int n_stage_layers;
    int stage_layers[DNP_CONFIG3D_MAX_STAGES];
    int grad_fp32;           /* 1: gradient all-reduces in fp32 (grad_dtype=fp32; DeepSpeed's
                              * fp32_allreduce), 4 bytes per parameter */
    /* Schedules and overlaps (docs/config3d.md, "Schedules and overlaps"): */
    int overlap_grad;        /* 1: Megatron-LM --overlap-grad-reduce: the data-parallel
                              * gradient reduction in buckets during the last backward */
    int overlap_param;       /* 1: --overlap-param-gather (zero=1 and overlap_grad): the
                              * parameter all-gather during the next step's first forward */
    int tp_overlap;          /* 1: --tp-comm-overlap (Transformer Engine userbuffers; tp > 1
                              * and seq_par): tensor-parallel collectives pipelined with the
                              * GEMMs they feed */
    int vp_group;            /* interleaved schedule's micro-batches per group
                              * (--microbatch-group-size-per-virtual-pipeline-stage, current
                              * Megatron-LM only); 0 = pp */
} dnp_config3d;

/* tp = pp = dp = microbatch = interleave = 1, no recompute, no sequence
 * parallelism.  O(1). */
void dnp_config3d_defaults(dnp_config3d *c);
/* Parse "tp=8,pp=8,dp=1,microbatch=1,interleave=3,recompute=selective,
 * seq_par=1,zero=1,schedule=1f1b,layers=14:18:18:14,grad_dtype=fp32" (any
 * subset, any order; the rest default; `layers` lists the layers of each
 * pipeline stage, separated by ':'; schedule is 1f1b or gpipe; grad_dtype
 * is fp32 or default).  DNP_ERR_INPUT
 * naming the bad item.  O(length). */
dnp_status dnp_config3d_parse(const char *text, dnp_config3d *out, dnp_error *err);
/* cfg as the text dnp_config3d_parse reads back to the same
 * configuration: every key that differs from dnp_config3d_defaults, in
 * the order tp, pp, dp, microbatch, interleave, recompute, seq_par, zero,
 * schedule, layers, grad_dtype, overlap_grad, overlap_param, tp_overlap,
 * vp_group ("tp=1,pp=1,dp=1" at least).  Into buf[n], truncated;
 * returns the length it needed.  O(pp). */
size_t dnp_config3d_format(const dnp_config3d *cfg, char *buf, size_t n);

typedef struct {
    double step_time_s;      /* simulated step */
    double compute_busy_s;   /* the busiest pipeline rank's compute stream (kernels, the
                              * tensor-parallel collectives it waits for, the data-parallel
                              * all-reduce and the optimizer) */
    double bubble_s;         /* step time minus that: pipeline fill, drain and waits */
    double tp_comm_s;        /* tensor-parallel collectives per rank per step */
    double p2p_s;            /* one pipeline message (send and re-gather) */
    double dp_comm_s;        /* the gradient all-reduce (with overlap_grad / overlap_param:
                              * what stays exposed of it) */
    double dp_hidden_s;      /* of the data-parallel traffic, what overlap_grad and
                              * overlap_param hide behind compute (the busiest stage's) */
    double tp_hidden_s;      /* of the tensor-parallel collectives, what tp_overlap hides
                              * (per rank per step, the busiest stage's) */
    double embed_sync_s;     /* the tied word-embedding gradient all-reduce between the first
                              * and last stage (pp > 1, tied embeddings; 0 otherwise) */
    double optimizer_s;
    double model_flop;       /* forward + backward + gradient of the GEMMs, whole step */
    double mfu;              /* model_flop / (step x devices x peak FLOP/s) */
    double tokens;           /* tokens per step: the global batch x the sequence */
    /* memory of the pipeline stage nearest its device's capacity (the
     * largest share of it; the first stage on one device type with even
     * stages), which is stage mem_stage */
    double mem_weights_bytes, mem_activation_bytes, mem_bytes;
    double mem_capacity_bytes;
    int mem_stage;
    int fits;                /* every stage within its device's capacity */
    int stage_layers[DNP_CONFIG3D_MAX_STAGES]; /* layers per stage as simulated (pp entries) */
    int stage_type[DNP_CONFIG3D_MAX_STAGES];   /* the device type of each stage's first rank */
    unsigned stage_types[DNP_CONFIG3D_MAX_STAGES]; /* every device type of each stage's ranks
                                                    * (bit k: the cluster's type k) */
    int microbatches;        /* per data-parallel replica */
    double straggler_pace;   /* the device model's straggler factor (1 = none) */
} dnp_config3d_result;

/* Check configuration cfg of transformer g on cluster c at global `batch`
 * as every command does before it simulates, searches or exports one
 * (docs/config3d.md, "Checks"): g is a zoo transformer; tp x pp x dp equals
 * the devices; the batch divides into dp x microbatch; the layers divide
 * into pp x interleave chunks or layers= lists pp counts summing to them;
 * Megatron-LM's rules (the attention heads, key-value heads and MLP hidden
 * size multiples of tp, the sequence too with seq_par; the vocabulary is
 * padded, no rule); each tensor-parallel group inside one node unless
 * opt->tp_across_nodes (bare devices: one per node); every stage within
 * its devices' memory (opt->memory_limit_bytes, else each type's capacity)
 * unless opt->keep_over_memory.  DNP_ERR_INPUT with one message naming the
 * first rule broken and the figures; *out gets the memory figures (no step
 * time).  dnp_config3d_simulate, _trace, _search (as a filter) and the
 * exports apply exactly this.  O(ops x types + pp). */
dnp_status dnp_config3d_check(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                              const dnp_plan_options *opt, const dnp_config3d *cfg,
                              dnp_config3d_result *out, dnp_error *err);

/* Simulate one training step of transformer g (a gpt / bert / llama zoo
 * model) on cluster c (one or several device types; a stage paced by its
 * slowest replica, each collective on the links its group spans) at
 * global batch `batch` under configuration cfg: per pipeline rank a
 * compute stream running its micro-batch chunks in Megatron's 1F1B or
 * interleaved order, tensor-parallel collectives in each chunk, pipeline
 * messages on send streams, the gradient all-reduce, the tied-embedding
 * gradient all-reduce (pp > 1) and the optimizer at the end.  opt gives the
 * precision, optimizer, memory limit, no_stragglers, grad_fp32 and the time
 * limit (time_limit_s from time_limit_from_s: the simulation reads that
 * deadline every 2^16 micro-batch chunks and past it fails with
 * DNP_ERR_INPUT, "time limit of S s reached while simulating ...").
 * DNP_ERR_INPUT for every configuration dnp_config3d_check refuses, with
 * its message.  O(ops x types + pp x micro-batches x interleave). */
dnp_status dnp_config3d_simulate(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                                 const dnp_plan_options *opt, const dnp_config3d *cfg,
                                 dnp_config3d_result *out, dnp_error *err);

/* The step dnp_config3d_simulate simulates, as Chrome trace events
 * (chrome://tracing, Perfetto): one process per pipeline stage, threads
 * for its compute stream and its two send streams, one event per
 * micro-batch chunk forward and backward, per message, and the gradient
 * all-reduce and optimizer at the end; microseconds.  *out is a new
 * NUL-terminated text the caller frees with dnp_free.  Errors as
 * dnp_config3d_simulate.  O(pp x micro-batches x interleave). */
dnp_status dnp_config3d_trace(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                              const dnp_plan_options *opt, const dnp_config3d *cfg, char **out,
                              dnp_error *err);

/* A Megatron-LM configuration cfg of zoo transformer g (dnp_config3d_*,
 * above) on cluster c at global `batch` as sharding specs on
 * named mesh axes ("data", "model") per pipeline stage: f is
 * DNP_EXPORT_JAX (PartitionSpecs) or DNP_EXPORT_DTENSOR (placements), one
 * entry per op with its stage and what tensor parallelism splits, as the
 * simulator reads the configuration (docs/reports.md, "Exports of a
 * Megatron-LM configuration").  On success *out owns a NUL-terminated
 * text (dnp_free).  DNP_ERR_INPUT for another format or a graph that is
 * not a zoo transformer; DNP_ERR_NOMEM.  O(ops). */
dnp_status dnp_config3d_export_text(dnp_export_format f, const dnp_graph *g,
                                    const dnp_cluster *c, int64_t batch,
                                    dnp_precision precision, const dnp_config3d *cfg,
                                    char **out, dnp_error *err);

/* The configuration cfg of zoo transformer g at global `batch` as
 * Megatron-LM command-line arguments (pretrain_gpt.py; pretrain_bert.py
 * for bert), one per line after '#' comment lines: model shape,
 * parallel degrees, micro and global batch, recompute, precision.  *out
 * is a new NUL-terminated text the caller frees with dnp_free.
 * DNP_ERR_INPUT if g is not a zoo transformer.  O(layers). */
dnp_status dnp_megatron_args(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                             dnp_precision precision, const dnp_config3d *cfg, char **out,
                             dnp_error *err);

/* The spaces dnp_config3d_search can search (docs/config3d.md, "Search"). */
typedef enum {
    DNP_CONFIG3D_SPACE_FULL = 0, /* everything below */
    DNP_CONFIG3D_SPACE_AMP,      /* AMP's (Li et al., NeurIPS 2022): tp, pp, dp, micro-batch and
                                  * the layers per stage; no ZeRO, sequence parallelism,
                                  * interleaving or recompute */
    DNP_CONFIG3D_SPACE_UNIFORM,  /* every stage on one device type (every type's count a
                                  * multiple of tp x dp): the space before stop 29 */
    DNP_CONFIG3D_SPACE_COUNT
} dnp_config3d_space;

/* The most configurations a search ranks (dnp_plan_options.config3d_top). */
#define DNP_CONFIG3D_TOP_MAX 10
/* The largest number of device types whose orders and subsets
 * dnp_config3d_search_layouts enumerates (4 types: 64 layouts). */
#define DNP_CONFIG3D_LAYOUT_TYPES 4
#define DNP_CONFIG3D_LAYOUTS_MAX 64

/* One ranked configuration of a search. */
typedef struct {
    dnp_config3d cfg;
    double step_time_s;
    /* its layout (dnp_config3d_search_layouts): the given cluster's types
     * in the order its stages take them; n_types 0 = the cluster as given */
    int n_types;
    int types[DNP_CONFIG3D_LAYOUT_TYPES];
} dnp_config3d_ranked;
/* One point of a search's Pareto front (dnp_config3d_stats.pareto): a
 * layout's fastest plan as a compact record (its configuration without the
 * per-stage layer list, which dnp_config3d_stats.pareto_layers holds;
 * dnp_config3d_point_config rebuilds the whole configuration). */
typedef struct {
    double step_time_s, cost_per_step;
    int n_types;                            /* its layout, as dnp_config3d_ranked's */
    int types[DNP_CONFIG3D_LAYOUT_TYPES];
    int tp, pp, dp, interleave, zero, seq_par, gpipe, grad_fp32;
    int overlap_grad, overlap_param, tp_overlap, vp_group;
    int64_t microbatch;
    dnp_recompute recompute;
    int n_stage_layers;                     /* 0: even stages */
    int layers_at;                          /* its pp counts start at pareto_layers[layers_at];
                                             * -1: they did not fit there (even when
                                             * n_stage_layers is 0) */
} dnp_config3d_point;
/* stage layer counts kept for the whole Pareto front */
#define DNP_CONFIG3D_PARETO_LAYERS 1024
#define DNP_CONFIG3D_MAX_NARROWED 12  /* lines of dnp_config3d_stats.narrowed */
#define DNP_CONFIG3D_NARROWED_LEN 400 /* bytes of each, NUL included */

typedef struct {
    int candidates;          /* configurations enumerated */
    int weighed;             /* of which weighed: layers, memory and lower bound computed (the
                              * others' compute alone could not beat the best step; docs/
                              * config3d.md, "Search") */
    int fitting;             /* of those within the memory limit */
    int simulated;           /* of which simulated (the others were bounded out) */
    double smallest_mem_bytes; /* the smallest footprint of those that did not fit */
    /* dnp_config3d_search_layouts only (1, 0, 0 from dnp_config3d_search): */
    int layouts;             /* orders and subsets of the device types considered */
    int layouts_bounded;     /* of which skipped: their devices' GEMM ceilings cannot beat
                              * the best step found (docs/config3d.md, "Layouts") */
    int64_t idle_devices;    /* devices of the types the fastest plan leaves out */
    int reordered;           /* 1: its stages take the types in another order than given */
    /* the fastest configurations, fastest first (n_top <= the options'
     * config3d_top; by step time whatever the objective) */
    int n_top;
    dnp_config3d_ranked top[DNP_CONFIG3D_TOP_MAX];
    /* with prices on every device type (docs/config3d.md, "Objectives"):
     * the result's price of the devices it uses (per hour) and cost of one
     * step (price x step / 3600; 0 without prices), and the Pareto front of
     * step time against cost over the layouts' fastest plans (fastest
     * first; compact records: dnp_config3d_point_config gives each one's
     * configuration) */
    double price_per_hour, cost_per_step;
    int n_pareto;
    dnp_config3d_point pareto[DNP_CONFIG3D_LAYOUTS_MAX];
    int pareto_layers[DNP_CONFIG3D_PARETO_LAYERS];
    /* every rule that narrowed the space searched, one line each (no
     * newline): the fixed space, tensor-parallel degrees left out by
     * Megatron-LM's rules, the nodes or the device counts, pipeline depths
     * and data-parallel degrees left out */
    int n_narrowed;
    char narrowed[DNP_CONFIG3D_MAX_NARROWED][DNP_CONFIG3D_NARROWED_LEN];
    /* 1: opt->time_limit_s ran out: the result is the best configuration
     * weighed so far, not proven the fastest (docs/config3d.md, "Search") */
    int time_limit_hit;
} dnp_config3d_stats;

/* The configuration of point i of stats' Pareto front into *out.  Returns
 * 1, or 0 when its per-stage layer list was not kept (more uneven stages
 * on the front than DNP_CONFIG3D_PARETO_LAYERS; *out then has even
 * stages).  O(pp). */
int dnp_config3d_point_config(const dnp_config3d_stats *stats, int i, dnp_config3d *out);

/* The fastest configuration of g on c at `batch` within the memory limit
 * (opt->memory_limit_bytes, else each device's capacity): tensor
 * parallelism in powers of two that dnp_config3d_check's rules allow
 * (Megatron-LM's divisibility, each group inside a node unless
 * opt->tp_across_nodes) and that divide every device type's count, every
 * pipeline depth up to the layers, data parallelism for the rest (a stage
 * and its groups may span device types, docs/config3d.md "Mixed
 * clusters"; opt->config3d_space narrows the space),
 * micro-batches of 1 to 32 sequences, 1 to 8 chunks per rank (interleaving
 * with even stages; micro-batch groups under opt->megatron_version's rule),
 * each recompute mode, sequence parallelism on or off, overlap_grad and
 * overlap_param off or on, tp_overlap on wherever it applies (never slower
 * in this model; docs/config3d.md "Schedules and overlaps").
 * With one chunk per rank the layers per stage are balanced (c3_balance in
 * src/sim/config3d.c: the slowest stage's compute minimised within each
 * stage's memory; on a mixed cluster faster types get more layers), with
 * more chunks they are even.  Exact over that space:
 * candidates are simulated in order of a lower bound (the busiest rank's
 * work without waits) until the bound reaches the best step found; ties
 * keep the first in enumeration order.  DNP_ERR_INPUT (naming the smallest
 * footprint) if none fits.  stats->narrowed says every rule that left
 * part of the space out.  Every configuration returned passes
 * dnp_config3d_check.  opt's time limit (one deadline from
 * time_limit_from_s, else from this call) stops enumeration and
 * simulation: the best weighed so far (stats->time_limit_hit), or
 * DNP_ERR_INPUT when none was.  O(candidates + simulated x schedule). */
dnp_status dnp_config3d_search(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                               const dnp_plan_options *opt, dnp_config3d *best,
                               dnp_config3d_result *best_res, dnp_config3d_stats *stats,
                               dnp_error *err);

/* dnp_config3d_search over the layouts of a mixed cluster c
 * (docs/config3d.md, "Layouts"): the stages follow the cluster's order of
 * device types, so every order of the types is searched, and every
 * non-empty subset of them (the others' devices left idle); the fastest
 * plan of all wins, ties keeping the first layout in the order (all types,
 * as given; then other orders; then subsets by size, largest first).
 * *used receives the cluster the plan runs on (c's types in the chosen
 * order, without the idle ones; c itself when c has one type or more than
 * DNP_CONFIG3D_LAYOUT_TYPES types, which are searched as given); stats sum
 * the searches and say the layout (layouts, idle_devices, reordered).
 * Objectives (opt->config3d_objective, config3d_deadline_s; docs/config3d.md
 * "Objectives"): the cost of a step is its time x the price per hour of the
 * layout's devices / 3600; within a layout every device works, so its
 * cheapest plan is its fastest, and the cost objective takes the layout of
 * least cost (ties: the faster), the deadline the cheapest layout whose
 * fastest step meets it.  DNP_ERR_INPUT if no layout fits, if a cost
 * objective meets a device type without a price, or if no layout meets the
 * deadline (naming the fastest step).  O(layouts x one search); a layout
 * whose search fails for memory is skipped. */
dnp_status dnp_config3d_search_layouts(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                                       const dnp_plan_options *opt, dnp_config3d *best,
                                       dnp_config3d_result *best_res, dnp_cluster *used,
                                       dnp_config3d_stats *stats, dnp_error *err);

/* What a mixed cluster's plan is compared with (docs/config3d.md, "Mixed
 * clusters"). */
typedef struct {
    int slowest_type, fastest_type;   /* indices into the cluster's types: lowest / highest
                                       * peak FLOP/s at the precision, then least / most memory */
    /* every device taken as the slowest type: the search's plan there, its
     * predicted step on that homogeneous cluster, and the same
     * configuration simulated on the real cluster (when it fits every
     * device there; its stages may span device types) */
    int slowest_ok, slowest_on_cluster_ok;
    dnp_config3d slowest_cfg;
    dnp_config3d_result slowest_planned, slowest_on_cluster;
    /* the fastest type's devices alone, searched */
    int fastest_ok;
    dnp_config3d fastest_cfg;
    dnp_config3d_result fastest_res;
    /* the search restricted to AMP's space and to stages of one type each,
     * on the cluster as given (DNP_CONFIG3D_SPACE_AMP, _UNIFORM) */
    int amp_ok, uniform_ok;
    dnp_config3d amp_cfg, uniform_cfg;
    dnp_config3d_result amp_res, uniform_res;
    /* 1: the options' time limit (one deadline with the search before them)
     * ran out in some baseline search: its figure is the best weighed so
     * far, or it has none (_ok 0, not "nothing fits") */
    int time_limit_hit;
} dnp_config3d_baselines;

/* The baselines of a mixed cluster c (at least two device types) for g at
 * `batch`: the plan that treats every device as the slowest type, the
 * fastest type alone, and the search in AMP's space and in the space of
 * one-type stages, each from dnp_config3d_search.  A baseline that finds
 * no fitting configuration is left with its _ok flag 0.  DNP_ERR_INPUT
 * for a one-type cluster, DNP_ERR_NOMEM.  O(four searches). */
dnp_status dnp_config3d_mixed_baselines(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                                        const dnp_plan_options *opt,
                                        dnp_config3d_baselines *out, dnp_error *err);

/* 1 if g is a transformer the 3D path recognises by its structure
 * (dnp_graph_transformer_layout finds its layers: token embeddings, then
 * layers of attention and an MLP; a gpt, bert or llama zoo model, or a
 * file of that structure), the models dnp_config3d_search plans; else 0.
 * O(ops). */
int dnp_config3d_recognises(const dnp_graph *g);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* DNNPAR_PUBLIC_CONFIG3D_H */
