/*
 * cmd_pase.c - `dnnpar plan MODEL --search pase|mcmc` (PaSE, Elango,
 * IPDPS 2021) and `dnnpar reproduce pase` (the paper's Tables I and II
 * beside ours and the authors' prototype): argument parsing over
 * dnnpar.h's dnp_pase_* API, which runs the searches and writes the
 * reports (src/search/pase/, docs/pase.md).
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --max-memory's ceiling, MiB (2^20 bytes): 64 GiB.  The search's tables are allocated
 * in full before it runs, so a limit above the machine's memory only
 * turns a clear refusal into a failed allocation; a larger table is
 * better searched with mcmc. */
#define PASE_MAX_MEMORY_MIB 65536LL
/* -p's ceiling: the largest device count PaSE's configurations are
 * enumerated for (dnp_pase_hw_uniform). */
#define PASE_MAX_P 65536LL

static const char plan_help[] =
    "usage: dnnpar plan MODEL --search pase|mcmc -p P [--batch B]\n"
    "                   [--flops TF --bw GBps | --cluster SPEC] [--json FILE]\n"
    "                   [--max-memory MIB] [--threads N] [--prototype-edges] [--bfs]\n"
    "                   [--mcmc-iters N] [--seed S] [--cutoff C] [--optimum] [--timing]\n"
    "                   [--time-limit S] [--cost-model default|pase-paper]\n"
    "                   [--precision P] [--optimizer O] [--memory-limit SIZE]\n"
    "                   [--no-stragglers] [--strategy-json FILE] [--strategy-space]\n"
    "                   [--no-refine]\n"
    "\n"
    "Split every op's iteration space over P devices (any dimension, any divisor)\n"
    "and find the strategy of least cost F = sum of layer costs + transfer costs\n"
    "(PaSE, Elango 2021, Eq. 1): GenerateSeq orders the ops and FindBestStrategy's\n"
    "dynamic program finds the optimum.  Prints every op's configuration, F and the\n"
    "baselines in the same space (data parallelism, the expert strategy, MCMC).\n"
    "docs/pase.md has the model.\n"
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
    "  --bw GBps          link GB/s per device, 8-byte words (default 16: with 10\n"
    "                     TFLOP/s r = 5000 FLOP per word, the prototype's)\n"
    "  --cluster SPEC     the devices' figures instead; with several device types the\n"
    "                     batch is split across them (PaSE inside each)\n"
    "  --cost-model M     default: t_l and t_x in seconds on the shared performance\n"
    "                     model (roofline, collectives on link tiers, device memory);\n"
    "                     pase-paper: the prototype's Eq. 1 in FLOP-equivalents\n"
    "  --precision P      fp32, tf32, fp16, bf16, amp (default: the devices' dtype)\n"
    "  --optimizer O      momentum, sgd, adam (default: adam for attention models)\n"
    "  --memory-limit SIZE  memory per device (default: the device's capacity)\n"
    "  --no-stragglers    ignore the devices' speed spread\n"
    "  --max-memory MIB   tables' limit, MiB (default 2048): over it ops get pinned\n"
    "  --threads N        worker threads (default: the online CPUs, at most 8)\n"
    "  --prototype-edges  an op feeding two inputs of one consumer counts once\n"
    "  --bfs              the breadth-first DP (recurrence 2) instead\n"
    "  --mcmc-iters N     MCMC budget (default 250000)\n"
    "  --optimum          with mcmc: also run the exact search and compare\n"
    "  --seed S           MCMC seed (default 1)\n"
    "  --cutoff C         smallest per-device extent of a split dimension (default 4;\n"
    "                     1 for pase-rnnlm and pase-transformer)\n"
    "  --timing           also print the search's wall time (varies run to run)\n"
    "  --time-limit S     wall time of the command, s (default 600): MCMC returns its\n"
    "                     best so far; the exact search stops with exit status 2\n"
    "  --skip-unknown     ONNX: unknown operators become free element-wise ops\n"
    "  --json FILE        the plan (docs/formats.md \"Plan\"; simulate --strategy)\n"
    "  --strategy-json FILE  --json's older name, insisting on a tree (needs\n"
    "                     --cluster of 2^k devices; else --strategy-space)\n"
    "  --strategy-space   search what a strategy holds: batch, input, output splits\n"
    "                     (joins batch, channel) by powers of two (mixed --cluster:\n"
    "                     also without it; kept if faster)\n"
    "  --no-refine        keep PaSE's optimum (default model, one device type: else\n"
    "                     the step simulator refines each decided op's configuration)\n"
    "\n"
    "examples:\n"
    "  dnnpar plan pase-inception3 --search pase -p 8\n"
    "  dnnpar plan resnet50 --search pase --cluster 8xtpu-v3 --batch 256\n"
    "  dnnpar plan pase-transformer --search mcmc -p 16\n";

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
    "  Fig. 6    speed-ups over data parallelism of the expert strategy, MCMC\n"
    "            (FlexFlow's stand-in) and PaSE on 1080 Ti and 2080 Ti nodes, as\n"
    "            dnnpar's default model predicts them (fp32, seconds), beside what\n"
    "            the paper's text says it measured (its maxima)\n"
    "Our search times vary run to run: they are printed only with --timing, and\n"
    "never written to the JSON.\n"
    "\n"
    "  --max-p P    only device counts up to P (default 64)\n"
    "  --timing     print our search times (Table I's 'ours' and 'BF' columns)\n"
    "\n"
    "example:\n"
    "  dnnpar reproduce pase --json pase.json\n";

/* ---- hardware ------------------------------------------------------------ */

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
    if (errno != 0 || end == text || *end != '\0' || v < 1 || v > PASE_MAX_P) {
        cli_error(cmd, "-p must be a device count from 1 to %lld, got '%s'", PASE_MAX_P, text);
        return EXIT_USAGE;
    }
    *p = (int)v;
    return 0;
}

/* -p, --flops/--bw (10 TFLOP/s and 16 GB/s by default, the prototype's)
 * or --cluster. */
static int setup_hw(const char *cmd, const cli_args *a, dnp_pase_hw *hw)
{
    const char *cl = cli_get(a, "cluster"), *fs = cli_get(a, "flops"), *bs = cli_get(a, "bw");
    const char *ps = cli_get(a, "p");
    int rc, p = 0;
    dnp_error err = {0};
    if (ps != NULL && (rc = parse_p(cmd, ps, &p)) != 0)
        return rc;
    if (cl != NULL && (fs != NULL || bs != NULL)) {
        cli_error(cmd, "give either --cluster or --flops and --bw, not both");
        return EXIT_USAGE;
    }
    dnp_status st;
    if (cl == NULL) {
        if ((fs == NULL) != (bs == NULL)) {
            cli_error(cmd, "--flops and --bw go together (peak TFLOP/s and link GB/s)");
            return EXIT_USAGE;
        }
        double tf = 10.0, gbps = 16.0;
        if (fs != NULL && ((rc = parse_positive_double(cmd, "flops", fs, &tf)) != 0 ||
                           (rc = parse_positive_double(cmd, "bw", bs, &gbps)) != 0))
            return rc;
        if (p == 0) {
            cli_error(cmd, "-p P (devices) is required, or --cluster SPEC");
            return EXIT_USAGE;
        }
        st = dnp_pase_hw_uniform(p, tf * 1e12, gbps * 1e9, hw, &err);
    } else {
        dnp_cluster c;
        if ((rc = cli_load_cluster(cmd, cl, &c)) != 0)
            return rc;
        long long n = dnp_cluster_devices(&c);
        if (n < 1 || n > PASE_MAX_P) {
            cli_error(cmd, "cluster '%s' has %lld devices (1 to %lld)", cl, n, PASE_MAX_P);
            return EXIT_USAGE;
        }
        if (p != 0 && p != n) {
            cli_error(cmd, "-p %d does not match the %lld devices of --cluster %s", p, n, cl);
            return EXIT_USAGE;
        }
        st = dnp_pase_hw_from_cluster(&c, hw, &err);
    }
    if (st != DNP_OK)
        cli_error(cmd, "%s", err.msg);
    return cli_exit_for(st);
}

/* ---- progress -------------------------------------------------------------- */

/* The commands' names, the progress callback's user pointer. */
static char plan_name[] = "plan", reproduce_name[] = "reproduce";

/* A progress line on stderr once a search has run for a second, when
 * stderr is a terminal (the tool's convention, docs/cli.md); cleared at
 * the end.  user: the command's name. */
static void on_progress(void *user, const char *what, int done, int total, double elapsed_s)
{
    if (!isatty(STDERR_FILENO))
        return;
    if (done == total)
        fputs("\r\033[K", stderr);
    else
        fprintf(stderr, "\r\033[Kdnnpar %s: %s: %d/%d ops, %.1f s", (const char *)user, what,
                done, total, elapsed_s);
    fflush(stderr);
}

/* Write a report: JSON to `json` if given (json_text, freed here), then
 * the text on stdout unless the JSON went there. */
static int write_reports(const char *cmd, const char *json, char *json_text,
                         void (*print)(const void *, int, FILE *), const void *obj, int timing)
{
    int rc = EXIT_OK;
    if (json != NULL) {
        if (json_text == NULL) {
            cli_error(cmd, "out of memory writing JSON");
            return EXIT_RUNTIME;
        }
        rc = cli_write_text(cmd, json, json_text);
        dnp_free(json_text);
    }
    if (rc == EXIT_OK && (json == NULL || strcmp(json, "-") != 0))
        print(obj, timing, stdout);
    return rc; /* main checks the final flush of standard output */
}

/* plan --search pase|mcmc's report: the run's, then (with --cluster, default
 * model) its plan in the step simulator, as every other search's plan. */
typedef struct {
    const dnp_pase_run *run;
    int sim_asked;
    int have_sim;
    dnp_plan_summary sim;
    char why[400];
} run_report;

/* The simulated plan of the run into rr: from the strategy ss holds
 * (dnp_pase_search_plan), else written from the run (dnp_pase_run_plan);
 * why it has none in rr->why. */
static void simulate_run(const char *cmd, const cli_args *a, const dnp_pase_strategy_search *ss,
                         run_report *rr)
{
    const char *spec = cli_get(a, "cluster");
    const char *cm = cli_get(a, "cost-model");
    rr->sim_asked = spec != NULL && (cm == NULL || strcmp(cm, "default") == 0);
    if (!rr->sim_asked)
        return;
    dnp_cluster cl;
    dnp_graph *g = NULL;
    dnp_plan *p = NULL;
    dnp_error err = {0};
    dnp_status st = cli_read_cluster(spec, &cl, &err);
    if (st == DNP_OK && ss->strategy != NULL)
        st = dnp_pase_search_plan(ss, &cl, &p, &err);
    else if (st == DNP_OK)
        st = cli_load_model(cmd, a->pos[0], a, &g) == 0
                 ? dnp_pase_run_plan(rr->run, g, &cl, &p, NULL, &err)
                 : DNP_ERR_INPUT;
    if (st == DNP_OK) {
        dnp_plan_get_summary(p, &rr->sim);
        rr->have_sim = 1;
    } else {
        snprintf(rr->why, sizeof rr->why, "%.300s%s", err.msg,
                 strstr(err.msg, "splits its dimension") != NULL
                     ? "; --strategy-space searches plans the simulator runs"
                     : "");
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
}

static void print_run(const void *x, int timing, FILE *f)
{
    const run_report *rr = x;
    dnp_pase_run_print(rr->run, timing, f);
    if (!rr->sim_asked)
        return;
    if (rr->have_sim) {
        char t[32], c[32], m[32], h[32], w[32], waits[128] = "";
        dnp_fmt_time(rr->sim.step_time_s, t, sizeof t);
        dnp_fmt_time(rr->sim.compute_s, c, sizeof c);
        dnp_fmt_time(rr->sim.comm_s, m, sizeof m);
        dnp_fmt_time(rr->sim.host_wait_s, h, sizeof h);
        dnp_fmt_time(rr->sim.wait_s, w, sizeof w);
        /* the parts add up to the step (dnp_plan_summary) */
        if (rr->sim.host_wait_s > 0.0 && rr->sim.wait_s > 0.0)
            snprintf(waits, sizeof waits, ", waiting %s for the host and %s for other devices", h,
                     w);
        else if (rr->sim.host_wait_s > 0.0)
            snprintf(waits, sizeof waits, ", waiting %s for the host", h);
        else if (rr->sim.wait_s > 0.0)
            snprintf(waits, sizeof waits, ", waiting %s for other devices", w);
        cli_wrapf(f, 0, "  ",
                  "simulated step time %s: compute %s, exposed communication %s%s (this plan in "
                  "the step simulator, as every search's plan; docs/time-model.md)",
                  t, c, m, waits);
        if (!rr->sim.mem_fits) /* PaSE's own count is per op (docs/pase.md "Memory") */
            cli_wrapf(f, 0, "  ",
                      "** DOES NOT FIT in the step simulator: %.4g GB per device of %.4g GB ** "
                      "(it counts each tensor once, and a follower op at its decider's layout; "
                      "PaSE's count above is per op, at each op's own configuration; "
                      "docs/pase.md \"Memory\")",
                      rr->sim.mem_bytes_max / 1e9, rr->sim.mem_capacity_bytes / 1e9);
    } else {
        cli_wrapf(f, 0, "  ", "simulated step time: n/a (%s)", rr->why);
    }
}

/* The plan's tree (docs/formats.md "Plan"): "levels", "total_levels" and
 * "paths" of the strategy text (version 2, dnp_pase_run_strategy) moved
 * into sg, and its cluster into *cluster (new reference).  1 on success.
 * O(length). */
static int tree_into(const char *text, json_t *sg, json_t **cluster)
{
    json_t *doc = json_loads(text, 0, NULL);
    const char *keys[3] = {"levels", "total_levels", "paths"};
    int ok = doc != NULL && json_object_get(doc, "paths") != NULL;
    for (int k = 0; ok && k < 3; k++)
        json_object_set(sg, keys[k], json_object_get(doc, keys[k]));
    if (ok)
        *cluster = json_incref(json_object_get(doc, "cluster"));
    json_decref(doc);
    return ok;
}

/* The plan of a PaSE or MCMC run as the version-3 plan every search writes
 * (docs/formats.md "Plan"): the summary (the step simulator's figures when
 * it ran the plan, else null), "strategy" {"kind": "pase", "ops": each
 * op's configuration, and the tree simulate --strategy runs when the plan
 * has one (ss's strategy, else the run's own, dnp_pase_run_strategy), else
 * "no_tree": why}, then the run's figures (cost, baselines).  New text
 * (dnp_free) ended by a newline, or NULL on allocation failure.  O(ops x
 * levels). */
static char *plan_json(const cli_args *a, const run_report *rr,
                       const dnp_pase_strategy_search *ss, const dnp_pase_options *po)
{
    char *text = dnp_pase_run_json(rr->run);
    if (text == NULL)
        return NULL;
    json_t *run = json_loads(text, 0, NULL);
    dnp_free(text);
    if (run == NULL)
        return NULL;
    json_t *sg = json_pack("{s:s,s:O}", "kind", "pase", "ops", json_object_get(run, "strategy"));
    json_t *cluster = NULL;
    char why[600] = "";
    const char *spec = cli_get(a, "cluster");
    if (sg != NULL && ss->strategy != NULL) {
        if (!tree_into(ss->strategy, sg, &cluster))
            snprintf(why, sizeof why, "out of memory");
    } else if (sg != NULL && spec == NULL) {
        snprintf(why, sizeof why, "planned for -p devices of --flops and --bw, not a cluster: "
                                  "plan with --cluster SPEC");
    } else if (sg != NULL) {
        dnp_cluster cl;
        dnp_graph *g = NULL;
        dnp_error err = {0};
        char *tree = NULL;
        dnp_pase_strategy_info info;
        dnp_status st = cli_read_cluster(spec, &cl, &err);
        dnp_load_options lo = {cli_flag(a, "skip-unknown")};
        if (st == DNP_OK)
            st = dnp_model_load_opts(a->pos[0], &lo, &g, &err);
        if (st == DNP_OK)
            st = dnp_pase_run_strategy(rr->run, g, a->pos[0], &cl,
                                       json_integer_value(json_object_get(run, "batch")), &tree,
                                       &info, &err);
        if (st == DNP_OK && !tree_into(tree, sg, &cluster))
            snprintf(why, sizeof why, "out of memory");
        else if (st != DNP_OK)
            snprintf(why, sizeof why, "%.400s%s", err.msg,
                     strstr(err.msg, "splits its dimension") != NULL
                         ? "; --strategy-space searches plans the simulator runs"
                         : "");
        dnp_free(tree);
        dnp_graph_free(g);
    }
    if (sg != NULL && why[0] != '\0')
        json_object_set_new(sg, "no_tree", json_string(why));
    const char *cluster_spec = json_string_value(cluster) != NULL ? json_string_value(cluster)
                                                                 : spec;
    cli_plan_info info = {json_string_value(json_object_get(run, "model")), a->pos[0],
                          (long long)json_integer_value(json_object_get(run, "batch")), NULL,
                          cli_get(a, "search"), NULL};
    const dnp_plan_summary *sim = &rr->sim;
    json_t *root = cli_plan_summary_json(
        &info, cluster_spec, dnp_cost_model_name(po->cost_model),
        dnp_precision_name(po->precision), dnp_optimizer_name(po->optimizer),
        rr->have_sim ? sim->step_time_s : -1.0, sim->mem_fits, sim->mem_bytes_max,
        sim->mem_capacity_bytes);
    json_decref(cluster);
    if (root == NULL || sg == NULL) {
        json_decref(root);
        json_decref(sg);
        json_decref(run);
        return NULL;
    }
    json_object_set_new(root, "strategy", sg);
    /* the run's own figures after the summary; its model, batch and
     * strategy are above */
    const char *skip[] = {"model", "source", "batch", "search", "strategy", NULL};
    const char *key;
    json_t *value;
    json_object_foreach(run, key, value) {
        int k = 0;
        while (skip[k] != NULL && strcmp(skip[k], key) != 0)
            k++;
        if (skip[k] == NULL)
            json_object_set(root, key, value);
    }
    json_decref(run);
    if (rr->sim_asked)
        json_object_set_new(root, "simulated",
                            rr->have_sim
                                ? json_pack("{s:f,s:f,s:f}", "step_time_s", sim->step_time_s,
                                            "compute_s", sim->compute_s, "comm_s", sim->comm_s)
                                : json_pack("{s:s}", "not_available", rr->why));
    char *dumped = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (dumped == NULL)
        return NULL;
    size_t n = strlen(dumped); /* ended with a newline, as the library's text */
    char *out = dnp_malloc(n + 2);
    if (out != NULL) {
        memcpy(out, dumped, n);
        out[n] = '\n';
        out[n + 1] = '\0';
    }
    dnp_free(dumped);
    return out;
}

static void print_repro(const void *r, int timing, FILE *f)
{
    dnp_pase_repro_print(r, timing, f);
}

/* ---- plan -------------------------------------------------------------------- */

static const char *const plan_valued[] = {"search",  "p",          "batch",   "flops",
                                          "bw",      "cluster",    "json",    "max-memory",
                                          "threads", "mcmc-iters", "seed",    "cutoff",
                                          "time-limit", "cost-model", "precision", "optimizer",
                                          "memory-limit", "strategy-json", NULL};
static const char *const plan_flags[] = {"help",    "prototype-edges", "bfs", "skip-unknown",
                                         "optimum", "timing",          "no-stragglers",
                                         "strategy-space", "no-refine", NULL};
const cli_spec cli_plan_pase_spec = {plan_valued, plan_flags};

/* --cost-model, --precision, --optimizer, --memory-limit, --no-stragglers
 * into po (docs/pase.md "Shared model"). */
static int model_options(const char *cmd, const cli_args *a, dnp_pase_options *po)
{
    const char *s;
    po->cost_model = DNP_COST_DEFAULT;
    if ((s = cli_get(a, "cost-model")) != NULL) {
        int m = dnp_cost_model_from_name(s);
        static const char *const known[] = {"default", "pase-paper", NULL};
        if (m < 0)
            return cli_unknown_name(cmd, "cost model", s, known);
        if (m != DNP_COST_DEFAULT && m != DNP_COST_PASE_PAPER) {
            cli_error(cmd, "unknown cost model '%s' for the PaSE search (known: default, "
                           "pase-paper)",
                      s);
            return EXIT_USAGE;
        }
        po->cost_model = (dnp_cost_model)m;
    }
    if ((s = cli_get(a, "precision")) != NULL) {
        int p = dnp_precision_from_name(s);
        if (p < 0) {
            return cli_unknown_name(cmd, "precision", s, cli_precisions);
        }
        po->precision = (dnp_precision)p;
    }
    if ((s = cli_get(a, "optimizer")) != NULL) {
        int o = dnp_optimizer_from_name(s);
        if (o < 0) {
            static const char *const known[] = {"momentum", "sgd", "adam", NULL};
            return cli_unknown_name(cmd, "optimizer", s, known);
        }
        po->optimizer = (dnp_optimizer)o;
    }
    if ((s = cli_get(a, "memory-limit")) != NULL &&
        cli_parse_size(cmd, "memory-limit", s, &po->memory_limit_bytes) != 0)
        return EXIT_USAGE;
    po->no_stragglers = cli_flag(a, "no-stragglers");
    if (po->cost_model == DNP_COST_PASE_PAPER &&
        (cli_get(a, "precision") || cli_get(a, "optimizer") || cli_get(a, "memory-limit") ||
         po->no_stragglers)) {
        cli_error(cmd, "--precision, --optimizer, --memory-limit and --no-stragglers belong to "
                       "the default cost model, not pase-paper");
        return EXIT_USAGE;
    }
    return 0;
}

/* The search, the hardware, the problem's and the search's options, in
 * that order. */
static int plan_options(const char *cmd, const cli_args *a, dnp_pase_hw *hw,
                        dnp_pase_options *po, dnp_pase_run_options *ro)
{
    int rc;
    const char *s, *search = cli_get(a, "search");
    int mcmc = search != NULL && strcmp(search, "mcmc") == 0;
    if (search == NULL || (!mcmc && strcmp(search, "pase") != 0)) {
        static const char *const known[] = {"accpar", "dp", "owt", "hypar", "pase", "mcmc", NULL};
        return cli_unknown_name(cmd, "search", search != NULL ? search : "", known);
    }
    if ((rc = setup_hw(cmd, a, hw)) != 0)
        return rc;
    memset(po, 0, sizeof *po);
    memset(ro, 0, sizeof *ro);
    long long batch = 0, max_mib = 2048, threads = 0, iters = 0, seed = 1, cutoff = 0;
    if (((s = cli_get(a, "batch")) && (batch = cli_positive(cmd, "batch", s, 1LL << 40)) < 0) ||
        ((s = cli_get(a, "max-memory")) &&
         (max_mib = cli_positive(cmd, "max-memory", s, PASE_MAX_MEMORY_MIB)) < 0) ||
        ((s = cli_get(a, "threads")) && (threads = cli_positive(cmd, "threads", s, 256)) < 0) ||
        ((s = cli_get(a, "mcmc-iters")) &&
         (iters = cli_positive(cmd, "mcmc-iters", s, 1000000000LL)) < 0) ||
        ((s = cli_get(a, "seed")) && (seed = cli_positive(cmd, "seed", s, 1LL << 62)) < 0) ||
        ((s = cli_get(a, "cutoff")) && (cutoff = cli_positive(cmd, "cutoff", s, 1 << 20)) < 0))
        return EXIT_USAGE;
    po->batch = batch; /* 0: the model's default */
    po->cutoff = (int)cutoff;
    po->prototype_edges = cli_flag(a, "prototype-edges");
    po->strategy_space = cli_flag(a, "strategy-space");
    ro->no_refine = cli_flag(a, "no-refine");
    po->max_memory_bytes = (double)max_mib * 1048576.0; /* MiB */
    po->skip_unknown = cli_flag(a, "skip-unknown");
    if ((rc = model_options(cmd, a, po)) != 0)
        return rc;
    if (po->cost_model == DNP_COST_DEFAULT && cli_get(a, "optimizer") == NULL && a->n_pos > 0) {
        /* the model's optimizer, as plan and compare price it (docs/model.md,
         * "Default optimizer"); a model that does not load fails later with
         * its own message */
        dnp_graph *g = NULL;
        dnp_error e = {0};
        if (dnp_model_load(a->pos[0], &g, &e) == DNP_OK)
            po->optimizer = (dnp_optimizer)dnp_graph_default_optimizer(g);
        dnp_graph_free(g);
    }
    ro->search = mcmc ? DNP_PASE_SEARCH_MCMC
                      : (cli_flag(a, "bfs") ? DNP_PASE_SEARCH_BFS : DNP_PASE_SEARCH_DP);
    ro->threads = (int)threads;
    ro->mcmc_iters = (long)iters;
    ro->seed = (uint64_t)seed;
    ro->optimum = cli_flag(a, "optimum");
    ro->time_limit_s = CLI_TIME_LIMIT_DEFAULT_S;
    ro->time_limit_from_s = cli_command_start_s(); /* one deadline, setup included */
    ro->progress = on_progress;
    ro->progress_user = plan_name;
    return cli_time_limit(cmd, a, &ro->time_limit_s);
}

/* Write the strategy text and its warnings (types and ops left idle). */
static int write_strategy(const char *cmd, const char *path, const char *text,
                          const dnp_pase_strategy_info *info)
{
    int rc = cli_write_text(cmd, path, text);
    if (rc == 0 && info->idle_types[0] != '\0')
        fprintf(stderr,
                "dnnpar %s: warning: the type split gives %s no samples: idle all step; "
                "the strategy is written for %s\n",
                cmd, info->idle_types, info->cluster);
    if (rc == 0 && info->idle_ops > 0)
        fprintf(stderr,
                "dnnpar %s: warning: %d op%s leave%s devices idle: type R (not split) on "
                "the levels %s configuration does not use (docs/pase.md, \"As a dnnpar "
                "strategy\")\n",
                cmd, info->idle_ops, info->idle_ops == 1 ? "" : "s",
                info->idle_ops == 1 ? "s" : "", info->idle_ops == 1 ? "its" : "their");
    return rc;
}

/* Load the problem and run the search; the error printed on failure. */
static int load_and_run(const char *cmd, const cli_args *a, const dnp_pase_hw *hw,
                        const dnp_pase_options *po, const dnp_pase_run_options *ro,
                        dnp_pase_problem **pb, dnp_pase_run **run)
{
    dnp_error err = {0};
    dnp_status st = dnp_pase_problem_load(a->pos[0], hw, po, pb, &err);
    if (st == DNP_OK)
        st = dnp_pase_run_new(*pb, ro, run, &err);
    if (st == DNP_OK)
        return 0;
    cli_error(cmd, "%s", err.msg);
    return cli_exit_for(st);
}

int cmd_plan_pase(const cli_args *a)
{
    const char *cmd = "plan";
    int done = 0;
    int rc = cli_begin_parsed(a, &cli_plan_pase_spec, cmd, plan_help, 1, "one MODEL", &done);
    if (rc != 0 || done)
        return rc;
    dnp_pase_hw hw;
    dnp_pase_options po;
    dnp_pase_run_options ro;
    if ((rc = plan_options(cmd, a, &hw, &po, &ro)) != 0)
        return rc;
    dnp_pase_problem *pb = NULL;
    dnp_pase_run *run = NULL;
    dnp_pase_strategy_search ss;
    memset(&ss, 0, sizeof ss);
    const char *json = cli_get(a, "json"), *strat = cli_get(a, "strategy-json");
    /* a cluster under the default model: the plan the step simulator runs,
     * as with --strategy-json (dnp_pase_search_strategy): on several device
     * types the one it chooses, and on any the strategy's space's when
     * PaSE's optimum is no strategy; where no plan has a strategy form (7
     * devices of a type, or none fits the memory), the run's own report */
    int judged = cli_get(a, "cluster") != NULL && po.cost_model == DNP_COST_DEFAULT &&
                 !po.strategy_space;
    int own_run = strat == NULL && !judged;
    if (strat != NULL && cli_get(a, "cluster") == NULL) {
        cli_error(cmd, "--strategy-json needs --cluster (a dnnpar strategy names its cluster)");
        rc = EXIT_USAGE;
    } else if (!own_run) {
        /* the run and its strategy for the model on the cluster; in the
         * strategy's space if the optimum is no strategy (docs/pase.md) */
        dnp_cluster cl;
        dnp_error err = {0};
        if ((rc = cli_load_cluster(cmd, cli_get(a, "cluster"), &cl)) == 0) {
            dnp_status st =
                dnp_pase_search_strategy(a->pos[0], NULL, &hw, &po, &ro, &cl, &ss, &err);
            if (st == DNP_ERR_INPUT && strat == NULL) {
                own_run = 1; /* no strategy form (or the model's error, reported below) */
            } else if (st != DNP_OK) {
                cli_error(cmd, "%s", err.msg);
                rc = cli_exit_for(st);
            }
        }
        pb = ss.problem;
        run = ss.run;
        if (rc == 0 && !own_run && ss.in_space && ss.faster)
            fprintf(stderr,
                    "dnnpar %s: note: %s; plan and strategy below are the strategy's space's "
                    "(docs/pase.md \"The type level, refined in the step simulator\")\n",
                    cmd, ss.why);
        else if (rc == 0 && !own_run && ss.in_space)
            fprintf(stderr,
                    "dnnpar %s: note: PaSE's optimum (%s) is no dnnpar strategy: %s; plan and "
                    "strategy below are the strategy's space's (their sum %s; docs/pase.md \"The "
                    "strategy's space\")\n",
                    cmd, ss.optimum, ss.why, ss.cost);
    }
    if (rc == 0 && own_run) {
        rc = load_and_run(cmd, a, &hw, &po, &ro, &pb, &run);
        ss.problem = pb; /* freed with ss below */
        ss.run = run;
    }
    if (rc == 0) {
        dnp_pase_run_warn(run, stderr); /* idle devices, before the report (docs/pase.md) */
        run_report rr;
        memset(&rr, 0, sizeof rr);
        rr.run = run;
        simulate_run(cmd, a, &ss, &rr);
        /* --json and its older name --strategy-json write the same plan
         * (docs/formats.md "Plan") */
        char *doc = json != NULL || strat != NULL ? plan_json(a, &rr, &ss, &po) : NULL;
        if ((json != NULL || strat != NULL) && doc == NULL) {
            cli_error(cmd, "out of memory writing JSON");
            rc = EXIT_RUNTIME;
        }
        if (rc == 0 && strat != NULL)
            rc = write_strategy(cmd, strat, doc, &ss.info);
        if (rc == 0 && json != NULL)
            rc = cli_write_text(cmd, json, doc);
        dnp_free(doc);
        if (rc == 0 && (json == NULL || strcmp(json, "-") != 0) &&
            (strat == NULL || strcmp(strat, "-") != 0))
            print_run(&rr, cli_flag(a, "timing"), stdout);
    }
    dnp_pase_strategy_search_free(&ss);
    return rc;
}

/* ---- reproduce ----------------------------------------------------------------- */

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
    dnp_pase_repro_options o = {(int)max_p, (int)threads, on_progress, reproduce_name};
    dnp_pase_repro *r = NULL;
    dnp_error err = {0};
    dnp_status st = dnp_pase_reproduce(&o, &r, &err);
    if (st != DNP_OK) {
        cli_error("reproduce", "%s", err.msg);
        return cli_exit_for(st);
    }
    const char *json = cli_get(&a, "json");
    rc = write_reports("reproduce", json, json != NULL ? dnp_pase_repro_json(r) : NULL,
                       print_repro, r, cli_flag(&a, "timing"));
    dnp_pase_repro_free(r);
    return rc;
}
