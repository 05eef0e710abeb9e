/* cmd_export.c - `dnnpar export`: plan a model and write the plan for the
 * tools people train with (docs/reports.md). */
#include "cmd_export.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: dnnpar export MODEL --cluster SPEC --format jax|dtensor|astra|megatron\n"
    "                     [--search accpar|dp|owt|hypar] [--levels H] [--batch B]\n"
    "                     [--config CFG] [--precision P] [--strategy FILE]\n"
    "                     [--tp-across-nodes] [--skip-unknown] [--memory-limit SIZE]\n"
    "                     [--time-limit S] [-o FILE | --output FILE]\n"
    "\n"
    "Plan MODEL on SPEC as `dnnpar plan` does and write the plan for another tool:\n"
    "\n"
    "  jax      Python: the JAX PartitionSpec of the input, weight and output of\n"
    "           every partitioned op on a mesh with one axis per level (\"h0\", ...)\n"
    "  dtensor  Python: the same as PyTorch DTensor placements (Shard(d),\n"
    "           Replicate(), Partial()), one per mesh dim\n"
    "  astra    an ASTRA-sim 1.0 text workload: per layer the forward, input-\n"
    "           gradient and weight-gradient compute time (ns) and collective\n"
    "           (type and bytes)\n"
    "  megatron Megatron-LM arguments for a transformer (gpt, bert, llama, or a\n"
    "           file recognised as one): the configuration given by --config or\n"
    "           a plan file of plan --search 3d (--strategy), else the fastest\n"
    "           that plan --search 3d finds (docs/config3d.md)\n"
    "jax and dtensor of a transformer export that Megatron-LM configuration\n"
    "instead, on mesh axes (\"data\", \"model\") per pipeline stage, unless\n"
    "--search, --levels or a tree plan file asks for the tree plan.\n"
    "\n"
    "Comments in the output say what the notation cannot express: a level whose\n"
    "ratio is not 1/2, halves that decide differently, unequal halves.  A plan\n"
    "that does not fit in memory is refused with plan's (simulate's) message.\n"
    "\n"
    "  --format F     jax, dtensor, astra or megatron (required)\n"
    "  --config CFG   a configuration: tp=..,pp=..,dp=..,microbatch=..,interleave=..,\n"
    "                 recompute=..,seq_par=.. (default: the --search 3d result)\n"
    "  --precision P  a configuration's: fp16, bf16, ... (default: the device's)\n"
    "  --tp-across-nodes  megatron: tensor-parallel groups may span nodes (default:\n"
    "                 inside a node; bare devices are one per node)\n"
    "  --megatron-version V  megatron: current (default) or legacy (core_r0.9):\n"
    "                 the interleaved schedule's micro-batch rule\n"
    "  --search S     accpar (default), dp, owt or hypar\n"
    "  --strategy FILE  export this plan (plan --json, any search) instead of\n"
    "                 searching\n"
    "  --levels H     levels searched (default: all the cluster supports)\n"
    "  --batch B      mini-batch (default 512)\n"
    "  --skip-unknown ONNX: treat unknown operators as free element-wise ops\n"
    "  --memory-limit SIZE  memory per device, e.g. 16GB (default: each device's\n"
    "                 capacity); a plan over it is refused, as plan refuses it\n"
    CLI_RUN_LIMIT_HELP
    "  -o, --output FILE\n"
    "                 write FILE instead of standard output (-); a regular FILE is\n"
    "                 replaced only once complete (docs/cli.md, \"Output files\")\n"
    "\n"
    "examples:\n"
    "  dnnpar export resnet50 --cluster 8xtpu-v3 --format jax -o resnet50_specs.py\n"
    "  dnnpar export gpt3-175b --cluster 8xdgx-a100-80g --batch 64 --format megatron\n"
    "  dnnpar export vgg19 --cluster 128xtpu-v2+128xtpu-v3 --format astra --batch 512\n";

/* A given or searched Megatron-LM configuration as Megatron-LM arguments
 * (fmt < 0, --format megatron) or as JAX / DTensor sharding on ("data",
 * "model") mesh axes (fmt DNP_EXPORT_JAX, DNP_EXPORT_DTENSOR).  The
 * configuration: `cfg_text` when given (a plan file's), else --config, else
 * the 3D search's fastest.  The model: *gp when not NULL (loaded by the
 * caller, with its match m when not NULL), else loaded here; a model file
 * recognised by its structure is exported as the zoo transformer of its
 * shape, which Megatron-LM runs (cli_as_transformer_with).  *gp is the
 * caller's to free. */
static int export_3d_graph(const cli_args *a, const char *out_path, int fmt,
                           const char *cfg_text, dnp_graph **gp,
                           const dnp_transformer_match *m)
{
    const char *cmd = "export", *s;
    long long batch = 512;
    if ((s = cli_get(a, "batch")) != NULL && (batch = cli_positive(cmd, "batch", s, 1LL << 40)) < 0)
        return EXIT_USAGE;
    dnp_plan_options opt = {.scheme = DNP_SCHEME_DP, .batch = batch,
                            .optimizer = DNP_OPTIM_ADAM,
                            .tp_across_nodes = cli_flag(a, "tp-across-nodes")};
    int rc;
    if ((rc = cli_deadline(cmd, a, &opt)) != 0) /* the search's, from the start */
        return rc;
    if ((s = cli_get(a, "memory-limit")) != NULL &&
        cli_parse_size(cmd, "memory-limit", s, &opt.memory_limit_bytes) != 0)
        return EXIT_USAGE;
    if ((s = cli_get(a, "precision")) != NULL) {
        int pr = dnp_precision_from_name(s);
        if (pr < 0) {
            return cli_unknown_name(cmd, "precision", s, cli_precisions);
        }
        opt.precision = (dnp_precision)pr;
    }
    dnp_cluster cl;
    if ((rc = cli_megatron_version(cmd, a, &opt)) != 0)
        return rc;
    if ((rc = cli_load_cluster(cmd, cli_get(a, "cluster"), &cl)) != 0)
        return rc;
    if (*gp == NULL && (rc = cli_load_model(cmd, a->pos[0], a, gp)) != 0)
        return rc;
    if ((rc = cli_as_transformer_with(cmd, a->pos[0], gp, m)) != 0)
        return rc;
    const dnp_graph *g = *gp;
    dnp_config3d cfg;
    dnp_config3d_result res;
    dnp_config3d_stats stats;
    dnp_error err = {0};
    dnp_status st;
    if ((s = cfg_text != NULL ? cfg_text : cli_get(a, "config")) != NULL) {
        st = dnp_config3d_parse(s, &cfg, &err);
        if (st == DNP_OK)
            st = dnp_config3d_simulate(g, &cl, batch, &opt, &cfg, &res, &err);
    } else {
        /* the fastest layout: the stages may take the types in another
         * order or leave a type idle (the arguments then say which hosts) */
        dnp_cluster used;
        st = dnp_config3d_search_layouts(g, &cl, batch, &opt, &cfg, &res, &used, &stats, &err);
        if (st == DNP_OK)
            cl = used;
    }
    char *text = NULL;
    if (st == DNP_OK)
        st = fmt < 0 ? dnp_megatron_args(g, &cl, batch, opt.precision, &cfg, &text, &err)
                     : dnp_config3d_export_text((dnp_export_format)fmt, g, &cl, batch,
                                                opt.precision, &cfg, &text, &err);
    if (st == DNP_OK && cli_get(a, "config") == NULL && cfg_text == NULL &&
        (stats.idle_devices > 0 || stats.time_limit_hit)) {
        /* the layout left whole device types out, or the search was cut at
         * the time limit: say so in the file */
        char note[320];
        int w = 0;
        if (stats.idle_devices > 0)
            w = snprintf(note, sizeof note,
                         "# layout: %lld devices of the cluster given are left idle (the plan "
                         "is faster without them; docs/config3d.md \"Layouts\")\n",
                         (long long)stats.idle_devices);
        if (stats.time_limit_hit && w >= 0 && (size_t)w < sizeof note)
            w += snprintf(note + w, sizeof note - (size_t)w,
                          "# the --time-limit of %g s ran out: the best configuration weighed "
                          "by then, not proven the fastest\n",
                          opt.time_limit_s);
        w = (int)strlen(note); /* what snprintf kept */
        size_t len = strlen(text);
        char *more = w > 0 ? dnp_realloc(text, len + (size_t)w + 1) : NULL;
        if (more == NULL) {
            st = DNP_ERR_NOMEM;
            dnp_error_set(&err, st, "out of memory");
        } else {
            memcpy(more + len, note, (size_t)w + 1);
            text = more;
        }
    }
    if (st == DNP_OK)
        st = dnp_write_file(out_path, text, strlen(text), &err);
    if (st != DNP_OK)
        cli_error(cmd, "%s", err.msg);
    dnp_free(text);
    return cli_exit_for(st);
}

/* export_3d_graph owning `loaded` (NULL: load the model). */
static int export_3d(const cli_args *a, const char *out_path, int fmt, const char *cfg_text,
                     dnp_graph *loaded, const dnp_transformer_match *m)
{
    dnp_graph *g = loaded;
    int rc = export_3d_graph(a, out_path, fmt, cfg_text, &g, m);
    dnp_graph_free(g);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    static const char *const valued[] = {"cluster", "format",    "search",   "levels",
                                         "batch",   "output",    "config",   "precision",
                                         "strategy", "time-limit", "memory-limit",
                                         "megatron-version", NULL};
    static const char *const flags[] = {"help", "skip-unknown", "tp-across-nodes", NULL};
    const char *cmd = "export";
    cli_spec spec = {valued, flags};
    cli_args a;
    dnp_graph *g = NULL;
    dnp_plan *p = NULL;
    char *text = NULL;
    const char *out_path = NULL;
    int rc = EXIT_USAGE, done = 0;

    /* `-o FILE` is the one short option; take it out before cli_begin. */
    char **args = dnp_malloc((size_t)(argc + 1) * sizeof *args);
    if (args == NULL) {
        cli_error(cmd, "out of memory");
        return EXIT_RUNTIME;
    }
    int n_args = 0;
    for (int i = 0; i < argc; i++) {
        if (i >= 2 && strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc) {
                cli_error(cmd, "option -o needs a value");
                goto done;
            }
            out_path = argv[++i];
            continue;
        }
        args[n_args++] = argv[i];
    }
    args[n_args] = NULL;
    rc = cli_begin(n_args, args, &spec, cmd, help, 1, "one MODEL", &a, &done);
    if (rc != 0 || done)
        goto done;
    rc = EXIT_USAGE;
    if (cli_get(&a, "output") != NULL)
        out_path = cli_get(&a, "output");
    if (out_path == NULL)
        out_path = "-";
    const char *s = cli_get(&a, "format");
    if (s == NULL) {
        cli_error(cmd, "--format is required: jax, dtensor, astra or megatron");
        goto done;
    }
    /* a plan file holding a Megatron-LM configuration (plan --search 3d
     * --json): exported as that configuration in any of the formats but
     * astra */
    char *file_cfg = NULL;
    if (cli_get(&a, "strategy") != NULL && strcmp(s, "astra") != 0) {
        dnp_strategy *sg = NULL;
        dnp_error serr = {0};
        if (dnp_strategy_read(cli_get(&a, "strategy"), &sg, &serr) != DNP_OK) {
            cli_error(cmd, "%s", serr.msg);
            rc = cli_exit_for(serr.status);
            goto done;
        }
        const char *t3 = dnp_strategy_config3d_text(sg);
        if (t3 != NULL) {
            static const char *const tree_opts[] = {"search", "levels", "config", NULL};
            for (int k = 0; tree_opts[k] != NULL; k++)
                if (cli_get(&a, tree_opts[k]) != NULL) {
                    cli_error(cmd, "--strategy %s holds a Megatron-LM configuration: no --%s "
                                   "with it",
                              cli_get(&a, "strategy"), tree_opts[k]);
                    dnp_strategy_free(sg);
                    goto done;
                }
            size_t n = strlen(t3) + 1;
            file_cfg = dnp_malloc(n);
            if (file_cfg != NULL)
                memcpy(file_cfg, t3, n);
        }
        dnp_strategy_free(sg);
        if (t3 != NULL) {
            if (file_cfg == NULL) {
                cli_error(cmd, "out of memory");
                rc = EXIT_RUNTIME;
                goto done;
            }
            int f3 = strcmp(s, "megatron") == 0 ? -1 : dnp_export_from_name(s);
            if (f3 == -1 && strcmp(s, "megatron") != 0) {
                dnp_free(file_cfg);
                rc = cli_unknown_name(cmd, "format", s, cli_export_formats);
                goto done;
            }
            rc = export_3d(&a, out_path, f3, file_cfg, NULL, NULL);
            dnp_free(file_cfg);
            goto done;
        }
    }
    /* jax and dtensor of a transformer (a zoo one, or a file recognised by
     * its structure) or with --config: the Megatron-LM configuration on
     * named mesh axes, unless a tree option asks for AccPar's plan */
    if ((strcmp(s, "jax") == 0 || strcmp(s, "dtensor") == 0) &&
        cli_get(&a, "search") == NULL && cli_get(&a, "levels") == NULL &&
        cli_get(&a, "strategy") == NULL) {
        int three_d = cli_get(&a, "config") != NULL;
        dnp_graph *m = NULL;
        dnp_transformer_match tm;
        if (!three_d) {
            /* loaded and matched once: export_3d takes both */
            if ((rc = cli_load_model(cmd, a.pos[0], &a, &m)) != 0)
                goto done;
            dnp_error merr = {0};
            three_d = dnp_graph_match_transformer(m, &tm, &merr) == DNP_OK;
        }
        if (three_d) {
            rc = export_3d(&a, out_path, dnp_export_from_name(s), NULL, m, m != NULL ? &tm : NULL);
            goto done;
        }
        dnp_graph_free(m);
    }
    /* an option the format does not read is refused, never ignored */
    if (strcmp(s, "megatron") == 0) {
        static const char *const tree_only[] = {"strategy", "search", "levels", NULL};
        for (int k = 0; tree_only[k] != NULL; k++)
            if (cli_get(&a, tree_only[k]) != NULL) {
                cli_error(cmd, "--%s applies to the jax, dtensor and astra exports (a tree "
                               "plan); --format megatron exports a Megatron-LM configuration: "
                               "give it with --config or a plan file of plan --search 3d "
                               "(--strategy)",
                          tree_only[k]);
                goto done;
            }
        rc = export_3d(&a, out_path, -1, NULL, NULL, NULL);
        goto done;
    }
    static const char *const megatron_only[] = {"config", "precision", "tp-across-nodes",
                                                "megatron-version", NULL};
    for (int k = 0; megatron_only[k] != NULL; k++)
        if (cli_get(&a, megatron_only[k]) != NULL || cli_flag(&a, megatron_only[k])) {
            cli_error(cmd, "--%s applies to a Megatron-LM configuration (--format megatron, or "
                           "jax and dtensor of a transformer); a tree plan (--search, --levels "
                           "or --strategy, or --format astra) does not read it",
                      megatron_only[k]);
            goto done;
        }
    int fmt = dnp_export_from_name(s);
    if (fmt < 0) {
        const char *const *known = cli_export_formats;
        rc = cli_unknown_name(cmd, "format", s, known);
        goto done;
    }
    /* The ASTRA-sim workload carries each layer's compute on the device that
     * sets it under the paper's accounting (docs/reports.md); the sharding
     * exports only need the split, the same under both models. */
    char given[64];
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 512,
                            .cost_model = DNP_COST_ACCPAR_PAPER};
    if ((s = cli_get(&a, "search")) != NULL) {
        int sc = dnp_scheme_from_name(s);
        if (sc < 0) {
            static const char *const known[] = {"accpar", "dp", "owt", "hypar", NULL};
            rc = cli_unknown_name(cmd, "search", s, known);
            goto done;
        }
        opt.scheme = (dnp_scheme)sc;
    }
    if ((s = cli_get(&a, "batch")) != NULL &&
        (opt.batch = cli_positive(cmd, "batch", s, 1LL << 40)) < 0)
        goto done;
    if (cli_deadline(cmd, &a, &opt) != 0) /* the plan, its memory check and the text */
        goto done;
    if ((s = cli_get(&a, "memory-limit")) != NULL &&
        cli_parse_size(cmd, "memory-limit", s, &opt.memory_limit_bytes) != 0)
        goto done;
    long long levels = 0;
    if ((s = cli_get(&a, "levels")) != NULL && (levels = cli_positive(cmd, "levels", s, 62)) < 0)
        goto done;
    opt.levels = (int)levels;
    dnp_cluster cl;
    if ((rc = cli_load_cluster(cmd, cli_get(&a, "cluster"), &cl)) != 0)
        goto done;
    if ((rc = cli_load_model(cmd, a.pos[0], &a, &g)) != 0)
        goto done;
    /* the model's optimizer, as plan prices it (docs/model.md, "Default optimizer") */
    opt.optimizer = (dnp_optimizer)dnp_graph_default_optimizer(g);
    dnp_error err = {0};
    dnp_status st;
    const char *strat = cli_get(&a, "strategy");
    if (strat != NULL) {
        /* a plan from any search, PaSE's included (docs/pase.md, "As a
         * dnnpar strategy"); its batch unless --batch is given */
        dnp_strategy *sg = NULL;
        if (cli_get(&a, "search") != NULL || cli_get(&a, "levels") != NULL) {
            cli_error(cmd, "--strategy gives the plan: no --search or --levels with it");
            rc = EXIT_USAGE;
            goto done;
        }
        st = dnp_strategy_read(strat, &sg, &err);
        if (st == DNP_OK) {
            /* the header names the strategy's own search, as its file names it
             * ("given (pase)"), the way simulate --strategy does */
            const char *from = dnp_strategy_option(sg, "search");
            snprintf(given, sizeof given, from != NULL ? "given (%.40s)" : "given", from);
            opt.search_name = given;
            if (cli_get(&a, "batch") == NULL)
                opt.batch = dnp_strategy_batch(sg);
            st = dnp_plan_run_strategy(g, &cl, &opt, sg, &p, &err);
        }
        dnp_strategy_free(sg);
    } else {
        st = dnp_plan_run(g, &cl, &opt, &p, &err);
    }
    if (st == DNP_OK)
        st = dnp_export_text((dnp_export_format)fmt, g, dnp_plan_cluster(p), &opt, p, &text,
                             &err);
    if (st == DNP_OK)
        st = dnp_write_file(out_path, text, strlen(text), &err);
    if (st != DNP_OK)
        cli_error(cmd, "%s", err.msg);
    rc = cli_exit_for(st);
done:
    dnp_free(text);
    dnp_plan_free(p);
    dnp_graph_free(g);
    dnp_free(args);
    return rc;
}
