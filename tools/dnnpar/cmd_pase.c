/*
 * cmd_pase.c - `dnnpar plan MODEL --search pase|mcmc` (PaSE, Elango,
 * IPDPS 2021) and `dnnpar reproduce pase` (the paper's Tables I and II
 * beside ours and the authors' prototype).  The PaSE search lives in
 * src/search/pase (internal header: the public API has no PaSE types).
 */
#include "cli.h"
#include "search/pase/pase.h"
#include "search/pase/pase_perf.h"

#include <errno.h>

/* --max-memory's ceiling, MB: 64 GB.  The search's tables are allocated
 * in full before it runs, so a limit above the machine's memory only
 * turns a clear refusal into a failed allocation; a larger table is
 * better searched with mcmc. */
#define PASE_MAX_MEMORY_MB 65536LL
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char plan_help[] =
    "usage: dnnpar plan MODEL --search pase|mcmc -p P [--batch B]\n"
    "                   [--flops TF --bw GBps | --cluster SPEC] [--json FILE]\n"
    "                   [--max-memory MB] [--threads N] [--prototype-edges] [--bfs]\n"
    "                   [--mcmc-iters N] [--seed S] [--cutoff C] [--optimum] [--timing]\n"
    "                   [--time-limit S] [--cost-model default|pase-paper]\n"
    "                   [--precision P] [--optimizer O] [--memory-limit SIZE]\n"
    "                   [--no-stragglers]\n"
    "\n"
    "Split every op's iteration space over P devices (any dimension, any divisor)\n"
    "and find the strategy of least cost F = sum of layer costs + transfer costs\n"
    "(PaSE, Elango 2021, Eq. 1): GenerateSeq orders the ops and FindBestStrategy's\n"
    "dynamic program finds the optimum.  Prints every op's configuration with its\n"
    "dimension names, F, the baselines in the same space (data parallelism, the\n"
    "expert strategy, MCMC) and, with --timing, the search time.  docs/pase.md has\n"
    "the model.\n"
    "\n"
    "MODEL is a PaSE reference graph (pase-alexnet, pase-inception3, pase-rnnlm,\n"
    "pase-transformer, pase-resnet101), a zoo name or a model file.\n"
    "\n"
    "  --search S         pase: the exact search; mcmc: FlexFlow-style MCMC started\n"
    "                     from the expert strategy\n"
    "  -p P               devices (with --cluster: its device count)\n"
    "  --batch B          mini-batch, any size (default 128; 64 for pase-rnnlm and\n"
    "                     pase-transformer); data parallelism splits it by the\n"
    "                     largest divisor <= P leaving >= cutoff samples per device\n"
    "  --flops TF         peak TFLOP/s per device (default 10)\n"
    "  --bw GBps          link bandwidth per device in GB/s, 8-byte words (default\n"
    "                     16; with 10 TFLOP/s r = 5000 FLOP per word, the prototype's)\n"
    "  --cluster SPEC     the devices' figures instead; with several device types the\n"
    "                     batch is split across the types (PaSE inside each) and\n"
    "                     compared with PaSE on the weakest device and link\n"
    "  --cost-model M     default: t_l and t_x in seconds on the shared performance\n"
    "                     model (roofline, collectives on link tiers, device memory);\n"
    "                     pase-paper: the prototype's Eq. 1 in FLOP-equivalents\n"
    "  --precision P      fp32, tf32, fp16, bf16, amp (default: the devices' dtype)\n"
    "  --optimizer O      momentum (default), sgd, adam: optimizer state in memory\n"
    "  --memory-limit SIZE  memory per device (default: the device's capacity)\n"
    "  --no-stragglers    ignore the devices' speed spread\n"
    "  --max-memory MB    refuse a search whose tables need more (default 2048, at\n"
    "                     most 65536)\n"
    "  --threads N        worker threads (default: the online CPUs, at most 8)\n"
    "  --prototype-edges  an op feeding two inputs of one consumer counts once, as in\n"
    "                     the prototype (its Transformer drops 24 of 280 edges)\n"
    "  --bfs              the breadth-first DP (recurrence 2) instead\n"
    "  --mcmc-iters N     MCMC budget (default 250000)\n"
    "  --optimum          with mcmc: also run the exact search and compare (it may\n"
    "                     take far longer than MCMC)\n"
    "  --seed S           MCMC seed (default 1)\n"
    "  --cutoff C         smallest per-device extent of a split dimension (default 4;\n"
    "                     1 for pase-rnnlm and pase-transformer)\n"
    "  --timing           also print the search's wall-clock time (varies run to run;\n"
    "                     without it the output is byte-identical across runs)\n"
    "  --time-limit S     wall-time limit in seconds (default 600): MCMC then returns\n"
    "                     its best so far and says so; the exact search stops with\n"
    "                     exit status 2\n"
    "  --skip-unknown     ONNX: unknown operators become free element-wise ops\n"
    "\n"
    "examples:\n"
    "  dnnpar plan pase-inception3 --search pase -p 8\n"
    "  dnnpar plan resnet50 --search pase --cluster 8xtpu-v3 --batch 256\n"
    "  dnnpar plan pase-transformer --search mcmc -p 16 --json t.json\n";

static const char repro_help[] =
    "usage: dnnpar reproduce pase [--json FILE] [--max-p P] [--threads N] [--timing]\n"
    "\n"
    "The PaSE paper's evaluation on our implementation (10 TFLOP/s, 16 GB/s, the\n"
    "prototype's defaults; batch 128 for the CNNs, 64 for RNNLM and Transformer):\n"
    "  Table I   search time per model and p (4 to 64): ours (GenerateSeq +\n"
    "            FindBestStrategy, and the breadth-first DP) beside the paper's and\n"
    "            the authors' prototype measured on this kind of machine, with our\n"
    "            best cost beside the prototype's (duplicate edges dropped as it does)\n"
    "  Table II  our strategies at p = 32 beside the paper's\n"
    "Our search times vary run to run: they are printed only with --timing, and\n"
    "never written to the JSON.\n"
    "\n"
    "  --max-p P    only device counts up to P (default 64)\n"
    "  --timing     print our search times (Table I's 'ours' and 'BF' columns)\n"
    "\n"
    "example:\n"
    "  dnnpar reproduce pase --json pase.json\n";

/* ---- hardware and options ------------------------------------------------ */

typedef struct {
    int p;
    long long batch;
    double flops;        /* peak FLOP/s per device */
    double bw_bps;       /* link bytes/s per device */
    int word_bytes;
    char hw[320];        /* one line for the report */
    int kinds;           /* device types with devices (0 without --cluster) */
    dnp_cluster cl;      /* --cluster */
} pase_hw;

static int parse_positive_double(const char *cmd, const char *opt, const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v > 0.0) || !isfinite(v)) {
        cli_error(cmd, "--%s must be a positive number, got '%s'", opt, text);
        return EXIT_USAGE;
    }
    *out = v;
    return 0;
}

static int parse_p(const char *cmd, const char *text, int *p)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < 1 || v > 65536) {
        cli_error(cmd, "-p must be a device count from 1 to 65536, got '%s'", text);
        return EXIT_USAGE;
    }
    *p = (int)v;
    return 0;
}

/* -p, --flops/--bw or --cluster.  A mixed cluster counts as its weakest
 * device and link (paper section V); its widest data type sets the word. */
static int setup_hw(const char *cmd, const cli_args *a, pase_hw *hw)
{
    const char *cl = cli_get(a, "cluster"), *fs = cli_get(a, "flops"), *bs = cli_get(a, "bw");
    const char *ps = cli_get(a, "p");
    int rc;
    hw->p = 0;
    hw->kinds = 0;
    if (ps != NULL && (rc = parse_p(cmd, ps, &hw->p)) != 0)
        return rc;
    if (cl != NULL && (fs != NULL || bs != NULL)) {
        cli_error(cmd, "give either --cluster or --flops and --bw, not both");
        return EXIT_USAGE;
    }
    if (cl == NULL) {
        if ((fs == NULL) != (bs == NULL)) {
            cli_error(cmd, "--flops and --bw go together (peak TFLOP/s and link GB/s)");
            return EXIT_USAGE;
        }
        double tf = 10.0, gbps = 16.0;
        if (fs != NULL && ((rc = parse_positive_double(cmd, "flops", fs, &tf)) != 0 ||
                           (rc = parse_positive_double(cmd, "bw", bs, &gbps)) != 0))
            return rc;
        if (hw->p == 0) {
            cli_error(cmd, "-p P (devices) is required, or --cluster SPEC");
            return EXIT_USAGE;
        }
        hw->flops = tf * 1e12;
        hw->bw_bps = gbps * 1e9;
        hw->word_bytes = 8;
        snprintf(hw->hw, sizeof hw->hw, "%d devices of %g TFLOP/s, links of %g GB/s, 8-byte words",
                 hw->p, tf, gbps);
        return 0;
    }
    dnp_cluster c;
    if ((rc = cli_load_cluster(cmd, cl, &c)) != 0)
        return rc;
    long long n = dnp_cluster_devices(&c);
    if (n < 1 || n > 65536) {
        cli_error(cmd, "cluster '%s' has %lld devices (1 to 65536)", cl, n);
        return EXIT_USAGE;
    }
    if (hw->p != 0 && hw->p != n) {
        cli_error(cmd, "-p %d does not match the %lld devices of --cluster %s", hw->p, n, cl);
        return EXIT_USAGE;
    }
    hw->p = (int)n;
    hw->flops = INFINITY;
    hw->bw_bps = INFINITY;
    hw->word_bytes = 1;
    int kinds = 0;
    hw->cl = c;
    for (int t = 0; t < c.n_types; t++) {
        if (c.counts[t] < 1)
            continue;
        kinds++;
        const dnp_device_type *d = &c.types[t];
        hw->flops = d->peak_flops < hw->flops ? d->peak_flops : hw->flops;
        hw->bw_bps = d->net_bw_bps < hw->bw_bps ? d->net_bw_bps : hw->bw_bps;
        hw->word_bytes = d->bytes_per_elem > hw->word_bytes ? d->bytes_per_elem : hw->word_bytes;
    }
    if (!(hw->flops > 0.0) || !(hw->bw_bps > 0.0) || !isfinite(hw->flops) ||
        !isfinite(hw->bw_bps)) {
        cli_error(cmd, "cluster '%s' needs a positive peak and network bandwidth", cl);
        return EXIT_USAGE;
    }
    hw->kinds = kinds;
    char spec[160];
    dnp_cluster_format(&c, spec, sizeof spec);
    snprintf(hw->hw, sizeof hw->hw, "%s: %g TFLOP/s, links of %g GB/s, %d-byte words%s", spec,
             hw->flops / 1e12, hw->bw_bps / 1e9, hw->word_bytes,
             kinds > 1 ? " (the weakest device and link, paper section V)" : "");
    return 0;
}

/* The model: a PaSE reference graph, else anything the tool loads. */
static int load_graph(const char *cmd, const char *name, const cli_args *a, long long batch,
                      pase_graph **out)
{
    dnp_error err = {0};
    if (pase_model_find(name) >= 0) {
        dnp_status st = pase_model_build(name, batch, out, &err);
        if (st != DNP_OK)
            cli_error(cmd, "%s", err.msg);
        return cli_exit_for(st);
    }
    dnp_graph *g = NULL;
    int rc = cli_load_model(cmd, name, a, &g);
    if (rc != 0)
        return rc;
    dnp_status st = pase_from_graph(g, batch, out, &err);
    dnp_graph_free(g);
    if (st != DNP_OK)
        cli_error(cmd, "%s: %s", name, err.msg);
    return cli_exit_for(st);
}

/* ---- progress ------------------------------------------------------------- */

typedef struct {
    const char *cmd;
    const char *what;
    int tty;
    double last_s;
} progress_state;

/* A progress line on stderr once a search has run for a second, when
 * stderr is a terminal (the tool's convention, docs/cli.md); cleared at
 * the end. */
static void on_progress(void *user, int done, int total, double elapsed_s)
{
    progress_state *ps = user;
    if (!ps->tty)
        return;
    if (done == total)
        fputs("\r\033[K", stderr);
    else
        fprintf(stderr, "\r\033[Kdnnpar %s: %s: %d/%d ops, %.1f s", ps->cmd, ps->what, done,
                total, elapsed_s);
    ps->last_s = elapsed_s;
    fflush(stderr);
}

/* ---- formatting ------------------------------------------------------------- */

static void fmt_dims(const pase_vertex *v, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int d = 0; d < v->rank && k + 5 < n; d++) {
        int multi = strlen(v->dim[d]) > 1;
        k += (size_t)snprintf(buf + k, n - k, "%s%s", (multi && d) ? "," : "", v->dim[d]);
    }
}

static void fmt_config(const pase_problem *pb, int v, int c, char *buf, size_t n)
{
    const pase_configs *cf = &pb->cfg[v];
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int d = 0; d < cf->rank && k < n; d++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", d ? "," : "",
                              cf->c[(size_t)c * (size_t)cf->rank + (size_t)d]);
    if (k < n)
        snprintf(buf + k, n - k, ")");
}

/* A FLOP figure: an exact integer when it is one (costs of whole
 * operations usually are), else a real. */
static json_t *flop_json(double x)
{
    if (x == floor(x) && fabs(x) < 9007199254740992.0)
        return json_integer((json_int_t)x);
    return json_real(x);
}

static json_t *config_json(const pase_problem *pb, int v, int c)
{
    json_t *a = json_array();
    const pase_configs *cf = &pb->cfg[v];
    for (int d = 0; d < cf->rank; d++)
        json_array_append_new(a, json_integer(cf->c[(size_t)c * (size_t)cf->rank + (size_t)d]));
    return a;
}

/* Sum of t_x over the active edges. */
static double transfer_total(const pase_problem *pb, const int *cfg)
{
    double f = 0.0;
    for (int k = 0; k < pb->n_e; k++) {
        const pase_edge *e = &pb->g->e[pb->edge[k]];
        f += pase_problem_edge_cost(pb, k, cfg[e->src], cfg[e->dst]);
    }
    return f;
}

/* ---- plan --------------------------------------------------------------- */

typedef struct {
    const char *name;   /* "data parallel", "expert (owt)", "mcmc" */
    double cost;        /* F, FLOP */
    long iters;         /* MCMC iterations, else 0 */
} baseline;

typedef struct {
    const char *source;
    const pase_problem *pb;
    const pase_hw *hw;
    const char *search;       /* "pase", "pase-bfs", "mcmc" */
    const int *cfg;
    double cost;
    baseline base[3];
    int n_base;
    int best_base;
    int dp_lo, dp_hi;         /* batch splits of the data-parallel baseline */
    double optimum;           /* mcmc: PaSE's optimum, or -1 */
    const pase_result *res;   /* pase: the DP's figures */
    char expert[40];
    double time_limit_s;      /* --time-limit */
    int limit_hit;            /* mcmc: stopped at the time limit (best so far) */
    int base_limit_hit;       /* pase: the MCMC baseline stopped at the time limit */
    const pase_fit_result *fit; /* shared model, pase: memory figures, or NULL */
    const pase_hetero_result *het; /* shared model, mixed cluster: the type split, or NULL */
    int used;                 /* devices the busiest op of the strategy uses */
} plan_report;

/* A cost in the problem's unit: seconds (shared model) or FLOP. */
static void fmt_cost(const pase_problem *pb, double x, char *buf, size_t n)
{
    if (pb->perf != NULL)
        cli_fmt_time(x, buf, n);
    else
        cli_fmt_si(x, buf, n);
}

/* The devices idle all step, warned on stderr and in the report. */
static void idle_warning(FILE *f, int used, int p, const char *what)
{
    if (used < p)
        fprintf(f, "warning: %s uses at most %d of the %d devices: %d idle all step\n", what,
                used, p, p - used);
}

static json_t *hetero_json(const plan_report *r)
{
    const pase_hetero_result *h = r->het;
    json_t *groups = json_array();
    for (int t = 0; t < h->n_groups; t++) {
        const pase_hetero_group *gr = &h->grp[t];
        json_t *ops = json_array();
        for (int v = 0; gr->g != NULL && v < gr->g->n_v; v++)
            json_array_append_new(ops, json_pack("{s:s,s:s}", "name", gr->g->v[v].name, "config",
                                                 gr->cfg_text[v]));
        json_array_append_new(
            groups, json_pack("{s:s,s:i,s:I,s:f,s:f,s:i,s:o}", "device",
                              r->hw->cl.types[gr->type].name, "devices", gr->n_dev, "batch",
                              (json_int_t)gr->batch, "time_s", gr->time_s, "mem_bytes",
                              gr->mem_bytes, "devices_used", gr->batch > 0 ? gr->devices_used : 0,
                              "strategy", ops));
    }
    return json_pack("{s:f,s:f,s:f,s:i,s:b,s:o,s:s}", "step_s", h->step_s, "sync_s", h->sync_s,
                     "grad_bytes", h->param_bytes, "candidates", h->candidates,
                     "exhaustive", h->exhaustive, "groups", groups, "chosen",
                     h->step_s < r->cost ? "type split" : "weakest device");
}

static json_t *plan_json(const plan_report *r)
{
    const pase_problem *pb = r->pb;
    json_t *ops = json_array();
    for (int v = 0; v < pb->n_v; v++) {
        const pase_vertex *x = &pb->g->v[v];
        char dims[64];
        fmt_dims(x, dims, sizeof dims);
        json_array_append_new(ops, json_pack("{s:s,s:s,s:s,s:o,s:o}", "name", x->name, "kind",
                                             pase_kind_name(x->kind), "dims", dims, "config",
                                             config_json(pb, v, r->cfg[v]),
                                             pb->perf ? "layer_cost_s" : "layer_cost_flop",
                                             pb->perf ? json_real(pb->tl[v][r->cfg[v]])
                                                      : flop_json(pb->tl[v][r->cfg[v]])));
    }
    json_t *bl = json_array();
    for (int i = 0; i < r->n_base; i++) {
        json_t *o = pb->perf ? json_pack("{s:s,s:f,s:f}", "name", r->base[i].name, "cost_s",
                                         r->base[i].cost, "ratio_to_search",
                                         r->base[i].cost / r->cost)
                             : json_pack("{s:s,s:o,s:f,s:f}", "name", r->base[i].name, "cost_flop",
                                         flop_json(r->base[i].cost), "cost_s",
                                         r->base[i].cost / r->hw->flops, "ratio_to_search",
                                         r->base[i].cost / r->cost);
        if (r->base[i].iters > 0)
            json_object_set_new(o, "iterations", json_integer(r->base[i].iters));
        if (i == 0) { /* data parallel: the batch split it uses */
            json_object_set_new(o, "batch_split_min", json_integer(r->dp_lo));
            json_object_set_new(o, "batch_split_max", json_integer(r->dp_hi));
        }
        json_array_append_new(bl, o);
    }
    json_t *root = json_pack(
        "{s:s,s:s,s:I,s:i,s:f,s:f,s:i,s:f,s:s,s:i,s:i,s:o,s:f,s:o,s:o,s:o,s:s}", "model",
        pb->g->name, "source", r->source, "batch", (json_int_t)r->hw->batch, "p", r->hw->p,
        "peak_flops", r->hw->flops, "link_bytes_per_s", r->hw->bw_bps, "word_bytes",
        r->hw->word_bytes, "r_flop_per_word", pb->par.r_w, "search", r->search, "ops", pb->n_v,
        "edges", pb->n_e, "cost_flop", flop_json(r->cost), "cost_s", r->cost / r->hw->flops,
        "transfer_flop", flop_json(transfer_total(pb, r->cfg)), "strategy", ops, "baselines", bl,
        "best_baseline", r->base[r->best_base].name);
    if (pb->perf != NULL) {
        /* the shared model: costs are seconds, not FLOP */
        json_object_del(root, "cost_flop");
        json_object_del(root, "transfer_flop");
        json_object_del(root, "r_flop_per_word");
        json_object_set_new(root, "cost_model", json_string("default"));
        json_object_set_new(root, "cost_s", json_real(r->cost));
        json_object_set_new(root, "transfer_s", json_real(transfer_total(pb, r->cfg)));
        json_object_set_new(root, "devices_used", json_integer(r->used));
        if (r->fit != NULL)
            json_object_set_new(root, "memory",
                                json_pack("{s:f,s:f,s:f,s:b}", "per_device_bytes",
                                          r->fit->mem_bytes, "least_bytes", r->fit->min_mem_bytes,
                                          "limit_bytes", pb->perf->mem_limit_bytes, "budgeted",
                                          r->fit->budgeted));
        if (r->het != NULL)
            json_object_set_new(root, "heterogeneous", hetero_json(r));
    }
    if (r->res != NULL)
        json_object_set_new(root, "tables",
                            json_pack("{s:i,s:f,s:f,s:f}", "max_dependent_set", r->res->max_dep,
                                      "largest_table_rows", r->res->max_rows, "work",
                                      r->res->work, "estimated_bytes", r->res->table_bytes));
    if (r->optimum >= 0.0)
        json_object_set_new(root, "pase_optimum_flop", flop_json(r->optimum));
    if (r->limit_hit || r->base_limit_hit)
        json_object_set_new(root, "time_limit",
                            json_pack("{s:f,s:b,s:s}", "seconds", r->time_limit_s, "reached", 1,
                                      "result",
                                      r->limit_hit ? "best plan found so far"
                                                   : "the MCMC baseline's best so far"));
    return root;
}

/* search_s < 0: no --timing, the search time is left out (docs/cli.md). */
static void plan_text(const plan_report *r, double search_s)
{
    const pase_problem *pb = r->pb;
    char t[32], si[32];
    printf("model %s: %d ops, %d edges; batch %lld; p = %d\n", pb->g->name, pb->n_v, pb->n_e,
           r->hw->batch, r->hw->p);
    if (pb->perf != NULL)
        printf("hardware: %s\ncost model: default (seconds: roofline at %s, collectives on the "
               "link tiers; docs/pase.md)\n",
               r->hw->hw, dnp_precision_name(pb->perf->r.precision));
    else
        printf("hardware: %s: r = %.6g FLOP per word\n", r->hw->hw, pb->par.r_w);
    if (r->limit_hit)
        printf("note: time limit reached after %g s: best plan found so far\n",
               r->time_limit_s);
    if (r->base_limit_hit)
        printf("note: time limit reached after %g s in the MCMC baseline: its best so far is "
               "shown\n",
               r->time_limit_s);
    printf("search: %s\n\n",
           strcmp(r->search, "mcmc") == 0
               ? "mcmc (FlexFlow-style, from the expert strategy)"
               : (strcmp(r->search, "pase") == 0 ? "pase (GenerateSeq + FindBestStrategy)"
                                                 : "pase breadth-first DP (recurrence 2)"));
    printf("%4s  %-34s %-19s %-8s %-24s %10s\n", "#", "op", "kind", "dims", "configuration",
           pb->perf ? "t_l" : "t_l FLOP");
    for (int v = 0; v < pb->n_v; v++) {
        const pase_vertex *x = &pb->g->v[v];
        char dims[64], cfg[96];
        fmt_dims(x, dims, sizeof dims);
        fmt_config(pb, v, r->cfg[v], cfg, sizeof cfg);
        fmt_cost(pb, pb->tl[v][r->cfg[v]], si, sizeof si);
        printf("%4d  %-34.34s %-19s %-8s %-24s %10s\n", v, x->name, pase_kind_name(x->kind), dims,
               cfg, si);
    }
    double tx = transfer_total(pb, r->cfg);
    if (pb->perf != NULL) {
        char l[32], x[32];
        cli_fmt_time(r->cost, t, sizeof t);
        cli_fmt_time(r->cost - tx, l, sizeof l);
        cli_fmt_time(tx, x, sizeof x);
        printf("\nstep time (sum of t_l and t_x) = %s: layers %s, transfers %s\n", t, l, x);
        if (r->fit != NULL && pb->perf->mem_limit_bytes > 0.0)
            printf("memory: %.3g GB per device of %.3g GB (least possible %.3g GB)%s\n",
                   r->fit->mem_bytes / 1e9, pb->perf->mem_limit_bytes / 1e9,
                   r->fit->min_mem_bytes / 1e9,
                   r->fit->budgeted ? "; the optimum did not fit: searched with per-op budgets"
                                    : "");
    } else {
        cli_fmt_time(r->cost / r->hw->flops, t, sizeof t);
        printf("\ncost F = %.2f FLOP (%s at peak): layers %.4g, transfers %.4g\n", r->cost, t,
               r->cost - tx, tx);
    }
    if (r->optimum >= 0.0)
        printf("PaSE's optimum F = %.2f FLOP; MCMC is %.4fx that\n", r->optimum,
               r->cost / r->optimum);
    printf("baselines in the same space and cost model:\n");
    for (int i = 0; i < r->n_base; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s", r->base[i].name);
        if (pb->perf != NULL) {
            cli_fmt_time(r->base[i].cost, t, sizeof t);
            printf("  %-24s %12s  %8.4fx", name, t, r->base[i].cost / r->cost);
        } else {
            cli_fmt_time(r->base[i].cost / r->hw->flops, t, sizeof t);
            printf("  %-24s %.6e FLOP %12s  %8.4fx", name, r->base[i].cost, t,
                   r->base[i].cost / r->cost);
        }
        if (r->base[i].iters > 0)
            printf("  (%ld iterations)", r->base[i].iters);
        printf("\n");
    }
    if (r->dp_lo != r->hw->p || r->dp_hi != r->hw->p) {
        char ways[48];
        if (r->dp_lo == r->dp_hi)
            snprintf(ways, sizeof ways, "%d way%s", r->dp_hi, r->dp_hi == 1 ? "" : "s");
        else
            snprintf(ways, sizeof ways, "%d to %d ways", r->dp_lo, r->dp_hi);
        printf("note: data parallel splits the batch %s, not %d: the largest split of batch "
               "%lld that is at most p and leaves at least %d samples per device (cutoff); "
               "%s%d of the %d devices idle\n",
               ways, r->hw->p, r->hw->batch, pb->g->cutoff,
               r->dp_lo == r->dp_hi ? "" : "at least ", r->hw->p - r->dp_hi, r->hw->p);
    }
    printf("best baseline: %s, %.4fx this strategy's cost\n", r->base[r->best_base].name,
           r->base[r->best_base].cost / r->cost);
    if (pb->perf != NULL)
        idle_warning(stdout, r->used, r->hw->p,
                     r->het != NULL ? "the weakest-device plan" : "the plan");
    if (r->het != NULL) {
        const pase_hetero_result *h = r->het;
        char a[32], b[32];
        cli_fmt_time(h->step_s, a, sizeof a);
        cli_fmt_time(h->sync_s, b, sizeof b);
        printf("\nbatch split across the device types (PaSE inside each type, %d splits "
               "evaluated%s):\n",
               h->candidates, h->exhaustive ? ", every integer split" : "");
        for (int g = 0; g < h->n_groups; g++) {
            const pase_hetero_group *gr = &h->grp[g];
            char tg[32];
            cli_fmt_time(gr->time_s, tg, sizeof tg);
            printf("  %3dx %-12s batch %5lld  %12s  %.3g GB per device\n", gr->n_dev,
                   r->hw->cl.types[gr->type].name, (long long)gr->batch, tg, gr->mem_bytes / 1e9);
        }
        printf("  gradient all-reduce across the types: %s (%.4g MB)\n", b, h->param_bytes / 1e6);
        printf("step time with the type split: %s, %.4fx the weakest-device plan\n", a,
               h->step_s / r->cost);
        int first = -1;
        for (int g = 0; g < h->n_groups; g++)
            if (h->grp[g].g != NULL && first < 0)
                first = g;
        if (first >= 0) {
            printf("%4s  %-34s", "#", "op");
            for (int g = 0; g < h->n_groups; g++)
                printf(" %-24.24s", r->hw->cl.types[h->grp[g].type].name);
            printf("\n");
            for (int v = 0; v < h->grp[first].g->n_v; v++) {
                printf("%4d  %-34.34s", v, h->grp[first].g->v[v].name);
                for (int g = 0; g < h->n_groups; g++)
                    printf(" %-24s", h->grp[g].g != NULL ? h->grp[g].cfg_text[v] : "idle");
                printf("\n");
            }
        }
        for (int g = 0; g < h->n_groups; g++) {
            char what[96];
            snprintf(what, sizeof what, "the %s group",
                     r->hw->cl.types[h->grp[g].type].name);
            idle_warning(stdout, h->grp[g].batch > 0 ? h->grp[g].devices_used : 0,
                         h->grp[g].n_dev, what);
        }
        printf("chosen: %s\n", h->step_s < r->cost ? "the type split" : "the weakest-device plan");
    }
    if (r->res != NULL)
        printf("tables: dependent sets of up to %d ops, largest table %.0f rows, estimated "
               "%.1f MB\n",
               r->res->max_dep, r->res->max_rows, r->res->table_bytes / 1048576.0);
    if (search_s >= 0.0) {
        cli_fmt_time(search_s, t, sizeof t);
        printf("search time: %s\n", t);
    }
}

/* The model at any batch, for the type split's groups. */
typedef struct {
    const char *name;
    const dnp_graph *core; /* NULL for a PaSE reference graph */
    int cutoff;            /* --cutoff, 0 = the graph's */
} graph_source;

static dnp_status build_at(void *user, int64_t batch, pase_graph **out, dnp_error *err)
{
    const graph_source *src = user;
    dnp_status st = src->core == NULL ? pase_model_build(src->name, batch, out, err)
                                      : pase_from_graph(src->core, batch, out, err);
    if (st == DNP_OK && src->cutoff > 0)
        (*out)->cutoff = src->cutoff;
    return st;
}

/* --cost-model, --precision, --optimizer, --memory-limit, --no-stragglers. */
static int parse_model_options(const char *cmd, const cli_args *a, int *paper,
                               pase_hetero_opts *ho)
{
    const char *s;
    *paper = 0;
    if ((s = cli_get(a, "cost-model")) != NULL) {
        int m = dnp_cost_model_from_name(s);
        if (m != DNP_COST_DEFAULT && m != DNP_COST_PASE_PAPER) {
            cli_error(cmd, "unknown cost model '%s' for the PaSE search (known: default, "
                           "pase-paper)",
                      s);
            return EXIT_USAGE;
        }
        *paper = m == DNP_COST_PASE_PAPER;
    }
    if ((s = cli_get(a, "precision")) != NULL) {
        int p = dnp_precision_from_name(s);
        if (p < 0) {
            cli_error(cmd, "unknown precision '%s' (known: fp32, tf32, fp16, bf16, amp)", s);
            return EXIT_USAGE;
        }
        ho->precision = (dnp_precision)p;
    }
    if ((s = cli_get(a, "optimizer")) != NULL) {
        int o = dnp_optimizer_from_name(s);
        if (o < 0) {
            cli_error(cmd, "unknown optimizer '%s' (known: momentum, sgd, adam)", s);
            return EXIT_USAGE;
        }
        ho->optimizer = (dnp_optimizer)o;
    }
    if ((s = cli_get(a, "memory-limit")) != NULL &&
        cli_parse_size(cmd, "memory-limit", s, &ho->mem_limit_bytes) != 0)
        return EXIT_USAGE;
    ho->no_stragglers = cli_flag(a, "no-stragglers");
    if (*paper && (cli_get(a, "precision") || cli_get(a, "optimizer") ||
                   cli_get(a, "memory-limit") || ho->no_stragglers)) {
        cli_error(cmd, "--precision, --optimizer, --memory-limit and --no-stragglers belong to "
                       "the default cost model, not pase-paper");
        return EXIT_USAGE;
    }
    return 0;
}

/* The shared model of the devices: one type, the weakest of several, or
 * a bare device of --flops / --bw (fp32, memory traffic and capacity
 * unknown, so neither is charged). */
static int setup_perf(const char *cmd, const pase_hw *hw, const pase_hetero_opts *ho,
                      pase_perf *perf)
{
    dnp_error err = {0};
    dnp_status st;
    if (hw->kinds > 1) {
        st = pase_perf_init_weakest(&hw->cl, ho->precision, ho->optimizer, ho->mem_limit_bytes,
                                    ho->no_stragglers, perf, &err);
    } else if (hw->kinds == 1) {
        int t = 0;
        while (hw->cl.counts[t] < 1)
            t++;
        st = pase_perf_init(&hw->cl.types[t], hw->p, ho->precision, ho->optimizer,
                            ho->mem_limit_bytes, ho->no_stragglers, perf, &err);
    } else {
        dnp_device_type d;
        memset(&d, 0, sizeof d);
        snprintf(d.name, sizeof d.name, "custom");
        d.peak_flops = hw->flops;
        d.net_bw_bps = d.inter_bw_bps = hw->bw_bps;
        d.bytes_per_elem = 4;
        snprintf(d.dtype, sizeof d.dtype, "fp32");
        d.devices_per_node = 1;
        st = pase_perf_init(&d, hw->p, ho->precision, ho->optimizer, ho->mem_limit_bytes,
                            ho->no_stragglers, perf, &err);
    }
    if (st != DNP_OK)
        cli_error(cmd, "%s", err.msg);
    return cli_exit_for(st);
}

int cmd_plan_pase(int argc, char **argv)
{
    static const char *const valued[] = {"search",  "p",          "batch",   "flops",
                                         "bw",      "cluster",    "json",    "max-memory",
                                         "threads", "mcmc-iters", "seed",    "cutoff",
                                         "time-limit", "cost-model", "precision", "optimizer",
                                         "memory-limit", NULL};
    static const char *const flags[] = {"help",    "prototype-edges", "bfs", "skip-unknown",
                                        "optimum", "timing",          "no-stragglers", NULL};
    const char *cmd = "plan";
    /* -p is the one short option: read it as --p */
    char **av = dnp_malloc((size_t)(argc + 1) * sizeof *av);
    if (av == NULL) {
        cli_error(cmd, "out of memory");
        return EXIT_RUNTIME;
    }
    char long_p[] = "--p";
    for (int i = 0; i < argc; i++)
        av[i] = strcmp(argv[i], "-p") == 0 ? long_p : argv[i];
    av[argc] = NULL;

    cli_spec spec = {valued, flags};
    cli_args a;
    int done = 0, rc;
    pase_graph *g = NULL;
    pase_problem pb;
    memset(&pb, 0, sizeof pb);
    pase_result res;
    memset(&res, 0, sizeof res);
    int *cfg = NULL, *tmp = NULL, *mcfg = NULL;
    int have_pb = 0;
    pase_fit_result fit;
    memset(&fit, 0, sizeof fit);
    pase_hetero_result het;
    memset(&het, 0, sizeof het);
    dnp_graph *core = NULL;
    pase_perf perf;
    pase_hetero_opts ho;
    memset(&ho, 0, sizeof ho);
    int paper = 0;
    rc = cli_begin(argc, av, &spec, cmd, plan_help, 1, "one MODEL", &a, &done);
    if (rc != 0 || done)
        goto out;
    const char *search = cli_get(&a, "search");
    int mcmc = search != NULL && strcmp(search, "mcmc") == 0;
    if (search == NULL || (!mcmc && strcmp(search, "pase") != 0)) {
        cli_error(cmd, "unknown search '%s' (known: accpar, dp, owt, hypar, pase, mcmc)",
                  search ? search : "");
        rc = EXIT_USAGE;
        goto out;
    }
    pase_hw hw;
    if ((rc = setup_hw(cmd, &a, &hw)) != 0)
        goto out;
    const char *s;
    int pm = pase_model_find(a.pos[0]);
    hw.batch = pm >= 0 ? (long long)pase_model_default_batch(pm) : 128;
    if ((s = cli_get(&a, "batch")) != NULL &&
        (hw.batch = cli_positive(cmd, "batch", s, 1LL << 40)) < 0) {
        rc = EXIT_USAGE;
        goto out;
    }
    long long max_mb = 2048, threads = 0, iters = 0, seed = 1, cutoff = 0;
    if (((s = cli_get(&a, "max-memory")) &&
         (max_mb = cli_positive(cmd, "max-memory", s, PASE_MAX_MEMORY_MB)) < 0) ||
        ((s = cli_get(&a, "threads")) && (threads = cli_positive(cmd, "threads", s, 256)) < 0) ||
        ((s = cli_get(&a, "mcmc-iters")) &&
         (iters = cli_positive(cmd, "mcmc-iters", s, 1000000000LL)) < 0) ||
        ((s = cli_get(&a, "seed")) && (seed = cli_positive(cmd, "seed", s, 1LL << 62)) < 0) ||
        ((s = cli_get(&a, "cutoff")) && (cutoff = cli_positive(cmd, "cutoff", s, 1 << 20)) < 0)) {
        rc = EXIT_USAGE;
        goto out;
    }
    if ((rc = parse_model_options(cmd, &a, &paper, &ho)) != 0)
        goto out;
    if (!paper && (rc = setup_perf(cmd, &hw, &ho, &perf)) != 0)
        goto out;
    if ((rc = load_graph(cmd, a.pos[0], &a, hw.batch, &g)) != 0)
        goto out;
    if (cutoff > 0)
        g->cutoff = (int)cutoff;
    pase_params par = {hw.p, hw.flops * hw.word_bytes / hw.bw_bps,
                       cli_flag(&a, "prototype-edges"), (double)max_mb * 1048576.0};
    dnp_error err = {0};
    dnp_status st = pase_problem_build_perf(g, &par, paper ? NULL : &perf, &pb, &err);
    if (st != DNP_OK) {
        cli_error(cmd, "%s", err.msg);
        rc = cli_exit_for(st);
        goto out;
    }
    have_pb = 1;
    cfg = dnp_malloc((size_t)pb.n_v * sizeof(int));
    tmp = dnp_malloc((size_t)pb.n_v * sizeof(int));
    mcfg = dnp_malloc((size_t)pb.n_v * sizeof(int));
    if (cfg == NULL || tmp == NULL || mcfg == NULL) {
        cli_error(cmd, "out of memory");
        rc = EXIT_RUNTIME;
        goto out;
    }
    progress_state ps = {cmd, "searching", isatty(STDERR_FILENO), 0.0};
    double limit_s = CLI_TIME_LIMIT_DEFAULT_S;
    if ((rc = cli_time_limit(cmd, &a, &limit_s)) != 0)
        goto out;
    pase_search_opts so = {(int)threads, on_progress, &ps, limit_s};
    pase_mcmc_opts mo;
    pase_mcmc_defaults(&mo);
    int mcmc_limit_hit = 0;
    mo.time_limit_s = limit_s;
    mo.time_limit_hit = &mcmc_limit_hit;
    if (iters > 0) {
        mo.max_iters = iters;
        mo.min_iters = iters < mo.min_iters ? iters : mo.min_iters;
    }
    mo.seed = (uint64_t)seed;

    plan_report r;
    memset(&r, 0, sizeof r);
    r.source = a.pos[0];
    r.pb = &pb;
    r.hw = &hw;
    r.optimum = -1.0;
    r.time_limit_s = limit_s;
    /* baselines: data parallelism and the expert strategy */
    pase_data_parallel(&pb, tmp);
    r.base[0].name = "data parallel";
    pase_data_parallel_split(&pb, tmp, &r.dp_lo, &r.dp_hi);
    r.base[0].cost = pase_objective(&pb, tmp);
    if ((st = pase_expert(&pb, tmp, r.expert, sizeof r.expert, &err)) != DNP_OK) {
        cli_error(cmd, "%s", err.msg);
        rc = cli_exit_for(st);
        goto out;
    }
    char expert_name[64];
    snprintf(expert_name, sizeof expert_name, "expert (%s)", r.expert);
    r.base[1].name = expert_name;
    r.base[1].cost = pase_objective(&pb, tmp);
    r.n_base = 2;
    double search_s = 0.0;
    if (mcmc) {
        double t0 = cli_now_s();
        long it = 0;
        if ((st = pase_mcmc(&pb, tmp, &mo, cfg, &it, &r.cost, &err)) != DNP_OK) {
            cli_error(cmd, "%s", err.msg);
            rc = cli_exit_for(st);
            goto out;
        }
        search_s = cli_now_s() - t0;
        r.limit_hit = mcmc_limit_hit;
        r.search = "mcmc";
        r.cfg = cfg;
        /* The exact search can take far longer than MCMC: only on request. */
        pase_result opt;
        if (cli_flag(&a, "optimum")) {
            if ((st = pase_search(&pb, 0, &so, &opt, &err)) != DNP_OK) {
                cli_error(cmd, "%s", err.msg);
                rc = cli_exit_for(st);
                goto out;
            }
            r.optimum = pase_objective(&pb, opt.cfg);
            pase_result_free(&opt);
        }
    } else {
        int bfs = cli_flag(&a, "bfs");
        if (!paper && !bfs) { /* the shared model: within the device memory */
            st = pase_fit_search(&pb, &so, &fit, &err);
            if (st == DNP_OK) {
                res = fit.res;
                res.cfg = fit.cfg;
                fit.cfg = NULL;
                r.fit = &fit;
            }
        } else {
            st = pase_search(&pb, bfs, &so, &res, &err);
        }
        if (st != DNP_OK) {
            cli_error(cmd, "%s", err.msg);
            rc = cli_exit_for(st);
            goto out;
        }
        search_s = res.search_s;
        r.search = bfs ? "pase-bfs" : "pase";
        r.cfg = res.cfg;
        r.cost = pase_objective(&pb, res.cfg);
        r.res = &res;
        long it = 0;
        if ((st = pase_mcmc(&pb, tmp, &mo, mcfg, &it, &r.base[2].cost, &err)) != DNP_OK) {
            cli_error(cmd, "%s", err.msg);
            rc = cli_exit_for(st);
            goto out;
        }
        r.base_limit_hit = mcmc_limit_hit;
        r.base[2].name = "mcmc (from the expert)";
        r.base[2].iters = it;
        r.n_base = 3;
    }
    r.used = pase_devices_used(&pb, r.cfg);
    if (!paper && !mcmc && hw.kinds > 1 && !cli_flag(&a, "bfs")) {
        /* several device types: split the batch across them (pase_hetero.c) */
        if (pase_model_find(a.pos[0]) < 0 && (rc = cli_load_model(cmd, a.pos[0], &a, &core)) != 0)
            goto out;
        graph_source src = {a.pos[0], core, (int)cutoff};
        ho.max_table_bytes = (double)max_mb * 1048576.0;
        ho.prototype_edges = cli_flag(&a, "prototype-edges");
        ho.search = &so;
        if ((st = pase_hetero_search(&hw.cl, hw.batch, build_at, &src, &ho, &het, &err)) !=
            DNP_OK) {
            cli_error(cmd, "%s", err.msg);
            rc = cli_exit_for(st);
            goto out;
        }
        r.het = &het;
        search_s += het.search_s;
    }
    if (!paper) { /* idle devices: on stderr too (docs/pase.md) */
        const pase_hetero_result *h = r.het;
        int chosen_split = h != NULL && h->step_s < r.cost;
        if (!chosen_split)
            idle_warning(stderr, r.used, hw.p, "the plan");
        for (int i = 0; chosen_split && i < h->n_groups; i++) {
            char what[96];
            snprintf(what, sizeof what, "the %s group", hw.cl.types[h->grp[i].type].name);
            idle_warning(stderr, h->grp[i].batch > 0 ? h->grp[i].devices_used : 0,
                         h->grp[i].n_dev, what);
        }
    }
    r.best_base = 0;
    for (int i = 1; i < r.n_base; i++)
        if (r.base[i].cost < r.base[r.best_base].cost)
            r.best_base = i;
    const char *json = cli_get(&a, "json");
    if (json != NULL && (rc = cli_write_json(cmd, json, plan_json(&r))) != 0)
        goto out;
    if (json == NULL || strcmp(json, "-") != 0)
        plan_text(&r, cli_flag(&a, "timing") ? search_s : -1.0);
    rc = EXIT_OK; /* main checks the final flush of standard output */
out:
    pase_result_free(&res);
    pase_fit_result_free(&fit);
    pase_hetero_result_free(&het);
    dnp_graph_free(core);
    if (have_pb)
        pase_problem_free(&pb);
    pase_graph_free(g);
    dnp_free(cfg);
    dnp_free(tmp);
    dnp_free(mcfg);
    dnp_free(av);
    return rc;
}

/* ---- reproduce ------------------------------------------------------------- */

/* Table I of the paper ("Ours", seconds) and the prototype measured on
 * this kind of machine (reference README and totals.csv; -1 unknown,
 * -2 did not finish in 20 minutes). */
typedef struct {
    const char *model;      /* our name */
    const char *paper;      /* the paper's column */
    double paper_s[5];      /* p = 4, 8, 16, 32, 64 */
    double proto_s[5];
    double proto_cost[5];   /* the prototype's best total, -1 unknown */
} table1_row;

static const table1_row table1[] = {
    {"pase-alexnet",
     "AlexNet",
     {0.226, 0.253, 0.295, 0.361, 0.475},
     {0.068, 0.076, 0.087, 0.119, 0.189},
     {148215719552.0, 97098296512.0, 70320712672.0, 53136349552.0, 41120456048.0}},
    {"pase-inception3",
     "InceptionV3",
     {14.398, 20.018, 39.791, 86.039, 196.253},
     {3.169, 5.594, -1, -1, 138.0},
     {986757044608.0, 782140602432.0, -1, -1, -1}},
    {"pase-rnnlm",
     "RNNLM",
     {0.057, 0.086, 0.069, 0.131, 0.215},
     {0.022, 0.025, 0.030, 0.081, 0.158},
     {6866837733376.0, 4024963186688.0, 2476066881536.0, 1491938058240.0, 935818633216.0}},
    {"pase-transformer",
     "Transformer",
     {9.752, 28.798, 130.882, 553.022, 1883.187},
     {5.966, 43.0, 310.0, -2, -1},
     {2189181321216.0, -1, -1, -1, -1}},
    {"pase-resnet101", "(ResNet-101)", {-1, -1, -1, -1, -1}, {-1, -1, -1, -1, -2},
     {-1, -1, -1, -1, -1}},
};

static const int table_p[5] = {4, 8, 16, 32, 64};

/* The paper's Table II (p = 32), one row per group of ops. */
typedef struct {
    const char *model;
    const char *row;
    const char *dims;        /* the paper's dimension letters */
    const char *config;
    const char *match;       /* op-name patterns, '|'-separated; '*' prefix = substring */
    int kind;                /* a pase_kind to keep, or -1 for any */
} table2_row;

static const table2_row table2[] = {
    {"pase-alexnet", "Conv 1-4", "bchwnrs", "(32,1,1,1,1,1,1)", "conv1|conv2|conv3|conv4", -1},
    {"pase-alexnet", "Conv 5", "bchwnrs", "(16,2,1,1,1,1,1)", "conv5", -1},
    {"pase-alexnet", "FC 1, FC 3", "bnc", "(1,4,8)", "fc6|fc8", -1},
    {"pase-alexnet", "FC 2", "bnc", "(1,8,4)", "fc7", -1},
    {"pase-alexnet", "Softmax", "bn", "(1,4)", "loss", -1},
    {"pase-inception3", "Modules A-D", "bchwnrs", "(32,1,1,1,1,1,1)",
     "*Mixed_5|*Mixed_6|*Mixed_7a", PASE_CONV},
    {"pase-inception3", "Module E", "bchwnrs", "(16,1,1,1,2,1,1)", "*Mixed_7b|*Mixed_7c",
     PASE_CONV},
    {"pase-inception3", "FC", "bnc", "(1,2,16)", "fc", -1},
    {"pase-inception3", "Softmax", "bn", "(1,2)", "loss", -1},
    {"pase-rnnlm", "Embedding", "bsdv", "(1,1,1,32)", "embedding", -1},
    {"pase-rnnlm", "LSTM", "lbsde", "(2,4,1,2,2)", "lstm", -1},
    {"pase-rnnlm", "FC", "bsvd", "(1,1,32,1)", "fc", -1},
    {"pase-rnnlm", "Softmax", "bsv", "(1,1,32)", "loss", -1},
    {"pase-transformer", "Embedding", "bsdv", "(1,1,1,16)", "*embedding", -1},
    {"pase-transformer", "Multihead attn", "bshck", "(16,1,2,1,1)",
     "*.qkv|*.logits|*.scores|*.out", PASE_EINSUM},
    {"pase-transformer", "Feed forward", "bsde", "(16,1,1,2)", "*.ff1|*.ff2", -1},
    {"pase-transformer", "FC", "bsvd", "(1,1,16,1)", "logits", -1},
    {"pase-transformer", "Softmax", "bsv", "(1,1,16)", "loss", -1},
};

static int name_matches(const char *name, const char *patterns)
{
    const char *p = patterns;
    while (*p) {
        const char *end = strchr(p, '|');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char pat[64];
        snprintf(pat, sizeof pat, "%.*s", (int)n, p);
        if (pat[0] == '*' ? strstr(name, pat + 1) != NULL : strcmp(name, pat) == 0)
            return 1;
        p += n;
        if (*p == '|')
            p++;
    }
    return 0;
}

typedef struct {
    int p;
    double cost;             /* F (duplicate edges as the prototype) */
    double search_s;         /* ours */
    double bfs_s;            /* ours, breadth-first; -1 refused by the guard, -2 skipped */
    double bfs_mb;           /* the tables the breadth-first DP would need */
    int ok;
} t1_cell;

/* One Table I cell: the search and the breadth-first DP. */
static int table1_cell(const char *model, int p, int threads, t1_cell *c)
{
    memset(c, 0, sizeof *c);
    c->p = p;
    int m = pase_model_find(model);
    pase_graph *g = NULL;
    dnp_error err = {0};
    if (pase_model_build(model, pase_model_default_batch(m), &g, &err) != DNP_OK) {
        cli_error("reproduce", "%s", err.msg);
        return EXIT_RUNTIME;
    }
    pase_params par = {p, 5000.0, 1, 2048.0 * 1048576.0};
    pase_problem pb;
    if (pase_problem_build(g, &par, &pb, &err) != DNP_OK) {
        cli_error("reproduce", "%s p %d: %s", model, p, err.msg);
        pase_graph_free(g);
        return EXIT_RUNTIME;
    }
    char what[64];
    snprintf(what, sizeof what, "%s, p = %d", model, p);
    progress_state ps = {"reproduce", what, isatty(STDERR_FILENO), 0.0};
    pase_search_opts so = {threads, on_progress, &ps, 0.0};
    pase_result r;
    int rc = EXIT_OK;
    if (pase_search(&pb, 0, &so, &r, &err) != DNP_OK) {
        cli_error("reproduce", "%s p %d: %s", model, p, err.msg);
        rc = EXIT_RUNTIME;
    } else {
        c->cost = pase_objective(&pb, r.cfg);
        c->search_s = r.search_s;
        c->ok = 1;
        pase_result_free(&r);
        /* the breadth-first DP, where its tables fit and its work is modest */
        pase_seq s;
        if (pase_bfs_seq(&pb, &s, &err) == DNP_OK) {
            double rows = 0, work = 0;
            double need = pase_dp_estimate(&pb, &s, threads > 0 ? threads : 2, &rows, &work);
            c->bfs_mb = need / 1048576.0;
            if (!(need <= par.max_bytes)) {
                c->bfs_s = -1;
            } else if (work > 2e8) {
                c->bfs_s = -2;
            } else if (pase_dp_run(&pb, &s, &so, &r, &err) == DNP_OK) {
                c->bfs_s = r.search_s;
                pase_result_free(&r);
            } else {
                c->bfs_s = -1;
            }
            pase_seq_free(&s);
        }
    }
    pase_problem_free(&pb);
    pase_graph_free(g);
    return rc;
}

static void fmt_secs(double s, char *buf, size_t n)
{
    if (s == -2)
        snprintf(buf, n, "> 20 min");
    else if (s < 0)
        snprintf(buf, n, "-");
    else
        cli_fmt_time(s, buf, n);
}

/* Distinct configurations of a group of ops, most frequent first. */
typedef struct {
    char text[160];
    int count;
} cfg_count;

static int group_configs(const pase_problem *pb, const int *cfg, const table2_row *t,
                         cfg_count *out, int max)
{
    int n = 0;
    for (int v = 0; v < pb->n_v; v++) {
        const pase_vertex *x = &pb->g->v[v];
        if ((t->kind >= 0 && (int)x->kind != t->kind) || !name_matches(x->name, t->match))
            continue;
        char dims[64], c[80], text[160];
        fmt_dims(x, dims, sizeof dims);
        fmt_config(pb, v, cfg[v], c, sizeof c);
        snprintf(text, sizeof text, "%s %s", dims, c);
        int k = 0;
        while (k < n && strcmp(out[k].text, text) != 0)
            k++;
        if (k == n && n < max) {
            snprintf(out[n].text, sizeof out[n].text, "%s", text);
            out[n++].count = 0;
        }
        if (k < n)
            out[k].count++;
    }
    for (int a = 1; a < n; a++) { /* stable: more ops first */
        cfg_count x = out[a];
        int b = a - 1;
        while (b >= 0 && out[b].count < x.count) {
            out[b + 1] = out[b];
            b--;
        }
        out[b + 1] = x;
    }
    return n;
}

/* The paper's configuration of row t for vertex v, in our dimension
 * order, when the paper's letters are a permutation of ours; 0 if not. */
static int paper_cfg(const pase_vertex *x, const table2_row *t, int32_t *out)
{
    int32_t pc[PASE_MAX_RANK];
    int np = 0;
    for (const char *s = t->config; *s && np < PASE_MAX_RANK;) {
        if (*s >= '0' && *s <= '9')
            pc[np++] = (int32_t)strtol(s, (char **)&s, 10);
        else
            s++;
    }
    if ((int)strlen(t->dims) != x->rank || np != x->rank)
        return 0;
    for (int d = 0; d < x->rank; d++) {
        const char *at = strchr(t->dims, x->dim[d][0]);
        if (at == NULL || strlen(x->dim[d]) != 1)
            return 0;
        out[d] = pc[at - t->dims];
    }
    return 1;
}

static int row_matches(const pase_vertex *x, const table2_row *t)
{
    return (t->kind < 0 || (int)x->kind == t->kind) && name_matches(x->name, t->match);
}

/* The paper's row in our dimension order ("" if it does not map). */
static void paper_in_our_order(const pase_problem *pb, const table2_row *t, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int v = 0; v < pb->n_v; v++) {
        int32_t c[PASE_MAX_RANK];
        if (!row_matches(&pb->g->v[v], t) || !paper_cfg(&pb->g->v[v], t, c))
            continue;
        size_t k = (size_t)snprintf(buf, n, "(");
        for (int d = 0; d < pb->g->v[v].rank && k < n; d++)
            k += (size_t)snprintf(buf + k, n - k, "%s%d", d ? "," : "", c[d]);
        if (k < n)
            snprintf(buf + k, n - k, ")");
        return;
    }
}

/* The best F with the ops of the paper's rows held at the paper's
 * configurations (every other op free): the same DP with the other
 * configurations of those ops priced out.  -1 if a row does not map onto
 * our dims, -2 if a configuration is not one of ours (cutoff or p). */
static double paper_constrained_optimum(pase_problem *pb, const char *model, int threads)
{
    int n = pb->n_v;
    double **saved = dnp_calloc((size_t)n, sizeof(double *));
    double f = 0.0;
    if (saved == NULL)
        return -1.0;
    for (size_t i = 0; i < sizeof table2 / sizeof table2[0] && f == 0.0; i++) {
        if (strcmp(table2[i].model, model) != 0)
            continue;
        for (int v = 0; v < n && f == 0.0; v++) {
            int32_t c[PASE_MAX_RANK];
            if (!row_matches(&pb->g->v[v], &table2[i]))
                continue;
            int k = -1;
            if (!paper_cfg(&pb->g->v[v], &table2[i], c))
                f = -1.0;
            else if ((k = pase_configs_find(&pb->cfg[v], c)) < 0)
                f = -2.0;
            if (k < 0 || saved[v] != NULL)
                continue;
            saved[v] = dnp_malloc((size_t)pb->cfg[v].n * sizeof(double));
            if (saved[v] == NULL) {
                f = -1.0;
                break;
            }
            memcpy(saved[v], pb->tl[v], (size_t)pb->cfg[v].n * sizeof(double));
            for (int x = 0; x < pb->cfg[v].n; x++)
                if (x != k)
                    pb->tl[v][x] = INFINITY;
        }
    }
    if (f == 0.0) {
        pase_search_opts so = {threads, NULL, NULL, 0.0};
        pase_result r;
        dnp_error err = {0};
        f = pase_search(pb, 0, &so, &r, &err) == DNP_OK ? r.cost : -1.0;
        if (f >= 0.0)
            pase_result_free(&r);
    }
    for (int v = 0; v < n; v++)
        if (saved[v] != NULL) {
            memcpy(pb->tl[v], saved[v], (size_t)pb->cfg[v].n * sizeof(double));
            dnp_free(saved[v]);
        }
    dnp_free(saved);
    return f;
}

int reproduce_pase(int argc, char **argv)
{
    static const char *const valued[] = {"json", "max-p", "threads", NULL};
    static const char *const flags[] = {"help", "timing", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done = 0;
    int rc = cli_begin(argc, argv, &spec, "reproduce", repro_help, 1, "'pase'", &a, &done);
    if (rc != 0 || done)
        return rc;
    const char *s;
    long long max_p = 64, threads = 0;
    if (((s = cli_get(&a, "max-p")) && (max_p = cli_positive("reproduce", "max-p", s, 64)) < 0) ||
        ((s = cli_get(&a, "threads")) &&
         (threads = cli_positive("reproduce", "threads", s, 256)) < 0))
        return EXIT_USAGE;
    const char *json = cli_get(&a, "json");
    int n_models = (int)(sizeof table1 / sizeof table1[0]);
    t1_cell cells[5][5];
    memset(cells, 0, sizeof cells);
    for (int m = 0; m < n_models && rc == 0; m++)
        for (int k = 0; k < 5 && rc == 0; k++)
            if (table_p[k] <= max_p)
                rc = table1_cell(table1[m].model, table_p[k], (int)threads, &cells[m][k]);
    if (rc != 0)
        return rc;

    /* Table II: our strategies at p = 32 (both duplicate edges counted) */
    const int n_t2_models = 4;
    pase_graph *g2[4] = {0};
    pase_problem pb2[4];
    int *cfg2[4] = {0};
    int have2[4] = {0};
    memset(pb2, 0, sizeof pb2);
    int p2 = max_p < 32 ? (int)max_p : 32;
    for (int m = 0; m < n_t2_models && rc == 0; m++) {
        dnp_error err = {0};
        const char *model = table1[m].model;
        if (pase_model_build(model, pase_model_default_batch(pase_model_find(model)), &g2[m],
                             &err) != DNP_OK) {
            cli_error("reproduce", "%s", err.msg);
            rc = EXIT_RUNTIME;
            break;
        }
        pase_params par = {p2, 5000.0, 0, 2048.0 * 1048576.0};
        if (pase_problem_build(g2[m], &par, &pb2[m], &err) != DNP_OK) {
            cli_error("reproduce", "%s", err.msg);
            rc = EXIT_RUNTIME;
            break;
        }
        have2[m] = 1;
        pase_search_opts so = {(int)threads, NULL, NULL, 0.0};
        pase_result r;
        if (pase_search(&pb2[m], 0, &so, &r, &err) != DNP_OK) {
            cli_error("reproduce", "%s", err.msg);
            rc = EXIT_RUNTIME;
            break;
        }
        cfg2[m] = r.cfg;
    }

    if (rc == 0 && json != NULL) {
        json_t *t1 = json_array();
        for (int m = 0; m < n_models; m++)
            for (int k = 0; k < 5; k++) {
                const t1_cell *c = &cells[m][k];
                if (!c->ok)
                    continue;
                double pc = table1[m].proto_cost[k];
                json_t *o = json_pack("{s:s,s:i,s:I,s:o}", "model", table1[m].model, "p", c->p,
                                      "batch",
                                      (json_int_t)pase_model_default_batch(
                                          pase_model_find(table1[m].model)),
                                      "cost_flop", flop_json(c->cost));
                json_object_set_new(o, "prototype_cost_flop", pc > 0 ? flop_json(pc) : json_null());
                json_object_set_new(o, "matches_prototype",
                                    pc > 0 ? json_boolean(fabs(c->cost - pc) <= 1e-9 * pc)
                                           : json_null());
                double ps = table1[m].paper_s[k], qs = table1[m].proto_s[k];
                json_object_set_new(o, "paper_search_s", ps > 0 ? json_real(ps) : json_null());
                json_object_set_new(o, "prototype_search_s", qs > 0 ? json_real(qs) : json_null());
                if (qs == -2)
                    json_object_set_new(o, "prototype_note",
                                        json_string("did not finish in 20 minutes"));
                json_object_set_new(o, "breadth_first",
                                    json_string(c->bfs_s == -1   ? "over the memory guard"
                                                : c->bfs_s == -2 ? "skipped (work)"
                                                                 : "ran"));
                json_object_set_new(o, "breadth_first_table_mb", json_real(c->bfs_mb));
                json_array_append_new(t1, o);
            }
        json_t *t2 = json_array();
        for (size_t i = 0; i < sizeof table2 / sizeof table2[0]; i++) {
            const table2_row *t = &table2[i];
            int m = pase_model_find(t->model) == 0   ? 0
                    : pase_model_find(t->model) == 1 ? 1
                    : pase_model_find(t->model) == 2 ? 2
                                                     : 3;
            cfg_count cc[16];
            int n = group_configs(&pb2[m], cfg2[m], t, cc, 16);
            json_t *ours = json_array();
            for (int k = 0; k < n; k++)
                json_array_append_new(ours, json_pack("{s:s,s:i}", "config", cc[k].text, "ops",
                                                      cc[k].count));
            char mine[96];
            paper_in_our_order(&pb2[m], t, mine, sizeof mine);
            json_array_append_new(t2, json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "model", t->model,
                                                "row", t->row, "paper_dims", t->dims,
                                                "paper_config", t->config,
                                                "paper_config_in_our_order", mine, "ours", ours));
        }
        rc = cli_write_json("reproduce", json,
                            json_pack("{s:i,s:f,s:o,s:i,s:o}", "words_bytes", 8, "r_flop_per_word",
                                      5000.0, "table1", t1, "table2_p", p2, "table2", t2));
    }
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0)) {
        printf("PaSE (Elango, IPDPS 2021) on dnnpar: 10 TFLOP/s, 16 GB/s, r = 5000 FLOP per "
               "word; batch 128 (CNNs), 64 (RNNLM, Transformer)\n\n");
        int timing = cli_flag(&a, "timing");
        printf("Table I: search time (ours: GenerateSeq + FindBestStrategy; BF: our breadth-first "
               "DP)\n");
        printf("and the best cost F beside the prototype's (duplicate edges dropped as it "
               "does)%s\n\n",
               timing ? "" : ";\nours and BF show their times with --timing");
        printf("%-16s %3s %20s %6s %10s %10s %10s %12s\n", "model", "p", "F (FLOP)", "= proto",
               "ours", "BF", "paper", "prototype");
        for (int m = 0; m < n_models; m++)
            for (int k = 0; k < 5; k++) {
                const t1_cell *c = &cells[m][k];
                if (!c->ok)
                    continue;
                char ours[24], bf[24], paper[24], proto[24];
                if (timing)
                    fmt_secs(c->search_s, ours, sizeof ours);
                else
                    snprintf(ours, sizeof ours, "ran");
                if (c->bfs_s == -1)
                    snprintf(bf, sizeof bf, "guard");
                else if (c->bfs_s == -2)
                    snprintf(bf, sizeof bf, "skipped");
                else if (timing)
                    fmt_secs(c->bfs_s, bf, sizeof bf);
                else
                    snprintf(bf, sizeof bf, "ran");
                fmt_secs(table1[m].paper_s[k], paper, sizeof paper);
                fmt_secs(table1[m].proto_s[k], proto, sizeof proto);
                double pc = table1[m].proto_cost[k];
                printf("%-16s %3d %20.2f %6s %10s %10s %10s %12s\n", table1[m].model, c->p,
                       c->cost, pc > 0 ? (fabs(c->cost - pc) <= 1e-9 * pc ? "yes" : "NO") : "-",
                       ours, bf, paper, proto);
            }
        printf("\nBF: 'guard' = its tables exceed the 2 GB memory guard (the paper's OOM);\n"
               "'skipped' = over 2e8 table entries x configurations of work.\n"
               "Prototype: measured on this kind of machine, one core (reference README);\n"
               "'> 20 min' = did not finish in 20 minutes.  Paper: its Table I (its prototype\n"
               "and machine).  Our search times vary from run to run (--timing prints them);\n"
               "bench/bench_pase.c has medians.\n");
        printf("\nTable II: strategies at p = %d (ours count both duplicate edges)\n", p2);
        const char *last = "";
        for (size_t i = 0; i < sizeof table2 / sizeof table2[0]; i++) {
            const table2_row *t = &table2[i];
            int m = pase_model_find(t->model);
            if (m < 0 || m > 3)
                continue;
            if (strcmp(last, t->model) != 0) {
                printf("\n%s\n", t->model);
                last = t->model;
            }
            cfg_count cc[16];
            int n = group_configs(&pb2[m], cfg2[m], t, cc, 16);
            char mine[96];
            paper_in_our_order(&pb2[m], t, mine, sizeof mine);
            int same = mine[0] != '\0' && n == 1 && strstr(cc[0].text, mine) != NULL;
            printf("  %-15s paper %-7s %-18s", t->row, t->dims, t->config);
            if (mine[0])
                printf(" = %s", mine);
            printf("%s\n", mine[0] == '\0' ? "" : (same ? "  (same)" : "  (differs)"));
            for (int k = 0; k < n; k++)
                printf("  %-15s ours  %-30s x%d\n", "", cc[k].text, cc[k].count);
        }
        printf("\nThe paper's rows under the prototype's cost model: the best F with those\n"
               "ops held at the paper's configurations (all other ops free):\n");
        for (int m = 0; m < n_t2_models; m++) {
            double opt = pase_objective(&pb2[m], cfg2[m]);
            double f = paper_constrained_optimum(&pb2[m], table1[m].model, (int)threads);
            printf("  %-16s optimum %.2f; ", table1[m].model, opt);
            if (f == -1.0)
                printf("the paper's dimensions do not map onto ours\n");
            else if (f == -2.0)
                printf("a paper configuration is not a valid one here\n");
            else if (f > opt * (1 + 1e-12))
                printf("with the paper's rows %.2f (+%.2f%%):\n%18s not optimal under this cost "
                       "model, so the prototype, which finds\n%18s the optimum, does not report "
                       "the paper's rows\n",
                       f, 100.0 * (f / opt - 1.0), "", "");
            else
                printf("with the paper's rows %.2f: a tie\n", f);
        }
        printf("Where ours differ from the paper but cost the same, the optimum is tied and\n"
               "the choice is the tie-breaking's (docs/pase.md).\n");
    }
    for (int m = 0; m < n_t2_models; m++) {
        dnp_free(cfg2[m]);
        if (have2[m])
            pase_problem_free(&pb2[m]);
        pase_graph_free(g2[m]);
    }
    return rc;
}
