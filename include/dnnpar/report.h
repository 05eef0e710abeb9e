/*
 * dnnpar/report.h - validation against measured runs, and the pictures (gnuplot),
 * Graphviz DOT and exports (JAX, DTensor, ASTRA-sim) of models and plans
 * (src/report/, docs/validation.md, docs/reports.md).
 *
 * Part of libdnnpar's public API: include <dnnpar.h>, which includes each
 * header under dnnpar/, or this header alone (it includes what it needs).  Its
 * conventions are dnnpar.h's (status and error record, dnp_X_new / dnp_X_free
 * pairs, units in names; docs/library.md).
 * Ownership: a dnp_validation is the caller's, freed with
 * dnp_validation_free (its rows' strings with it); export texts are freed
 * with dnp_free; arrays passed in are borrowed for the call.
 */
#ifndef DNNPAR_PUBLIC_REPORT_H
#define DNNPAR_PUBLIC_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"

/* Default visibility for what this header declares (core.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------ */
/* Validation against measured runs (src/report/validate.c)             */
/* ------------------------------------------------------------------ */

/* One row of a validation CSV (docs/validation.md) with its prediction.
 * Every string is NUL-terminated, of any length, and owned by the
 * dnp_validation holding the row (freed by dnp_validation_free). */
typedef struct {
    char *id;
    char *stack;              /* software stack: framework and version */
    char *role;               /* "calibrate" or "validate" */
    char *model, *cluster, *precision, *search;
    int line;                 /* the row's line in the file (the header is line 1) */
    int64_t batch;
    double measured_step_s;
    double predicted_step_s;  /* NAN if the row could not be predicted */
    double error_pct;         /* 100 (predicted - measured) / measured */
    double compute_eff;       /* efficiency used: fitted, else the device's or the model default */
    int calibrated;           /* 1: compute_eff was fitted on this stack's calibrate rows */
    double straggler_pace;    /* the prediction's straggler factor (dnp_plan_summary; 1 = none) */
    char *config;             /* search "config": the configuration from the columns tp, pp,
                               * dp, microbatch, interleave, recompute, seq_par, layers, zero,
                               * schedule, grad_dtype as "KEY=VALUE,..." for
                               * dnp_config3d_parse; "" otherwise */
    char note[600];           /* why a row was not predicted, or a remark on its prediction;
                               * "" if none */
    /* The predicted step's parts (NAN where the row's search has no such
     * figure, or the row was not predicted).  search "config", from
     * dnp_config3d_result: busy_s (the busiest pipeline rank's compute
     * stream: kernels, the tensor-parallel collectives it waits for, the
     * gradient all-reduce, the optimizer) + bubble_s = the step; tp_comm_s,
     * dp_comm_s, p2p_s (one pipeline message), optimizer_s.  Other searches,
     * from dnp_plan_summary: compute_s (compute on the critical path) and
     * exposed_comm_s (communication the critical device's compute waits
     * for).  Both: mem_bytes (the fullest device's footprint: weights,
     * gradients, optimizer state, activations), mem_capacity_bytes (that
     * device's memory) and fits (1 within capacity, 0 not, -1 not
     * predicted). */
    double busy_s, bubble_s, tp_comm_s, dp_comm_s, p2p_s, optimizer_s;
    double compute_s, exposed_comm_s;
    double mem_bytes, mem_capacity_bytes;
    int fits;
} dnp_validation_row;

/* A stack's fitted parameters: one fit per stack, device type and
 * precision, by least squares on log step times over its calibrate rows
 * (docs/validation.md "Calibration").  A parameter the rows do not
 * constrain is not fitted and reads 0 (the model default applies). */
typedef struct {
    const char *stack;        /* the stack of its rows (owned by the dnp_validation) */
    char device[32], precision[16];
    double compute_eff;       /* the GEMM ceiling, fraction of peak; 0: not fitted */
    double host_kernel_s;     /* host time to issue one kernel (s); 0: not fitted */
    int eff_at_bound;         /* 1: the ceiling sits at 1 (slower than measured at peak) */
    double eff_rejected;      /* > 0: one row, whose fit of the ceiling alone (this value)
                               * fell below a physical ceiling, so the host time was
                               * fitted instead (docs/validation.md "Calibration") */
    int n_rows;               /* calibrate rows it was fitted on */
    double rms_log_error;     /* residual over those rows */
} dnp_calibration;

typedef struct {
    int n_rows;
    dnp_validation_row *rows;
    int n_fits;
    dnp_calibration *fits;
    int n_validate;           /* validate rows predicted */
    int n_not_predicted;      /* rows of either role without a prediction (see their notes) */
    double mape_pct;          /* mean absolute percentage error over them (NAN if none) */
    double max_abs_error_pct;
    double spearman;          /* rank correlation of predicted and measured (NAN if < 2) */
    /* Header columns validate neither reads nor knows as context (source,
     * note), in file order, each named once (owned by the dnp_validation). */
    int n_unread_columns;
    char **unread_columns;
} dnp_validation;

/* Read the CSV at `path` (columns in docs/validation.md: id, stack, role,
 * model, cluster, batch, precision, search, measured_step_s; for search
 * "config" the configuration columns; a UTF-8 byte order mark is skipped;
 * lines and fields of any length), fit each stack's compute efficiency
 * per device type and precision on its calibrate rows (unless calibrate
 * == 0: preset defaults), predict every row with the default model, and
 * summarise the validate rows.  A row dnnpar cannot run (model, cluster,
 * search or configuration refused by the loaders or the simulator) is
 * kept with the reason in its note and no prediction; the others still
 * run.  The input is refused (DNP_ERR_INPUT, naming file:line and the
 * column) for a missing or duplicate column, a header column without a
 * name, a row whose field count differs from the header's, a batch that
 * is not decimal digits in 1 .. 2^40, a measured_step_s that is not a
 * plain decimal number in [1e-9, 1e9] s, or a configuration value holding
 * ',' or '='.  On success *out is owned by the caller: free it with
 * dnp_validation_free.  O(rows x plan time x fit iterations). */
dnp_status dnp_validate_csv(const char *path, int calibrate, dnp_validation **out,
                            dnp_error *err);
/* dnp_validate_csv under a time limit: every row's plan or simulation
 * reads limit's one deadline (limit->time_limit_s from
 * limit->time_limit_from_s, the command's start; the other fields are not
 * read; NULL = none), and a validation that passes it fails with
 * DNP_ERR_INPUT ("time limit of S s reached while validating FILE ...")
 * rather than leave rows out.  O(as dnp_validate_csv), bounded by it. */
dnp_status dnp_validate_csv_limited(const char *path, int calibrate,
                                    const dnp_plan_options *limit, dnp_validation **out,
                                    dnp_error *err);
/* From memory (see dnp_load_accpar_text_buffer). */
dnp_status dnp_validate_csv_buffer(const char *data, size_t len_bytes, const char *name,
                                   int calibrate, dnp_validation **out, dnp_error *err);
/* Frees v, its rows, fits and every string they hold.  NULL is a no-op. */
void dnp_validation_free(dnp_validation *v);

/* ------------------------------------------------------------------ */
/* Pictures and exports of models and plans (src/report/report_api.c,   */
/* docs/reports.md)                                                     */
/* ------------------------------------------------------------------ */

/* Picture format from a file name: DNP_PLOT_PNG for "*.png", DNP_PLOT_SVG
 * for "*.svg" (case-insensitive), -1 for anything else: lets a command
 * refuse a bad name before it plans.  O(length). */
enum { DNP_PLOT_PNG = 0, DNP_PLOT_SVG = 1 };
int dnp_plot_format(const char *path);

/* `compare --plot`: bars of each scheme's speedup, labelled with the
 * speedup and the step time, titled with the model and cluster.  names[i],
 * step_time_s[i] (seconds) and speedup[i] (times faster than the baseline)
 * for i < n, 1 <= n <= 64; fits[i] 0 marks a plan over the memory limit
 * (drawn grey, "over memory" under its figures; fits NULL: every plan
 * fits); everything is borrowed.  Writes `path` (.png or
 * .svg) through dnp_output.  Errors: DNP_ERR_INPUT (a name that is not
 * .png/.svg, bad arguments), DNP_ERR_IO (gnuplot missing or failing - its
 * first stderr line quoted - or the file cannot be written),
 * DNP_ERR_NOMEM.  Runs gnuplot once. */
dnp_status dnp_plot_compare(const char *path, const char *model, const char *cluster, int n,
                            const char *const *names, const double *step_time_s,
                            const double *speedup, const int *fits, dnp_error *err);

/* `plan --plot`: the decided ops (x, plan order) by searched levels (y),
 * each cell coloured by the op's type at that level, one panel per
 * distinct path of a heterogeneous plan (at most 4).  model, cluster and
 * scheme only label the picture; batch 0 leaves it out.  Errors as
 * dnp_plot_compare.  O(nodes x levels x panels) plus one gnuplot run. */
dnp_status dnp_plot_plan(const char *path, const dnp_plan *p, const char *model,
                         const char *cluster, const char *scheme, int64_t batch, dnp_error *err);

/* `scale --plot`: throughput (samples/s, log scale) and scaling
 * efficiency (%) against the number of devices (log scale): n points,
 * 1 <= n <= 256, arrays borrowed.  Errors as dnp_plot_compare. */
dnp_status dnp_plot_scale(const char *path, const char *model, const char *node, int n,
                          const double *devices, const double *throughput_per_s,
                          const double *efficiency, dnp_error *err);

/* `simulate --config --plot`, `plan --search 3d --plot`: the timeline of a
 * simulated step from its Chrome trace text (dnp_config3d_trace,
 * dnp_plan_trace_json; borrowed): one row per stream (process and thread
 * of the trace), one box per event from its start to its end, coloured by
 * forward, backward, pipeline send, gradient all-reduce, optimizer or other
 * compute / communication (docs/reports.md, "Timelines"); `title` labels
 * it.  Errors as dnp_plot_compare, and DNP_ERR_INPUT for a text that is
 * not a trace or one past 100,000 events or 256 streams.  O(events x
 * streams) plus one gnuplot run. */
dnp_status dnp_plot_trace(const char *path, const char *trace_json, const char *title,
                          dnp_error *err);

/* The model graph g in Graphviz DOT to `path` ("-" = standard output; a
 * name ending in .svg or .png: Graphviz's picture of it), coloured by plan
 * p's types when p (planned on g) is not NULL, edges labelled with the
 * bytes they carry per step at the plan's batch (batch 1, 4-byte elements
 * without a plan); see docs/reports.md.  Errors: DNP_ERR_IO (cannot write;
 * dot failed), DNP_ERR_INPUT (dot missing), DNP_ERR_NOMEM.
 * O(ops + edges + plan nodes x ops). */
dnp_status dnp_dot_write(const char *path, const dnp_graph *g, const dnp_plan *p,
                         dnp_error *err);

/* dnp_dot_write with the edges' bytes per step at `batch` samples of
 * bytes_per_elem-byte elements (<= 0: the plan's batch and activation
 * element size, or 1 and 4 without a plan; docs/reports.md).  A path
 * ending in .svg or .png receives Graphviz's picture of the graph (its
 * `dot` program; missing: DNP_ERR_INPUT naming the Debian package).
 * Errors as dnp_dot_write.  O(ops + edges + plan nodes x ops), plus one
 * dot run. */
dnp_status dnp_dot_write_batch(const char *path, const dnp_graph *g, const dnp_plan *p,
                               int64_t batch, int bytes_per_elem, dnp_error *err);

/* Export formats of `dnnpar export` (docs/reports.md). */
typedef enum {
    DNP_EXPORT_JAX = 0, /* JAX PartitionSpec per tensor (Python) */
    DNP_EXPORT_DTENSOR, /* PyTorch DTensor placements per tensor (Python) */
    DNP_EXPORT_ASTRA,   /* ASTRA-sim 1.0 text workload */
    DNP_EXPORT_COUNT
} dnp_export_format;
/* "jax", "dtensor", "astra" ("?" out of range) and back (-1 if unknown).
 * O(1). */
const char *dnp_export_name(dnp_export_format f);
int dnp_export_from_name(const char *s);

/* The text of plan p (made by dnp_plan_run(g, cl, opt)) in format f.  On
 * success *out owns a NUL-terminated string (dnp_free).  Errors:
 * DNP_ERR_INPUT (a plan over the memory limit, refused by
 * dnp_plan_check_memory with plan's message; a plan the format cannot
 * describe: a device tree deeper than 31 levels, or an unknown format),
 * DNP_ERR_INTERNAL (plan and graph disagree), DNP_ERR_NOMEM.
 * O(nodes x (levels + ops) x paths) plus the memory check. */
dnp_status dnp_export_text(dnp_export_format f, const dnp_graph *g, const dnp_cluster *cl,
                           const dnp_plan_options *opt, const dnp_plan *p, char **out,
                           dnp_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* DNNPAR_PUBLIC_REPORT_H */
