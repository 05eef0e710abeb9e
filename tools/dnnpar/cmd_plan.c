/* cmd_plan.c - `dnnpar plan` and `dnnpar compare`. */
#include "cli.h"

#include <math.h>
#include <string.h>

static const char plan_help[] =
    "usage: dnnpar plan MODEL --cluster SPEC [--search auto|accpar|dp|owt|hypar|pase|mcmc|3d]\n"
    "                   [--levels H] [--batch B] [--reference] [--json FILE]\n"
    "                   [--plot FILE.png|FILE.svg] [--dot FILE] [--trace FILE]\n"
    "                   [--precision P] [--cost-model M] [--optimizer O]\n"
    "                   [--memory-limit SIZE] [--no-overlap] [--no-stragglers]\n"
    "                   [--time-limit S] [--grad-dtype fp32] [--tp-across-nodes]\n"
    "                   [--allow-idle]\n"
    "                   [--top N] [--objective time|cost] [--deadline S]\n"
    "                   [--megatron-version current|legacy]\n"
    "\n"
    "Plan MODEL on SPEC.  AccPar (section 5) prints per layer and level the\n"
    "partition type (I batch, II input dim, III output dim; joins: B batch,\n"
    "C channel, R replicated) and each level's ratio, then the predicted step\n"
    "time (docs/time-model.md).  --json FILE: the plan of any search\n"
    "(docs/formats.md \"Plan\"), which simulate --strategy FILE reads back.\n"
    "\n"
    "  --search S     auto (default: 3d for a transformer, else accpar; said\n"
    "                 first), accpar, dp, owt, hypar; pase, mcmc: PaSE's space\n"
    "                 (plan --search pase --help); 3d: the fastest Megatron-LM\n"
    "                 configuration (docs/config3d.md)\n"
    "  --grad-dtype fp32  with --search 3d: gradients all-reduced in fp32 (4 bytes\n"
    "                 per parameter; DeepSpeed's fp32_allreduce)\n"
    "  --top N        with --search 3d: also list the N fastest configurations\n"
    "                 (1 to 10) with their layouts\n"
    "  --objective O  with --search 3d: time (default, the fastest step) or cost\n"
    "                 (the least cost per step: price= on every device type)\n"
    "  --deadline S   with --search 3d: the cheapest layout whose step takes at\n"
    "                 most S seconds (prices needed)\n"
    "  --tp-across-nodes  with --search 3d: tensor-parallel groups may span nodes\n"
    "                 (default: inside a node; bare devices are one per node)\n"
    "  --megatron-version V  with --search 3d: current (default, core_r0.10 on) or\n"
    "                 legacy (core_r0.9) interleaving micro-batch rule\n"
    "  --allow-idle   accpar: may leave device types or devices idle when faster\n"
    "  --levels H     levels searched (default: all the cluster supports); the\n"
    "                 levels below are data parallel\n"
    "  --batch B      mini-batch (default 512)\n"
    "  --plot FILE    a map of layers x levels coloured by type (gnuplot; .png, .svg);\n"
    "                 with --search 3d the chosen configuration's step timeline\n"
    "  --dot FILE     the model graph in Graphviz DOT coloured by the split\n"
    "  --trace FILE   the simulated step as Chrome trace events (chrome://tracing)\n"
    "  --reference    the AccPar authors' restricted model: element counts,\n"
    "                 communication only, 1/2 splits, 7 levels unless --levels;\n"
    "                 --cluster is then optional\n"
    CLI_SKIP_UNKNOWN_HELP
    CLI_PERF_HELP
    CLI_TIME_LIMIT_HELP
    "\n"
    "examples:\n"
    "  dnnpar plan resnet50 --cluster 4xdgx-a100 --search dp --precision amp --batch 8192\n"
    "  dnnpar plan vgg19 --cluster 128xtpu-v2+128xtpu-v3\n"
    "  dnnpar plan resnet50 --cluster 8xtpu-v3 --search hypar --levels 2\n";

static const char compare_help[] =
    "usage: dnnpar compare MODEL --cluster SPEC [--levels H] [--batch B]\n"
    "                      [--reference] [--json FILE] [--plot FILE.png|FILE.svg]\n"
    "                      [--precision P] [--cost-model M] [--optimizer O]\n"
    "                      [--memory-limit SIZE] [--no-overlap] [--no-stragglers]\n"
    "                      [--time-limit S] [--allow-idle]\n"
    "\n"
    "Plan MODEL with data parallelism (dp), one weird trick (owt), HyPar, AccPar,\n"
    "PaSE and MCMC (their plans as dnnpar strategies, in the strategy's space when\n"
    "the optimum does not fit one) and run every plan in the same step simulator:\n"
    "each one's step time, compute / communication split and speedup over dp.\n"
    "--plot FILE draws the speedups as bars (gnuplot; .png or .svg).  --allow-idle\n"
    "lets AccPar leave device types or devices idle (as plan --allow-idle).\n"
    CLI_SKIP_UNKNOWN_HELP
    CLI_PERF_HELP
    CLI_TIME_LIMIT_HELP
    "With --reference, print the four schemes' partition-type tables in the\n"
    "format of the AccPar authors' code (0 = Type-I, 1 = Type-II, 2 = Type-III).\n"
    "\n"
    "examples:\n"
    "  dnnpar compare vgg19 --cluster 128xtpu-v2+128xtpu-v3\n"
    "  dnnpar compare data/reference/accpar/Alexnet.txt --reference\n";

typedef struct {
    dnp_graph *g;
    dnp_cluster cl;
    dnp_plan_options opt;
    const char *json;
    const char *source; /* the MODEL argument */
    const char *plot, *dot, *trace;
    int search_3d; /* --search 3d: the fastest Megatron-LM configuration */
    int auto_pick; /* --search auto (the default): the search chosen for the model */
    const char *accpar_only; /* auto: an option only AccPar takes ("dot"), or NULL */
    const char *only_3d;     /* auto: an option only the 3D search takes ("top"), or NULL */
    char reason[200];        /* auto: why the search chosen (cli_plan_info.reason) */
} plan_job;

static const char *const valued_plan[] = {"cluster", "search", "levels", "batch", "json",
                                          "plot", "dot", "trace", "time-limit", "grad-dtype",
                                          "megatron-version",
                                          "top", "objective", "deadline", CLI_PERF_VALUED,
                                          NULL};
static const char *const valued_cmp[] = {"cluster", "levels", "batch", "json", "plot",
                                         "time-limit", CLI_PERF_VALUED, NULL};
static const char *const flags_plan[] = {"help", "reference", "skip-unknown", CLI_PERF_FLAGS,
                                         "tp-across-nodes", "allow-idle", NULL};
static const char *const flags_cmp[] = {"help", "reference", "skip-unknown", CLI_PERF_FLAGS,
                                        "allow-idle", NULL};

/* plan --search auto (docs/cli.md, "plan"): the 3D search for a
 * transformer it recognises (dnp_config3d_recognises), AccPar for any
 * other model or when an option only AccPar takes was given; the reason
 * into job->reason.  An option only the 3D search takes on another model
 * is refused.  Returns an exit status.  O(layers). */
static int auto_search(const char *cmd, plan_job *job)
{
    const char *name = dnp_graph_name(job->g);
    int transformer;
    if (job->accpar_only != NULL) {
        transformer = dnp_config3d_recognises(job->g);
    } else {
        /* one structural match decides (dnp_graph_match_transformer): a
         * zoo transformer, or a model file recognised as one, planned as
         * the zoo transformer of its shape (cli_as_transformer_with's note
         * says which) */
        dnp_transformer_match m;
        dnp_error merr = {0};
        transformer = dnp_graph_match_transformer(job->g, &m, &merr) == DNP_OK &&
                      (!m.native || dnp_config3d_recognises(job->g));
        if (transformer && !m.native) {
            int rc = cli_as_transformer_with(cmd, job->source, &job->g, &m);
            if (rc != 0)
                return rc;
            name = job->source;
        }
    }
    if (job->only_3d != NULL && !transformer) {
        cli_error(cmd, "--%s applies to --search 3d (Megatron-LM configurations), and %s is not "
                       "a transformer the 3D search plans",
                  job->only_3d, name);
        return EXIT_USAGE;
    }
    if (transformer && job->accpar_only != NULL)
        snprintf(job->reason, sizeof job->reason, "--%s is AccPar's option; --search 3d plans "
                 "transformer %s with Megatron-LM tp/pp/dp", job->accpar_only, name);
    else if (transformer)
        snprintf(job->reason, sizeof job->reason, "%s is a transformer: Megatron-LM tp/pp/dp; "
                 "--search accpar for AccPar's layer splits", name);
    else
        snprintf(job->reason, sizeof job->reason, "%s is not a transformer the 3D search "
                 "plans: AccPar's layer splits", name);
    if (transformer && job->accpar_only == NULL) {
        job->search_3d = 1; /* as --search 3d (setup) */
        job->opt.scheme = DNP_SCHEME_DP;
    }
    return 0;
}

/* Shared option handling of plan and compare, on a checked parse `a`.
 * Returns an exit status; on 0 the job holds a model and a cluster. */
static int setup(const cli_args *a, const char *cmd, int with_search, plan_job *job)
{
    int rc;
    memset(job, 0, sizeof *job);
    job->opt.reference_mode = cli_flag(a, "reference");
    job->opt.scheme = DNP_SCHEME_ACCPAR;
    job->opt.batch = 512;
    if ((rc = cli_perf_options(cmd, a, &job->opt)) != 0)
        return rc;
    if ((rc = cli_deadline(cmd, a, &job->opt)) != 0) /* one deadline from the start */
        return rc;
    job->json = cli_get(a, "json");
    job->trace = cli_get(a, "trace");
    job->plot = cli_get(a, "plot");
    job->dot = cli_get(a, "dot");
    if (job->plot != NULL && cli_flag(a, "reference")) {
        cli_error(cmd, "--plot draws step times, which --reference does not compute");
        return EXIT_USAGE;
    }
    if (job->plot != NULL && dnp_plot_format(job->plot) < 0) {
        cli_error(cmd, "--plot '%s': the file name must end in .png or .svg", job->plot);
        return EXIT_USAGE;
    }
    const char *s;
    if (with_search && ((s = cli_get(a, "search")) == NULL || strcmp(s, "auto") == 0)) {
        /* auto: an option only one search takes picks it now; else the model
         * does (auto_search, once it is loaded) */
        static const char *const accpar_only[] = {"dot", "levels", "reference", "allow-idle",
                                                  NULL};
        static const char *const only_3d[] = {"top",        "objective",       "deadline",
                                              "grad-dtype", "tp-across-nodes", "megatron-version",
                                              NULL};
        job->auto_pick = 1;
        for (int k = 0; accpar_only[k] != NULL && job->accpar_only == NULL; k++)
            if (cli_get(a, accpar_only[k]) != NULL || cli_flag(a, accpar_only[k]))
                job->accpar_only = accpar_only[k];
        if (job->accpar_only == NULL && job->opt.cost_model == DNP_COST_ACCPAR_PAPER)
            job->accpar_only = "cost-model accpar-paper";
        for (int k = 0; only_3d[k] != NULL && job->only_3d == NULL && job->accpar_only == NULL;
             k++)
            if (cli_get(a, only_3d[k]) != NULL || cli_flag(a, only_3d[k]))
                job->only_3d = only_3d[k];
        s = job->only_3d != NULL ? "3d" : "accpar";
    }
    if (with_search && s != NULL) {
        int sc = dnp_scheme_from_name(s);
        if (strcmp(s, "3d") == 0) {
            job->search_3d = 1;
            sc = DNP_SCHEME_DP;
            if (cli_get(a, "optimizer") == NULL)
                job->opt.optimizer = DNP_OPTIM_ADAM; /* Megatron-LM's */
            if (job->dot || cli_get(a, "levels") || job->opt.reference_mode) {
                cli_error(cmd, "--search 3d takes no --dot, --levels or --reference (--plot "
                               "FILE.svg draws the chosen configuration's step timeline)");
                return EXIT_USAGE;
            }
        }
        if (sc < 0) {
            return cli_unknown_name(cmd, "search", s, cli_searches);
        }
        job->opt.scheme = (dnp_scheme)sc;
    }
    if (with_search && cli_flag(a, "tp-across-nodes") && !job->search_3d) {
        cli_error(cmd, "--tp-across-nodes applies to --search 3d (Megatron-LM configurations)");
        return EXIT_USAGE;
    }
    job->opt.tp_across_nodes = with_search && cli_flag(a, "tp-across-nodes");
    job->opt.allow_idle = cli_flag(a, "allow-idle");
    if (job->opt.allow_idle &&
        (job->search_3d || job->opt.scheme != DNP_SCHEME_ACCPAR || job->opt.reference_mode ||
         job->opt.cost_model != DNP_COST_DEFAULT)) {
        cli_error(cmd, "--allow-idle applies to the accpar search under the default model (--search "
                       "3d weighs idle device types itself)");
        return EXIT_USAGE;
    }
    if (cli_get(a, "grad-dtype") != NULL && !job->search_3d) {
        cli_error(cmd, "--grad-dtype applies to --search 3d (Megatron-LM configurations)");
        return EXIT_USAGE;
    }
    if ((rc = cli_grad_dtype(cmd, a, &job->opt)) != 0)
        return rc;
    if (cli_get(a, "megatron-version") != NULL && !job->search_3d) {
        cli_error(cmd, "--megatron-version applies to --search 3d (Megatron-LM configurations)");
        return EXIT_USAGE;
    }
    if ((rc = cli_megatron_version(cmd, a, &job->opt)) != 0)
        return rc;
    if ((s = cli_get(a, "top")) != NULL) {
        long long top = cli_positive(cmd, "top", s, DNP_CONFIG3D_TOP_MAX);
        if (top < 0)
            return EXIT_USAGE;
        if (!job->search_3d) {
            cli_error(cmd, "--top applies to --search 3d (Megatron-LM configurations)");
            return EXIT_USAGE;
        }
        job->opt.config3d_top = (int)top;
    }
    if ((s = cli_get(a, "objective")) != NULL) {
        if (strcmp(s, "time") != 0 && strcmp(s, "cost") != 0) {
            static const char *const known[] = {"time", "cost", NULL};
            return cli_unknown_name(cmd, "objective", s, known);
        }
        if (!job->search_3d) {
            cli_error(cmd, "--objective applies to --search 3d (Megatron-LM configurations)");
            return EXIT_USAGE;
        }
        job->opt.config3d_objective = strcmp(s, "cost") == 0;
    }
    if ((s = cli_get(a, "deadline")) != NULL) {
        char *end = NULL;
        double x = strtod(s, &end);
        if (end == s || *end != '\0' || !(x > 0.0) || !isfinite(x)) {
            cli_error(cmd, "--deadline '%s': expected a step time in seconds > 0", s);
            return EXIT_USAGE;
        }
        if (!job->search_3d) {
            cli_error(cmd, "--deadline applies to --search 3d (Megatron-LM configurations)");
            return EXIT_USAGE;
        }
        job->opt.config3d_deadline_s = x;
    }
    if ((s = cli_get(a, "batch")) != NULL &&
        (job->opt.batch = cli_positive(cmd, "batch", s, 1LL << 40)) < 0)
        return EXIT_USAGE;
    long long levels = job->opt.reference_mode ? 7 : 0;
    if ((s = cli_get(a, "levels")) != NULL && (levels = cli_positive(cmd, "levels", s, 62)) < 0)
        return EXIT_USAGE;
    job->opt.levels = (int)levels;
    const char *spec_text = cli_get(a, "cluster");
    if (job->opt.reference_mode && spec_text == NULL) {
        /* Identical devices; their figures do not enter element counts. */
        char buf[64];
        snprintf(buf, sizeof buf, "%lldxtpu-v3", 1LL << levels);
        if ((rc = cli_load_cluster(cmd, buf, &job->cl)) != 0)
            return rc;
    } else if ((rc = cli_load_cluster(cmd, spec_text, &job->cl)) != 0) {
        return rc;
    }
    job->source = a->pos[0];
    if ((rc = cli_load_model(cmd, a->pos[0], a, &job->g)) != 0)
        return rc;
    if (job->auto_pick && (rc = auto_search(cmd, job)) != 0)
        return rc;
    /* --search 3d on a model file: recognised by its structure, planned as
     * it is (a zoo transformer passes as it is, silently) */
    if (!job->auto_pick && job->search_3d &&
        (rc = cli_as_transformer(cmd, job->source, &job->g)) != 0)
        return rc;
    if (cli_get(a, "optimizer") == NULL) /* the model's (docs/model.md, "Default optimizer") */
        job->opt.optimizer = (dnp_optimizer)dnp_graph_default_optimizer(job->g);
    if (cli_get(a, "optimizer") == NULL && job->search_3d)
        job->opt.optimizer = DNP_OPTIM_ADAM; /* Megatron-LM's */
    return 0;
}

/* --search auto chose the 3D search on a mixed cluster, whose stages may
 * leave a device type idle: AccPar's layer splits over every device are
 * planned too (same options, AccPar's own search), and when that plan fits
 * and is faster, a note says so on standard output (standard error when
 * the JSON goes there).  Nothing is said when AccPar finds no plan.
 * O(one AccPar search). */
static void note_faster_accpar(const plan_job *job, double step_3d_s)
{
    dnp_plan_options opt = job->opt;
    opt.scheme = DNP_SCHEME_ACCPAR;
    opt.keep_over_memory = 1; /* judged by mem_fits below (no refusal and its 3D hint) */
    dnp_plan *p = NULL;
    dnp_error err = {0};
    if (dnp_plan_run(job->g, &job->cl, &opt, &p, &err) != DNP_OK)
        return;
    dnp_plan_summary sum;
    dnp_plan_get_summary(p, &sum);
    if (sum.mem_fits && !sum.time_limit_hit && sum.step_time_s < step_3d_s) {
        FILE *f = job->json != NULL && strcmp(job->json, "-") == 0 ? stderr : stdout;
        char a[32], b[32];
        cli_fmt_time(sum.step_time_s, a, sizeof a);
        cli_fmt_time(step_3d_s, b, sizeof b);
        fprintf(f,
                "note: AccPar's layer splits (--search accpar) predict %s per step on this "
                "cluster,\n  faster than this configuration's %s\n",
                a, b);
    }
    dnp_plan_free(p);
}

/* Plan with `scheme`; on failure the library's message, and under
 * --search auto which search it chose and why (`reason`, else NULL). */
static int run_plan(const char *cmd, const plan_job *job, dnp_scheme scheme, dnp_plan **out,
                    const char *reason)
{
    dnp_plan_options opt = job->opt;
    opt.scheme = scheme;
    dnp_error err = {0};
    dnp_status st = dnp_plan_run(job->g, &job->cl, &opt, out, &err);
    if (st != DNP_OK && reason != NULL)
        cli_error(cmd, "%s (search auto chose %s: %s)", err.msg, dnp_scheme_name(scheme), reason);
    else if (st != DNP_OK)
        cli_error(cmd, "%s", err.msg);
    return cli_exit_for(st);
}

/* The AccPar authors' table: weighted layers as columns, levels as rows. */
static void reference_table(const dnp_plan *p, const char *title)
{
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    printf("\n######## %s ########\n", title);
    printf("%4s", "h");
    for (int v = 0; v < dnp_plan_n_nodes(p); v++)
        if (dnp_plan_node_weighted(p, v))
            printf("%8s", dnp_plan_node_name(p, v));
    printf("\n");
    for (int k = 0; k < s.levels; k++) {
        printf("%4d", k);
        for (int v = 0; v < dnp_plan_n_nodes(p); v++)
            if (dnp_plan_node_weighted(p, v))
                printf("%8d", dnp_plan_type(p, k, 0, v));
        printf("\n");
    }
}

static json_t *reference_json(const dnp_plan *p)
{
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    json_t *rows = json_array();
    for (int k = 0; k < s.levels; k++) {
        json_t *row = json_array();
        for (int v = 0; v < dnp_plan_n_nodes(p); v++)
            if (dnp_plan_node_weighted(p, v))
                json_array_append_new(row, json_integer(dnp_plan_type(p, k, 0, v)));
        json_array_append_new(rows, row);
    }
    return rows;
}

/* The options of plan and of plan --search pase|mcmc (cli_plan_pase_spec)
 * together: the command line is parsed once against both, then checked
 * against the one its --search selects. */
#define PLAN_ANY_MAX 64
static void spec_union(const char *const *x, const char *const *y, const char **out)
{
    int n = 0;
    for (const char *const *l = x; *l != NULL && n < PLAN_ANY_MAX - 1; l++)
        out[n++] = *l;
    for (const char *const *l = y; *l != NULL && n < PLAN_ANY_MAX - 1; l++) {
        int seen = 0;
        for (int k = 0; k < n && !seen; k++)
            seen = strcmp(out[k], *l) == 0;
        if (!seen)
            out[n++] = *l;
    }
    out[n] = NULL;
}

int cmd_plan(int argc, char **argv)
{
    const char *valued[PLAN_ANY_MAX], *flags[PLAN_ANY_MAX];
    spec_union(valued_plan, cli_plan_pase_spec.valued, valued);
    spec_union(flags_plan, cli_plan_pase_spec.flags, flags);
    cli_spec any = {valued, flags};
    cli_args args;
    int rc = cli_parse_loose(argc, argv, 2, &any, "plan", &args);
    if (rc != 0)
        return rc;
    const char *search = cli_get(&args, "search");
    if (search != NULL && (strcmp(search, "pase") == 0 || strcmp(search, "mcmc") == 0))
        return cmd_plan_pase(&args);
    cli_spec plan_spec = {valued_plan, flags_plan};
    int done;
    if ((rc = cli_begin_parsed(&args, &plan_spec, "plan", plan_help, 1, "one MODEL", &done)) !=
            0 ||
        done)
        return rc;
    plan_job job;
    if ((rc = setup(&args, "plan", 1, &job)) != 0) {
        dnp_graph_free(job.g);
        return rc;
    }
    if (job.search_3d) {
        dnp_config3d best;
        dnp_config3d_result res;
        dnp_config3d_stats stats;
        dnp_error err = {0};
        dnp_cluster used;
        if (dnp_config3d_search_layouts(job.g, &job.cl, job.opt.batch, &job.opt, &best, &res,
                                        &used, &stats, &err) != DNP_OK) {
            if (job.auto_pick) /* say which search failed, and what else there is */
                cli_error("plan", "%s (search auto chose 3d: %s)", err.msg, job.reason);
            else
                cli_error("plan", "%s", err.msg);
            rc = cli_exit_for(err.status);
        } else {
            /* the pictures first: a file that cannot be written is an error
             * before any report is printed */
            char title[160];
            snprintf(title, sizeof title, "%.60s, batch %lld: one step of the fastest "
                     "configuration", job.source, (long long)job.opt.batch);
            rc = cli_config3d_pictures("plan", job.g, &used, job.opt.batch, &job.opt, &best,
                                       job.trace, job.plot, title);
            cli_plan_info info = {dnp_graph_name(job.g), job.source, (long long)job.opt.batch,
                                  &used, "3d", job.auto_pick ? job.reason : NULL};
            if (rc == 0)
                rc = cli_config3d_report("plan", job.g, &used, &job.cl, job.opt.batch, &job.opt,
                                         &best, &res, &stats, job.json, &info);
            if (rc == 0 && job.auto_pick && job.cl.n_types > 1)
                note_faster_accpar(&job, res.step_time_s);
        }
        dnp_graph_free(job.g);
        return rc;
    }
    dnp_plan *p = NULL;
    /* under auto the message names accpar; why it was chosen for a
     * transformer (an option of AccPar's) is said too */
    if ((rc = run_plan("plan", &job, job.opt.scheme, &p,
                       job.auto_pick && job.accpar_only != NULL &&
                               dnp_config3d_recognises(job.g)
                           ? job.reason
                           : NULL)) == 0) {
        /* the devices the plan runs on (AccPar may leave a device type
         * idle, dnp_plan_cluster): every output below describes those */
        job.cl = *dnp_plan_cluster(p);
        cli_plan_info info = {dnp_graph_name(job.g), job.source, (long long)job.opt.batch,
                              &job.cl, dnp_scheme_name(job.opt.scheme),
                              job.auto_pick ? job.reason : NULL};
        if (job.trace != NULL)
            rc = cli_write_trace("plan", job.trace, p);
        if (rc == 0 && job.json != NULL)
            rc = cli_write_json("plan", job.json, cli_plan_json(p, &info));
        if (rc == 0 && job.plot != NULL) {
            char *spec = cli_cluster_spec(&job.cl);
            dnp_error err = {0};
            dnp_status st = spec == NULL
                                ? DNP_ERR_NOMEM
                                : dnp_plot_plan(job.plot, p, dnp_graph_name(job.g), spec,
                                                dnp_scheme_name(job.opt.scheme), job.opt.batch,
                                                &err);
            if (st != DNP_OK)
                cli_error("plan", "%s", spec == NULL ? "out of memory" : err.msg);
            dnp_free(spec);
            rc = cli_exit_for(st);
        }
        if (rc == 0 && job.dot != NULL) {
            dnp_error err = {0};
            dnp_status st = dnp_dot_write(job.dot, job.g, p, &err);
            if (st != DNP_OK)
                cli_error("plan", "%s", err.msg);
            rc = cli_exit_for(st);
        }
        if (rc == 0 && (job.json == NULL || strcmp(job.json, "-") != 0) &&
            (job.dot == NULL || strcmp(job.dot, "-") != 0) &&
            (job.trace == NULL || strcmp(job.trace, "-") != 0)) {
            if (job.opt.reference_mode)
                reference_table(p, dnp_scheme_name(job.opt.scheme));
            else
                cli_plan_text(p, &info);
        }
    }
    dnp_plan_free(p);
    dnp_graph_free(job.g);
    return rc;
}

/* The largest of n values. */
static double max_of(const double *x, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
    return m;
}

/* Adds row to t; on failure frees t and returns NULL (compare_print then
 * reports it).  O(cells). */
static cli_table *compare_row(cli_table *t, const char *const *row)
{
    if (cli_table_add(t, row) == 0)
        return t;
    cli_table_free(t);
    return NULL;
}

/* Prints and frees one of compare's tables; NULL (out of memory while
 * building it) is reported on stderr instead.  O(cells). */
static void compare_print(cli_table *t)
{
    if (t == NULL) {
        cli_error("compare", "out of memory printing the table");
        return;
    }
    cli_table_print(t, stdout, CLI_MAX_WIDTH, -1);
    cli_table_free(t);
}

/* One row of compare's main table: a search's plan in the step simulator,
 * or why it has none (why[0] != '\0'). */
typedef struct {
    const char *name;
    char what[200];   /* PaSE / MCMC: what the plan leaves out, said below the table */
    dnp_plan_summary sum;
    int in_space;     /* PaSE / MCMC searched the strategy's space */
    dnp_pase_strategy_info info; /* PaSE / MCMC: device types left idle */
    char why[200];
} compare_entry;

/* compare's table of the searches' plans: columns sized to their content
 * (cli_table), each time column in one unit named in its header (the one
 * its largest value reads best in, cli_time_unit), memory in GB (10^9 B),
 * speedup over the first row (dp).  Under the default model, when some
 * row's critical device waits for other devices or its host
 * (dnp_plan_summary.wait_s + host_wait_s),
 * a "waiting" column follows the exposed communication so that compute +
 * exposed comm + waiting = step time on every row.  A last column says
 * when a plan does not fit, is another scheme's assignment or stopped at
 * the time limit; what a PaSE / MCMC plan leaves out (the strategy's
 * space, idle devices) and why a search has no plan (n/a) are said below
 * the table.  O(rows). */
static void compare_table(compare_entry *e, int n, int paper)
{
    double step[DNP_SCHEME_COUNT + 2], comp[DNP_SCHEME_COUNT + 2], comm[DNP_SCHEME_COUNT + 2],
        wait[DNP_SCHEME_COUNT + 2];
    for (int s = 0; s < n; s++) {
        int ok = e[s].why[0] == '\0';
        step[s] = ok ? e[s].sum.step_time_s : 0.0;
        comp[s] = ok ? e[s].sum.compute_s : 0.0;
        comm[s] = ok ? e[s].sum.comm_s : 0.0;
        wait[s] = ok && !paper ? e[s].sum.wait_s + e[s].sum.host_wait_s : 0.0;
    }
    const int waits = max_of(wait, n) > 0.0;
    double f_step, f_comp, f_comm, f_wait;
    char h_step[32], h_comp[32], h_comm[40], h_wait[32];
    snprintf(h_step, sizeof h_step, "step time (%s)", cli_time_unit(max_of(step, n), &f_step));
    snprintf(h_comp, sizeof h_comp, "compute (%s)", cli_time_unit(max_of(comp, n), &f_comp));
    snprintf(h_comm, sizeof h_comm, "%s (%s)", paper ? "communication" : "exposed comm",
             cli_time_unit(max_of(comm, n), &f_comm));
    snprintf(h_wait, sizeof h_wait, "waiting (%s)", cli_time_unit(max_of(wait, n), &f_wait));
    const char *header[8] = {"scheme", h_step, h_comp, h_comm, h_wait, "memory/dev (GB)",
                             "speedup", ""};
    const int skip = waits ? 8 : 4; /* the waiting column, when shown */
    const char *hdr[8];
    int nc = 0;
    for (int k = 0; k < 8; k++)
        if (k != skip)
            hdr[nc++] = header[k];
    cli_table *t = cli_table_new(nc, waits ? "lrrrrrrl" : "lrrrrrl", hdr);
    for (int s = 0; s < n && t != NULL; s++) {
        const dnp_plan_summary *sum = &e[s].sum;
        char a[32] = "n/a", b[32] = "n/a", c[32] = "n/a", w[32] = "n/a", m[32] = "n/a",
             x[32] = "n/a", note[240] = "";
        if (e[s].why[0] != '\0') {
            snprintf(note, sizeof note, "no plan (below)");
        } else {
            snprintf(a, sizeof a, "%.3f", step[s] * f_step);
            snprintf(b, sizeof b, "%.3f", comp[s] * f_comp);
            snprintf(c, sizeof c, "%.3f", comm[s] * f_comm);
            snprintf(w, sizeof w, "%.3f", wait[s] * f_wait);
            snprintf(m, sizeof m, "%.2f", sum->mem_bytes_max / 1e9);
            snprintf(x, sizeof x, "%.2fx", e[0].sum.step_time_s / sum->step_time_s);
            if (!sum->mem_fits && !paper)
                snprintf(note, sizeof note, "does not fit");
            if (s == DNP_SCHEME_ACCPAR && sum->chosen_scheme != DNP_SCHEME_ACCPAR)
                snprintf(note + strlen(note), sizeof note - strlen(note), "%s(%s's assignment)",
                         note[0] ? "; " : "", dnp_scheme_name(sum->chosen_scheme));
            if (sum->time_limit_hit)
                snprintf(note + strlen(note), sizeof note - strlen(note),
                         "%s(the --time-limit of %g s ran out: best plan found so far)",
                         note[0] ? "; " : "", sum->time_limit_s);
            char *what = e[s].what;
            what[0] = '\0';
            if (e[s].in_space)
                snprintf(what, sizeof e[s].what, "searched in the strategy's space");
            if (e[s].info.idle_types[0] != '\0')
                snprintf(what + strlen(what), sizeof e[s].what - strlen(what), "%s%s idle",
                         what[0] ? "; " : "", e[s].info.idle_types);
            if (e[s].info.idle_ops > 0)
                snprintf(what + strlen(what), sizeof e[s].what - strlen(what),
                         "%s%d op%s on fewer devices than the plan has", what[0] ? "; " : "",
                         e[s].info.idle_ops, e[s].info.idle_ops == 1 ? "" : "s");
            if (sum->idle_devices > 0) /* AccPar on one device type alone was faster */
                snprintf(what + strlen(what), sizeof e[s].what - strlen(what),
                         "%sleaves %lld devices idle: faster on one device type alone than "
                         "the best plan on every device (%.6g s)",
                         what[0] ? "; " : "", (long long)sum->idle_devices,
                         sum->all_devices_step_s);
            if (what[0] != '\0')
                snprintf(note + strlen(note), sizeof note - strlen(note), "%s(below)",
                         note[0] ? "; " : "");
        }
        const char *cells[8] = {e[s].name, a, b, c, w, m, x, note};
        const char *row[8];
        int k2 = 0;
        for (int k = 0; k < 8; k++)
            if (k != skip)
                row[k2++] = cells[k];
        t = compare_row(t, row);
    }
    compare_print(t);
    for (int s = 0; s < n; s++)
        if (e[s].why[0] != '\0')
            cli_wrapf(stdout, 0, "    ", "  %s: no plan: %s", e[s].name, e[s].why);
        else if (e[s].what[0] != '\0')
            cli_wrapf(stdout, 0, "    ", "  %s: %s", e[s].name, e[s].what);
}

/* compare's table in PaSE's space: cost (one unit for the column) and
 * speedup over dp per search, and the expert strategy's name.  O(1). */
static void pase_space_table(const dnp_pase_compare_result *pr)
{
    const char *names[4] = {"dp", "expert", "mcmc", "pase"};
    double cost[4] = {pr->dp_s, pr->expert_s, pr->mcmc_s, pr->pase_s}, f;
    char h_cost[32];
    snprintf(h_cost, sizeof h_cost, "cost (%s)", cli_time_unit(max_of(cost, 4), &f));
    const char *header[4] = {"search", h_cost, "speedup", "strategy"};
    cli_table *t = cli_table_new(4, "lrrl", header);
    for (int s = 0; s < 4 && t != NULL; s++) {
        char a[32], x[32];
        snprintf(a, sizeof a, "%.3f", cost[s] * f);
        snprintf(x, sizeof x, "%.2fx", pr->dp_s / cost[s]);
        const char *row[4] = {names[s], a, x,
                              s == 1                           ? pr->expert
                              : s == 2 && pr->time_limit_hit ? "(time limit: best so far)"
                                                               : ""};
        t = compare_row(t, row);
    }
    compare_print(t);
}

int cmd_compare(int argc, char **argv)
{
    static const char *const ref_titles[DNP_SCHEME_COUNT] = {"DATA PAR", "THE TRICK", "HYPAR",
                                                             "ACCPAR"};
    cli_spec cmp_spec = {valued_cmp, flags_cmp};
    cli_args args;
    int done, rc = cli_begin(argc, argv, &cmp_spec, "compare", compare_help, 1, "one MODEL",
                             &args, &done);
    if (rc != 0 || done)
        return rc;
    plan_job job;
    if ((rc = setup(&args, "compare", 0, &job)) != 0) {
        dnp_graph_free(job.g);
        return rc;
    }
    dnp_plan *plans[DNP_SCHEME_COUNT + 2] = {0};
    dnp_plan_summary sum[DNP_SCHEME_COUNT];
    compare_entry rows[DNP_SCHEME_COUNT + 2];
    memset(rows, 0, sizeof rows);
    job.opt.keep_over_memory = 1; /* every scheme is shown; those over memory are flagged */
    /* one --time-limit for the whole comparison, from the command's start
     * (job.opt.time_limit_from_s): each search stops at half of it, each
     * simulation at all of it.  A search cut short is flagged; a scheme
     * whose step could not be simulated by then says so in its row ("not
     * run"); without dp, the row the speedups are over, nothing is shown
     * (status 2, the library's message). */
    const double limit_s = job.opt.time_limit_s;
    const double deadline_s = job.opt.time_limit_from_s + limit_s;
    memset(sum, 0, sizeof sum);
    for (int s = 0; s < DNP_SCHEME_COUNT && rc == 0; s++) {
        dnp_plan_options opt = job.opt;
        opt.scheme = (dnp_scheme)s;
        dnp_error err = {0};
        rows[s].name = dnp_scheme_name((dnp_scheme)s);
        /* past the deadline a search would be cut at once and its step not
         * simulated: not started (dp always is: the speedups' base) */
        dnp_status st = s > 0 && dnp_clock_s() >= deadline_s
                            ? DNP_ERR_INPUT
                            : dnp_plan_run(job.g, &job.cl, &opt, &plans[s], &err);
        if (st == DNP_OK) {
            dnp_plan_get_summary(plans[s], &sum[s]);
            rows[s].sum = sum[s];
        } else if (s > 0 && st == DNP_ERR_INPUT && dnp_clock_s() >= deadline_s) {
            snprintf(rows[s].why, sizeof rows[s].why, "not run: the --time-limit of %g s ran "
                     "out before its step was simulated", limit_s);
        } else {
            cli_error("compare", "%s", err.msg);
            rc = cli_exit_for(st);
        }
    }
    /* PaSE's and MCMC's plans in the same simulator (dnp_pase_plan_run), under
     * the default model only (the AccPar paper's accounting has no PaSE) */
    int n_rows = DNP_SCHEME_COUNT;
    if (rc == 0 && !job.opt.reference_mode && job.opt.cost_model == DNP_COST_DEFAULT) {
        static const char *const names[2] = {"pase", "mcmc"};
        for (int k = 0; k < 2; k++, n_rows++) {
            compare_entry *r = &rows[n_rows];
            dnp_error err = {0};
            r->name = names[k];
            if (!(deadline_s - dnp_clock_s() > 0.0))
                snprintf(r->why, sizeof r->why, "not run: the searches before it spent the "
                         "--time-limit of %g s", limit_s);
            else if (dnp_pase_plan_run(job.g, &job.cl, &job.opt,
                                  k == 0 ? DNP_PASE_SEARCH_DP : DNP_PASE_SEARCH_MCMC,
                                  &plans[n_rows], &r->in_space, &r->info, &err) == DNP_OK)
                dnp_plan_get_summary(plans[n_rows], &r->sum);
            else
                snprintf(r->why, sizeof r->why, "%.190s", err.msg);
        }
    }
    /* the same model in PaSE's space and cost model (Eq. 1) */
    dnp_pase_compare_result pr;
    dnp_error perr = {0};
    if (rc == 0 && !(deadline_s - dnp_clock_s() > 0.0))
        snprintf(perr.msg, sizeof perr.msg, "not run: the searches before it spent the "
                 "--time-limit of %g s", limit_s);
    int have_pase = rc == 0 && !job.opt.reference_mode && deadline_s - dnp_clock_s() > 0.0 &&
                    dnp_pase_compare(job.g, &job.cl, job.opt.batch, &job.opt, &pr, &perr) == DNP_OK;
    char *spec = rc == 0 ? cli_cluster_spec(&job.cl) : NULL;
    if (rc == 0 && spec == NULL) {
        cli_error("compare", "out of memory");
        rc = EXIT_RUNTIME;
    }
    if (rc == 0) {
        if (job.plot != NULL) {
            const char *names[DNP_SCHEME_COUNT + 2];
            double step_s[DNP_SCHEME_COUNT + 2], speedup[DNP_SCHEME_COUNT + 2];
            int fits[DNP_SCHEME_COUNT + 2];
            int n_plot = 0;
            for (int s = 0; s < n_rows; s++)
                if (rows[s].why[0] == '\0') { /* searches without a plan are left out */
                    fits[n_plot] = rows[s].sum.mem_fits;
                    names[n_plot] = rows[s].name;
                    step_s[n_plot] = rows[s].sum.step_time_s;
                    speedup[n_plot++] = sum[0].step_time_s / rows[s].sum.step_time_s;
                }
            dnp_error err = {0};
            dnp_status st = dnp_plot_compare(job.plot, dnp_graph_name(job.g), spec, n_plot,
                                             names, step_s, speedup, fits, &err);
            if (st != DNP_OK)
                cli_error("compare", "%s", err.msg);
            rc = cli_exit_for(st);
        }
        if (rc == 0 && job.json != NULL) {
            json_t *schemes = json_array();
            for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
                json_t *o = plans[s] == NULL
                                ? json_pack("{s:s,s:s}", "name", rows[s].name, "no_plan",
                                            rows[s].why)
                                : job.opt.reference_mode
                                ? json_pack("{s:s,s:o}", "name", dnp_scheme_name((dnp_scheme)s),
                                            "types", reference_json(plans[s]))
                                : json_pack("{s:s,s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:b,s:f}",
                                            "name", dnp_scheme_name((dnp_scheme)s),
                                            "chosen_assignment",
                                            dnp_scheme_name(sum[s].chosen_scheme), "step_time_s",
                                            sum[s].step_time_s, "compute_s", sum[s].compute_s,
                                            "comm_s", sum[s].comm_s, "comm_busy_s",
                                            sum[s].comm_busy_s, "wait_s", sum[s].wait_s,
                                            "host_wait_s", sum[s].host_wait_s,
                                            "mem_peak_bytes",
                                            sum[s].mem_bytes_max, "fits", sum[s].mem_fits,
                                            "speedup_vs_dp",
                                            sum[0].step_time_s / sum[s].step_time_s);
                if (sum[s].time_limit_hit)
                    json_object_set_new(o, "time_limit",
                                        json_pack("{s:f,s:b,s:s}", "seconds", sum[s].time_limit_s,
                                                  "reached", 1, "result",
                                                  "best plan found so far"));
                json_array_append_new(schemes, o);
            }
            for (int s = DNP_SCHEME_COUNT; s < n_rows; s++) { /* pase, mcmc */
                const compare_entry *r = &rows[s];
                json_array_append_new(
                    schemes,
                    r->why[0] != '\0'
                        ? json_pack("{s:s,s:s}", "name", r->name, "no_plan", r->why)
                        : json_pack("{s:s,s:b,s:s,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:b,s:f}",
                                    "name", r->name, "strategy_space", r->in_space, "idle_types",
                                    r->info.idle_types, "idle_ops", r->info.idle_ops, "step_time_s",
                                    r->sum.step_time_s, "compute_s", r->sum.compute_s, "comm_s",
                                    r->sum.comm_s, "comm_busy_s", r->sum.comm_busy_s, "wait_s",
                                    r->sum.wait_s, "host_wait_s", r->sum.host_wait_s,
                                    "mem_peak_bytes", r->sum.mem_bytes_max, "fits",
                                    r->sum.mem_fits, "speedup_vs_dp",
                                    sum[0].step_time_s / r->sum.step_time_s));
            }
            json_t *root = json_pack("{s:s,s:I,s:s,s:i,s:s,s:s,s:o}", "model",
                                     dnp_graph_name(job.g), "batch", (json_int_t)job.opt.batch,
                                     "cluster", spec, "levels", sum[0].levels, "cost_model",
                                     dnp_cost_model_name(sum[0].cost_model), "precision",
                                     dnp_precision_name(sum[0].precision), "schemes", schemes);
            if (!job.opt.reference_mode)
                json_object_set_new(
                    root, "pase_space",
                    have_pase
                        ? json_pack("{s:s,s:[{s:s,s:f,s:f},{s:s,s:s,s:f,s:f},{s:s,s:f,s:f},{s:s,"
                                    "s:f,s:f}]}",
                                    "cost_model",
                                    "the PaSE prototype's Eq. 1 (FLOP-equivalents), flat mesh of "
                                    "every device; not comparable with the step times above",
                                    "schemes", "name", "dp", "cost_s", pr.dp_s, "speedup_vs_dp",
                                    1.0, "name", "expert", "strategy", pr.expert, "cost_s",
                                    pr.expert_s, "speedup_vs_dp", pr.dp_s / pr.expert_s, "name",
                                    "mcmc", "cost_s", pr.mcmc_s, "speedup_vs_dp",
                                    pr.dp_s / pr.mcmc_s, "name", "pase", "cost_s", pr.pase_s,
                                    "speedup_vs_dp", pr.dp_s / pr.pase_s)
                        : json_pack("{s:s}", "not_available", perr.msg));
            if (!job.opt.reference_mode && have_pase && pr.time_limit_hit)
                json_object_set_new(json_object_get(root, "pase_space"), "mcmc_time_limit_hit",
                                    json_true());
            json_t *strag = cli_straggler_json(&sum[0]);
            if (strag != NULL)
                json_object_set_new(root, "stragglers", strag);
            rc = cli_write_json("compare", job.json, root);
        }
        if (rc == 0 && (job.json == NULL || strcmp(job.json, "-") != 0)) {
            if (job.opt.reference_mode) {
                for (int s = 0; s < DNP_SCHEME_COUNT; s++)
                    if (plans[s] != NULL)
                        reference_table(plans[s], ref_titles[s]);
                    else
                        printf("\n######## %s ########\n%s\n", ref_titles[s], rows[s].why);
            } else {
                int paper = sum[0].cost_model == DNP_COST_ACCPAR_PAPER;
                printf("model %s, batch %lld, cluster %s, %d levels searched of %d\n",
                       dnp_graph_name(job.g), (long long)job.opt.batch, spec, sum[0].levels,
                       sum[0].total_levels);
                printf("cost model: %s\n\n",
                       paper ? "the AccPar paper's accounting"
                             : "default (roofline devices, collectives, step simulator)");
                compare_table(rows, n_rows, paper);
                char note[320];
                cli_straggler_note(&sum[0], note, sizeof note);
                if (note[0] != '\0')
                    printf("%s\n", note);
                printf("\nin PaSE's space with the PaSE prototype's cost model (Eq. 1 in "
                       "FLOP-equivalents; all devices one flat mesh,\nthe weakest device's "
                       "FLOP/s and link; not comparable with the step times above):\n");
                if (have_pase) {
                    pase_space_table(&pr);
                } else {
                    printf("  not available: %s\n", perr.msg);
                }
            }
        }
    }
    dnp_free(spec);
    for (int s = 0; s < DNP_SCHEME_COUNT + 2; s++)
        dnp_plan_free(plans[s]);
    dnp_graph_free(job.g);
    return rc;
}
