/* cli.c - option parsing, errors and output shared by the subcommands. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "dnnpar %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_unknown_name(const char *cmd, const char *what, const char *value,
                     const char *const *known)
{
    size_t n = 0;
    while (known[n] != NULL)
        n++;
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < n && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", known[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    const char *near = dnp_suggest(value, known, n);
    if (near != NULL)
        cli_error(cmd, "unknown %s '%s'; did you mean '%s'? (known: %s)", what, value, near,
                  list);
    else
        cli_error(cmd, "unknown %s '%s' (known: %s)", what, value, list);
    return EXIT_USAGE;
}

void cli_wrap(FILE *f, int col, const char *cont, const char *text)
{
    dnp_fmt_wrap(f, col, CLI_MAX_WIDTH, cont, text);
}

void cli_wrapf(FILE *f, int col, const char *cont, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cli_wrap(f, col, cont, buf);
}

static int in_list(const char *const *list, const char *s, size_t len)
{
    for (; list && *list; list++)
        if (strlen(*list) == len && strncmp(*list, s, len) == 0)
            return 1;
    return 0;
}

/* Short options: each stands for its long name where the command has it. */
static const struct {
    char letter;
    const char *name;
} short_opts[] = {{'h', "help"}, {'b', "batch"}, {'c', "cluster"}, {'o', "output"}, {'p', "p"}};

/* The hidden --list-options: print the command's options, one a line
 * ("--name=" takes a value), for shell completion and the docs check. */
static void list_options(const cli_spec *spec)
{
    for (const char *const *v = spec->valued; v && *v; v++)
        printf("--%s=\n", *v);
    for (const char *const *f = spec->flags; f && *f; f++)
        printf("--%s\n", *f);
}

/* "unknown option 'X'", with the nearest option name when one is close. */
static void unknown_option(const char *cmd, const cli_spec *spec, const char *arg)
{
    char word[64];
    const char *name = arg;
    while (*name == '-')
        name++;
    snprintf(word, sizeof word, "%.*s", (int)strcspn(name, "="), name);
    const char *cand[2 * CLI_MAX_ARGS];
    size_t n = 0;
    for (const char *const *v = spec->valued; v && *v && n < 2 * CLI_MAX_ARGS; v++)
        cand[n++] = *v;
    for (const char *const *f = spec->flags; f && *f && n < 2 * CLI_MAX_ARGS; f++)
        cand[n++] = *f;
    const char *near = dnp_suggest(word, cand, n);
    if (near != NULL)
        cli_error(cmd, "unknown option '%s'; did you mean '--%s'? (see dnnpar %s --help)", arg,
                  near, cmd);
    else
        cli_error(cmd, "unknown option '%s' (see dnnpar %s --help)", arg, cmd);
}

/* 1 if `a` looks like an option (not "-", not a negative number). */
static int looks_like_option(const char *a)
{
    return a[0] == '-' && a[1] != '\0' && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.';
}

/* The parser behind cli_parse and cli_parse_loose.  loose: options not in
 * spec, and a valued option missing its value, are recorded (unknown /
 * missing) for cli_check instead of failing, and --list-options is
 * recorded instead of answered. */
static int parse(int argc, char **argv, int first, const cli_spec *spec, const char *cmd,
                 cli_args *out, int loose)
{
    memset(out, 0, sizeof *out);
    for (int i = first; i < argc; i++)
        if (strcmp(argv[i], "--list-options") == 0) {
            if (loose) {
                out->list_options = 1;
                continue;
            }
            list_options(spec);
            exit(EXIT_OK);
        }
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        char long_form[16];
        if (loose && strcmp(a, "--list-options") == 0)
            continue;
        if (looks_like_option(a) && a[1] != '-') { /* -x: a short option */
            const char *name = NULL;
            for (size_t k = 0; k < sizeof short_opts / sizeof short_opts[0]; k++)
                if (a[2] == '\0' && a[1] == short_opts[k].letter &&
                    (in_list(spec->valued, short_opts[k].name, strlen(short_opts[k].name)) ||
                     in_list(spec->flags, short_opts[k].name, strlen(short_opts[k].name))))
                    name = short_opts[k].name;
            if (name == NULL && !loose) {
                unknown_option(cmd, spec, a);
                return EXIT_USAGE;
            }
            if (name == NULL) { /* loose: recorded for cli_check */
                if (out->n_opt == CLI_MAX_ARGS) {
                    cli_error(cmd, "too many options");
                    return EXIT_USAGE;
                }
                out->arg[out->n_opt] = a;
                out->unknown[out->n_opt] = 1;
                out->key[out->n_opt++] = a;
                continue;
            }
            snprintf(long_form, sizeof long_form, "--%s", name);
            a = long_form;
        }
        if (!looks_like_option(a)) {
            if (out->n_pos == CLI_MAX_ARGS) {
                cli_error(cmd, "too many arguments");
                return EXIT_USAGE;
            }
            out->pos[out->n_pos++] = a;
            continue;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        if (out->n_opt == CLI_MAX_ARGS) {
            cli_error(cmd, "too many options");
            return EXIT_USAGE;
        }
        if (a == long_form) /* keys must outlive this call: use the spec's string */
            for (const char *const *v = spec->valued; v && *v; v++)
                if (strcmp(*v, name) == 0)
                    name = *v;
        if (a == long_form)
            for (const char *const *f = spec->flags; f && *f; f++)
                if (strcmp(*f, name) == 0)
                    name = *f;
        out->arg[out->n_opt] = argv[i];
        if (in_list(spec->valued, name, len)) {
            const char *val = eq ? eq + 1 : NULL;
            if (val == NULL) {
                if (i + 1 >= argc) {
                    if (!loose) {
                        cli_error(cmd, "option %s needs a value", argv[i]);
                        return EXIT_USAGE;
                    }
                    out->missing[out->n_opt] = 1;
                    out->key[out->n_opt++] = name;
                    continue;
                }
                val = argv[++i];
            }
            out->key[out->n_opt] = name;
            out->val[out->n_opt++] = val;
        } else if (in_list(spec->flags, name, len) && eq == NULL) {
            out->key[out->n_opt] = name;
            out->val[out->n_opt++] = NULL;
        } else if (loose) {
            out->unknown[out->n_opt] = 1;
            out->key[out->n_opt++] = name;
        } else {
            unknown_option(cmd, spec, argv[i]);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* The options that name a file a command writes. */
static const char *const k_output_options[] = {"json",   "trace",         "plot",
                                               "dot",    "output",        "strategy-json",
                                               "timeline", NULL};

/* No output option is given twice, and two outputs of one run never share a destination: `--json - --trace -`
 * would interleave two documents on standard output, and one path given
 * to two options would keep only the last written (issue 31); /dev/null,
 * a sink, may take several.  EXIT_USAGE
 * naming both options, else 0.  O(options^2). */
static int check_outputs(const cli_args *a, const char *cmd)
{
    /* an output option given twice would have one of its files ignored */
    for (int i = 0; i < a->n_opt; i++)
        for (int j = i + 1; j < a->n_opt; j++)
            if (!a->unknown[i] && !a->unknown[j] && strcmp(a->key[i], a->key[j]) == 0 &&
                in_list(k_output_options, a->key[i], strlen(a->key[i]))) {
                cli_error(cmd, "--%s is given twice", a->key[i]);
                return EXIT_USAGE;
            }
    for (int i = 0; i < a->n_opt; i++) {
        if (a->val[i] == NULL || !in_list(k_output_options, a->key[i], strlen(a->key[i])))
            continue;
        for (int j = i + 1; j < a->n_opt; j++)
            if (a->val[j] != NULL && in_list(k_output_options, a->key[j], strlen(a->key[j])) &&
                strcmp(a->val[i], a->val[j]) == 0 && strcmp(a->val[i], "/dev/null") != 0) {
                cli_error(cmd, "--%s and --%s both write %s: give each its own file",
                              a->key[i], a->key[j],
                              strcmp(a->val[i], "-") == 0 ? "standard output" : "one file");
                return EXIT_USAGE;
            }
    }
    return 0;
}

int cli_parse(int argc, char **argv, int first, const cli_spec *spec, const char *cmd,
              cli_args *out)
{
    int rc = parse(argc, argv, first, spec, cmd, out, 0);
    return rc != 0 ? rc : check_outputs(out, cmd);
}

int cli_parse_loose(int argc, char **argv, int first, const cli_spec *spec, const char *cmd,
                    cli_args *out)
{
    return parse(argc, argv, first, spec, cmd, out, 1);
}

int cli_check(const cli_args *a, const cli_spec *spec, const char *cmd)
{
    if (a->list_options) {
        list_options(spec);
        exit(EXIT_OK);
    }
    for (int i = 0; i < a->n_opt; i++) {
        const char *key = a->key[i];
        size_t len = strcspn(key, "=");
        int valued = in_list(spec->valued, key, len);
        int flag = in_list(spec->flags, key, len) && key[len] == '\0';
        /* the form must match the spec: a value for a valued option, none for a flag */
        if (a->unknown[i] || (!valued && !flag) || (valued && a->val[i] == NULL && !a->missing[i]) ||
            (!valued && a->val[i] != NULL)) {
            unknown_option(cmd, spec, a->arg[i]);
            return EXIT_USAGE;
        }
        if (a->missing[i]) {
            cli_error(cmd, "option %s needs a value", a->arg[i]);
            return EXIT_USAGE;
        }
    }
    return check_outputs(a, cmd);
}

static int finish(const cli_args *a, const char *cmd, const char *help, int n_pos,
                  const char *what, int *done)
{
    if (cli_flag(a, "help")) {
        fputs(help, stdout);
        *done = 1;
        return EXIT_OK;
    }
    if (a->n_pos != n_pos) {
        cli_error(cmd, "expected %s (see dnnpar %s --help)", what, cmd);
        return EXIT_USAGE;
    }
    return 0;
}

int cli_begin(int argc, char **argv, const cli_spec *spec, const char *cmd, const char *help,
              int n_pos, const char *what, cli_args *a, int *done)
{
    *done = 0;
    int rc = cli_parse(argc, argv, 2, spec, cmd, a);
    if (rc != 0)
        return rc;
    return finish(a, cmd, help, n_pos, what, done);
}

int cli_begin_parsed(const cli_args *a, const cli_spec *spec, const char *cmd, const char *help,
                     int n_pos, const char *what, int *done)
{
    *done = 0;
    int rc = cli_check(a, spec, cmd);
    if (rc != 0)
        return rc;
    return finish(a, cmd, help, n_pos, what, done);
}

static int key_is(const char *key, const char *want)
{
    size_t n = strlen(want);
    return strncmp(key, want, n) == 0 && (key[n] == '\0' || key[n] == '=');
}

const char *cli_get(const cli_args *a, const char *key)
{
    const char *v = NULL;
    for (int i = 0; i < a->n_opt; i++)
        if (key_is(a->key[i], key) && a->val[i] != NULL)
            v = a->val[i]; /* the last one wins */
    return v;
}

int cli_flag(const cli_args *a, const char *key)
{
    for (int i = 0; i < a->n_opt; i++)
        if (key_is(a->key[i], key) && a->val[i] == NULL)
            return 1;
    return 0;
}

long long cli_positive(const char *cmd, const char *opt, const char *text, long long max)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v <= 0 || v > max) {
        cli_error(cmd, "--%s must be a positive integer up to %lld, got '%s'", opt, max, text);
        return -1;
    }
    return v;
}

double cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress(const char *cmd, double start_s, const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO) || cli_now_s() - start_s < 1.0)
        return;
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\r\033[K%s: %s", cmd, line);
    fflush(stderr);
}

void cli_progress_done(double start_s)
{
    if (isatty(STDERR_FILENO) && cli_now_s() - start_s >= 1.0) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

int cli_exit_for(dnp_status st)
{
    return st == DNP_OK ? EXIT_OK : (st == DNP_ERR_INPUT ? EXIT_USAGE : EXIT_RUNTIME);
}

int cli_write_json(const char *cmd, const char *path, json_t *root)
{
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (text == NULL) {
        cli_error(cmd, "out of memory writing JSON");
        return EXIT_RUNTIME;
    }
    int rc = cli_write_text(cmd, path, text);
    dnp_free(text);
    return rc;
}

int cli_write_reports(const char *cmd, const void *obj, const char *json, cli_report_fn json_of,
                      cli_report_fn text_of)
{
    dnp_error err = {0};
    char *text = NULL;
    int rc = 0;
    if (json != NULL) {
        dnp_status st = json_of(obj, &text, &err);
        if (st != DNP_OK) {
            cli_error(cmd, "%s", err.msg);
            return cli_exit_for(st);
        }
        rc = cli_write_text(cmd, json, text);
        dnp_free(text);
        text = NULL;
    }
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0)) {
        dnp_status st = text_of(obj, &text, &err);
        if (st != DNP_OK) {
            cli_error(cmd, "%s", err.msg);
            return cli_exit_for(st);
        }
        fputs(text, stdout);
        dnp_free(text);
    }
    return rc;
}

int cli_write_text(const char *cmd, const char *path, const char *text)
{
    dnp_error err = {0};
    dnp_output *o = NULL;
    dnp_status st = dnp_output_open(path, &o, &err);
    if (st == DNP_OK) {
        FILE *f = dnp_output_stream(o);
        size_t len = strlen(text);
        errno = 0;
        if (fwrite(text, 1, len, f) != len || (len > 0 && text[len - 1] != '\n' && fputc('\n', f) == EOF))
            dnp_output_fail(o, errno);
        st = dnp_output_close(o, &err);
    }
    if (st != DNP_OK)
        cli_error(cmd, "%s", err.msg);
    return cli_exit_for(st);
}

const char *const cli_precisions[] = {"fp32", "tf32", "fp16", "bf16", "amp", NULL};
const char *const cli_searches[] = {"auto", "accpar", "dp", "owt", "hypar", "pase", "mcmc", "3d",
                                    NULL};
const char *const cli_export_formats[] = {"jax", "dtensor", "astra", "megatron", NULL};

int cli_load_model(const char *cmd, const char *name, const cli_args *a, dnp_graph **out)
{
    dnp_error err = {0};
    dnp_load_options opt = {a != NULL && cli_flag(a, "skip-unknown")};
    dnp_status st = dnp_model_load_opts(name, &opt, out, &err);
    if (st != DNP_OK)
        cli_error(cmd, "%s", err.msg);
    return cli_exit_for(st);
}

int cli_load_transformer(const char *cmd, const char *name, const cli_args *a, dnp_graph **out)
{
    int rc = cli_load_model(cmd, name, a, out);
    return rc != 0 ? rc : cli_as_transformer(cmd, name, out);
}

int cli_as_transformer(const char *cmd, const char *name, dnp_graph **out)
{
    return cli_as_transformer_with(cmd, name, out, NULL);
}

int cli_as_transformer_with(const char *cmd, const char *name, dnp_graph **out,
                            const dnp_transformer_match *given)
{
    dnp_transformer_match m;
    dnp_error err = {0};
    dnp_status st = DNP_OK;
    if (given != NULL)
        m = *given;
    else
        st = dnp_graph_match_transformer(*out, &m, &err);
    if (st == DNP_OK && !m.native) {
        /* The configuration is Megatron-LM's, and Megatron-LM runs its own
         * transformer of that shape, not the file's ops (docs/config3d.md,
         * "Your own transformer") */
        dnp_graph *z = NULL;
        st = dnp_model_load(m.spec, &z, &err);
        if (st == DNP_OK) {
            fprintf(stderr,
                    "dnnpar %s: note: %s is planned as %s (recognised by its structure: %lld "
                    "parameters in the model, %lld in this one%s%s; docs/config3d.md \"Your "
                    "own transformer\")\n",
                    cmd, name, m.spec, (long long)m.params_model, (long long)m.params_spec,
                    m.assumed[0] ? "; " : "", m.assumed);
            dnp_graph_free(*out);
            *out = z;
        }
    }
    if (st != DNP_OK) {
        cli_error(cmd, "%s", err.msg);
        dnp_graph_free(*out);
        *out = NULL;
    }
    return cli_exit_for(st);
}

dnp_status cli_read_cluster(const char *spec, dnp_cluster *out, dnp_error *err)
{
    size_t n = strlen(spec);
    dnp_cluster c;
    dnp_status st = (strcmp(spec, "-") == 0 || (n > 5 && strcmp(spec + n - 5, ".json") == 0))
                        ? dnp_cluster_read_json(spec, &c, err)
                        : dnp_cluster_parse(spec, &c, err);
    /* the network kinds the parser stores unread (net=..., docs/cluster.md) */
    if (st == DNP_OK)
        st = dnp_cluster_check(&c, err);
    if (st == DNP_OK)
        *out = c;
    return st;
}

int cli_find_python_package(const char *package, char *buf, size_t n)
{
    const char *env = getenv("DNNPAR_PYTHONPATH");
    if (env != NULL && *env != '\0') {
        snprintf(buf, n, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return -1;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    static const char *const rel[] = {"/../python", "/../share/dnnpar/python"};
    for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) {
        char probe[PATH_MAX + 128];
        snprintf(probe, sizeof probe, "%s%s/%s/__main__.py", exe, rel[k], package);
        if (access(probe, R_OK) == 0) {
            int w = snprintf(buf, n, "%s%s", exe, rel[k]);
            return w > 0 && (size_t)w < n ? 0 : -1;
        }
    }
    return -1;
}

int cli_load_cluster(const char *cmd, const char *spec, dnp_cluster *out)
{
    dnp_error err = {0};
    if (spec == NULL) {
        cli_error(cmd, "--cluster is required, e.g. --cluster 128xtpu-v2+128xtpu-v3");
        return EXIT_USAGE;
    }
    dnp_status st = cli_read_cluster(spec, out, &err);
    if (st != DNP_OK)
        cli_error(cmd, "%s", err.msg);
    return cli_exit_for(st);
}

const char *cli_state_name(int weighted, int state)
{
    static const char *const types[4] = {"I", "II", "III", "R"};
    static const char *const layouts[3] = {"B", "C", "R"};
    if (state < 0 || state > (weighted ? 3 : 2))
        return "-";
    return weighted ? types[state] : layouts[state];
}

void cli_fmt_si(double x, char *buf, size_t n) { dnp_fmt_si(x, buf, n); }

void cli_fmt_time(double s, char *buf, size_t n) { dnp_fmt_time(s, buf, n); }

char *cli_cluster_spec(const dnp_cluster *c) { return dnp_cluster_spec(c); }

const char *cli_time_unit(double max_s, double *per_s) { return dnp_time_unit(max_s, per_s); }

int cli_parse_size(const char *cmd, const char *opt, const char *text, double *bytes)
{
    static const struct {
        const char *unit;
        double factor;
    } units[] = {{"B", 1.0},      {"KB", 1e3},          {"MB", 1e6},          {"GB", 1e9},
                 {"TB", 1e12},    {"KiB", 1024.0},      {"MiB", 1048576.0},   {"GiB", 1073741824.0},
                 {"TiB", 1099511627776.0}};
    char *end = NULL;
    errno = 0;
    double x = strtod(text, &end);
    if (errno == 0 && end != text && isfinite(x) && x > 0.0)
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strcasecmp(end, units[i].unit) == 0 && x * units[i].factor < 1e18) {
                *bytes = x * units[i].factor;
                return 0;
            }
    cli_error(cmd, "--%s '%s': expected a size such as 16GB, 512MB or 80GiB", opt, text);
    return EXIT_USAGE;
}

int cli_perf_options(const char *cmd, const cli_args *a, dnp_plan_options *opt)
{
    const char *s;
    if ((s = cli_get(a, "precision")) != NULL) {
        int p = dnp_precision_from_name(s);
        if (p < 0 || p == DNP_PREC_DEFAULT) {
            return cli_unknown_name(cmd, "precision", s, cli_precisions);
        }
        opt->precision = (dnp_precision)p;
    }
    if ((s = cli_get(a, "cost-model")) != NULL) {
        int m = dnp_cost_model_from_name(s);
        if (m < 0) {
            static const char *const known[] = {"default", "accpar-paper", NULL};
            return cli_unknown_name(cmd, "cost model", s, known);
        }
        if (m == DNP_COST_PASE_PAPER) {
            cli_error(cmd, "cost model 'pase-paper' applies to --search pase and mcmc only");
            return EXIT_USAGE;
        }
        opt->cost_model = (dnp_cost_model)m;
    }
    if ((s = cli_get(a, "optimizer")) != NULL) {
        int o = dnp_optimizer_from_name(s);
        if (o < 0) {
            static const char *const known[] = {"momentum", "sgd", "adam", NULL};
            return cli_unknown_name(cmd, "optimizer", s, known);
        }
        opt->optimizer = (dnp_optimizer)o;
    }
    if ((s = cli_get(a, "memory-limit")) != NULL &&
        cli_parse_size(cmd, "memory-limit", s, &opt->memory_limit_bytes) != 0)
        return EXIT_USAGE;
    if (cli_flag(a, "no-overlap"))
        opt->no_overlap = 1;
    if (cli_flag(a, "no-stragglers"))
        opt->no_stragglers = 1;
    return 0;
}

int cli_grad_dtype(const char *cmd, const cli_args *a, dnp_plan_options *opt)
{
    const char *s = cli_get(a, "grad-dtype");
    if (s == NULL)
        return 0;
    if (strcmp(s, "fp32") != 0 && strcmp(s, "default") != 0) {
        static const char *const known[] = {"fp32", "default", NULL};
        return cli_unknown_name(cmd, "gradient dtype", s, known);
    }
    opt->grad_fp32 = strcmp(s, "fp32") == 0;
    return 0;
}

static double command_start_s;

void cli_command_started(void) { command_start_s = dnp_clock_s(); }

double cli_command_start_s(void)
{
    if (!(command_start_s > 0.0)) /* not from main (a test harness): from now */
        cli_command_started();
    return command_start_s;
}

int cli_deadline(const char *cmd, const cli_args *a, dnp_plan_options *opt)
{
    opt->time_limit_s = CLI_TIME_LIMIT_DEFAULT_S;
    opt->time_limit_from_s = cli_command_start_s();
    return cli_time_limit(cmd, a, &opt->time_limit_s);
}

int cli_megatron_version(const char *cmd, const cli_args *a, dnp_plan_options *opt)
{
    const char *s = cli_get(a, "megatron-version");
    if (s == NULL)
        return 0;
    int v = dnp_megatron_version_from_name(s);
    if (v < 0) {
        static const char *const known[] = {"current", "legacy", "core_r0.10", "core_r0.9",
                                            NULL};
        return cli_unknown_name(cmd, "Megatron-LM version", s, known);
    }
    opt->megatron_version = v;
    return 0;
}

int cli_time_limit(const char *cmd, const cli_args *a, double *seconds)
{
    const char *s = cli_get(a, "time-limit");
    if (s == NULL)
        return 0;
    char *end = NULL;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || !(x > 0.0) || !(x <= CLI_TIME_LIMIT_MAX_S)) {
        cli_error(cmd, "--time-limit '%s': expected a number of seconds > 0 and <= %.0f", s,
                  CLI_TIME_LIMIT_MAX_S);
        return EXIT_USAGE;
    }
    *seconds = x;
    return 0;
}

int cli_write_trace(const char *cmd, const char *path, const dnp_plan *p)
{
    char *text = dnp_plan_trace_json(p);
    if (text == NULL) {
        cli_error(cmd, "out of memory writing the trace");
        return EXIT_RUNTIME;
    }
    int rc = cli_write_text(cmd, path, text);
    dnp_free(text);
    return rc;
}
