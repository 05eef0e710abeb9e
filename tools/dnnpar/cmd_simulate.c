/* cmd_simulate.c - `dnnpar simulate --strategy FILE`: evaluate a saved
 * strategy (from plan --json) instead of searching, optionally on another
 * batch or cluster of the same shape, with a Chrome trace of the step. */
#include "cli.h"

#include <string.h>

static const char help[] =
    "usage: dnnpar simulate --strategy FILE [MODEL] [--cluster SPEC] [--batch B]\n"
    "                       [--skip-unknown] [--json FILE] [--trace FILE]\n"
    "                       [--plot FILE.png|FILE.svg] [--dot FILE] [--time-limit S]\n"
    "                       [--timeline FILE.png|FILE.svg]\n"
    "       dnnpar simulate MODEL --cluster SPEC --batch B --config CFG [--json FILE]\n"
    "                       [--trace FILE] [--plot|--timeline FILE.png|FILE.svg]\n"
    "                       [--precision P] [--cost-model M] [--optimizer O]\n"
    "                       [--memory-limit SIZE] [--no-overlap] [--no-stragglers]\n"
    "                       [--grad-dtype fp32] [--tp-across-nodes] [--time-limit S]\n"
    "                       [--megatron-version current|legacy]\n"
    "\n"
    "Evaluate the plan in FILE (written by dnnpar plan --json, any search:\n"
    "docs/formats.md \"Plan\") with the step simulator of docs/time-model.md and\n"
    "print the same report and step time as plan (a plan of --search 3d as\n"
    "--config does; a PaSE plan without a tree form is refused).  MODEL,\n"
    "the cluster, the batch, the precision, the optimizer and the cost model\n"
    "default to those the strategy was planned with; the model must have the\n"
    "same ops and the cluster the same tree for its levels.\n"
    "--trace FILE writes the step as Chrome trace events (chrome://tracing,\n"
    "Perfetto): one process per device class (with --config, per pipeline\n"
    "stage), one thread per stream.  --plot and --dot draw the strategy as\n"
    "plan does (any plan: PaSE's too, from plan --search pase --json).\n"
    "--timeline FILE draws the simulated step from its trace: a row per device\n"
    "class (or stage) and stream, a box per task, message arrows and the memory\n"
    "per device below (docs/reports.md, \"Timelines\").\n"
    "--config CFG simulates a transformer (gpt, bert, llama from the zoo) under a\n"
    "Megatron-LM configuration instead, e.g. tp=8,pp=8,dp=1,microbatch=1,\n"
    "interleave=3,recompute=selective,seq_par=1 (docs/config3d.md); the\n"
    "optimizer defaults to adam there; --grad-dtype fp32 all-reduces the gradients\n"
    "in fp32 (DeepSpeed's fp32_allreduce; or grad_dtype=fp32 in CFG); --plot\n"
    "draws the step's timeline (a row per stage and stream, a box per forward,\n"
    "backward, send, all-reduce and optimizer step).  CFG also\n"
    "takes overlap_grad=1, overlap_param=1, tp_overlap=1 (Megatron-LM's\n"
    "--overlap-grad-reduce, --overlap-param-gather, --tp-comm-overlap) and vp_group=N\n"
    "(--microbatch-group-size-per-virtual-pipeline-stage); --megatron-version\n"
    "legacy applies Megatron-Core core_r0.9's micro-batch rule instead.\n"
    CLI_PERF_HELP
    CLI_RUN_LIMIT_HELP
    "\n"
    "examples:\n"
    "  dnnpar plan vgg19 --cluster 8xtpu-v3 --json plan.json\n"
    "  dnnpar simulate --strategy plan.json --batch 1024 --trace step.json\n"
    "  dnnpar simulate gpt3-175b --cluster 8xdgx-a100-80g --batch 64 --precision fp16 \\\n"
    "      --config tp=8,pp=8,microbatch=1,interleave=3,recompute=selective,seq_par=1\n";

/* One step of Megatron-LM configuration cfg_text for model `model` on
 * spec_text at `batch`: simulate MODEL --config CFG (from == NULL), or a
 * version-3 plan of the 3D search read by --strategy (from: its options,
 * which the command line overrides; docs/formats.md "Plan").  Returns an
 * exit status. */
static int run_config(const cli_args *a, const char *cfg_text, const char *model,
                      const char *spec_text, long long batch, const dnp_strategy *from)
{
    if (cli_get(a, "dot") != NULL) {
        cli_error("simulate", "--dot draws a plan's split of the model graph; a Megatron-LM "
                              "configuration (--config, a plan of --search 3d) has none: --plot "
                              "FILE.svg draws its step's timeline");
        return EXIT_USAGE;
    }
    const char *plot = cli_get(a, "plot");
    if (plot != NULL && cli_get(a, "timeline") != NULL) {
        cli_error("simulate", "--plot and --timeline both draw the step's timeline under "
                              "--config: give one");
        return EXIT_USAGE;
    }
    if (plot == NULL)
        plot = cli_get(a, "timeline");
    if (plot != NULL && dnp_plot_format(plot) < 0) {
        cli_error("simulate", "--%s '%s': the file name must end in .png or .svg",
                  cli_get(a, "plot") != NULL ? "plot" : "timeline", plot);
        return EXIT_USAGE;
    }
    dnp_config3d cfg;
    dnp_error err = {0};
    if (dnp_config3d_parse(cfg_text, &cfg, &err) != DNP_OK) {
        cli_error("simulate", "%s", err.msg);
        return EXIT_USAGE;
    }
    dnp_graph *g = NULL;
    dnp_cluster cl;
    int rc;
    if ((rc = cli_load_cluster("simulate", spec_text, &cl)) != 0)
        return rc;
    if ((rc = cli_load_transformer("simulate", model, a, &g)) != 0)
        return rc;
    dnp_plan_options opt = {.scheme = DNP_SCHEME_DP, .batch = batch,
                            .optimizer = DNP_OPTIM_ADAM};
    const char *o;
    if (from != NULL && (o = dnp_strategy_option(from, "precision")) != NULL)
        opt.precision = (dnp_precision)dnp_precision_from_name(o);
    if (from != NULL && (o = dnp_strategy_option(from, "cost_model")) != NULL)
        opt.cost_model = (dnp_cost_model)dnp_cost_model_from_name(o);
    if (from != NULL && (o = dnp_strategy_option(from, "optimizer")) != NULL)
        opt.optimizer = (dnp_optimizer)dnp_optimizer_from_name(o);
    if (from != NULL && (o = dnp_strategy_option(from, "megatron_version")) != NULL) {
        if (dnp_megatron_version_from_name(o) < 0) {
            cli_error("simulate", "%s: megatron_version '%.40s' is not one dnnpar knows",
                      cli_get(a, "strategy"), o);
            dnp_graph_free(g);
            return EXIT_USAGE;
        }
        opt.megatron_version = dnp_megatron_version_from_name(o);
    }
    /* the command line's options over the file's (Megatron-LM's adam by default) */
    if ((rc = cli_perf_options("simulate", a, &opt)) != 0 ||
        (rc = cli_deadline("simulate", a, &opt)) != 0) {
        dnp_graph_free(g);
        return rc;
    }
    opt.tp_across_nodes = cli_flag(a, "tp-across-nodes") ||
                          (from != NULL && (o = dnp_strategy_option(from, "tp_groups")) != NULL &&
                           strcmp(o, "across_nodes") == 0);
    if ((rc = cli_grad_dtype("simulate", a, &opt)) != 0 ||
        (cli_get(a, "megatron-version") != NULL &&
         (rc = cli_megatron_version("simulate", a, &opt)) != 0)) {
        dnp_graph_free(g);
        return rc;
    }
    dnp_config3d_result res;
    if (dnp_config3d_simulate(g, &cl, batch, &opt, &cfg, &res, &err) != DNP_OK) {
        cli_error("simulate", "%s", err.msg);
        dnp_graph_free(g);
        return cli_exit_for(err.status);
    }
    char title[256];
    snprintf(title, sizeof title, "%.60s, batch %lld: one step under %.100s", model, batch,
             cfg_text);
    rc = cli_config3d_pictures("simulate", g, &cl, batch, &opt, &cfg, cli_get(a, "trace"), plot,
                               title);
    const char *given = from != NULL ? "given (3d)" : "given"; /* as a tree's "given (accpar)" */
    cli_plan_info info = {dnp_graph_name(g), model, batch, &cl, given, NULL};
    if (rc == 0)
        rc = cli_config3d_report("simulate", g, &cl, NULL, batch, &opt, &cfg, &res, NULL,
                                 cli_get(a, "json"), &info);
    dnp_graph_free(g);
    return rc;
}

/* simulate MODEL --config CFG: one step of a Megatron-LM configuration. */
static int simulate_config(const cli_args *a, const char *cfg_text)
{
    const char *spec_text = cli_get(a, "cluster"), *b = cli_get(a, "batch");
    if (a->n_pos != 1 || spec_text == NULL || b == NULL || cli_get(a, "strategy") != NULL) {
        cli_error("simulate", "--config needs one MODEL, --cluster and --batch (and no "
                              "--strategy; see dnnpar simulate --help)");
        return EXIT_USAGE;
    }
    long long batch = cli_positive("simulate", "batch", b, 1LL << 40);
    if (batch < 0)
        return EXIT_USAGE;
    return run_config(a, cfg_text, a->pos[0], spec_text, batch, NULL);
}

int cmd_simulate(int argc, char **argv)
{
    static const char *const valued[] = {"strategy", "cluster", "batch", "json", "trace",
                                         "config",   "plot",    "dot",   "grad-dtype",
                                         "timeline",
                                         "time-limit", "megatron-version", CLI_PERF_VALUED,
                                         NULL};
    static const char *const flags[] = {"help", "skip-unknown", CLI_PERF_FLAGS,
                                        "tp-across-nodes", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_parse(argc, argv, 2, &spec, "simulate", &a);
    if (rc != 0)
        return rc;
    if (cli_flag(&a, "help")) {
        fputs(help, stdout);
        return EXIT_OK;
    }
    if (cli_get(&a, "config") != NULL)
        return simulate_config(&a, cli_get(&a, "config"));
    const char *timeline = cli_get(&a, "timeline");
    if (timeline != NULL && dnp_plot_format(timeline) < 0) {
        cli_error("simulate", "--timeline '%s': the file name must end in .png or .svg",
                  timeline);
        return EXIT_USAGE;
    }
    const char *path = cli_get(&a, "strategy");
    if (path == NULL || a.n_pos > 1) {
        cli_error("simulate", "expected --strategy FILE and at most one MODEL (see dnnpar "
                              "simulate --help)");
        return EXIT_USAGE;
    }
    (void)done;
    dnp_strategy *s = NULL;
    dnp_error err = {0};
    if (dnp_strategy_read(path, &s, &err) != DNP_OK) {
        cli_error("simulate", "%s", err.msg);
        return cli_exit_for(err.status);
    }
    const int config3d = dnp_strategy_config3d_text(s) != NULL; /* plan --search 3d's */
    if (!config3d && (cli_get(&a, "grad-dtype") != NULL || cli_flag(&a, "tp-across-nodes") ||
                      cli_get(&a, "megatron-version") != NULL)) {
        cli_error("simulate", "--%s applies to --config or a plan of --search 3d (a Megatron-LM "
                              "configuration)",
                  cli_get(&a, "grad-dtype") != NULL        ? "grad-dtype"
                  : cli_get(&a, "megatron-version") != NULL ? "megatron-version"
                                                            : "tp-across-nodes");
        dnp_strategy_free(s);
        return EXIT_USAGE;
    }
    /* the model and cluster the file names are untrusted: zoo names, specs or
     * regular files beside it only (dnp_strategy_source) */
    char model_buf[4096], spec_buf[4096];
    const char *model = a.n_pos == 1 ? a.pos[0] : model_buf;
    const char *spec_text = cli_get(&a, "cluster") ? cli_get(&a, "cluster") : spec_buf;
    if ((a.n_pos != 1 && dnp_strategy_source(s, path, DNP_STRATEGY_MODEL, model_buf,
                                             sizeof model_buf, &err) != DNP_OK) ||
        (cli_get(&a, "cluster") == NULL &&
         dnp_strategy_source(s, path, DNP_STRATEGY_CLUSTER, spec_buf, sizeof spec_buf, &err) !=
             DNP_OK)) {
        cli_error("simulate", "%s", err.msg);
        dnp_strategy_free(s);
        return cli_exit_for(err.status);
    }
    /* its options are checked, never replaced by a default */
    static const char *const opt_keys[3] = {"precision", "cost_model", "optimizer"};
    for (int k = 0; k < 3; k++) {
        const char *o = dnp_strategy_option(s, opt_keys[k]);
        int known = o == NULL || (k == 0   ? dnp_precision_from_name(o) >= 0
                                  : k == 1 ? dnp_cost_model_from_name(o) >= 0
                                           : dnp_optimizer_from_name(o) >= 0);
        if (!known) {
            cli_error("simulate", "%s: %s '%.40s' is not one dnnpar knows", path, opt_keys[k],
                      o);
            dnp_strategy_free(s);
            return EXIT_USAGE;
        }
    }
    long long batch = dnp_strategy_batch(s);
    const char *b = cli_get(&a, "batch");
    if (b != NULL && (batch = cli_positive("simulate", "batch", b, 1LL << 40)) < 0) {
        dnp_strategy_free(s);
        return EXIT_USAGE;
    }
    if (batch <= 0) {
        cli_error("simulate", "%s names no batch: give --batch", path);
        dnp_strategy_free(s);
        return EXIT_USAGE;
    }
    if (config3d) {
        rc = run_config(&a, dnp_strategy_config3d_text(s), model, spec_text, batch, s);
        dnp_strategy_free(s);
        return rc;
    }
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_plan *p = NULL;
    if ((rc = cli_load_cluster("simulate", spec_text, &cl)) == 0 &&
        (rc = cli_load_model("simulate", model, &a, &g)) == 0) {
        dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = batch};
        const char *o;
        if ((o = dnp_strategy_option(s, "precision")) != NULL && dnp_precision_from_name(o) >= 0)
            opt.precision = (dnp_precision)dnp_precision_from_name(o);
        if ((o = dnp_strategy_option(s, "cost_model")) != NULL && dnp_cost_model_from_name(o) >= 0)
            opt.cost_model = (dnp_cost_model)dnp_cost_model_from_name(o);
        /* a PaSE plan under the prototype's Eq. 1 (its cost in FLOP-equivalents,
         * no step simulated): its tree runs in the step simulator under the
         * default model (docs/formats.md "Plan") */
        if (opt.cost_model == DNP_COST_PASE_PAPER)
            opt.cost_model = DNP_COST_DEFAULT;
        if ((o = dnp_strategy_option(s, "optimizer")) != NULL && dnp_optimizer_from_name(o) >= 0)
            opt.optimizer = (dnp_optimizer)dnp_optimizer_from_name(o);
        int want = dnp_strategy_levels(s), have = dnp_cluster_tree_depth(&cl);
        if ((rc = cli_perf_options("simulate", &a, &opt)) != 0 ||
            (rc = cli_deadline("simulate", &a, &opt)) != 0) {
            /* message printed */
        } else if (want > have) { /* say where the levels come from */
            cli_error("simulate",
                      "the strategy in %s has %d levels (planned on %s); cluster %s supports at "
                      "most %d: give a --cluster whose device tree has the strategy's shape",
                      path, want, dnp_strategy_cluster(s) ? dnp_strategy_cluster(s) : "?",
                      spec_text, have);
            rc = EXIT_USAGE;
        } else if (dnp_plan_run_strategy(g, &cl, &opt, s, &p, &err) != DNP_OK) {
            cli_error("simulate", "%s", err.msg);
            rc = cli_exit_for(err.status);
        }
    }
    if (rc == 0) {
        /* "given (pase)": the strategy's own search, as its file names it */
        char given[64];
        const char *from = dnp_strategy_option(s, "search");
        snprintf(given, sizeof given, from != NULL ? "given (%.40s)" : "given", from);
        cli_plan_info info = {dnp_graph_name(g), model, batch, &cl, given, NULL};
        const char *json = cli_get(&a, "json"), *trace = cli_get(&a, "trace");
        if (trace != NULL)
            rc = cli_write_trace("simulate", trace, p);
        if (rc == 0 && json != NULL)
            rc = cli_write_json("simulate", json, cli_plan_json(p, &info));
        const char *plot = cli_get(&a, "plot"), *dot = cli_get(&a, "dot");
        if (rc == 0 && plot != NULL) {
            char *cspec = cli_cluster_spec(&cl);
            dnp_error perr = {0};
            dnp_status st = cspec == NULL ? DNP_ERR_NOMEM
                                          : dnp_plot_plan(plot, p, dnp_graph_name(g), cspec,
                                                          given, batch, &perr);
            if (st != DNP_OK)
                cli_error("simulate", "%s", cspec == NULL ? "out of memory" : perr.msg);
            dnp_free(cspec);
            rc = cli_exit_for(st);
        }
        if (rc == 0 && dot != NULL) {
            dnp_error derr = {0};
            dnp_status st = dnp_dot_write(dot, g, p, &derr);
            if (st != DNP_OK)
                cli_error("simulate", "%s", derr.msg);
            rc = cli_exit_for(st);
        }
        if (rc == 0 && timeline != NULL) {
            /* the step's picture from its trace, as --config --plot draws */
            char *text = dnp_plan_trace_json(p), *cspec = cli_cluster_spec(&cl), title[320];
            snprintf(title, sizeof title, "%.60s on %.100s, batch %lld: one step, %s strategy",
                     dnp_graph_name(g), cspec != NULL ? cspec : "?", batch, given);
            dnp_error terr = {0};
            dnp_status st = text == NULL ? DNP_ERR_NOMEM
                                         : dnp_plot_trace(timeline, text, title, &terr);
            if (st != DNP_OK)
                cli_error("simulate", "%s", text == NULL ? "out of memory" : terr.msg);
            dnp_free(text);
            dnp_free(cspec);
            rc = cli_exit_for(st);
        }
        if (rc == 0 && (json == NULL || strcmp(json, "-") != 0) &&
            (trace == NULL || strcmp(trace, "-") != 0) && (dot == NULL || strcmp(dot, "-") != 0))
            cli_plan_text(p, &info);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
    dnp_strategy_free(s);
    return rc;
}
