/*
 * pase_driver.h - the PaSE experiment driver behind dnnpar.h's dnp_pase_*
 * API (internal to libdnnpar).  One concern per file:
 *   pase_hw.c             hardware: p, peak, link, word (Eq. 1's r)
 *   pase_setup.c          dnp_pase_problem: model -> iteration spaces -> problem, on the
 *                         shared model (pase_perf.h) or the prototype's Eq. 1
 *   pase_rows.c           the default model's space: rows a softmax, layer norm or LRN
 *                         normalises stay whole (model/row_ops.h)
 *   pase_run.c            dnp_pase_run: a search, the baselines, the memory fit and
 *                         the type split of a mixed cluster
 *   pase_cross.c          the type split's type level refined in the step simulator
 *   pase_run_split.c      the type split's getters and idle-device warnings
 *   pase_run_report.c     its text and JSON reports
 *   pase_repro.c          dnp_pase_repro: the paper's Tables I and II
 *   pase_repro_tables.c   the paper's and the prototype's figures
 *   pase_repro_report.c   their text and JSON reports
 *   pase_fmt.c            formatting shared by the reports
 */
#ifndef DNNPAR_PASE_DRIVER_H
#define DNNPAR_PASE_DRIVER_H

#include "search/pase/pase.h"
#include "search/pase/pase_perf.h"
#include "plan/layer_table.h"
#include "plan/strategy.h"
#include "sim/lower_result.h"

#include <jansson.h>

/* The type a dnnpar strategy gives op `op` of g for a split of its PaSE
 * loop dimension `dim` ("I", "II", "III", "batch", "channel"), or NULL if
 * a strategy cannot say it (pase_strategy.c).  O(rank). */
const char *pase_strategy_type_of(const dnp_graph *g, const dnp_op *op, char dim);
/* The levels of a configuration in a dnnpar strategy (pase_strategy.c):
 * each split dimension d of split[0..nd), a power of two 2^k, takes k
 * levels, dimensions in order for order 0, else the order-th distinct
 * arrangement of that sequence in lexicographic order (AccPar's FC
 * layers alternate: II, III, II).  Writes each level's dimension to
 * dim_of_level[0..n_levels) (-1: a level the configuration leaves idle)
 * and returns the levels used; -1 if a split is not a power of two, -2 if
 * the splits need more than n_levels levels, -3 if there is no such
 * arrangement.  O(n_levels x order). */
int pase_level_dims(const long *split, int nd, int order, int n_levels, int *dim_of_level);
/* The one strategy type (plan/strategy.h) of PaSE's configurations on
 * space sp for p devices (pase_strategy.c): log2(p) axes "d0", "d1", ...
 * of size 2, even; per core op with a nest of its own (point-wise ops
 * fused into a producer have none), each loop dimension d with a split
 * 2^k over the next k axes, dimensions in order (pase_level_dims, order
 * 0: the first over the outermost axes, as PaSE numbers devices); a
 * split of a GEMM's K leaves the output partial over its axes, of M the
 * weight gradient, of N the input gradient (weighted ops).  split[v]:
 * nest v's split counts (its rank of them; split or split[v] NULL: all
 * 1).  One stage of p ranks (types 0: a PaSE run is on one type).
 * DNP_ERR_INPUT naming the op when a split is not a power of two or the
 * splits need more than log2(p) axes, or p is not a power of two;
 * DNP_ERR_NOMEM.  *out is the caller's (plan_strategy_free).
 * O(nests x rank + ops). */
dnp_status pase_plan_strategy(const iter_space *sp, int p, const long *const *split,
                              plan_strategy **out, dnp_error *err);
/* The same for configuration indices cfg[v] of problem pb (a search's
 * result: pase_result.cfg).  O(vertices x rank + ops). */
dnp_status pase_plan_strategy_of(const pase_problem *pb, const int *cfg, plan_strategy **out,
                                 dnp_error *err);
/* How many distinct arrangements pase_level_dims has for split (1 with
 * at most one split dimension), counted up to cap.  O(levels x cap). */
int pase_level_orders(const long *split, int nd, int cap);
/* Arrangements a refinement tries per configuration (pase_level_orders'
 * cap): all of them for two split dimensions on up to 16 devices, the
 * first 24 in lexicographic order beyond (pase_refine.c, pase_cross.c). */
#define PASE_LEVEL_ORDERS_MAX 24
/* The split counts of configuration c of vertex v, into split (at most
 * ITER_MAX_RANK); returns how many.  O(rank). */
int pase_config_split(const pase_problem *pb, int v, int c, long *split);
/* The same read from a configuration's text, "(b,c,...)" and anything
 * after the ')' ignored (a type split group's cfg_text).  O(length). */
int pase_config_text_split(const char *text, long *split);
/* Append to buf (n bytes in all) " levels" and the dimension of x each
 * level splits, for arrangement `order` of split; nothing for order 0.
 * O(levels). */
void pase_levels_text(const iter_nest *x, const long *split, int nd, int order, char *buf,
                      size_t n);
/* Run r's configuration of vertex v as text: pase_fmt_config, then, when
 * the refinement arranged its split dimensions over the levels otherwise
 * than in order, each level's dimension: "(1,2,4) levels c n c".  O(rank
 * + levels). */
void pase_run_fmt_config(const dnp_pase_run *r, int v, char *buf, size_t n);
/* A strategy type's index: "I" "II" "III" "R" as dnp_ptype, "batch"
 * "channel" "replicated" as the join layouts (cost/accpar_cost.h); -1
 * for anything else.  O(1). */
int pase_type_index(const char *t);
/* Restrict pg (converted from core) to a dnnpar strategy's space: every
 * vertex that is an op the strategy decides (weighted, join) keeps only
 * the dimensions pase_strategy_type_of names, split by powers of two
 * (dnp_pase_options.strategy_space).  O(vertices x rank). */
void pase_restrict_to_strategy(iter_space *pg);
/* Under the default model: keep whole the rows a softmax, layer norm or
 * LRN normalises (model/row_ops.h; pase_rows.c): the op's own nest does
 * not split its normalised axis, and its decider's nest not its output
 * channels (the dimensions pase_strategy_type_of calls "III" or
 * "channel").  Nothing for a graph without its core ops.
 * O(vertices x (rank + ops)). */
void pase_restrict_row_ops(iter_space *pg);
/* Run r's decisions per device group, ready for the tree walk of its
 * strategy (pase_strategy.c): the run's own plan, or on a mixed cluster
 * whose batch r split across the types each type's plan and the levels
 * separating the types.  Both the strategy file (dnp_pase_run_strategy)
 * and the strategy's device groups (pase_walk_groups) are walked from
 * it, so they say the same. */
typedef struct pase_walk pase_walk;
/* r's decisions on cluster c for graph g (both borrowed for the walk's
 * life) into *out (pase_walk_free); *info as dnp_pase_run_strategy's
 * (info->cluster: the cluster the strategy is for, a type given no
 * samples dropped).  Errors: dnp_pase_run_strategy's refusals before the
 * walk (DNP_ERR_INPUT) and DNP_ERR_NOMEM.  O(vertices x levels). */
dnp_status pase_walk_new(const dnp_pase_run *r, const dnp_graph *g, const dnp_cluster *c,
                         pase_walk **out, dnp_pase_strategy_info *info, dnp_error *err);
/* The one strategy type of w's plan (plan/strategy.h), straight from the
 * run with no file written or read: the device groups the planner's tree
 * of w's strategy file has (search/plan.c, dnp_plan_run_strategy; the
 * groups' device counts index the cluster info->cluster names), group by
 * group and op by op the strategy plan_strategy_from_tree makes of that
 * tree: the levels separating device types split the batch by the types'
 * samples (or per op the dimension the refinement chose), each type's
 * group then its PaSE plan's per-level splits.  Ops: the rows of lt (the
 * layer table of w's graph at `batch`).  *out is the caller's
 * (plan_strategy_free).  DNP_ERR_INPUT as the strategy reader refuses
 * the file (a device tree that does not halve, an op without a type, an
 * LSTM split other than I), DNP_ERR_NOMEM.  O(groups x rows). */
dnp_status pase_walk_groups(const pase_walk *w, const layer_table *lt, int64_t batch,
                            plan_strategy **out, dnp_error *err);
/* Free w; NULL is a no-op.  O(types). */
void pase_walk_free(pase_walk *w);

/* The prototype's memory guard, also --max-memory's default: 2048 MiB. */
#define PASE_DEFAULT_MAX_BYTES (2048.0 * 1048576.0)

struct dnp_pase_problem {
    iter_space *g;           /* owned */
    pase_problem pb;         /* borrows g, and perf under the default cost model */
    dnp_pase_hw hw;
    int64_t batch;
    char *source;            /* the model argument, for the reports (owned) */
    dnp_pase_options opt;    /* as given (zero for NULL) */
    pase_perf perf;          /* the default cost model's device (pb.perf points here) */
    const dnp_graph *core;   /* the model before conversion, NULL for a reference graph:
                              * the type split converts it at other batches */
    dnp_graph *core_owned;   /* core when loaded here (owned), else NULL */
};

/* 1 if the problem's costs are seconds on the shared model, 0 if Eq. 1's
 * FLOP-equivalents (pase-paper). */
#define PASE_SECONDS(pp) ((pp)->pb.perf != NULL)

/* A baseline's row: name, cost (the problem's unit: seconds or FLOP),
 * MCMC's iterations (0 otherwise) and, under the default model, its
 * per-device footprint and whether that fits the memory limit. */
typedef struct {
    char name[64];
    double cost;
    long iters;
    double mem_bytes;            /* pase_footprint; 0 under pase-paper */
    int fits;                    /* 1 unless over the limit of the default model */
} pase_baseline_row;

struct dnp_pase_run {
    const dnp_pase_problem *pp;  /* borrowed */
    dnp_pase_search search;
    int *cfg;                    /* per op: configuration index (owned) */
    double cost;                 /* F of cfg, the problem's unit */
    pase_baseline_row base[3];
    int n_base, best_base;
    int dp_lo, dp_hi;            /* batch splits of the data-parallel baseline */
    double optimum;              /* MCMC with the optimum requested, else -1 */
    int used;                    /* pase_devices_used of cfg */
    int have_fit;                /* default model, DP: the memory figures below */
    double mem_bytes, min_mem_bytes;
    int budgeted;
    double budgeted_cost;        /* budgeted: the per-op budgets' strategy's F, before the
                                  * memory-aware MCMC from it (pase_run.c); else 0 */
    long budget_mcmc_iters;      /* budgeted: that MCMC's iterations (0: not run) */
    int budget_from_expert;      /* budgeted: 1 if the strategy kept is the memory-aware
                                  * MCMC baseline's (from the expert strategy) */
    int have_het;                /* default model, DP, several types: het below */
    int split_none_fits;         /* several types, but no split of the batch across them
                                  * fits in their memory (the plan is the weakest-device
                                  * plan over all devices); split_exhaustive: every integer
                                  * split was tried */
    int split_exhaustive;
    pase_hetero_result het;      /* owned */
    double own_simulated_s;      /* with het: the step simulator's time of the run's own
                                  * (weakest-device) plan, INFINITY if it cannot run it,
                                  * NAN if not simulated (a reference graph) */
    unsigned char *cross;        /* with a refined type split: per op of the core graph, the
                                  * dimension the levels separating device types split: 0
                                  * batch, 1 input (a join: channel), 2 output; NULL: all
                                  * batch (pase_cross.c; owned) */
    int cross_judged;            /* plans the refinement simulated (0: not refined) */
    double cross_from_s;         /* het.judged_s before the refinement */
    double cross_s;              /* the refinement's wall time (in het.search_s) */
    int refine_judged;           /* one device type: plans the refinement of the plan in
                                  * the step simulator simulated (pase_refine.c; 0: not
                                  * refined) */
    double refined_from_s;       /* with refine_judged: PaSE's optimum, simulated */
    double refined_from_cost;    /* with refine_judged: PaSE's optimum's objective */
    double refined_s;            /* with refine_judged: the refined plan, simulated */
    double refine_s;             /* the refinement's wall time (in search_s) */
    int refine_stopped;          /* 1: the refinement's budget ran out before a round kept
                                  * no move (not a local optimum) */
    int *order;                  /* per vertex: the arrangement of its split dimensions
                                  * over the levels (pase_level_dims); NULL: all 0, each
                                  * dimension's levels in order (owned) */
    int have_tables;             /* exact search: the DP's table figures below */
    int pinned;                  /* ops held to one configuration because the exact tables
                                  * do not fit (pase_pin.c); 0: the DP is exact */
    int max_dep;
    double max_rows, work, table_bytes;
    double search_s;             /* wall time of the search */
    double time_limit_s;
    int limit_hit;               /* MCMC search stopped at the time limit */
    int base_limit_hit;          /* the MCMC baseline stopped at the time limit */
};

/* Adapts dnp_pase_progress_fn to the searches' pase_progress_fn: pass a
 * pase_progress_ctx as the user pointer of pase_progress_thunk. */
typedef struct {
    dnp_pase_progress_fn fn;     /* NULL: no progress */
    void *user;
    const char *what;
} pase_progress_ctx;
void pase_progress_thunk(void *user, int done, int total, double elapsed_s);

/* The graph of problem pp's model at another batch (a pase_space_builder
 * for pase_hetero_search; user is the problem).  O(the conversion). */
dnp_status pase_problem_rebuild(const void *user, int64_t batch, iter_space **out,
                                dnp_error *err);

/* Run r's chosen plan on cluster c for graph g (the core graph r's
 * problem was converted from), simulated: its strategy built straight
 * from the run (pase_walk_groups, no strategy file written or read) and
 * lowered (sim/lower.h, lower_simulate) with the options the strategy
 * file's plan has (dnp_pase_run_plan): the same step, to the bit.  *out
 * is the caller's (lower_result_free, whatever the status: zeroed first).  DNP_ERR_INPUT when
 * r's options are not the default cost model or the plan has no dnnpar
 * strategy (pase_walk_new, pase_walk_groups), the lowering's errors,
 * DNP_ERR_NOMEM.  O(groups x rows + the lowering). */
dnp_status pase_run_simulate(const dnp_pase_run *r, const dnp_graph *g, const dnp_cluster *c,
                             lower_result *out, dnp_error *err);
/* The step simulator's time of run r's chosen plan (pase_run_simulate on
 * its problem's core graph and cluster) in *step_s: INFINITY for a plan
 * it cannot run (no dnnpar strategy: a split that is not a power of two,
 * another dimension, a device tree that does not halve) or that does not
 * fit in the devices' memory; an error only when out of memory.
 * O(pase_run_simulate). */
dnp_status pase_run_simulated_s(const dnp_pase_run *r, double *step_s, dnp_error *err);
/* The step time of a plan just made (made: the maker's status, plan and
 * its error e): INFINITY when it failed or does not fit in the devices'
 * memory; frees plan; an error (copied from e) only when out of memory.
 * O(1). */
dnp_status pase_plan_step_s(dnp_status made, dnp_plan *plan, const dnp_error *e,
                            double *step_s, dnp_error *err);

/* Refine a judged type split in the step simulator (pase_cross.c): the
 * types' shares with the groups' plans kept, and per op of the core graph
 * the dimension the type levels split.  Sets r->cross (owned by r),
 * r->cross_judged, r->cross_from_s and lowers r->het.judged_s when it
 * finds faster; a no-op without a judged split.  O(rounds x (groups^2 x
 * log batch + 2 x ops) simulations). */
dnp_status pase_cross_refine(dnp_pase_run *r, dnp_error *err);

/* Refine the plan of a run on one device type in the step simulator
 * (pase_refine.c): coordinate descent over the decided ops'
 * configurations, every strictly faster move kept.  Sets r->refine_judged,
 * r->refined_from_s, r->refined_from_cost, r->refined_s and, when it finds
 * faster, r->cfg, r->cost, r->used and r->mem_bytes; a no-op when the
 * simulator cannot run the starting plan.  O(rounds x sum over decided ops
 * of their configurations, simulations). */
dnp_status pase_refine_plan(dnp_pase_run *r, dnp_error *err);

/* 1 if the chosen plan of a run is its type split: faster than the
 * weakest-device plan in the step simulator when both were simulated
 * (het.judged_s, own_simulated_s), else in the objective.  O(1). */
int pase_run_split_chosen(const dnp_pase_run *r);
/* The idle-device warning of `what` on f if used < p; returns 1 if
 * written.  O(1). */
int pase_idle_warning(FILE *f, int used, int p, const char *what);

/* ---- formatting (pase_fmt.c) ------------------------------------------ */

/* Dimension names of v, e.g. "bchwrsn" (multi-letter names comma-separated). */
void pase_fmt_dims(const iter_nest *v, char *buf, size_t n);
/* Configuration c of vertex v as "(s0,s1,...)". */
void pase_fmt_config(const pase_problem *pb, int v, int c, char *buf, size_t n);
/* A FLOP figure as JSON: an exact integer when it is one, else a real
 * (new reference; NULL on allocation failure). */
json_t *pase_flop_json(double x);
/* Sum of t_x over the active edges of strategy cfg.  O(E x rank). */
double pase_transfer_total(const pase_problem *pb, const int *cfg);
/* json_dumps with the tool's JSON format (2-space indent, keys in order,
 * 10 significant digits); steals root; NULL on allocation failure. */
char *pase_json_text(json_t *root);

/* ---- reproduction (pase_repro.c, pase_repro_tables.c) ------------------ */

#define PASE_REPRO_MODELS 5      /* Table I's rows */
#define PASE_REPRO_PS 5          /* p = 4, 8, 16, 32, 64 */
#define PASE_REPRO_T2_MODELS 4   /* Table II's models (no ResNet-101) */

/* Table I of the paper ("Ours", seconds) and the prototype measured on
 * this kind of machine (reference README and totals.csv; -1 unknown, -2
 * did not finish in 20 minutes). */
typedef struct {
    const char *model;           /* our name */
    const char *paper;           /* the paper's column */
    double paper_s[PASE_REPRO_PS];
    double proto_s[PASE_REPRO_PS];
    double proto_cost[PASE_REPRO_PS]; /* the prototype's best total, -1 unknown */
} pase_table1_row;

/* The paper's Table II (p = 32), one row per group of ops. */
typedef struct {
    const char *model;
    const char *row;
    const char *dims;            /* the paper's dimension letters */
    const char *config;
    const char *match;           /* op-name patterns, '|'-separated; '*' prefix = substring */
    int kind;                    /* a iter_kind to keep, or -1 for any */
} pase_table2_row;

extern const pase_table1_row pase_table1[PASE_REPRO_MODELS];
extern const int pase_table_p[PASE_REPRO_PS];
extern const pase_table2_row pase_table2[];
extern const int pase_table2_rows;

/* 1 if vertex x belongs to Table II row t (kind and name patterns). */
int pase_table2_matches(const iter_nest *x, const pase_table2_row *t);
/* The paper's configuration of row t for vertex x, in our dimension
 * order, when the paper's letters are a permutation of ours; 0 if not. */
int pase_table2_config(const iter_nest *x, const pase_table2_row *t, int32_t *out);

typedef struct {
    int p;
    double cost;                 /* F (duplicate edges dropped as the prototype does) */
    double search_s;             /* ours */
    double bfs_s;                /* ours, breadth-first; -1 over the guard, -2 skipped */
    double bfs_mib;              /* the tables the breadth-first DP would need */
    int ok;
} pase_t1_cell;

/* Fig. 6 (pase_repro_fig6.c): per machine, model and p, the four strategies'
 * step in seconds on the default model (data parallel, expert, MCMC; PaSE). */
#define PASE_FIG6_MACHINES 2     /* 1080 Ti, 2080 Ti nodes */
#define PASE_FIG6_MODELS 4       /* AlexNet, InceptionV3, RNNLM, Transformer */
typedef struct {
    int p;
    int ok;
    double base_s[3];            /* data parallel, expert, mcmc (dnp_pase_run_baseline) */
    int base_fits[3];
    char base_name[3][32];
    double pase_s;               /* PaSE's optimum (no refinement) */
    int pase_fits;
} pase_fig6_cell;
extern const char *const pase_fig6_models[PASE_FIG6_MODELS];

struct dnp_pase_repro {
    pase_fig6_cell fig6[PASE_FIG6_MACHINES][PASE_FIG6_MODELS][PASE_REPRO_PS];
    pase_t1_cell cells[PASE_REPRO_MODELS][PASE_REPRO_PS];
    int p2;                      /* Table II's p: min(max_p, 32) */
    iter_space *g2[PASE_REPRO_T2_MODELS];
    pase_problem pb2[PASE_REPRO_T2_MODELS];
    int have2[PASE_REPRO_T2_MODELS];
    int *cfg2[PASE_REPRO_T2_MODELS];    /* our optimum at p2 */
    double opt2[PASE_REPRO_T2_MODELS];  /* its F */
    double paper2[PASE_REPRO_T2_MODELS]; /* F with the paper's rows held; -1 the dims do
                                          * not map, -2 a configuration is not ours */
};

/* Fig. 6 rows for every p of Table I up to max_p (pase_repro_fig6.c);
 * DNP_ERR_INTERNAL naming the machine, model and p if one fails. */
dnp_status pase_repro_fig6(dnp_pase_repro *r, const dnp_pase_repro_options *o, int max_p,
                           dnp_error *err);
json_t *pase_fig6_json(const dnp_pase_repro *r);
void pase_fig6_print(const dnp_pase_repro *r, FILE *f);

#endif
