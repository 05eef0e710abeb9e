/*
 * synergyflow.h - the SynergyFlow accelerator model (Li et al., "SynergyFlow:
 * An Elastic Accelerator Architecture Supporting Batch Processing of
 * Large-Scale Deep Neural Networks", ACM TODAES 2018), the module's API for the
 * library (sf_run.c and the reports behind dnnpar.h's "SynergyFlow
 * accelerator" section, which the CLI uses) and the tests.
 *
 * One accelerator's homogeneous array of N cores (each a Tn x Tn PE mesh)
 * is split into a C-Engine (CONV layers) and an F-Engine (FC layers) that
 * share one DRAM channel.  The module provides
 *   - the platform (Table 2) and workloads (models x instance counts, Table 6);
 *   - workload characterisation under the loop tiling of Fig. 8 (Eqs. 1, 3-5, 10);
 *   - the analytical core allocation (Eqs. 6-9) and the design space (Fig. 9);
 *   - instruction-block programs (section 5: memory and computing instruction
 *     blocks per sublayer, stride-access memory instructions of Table 3);
 *   - an event-driven simulator of MonoArch, ATA and SynergyFlow with the
 *     bandwidth FSM of Fig. 12 or round-robin, double buffering and in-order or
 *     out-of-order layer scheduling (Fig. 7), with a Chrome trace;
 *   - the paper's evaluation (section 6) as data for `dnnpar reproduce`.
 * Units and every modelling decision the paper leaves open: docs/synergyflow.md.
 */
#ifndef DNNPAR_SYNERGYFLOW_H
#define DNNPAR_SYNERGYFLOW_H

#include "dnnpar.h"

#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* Platform (Table 2)                                                   */
/* ------------------------------------------------------------------ */

/* "GB" in the paper's bandwidths: 2^30 bytes.  With it (and floors) Eq. 9
 * gives all six Table 6 splits; with 10^9 DBN-M would get N_f = 10. */
#define SF_GB_BYTES 1073741824.0
/* "GOPS" in our reports: 10^9 operations per second (2 per MAC). */
#define SF_GOPS 1e9

typedef struct {
    int cores;      /* N: cores in the array */
    int tn;         /* Tn: each core is a Tn x Tn PE mesh (Fig. 11) */
    double bw_bps;  /* BW: DRAM bandwidth, bytes per second */
    double freq_hz; /* freq: core clock, Hz */
    int dw_bytes;   /* DW: bytes per data word */
    int tr, tc;     /* Tr, Tc: spatial tile of CONV outputs (Fig. 8a) */
    int tnn;        /* Tnn: FC weight tile side (Fig. 8b) */
} sf_platform;

/* The paper's FPGA (section 6.1): N = 64, Tn = 4, BW = 34.2 GB/s, 100 MHz,
 * 16-bit data; Tr = Tc = 32 (the 32x32 tile of Table 3's LC/SC example)
 * and Tnn = 128 (our choice; docs/synergyflow.md). */
void sf_platform_p395ab(sf_platform *p);

/* DNP_ERR_INPUT naming the first non-positive or out-of-range field. O(1). */
dnp_status sf_platform_check(const sf_platform *p, dnp_error *err);

/* Peak throughput of `cores` cores: cores x Tn^2 MACs x 2 ops x freq. O(1). */
double sf_peak_ops_per_s(const sf_platform *p, int cores);

/* ------------------------------------------------------------------ */
/* Workloads: models with instance counts                              */
/* ------------------------------------------------------------------ */

typedef enum { SF_CONV = 0, SF_FC = 1 } sf_layer_kind;

/* A CONV or FC layer as Table 1 describes it.  Other ops (pooling, ReLU,
 * LRN, ...) carry no CONV/FC work and are not modelled. */
typedef struct {
    char name[64];
    sf_layer_kind kind;
    int64_t m;          /* CONV: M0 output maps; FC: M1 outputs */
    int64_t n;          /* CONV: N0 input maps per group; FC: N1 inputs */
    int64_t r, c;       /* CONV: output rows R and columns C; FC: 1, 1 */
    int64_t in_h, in_w; /* CONV: padded input height and width */
    int kh, kw;         /* CONV kernel (K x K when square); FC: 1 */
    int sh, sw;         /* CONV stride S; FC: 1 */
    int groups;         /* CONV groups (input maps per group = n) */
    int64_t macs;       /* multiply-accumulates per instance */
} sf_layer;

typedef struct {
    char name[64];     /* zoo name */
    int64_t instances; /* instances of this model in the workload */
    int n_layers;
    sf_layer *layers; /* owned */
} sf_model;

#define SF_MAX_MODELS 8

typedef struct {
    char spec[160]; /* canonical text, e.g. "vgg11:100+alexnet-2012:2000" */
    int n_models;
    sf_model models[SF_MAX_MODELS];
} sf_workload;

/* Parse a workload: "batch1" | "batch2" | "batch3" (Table 6), or
 * MODEL[:COUNT]('+'MODEL[:COUNT])* with zoo names and counts 1..10^9
 * (default 1).  On success *out owns layer arrays (sf_workload_free).
 * Errors (DNP_ERR_INPUT) quote the spec and the offending part.
 * O(size of the models). */
dnp_status sf_workload_parse(const char *spec, sf_workload *out, dnp_error *err);
/* The same, reading model files with `opt` (NULL: the defaults), e.g.
 * ONNX's skip_unknown.  A model file's CONV and FC layers become the
 * model's layers; every other operator carries no CONV/FC work. */
dnp_status sf_workload_parse_opts(const char *spec, const dnp_load_options *opt,
                                  sf_workload *out, dnp_error *err);

/* The CONV and FC layers of graph g as one model with `instances`.  On
 * success *out owns its layer array.  O(ops of g). */
dnp_status sf_model_from_graph(const dnp_graph *g, int64_t instances, sf_model *out,
                               dnp_error *err);

/* A copy of w with every count divided by `divisor` (which must divide
 * each count exactly) and then multiplied by `times`.  O(layers). */
dnp_status sf_workload_rescale(const sf_workload *w, int64_t divisor, int64_t times,
                               sf_workload *out, dnp_error *err);

/* Free the layer arrays and zero the struct (which is the caller's).
 * NULL is a no-op. */
void sf_workload_free(sf_workload *w);

/* ------------------------------------------------------------------ */
/* Phases (macro instructions FF, BP, GD, section 4.1) and tiling       */
/* ------------------------------------------------------------------ */

/* One macro instruction's stage on one engine.  Program order inside an
 * instance is the enum order. */
typedef enum {
    SF_FF_C = 0, /* feed forward, CONV layers first to last */
    SF_FF_F,     /* feed forward, FC layers */
    SF_BP_F,     /* back propagation, FC layers last to first */
    SF_GD_F,     /* gradient (weight update), FC layers */
    SF_BP_C,     /* back propagation, CONV layers last to first */
    SF_GD_C,     /* gradient, CONV layers */
    SF_N_PHASES
} sf_phase;

/* "FF.C", "BP.F", ... ("?" out of range), and 1 for the C-Engine's
 * phases.  O(1). */
const char *sf_phase_name(sf_phase ph);
int sf_phase_is_conv(sf_phase ph);

/* A run of identical consecutive sublayers (Fig. 8: one iteration of the
 * loops outside "ON-CHIP COMMUNICATION"), in the loop order of the phase. */
typedef struct {
    int64_t count;       /* sublayers in the run */
    int64_t load_words;  /* per sublayer: words loaded from DRAM */
    int64_t store_words; /* per sublayer: words stored to DRAM */
    int64_t cycles;      /* per sublayer: clock cycles on one core */
    int64_t macs;        /* per sublayer: useful multiply-accumulates */
    int load_instrs;     /* per sublayer: stride-access load instructions */
    int store_instrs;    /* per sublayer: stride-access store instructions */
} sf_sublayer_run;

/* The sublayers of layer l in phase ph (which must match the layer's kind:
 * conv phases for CONV layers).  *runs comes from the allocator hook (free
 * it with dnp_free); runs of equal sublayers are merged.  O(number of
 * sublayers). */
dnp_status sf_layer_sublayers(const sf_layer *l, sf_phase ph, const sf_platform *p,
                              sf_sublayer_run **runs, int *n_runs, dnp_error *err);

/* Number of sublayers of l in phase ph.  O(1). */
int64_t sf_layer_n_sublayers(const sf_layer *l, sf_phase ph, const sf_platform *p);

/* One stride-access memory instruction (Table 3). */
typedef struct {
    char mode[3];       /* "LR", "LC", "SR", "SC": load/store, row/column first */
    int64_t mem_addr;   /* external address, words */
    int64_t ls_addr;    /* local-store address, words */
    int64_t length;     /* words per segment */
    int64_t stride;     /* words between segment starts */
    int64_t repetition; /* segments */
} sf_mem_instr;

/* The memory instruction block of sublayer `index` (0-based, loop order)
 * of l in phase ph: loads then stores, at most `max` written to out.
 * Returns the number of instructions (may exceed max), or -1 if index is
 * out of range.  Words moved = sum of length x repetition.  O(Tn). */
int sf_sublayer_instrs(const sf_layer *l, sf_phase ph, const sf_platform *p, int64_t index,
                       sf_mem_instr *out, int max);

/* ------------------------------------------------------------------ */
/* Characterisation (section 4.2.1) and allocation (section 4.2.3)     */
/* ------------------------------------------------------------------ */

typedef struct {
    double ops;              /* Eq. 3 C_op / Eq. 5 F_op: 2 x MACs, one instance */
    double mem_bytes;        /* C_mem / F_mem under the Fig. 8 tiling, FF, one instance */
    double ctc_ops_per_byte; /* Eq. 1 */
} sf_layer_char;

typedef struct {
    double conv_ops, fc_ops; /* whole workload (x instances), FF */
    double conv_mem_bytes, fc_mem_bytes;
    double r_ctf;          /* Eq. 10: conv_ops / fc_ops (0 without CONV, inf without FC) */
    double k_mean, s_mean; /* kernel size and stride weighted by CONV ops */
    int k, s;              /* the same rounded to integers, as Table 6 lists K */
} sf_workload_char;

/* Per-layer figures of model m (out has m->n_layers entries). O(sublayers). */
dnp_status sf_characterise_model(const sf_model *m, const sf_platform *p, sf_layer_char *out,
                                 dnp_error *err);
/* Workload totals.  O(sublayers of all models). */
dnp_status sf_characterise(const sf_workload *w, const sf_platform *p, sf_workload_char *out,
                           dnp_error *err);

/* The analytical split (Eq. 9, derived from the constraints of Eq. 8) and
 * the terms behind it. */
typedef struct {
    int nc, nf;                    /* cores of the C-Engine and F-Engine */
    double bw_words_per_s;         /* BW / DW */
    double core_words_per_s;       /* freq x Tn^2: one core's demand on FC (Eq. 7) */
    double c_words_per_core_cycle; /* Eq. 7 C-Engine demand per core per cycle / Tn^2 */
    double nc_bw_bound;            /* Eq. 9, first argument of N_c's min, before flooring */
    double nc_core_bound;          /* Eq. 9, R N / (1 + R), before flooring */
    double nf_bw_bound;            /* Eq. 9, first argument of N_f's min */
    int nf_core_bound;             /* N - N_c */
    const char *nc_limit;          /* "bandwidth", "cores" or "no CONV work" */
    const char *nf_limit;          /* "bandwidth", "cores" or "no FC work" */
    int clamped;                   /* 1 if adjusted after Eq. 9: an engine with work given a
                                    * core, then the split fitted into N */
    double c_bw_bps, f_bw_bps;     /* Eq. 7 demand of the chosen split, bytes/s */
} sf_alloc;

/* Eq. 9 for a workload with CONV/FC ratio r_ctf (INFINITY without FC work,
 * 0 without CONV work), kernel size k and stride s.  O(1). */
void sf_allocate(const sf_platform *p, double r_ctf, int k, int s, sf_alloc *out);

/* Design space (Fig. 9): steady-state estimate of every feasible split. */
typedef struct {
    int n;        /* N; the map is (n+1) x (n+1), index nc * (n + 1) + nf */
    double *gops; /* estimated GOPS, or -1 where infeasible; owned */
    int best_nc, best_nf;
    double best_gops;
} sf_dse;

/* Estimate every (N_c, N_f) with N_c + N_f <= N (an engine with work needs
 * a core): time = max(C-Engine cycles, F-Engine cycles, bytes / BW) of the
 * FF programs, the bound the OoO pipeline approaches.  Ties go to the
 * smaller N_c then N_f.  Free with sf_dse_free.  O(N x sublayers). */
dnp_status sf_dse_run(const sf_workload *w, const sf_platform *p, sf_dse *out, dnp_error *err);
/* Free the map; NULL and a zeroed struct are no-ops. */
void sf_dse_free(sf_dse *d);

/* ------------------------------------------------------------------ */
/* Instruction-block programs (section 5)                              */
/* ------------------------------------------------------------------ */

/* `count` identical instruction blocks.  One block is one engine step:
 * the memory instruction block (loads, then stores after compute) and
 * the computing instruction block of up to `cores` CONV sublayers, one
 * per core in lockstep, or of one FC sublayer whose Tn x Tn sub-blocks
 * the cores share (Eq. 6).  With max_blocks, consecutive steps of a layer
 * are merged so that no layer has more than max_blocks blocks. */
typedef struct {
    int64_t count;
    double load_bytes, store_bytes;    /* per block */
    int64_t cycles;                    /* per block */
    double ops;                        /* per block, 2 x MACs */
    int64_t load_instrs, store_instrs; /* per block */
    int layer;                         /* layer index in the model */
} sf_block_run;

typedef struct {
    int n_runs;
    sf_block_run *runs; /* owned */
    int64_t n_blocks;
    double load_bytes, store_bytes, ops;
    int64_t cycles;
    int64_t sublayers;
} sf_program;

/* Program of model m's phase ph on an engine of `cores` cores.
 * max_blocks = 0 keeps one block per engine step.  O(sublayers). */
dnp_status sf_program_build(const sf_model *m, sf_phase ph, const sf_platform *p, int cores,
                            int max_blocks, sf_program *out, dnp_error *err);
/* Free the runs; NULL and a zeroed struct are no-ops. */
void sf_program_free(sf_program *pr);

/* Cycles of one layer's sublayer runs on an engine of `cores` cores (the
 * steps of sf_program_build, not merged).  -1 on allocation failure.
 * O(runs + steps). */
int64_t sf_runs_cycles(const sf_sublayer_run *runs, int n_runs, int cores, int is_fc);

/* ------------------------------------------------------------------ */
/* Simulator (sections 4.1, 5)                                         */
/* ------------------------------------------------------------------ */

typedef enum {
    SF_ARCH_SF = 0, /* SynergyFlow: the analytical split (Eq. 9) */
    SF_ARCH_MONO,   /* MonoArch: all cores one engine, layers in turn */
    SF_ARCH_ATA1,   /* ATA(32,32) */
    SF_ARCH_ATA2,   /* ATA(48,16) */
    SF_ARCH_ATA3,   /* ATA(56,8) */
    SF_ARCH_ATA4,   /* ATA(60,4) */
    SF_ARCH_ATA5,   /* ATA(63,1) */
    SF_ARCH_SPLIT,  /* a split given by hand */
    SF_N_ARCHS
} sf_arch;

/* "sf", "mono", "ata1", ..., "split"; the index of a name (case-
 * insensitive; -1 if unknown, "split" not accepted); the fixed ATA splits
 * of section 6.1, defined for N = 64 (returns 0 for other architectures).
 * O(1). */
const char *sf_arch_name(sf_arch a);
int sf_arch_from_name(const char *s);
int sf_arch_ata_split(sf_arch a, int *nc, int *nf);

/* Receiver of the simulator's timeline (a Chrome trace writer, a test
 * probe).  Callbacks are optional.  Engine 0 is the C-Engine (MonoArch's
 * only engine), 1 the F-Engine. */
typedef struct {
    void *ctx;
    /* A computing instruction block ran on `engine` from t0_s to t1_s. */
    void (*compute)(void *ctx, int engine, double t0_s, double t1_s, int64_t instance, int model,
                    sf_phase ph);
    /* The DRAM channel moved `bytes` for `engine` from t0_s to t1_s (a
     * preempted transfer reports one segment per grant). */
    void (*memory)(void *ctx, int engine, int is_store, double t0_s, double t1_s, double bytes,
                   int64_t instance, int model, sf_phase ph);
} sf_sim_sink;

typedef struct {
    int mono;                /* MonoArch: one engine of all N cores, in order */
    int nc, nf;              /* the split (ignored for MonoArch) */
    int training;            /* 0 inference (FF), 1 training (FF, BP, GD per instance) */
    int ooo;                 /* out-of-order layer scheduling (Fig. 7c) */
    int round_robin;         /* 0: C-Engine priority FSM (Fig. 12); 1: round-robin */
    int epochs;              /* training passes over the instances (inference: 1) */
    int batch_size;          /* training: weights change after each batch of a model */
    int max_blocks;          /* per layer and phase (0 = one block per engine step) */
    const sf_sim_sink *sink; /* NULL for none */
} sf_sim_config;

/* Defaults: SynergyFlow-style split 0/0 (set nc, nf), inference, OoO,
 * priority, 1 epoch, batch 50 (section 6.1), max_blocks 0. */
void sf_sim_config_default(sf_sim_config *c);

typedef struct {
    int cores;
    double busy_s;   /* computing */
    double active_s; /* with a task in progress (computing or waiting for DRAM) */
    double ops;
    double load_bytes, store_bytes;
    int64_t compute_blocks; /* computing instruction blocks executed */
    int64_t mem_blocks;     /* memory instruction blocks (loads and stores with bytes) */
    int64_t tasks;          /* (instance, phase) stages executed */
} sf_engine_stats;

typedef struct {
    double time_s;
    double ops;  /* useful operations, 2 per MAC */
    double gops; /* ops / time / 10^9 */
    double bytes;
    double pe_util; /* MACs / (N Tn^2 freq time), all N cores */
    double bw_util; /* bytes / (BW time) */
    int n_engines;
    sf_engine_stats engine[2];
    double fsm_s[3];     /* time in S0 (idle), S1 (C-Engine), S2 (F-Engine) */
    int64_t preemptions; /* F transfers paused for the C-Engine */
    int64_t instances;   /* simulated (instances x epochs) */
    int64_t events;
} sf_sim_result;

/* Simulate workload w on platform p.  Errors: DNP_ERR_INPUT for a bad
 * configuration (split over N, an engine with work but no cores, too many
 * instances), DNP_ERR_NOMEM, DNP_ERR_INTERNAL if the schedule deadlocks.
 * Deterministic: events at equal times run in scheduling order.
 * O(blocks x log(events)) time, O(instances) memory. */
dnp_status sf_simulate(const sf_workload *w, const sf_platform *p, const sf_sim_config *c,
                       sf_sim_result *out, dnp_error *err);

/* ------------------------------------------------------------------ */
/* Chrome trace                                                        */
/* ------------------------------------------------------------------ */

typedef struct sf_trace sf_trace;

/* A trace writer on f (not closed by sf_trace_free).  Adjacent blocks of
 * one stage on one track merge into one span; after max_events spans the
 * rest are counted but not written.  NULL on allocation failure. */
sf_trace *sf_trace_new(FILE *f, const sf_workload *w, int mono, int64_t max_events);
/* The sink to hand to the simulator; valid while the writer lives. */
const sf_sim_sink *sf_trace_sink(sf_trace *t);
/* Flush pending spans and close the JSON.  Returns 0, or -1 on a write
 * error. */
int sf_trace_finish(sf_trace *t);
int64_t sf_trace_dropped(const sf_trace *t);
void sf_trace_free(sf_trace *t);

/* ------------------------------------------------------------------ */
/* Steady-state estimate and the paper's evaluation (section 6)         */
/* ------------------------------------------------------------------ */

/* Time of workload w estimated from two simulations of a sample unit,
 * w / k and 2 w / k:  T(w) = T1 + (k - 1) max(T2 - T1, W1)  (warm-up and
 * drain once, the steady state k - 1 times), where W1 is the unit's
 * largest resource demand: either engine's active time (computing or
 * waiting for DRAM) or its bytes / BW.  k must divide every count.  k = 1
 * simulates w once.  Every figure is for w: additive ones continue as
 * x1 + (k - 1)(x2 - x1) (counts of work as k x1), FSM S0 is the rest of
 * the time; events are those simulated.  One model trained in whole
 * batches per unit repeats exactly (T2 = 2 T1), so w / k is simulated
 * alone.  Cost: simulations of 3 w / k (or w / k). */
dnp_status sf_estimate(const sf_workload *w, int64_t k, const sf_platform *p,
                       const sf_sim_config *c, sf_sim_result *out, dnp_error *err);

/* The smallest bandwidth in bw_gbps[0..n) at which gops reaches `frac` of
 * its maximum over the sweep (the "knee" of Fig. 15).  O(n). */
double sf_knee_gbps(const double *bw_gbps, const double *gops, int n, double frac);

/* A row of Table 6 with what the paper reports for it. */
typedef struct {
    const char *name; /* "AlexNet", ... */
    const char *spec; /* our workload, e.g. "alexnet-2012:100" */
    double paper_r_ctf;
    int paper_k;
    int paper_nc, paper_nf;
    int64_t unit_inference; /* sample divisor k for inference estimates */
    int64_t unit_training;  /* sample divisor k for one training epoch */
    /* Fig. 13(a) improvement over MonoArch, percent (NAN where the text gives none). */
    double paper_fig13a_pct;
    double paper_fig16_pct; /* Fig. 16 OoO gain in training, percent (NAN if not given) */
    /* Table 7: SynergyFlow inference and training (10 epochs) time and GOPS. */
    double paper_inf_s, paper_inf_gops, paper_train_s, paper_train_gops;
    double paper_gpu_inf_gops, paper_gpu_train_gops;
    double paper_gpu_inf_s, paper_gpu_train_s; /* Table 7: the K20M's times (measured, paper) */
} sf_table6_row;

/* The six rows of Table 6 in the paper's order; NULL out of range.  O(1). */
int sf_table6_count(void);
const sf_table6_row *sf_table6_at(int i);

/* Bandwidths of our Fig. 15 sweep, GB/s (2^30 bytes). */
#define SF_REPRO_N_BW 9
/* Blocks per layer and stage in the reproduction's simulations (within
 * 0.8% of one block per engine step; docs/synergyflow.md). */
#define SF_REPRO_MAX_BLOCKS 32
#define SF_REPRO_EPOCHS 10

/* Our figures for one Table 6 workload (GOPS = 10^9 operations / s). */
typedef struct {
    sf_workload_char ch;          /* Table 6 R_ctf, K, S from our layer shapes */
    sf_alloc alloc;               /* Table 6 split from our R_ctf, K, S */
    sf_alloc alloc_paper_rk;      /* the split from the paper's printed R_ctf and K (S = 1) */
    int dse_best_nc, dse_best_nf; /* Fig. 9: best split of the design-space estimate */
    double dse_best_gops, dse_analytic_gops;
    double inf_gops[SF_N_ARCHS]; /* inference, index sf_arch (SPLIT unused): Figs. 13a, 17 */
    double inf_time_s;           /* SynergyFlow inference of the Table 6 counts (Table 7) */
    double rr_gops;              /* SynergyFlow with round-robin arbitration (section 4.1.2) */
    double prio1_gops, rr1_gops; /* the same two at one block per engine step (max_blocks 0) */
    double bw_sf_gops[SF_REPRO_N_BW], bw_mono_gops[SF_REPRO_N_BW]; /* Fig. 15 */
    double bw_sf_fixed_gops[SF_REPRO_N_BW]; /* Fig. 15 with Table 6's split at every bandwidth */
    int bw_nc[SF_REPRO_N_BW], bw_nf[SF_REPRO_N_BW]; /* SynergyFlow's split at each bandwidth */
    double train_ooo_gops, train_inorder_gops;      /* Fig. 16 (training) */
    double train_time_s; /* SynergyFlow OoO, 10 epochs of the counts (Table 7) */
    /* Table 8: the workload's CONV layers alone on all N cores (MonoArch is
     * "all the cores acting as the C-Engine", section 6.1), inference of the
     * Table 6 counts; NAN without CONV layers. */
    double conv_only_gops;
    /* Fig. 14 (energy): inference time and DRAM bytes of SynergyFlow and
     * MonoArch, and the operations (the same on both). */
    double inf_time_mono_s, inf_bytes_sf, inf_bytes_mono, inf_ops;
} sf_repro_row;

/* Fig. 13(b): one AlexNet layer run alone (Table 6's 100 instances,
 * inference), on MonoArch (all N cores, the whole channel) and on the
 * SynergyFlow engine Table 6's split gives it (N_c or N_f cores, the whole
 * channel: the other engine idle). */
typedef struct {
    char name[64];
    sf_layer_kind kind;
    double ops; /* per instance, 2 x MACs (Eqs. 3, 5) */
    double mono_gops, mono_pe_util, mono_bw_util;
    int sf_cores;                          /* cores of the layer's engine */
    double sf_gops, sf_pe_util, sf_bw_util; /* PE utilisation over the engine's cores */
} sf_repro_layer;

#define SF_REPRO_MAX_LAYERS 16

typedef struct {
    double bw_gbps[SF_REPRO_N_BW];
    sf_repro_row row[6];
    int n_fig13b;                                /* AlexNet's CONV and FC layers */
    sf_repro_layer fig13b[SF_REPRO_MAX_LAYERS]; /* in network order */
} sf_repro;

/* Eq. 11, as the paper's Table 8 evaluates it: 1 - Perf_NN / Perf_CONV
 * (the conversion prints the fraction upside down: 1 - 194.7/198.3 = 1.8%,
 * Table 8's VGG11 entry).  O(1). */
double sf_degradation_ratio(double conv_only_gops, double nn_gops);

/* Energy of a run relative to a reference run of the same work (Fig. 14),
 * with E = P_t T + e_B bytes + e_op ops (docs/synergyflow.md, "Energy"):
 * time_share is the reference's energy share that is proportional to time
 * (FPGA static power, clocks, DRAM background and refresh), dram_share the
 * share proportional to DRAM bytes, the rest proportional to operations.
 * Returns E / E_ref.  O(1). */
double sf_energy_relative(double time_s, double bytes, double ops, double ref_time_s,
                          double ref_bytes, double ref_ops, double time_share,
                          double dram_share);

/* DRAM access energy, joules per bit: Horowitz, "Computing's energy
 * problem (and what we can do about it)", ISSCC 2014, energy table: a
 * 64-bit DRAM access costs 1.3-2.6 nJ, i.e. 20.3-40.6 pJ/bit.  The paper
 * gives no DDR3 or FPGA power (Table 5 lists resources only). */
#define SF_DRAM_J_PER_BIT_LO (1.3e-9 / 64.0)
#define SF_DRAM_J_PER_BIT_HI (2.6e-9 / 64.0)

/* Run the paper's evaluation (section 6) on the P395-AB preset: every
 * Table 6 workload characterised, allocated and simulated (inference on
 * MonoArch, ATA-1..5 and SynergyFlow, with round-robin, over the Fig. 15
 * bandwidths; training in and out of order), by sf_estimate on the rows'
 * sample units with SF_REPRO_MAX_BLOCKS.  Deterministic.  About 10^7
 * simulated events. */
dnp_status sf_repro_run(sf_repro *out, dnp_error *err);

/* ---- Fig. 18: energy against the GPU (sf_energy_gpu.c) -------------------- */

/* NVIDIA Tesla K20 GPU Accelerator board specification BD-06455-001_v05:
 * board power 225 W, idle 25 W (the paper's K20M is this board). */
#define SF_K20_BOARD_W 225.0
/* DDR3, Micron MT18JDF51272AZ (4 GB DDR3 UDIMM) datasheet, Table 11, at
 * DDR3-1600 (the nearest Micron datasheet we can cite; the P395-AB's own
 * 8 GB modules are not named): IDD3N (active standby) 990 mA, IDD4R (burst
 * read) 1512 mA per module at VDD 1.5 V, 64-bit bus at 1600 MT/s.  Power as
 * Micron TN-41-01 computes it from IDD currents: background IDD3N x VDD;
 * reading adds (IDD4R - IDD3N) x VDD at the module's full bandwidth. */
#define SF_DDR3_VDD_V 1.5
#define SF_DDR3_IDD3N_A 0.990
#define SF_DDR3_IDD4R_A 1.512
#define SF_DDR3_MODULE_BPS (1600e6 * 8.0) /* bytes/s: 1600 MT/s x 8 bytes */
#define SF_DDR3_MODULES 4                 /* section 6.1: 4 x 8 GB DDR3 */

/* Fig. 18 as far as published constants allow.  The paper publishes
 * neither its FPGA's power nor the K20M's measured power, only the energy
 * reductions it quotes; their ratio P_SF / P_GPU follows from a quoted
 * reduction and Table 7's times: 1 - E_SF/E_GPU = 1 - rho t_SF / t_GPU.
 * Only t_SF is ours: the GPU's times and rho are inputs from the paper, so
 * the savings and efficiencies are paper-derived - the paper's own ratio
 * scaled by our time over its - and no mean of them is an agreement
 * figure (none is kept). */
typedef struct {
    double rho_alexnet, rho_vgg11, rho;       /* from the inference quotes; rho their mean */
    double rho_train_alexnet, rho_train_vgg11;/* what the training quotes (9.8x, 1.9x) imply */
    double inf_time_over_gpu[6], train_time_over_gpu[6]; /* t_ours / t_GPU (paper's) */
    double inf_saving_pct[6], train_saving_pct[6]; /* paper-derived: 1 - rho t_ours / t_GPU */
    double inf_eff[6], train_eff[6];          /* paper-derived, Fig. 18(b): t_GPU / (rho t_ours) */
    double sf_w_at_k20_board;                 /* rho x 225 W */
    double ddr3_background_w, ddr3_read_j_per_bit, ddr3_w_at_full_bw; /* Micron figures */
} sf_fig18;

/* Paper quotes (section 6.2.6), percent or x. */
#define SF_PAPER_FIG18_ALEX_INF_PCT 86.7
#define SF_PAPER_FIG18_VGG_INF_PCT 69.3  /* the text says VGG16; Table 7 has VGG11 */
#define SF_PAPER_FIG18_INF_PCT 81.2      /* "up to 81.2%" - read as the mean (86.7 is higher) */
#define SF_PAPER_FIG18_TRAIN_PCT 82.7
#define SF_PAPER_FIG18_EFF_INF 6.1
#define SF_PAPER_FIG18_EFF_TRAIN 7.4
#define SF_PAPER_FIG18_EFF_TRAIN_ALEX 9.8
#define SF_PAPER_FIG18_EFF_TRAIN_VGG 1.9

/* Fig. 18 from our Table 7 times (r), the paper's GPU times and quotes.
 * O(workloads). */
void sf_fig18_compute(const sf_repro *r, sf_fig18 *out);

/* ---- the reproduction's summary (sf_repro_summary.c) ----------------------- */

/* The summary figures, each over the six Table 6 workloads and computed by
 * our model, except fig14_mean_saving_f1_pct, which uses f = 1, the
 * time-proportional share the paper's own AlexNet figures imply (an input
 * derived from the paper). */
typedef struct {
    int table6_exact;              /* splits equal to Table 6's, from our R_ctf, K, S */
    double fig13a_mean_gain_pct;   /* SynergyFlow over MonoArch, inference */
    double fig16_mean_gain_pct;    /* out-of-order over in-order, training */
    double fig14_mean_saving_f1_pct; /* energy saving over MonoArch at f = 1 */
    int fig17_sf_best;             /* workloads on which SynergyFlow is best of Fig. 17's six */
    double table7_inf_ratio_lo, table7_inf_ratio_hi;     /* our time / the paper's */
    double table7_train_ratio_lo, table7_train_ratio_hi;
    double sec412_mean_gain_pct;   /* priority over round-robin, one block per step */
} sf_repro_summary;

/* The summary of r.  O(workloads). */
void sf_repro_summarise(const sf_repro *r, sf_repro_summary *out);

/* One thing the reproduction takes from the paper (what; why: the figures
 * that use it) or one evaluation of the paper it does not reproduce (what,
 * why). */
typedef struct {
    const char *what, *why;
} sf_repro_note;

/* The paper's figures our model uses, and the paper-derived inputs (rho of
 * Fig. 18, f of Fig. 14); in print order.  NULL out of range. */
int sf_repro_input_count(void);
const sf_repro_note *sf_repro_input_at(int i);
/* What the paper evaluates that the reproduction does not, with why. */
int sf_repro_unreproduced_count(void);
const sf_repro_note *sf_repro_unreproduced_at(int i);

#endif
