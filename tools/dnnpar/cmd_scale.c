/* cmd_scale.c - `dnnpar scale`: step time, throughput and scaling
 * efficiency of one model as a cluster grows node by node. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: dnnpar scale MODEL --cluster NODE --nodes N[,N...] [--batch-per-device B]\n"
    "                    [--search dp|owt|hypar|accpar] [--plot FILE.png|FILE.svg]\n"
    "                    [--json FILE] [--precision P] [--optimizer O] [--no-overlap]\n"
    "                    [--no-stragglers] [--memory-limit SIZE] [--time-limit S]\n"
    "\n"
    "Plan MODEL on N x NODE for every N (weak scaling: the batch is B per device)\n"
    "and print the predicted step time, throughput and scaling efficiency, i.e.\n"
    "the throughput per device relative to the smallest size.  NODE is a node\n"
    "preset (dgx-a100, dgx1, ...) or a device preset (docs/cluster.md).\n"
    "\n"
    "  --nodes LIST          sizes in nodes, e.g. 1,2,4,8 (increasing)\n"
    "  --batch-per-device B  samples per device per step (default 256)\n"
    "  --search S            scheme (default dp)\n"
    "  --plot FILE           throughput and efficiency against devices (gnuplot)\n"
    CLI_SKIP_UNKNOWN_HELP
    CLI_PERF_HELP
    "  --time-limit S wall-time limit of the whole command in seconds (default 600):\n"
    "                 one deadline over every size's plan; a search cut at it is\n"
    "                 marked (the best plan so far); a plan not simulated by then:\n"
    "                 exit status 2, nothing written (docs/cli.md, \"Time limits\")\n"
    "\n"
    "examples:\n"
    "  dnnpar scale resnet50 --cluster dgx-a100 --nodes 1,2,4,8,16,32,64,128\n"
    "  dnnpar scale vgg19 --cluster dgx1 --nodes 1,2,4 --search accpar --precision amp\n";

#define MAX_SIZES 64

static int parse_nodes(const char *text, long long *out, int *n)
{
    const char *s = text;
    *n = 0;
    while (*s) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno || end == s || v <= 0 || v > 1000000 || *n == MAX_SIZES ||
            (*n > 0 && v <= out[*n - 1]) || (*end != ',' && *end != '\0')) {
            cli_error("scale", "--nodes '%s': expected increasing positive integers separated "
                               "by commas (at most %d)", text, MAX_SIZES);
            return EXIT_USAGE;
        }
        out[(*n)++] = v;
        s = *end == ',' ? end + 1 : end;
    }
    if (*n == 0) {
        cli_error("scale", "--nodes is empty");
        return EXIT_USAGE;
    }
    return 0;
}

int cmd_scale(int argc, char **argv)
{
    static const char *const valued[] = {"cluster", "nodes", "batch-per-device", "search", "json",
                                         "plot", "time-limit", CLI_PERF_VALUED, NULL};
    static const char *const flags[] = {"help", "skip-unknown", CLI_PERF_FLAGS, NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "scale", help, 1, "one MODEL", &a, &done);
    if (rc != 0 || done)
        return rc;
    const char *node = cli_get(&a, "cluster"), *nodes_text = cli_get(&a, "nodes");
    if (node == NULL || nodes_text == NULL) {
        cli_error("scale", "expected --cluster NODE and --nodes N[,N...] (see dnnpar scale --help)");
        return EXIT_USAGE;
    }
    long long sizes[MAX_SIZES];
    int n;
    if ((rc = parse_nodes(nodes_text, sizes, &n)) != 0)
        return rc;
    long long per_dev = 256;
    const char *s = cli_get(&a, "batch-per-device");
    if (s != NULL && (per_dev = cli_positive("scale", "batch-per-device", s, 1LL << 30)) < 0)
        return EXIT_USAGE;
    dnp_plan_options opt = {.scheme = DNP_SCHEME_DP};
    if ((s = cli_get(&a, "search")) != NULL) {
        int sc = dnp_scheme_from_name(s);
        if (sc < 0) {
            static const char *const known[] = {"accpar", "dp", "owt", "hypar", NULL};
            return cli_unknown_name("scale", "search", s, known);
        }
        opt.scheme = (dnp_scheme)sc;
    }
    if ((rc = cli_perf_options("scale", &a, &opt)) != 0 ||
        (rc = cli_deadline("scale", &a, &opt)) != 0) /* one deadline for every size */
        return rc;
    const char *plot = cli_get(&a, "plot"), *json = cli_get(&a, "json");
    if (plot != NULL && dnp_plot_format(plot) < 0) {
        cli_error("scale", "--plot '%s': the file name must end in .png or .svg", plot);
        return EXIT_USAGE;
    }
    dnp_graph *g = NULL;
    if ((rc = cli_load_model("scale", a.pos[0], &a, &g)) != 0)
        return rc;
    if (cli_get(&a, "optimizer") == NULL) /* the model's (docs/model.md, "Default optimizer") */
        opt.optimizer = (dnp_optimizer)dnp_graph_default_optimizer(g);
    double devices[MAX_SIZES], step_s[MAX_SIZES], thr[MAX_SIZES], eff[MAX_SIZES];
    double mem[MAX_SIZES], exposed[MAX_SIZES], pace[MAX_SIZES];
    int cut[MAX_SIZES], any_cut = 0; /* the search stopped at the time limit */
    dnp_plan_summary last;
    memset(&last, 0, sizeof last);
    long long batch[MAX_SIZES];
    /* every term of the node spec times the size ("dgx-a100+dgx1" at 2
     * nodes: 2 of each), counted in the cluster, not by editing the text */
    dnp_cluster base;
    if ((rc = cli_load_cluster("scale", node, &base)) != 0) {
        dnp_graph_free(g);
        return rc;
    }
    for (int i = 0; i < n && rc == 0; i++) {
        char *spec_text = NULL;
        dnp_cluster cl = base;
        long long total = 0;
        for (int t = 0; t < cl.n_types; t++) {
            cl.counts[t] = base.counts[t] * sizes[i];
            total += cl.counts[t];
        }
        if (total > 1000000) {
            cli_error("scale", "%lld nodes of %s are %lld devices (at most 1,000,000)",
                      sizes[i], node, total);
            rc = EXIT_USAGE;
            break;
        }
        if ((spec_text = cli_cluster_spec(&cl)) == NULL) {
            cli_error("scale", "out of memory");
            rc = EXIT_RUNTIME;
            break;
        }
        devices[i] = (double)dnp_cluster_devices(&cl);
        batch[i] = per_dev * (long long)devices[i];
        opt.batch = batch[i];
        dnp_plan *p = NULL;
        dnp_error err = {0};
        if (i > 0 && dnp_clock_s() >= opt.time_limit_from_s + opt.time_limit_s) {
            /* not started: its search would be cut at once, its step not simulated */
            cli_error("scale", "%s: time limit of %g s reached before its plan (sizes %d to %d "
                               "of %d not run): no result to report (a larger --time-limit "
                               "would do)",
                      spec_text, opt.time_limit_s, i + 1, n, n);
            rc = EXIT_USAGE;
            dnp_free(spec_text);
            break;
        }
        if (dnp_plan_run(g, &cl, &opt, &p, &err) != DNP_OK) {
            cli_error("scale", "%s: %s", spec_text, err.msg);
            rc = cli_exit_for(err.status);
            dnp_free(spec_text);
            break;
        }
        dnp_free(spec_text);
        dnp_plan_summary sum;
        dnp_plan_get_summary(p, &sum);
        dnp_plan_free(p);
        step_s[i] = sum.step_time_s;
        exposed[i] = sum.exposed_comm_s;
        pace[i] = sum.straggler_pace;
        cut[i] = sum.time_limit_hit;
        any_cut |= cut[i];
        if (sum.straggler_pace > 1.0)
            last = sum;
        mem[i] = sum.mem_bytes_max;
        thr[i] = (double)batch[i] / sum.step_time_s;
        eff[i] = (thr[i] / devices[i]) / (thr[0] / devices[0]);
    }
    if (rc == 0 && plot != NULL) {
        dnp_error err = {0};
        dnp_status st =
            dnp_plot_scale(plot, dnp_graph_name(g), node, n, devices, thr, eff, &err);
        if (st != DNP_OK)
            cli_error("scale", "%s", err.msg);
        rc = cli_exit_for(st);
    }
    if (rc == 0 && json != NULL) {
        json_t *rows = json_array();
        for (int i = 0; i < n; i++) {
            json_t *row = json_pack("{s:I,s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:f}", "nodes",
                                    (json_int_t)sizes[i], "devices", (json_int_t)devices[i],
                                    "batch", (json_int_t)batch[i], "step_time_s", step_s[i],
                                    "exposed_comm_s", exposed[i], "throughput_per_s", thr[i],
                                    "scaling_efficiency", eff[i], "mem_peak_bytes", mem[i],
                                    "straggler_pace", pace[i]);
            if (row != NULL && cut[i])
                json_object_set_new(row, "time_limit",
                                    json_pack("{s:f,s:b,s:s}", "seconds", opt.time_limit_s,
                                              "reached", 1, "result", "best plan found so far"));
            json_array_append_new(rows, row);
        }
        json_t *root = json_pack("{s:s,s:s,s:s,s:I,s:o}", "model", dnp_graph_name(g), "node", node,
                                 "search", dnp_scheme_name(opt.scheme), "batch_per_device",
                                 (json_int_t)per_dev, "rows", rows);
        if (root != NULL && last.straggler_pace > 1.0)
            json_object_set_new(root, "stragglers_source", json_string(DNP_SPEED_CV_SOURCE));
        rc = cli_write_json("scale", json, root);
    }
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0)) {
        cli_wrapf(stdout, 0, "  ",
                  "model %s on %s nodes, %lld samples per device, search %s, precision %s",
                  dnp_graph_name(g), node, per_dev, dnp_scheme_name(opt.scheme),
                  dnp_precision_name(opt.precision));
        printf("\n");
        /* One unit per column (the largest value's). */
        double max_step = 0.0, max_exp = 0.0, f_step, f_exp;
        for (int i = 0; i < n; i++) {
            max_step = step_s[i] > max_step ? step_s[i] : max_step;
            max_exp = exposed[i] > max_exp ? exposed[i] : max_exp;
        }
        char h_step[32], h_exp[32];
        snprintf(h_step, sizeof h_step, "step (%s)", cli_time_unit(max_step, &f_step));
        snprintf(h_exp, sizeof h_exp, "exposed comm (%s)", cli_time_unit(max_exp, &f_exp));
        /* Columns sized to their content (cli_table). */
        const char *header[] = {"nodes", "devices", "batch", h_step, h_exp, "stragglers",
                                "throughput /s", "efficiency", ""};
        const int nc = any_cut ? 9 : 8; /* a last column marks a search cut short */
        cli_table *t = cli_table_new(nc, "rrrrrrrrl", header);
        for (int i = 0; i < n && t != NULL; i++) {
            char c[8][32];
            snprintf(c[0], sizeof c[0], "%lld", sizes[i]);
            snprintf(c[1], sizeof c[1], "%.0f", devices[i]);
            snprintf(c[2], sizeof c[2], "%lld", batch[i]);
            snprintf(c[3], sizeof c[3], "%.3f", step_s[i] * f_step);
            snprintf(c[4], sizeof c[4], "%.3f", exposed[i] * f_exp);
            snprintf(c[5], sizeof c[5], "%.4fx", pace[i]);
            snprintf(c[6], sizeof c[6], "%.0f", thr[i]);
            snprintf(c[7], sizeof c[7], "%.1f%%", 100.0 * eff[i]);
            const char *row[] = {c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
                                 cut[i] ? "(time limit: best so far)" : ""};
            if (cli_table_add(t, row) != 0) {
                cli_table_free(t);
                t = NULL;
            }
        }
        if (t == NULL) {
            cli_error("scale", "out of memory printing the table");
            rc = EXIT_RUNTIME;
        } else {
            cli_table_print(t, stdout, CLI_MAX_WIDTH, -1);
            cli_table_free(t);
        }
        if (any_cut)
            printf("\n(time limit: best so far): the --time-limit of %g s ran out in that "
                   "size's search; its plan is the best found by then\n",
                   opt.time_limit_s);
        if (last.straggler_pace > 1.0)
            printf("\nstragglers: the factor on kernel times for the expected slowest device "
                   "(--no-stragglers ignores it)\n  source: %s\n",
                   DNP_SPEED_CV_SOURCE);
    }
    dnp_graph_free(g);
    return rc;
}
