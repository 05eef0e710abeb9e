/*
 * dnnpar/arch.h - the accelerator models: SynergyFlow (Li et al., TODAES 2018;
 * src/arch/synergyflow/) and MPT (Hong et al., MICRO 2018; src/arch/mpt/),
 * with their paper reproductions.
 *
 * Part of libdnnpar's public API: include <dnnpar.h>, which includes each
 * header under dnnpar/, or this header alone (it includes what it needs).  Its
 * conventions are dnnpar.h's (status and error record, dnp_X_new / dnp_X_free
 * pairs, units in names; docs/library.md).
 * Ownership: runs and reproductions are opaque, the caller's, freed with
 * their dnp_X_free; report texts are freed with dnp_free; option strings
 * are borrowed for the call.
 */
#ifndef DNNPAR_PUBLIC_ARCH_H
#define DNNPAR_PUBLIC_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core.h"

/* Default visibility for what this header declares (core.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------ */
/* SynergyFlow accelerator (Li et al., TODAES 2018; src/arch/synergyflow/,
 * docs/synergyflow.md): `dnnpar synergy` and `dnnpar reproduce synergyflow` */
/* ------------------------------------------------------------------ */

/* Architectures a SynergyFlow run simulates (section 6.1). */
typedef enum {
    DNP_SYNERGY_SF = 0, /* SynergyFlow: the analytical split (Eq. 9) */
    DNP_SYNERGY_MONO,   /* MonoArch: all cores one engine, layers in turn */
    DNP_SYNERGY_ATA1,   /* ATA(32,32) .. ATA(63,1): fixed splits defined for 64 cores */
    DNP_SYNERGY_ATA2,
    DNP_SYNERGY_ATA3,
    DNP_SYNERGY_ATA4,
    DNP_SYNERGY_ATA5,
    DNP_SYNERGY_SPLIT,  /* the split given in the options (have_split) */
    DNP_SYNERGY_ARCH_COUNT
} dnp_synergy_arch;
/* "sf", "mono", "ata1" .. "ata5", "split" ("?" out of range); the
 * architecture named s, case-insensitive ("split" not accepted), or -1.
 * O(1). */
const char *dnp_synergy_arch_name(dnp_synergy_arch a);
int dnp_synergy_arch_from_name(const char *s);

/* "GB" in the paper's bandwidths, and our GiB: 2^30 bytes. */
#define DNP_SYNERGY_GIB_BYTES 1073741824.0

/* The platform (Table 2). */
typedef struct {
    int cores;      /* N: cores in the array */
    int tn;         /* Tn: each core is a Tn x Tn PE mesh */
    double bw_bps;  /* DRAM bandwidth, bytes per second */
    double freq_hz; /* core clock, Hz */
    int dw_bytes;   /* bytes per data word */
    int tr, tc;     /* spatial tile of CONV outputs (Fig. 8a) */
    int tnn;        /* FC weight tile side (Fig. 8b) */
} dnp_synergy_platform;

/* What `dnnpar synergy` computes.  Strings are borrowed for the call. */
typedef struct {
    const char *workload;          /* MODEL[:COUNT]('+'MODEL[:COUNT])* or batch1..3 (Table 6) */
    dnp_synergy_platform platform; /* default: the paper's P395-AB FPGA */
    int have_split, nc, nf;        /* 1: simulate the split (nc, nf), not Eq. 9's */
    int arch;                      /* dnp_synergy_arch to simulate, -1: SF (or SPLIT) */
    int dse;                       /* 1: the design space of every split (Fig. 9) */
    int blocks;                    /* 1: per layer the instruction blocks (Table 3) */
    int simulate;                  /* 1: simulate `arch` (implied by compare and trace_path) */
    int compare;                   /* 1: also MonoArch and ATA-1..5 (ATA only at 64 cores) */
    int training;                  /* 1: FF, BP and GD per instance; 0: inference */
    int in_order;                  /* 1: finish each instance before the next */
    int round_robin;               /* 1: round-robin DRAM; 0: C-Engine priority (Fig. 12) */
    int epochs;                    /* training passes (1) */
    int batch_size;                /* weights change per batch of a model (50) */
    int max_blocks;                /* merge each layer into at most this many blocks (0: none) */
    int64_t sample;                /* estimate from counts/K and 2 counts/K (1: whole) */
    const char *trace_path;        /* Chrome trace of the one simulation (no compare, sample 1),
                                    * or NULL */
    int64_t trace_max_spans;       /* spans written at most (2000000) */
    int skip_unknown;              /* ONNX workloads: unknown operators become free
                                    * element-wise ops (dnp_load_options) */
} dnp_synergy_options;

/* The defaults above: the P395-AB platform, Eq. 9's split, nothing but the
 * characterisation and split, inference out of order with priority, 1
 * epoch, batch 50, sample 1, no trace.  O(1). */
void dnp_synergy_options_default(dnp_synergy_options *o);
/* DNP_ERR_INPUT naming the first field of p out of range (a count not in
 * 1..its limit, a non-positive bandwidth or clock, Tnn not a multiple of
 * Tn).  O(1). */
dnp_status dnp_synergy_platform_check(const dnp_synergy_platform *p, dnp_error *err);

/* One finished analysis (opaque). */
typedef struct dnp_synergy_run dnp_synergy_run;

/* Characterise workload o->workload on o->platform (Eqs. 1, 3-5, 10),
 * split the cores (Eq. 9), and, as o asks, map the design space and
 * simulate (writing o->trace_path through dnp_output).  On success *out
 * owns the run (dnp_synergy_run_free).  Errors: DNP_ERR_INPUT (a bad
 * workload, platform or split; "simulating ARCH: ..." when a simulation
 * refuses the configuration), DNP_ERR_IO (the trace cannot be written),
 * DNP_ERR_NOMEM.  Deterministic.  Cost: O(N x sublayers) for the design
 * space, O(blocks x log(events)) per simulation. */
dnp_status dnp_synergy_analyse(const dnp_synergy_options *o, dnp_synergy_run **out,
                               dnp_error *err);
void dnp_synergy_run_free(dnp_synergy_run *r);

/* Figures of a run (for tests and callers; the reports print them all). */
typedef struct {
    double conv_ops, fc_ops;     /* whole workload, FF, operations (2 per MAC) */
    double r_ctf;                /* Eq. 10 (INFINITY without FC work) */
    int k, s;                    /* kernel size and stride, CONV-op-weighted, rounded */
    int nc, nf;                  /* Eq. 9's split */
    int dse_best_nc, dse_best_nf;/* Fig. 9's best split (-1 without o->dse) */
    double dse_best_gops;        /* its estimate, 10^9 op/s (0 without o->dse) */
    int n_sims;                  /* simulations run (dnp_synergy_sim_at) */
} dnp_synergy_summary;
void dnp_synergy_get_summary(const dnp_synergy_run *r, dnp_synergy_summary *out);

/* One simulation of a run. */
typedef struct {
    dnp_synergy_arch arch;
    int nc, nf;          /* 0, 0 for MonoArch */
    double time_s;
    double ops;          /* useful operations, 2 per MAC */
    double gops;         /* ops / time_s / 10^9 */
    double bytes;        /* DRAM bytes moved */
    double pe_util, bw_util;
    int64_t instances, events, preemptions;
} dnp_synergy_sim;
/* Simulation i < n_sims in run order (--compare: MonoArch, ATA-1..5, then
 * the chosen one).  DNP_ERR_INPUT if i is out of range.  O(1). */
dnp_status dnp_synergy_sim_at(const dnp_synergy_run *r, int i, dnp_synergy_sim *out,
                              dnp_error *err);

/* The report of `dnnpar synergy` as text and as JSON (docs/synergyflow.md,
 * docs/formats.md).  On success *out owns a NUL-terminated string
 * (dnp_free).  Errors: DNP_ERR_NOMEM.  Deterministic.  O(layers + N^2 +
 * simulations); --blocks adds O(sublayers). */
dnp_status dnp_synergy_text(const dnp_synergy_run *r, char **out, dnp_error *err);
dnp_status dnp_synergy_json(const dnp_synergy_run *r, char **out, dnp_error *err);

/* The paper's evaluation (section 6) on the P395-AB preset (opaque):
 * Table 6, Figs. 9, 13(a), 15, 16, 17, Table 7 and section 4.1.2. */
typedef struct dnp_synergy_repro dnp_synergy_repro;
/* Run it: every Table 6 workload characterised, split and simulated.  On
 * success *out owns the result (dnp_synergy_repro_free).  Errors:
 * DNP_ERR_NOMEM, DNP_ERR_INTERNAL.  Deterministic; about 10^7 simulated
 * events (seconds). */
dnp_status dnp_synergy_reproduce(dnp_synergy_repro **out, dnp_error *err);
void dnp_synergy_repro_free(dnp_synergy_repro *r);
/* Its tables beside the paper's as text and as JSON; *out as
 * dnp_synergy_text.  O(workloads x bandwidths). */
dnp_status dnp_synergy_repro_text(const dnp_synergy_repro *r, char **out, dnp_error *err);
dnp_status dnp_synergy_repro_json(const dnp_synergy_repro *r, char **out, dnp_error *err);

/* ------------------------------------------------------------------ */
/* MPT: multi-dimensional parallel training of Winograd layers on near-
 * data-processing workers (Hong et al., MICRO 2018; src/arch/mpt/,
 * docs/mpt.md): `dnnpar mpt` and `dnnpar reproduce mpt` */
/* ------------------------------------------------------------------ */

#define DNP_MPT_MAX_CONFIGS 32  /* --config values per run */
#define DNP_MPT_MAX_HW 16       /* hardware overrides per run */

/* What `dnnpar mpt` evaluates.  Strings are borrowed for the call. */
typedef struct {
    const char *target;   /* a Table II layer (early, mid-1, late-1, mid-2, late-2) or a
                           * model (zoo name or file) */
    int workers;          /* P (256) */
    int64_t batch;        /* total batch, samples (256) */
    int kernel;           /* Table II layers: 3 or 5 (3) */
    int tile;             /* Winograd tile forced (4 or 6), 0: per layer */
    int fp16;             /* 1: FP16 workers with 96x96 arrays (the paper's whole-CNN setting) */
    const char *hardware_path; /* JSON object of hardware keys (docs/mpt.md), or NULL */
    /* Hardware overrides applied after the file, in order: names as the
     * file's keys with '-' for '_' ("array", "array-split", "clock-ghz",
     * "dram-gbps", "full-link-gbps", "narrow-link-gbps", "full-links",
     * "input-buffer-kb", "output-buffer-kb", "hop-ns") and values as text
     * in the units the names say; messages call them "--NAME". */
    int n_hw;
    const char *hw_name[DNP_MPT_MAX_HW];
    const char *hw_value[DNP_MPT_MAX_HW];
    const char *prediction_shares; /* "ours" (NULL: measured by dnnpar) or "paper" */
    /* Grids, in order: "NgxNc" sets the fixed grid of w_mp and w_mp+,
     * "dynamic[:G,...]" the group counts dynamic clustering chooses from.
     * Defaults: the paper's 1, 4, 16 that divide P; the fixed grid the most
     * groups of those. */
    int n_configs;
    const char *configs[DNP_MPT_MAX_CONFIGS];
} dnp_mpt_options;

/* The defaults above (target NULL).  O(1). */
void dnp_mpt_options_default(dnp_mpt_options *o);

/* One evaluation (opaque). */
typedef struct dnp_mpt_run dnp_mpt_run;

/* Evaluate o->target under the six configurations of Table IV (d_dp,
 * w_dp, w_mp, w_mp+, w_mp*, w_mp+*) and w_dp on one worker.  On success
 * *out owns the run (dnp_mpt_run_free).  Errors: DNP_ERR_INPUT naming the
 * option, layer or model ("--config '3x5': ...", "layer 'late-2': ...",
 * "unknown layer or model ..."), DNP_ERR_IO, DNP_ERR_NOMEM.  Measuring our
 * prediction shares (the default) measures a small trained network (act_digits.c) first.
 * O(configurations x layers x group choices). */
dnp_status dnp_mpt_evaluate(const dnp_mpt_options *o, dnp_mpt_run **out, dnp_error *err);
void dnp_mpt_run_free(dnp_mpt_run *r);

/* Figures of one configuration of a run: c is 0 .. DNP_MPT_CONFIG_COUNT-1
 * in Table IV's order; seconds and bytes per worker per iteration. */
#define DNP_MPT_CONFIG_COUNT 6
typedef struct {
    char config[8];             /* "d_dp", "w_dp", "w_mp", "w_mp+", "w_mp*", "w_mp+*" */
    double forward_s, backward_s, total_s;
    double speedup_over_w_dp;
    double speedup_over_one_worker;
    double weight_bytes, tile_bytes; /* sent per worker */
} dnp_mpt_config_result;
/* DNP_ERR_INPUT if c is out of range.  O(1). */
dnp_status dnp_mpt_config_at(const dnp_mpt_run *r, int c, dnp_mpt_config_result *out,
                             dnp_error *err);

/* The report of `dnnpar mpt` as text and as JSON (docs/mpt.md).  On
 * success *out owns a NUL-terminated string (dnp_free).  Errors:
 * DNP_ERR_NOMEM.  Deterministic.  O(layers x configurations). */
dnp_status dnp_mpt_text(const dnp_mpt_run *r, char **out, dnp_error *err);
dnp_status dnp_mpt_json(const dnp_mpt_run *r, char **out, dnp_error *err);

/* The paper's evaluation on our model (opaque): Figs. 6, 7, 12, a real
 * intra-tile x data-parallel run, Figs. 15, 16, 17 and sensitivities. */
typedef struct dnp_mpt_repro dnp_mpt_repro;
/* Run it.  On success *out owns the result (dnp_mpt_repro_free).  Errors:
 * DNP_ERR_NOMEM, DNP_ERR_INTERNAL.  Deterministic; seconds (the real run
 * uses 4 threads). */
dnp_status dnp_mpt_reproduce(dnp_mpt_repro **out, dnp_error *err);
void dnp_mpt_repro_free(dnp_mpt_repro *r);
/* Its figures beside the paper's as text and as JSON; *out as
 * dnp_mpt_text.  O(figures). */
dnp_status dnp_mpt_repro_text(const dnp_mpt_repro *r, char **out, dnp_error *err);
dnp_status dnp_mpt_repro_json(const dnp_mpt_repro *r, char **out, dnp_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* DNNPAR_PUBLIC_ARCH_H */
