/*
 * dnnpar/plan.h - the planner: AccPar's partition types, the plan options, dnp_plan_run
 * and its plans (summary, per-layer decisions, trace), strategy files, and the
 * executed accounting of a plan (src/search/, src/plan/, src/sim/).
 *
 * Part of libdnnpar's public API: include <dnnpar.h>, which includes each
 * header under dnnpar/, or this header alone (it includes what it needs).  Its
 * conventions are dnnpar.h's (status and error record, dnp_X_new / dnp_X_free
 * pairs, units in names; docs/library.md).
 * Ownership: a plan (dnp_plan_run, dnp_plan_run_strategy) is the caller's,
 * freed with dnp_plan_free, and borrows nothing; a strategy is freed with
 * dnp_strategy_free; texts and arrays handed to the caller (traces,
 * dnp_plan_device_comm) are freed with dnp_free.  Strings a plan or strategy
 * returns are borrowed from it.
 */
#ifndef DNNPAR_PUBLIC_PLAN_H
#define DNNPAR_PUBLIC_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "cluster.h"

/* Default visibility for what this header declares (core.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------ */
/* Partitioning: AccPar cost model, searches and baselines               */
/* ------------------------------------------------------------------ */

/* AccPar basic partition types (section 3.2), and R: the layer is not
 * split at that level, each half holding and computing all of it (PaSE
 * configurations that leave devices idle; docs/time-model.md "Replicated
 * layers").  The searches choose among I, II, III; R comes from strategies
 * (dnp_pase_run_strategy, strategy files).  dnp_plan_type returns these
 * for weighted layers and 0..2 (batch, channel, replicated) for joins. */
typedef enum { DNP_TYPE_I = 0, DNP_TYPE_II = 1, DNP_TYPE_III = 2, DNP_TYPE_R = 3 } dnp_ptype;

typedef enum {
    DNP_SCHEME_DP = 0,   /* data parallelism: every layer Type-I, equal split */
    DNP_SCHEME_OWT,      /* one weird trick: conv Type-I, FC Type-II, equal split */
    DNP_SCHEME_HYPAR,    /* HyPar: Types I/II, equal split, communication objective */
    DNP_SCHEME_ACCPAR,   /* AccPar: Types I/II/III, Eq. 10 ratio, time objective */
    DNP_SCHEME_COUNT
} dnp_scheme;

const char *dnp_scheme_name(dnp_scheme s);
int dnp_scheme_from_name(const char *s); /* -1 if unknown */

/* Which performance model judges a plan. */
typedef enum {
    DNP_COST_DEFAULT = 0,  /* roofline devices, collectives on link tiers, step simulator */
    DNP_COST_ACCPAR_PAPER, /* the AccPar paper's accounting (docs/time-model.md) */
    DNP_COST_PASE_PAPER,   /* the PaSE prototype's Eq. 1 in FLOP-equivalents (docs/pase.md);
                            * PaSE-space searches only: dnp_plan_run treats it as an error */
    DNP_COST_COUNT
} dnp_cost_model;
/* "default", "accpar-paper", "pase-paper" */
const char *dnp_cost_model_name(dnp_cost_model m);
int dnp_cost_model_from_name(const char *s);       /* -1 if unknown */

/* How AccPar sets the split ratio between two different halves
 * (dnp_plan_options.accpar_ratio; docs/time-model.md, "The ratio"). */
typedef enum {
    DNP_RATIO_MODEL = 0, /* the cost model's rule: EQ10 under accpar-paper, SEARCH under default */
    DNP_RATIO_EQ10,      /* Eq. 10 as printed: alpha E_a = beta E_b with per-unit costs (the
                          * group's whole-node compute and each accessed tensor once, Eq. 7-8),
                          * iterated with the level's types to a fixed point */
    DNP_RATIO_SEARCH,    /* the ratio minimising the predicted step of the node's subtree, the
                          * tables' true dependence on alpha (Eq. 10's balance points among
                          * the candidates) */
    DNP_RATIO_COUNT
} dnp_ratio_rule;

typedef struct {
    dnp_scheme scheme;
    int64_t batch;
    int levels;              /* hierarchy levels searched; 0 = as many as the cluster allows */
    /* Restricted mode reproducing the AccPar authors' code: costs counted in
     * tensor elements, communication only, split 1/2 at every level. */
    int reference_mode;
    dnp_cost_model cost_model;
    dnp_precision precision;
    dnp_optimizer optimizer;
    double memory_limit_bytes; /* 0 = each device's capacity */
    int no_overlap;            /* 1: gradient all-reduce after the backward pass, not overlapped */
    int no_stragglers;         /* 1: ignore the devices' speed spread (speed_cv): every device
                                * runs at its nominal speed */
    int grad_fp32;             /* 1: gradients all-reduced in fp32, 4 bytes per parameter
                                * whatever the precision (DeepSpeed fp32_allreduce); Megatron-LM
                                * configurations only (docs/config3d.md) */
    int keep_over_memory;      /* 1: return the best plan even if it does not fit (flagged)
                                * instead of failing with DNP_ERR_INPUT */
    int tp_across_nodes;       /* 1: a Megatron-LM configuration's tensor-parallel groups
                                * may span nodes (dnp_config3d_check; bare devices count
                                * as one per node) */
    double time_limit_s;       /* wall-time limit of the run, seconds; 0 = none.  One
                                * deadline per command (docs/cli.md "Time limits"): it
                                * counts from time_limit_from_s, and every call given these
                                * options reads the same deadline.  dnp_plan_run's search
                                * stops at half of the limit (counted from that start; the
                                * rest is kept for lowering and simulating the plans): the
                                * AccPar ratio searches keep their best ratio so far, the
                                * remaining splits take the equal split, the portfolio's
                                * other candidates are skipped and the plan says so
                                * (dnp_plan_summary.time_limit_hit).  Lowering and
                                * simulating a plan read the whole deadline: past it a
                                * baseline is dropped (the incumbent stays, flagged), and a
                                * plan with nothing simulated fails with DNP_ERR_INPUT
                                * ("time limit of S s reached while ...").  A limit not
                                * reached changes nothing.  One level solve is not
                                * interrupted. */
    int allow_idle;            /* accpar under the default model: 1 also weighs each device
                                * type alone and, when communication-bound, halves of it, and
                                * may leave devices idle (dnp_plan_run, dnp_plan_cluster); 0
                                * (default) uses every device */
    int config3d_top;          /* dnp_config3d_search: keep the n fastest configurations in
                                * the stats (1 .. DNP_CONFIG3D_TOP_MAX; 0 = 1) */
    int config3d_space;        /* dnp_config3d_search's space (dnp_config3d_space); 0 = full */
    int config3d_objective;    /* dnp_config3d_search_layouts: 0 the fastest step, 1 the least
                                * cost per step (every device type needs price_per_hour) */
    double config3d_deadline_s; /* > 0: the cheapest layout whose step is at most this many
                                 * seconds (prices needed); 0 = none */
    int accpar_ratio;          /* how an accpar search sets the ratio between two different
                                * halves (dnp_ratio_rule; docs/time-model.md "The ratio"):
                                * 0 = the cost model's rule (Eq. 10 as printed under
                                * accpar-paper, the searched ratio under default) */
    int no_portfolio;          /* 1: an accpar plan is AccPar's own tree, not the fastest of it
                                * and the dp, owt and hypar trees (the default) */
    int megatron_version;      /* the Megatron-LM whose micro-batch rule a configuration and
                                * the 3D search follow (dnp_megatron_version); 0 = current */
    const char *search_name;   /* what reports (exports) name the search, e.g. "given (pase)"
                                * for a plan read from a strategy file; NULL = the scheme's
                                * name.  Borrowed: must outlive the calls given the options. */
    double time_limit_from_s;  /* the dnp_clock_s() reading time_limit_s counts from: the
                                * command's start, so every call of one command shares one
                                * deadline; 0 = the start of each call */
} dnp_plan_options;

typedef struct dnp_plan dnp_plan;

/* Plan `g` on `c`.  On success *out owns the plan (dnp_plan_free).  The
 * plan borrows nothing: g and c may be freed afterwards.
 * Time complexity: O(L * V * 3^(w+1)) per distinct hierarchy node, where L
 * is the number of levels, V the number of weighted/join ops and w the
 * widest frontier of the topological order (1 for chains, 2 for ResNet). */
dnp_status dnp_plan_run(const dnp_graph *g, const dnp_cluster *c, const dnp_plan_options *opt,
                        dnp_plan **out, dnp_error *err);
void dnp_plan_free(dnp_plan *p);
/* The devices plan p runs on: the cluster it was planned on, or, for an
 * AccPar plan on a mixed cluster under the default model that was faster
 * on one device type alone, that type's devices (the others idle:
 * dnp_plan_summary.idle_devices; docs/time-model.md "Idle device
 * types").  Borrowed from p.  O(1). */
const dnp_cluster *dnp_plan_cluster(const dnp_plan *p);

/* A strategy read from a file written by `dnnpar plan --json` (docs/formats.md):
 * per level and branch of the device tree, a ratio and each op's type. */
typedef struct dnp_strategy dnp_strategy;

/* Read a strategy ("-" = stdin).  Errors give file:line:column or the
 * path/level that is wrong.  Free with dnp_strategy_free. */
dnp_status dnp_strategy_read(const char *path, dnp_strategy **out, dnp_error *err);
/* From memory (see dnp_load_accpar_text_buffer). */
dnp_status dnp_strategy_read_buffer(const char *data, size_t len_bytes, const char *name,
                                    dnp_strategy **out, dnp_error *err);
void dnp_strategy_free(dnp_strategy *s);
/* What the strategy was planned for: the model as given on the command
 * line, the cluster spec, the batch and the levels searched.
 * dnp_strategy_option gives a string field of the plan ("precision",
 * "cost_model", "optimizer"), else (version 3) of its "strategy" object
 * ("megatron_version", "tp_groups"), or NULL. */
const char *dnp_strategy_option(const dnp_strategy *s, const char *key);
const char *dnp_strategy_model(const dnp_strategy *s);
const char *dnp_strategy_cluster(const dnp_strategy *s);
int64_t dnp_strategy_batch(const dnp_strategy *s);
int dnp_strategy_levels(const dnp_strategy *s);
/* A version-3 plan file of the 3D search ("strategy": {"kind":
 * "megatron"}, docs/formats.md "Plan") holds a Megatron-LM configuration,
 * not a device tree: its text as dnp_config3d_parse reads it (borrowed
 * from s), else NULL.  dnp_plan_run_strategy refuses such a strategy
 * (dnp_config3d_simulate runs it); its levels are 0.  O(1). */
const char *dnp_strategy_config3d_text(const dnp_strategy *s);

/* A strategy file is untrusted input (docs/formats.md, "Strategy files are
 * untrusted"): the model (what = DNP_STRATEGY_MODEL) or cluster
 * (DNP_STRATEGY_CLUSTER) it names, made safe to load.  A zoo model (any
 * name dnp_zoo_build accepts) or a cluster spec that parses is copied to
 * out as is; anything else must be a path relative to the directory of
 * strategy_path (the current directory for "-"), without ".." components,
 * naming a regular file that stays inside that directory once symbolic
 * links are resolved (no FIFO, device, socket or "-").  On success out (n
 * bytes) holds what to load; errors name the field and the rule, never the
 * file's contents.  DNP_ERR_INPUT.  O(path length) plus one zoo build. */
enum { DNP_STRATEGY_MODEL = 0, DNP_STRATEGY_CLUSTER = 1 };
dnp_status dnp_strategy_source(const dnp_strategy *s, const char *strategy_path, int what,
                               char *out, size_t n, dnp_error *err);

/* Evaluate strategy s (instead of searching) for g on c with opt's batch;
 * opt->levels is ignored (the strategy's levels are used) and opt->scheme
 * only names the plan.  Every op of g must have a decision at every level
 * the strategy covers.  On success *out owns the plan (dnp_plan_free).
 * opt's time limit bounds the lowering and simulation (DNP_ERR_INPUT past
 * it, as dnp_plan_run).  O(tree nodes x ops) plus the lowering, O(classes x
 * (ops + levels x edges)). */
dnp_status dnp_plan_run_strategy(const dnp_graph *g, const dnp_cluster *c,
                                 const dnp_plan_options *opt, const dnp_strategy *s,
                                 dnp_plan **out, dnp_error *err);

/* The memory check `plan` applies, for a plan from any search or strategy
 * (p made on g): DNP_OK when every device's footprint is within the memory
 * limit (p's options' memory_limit_bytes, else each device's capacity),
 * else DNP_ERR_INPUT with dnp_plan_run's message ("no accpar plan of ...
 * fits in ... GB per device on ...: the smallest needs ... GB", the search
 * named as the options name it).  A plan under the AccPar paper's
 * accounting (no memory model) is lowered under the default model for its
 * footprint; p's options' time limit bounds that (DNP_ERR_INPUT past it).
 * Always DNP_OK with keep_over_memory or reference_mode.  dnp_export_text
 * applies it.  O(1) under the default model; else one lowering,
 * O(classes x (ops + levels x edges)). */
dnp_status dnp_plan_check_memory(const dnp_plan *p, const dnp_graph *g, dnp_error *err);

/* Maximum number of levels cluster `c` supports (every group above the
 * last level must hold at least two devices). */
int dnp_cluster_max_levels(const dnp_cluster *c);
/* Depth of c's device tree: the most splits from the root to a single
 * device (>= dnp_cluster_max_levels; larger when the branches differ, as
 * on 2xa100+4xv100).  A version-2 strategy may decide that many levels on
 * the branches that have them.  O(tree depth x types). */
int dnp_cluster_tree_depth(const dnp_cluster *c);

typedef struct {
    double step_time_s;      /* predicted time of one training step */
    double compute_s;        /* compute on the critical path */
    double comm_s;           /* communication on the critical path */
    double comm_bytes;       /* bytes received by the busiest device per step */
    double mem_bytes_max;    /* peak per-device footprint (weights, gradients, activations) */
    double mem_capacity_bytes; /* that device's capacity */
    int levels;              /* levels searched */
    int total_levels;        /* depth of the device tree (unsearched levels are Type-I) */
    double search_time_s;    /* wall time of the search (not deterministic; not printed in goldens) */
    int exact;               /* 1: each level solved by the exact DP; 0: by local search,
                              * the graph being too wide (docs/time-model.md) */
    int frontier_width;      /* tensors live at once in the DP's order */
    /* The performance model (docs/time-model.md).  Under the default model
     * step_time_s, compute_s and the memory come from the step simulator;
     * comm_s is then the exposed communication (the time the critical
     * device's compute idles while its communication is in flight; see
     * wait_s), comm_busy_s all its communication time, overlapped or not. */
    dnp_cost_model cost_model;
    dnp_precision precision;
    dnp_optimizer optimizer;
    double exposed_comm_s;
    double comm_busy_s;
    int mem_fits;            /* 1: every device within its memory limit */
    int sim_tasks;           /* tasks simulated (0 under the paper's accounting) */
    int device_classes;      /* distinct device workloads simulated */
    dnp_scheme chosen_scheme;/* whose assignment the plan is: an accpar plan reports a
                              * baseline's when that was faster (its space contains them) */
    int ratio_level_only;    /* accpar: the full ratio search was estimated over its budget,
                              * so every split ratio was chosen by the level objective alone
                              * (docs/time-model.md, "Search cost"); deterministic */
    double ratio_est_solves; /* accpar: estimated level solves of the ratio searches run */
    int time_limit_hit;      /* 1: options.time_limit_s was reached; this is the best plan
                              * found by then (not deterministic) */
    double time_limit_s;     /* the limit given (0 = none) */
    /* Stragglers (default model): the factor on device kernel times for
     * the expected slowest of a type's devices (1 = none), the largest over
     * the cluster's types, and that type's device count.  A factor above 1
     * rests on a measured input (Sinha et al., SC'22); reports say so. */
    double straggler_pace;
    int64_t straggler_devices;
    /* Default model: the time the critical device's compute idles with none
     * of its own communication in flight, waiting for other devices' work
     * (a heterogeneous or uneven split); compute_s + exposed_comm_s +
     * host_wait_s + wait_s = step_time_s (a wait under 1 ns or 1e-9 of the
     * step is rounding, reported as 0).  exposed_comm_s is the time its compute idles
     * while some of its communication is in flight, so it never exceeds
     * comm_busy_s.  0 under the paper's accounting. */
    double wait_s;
    /* Default model: the time the critical device's compute idles, none of
     * its communication in flight, until its host has issued the next
     * kernel (host_kernel_s per kernel from the step's start;
     * docs/device-model.md "Host dispatch").  0 under the paper's
     * accounting. */
    double host_wait_s;
    /* AccPar on a mixed cluster (default model): devices of the given
     * cluster the plan leaves idle because one device type alone was
     * faster (0: it uses every device), and the best plan's step on every
     * device for comparison (0 when none are idle). */
    int64_t idle_devices;
    double all_devices_step_s;
} dnp_plan_summary;

/* Where the GPU presets' speed spread comes from: every report whose figures
 * use a straggler factor above 1 names it (a measured input). */
#define DNP_SPEED_CV_SOURCE                                                                     \
    "per-GPU speed spread measured by Sinha et al., SC'22: 8% between GPUs of one SKU"


void dnp_plan_get_summary(const dnp_plan *p, dnp_plan_summary *out);

/* Planned ops (weighted layers and joins), in topological order. */
int dnp_plan_n_nodes(const dnp_plan *p);
const char *dnp_plan_node_name(const dnp_plan *p, int node);
/* 1 for conv/FC (types I/II/III), 0 for joins (layouts batch/channel/replicated). */
int dnp_plan_node_weighted(const dnp_plan *p, int node);
/* Layers (weighted ops) that some split of the device tree leaves unsplit
 * (R: both halves compute all of the layer, one half's work redundant;
 * from strategies, e.g. PaSE configurations that use fewer devices;
 * docs/time-model.md "Replicated layers").  A join's replicated layout, a
 * choice of the searches, is not counted.  -1 on allocation failure.
 * O(tree nodes x ops). */
int dnp_plan_replicated_nodes(const dnp_plan *p);

/* Along the hierarchy path that starts at the root and always takes child
 * `branch_bits` bit k at level k (0 = first group, 1 = second), the type of
 * `node` at `level` (dnp_ptype for a layer, R only from strategies; 0..2
 * for a join; -1 past the path's last split) and that level's ratio (share
 * of the first group). */
int dnp_plan_type(const dnp_plan *p, int level, unsigned branch_bits, int node);
double dnp_plan_ratio(const dnp_plan *p, int level, unsigned branch_bits);
/* Description of the two groups split at `level` on that path, e.g.
 * "128xtpu-v2 | 128xtpu-v3". */
void dnp_plan_level_groups(const dnp_plan *p, int level, unsigned branch_bits, char *buf,
                           size_t n);
/* 1 if the two groups split at `level` on that path are identical (same
 * devices and shares), so both halves share one sub-plan; also 1 where the
 * path has reached a single device (a shallower branch of the tree). */
int dnp_plan_level_identical(const dnp_plan *p, int level, unsigned branch_bits);
/* The plan's simulated step as Chrome trace events (chrome://tracing,
 * Perfetto): one process per device class, one thread per stream, times in
 * microseconds.  Under the paper's accounting, each op's communication and
 * compute on its critical path.  Caller frees the text with dnp_free; NULL on
 * allocation failure.  Deterministic.  O(tasks). */
char *dnp_plan_trace_json(const dnp_plan *p);

/* Per-node predicted time split at the root (critical path). */
void dnp_plan_node_times(const dnp_plan *p, int node, double *compute_s, double *comm_s);

/* ------------------------------------------------------------------ */
/* Executed accounting: what each device sends and receives when the     */
/* plan runs (src/sim/devcomm.c, docs/time-model.md "Executed            */
/* accounting", docs/torch.md)                                           */
/* ------------------------------------------------------------------ */

/* The largest cluster dnp_plan_device_comm accounts device by device. */
#define DNP_DEVCOMM_MAX_DEVICES 64

/* Point-to-point traffic of one kind. */
typedef enum {
    DNP_XFER_LAYOUT_FWD = 0, /* forward layout change of an op's input (Table 5, F) */
    DNP_XFER_LAYOUT_BWD,     /* backward layout change of its input error (Table 5, E) */
    DNP_XFER_PSUM_FWD,       /* Type-II partial sums of the output, one exchange per level */
    DNP_XFER_PSUM_BWD,       /* Type-III partial sums of the input error, one per level */
    DNP_XFER_COUNT
} dnp_xfer_kind;
/* "layout_fwd", "layout_bwd", "psum_fwd", "psum_bwd". */
const char *dnp_xfer_kind_name(dnp_xfer_kind k);

/* One device's communication in one training step.  Devices are the
 * leaves of the plan's device tree in depth-first order (the first group
 * first): device d sits at depth `depth` and took group bit k of
 * `branch_bits` at level k (dnp_plan_type, dnp_plan_ratio). */
typedef struct {
    int device;
    int depth;
    unsigned branch_bits;
    int64_t p2p_sent_bytes[DNP_XFER_COUNT];
    int64_t p2p_received_bytes[DNP_XFER_COUNT];
    /* Gradient bytes this device all-reduces in groups of p members, p = 2 ..
     * DNP_DEVCOMM_MAX_DEVICES (entries 0 and 1 stay 0). */
    int64_t allreduce_bytes[DNP_DEVCOMM_MAX_DEVICES + 1];
    /* Totals: the point-to-point bytes, then for p = 2, 3, ... in turn the
     * ring all-reduce's 2 (p-1) x allreduce_bytes[p] / p (sent and received
     * alike), added in that order so that a reimplementation gets the same
     * double bit for bit. */
    double sent_bytes, received_bytes;
    /* For comparison: what the step simulator (docs/time-model.md "The
     * default model") has one device of this device's class receive, at
     * the plan's precision and continuous shares; NAN under the paper's
     * accounting.  docs/time-model.md "Executed accounting" says where the
     * two differ. */
    double sim_received_bytes;
} dnp_device_comm;

/* Number of devices of plan p (leaves of its device tree).  O(1). */
int dnp_plan_n_devices(const dnp_plan *p);

/* The bytes every device of plan p (made for graph g, the same model) sends
 * and receives in one training step when the plan is executed with shards
 * of whole samples, channels and features: every dimension a level splits
 * with ratio alpha gives its first group floor(alpha x n + 1/2) of the n
 * indices the parent holds (nested contiguous ranges), and
 * bytes_per_elem-byte elements (4 for float32).  The collectives and their
 * accounting are those of docs/time-model.md "Executed accounting": layout
 * changes as point-to-point transfers of the missing elements, Type-II and
 * Type-III partial sums as an exchange between the two halves per level,
 * gradients as one ring all-reduce per set of devices holding the same
 * weights.  On success *out (n_devices entries, free with dnp_free) is
 * owned by the caller.  Fails with DNP_ERR_INPUT, naming the op or the
 * limit, for more than DNP_DEVCOMM_MAX_DEVICES devices, a device tree
 * deeper than 32 levels, a join other than an add of equal shapes (concat)
 * or a weighted op other than a dense conv or FC.  O(ops x devices^2 x A), A the pieces a device's
 * shard is cut into (small: at most 16 x devices^2). */
dnp_status dnp_plan_device_comm(const dnp_plan *p, const dnp_graph *g, int bytes_per_elem,
                                dnp_device_comm **out, int *n_devices, dnp_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* DNNPAR_PUBLIC_PLAN_H */
