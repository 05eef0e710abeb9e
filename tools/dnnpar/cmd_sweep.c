/* cmd_sweep.c - `dnnpar sweep`: what-ifs.  One figure of the cluster (or
 * the batch) takes each of several values; at each the model is planned
 * again (or one Megatron-LM configuration simulated again) and the step,
 * its change against the first value and what bounds it are printed
 * (docs/cli.md, "sweep"). */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: dnnpar sweep MODEL --cluster SPEC --batch B --vary [TYPE:]KEY=V1,V2,...\n"
    "                    [--search accpar|dp|owt|hypar|3d | --config CFG] [--json FILE]\n"
    "                    [--precision P] [--optimizer O] [--grad-dtype fp32]\n"
    "                    [--megatron-version V] [--tp-across-nodes] [--time-limit S]\n"
    "\n"
    "What does a faster network, more memory or a larger batch buy?  KEY is a\n"
    "cluster key of docs/cluster.md (inter_gbps, intra_gbps, net_gbps, tflops,\n"
    "mem_gb, membw_gbps, host_us, ...; bandwidth units such as 400Gbps allowed)\n"
    "or batch.  Each value changes that figure of every device type (only the\n"
    "types whose device or node name is TYPE with TYPE:KEY), as a preset override\n"
    "in the spec would, and the model is planned again with --search (default\n"
    "accpar; 3d: the Megatron-LM search) or, with --config CFG, that one\n"
    "configuration is simulated again.  Per value: the step, its change against\n"
    "the first value, its parts (compute, exposed communication, pipeline\n"
    "bubble and waits), the part that bounds it and the plan chosen; a value\n"
    "with no plan (e.g. nothing fits) is listed with the reason.\n"
    "\n"
    "  --vary [TYPE:]KEY=V1,V2,...  the figure and its values (2 to 32)\n"
    "  --search S     accpar (default), dp, owt, hypar or 3d\n"
    "  --config CFG   a Megatron-LM configuration instead (simulate --config)\n"
    "  --grad-dtype, --megatron-version, --tp-across-nodes  as plan --search 3d\n"
    "  --json FILE    the rows as JSON ('-': standard output)\n"
    CLI_SKIP_UNKNOWN_HELP
    CLI_PERF_HELP
    "  --time-limit S wall-time limit of the whole command in seconds (default 600):\n"
    "                 one deadline over every value; a search cut at it is marked;\n"
    "                 a value not planned by then: exit status 2, nothing written\n"
    "\n"
    "examples:\n"
    "  dnnpar sweep resnet50 --cluster 4xdgx1 --batch 1024 --vary inter_gbps=50,100,200,400\n"
    "  dnnpar sweep gpt2-medium --cluster 4xdgx-a100 --batch 256 --search 3d \\\n"
    "      --vary dgx-a100:inter_gbps=100,200,400,800\n";

#define SWEEP_MAX_VALUES 32
#define SWEEP_VALUE_CHARS 48

/* One value's outcome; parts of the step in seconds. */
typedef struct {
    char value[SWEEP_VALUE_CHARS];
    int ok;                 /* 1: planned; 0: `note` says why not */
    double step_s, compute_s, comm_s, wait_s;
    double mem_bytes, cap_bytes;
    int cut;                /* the search stopped at the time limit */
    char plan[96];          /* the plan chosen, short */
    char note[512];
} sweep_row;

/* The largest part of a row's step: "compute", "communication" or
 * "bubble/waits". */
static const char *bound_by(const sweep_row *r)
{
    if (r->compute_s >= r->comm_s && r->compute_s >= r->wait_s)
        return "compute";
    return r->comm_s >= r->wait_s ? "communication" : "bubble/waits";
}

/* Split "[TYPE:]KEY=V1,V2,..." into type (or ""), key and values.
 * Returns 0, or EXIT_USAGE after printing the error. */
static int parse_vary(const char *text, char *type, size_t type_n, char *key, size_t key_n,
                      char values[][SWEEP_VALUE_CHARS], int *n_values)
{
    const char *eq = strchr(text, '=');
    const char *colon = strchr(text, ':');
    if (colon != NULL && eq != NULL && colon > eq)
        colon = NULL;
    const char *key_from = colon != NULL ? colon + 1 : text;
    if (eq == NULL || eq == key_from || (colon != NULL && colon == text)) {
        cli_error("sweep", "--vary '%.80s': expected [TYPE:]KEY=V1,V2,... (e.g. "
                           "inter_gbps=100,200,400)", text);
        return EXIT_USAGE;
    }
    size_t tl = colon != NULL ? (size_t)(colon - text) : 0, kl = (size_t)(eq - key_from);
    if (tl >= type_n || kl >= key_n) {
        cli_error("sweep", "--vary '%.80s': the type or key name is too long", text);
        return EXIT_USAGE;
    }
    memcpy(type, text, tl);
    type[tl] = '\0';
    memcpy(key, key_from, kl);
    key[kl] = '\0';
    *n_values = 0;
    const char *s = eq + 1;
    for (;;) {
        const char *end = strchr(s, ',');
        size_t len = end != NULL ? (size_t)(end - s) : strlen(s);
        if (len == 0 || len >= SWEEP_VALUE_CHARS || *n_values == SWEEP_MAX_VALUES) {
            cli_error("sweep", "--vary '%.80s': expected 2 to %d non-empty values of at most %d "
                               "characters separated by commas", text, SWEEP_MAX_VALUES,
                      SWEEP_VALUE_CHARS - 1);
            return EXIT_USAGE;
        }
        memcpy(values[*n_values], s, len);
        values[(*n_values)++][len] = '\0';
        if (end == NULL)
            break;
        s = end + 1;
    }
    if (*n_values < 2) {
        cli_error("sweep", "--vary '%.80s': give at least two values to compare", text);
        return EXIT_USAGE;
    }
    return 0;
}

/* "tp 2 pp 2 dp 16 mb 4" (+ " v2" interleaved, + ", N idle"). */
static void short_config(const dnp_config3d *c, int64_t idle, char *out, size_t n)
{
    int o = snprintf(out, n, "tp %d pp %d dp %d mb %lld", c->tp, c->pp, c->dp,
                     (long long)c->microbatch);
    if (c->interleave > 1 && o > 0 && (size_t)o < n)
        o += snprintf(out + o, n - (size_t)o, " v%d", c->interleave);
    if (idle > 0 && o > 0 && (size_t)o < n)
        snprintf(out + o, n - (size_t)o, ", %lld idle", (long long)idle);
}

/* The parts of a Megatron-LM step (dnp_config3d_result): compute is the
 * busiest rank's compute stream less the tensor-parallel time it waits
 * for; communication that exposed tensor-parallel time, the gradient
 * all-reduce and the tied-embedding sync left exposed; the rest of the
 * step is pipeline bubble and waits. */
static void config_parts(const dnp_config3d_result *r, sweep_row *row)
{
    double tp_exposed_s = fmax(0.0, r->tp_comm_s - r->tp_hidden_s);
    row->step_s = r->step_time_s;
    row->compute_s = fmax(0.0, r->compute_busy_s - tp_exposed_s);
    row->comm_s = fmin(row->step_s - row->compute_s,
                       tp_exposed_s + r->dp_comm_s + r->embed_sync_s);
    row->wait_s = fmax(0.0, row->step_s - row->compute_s - row->comm_s);
    row->mem_bytes = r->mem_bytes;
    row->cap_bytes = r->mem_capacity_bytes;
}

typedef struct {
    const dnp_graph *g;
    dnp_plan_options opt;
    int search_3d;
    const char *config_text; /* --config, or NULL */
    dnp_config3d cfg;
} sweep_job;

/* Plan (or simulate) on cluster cl at batch `batch`: fills *row.  Returns
 * 0 (row->ok says whether it planned) or an exit status for a failure
 * that ends the command (out of memory, the time limit). */
static int run_one(sweep_job *job, const dnp_cluster *cl, int64_t batch, sweep_row *row)
{
    dnp_plan_options opt = job->opt;
    opt.batch = batch;
    dnp_error err = {0};
    dnp_status st;
    if (job->config_text != NULL) {
        dnp_config3d_result res;
        st = dnp_config3d_simulate(job->g, cl, batch, &opt, &job->cfg, &res, &err);
        if (st == DNP_OK) {
            config_parts(&res, row);
            short_config(&job->cfg, 0, row->plan, sizeof row->plan);
        }
    } else if (job->search_3d) {
        dnp_config3d best;
        dnp_config3d_result res;
        dnp_config3d_stats stats;
        dnp_cluster used;
        st = dnp_config3d_search_layouts(job->g, cl, batch, &opt, &best, &res, &used, &stats,
                                         &err);
        if (st == DNP_OK) {
            config_parts(&res, row);
            short_config(&best, dnp_cluster_devices(cl) - dnp_cluster_devices(&used), row->plan,
                         sizeof row->plan);
            row->cut = stats.time_limit_hit;
        }
    } else {
        dnp_plan *p = NULL;
        st = dnp_plan_run(job->g, cl, &opt, &p, &err);
        if (st == DNP_OK) {
            dnp_plan_summary sum;
            dnp_plan_get_summary(p, &sum);
            dnp_plan_free(p);
            row->step_s = sum.step_time_s;
            row->compute_s = sum.compute_s;
            row->comm_s = sum.exposed_comm_s;
            row->wait_s = fmax(0.0, sum.step_time_s - sum.compute_s - sum.exposed_comm_s);
            row->mem_bytes = sum.mem_bytes_max;
            row->cap_bytes = sum.mem_capacity_bytes;
            row->cut = sum.time_limit_hit;
            snprintf(row->plan, sizeof row->plan, "%s", dnp_scheme_name(sum.chosen_scheme));
        }
    }
    if (st == DNP_OK) {
        row->ok = 1;
        return 0;
    }
    if (st == DNP_ERR_NOMEM || dnp_clock_s() >= opt.time_limit_from_s + opt.time_limit_s) {
        cli_error("sweep", "at %s: %s", row->value, err.msg);
        return cli_exit_for(st);
    }
    snprintf(row->note, sizeof row->note, "%.511s", err.msg);
    return 0;
}

/* Print the table and the bottleneck line. */
static void print_text(const sweep_job *job, const char *model, const char *spec,
                       const char *type, const char *key, const sweep_row *rows, int n)
{
    cli_wrapf(stdout, 0, "  ", "model %s, cluster %s, batch %lld, %s%s; varying %s%s%s",
              model, spec, (long long)job->opt.batch,
              job->config_text != NULL ? "configuration " : "search ",
              job->config_text != NULL ? job->config_text
              : job->search_3d         ? "3d"
                                       : dnp_scheme_name(job->opt.scheme),
              key, type[0] ? " of " : " of every device type", type[0] ? type : "");
    printf("\n");
    double max_s = 0.0, f;
    int first = -1, any_cut = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].ok) {
            max_s = fmax(max_s, rows[i].step_s);
            first = first < 0 ? i : first;
            any_cut |= rows[i].cut;
        }
    const char *unit = cli_time_unit(max_s, &f);
    char h_step[24], h_comp[24], h_comm[32], h_wait[32], h_vs[32];
    snprintf(h_step, sizeof h_step, "step (%s)", unit);
    snprintf(h_comp, sizeof h_comp, "compute (%s)", unit);
    snprintf(h_comm, sizeof h_comm, "exposed comm (%s)", unit);
    snprintf(h_wait, sizeof h_wait, "bubble, waits (%s)", unit);
    snprintf(h_vs, sizeof h_vs, "vs %.20s", first >= 0 ? rows[first].value : "first");
    const char *header[] = {key, h_step, h_vs, h_comp, h_comm, h_wait, "bound by", "memory",
                            "plan"};
    cli_table *t = cli_table_new(9, "lrrrrrlrl", header);
    for (int i = 0; i < n && t != NULL; i++) {
        const sweep_row *r = &rows[i];
        char c[8][48];
        if (!r->ok) {
            const char *row[] = {r->value, "-", "-", "-", "-", "-", "no plan", "-", "(below)"};
            if (cli_table_add(t, row) != 0) {
                cli_table_free(t);
                t = NULL;
            }
            continue;
        }
        snprintf(c[0], sizeof c[0], "%.3f", r->step_s * f);
        if (i == first)
            snprintf(c[1], sizeof c[1], "-");
        else
            snprintf(c[1], sizeof c[1], "%+.1f%%",
                     100.0 * (r->step_s - rows[first].step_s) / rows[first].step_s);
        snprintf(c[2], sizeof c[2], "%.3f", r->compute_s * f);
        snprintf(c[3], sizeof c[3], "%.3f", r->comm_s * f);
        snprintf(c[4], sizeof c[4], "%.3f", r->wait_s * f);
        snprintf(c[5], sizeof c[5], "%.0f%%",
                 r->cap_bytes > 0.0 ? 100.0 * r->mem_bytes / r->cap_bytes : 0.0);
        /* the plan cut to the column's 47 characters, as before; said
         * through a wider buffer so that gcc -O1 sees no truncation */
        char plan_col[sizeof r->plan + 16];
        snprintf(plan_col, sizeof plan_col, "%s%s", r->plan, r->cut ? " (time limit)" : "");
        snprintf(c[6], sizeof c[6], "%.47s", plan_col);
        const char *row[] = {r->value, c[0], c[1], c[2], c[3], c[4], bound_by(r), c[5], c[6]};
        if (cli_table_add(t, row) != 0) {
            cli_table_free(t);
            t = NULL;
        }
    }
    if (t == NULL) {
        cli_error("sweep", "out of memory printing the table");
        return;
    }
    cli_table_print(t, stdout, CLI_MAX_WIDTH, -1);
    cli_table_free(t);
    printf("memory: the fullest device's share of its capacity\n");
    for (int i = 0; i < n; i++)
        if (!rows[i].ok)
            cli_wrapf(stdout, 0, "  ", "%s=%s: no plan: %s", key, rows[i].value, rows[i].note);
    /* the bottleneck line: what the whole range buys, and what bounds the
     * step at its end */
    int last = -1;
    for (int i = 0; i < n; i++)
        if (rows[i].ok)
            last = i;
    if (first >= 0 && last > first) {
        const sweep_row *a = &rows[first], *b = &rows[last];
        double part = strcmp(bound_by(b), "compute") == 0         ? b->compute_s
                      : strcmp(bound_by(b), "communication") == 0 ? b->comm_s
                                                                  : b->wait_s;
        cli_wrapf(stdout, 0, "  ",
                  "bottleneck: %s %s -> %s changes the step by %+.1f%% (%.3f -> %.3f %s); at "
                  "%s the step is bound by %s (%.0f%% of it)",
                  key, a->value, b->value, 100.0 * (b->step_s - a->step_s) / a->step_s,
                  a->step_s * f, b->step_s * f, unit, b->value, bound_by(b),
                  100.0 * part / b->step_s);
    }
    if (any_cut)
        printf("(time limit): the --time-limit ran out in that value's search; its plan is the "
               "best found by then\n");
}

static json_t *rows_json(const sweep_row *rows, int n)
{
    json_t *arr = json_array();
    int first = -1;
    for (int i = 0; i < n && first < 0; i++)
        if (rows[i].ok)
            first = i;
    for (int i = 0; i < n && arr != NULL; i++) {
        const sweep_row *r = &rows[i];
        json_t *o = r->ok ? json_pack("{s:s,s:f,s:f,s:f,s:f,s:f,s:s,s:f,s:f,s:s,s:b}", "value",
                                      r->value, "step_time_s", r->step_s, "change_pct",
                                      100.0 * (r->step_s - rows[first].step_s) /
                                          rows[first].step_s,
                                      "compute_s", r->compute_s, "exposed_comm_s", r->comm_s,
                                      "wait_s", r->wait_s, "bound_by", bound_by(r), "mem_bytes",
                                      r->mem_bytes, "mem_capacity_bytes", r->cap_bytes, "plan",
                                      r->plan, "time_limit_reached", r->cut)
                          : json_pack("{s:s,s:n,s:s}", "value", r->value, "step_time_s",
                                      "no_plan", r->note);
        json_array_append_new(arr, o);
    }
    return arr;
}

int cmd_sweep(int argc, char **argv)
{
    static const char *const valued[] = {"cluster", "batch", "vary", "search", "config", "json",
                                         "grad-dtype", "megatron-version", "time-limit",
                                         CLI_PERF_VALUED, NULL};
    static const char *const flags[] = {"help", "skip-unknown", "tp-across-nodes",
                                        CLI_PERF_FLAGS, NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "sweep", help, 1, "one MODEL", &a, &done);
    if (rc != 0 || done)
        return rc;
    const char *spec_text = cli_get(&a, "cluster"), *b = cli_get(&a, "batch");
    const char *vary = cli_get(&a, "vary"), *json = cli_get(&a, "json");
    if (spec_text == NULL || b == NULL || vary == NULL) {
        cli_error("sweep", "expected --cluster SPEC, --batch B and --vary [TYPE:]KEY=V1,V2,... "
                           "(see dnnpar sweep --help)");
        return EXIT_USAGE;
    }
    long long batch = cli_positive("sweep", "batch", b, 1LL << 40);
    if (batch < 0)
        return EXIT_USAGE;
    char type[64], key[64], values[SWEEP_MAX_VALUES][SWEEP_VALUE_CHARS];
    int n = 0;
    if ((rc = parse_vary(vary, type, sizeof type, key, sizeof key, values, &n)) != 0)
        return rc;
    const int vary_batch = strcmp(key, "batch") == 0;
    if (vary_batch && type[0]) {
        cli_error("sweep", "--vary '%.80s': the batch is not a figure of a device type", vary);
        return EXIT_USAGE;
    }
    static sweep_job job; /* dnp_config3d is large */
    memset(&job, 0, sizeof job);
    job.opt.scheme = DNP_SCHEME_ACCPAR;
    job.opt.batch = batch;
    job.config_text = cli_get(&a, "config");
    const char *s = cli_get(&a, "search");
    if (s != NULL && job.config_text != NULL) {
        cli_error("sweep", "--search and --config exclude each other (--config simulates one "
                           "configuration; --search plans again at each value)");
        return EXIT_USAGE;
    }
    if (s != NULL) {
        if (strcmp(s, "3d") == 0) {
            job.search_3d = 1;
            job.opt.scheme = DNP_SCHEME_DP;
        } else {
            int sc = dnp_scheme_from_name(s);
            if (sc < 0) {
                static const char *const known[] = {"accpar", "dp", "owt", "hypar", "3d", NULL};
                return cli_unknown_name("sweep", "search", s, known);
            }
            job.opt.scheme = (dnp_scheme)sc;
        }
    }
    const int megatron = job.search_3d || job.config_text != NULL;
    if (!megatron && (cli_get(&a, "grad-dtype") != NULL || cli_flag(&a, "tp-across-nodes") ||
                      cli_get(&a, "megatron-version") != NULL)) {
        cli_error("sweep", "--grad-dtype, --megatron-version and --tp-across-nodes apply to "
                           "--search 3d and --config (Megatron-LM configurations)");
        return EXIT_USAGE;
    }
    if (megatron)
        job.opt.optimizer = DNP_OPTIM_ADAM; /* Megatron-LM's, as plan --search 3d */
    if ((rc = cli_perf_options("sweep", &a, &job.opt)) != 0 ||
        (rc = cli_deadline("sweep", &a, &job.opt)) != 0 ||
        (rc = cli_grad_dtype("sweep", &a, &job.opt)) != 0 ||
        (rc = cli_megatron_version("sweep", &a, &job.opt)) != 0)
        return rc;
    job.opt.tp_across_nodes = cli_flag(&a, "tp-across-nodes");
    dnp_error err = {0};
    if (job.config_text != NULL && dnp_config3d_parse(job.config_text, &job.cfg, &err) != DNP_OK) {
        cli_error("sweep", "%s", err.msg);
        return EXIT_USAGE;
    }
    dnp_cluster base;
    if ((rc = cli_load_cluster("sweep", spec_text, &base)) != 0)
        return rc;
    /* every value's cluster (or batch) first: a bad value is an error
     * before anything is planned */
    static dnp_cluster clusters[SWEEP_MAX_VALUES];
    int64_t batches[SWEEP_MAX_VALUES];
    for (int i = 0; i < n; i++) {
        clusters[i] = base;
        batches[i] = batch;
        if (vary_batch) {
            long long v = cli_positive("sweep", "vary batch value", values[i], 1LL << 40);
            if (v < 0)
                return EXIT_USAGE;
            batches[i] = v;
            continue;
        }
        char pair[SWEEP_VALUE_CHARS + 72];
        snprintf(pair, sizeof pair, "%.63s=%.47s", key, values[i]);
        /* the override, then its network kind's numbers (dnp_cluster_check:
         * `--vary net.oversub=...` on a rail cluster) */
        if (dnp_cluster_override(&clusters[i], type[0] ? type : NULL, pair, &err) != DNP_OK ||
            dnp_cluster_check(&clusters[i], &err) != DNP_OK) {
            cli_error("sweep", "--vary %s%s%s: %s", type, type[0] ? ":" : "", pair, err.msg);
            return EXIT_USAGE;
        }
    }
    dnp_graph *g = NULL;
    /* the Megatron-LM path plans a transformer; a model file recognised as
     * one by its structure is planned as it is (cli_load_transformer) */
    if ((rc = megatron ? cli_load_transformer("sweep", a.pos[0], &a, &g)
                       : cli_load_model("sweep", a.pos[0], &a, &g)) != 0)
        return rc;
    job.g = g;
    if (cli_get(&a, "optimizer") == NULL && !megatron) /* docs/model.md, "Default optimizer" */
        job.opt.optimizer = (dnp_optimizer)dnp_graph_default_optimizer(g);
    static sweep_row rows[SWEEP_MAX_VALUES];
    memset(rows, 0, sizeof rows);
    int n_ok = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        snprintf(rows[i].value, sizeof rows[i].value, "%.47s", values[i]);
        rc = run_one(&job, &clusters[i], batches[i], &rows[i]);
        n_ok += rows[i].ok;
    }
    if (rc == 0 && n_ok == 0) {
        cli_error("sweep", "no value of %s has a plan; at %s=%s: %s", key, key, rows[0].value,
                  rows[0].note);
        rc = EXIT_USAGE;
    }
    if (rc == 0 && json != NULL) {
        json_t *root = json_pack("{s:s,s:s,s:I,s:s,s:s,s:s,s:o}", "model", dnp_graph_name(g),
                                 "cluster", spec_text, "batch", (json_int_t)batch,
                                 job.config_text != NULL ? "config" : "search",
                                 job.config_text != NULL ? job.config_text
                                 : job.search_3d         ? "3d"
                                                         : dnp_scheme_name(job.opt.scheme),
                                 "key", key, "type", type, "rows", rows_json(rows, n));
        rc = cli_write_json("sweep", json, root);
    }
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0))
        print_text(&job, dnp_graph_name(g), spec_text, type, key, rows, n);
    dnp_graph_free(g);
    return rc;
}
