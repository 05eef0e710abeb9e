/* cmd_plan.c - `dnnpar plan` and `dnnpar compare`. */
#include "cli.h"

#include <math.h>
#include <string.h>

static const char plan_help[] =
    "usage: dnnpar plan MODEL --cluster SPEC [--search accpar|dp|owt|hypar]\n"
    "                   [--levels H] [--batch B] [--reference] [--json FILE]\n"
    "\n"
    "Partition every layer of MODEL over the devices of SPEC with hierarchical\n"
    "two-way splits (AccPar section 5) and print, per layer and level, the\n"
    "partition type (I batch, II input dim, III output dim; joins: B batch,\n"
    "C channel, R replicated) and each level's ratio, then the predicted step\n"
    "time with its compute / communication split (docs/time-model.md).\n"
    "\n"
    "  --search S     accpar (default), dp, owt or hypar\n"
    "  --levels H     levels searched (default: all the cluster supports); the\n"
    "                 levels below are data parallel\n"
    "  --batch B      mini-batch (default 512)\n"
    "  --reference    the AccPar authors' restricted model: element counts,\n"
    "                 communication only, 1/2 splits, 7 levels unless --levels;\n"
    "                 --cluster is then optional\n"
    "\n"
    "examples:\n"
    "  dnnpar plan vgg19 --cluster 128xtpu-v2+128xtpu-v3\n"
    "  dnnpar plan resnet50 --cluster 8xtpu-v3 --search hypar --levels 2\n";

static const char compare_help[] =
    "usage: dnnpar compare MODEL --cluster SPEC [--levels H] [--batch B]\n"
    "                      [--reference] [--json FILE]\n"
    "\n"
    "Plan MODEL with data parallelism (dp), one weird trick (owt), HyPar and\n"
    "AccPar on the same cost model and print each scheme's predicted step time,\n"
    "its compute / communication split and its speedup over data parallelism.\n"
    "With --reference, print the four schemes' partition-type tables in the\n"
    "format of the AccPar authors' code (0 = Type-I, 1 = Type-II, 2 = Type-III).\n"
    "\n"
    "examples:\n"
    "  dnnpar compare vgg19 --cluster 128xtpu-v2+128xtpu-v3\n"
    "  dnnpar compare ../shared/reference/accpar/Alexnet.txt --reference\n";

typedef struct {
    dnp_graph *g;
    dnp_cluster cl;
    dnp_plan_options opt;
    const char *json;
} plan_job;

/* Shared option handling of plan and compare.  Returns an exit status; on
 * 0 the job holds a model and a cluster. */
static int setup(int argc, char **argv, const char *cmd, const char *help, int with_search,
                 plan_job *job, int *done)
{
    static const char *const valued_plan[] = {"cluster", "search", "levels", "batch", "json",
                                              NULL};
    static const char *const valued_cmp[] = {"cluster", "levels", "batch", "json", NULL};
    static const char *const flags[] = {"help", "reference", "skip-unknown", NULL};
    cli_spec spec = {with_search ? valued_plan : valued_cmp, flags};
    cli_args a;
    memset(job, 0, sizeof *job);
    int rc = cli_begin(argc, argv, &spec, cmd, help, 1, "one MODEL", &a, done);
    if (rc != 0 || *done)
        return rc;
    job->opt.reference_mode = cli_flag(&a, "reference");
    job->opt.scheme = DNP_SCHEME_ACCPAR;
    job->opt.batch = 512;
    job->json = cli_get(&a, "json");
    const char *s;
    if (with_search && (s = cli_get(&a, "search")) != NULL) {
        int sc = dnp_scheme_from_name(s);
        if (sc < 0) {
            cli_error(cmd, "unknown search '%s' (known: accpar, dp, owt, hypar)", s);
            return EXIT_USAGE;
        }
        job->opt.scheme = (dnp_scheme)sc;
    }
    if ((s = cli_get(&a, "batch")) != NULL &&
        (job->opt.batch = cli_positive(cmd, "batch", s, 1LL << 40)) < 0)
        return EXIT_USAGE;
    long long levels = job->opt.reference_mode ? 7 : 0;
    if ((s = cli_get(&a, "levels")) != NULL && (levels = cli_positive(cmd, "levels", s, 62)) < 0)
        return EXIT_USAGE;
    job->opt.levels = (int)levels;
    const char *spec_text = cli_get(&a, "cluster");
    if (job->opt.reference_mode && spec_text == NULL) {
        /* Identical devices; their figures do not enter element counts. */
        char buf[64];
        snprintf(buf, sizeof buf, "%lldxtpu-v3", 1LL << levels);
        if ((rc = cli_load_cluster(cmd, buf, &job->cl)) != 0)
            return rc;
    } else if ((rc = cli_load_cluster(cmd, spec_text, &job->cl)) != 0) {
        return rc;
    }
    return cli_load_model(cmd, a.pos[0], &a, &job->g);
}

static int run_plan(const char *cmd, const plan_job *job, dnp_scheme scheme, dnp_plan **out)
{
    dnp_plan_options opt = job->opt;
    opt.scheme = scheme;
    dnp_error err = {0};
    dnp_status st = dnp_plan_run(job->g, &job->cl, &opt, out, &err);
    if (st != DNP_OK)
        cli_error(cmd, "%s", err.msg);
    return cli_exit_for(st);
}

/* Distinct root-to-leaf paths of the plan: a path branches only where the
 * two halves differ.  Returns the count (at most max). */
static int distinct_paths(const dnp_plan *p, int levels, unsigned *paths, int max)
{
    int n = 1;
    paths[0] = 0;
    for (int k = 0; k < levels; k++) {
        int cur = n;
        for (int i = 0; i < cur && n < max; i++)
            if (!dnp_plan_level_identical(p, k, paths[i]))
                paths[n++] = paths[i] | (1u << k);
    }
    return n;
}

static const char *state_word(int weighted, int t)
{
    static const char *const layouts[3] = {"batch", "channel", "replicated"};
    if (weighted)
        return cli_state_name(1, t);
    return (t >= 0 && t < 3) ? layouts[t] : "-";
}

static json_t *plan_json(const dnp_plan *p, const plan_job *job, dnp_scheme scheme)
{
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    char spec[256];
    dnp_cluster_format(&job->cl, spec, sizeof spec);
    unsigned paths[16];
    int np = distinct_paths(p, s.levels, paths, 16);
    json_t *jpaths = json_array();
    for (int i = 0; i < np; i++) {
        json_t *lv = json_array();
        for (int k = 0; k < s.levels; k++) {
            char groups[300];
            dnp_plan_level_groups(p, k, paths[i], groups, sizeof groups);
            json_t *types = json_object();
            for (int v = 0; v < dnp_plan_n_nodes(p); v++)
                json_object_set_new(types, dnp_plan_node_name(p, v),
                                    json_string(state_word(dnp_plan_node_weighted(p, v),
                                                           dnp_plan_type(p, k, paths[i], v))));
            json_array_append_new(lv, json_pack("{s:i,s:s,s:f,s:o}", "level", k, "groups", groups,
                                                "ratio", dnp_plan_ratio(p, k, paths[i]), "types",
                                                types));
        }
        json_array_append_new(jpaths, json_pack("{s:I,s:o}", "branch_bits",
                                                (json_int_t)paths[i], "levels", lv));
    }
    json_t *layers = json_array();
    for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
        double cs, ms;
        dnp_plan_node_times(p, v, &cs, &ms);
        json_array_append_new(layers, json_pack("{s:s,s:b,s:f,s:f}", "name",
                                                dnp_plan_node_name(p, v), "weighted",
                                                dnp_plan_node_weighted(p, v), "compute_s", cs,
                                                "comm_s", ms));
    }
    return json_pack("{s:s,s:I,s:s,s:s,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:o,s:o}", "model",
                     dnp_graph_name(job->g), "batch", (json_int_t)job->opt.batch, "cluster", spec,
                     "search", dnp_scheme_name(scheme), "levels", s.levels, "total_levels",
                     s.total_levels, "step_time_s", s.step_time_s, "compute_s", s.compute_s,
                     "comm_s", s.comm_s, "comm_bytes", s.comm_bytes, "mem_bytes_max",
                     s.mem_bytes_max, "mem_capacity_bytes", s.mem_capacity_bytes, "paths", jpaths,
                     "layers", layers);
}

static void plan_text(const dnp_plan *p, const plan_job *job, dnp_scheme scheme)
{
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    char spec[256], t1[32], t2[32], t3[32];
    dnp_cluster_format(&job->cl, spec, sizeof spec);
    cli_fmt_time(s.step_time_s, t1, sizeof t1);
    cli_fmt_time(s.compute_s, t2, sizeof t2);
    cli_fmt_time(s.comm_s, t3, sizeof t3);
    printf("model %s, batch %lld, cluster %s, search %s\n", dnp_graph_name(job->g),
           (long long)job->opt.batch, spec, dnp_scheme_name(scheme));
    printf("levels searched %d of %d (deeper levels data parallel)\n", s.levels, s.total_levels);
    printf("predicted step time %s: compute %s, communication %s\n", t1, t2, t3);
    printf("busiest device receives %.3f GB per step; memory per device %.3f GB of %.3f GB\n",
           s.comm_bytes / 1e9, s.mem_bytes_max / 1e9, s.mem_capacity_bytes / 1e9);

    unsigned paths[16];
    int np = distinct_paths(p, s.levels, paths, 16);
    for (int i = 0; i < np; i++) {
        printf("\npath %d: the group taken at each level\n", i + 1);
        printf("  %-5s %-40s %s\n", "level", "groups (first | second)", "ratio");
        for (int k = 0; k < s.levels; k++) {
            char groups[300];
            unsigned bits = paths[i];
            dnp_plan_level_groups(p, k, bits, groups, sizeof groups);
            printf("  %-5d %-40s %.4f  -> %s\n", k, groups, dnp_plan_ratio(p, k, bits),
                   ((bits >> k) & 1u) ? "second" : "first");
        }
        printf("  %-22s", "layer");
        for (int k = 0; k < s.levels; k++)
            printf(" %4s%d", "h", k);
        printf("%s\n", i == 0 ? "      compute         comm" : "");
        for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
            printf("  %-22s", dnp_plan_node_name(p, v));
            for (int k = 0; k < s.levels; k++)
                printf(" %5s", cli_state_name(dnp_plan_node_weighted(p, v),
                                              dnp_plan_type(p, k, paths[i], v)));
            if (i == 0) {
                double cs, ms;
                dnp_plan_node_times(p, v, &cs, &ms);
                cli_fmt_time(cs, t1, sizeof t1);
                cli_fmt_time(ms, t2, sizeof t2);
                printf(" %12s %12s", t1, t2);
            }
            printf("\n");
        }
    }
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

/* 1 if the command line asks for a PaSE-space search (--search pase|mcmc). */
static int wants_pase(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--search") == 0 && i + 1 < argc)
            v = argv[i + 1];
        else if (strncmp(argv[i], "--search=", 9) == 0)
            v = argv[i] + 9;
        if (v != NULL && (strcmp(v, "pase") == 0 || strcmp(v, "mcmc") == 0))
            return 1;
    }
    return 0;
}

int cmd_plan(int argc, char **argv)
{
    if (wants_pase(argc, argv))
        return cmd_plan_pase(argc, argv);
    plan_job job;
    int done, rc = setup(argc, argv, "plan", plan_help, 1, &job, &done);
    if (rc != 0 || done) {
        dnp_graph_free(job.g);
        return rc;
    }
    dnp_plan *p = NULL;
    if ((rc = run_plan("plan", &job, job.opt.scheme, &p)) == 0) {
        if (job.json != NULL)
            rc = cli_write_json("plan", job.json, plan_json(p, &job, job.opt.scheme));
        if (rc == 0 && (job.json == NULL || strcmp(job.json, "-") != 0)) {
            if (job.opt.reference_mode)
                reference_table(p, dnp_scheme_name(job.opt.scheme));
            else
                plan_text(p, &job, job.opt.scheme);
        }
    }
    dnp_plan_free(p);
    dnp_graph_free(job.g);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    static const char *const ref_titles[DNP_SCHEME_COUNT] = {"DATA PAR", "THE TRICK", "HYPAR",
                                                             "ACCPAR"};
    plan_job job;
    int done, rc = setup(argc, argv, "compare", compare_help, 0, &job, &done);
    if (rc != 0 || done) {
        dnp_graph_free(job.g);
        return rc;
    }
    dnp_plan *plans[DNP_SCHEME_COUNT] = {0};
    dnp_plan_summary sum[DNP_SCHEME_COUNT];
    for (int s = 0; s < DNP_SCHEME_COUNT && rc == 0; s++)
        if ((rc = run_plan("compare", &job, (dnp_scheme)s, &plans[s])) == 0)
            dnp_plan_get_summary(plans[s], &sum[s]);
    if (rc == 0) {
        char spec[256];
        dnp_cluster_format(&job.cl, spec, sizeof spec);
        if (job.json != NULL) {
            json_t *schemes = json_array();
            for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
                json_t *o = job.opt.reference_mode
                                ? json_pack("{s:s,s:o}", "name", dnp_scheme_name((dnp_scheme)s),
                                            "types", reference_json(plans[s]))
                                : json_pack("{s:s,s:f,s:f,s:f,s:f}", "name",
                                            dnp_scheme_name((dnp_scheme)s), "step_time_s",
                                            sum[s].step_time_s, "compute_s", sum[s].compute_s,
                                            "comm_s", sum[s].comm_s, "speedup_vs_dp",
                                            sum[0].step_time_s / sum[s].step_time_s);
                json_array_append_new(schemes, o);
            }
            rc = cli_write_json("compare", job.json,
                                json_pack("{s:s,s:I,s:s,s:i,s:o}", "model",
                                          dnp_graph_name(job.g), "batch",
                                          (json_int_t)job.opt.batch, "cluster", spec, "levels",
                                          sum[0].levels, "schemes", schemes));
        }
        if (rc == 0 && (job.json == NULL || strcmp(job.json, "-") != 0)) {
            if (job.opt.reference_mode) {
                for (int s = 0; s < DNP_SCHEME_COUNT; s++)
                    reference_table(plans[s], ref_titles[s]);
            } else {
                printf("model %s, batch %lld, cluster %s, %d levels searched of %d\n\n",
                       dnp_graph_name(job.g), (long long)job.opt.batch, spec, sum[0].levels,
                       sum[0].total_levels);
                printf("%-8s %14s %14s %14s %10s\n", "scheme", "step time", "compute",
                       "communication", "speedup");
                for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
                    char a[32], b[32], c[32];
                    cli_fmt_time(sum[s].step_time_s, a, sizeof a);
                    cli_fmt_time(sum[s].compute_s, b, sizeof b);
                    cli_fmt_time(sum[s].comm_s, c, sizeof c);
                    printf("%-8s %14s %14s %14s %9.2fx\n", dnp_scheme_name((dnp_scheme)s), a, b,
                           c, sum[0].step_time_s / sum[s].step_time_s);
                }
            }
        }
    }
    for (int s = 0; s < DNP_SCHEME_COUNT; s++)
        dnp_plan_free(plans[s]);
    dnp_graph_free(job.g);
    return rc;
}
