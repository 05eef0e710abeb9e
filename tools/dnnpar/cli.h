/*
 * cli.h - shared pieces of the dnnpar command-line tool: option parsing,
 * error exits and output files.  Commands use only the public API.
 */
#ifndef DNNPAR_CLI_H
#define DNNPAR_CLI_H

#include "dnnpar.h"

#include <jansson.h>
#include <stdio.h>

/* Exit statuses: 0 success, 1 runtime failure, 2 usage or input error. */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* A parsed command line: positionals and --key value / --key=value / --flag. */
#define CLI_MAX_ARGS 32
typedef struct {
    int n_pos;
    const char *pos[CLI_MAX_ARGS];
    int n_opt;
    const char *key[CLI_MAX_ARGS];
    const char *val[CLI_MAX_ARGS]; /* NULL for a flag */
    int used[CLI_MAX_ARGS];
    const char *arg[CLI_MAX_ARGS]; /* the option as written, for messages */
    int unknown[CLI_MAX_ARGS];     /* cli_parse_loose: not in its spec */
    int missing[CLI_MAX_ARGS];     /* cli_parse_loose: a valued option without its value */
    int list_options;              /* cli_parse_loose: --list-options was given */
} cli_args;

/* Option spec: names of options that take a value and of flags. */
typedef struct {
    const char *const *valued; /* NULL-terminated */
    const char *const *flags;  /* NULL-terminated */
} cli_spec;

/* Parse argv[first..argc-1].  Prints a one-line error naming the option and
 * returns EXIT_USAGE on unknown options or a missing value, else 0. */
int cli_parse(int argc, char **argv, int first, const cli_spec *spec, const char *cmd,
              cli_args *out);
/* The common start of a command: parse, answer --help with `help` (sets
 * *done), and require exactly n_pos positionals (described by `what`).
 * Returns an exit status; 0 with *done == 0 means go on. */
int cli_begin(int argc, char **argv, const cli_spec *spec, const char *cmd, const char *help,
              int n_pos, const char *what, cli_args *a, int *done);
/* A command whose options depend on one of them (plan: --search pase|mcmc
 * takes PaSE's options): parse argv once against the union of its specs
 * with cli_parse_loose, which records options outside `spec`, a missing
 * value and --list-options instead of failing; read the deciding option
 * with cli_get; then cli_begin_parsed checks the parse against the spec
 * that applies (cli_check: the first offending option in argv order gets
 * cli_parse's message; --list-options lists that spec and exits), answers
 * --help and counts positionals as cli_begin does.  O(options x spec). */
int cli_parse_loose(int argc, char **argv, int first, const cli_spec *spec, const char *cmd,
                    cli_args *out);
int cli_check(const cli_args *a, const cli_spec *spec, const char *cmd);
int cli_begin_parsed(const cli_args *a, const cli_spec *spec, const char *cmd, const char *help,
                     int n_pos, const char *what, int *done);
/* The value of --key, or NULL. */
const char *cli_get(const cli_args *a, const char *key);
int cli_flag(const cli_args *a, const char *key);

/* Parse a positive integer option value (1 .. max); prints an error and
 * returns -1 if invalid. */
long long cli_positive(const char *cmd, const char *opt, const char *text, long long max);

/* The performance-model options shared by plan, compare, simulate, scale
 * and validate: list these names in a command's cli_spec. */
#define CLI_PERF_VALUED "precision", "cost-model", "optimizer", "memory-limit"
#define CLI_PERF_FLAGS "no-overlap", "no-stragglers"
#define CLI_PERF_HELP                                                                     \
    "  --precision P  fp32, tf32, fp16, bf16 or amp (default: the device's dtype)\n"       \
    "  --cost-model M default (roofline devices, collectives on link tiers, step\n"       \
    "                 simulator) or accpar-paper (the AccPar paper's accounting)\n"        \
    "  --optimizer O  momentum, sgd or adam (default: adam for attention models)\n"       \
    "  --memory-limit SIZE  memory per device, e.g. 16GB, 512MB (default: each\n"        \
    "                 device's capacity); plans that do not fit are refused\n"           \
    "  --no-overlap   gradient all-reduce after the backward pass, not overlapped\n"       \
    "  --no-stragglers  every device at its nominal speed (default: GPU kernels\n"       \
    "                 wait for the expected slowest GPU, Sinha et al. SC'22)\n"
/* --time-limit SECONDS: the default and the largest accepted (one year);
 * one deadline for the whole command (cli_deadline). */
#define CLI_TIME_LIMIT_DEFAULT_S 600.0
#define CLI_TIME_LIMIT_MAX_S 31536000.0
#define CLI_TIME_LIMIT_HELP                                                               \
    "  --time-limit S wall-time limit of the whole command in seconds (default 600):\n"  \
    "                 AccPar, MCMC and the 3D search then report the best plan found\n"   \
    "                 so far and say so; the PaSE DP, or a step not simulated by\n"       \
    "                 then, stops with exit status 2 (docs/cli.md \"Time limits\")\n"
/* --time-limit of the commands bounded as a whole (simulate, export,
 * scale): the help line. */
#define CLI_RUN_LIMIT_HELP                                                                \
    "  --time-limit S wall-time limit of the whole command in seconds (default 600);\n"  \
    "                 past it: exit status 2, nothing written (docs/cli.md, \"Time\n"     \
    "                 limits\")\n"
/* Read --time-limit from `a` into *seconds (left as is when absent): a
 * positive decimal number of seconds up to CLI_TIME_LIMIT_MAX_S.  Prints
 * the error; returns 0 or EXIT_USAGE.  O(1). */
int cli_time_limit(const char *cmd, const cli_args *a, double *seconds);
/* The command's start (main calls cli_command_started first): the
 * dnp_clock_s() reading every --time-limit counts from, so a command's
 * library calls share one deadline (dnp_plan_options.time_limit_from_s;
 * docs/cli.md "Time limits").  O(1). */
void cli_command_started(void);
double cli_command_start_s(void);
/* --time-limit of a command bounded as a whole: opt->time_limit_s (default
 * CLI_TIME_LIMIT_DEFAULT_S) from the command's start.  Prints the error;
 * returns 0 or EXIT_USAGE.  O(1). */
int cli_deadline(const char *cmd, const cli_args *a, dnp_plan_options *opt);
/* The help line of --skip-unknown, which every command taking a MODEL has. */
#define CLI_SKIP_UNKNOWN_HELP                                                             \
    "  --skip-unknown ONNX: unknown operators become free element-wise ops\n"
/* Read the performance-model options from `a` into opt (defaults kept for
 * those absent).  Prints the error; returns an exit status. */
int cli_perf_options(const char *cmd, const cli_args *a, dnp_plan_options *opt);
/* --grad-dtype fp32|default (Megatron-LM configurations: DeepSpeed's
 * fp32_allreduce) into opt->grad_fp32.  Returns 0 or EXIT_USAGE after
 * printing the error. */
int cli_grad_dtype(const char *cmd, const cli_args *a, dnp_plan_options *opt);
/* --megatron-version current|legacy (or core_r0.10 / core_r0.9: the
 * interleaved schedule's micro-batch rule, docs/config3d.md) into
 * opt->megatron_version.  Returns 0 or EXIT_USAGE after printing the
 * error. */
int cli_megatron_version(const char *cmd, const cli_args *a, dnp_plan_options *opt);
/* Parse a memory size: a positive decimal number with a unit B, KB, MB,
 * GB, TB (powers of 10) or KiB, MiB, GiB, TiB (powers of 2).  Prints the
 * error; returns 0 or EXIT_USAGE. */
int cli_parse_size(const char *cmd, const char *opt, const char *text, double *bytes);

/* Print "dnnpar CMD: message" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A progress line on stderr ("\r" overwritten), only when stderr is a
 * terminal and the work started at start_s (cli_now_s) has lasted more
 * than a second; cli_progress_done clears it. */
double cli_now_s(void);
void cli_progress(const char *cmd, double start_s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void cli_progress_done(double start_s);

/* Map a library status to an exit status. */
int cli_exit_for(dnp_status st);

/* Write `root` as JSON to `path` ("-" = stdout) through cli_write_text.
 * Steals the reference to root.  Returns an exit status. */
int cli_write_json(const char *cmd, const char *path, json_t *root);

/* A library report of an object (run, reproduction) as a new text the
 * caller frees with dnp_free. */
typedef dnp_status (*cli_report_fn)(const void *obj, char **out, dnp_error *err);
/* Write obj's report json_of to `json` ("-" = stdout) if json is not NULL,
 * first, so that if it fails nothing else is printed; then its report
 * text_of on standard output unless json is "-".  Prints the error;
 * returns an exit status.  O(size of the reports). */
int cli_write_reports(const char *cmd, const void *obj, const char *json, cli_report_fn json_of,
                      cli_report_fn text_of);

/* Write the plan's simulated step as a Chrome trace to `path` ("-" =
 * stdout).  Returns an exit status. */
int cli_write_trace(const char *cmd, const char *path, const dnp_plan *p);

/* Write text to `path` ("-" = stdout) through dnp_output (dnnpar.h,
 * "Output files": regular files replaced atomically, devices, FIFOs and
 * symlinks written in place), adding a final newline if missing.  Prints
 * the error; returns an exit status (1 when the write fails).  O(length). */
int cli_write_text(const char *cmd, const char *path, const char *text);

/* The values of --precision, plan's --search and export's --format, NULL
 * ended: the parsers' "known" lists and `dnnpar --list-values` (shell
 * completion) read these, so the two cannot drift. */
extern const char *const cli_precisions[];
extern const char *const cli_searches[];
extern const char *const cli_export_formats[];

/* Load a model by zoo name or file path (.onnx, .json, .txt); honours
 * --skip-unknown in `a` (may be NULL).  Prints the error.  Returns an exit
 * status. */
int cli_load_model(const char *cmd, const char *name, const cli_args *a, dnp_graph **out);
/* Load a model for the Megatron-LM (3D) path: a zoo transformer as it is;
 * any other model recognised by its structure (dnp_graph_match_transformer)
 * is replaced by the zoo transformer of its shape, which is what
 * Megatron-LM runs under the configuration, and a note on standard error
 * says which ("dnnpar CMD: note: FILE is planned as gpt(...)").  Prints the
 * error (not recognised, or not loadable); *out is NULL then.  Returns an
 * exit status.  O(size of the model). */
int cli_load_transformer(const char *cmd, const char *name, const cli_args *a, dnp_graph **out);
/* The same for a model already loaded into *out (named `name` in the
 * note): *out is replaced (the old graph freed) when recognised, freed and
 * NULL on an error.  Returns an exit status. */
int cli_as_transformer(const char *cmd, const char *name, dnp_graph **out);
/* cli_as_transformer with *out's match already made (m; NULL: match it
 * here), so a caller that matched to decide matches once.  Returns an exit
 * status. */
int cli_as_transformer_with(const char *cmd, const char *name, dnp_graph **out,
                            const dnp_transformer_match *m);
/* Parse --cluster: a spec, or a cluster JSON file (*.json, or - for
 * standard input), then dnp_cluster_check (its network kinds); the error
 * in *err, nothing printed, *out written only on success.  O(spec). */
dnp_status cli_read_cluster(const char *spec, dnp_cluster *out, dnp_error *err);
/* The same, printing the error.  Returns an exit status. */
int cli_load_cluster(const char *cmd, const char *spec, dnp_cluster *out);
/* The directory holding Python package `package` (dnnpar_torch,
 * dnnpar_profile): $DNNPAR_PYTHONPATH, else next to the binary, ../python
 * (build tree) or ../share/dnnpar/python (make install).  0 and buf (n
 * bytes) filled, or -1.  O(1). */
int cli_find_python_package(const char *package, char *buf, size_t n);

/* "unknown WHAT 'VALUE'; did you mean 'X'? (known: A, B, ...)" on stderr,
 * the suggestion the nearest name of `known` (NULL-terminated) when one is
 * close (dnp_suggest), else none.  Returns EXIT_USAGE.  O(names x len^2). */
int cli_unknown_name(const char *cmd, const char *what, const char *value,
                     const char *const *known);

/* Type or layout letter of a plan node state: I, II, III, R or B, C, R. */
const char *cli_state_name(int weighted, int state);

/* A count with an SI prefix and 3 significant digits: "1.85 G", "235 M", "12". */
void cli_fmt_si(double x, char *buf, size_t n);

/* The canonical spec of cluster c in full (dnp_cluster_format), as new
 * text the caller frees with dnp_free; NULL on allocation failure.
 * O(types). */
char *cli_cluster_spec(const dnp_cluster *c);

/* Human-friendly time: "12.345 ms", "1.234 s", "56.7 us". */
void cli_fmt_time(double s, char *buf, size_t n);
/* One unit for a column of times: the one cli_fmt_time picks for the
 * column's largest value max_s ("s", "ms" or "us"); *per_s is the factor
 * (value in the unit = seconds x *per_s).  O(1). */
const char *cli_time_unit(double max_s, double *per_s);

/* A text table whose columns are sized to their content (cli_table.c).
 * cli_table_new copies the header row (n_cols cells; `align` gives 'l' or
 * 'r' per column and must outlive the table); NULL on allocation failure.
 * cli_table_add copies a row (NULL cells print empty); 0 or -1.
 * cli_table_print writes the rows, columns two blanks apart (one if the
 * table is wider than max_width characters) and no trailing blanks (a row's
 * trailing empty cells print nothing); if it
 * is still too wide, column shrink_col (-1: none) is narrowed to fit, its longer cells cut in the
 * middle with '~'.  Returns 1 if a cell was cut (print a legend), else 0.
 * O(cells). */
typedef struct cli_table cli_table;
cli_table *cli_table_new(int n_cols, const char *align, const char *const *header);
int cli_table_add(cli_table *t, const char *const *cells);
/* Blanks printed before every row (default 0); max_width includes them. */
void cli_table_set_indent(cli_table *t, int indent);
int cli_table_print(const cli_table *t, FILE *f, int max_width, int shrink_col);
void cli_table_free(cli_table *t);
/* Tables are at most this wide by default (issue 15). */
#define CLI_MAX_WIDTH 119

/* Text broken at blanks into lines of at most CLI_MAX_WIDTH columns (issue
 * 15: widths under 120 by default), written to f and ended with a newline.
 * `col` is how many columns the current line already holds (what was printed
 * before the text); each continuation line starts with `cont` (e.g. "  ", or
 * "#   " in a commented header).  A word longer than a line is not cut; a
 * '\n' in the text starts a new line at column 0 (its blanks kept).
 * UTF-8 continuation bytes take no column.  cli_wrapf formats first (at
 * most 4 KB).  O(length). */
void cli_wrap(FILE *f, int col, const char *cont, const char *text);
void cli_wrapf(FILE *f, int col, const char *cont, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* What a plan report names besides the plan itself. */
typedef struct {
    const char *model;   /* graph name */
    const char *source;  /* the MODEL argument (zoo name or file) */
    long long batch;
    const dnp_cluster *cluster;
    const char *search;  /* scheme name, or "given" for a strategy file */
    const char *reason;  /* plan --search auto: why it chose `search` (shown first); else NULL */
} cli_plan_info;

/* The version of the plan JSON every search writes (docs/formats.md "Plan"). */
#define CLI_PLAN_JSON_VERSION 3
/* The summary every plan JSON starts with (docs/formats.md "Plan"):
 * version, model, model_source, cluster (spec, or null), batch, search
 * (and search_reason under auto), cost_model, precision, optimizer,
 * step_time_s, fits and memory {peak_bytes_max, capacity_bytes, fits};
 * step_time_s < 0 writes null for the three (nothing simulated).  The
 * caller adds "strategy" and the search's own figures.  New reference, or
 * NULL out of memory.  O(1). */
json_t *cli_plan_summary_json(const cli_plan_info *info, const char *cluster_spec,
                              const char *cost_model, const char *precision,
                              const char *optimizer, double step_time_s, int fits,
                              double peak_bytes, double capacity_bytes);

/* The distinct root-to-leaf paths of a plan (a path branches only where
 * the halves differ) as branch bits; returns the count (at most max). */
int cli_plan_paths(const dnp_plan *p, int levels, unsigned *paths, int max);
/* The plan report on stdout, and as JSON (new reference). */
void cli_plan_text(const dnp_plan *p, const cli_plan_info *info);
json_t *cli_plan_json(const dnp_plan *p, const cli_plan_info *info);
/* The straggler lines of a plan's report ("" when its factor is 1): which
 * measured input the step time uses.  Writes at most n bytes. */
void cli_straggler_note(const dnp_plan_summary *s, char *buf, size_t n);
/* {"pace", "devices", "source"} or NULL when the factor is 1 (new reference). */
json_t *cli_straggler_json(const dnp_plan_summary *s);

/* The report of a Megatron-LM configuration and its simulated step on
 * cluster cl (text on stdout unless json is "-", JSON to json if given);
 * stats (may be NULL) adds the search's counts and layout; given (may be
 * NULL: cl) is the cluster the user gave when the search chose cl among
 * its layouts (the mixed-cluster baselines are on it).  Returns an exit
 * status. */
int cli_config3d_report(const char *cmd, const dnp_graph *g, const dnp_cluster *cl,
                        const dnp_cluster *given, int64_t batch,
                        const dnp_plan_options *opt, const dnp_config3d *cfg,
                        const dnp_config3d_result *res, const dnp_config3d_stats *stats,
                        const char *json, const cli_plan_info *info);

/* The step of configuration cfg of g on cl as Chrome trace events to
 * trace_path and as a timeline picture (dnp_plot_trace) to plot_path,
 * either may be NULL; `title` labels the picture.  Returns an exit status
 * (the error printed as cmd's). */
int cli_config3d_pictures(const char *cmd, const dnp_graph *g, const dnp_cluster *cl,
                          int64_t batch, const dnp_plan_options *opt, const dnp_config3d *cfg,
                          const char *trace_path, const char *plot_path, const char *title);

/* Subcommands. */
int cmd_info(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_simulate(int argc, char **argv);       /* cmd_simulate.c */
int cmd_run_torch(int argc, char **argv);      /* cmd_torch.c: dnnpar run-torch */
int cmd_profile(int argc, char **argv);        /* cmd_profile.c: dnnpar profile */
int cmd_validate(int argc, char **argv);       /* cmd_validate.c */
int cmd_scale(int argc, char **argv);          /* cmd_scale.c */
int cmd_sweep(int argc, char **argv);          /* cmd_sweep.c */
int cmd_comm(int argc, char **argv);           /* cmd_comm.c: dnnpar comm OP */
int cmd_export_model(int argc, char **argv);   /* cmd_io.c */
int cmd_export_cluster(int argc, char **argv); /* cmd_io.c */
/* Module commands, each in its own file (argv[1] is the command). */
int cmd_synergy(int argc, char **argv);        /* cmd_synergy.c: dnnpar synergy */
int cmd_mpt(int argc, char **argv);            /* cmd_mpt.c: dnnpar mpt */
/* cmd_pase.c: dnnpar plan --search pase|mcmc, from cmd_plan's parse (checked here
 * against cli_plan_pase_spec, PaSE's options). */
int cmd_plan_pase(const cli_args *a);
extern const cli_spec cli_plan_pase_spec;
/* dnnpar reproduce PAPER: argv[2] is the paper's name. */
int reproduce_synergyflow(int argc, char **argv); /* cmd_synergy.c */
int reproduce_mpt(int argc, char **argv);         /* cmd_mpt.c */
int reproduce_pase(int argc, char **argv);        /* cmd_pase.c */

#endif
