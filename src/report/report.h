/*
 * report.h - pictures and exports of models and plans (internal to
 * libdnnpar; the CLI includes it as "report/report.h").
 *
 *   plots    gnuplot, run as a child process on a generated script
 *            (plot.c builds the scripts, gnuplot.c runs them)
 *   DOT      the model graph for Graphviz, coloured by a plan (dot.c)
 *   exports  a plan as JAX PartitionSpecs, PyTorch DTensor placements
 *            (export.c) or an ASTRA-sim text workload (astra.c)
 *
 * What each output shows and its conventions: docs/reports.md.
 * Every writer goes through dnp_output (dnnpar.h, "Output files"): a
 * regular file is replaced atomically, so a failure leaves no partial file;
 * devices, FIFOs and symbolic links are written in place; "-" means
 * standard output where a text output allows it.  Output is
 * deterministic: same inputs, same bytes.
 */
#ifndef DNNPAR_REPORT_H
#define DNNPAR_REPORT_H

#include "dnnpar.h"
#include "core/rbuf.h"

#include <stdarg.h>
#include <stddef.h>

/* ------------------------------------------------------------------ */
/* What the CLI calls                                                   */
/* ------------------------------------------------------------------ */

/* Picture format from a file name: DNP_PLOT_PNG (include/dnnpar/report.h) for "*.png",
 * DNP_PLOT_SVG for "*.svg" (case-insensitive), -1 for anything else.
 * Lets a command reject a bad name before it plans.  O(length). */
int report_plot_format(const char *path);

/* `compare --plot`: bars of each scheme's speedup, labelled with the
 * speedup and the step time, titled with the model and cluster.
 * names[i], step_time_s[i] (seconds) and speedup[i] (times faster than the
 * baseline, normally data parallelism) for i < n, 1 <= n <= 64.
 * Writes `path` (.png or .svg) atomically.  Errors: DNP_ERR_INPUT for a
 * name that is not .png/.svg or bad arguments, DNP_ERR_IO when gnuplot is
 * missing or fails (its first stderr line in the message) or the file
 * cannot be written, DNP_ERR_NOMEM.  Runs gnuplot once. */
dnp_status report_plot_compare(const char *path, const char *model, const char *cluster, int n,
                               const char *const *names, const double *step_time_s,
                               const double *speedup, const int *fits, dnp_error *err);

/* `plan --plot`: a map of decided ops (x, in plan order) by searched levels
 * (y, h0 at the top), each cell coloured by the op's type at that level
 * (I, II, III; joins B, C, R in a lighter palette), the ratio of each level
 * on the y labels; one panel per distinct path of a heterogeneous plan (at
 * most REPORT_PLOT_MAX_PANELS, then a note).  model, cluster and scheme
 * only label the picture; batch 0 leaves it out.  Errors as
 * report_plot_compare.  O(nodes x levels x panels) plus one gnuplot run. */
#define REPORT_PLOT_MAX_PANELS 4
dnp_status report_plot_plan(const char *path, const dnp_plan *p, const char *model,
                            const char *cluster, const char *scheme, int64_t batch, dnp_error *err);

/* `scale --plot`: throughput (left axis, samples/s, log scale) and
 * scaling efficiency (right axis, %) against the number of devices (log
 * scale), n points (1 <= n <= 256).  Errors as report_plot_compare. */
dnp_status report_plot_scale(const char *path, const char *model, const char *node, int n,
                             const double *devices, const double *throughput_per_s,
                             const double *efficiency, dnp_error *err);

/* `--dot FILE`: the model graph in Graphviz DOT ("-" = standard output),
 * or, for a path ending in .svg or .png, the picture Graphviz's `dot`
 * draws from it (report_render_child; `dot` missing: DNP_ERR_INPUT naming
 * the Debian package graphviz, no file left).  Every op is a node
 * labelled with its name, kind and per-sample output shape; edges carry
 * the tensor's per-sample shape and its bytes per step: elements x batch
 * x bytes_per_elem (batch <= 0: the plan's, or 1 without a plan;
 * bytes_per_elem <= 0: the plan's activation element size, or 4).  With a
 * plan (p may be NULL), conv/FC/embedding layers and joins are filled with
 * the colour of their type at level 0 and list their type per level along
 * the first path ("I I II III"), with a legend.  p must have been planned
 * on g.  Errors: DNP_ERR_IO (cannot write; dot failed), DNP_ERR_INPUT,
 * DNP_ERR_NOMEM.  O(ops + edges + plan nodes x ops), plus one dot run. */
dnp_status report_dot_write(const char *path, const dnp_graph *g, const dnp_plan *p,
                            int64_t batch, int bytes_per_elem, dnp_error *err);

/* Export formats of `dnnpar export`: the public dnp_export_format
 * (include/dnnpar/report.h). */

/* Name ("jax", "dtensor", "astra") and back (-1 if unknown). */
const char *report_export_name(dnp_export_format f);
int report_export_from_name(const char *s);

/* The text of plan p (made by dnp_plan_run(g, cl, opt)) in format f.  On
 * success *out owns a NUL-terminated string (dnp_free()).  Errors:
 * DNP_ERR_INPUT (a plan the format cannot describe: a device tree deeper
 * than 31 levels), DNP_ERR_INTERNAL (plan and graph disagree),
 * DNP_ERR_NOMEM.  O(nodes x (levels + ops) x paths). */
dnp_status report_export(dnp_export_format f, const dnp_graph *g, const dnp_cluster *cl,
                         const dnp_plan_options *opt, const dnp_plan *p, char **out,
                         dnp_error *err);

/* ------------------------------------------------------------------ */
/* Building blocks shared by the report modules (and their tests)       */
/* ------------------------------------------------------------------ */

/* The text buffer (rbuf) is core/rbuf.h's. */

/* One tensor of `rank` dims sharded on strategy s's mesh (plan/strategy.h;
 * report/sharding_spec.c), appended to b: torch 0, a JAX PartitionSpec
 * P(...) naming per dim the axes in dim_axes[d] (bit k: s->axis[k]); torch
 * 1, DTensor placements, one per axis: Shard(d) for the (last) dim it
 * shards, Partial() if bit k of `partial`, else Replicate().  The caller
 * owns everything; only b is written.  O(rank x axes). */
struct plan_strategy;
void report_put_spec(rbuf *b, const struct plan_strategy *s, int torch, int rank,
                     const unsigned *dim_axes, unsigned partial);

/* How rbuf_put_escaped quotes untrusted text (op, model and device names).
 * Every mode first replaces control characters and bytes that are not
 * valid UTF-8 with '?'. */
typedef enum {
    ESC_TEXT = 0, /* as is (comments, titles) */
    ESC_GNUPLOT,  /* inside a gnuplot '...' string: ' doubled */
    ESC_DOT,      /* inside a DOT "..." string: " and \ escaped */
    ESC_PYTHON,   /* inside a Python "..." literal: " and \ escaped */
    ESC_TOKEN     /* one whitespace-free ASCII token: others become '_' */
} report_escape;
/* Append s (NULL: nothing) quoted for `mode`.  O(length). */
void rbuf_put_escaped(rbuf *b, const char *s, report_escape mode);

/* Run gnuplot (found on PATH, without init files) on `script`, a script
 * without `set terminal` / `set output`: the terminal is chosen from the
 * extension of `path` (.png: pngcairo if this gnuplot has it, else png;
 * .svg: svg), with `width_px` x `height_px` pixels.  gnuplot writes to
 * the dnp_output of `path` (a temporary file renamed to a regular path on
 * success and removed otherwise; a FIFO or device written in place).  Errors: DNP_ERR_INPUT (bad extension), DNP_ERR_IO
 * (gnuplot missing, failing - its first stderr line is quoted - or the file
 * cannot be written), DNP_ERR_NOMEM.  Waits for the child. */
dnp_status report_gnuplot_render(const char *path, const char *script, int width_px, int height_px,
                                 dnp_error *err);

/* Run argv[0] (found on PATH; argv NULL-terminated) with `input` on its
 * standard input and its standard output to the dnp_output of `path`
 * (replaced atomically on exit status 0, else removed).  Messages begin
 * "cannot <what> '<path>': "; a missing program is `missing` naming the
 * Debian `package`, a failing one DNP_ERR_IO quoting its first stderr
 * line.  Waits for the child. */
dnp_status report_render_child(const char *path, char *const argv[], const char *input,
                               const char *what, const char *package, dnp_status missing,
                               dnp_error *err);

/* The gnuplot script bodies (no terminal or output), for tests and for
 * report_plot_*; the caller frees them.  NULL on allocation failure.
 * *width_px / *height_px receive the picture's size. */
char *report_compare_script(const char *model, const char *cluster, int n, const char *const *names,
                            const double *step_time_s, const double *speedup, const int *fits,
                            int *width_px, int *height_px);
char *report_plan_script(const dnp_plan *p, const char *model, const char *cluster,
                         const char *scheme, int64_t batch, int *width_px, int *height_px);
char *report_scale_script(const char *model, const char *node, int n, const double *devices,
                          const double *throughput_per_s, const double *efficiency);
/* The timeline script of a Chrome trace (report_plot_timeline, timeline.c):
 * NULL with the reason in why[] for a text that is not a trace or is too
 * large to draw (the limits below), NULL with why[0] == 0 on allocation
 * failure.  O(events x streams). */
#define REPORT_TIMELINE_MAX_EVENTS 100000
#define REPORT_TIMELINE_MAX_ROWS 256
char *report_timeline_script(const char *trace_json, const char *title, int *width_px,
                             int *height_px, char *why, size_t why_n);
dnp_status report_plot_timeline(const char *path, const char *trace_json, const char *title,
                                dnp_error *err);
/* Pixels per layer column of the plan map: wide enough for "III" in the
 * cells' 9-point font (14 px squeezed it against the cell's edges). */
#define REPORT_PLAN_CELL_PX 18

/* The ASTRA-sim workload text of plan p (made by dnp_plan_run(g, cl,
 * opt)), appended to b (astra.c; format and units in docs/reports.md).
 * Errors: DNP_ERR_INTERNAL (plan and graph or cluster disagree),
 * DNP_ERR_NOMEM.  O(nodes x paths x depth). */
dnp_status report_astra_text(const dnp_graph *g, const dnp_cluster *cl, const dnp_plan_options *opt,
                             const dnp_plan *p, rbuf *b, dnp_error *err);

/* The DOT text of g coloured by p (NULL: no plan), edges' bytes as
 * report_dot_write says; caller frees; NULL on allocation failure. */
char *report_dot_text(const dnp_graph *g, const dnp_plan *p, int64_t batch, int bytes_per_elem);

/* ------------------------------------------------------------------ */
/* Walking a plan's device tree (planwalk.c)                            */
/* ------------------------------------------------------------------ */

/* Deepest device tree the exports describe: branch bits are an unsigned. */
#define REPORT_MAX_DEPTH 31
/* Most distinct paths the reports enumerate. */
#define REPORT_MAX_PATHS 256

/* Number of levels on the path `bits` down to a single device (the first
 * level whose node has no split).  O(depth). */
int report_path_depth(const dnp_plan *p, unsigned bits);

/* Distinct root-to-leaf paths, the first group at every level first: a
 * path branches at level k only where the two halves differ (the order of
 * `dnnpar plan`'s "path 1, path 2, ...").  Levels considered: 0 ..
 * max_levels-1 (never below a single device).  Writes at most max paths to
 * bits[] and returns how many it wrote, or max + 1 if there are more. */
int report_plan_paths(const dnp_plan *p, int max_levels, unsigned *bits, int max);

/* Devices in each group split at `level` on path `bits`, read from
 * dnp_plan_level_groups ("2xtpu-v2 | 1xtpu-v3+1xgpu"); type_of_one[s] is
 * the cluster type index of group s when it is a single device, else -1.
 * Returns 0, or -1 if the text cannot be read against cl. */
int report_level_split(const dnp_plan *p, const dnp_cluster *cl, int level, unsigned bits,
                       int64_t n_devices[2], int type_of_one[2]);

/* Shares of plan node `node` held at depth `depth` of path `bits`: batch
 * (fb), input dimension (fi) and output dimension (fo), as the planner
 * computes them (docs/time-model.md: "What a group holds").  All 1 at
 * depth 0.  O(depth). */
void report_path_shares(const dnp_plan *p, unsigned bits, int depth, int node, double *fb,
                        double *fi, double *fo);

/* The bytes per tensor element the planner uses for cluster cl (the
 * largest of its device types in use). */
int report_bytes_per_elem(const dnp_cluster *cl);

/* Type letter of a plan state: I, II, III (weighted) or B, C, R (joins);
 * "-" if out of range. */
const char *report_state_name(int weighted, int state);

#endif
