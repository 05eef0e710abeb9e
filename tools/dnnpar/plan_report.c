/* plan_report.c - a plan as text and as JSON (the strategy format read by
 * `simulate --strategy`, docs/formats.md); shared by plan and simulate. */
#include "cli.h"

#include <string.h>

/* Distinct root-to-leaf paths of the plan: a path branches only where the
 * two halves differ.  Returns the count (at most max). */
int cli_plan_paths(const dnp_plan *p, int levels, unsigned *paths, int max) {
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

void cli_straggler_note(const dnp_plan_summary *s, char *buf, size_t n) {
    if (n == 0)
        return;
    buf[0] = '\0';
    if (s->straggler_pace > 1.0)
        snprintf(buf, n,
                 "stragglers: kernel times x%.4f, the expected slowest of %lld devices "
                 "(--no-stragglers ignores it)\n  source: %s",
                 s->straggler_pace, (long long)s->straggler_devices, DNP_SPEED_CV_SOURCE);
}

json_t *cli_straggler_json(const dnp_plan_summary *s) {
    if (!(s->straggler_pace > 1.0))
        return NULL;
    return json_pack("{s:f,s:I,s:s}", "pace", s->straggler_pace, "devices",
                     (json_int_t)s->straggler_devices, "source", DNP_SPEED_CV_SOURCE);
}

/* Levels path `bits` decides, of the plan's `levels`: fewer where its
 * branch of the tree ends above them (a version-2 strategy's short path). */
/* A time already in `unit`: three decimals, or four significant digits
 * past a billion (a device of 1e-300 TFLOP/s), so that the unit is never cut
 * off by the buffer. */
static void fmt_in_unit(char *buf, size_t n, double v, const char *unit)
{
    snprintf(buf, n, v >= 1e9 ? "%.4g %s" : "%.3f %s", v, unit);
}

static int cli_path_levels(const dnp_plan *p, int levels, unsigned bits) {
    int depth = levels;
    while (depth > 0 && dnp_plan_n_nodes(p) > 0 && dnp_plan_type(p, depth - 1, bits, 0) < 0)
        depth--;
    return depth;
}

static const char *state_word(int weighted, int t) {
    static const char *const layouts[3] = {"batch", "channel", "replicated"};
    if (weighted)
        return cli_state_name(1, t);
    return (t >= 0 && t < 3) ? layouts[t] : "-";
}

json_t *cli_plan_summary_json(const cli_plan_info *info, const char *cluster_spec,
                              const char *cost_model, const char *precision,
                              const char *optimizer, double step_time_s, int fits,
                              double peak_bytes, double capacity_bytes)
{
    json_t *root = json_pack("{s:i,s:s,s:s,s:o,s:I,s:s}", "version", CLI_PLAN_JSON_VERSION,
                             "model", info->model, "model_source", info->source, "cluster",
                             cluster_spec != NULL ? json_string(cluster_spec) : json_null(),
                             "batch", (json_int_t)info->batch, "search", info->search);
    if (root == NULL)
        return NULL;
    if (info->reason != NULL)
        json_object_set_new(root, "search_reason", json_string(info->reason));
    json_object_set_new(root, "cost_model", json_string(cost_model));
    json_object_set_new(root, "precision", json_string(precision));
    json_object_set_new(root, "optimizer", json_string(optimizer));
    int known = step_time_s >= 0.0;
    json_object_set_new(root, "step_time_s", known ? json_real(step_time_s) : json_null());
    json_object_set_new(root, "fits", known ? json_boolean(fits) : json_null());
    json_object_set_new(root, "memory",
                        known ? json_pack("{s:f,s:f,s:b}", "peak_bytes_max", peak_bytes,
                                          "capacity_bytes", capacity_bytes, "fits", fits)
                              : json_null());
    return root;
}

json_t *cli_plan_json(const dnp_plan *p, const cli_plan_info *info) {
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    char *spec = cli_cluster_spec(info->cluster);
    if (spec == NULL)
        return NULL; /* cli_write_json: out of memory */
    unsigned paths[16];
    int np = cli_plan_paths(p, s.levels, paths, 16);
    json_t *jpaths = json_array();
    for (int i = 0; i < np; i++) {
        json_t *lv = json_array();
        int depth = cli_path_levels(p, s.levels, paths[i]); /* short paths: strategy v2 */
        for (int k = 0; k < depth; k++) {
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
        json_array_append_new(
            jpaths, json_pack("{s:I,s:o}", "branch_bits", (json_int_t)paths[i], "levels", lv));
    }
    json_t *layers = json_array();
    for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
        double cs, ms;
        dnp_plan_node_times(p, v, &cs, &ms);
        json_array_append_new(
            layers, json_pack("{s:s,s:b,s:f,s:f}", "name", dnp_plan_node_name(p, v), "weighted",
                              dnp_plan_node_weighted(p, v), "compute_s", cs, "comm_s", ms));
    }
    json_t *root = cli_plan_summary_json(
        info, spec, dnp_cost_model_name(s.cost_model), dnp_precision_name(s.precision),
        dnp_optimizer_name(s.optimizer), s.step_time_s, s.mem_fits, s.mem_bytes_max,
        s.mem_capacity_bytes);
    dnp_free(spec);
    if (root == NULL) {
        json_decref(jpaths);
        json_decref(layers);
        return NULL;
    }
    /* the device tree simulate --strategy reads (docs/formats.md "Strategy") */
    json_object_set_new(root, "strategy",
                        json_pack("{s:s,s:s,s:i,s:i,s:b,s:o}", "kind", "tree",
                                  "chosen_assignment", dnp_scheme_name(s.chosen_scheme), "levels",
                                  s.levels, "total_levels", s.total_levels, "exact_search",
                                  s.exact, "paths", jpaths));
    json_object_set_new(root, "compute_s", json_real(s.compute_s));
    json_object_set_new(root, "comm_s", json_real(s.comm_s));
    json_object_set_new(root, "exposed_comm_s", json_real(s.exposed_comm_s));
    json_object_set_new(root, "comm_busy_s", json_real(s.comm_busy_s));
    json_object_set_new(root, "comm_bytes", json_real(s.comm_bytes));
    json_t *strag = cli_straggler_json(&s);
    if (strag != NULL)
        json_object_set_new(root, "stragglers", strag);
    json_object_set_new(root, "wait_s", json_real(s.wait_s));
    json_object_set_new(root, "host_wait_s", json_real(s.host_wait_s));
    if (s.idle_devices > 0) {
        json_object_set_new(root, "idle_devices", json_integer((json_int_t)s.idle_devices));
        json_object_set_new(root, "all_devices_step_s", json_real(s.all_devices_step_s));
    }
    json_object_set_new(root, "simulated_tasks", json_integer(s.sim_tasks));
    json_object_set_new(root, "device_classes", json_integer(s.device_classes));
    int rep = dnp_plan_replicated_nodes(p);
    if (rep > 0) /* only where some op is replicated: other plans' JSON unchanged */
        json_object_set_new(root, "replicated_layers", json_integer(rep));
    if (s.time_limit_hit)
        json_object_set_new(root, "time_limit",
                            json_pack("{s:f,s:b,s:s}", "seconds", s.time_limit_s, "reached", 1,
                                      "result", "best plan found so far"));
    if (s.ratio_level_only)
        json_object_set_new(root, "ratio_search",
                            json_pack("{s:s,s:f}", "judged_by", "level objective",
                                      "estimated_level_solves", s.ratio_est_solves));
    json_object_set_new(root, "layers", layers);
    return root;
}

/* Levels shown in a plan's per-path tables (a device tree of 2^60 leaves). */
#define PLAN_TABLE_MAX_LEVELS 60

/* A path's levels: each level's two groups, split ratio and the half the
 * path takes; columns sized to their content (cli_table).  0, or -1 out of
 * memory.  O(depth). */
static int levels_table(const dnp_plan *p, unsigned bits, int depth)
{
    static const char *const header[] = {"level", "groups (first | second)", "ratio", ""};
    cli_table *t = cli_table_new(4, "llll", header);
    cli_table_set_indent(t, 2);
    for (int k = 0; k < depth && t != NULL; k++) {
        char level[16], groups[300], ratio[32];
        snprintf(level, sizeof level, "%d", k);
        dnp_plan_level_groups(p, k, bits, groups, sizeof groups);
        snprintf(ratio, sizeof ratio, "%.4f", dnp_plan_ratio(p, k, bits));
        const char *row[] = {level, groups, ratio, ((bits >> k) & 1u) ? "-> second" : "-> first"};
        if (cli_table_add(t, row) != 0) {
            cli_table_free(t);
            t = NULL;
        }
    }
    if (t == NULL)
        return -1;
    cli_table_print(t, stdout, CLI_MAX_WIDTH, -1);
    cli_table_free(t);
    return 0;
}

/* A path's layers: each decided op's type per level and, for the first path
 * (with_times), its compute and communication time on the critical device,
 * each time column in one unit named in its header.  Columns sized to their
 * content; a name too long for 119 columns is cut in the middle at '~' with
 * a legend line.  0, or -1 out of memory.  O(ops x depth). */
static int layers_table(const dnp_plan *p, unsigned bits, int depth, int with_times)
{
    double max_cs = 0.0, max_ms = 0.0, f_cs = 1.0, f_ms = 1.0;
    for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
        double cs, ms;
        dnp_plan_node_times(p, v, &cs, &ms);
        max_cs = cs > max_cs ? cs : max_cs;
        max_ms = ms > max_ms ? ms : max_ms;
    }
    char h_cs[32], h_ms[32], hk[PLAN_TABLE_MAX_LEVELS][16];
    snprintf(h_cs, sizeof h_cs, "compute (%s)", cli_time_unit(max_cs, &f_cs));
    snprintf(h_ms, sizeof h_ms, "comm (%s)", cli_time_unit(max_ms, &f_ms));
    const int n_cols = 1 + depth + (with_times ? 2 : 0);
    const char *header[PLAN_TABLE_MAX_LEVELS + 3];
    char align[PLAN_TABLE_MAX_LEVELS + 4];
    header[0] = "layer";
    align[0] = 'l';
    for (int k = 0; k < depth; k++) {
        snprintf(hk[k], sizeof hk[k], "h%d", k);
        header[1 + k] = hk[k];
        align[1 + k] = 'r';
    }
    header[1 + depth] = h_cs;
    header[2 + depth] = h_ms;
    align[1 + depth] = align[2 + depth] = 'r';
    align[n_cols] = '\0';
    cli_table *t = cli_table_new(n_cols, align, header);
    cli_table_set_indent(t, 2);
    for (int v = 0; v < dnp_plan_n_nodes(p) && t != NULL; v++) {
        const char *row[PLAN_TABLE_MAX_LEVELS + 3];
        char cs_text[32], ms_text[32];
        row[0] = dnp_plan_node_name(p, v);
        for (int k = 0; k < depth; k++)
            row[1 + k] = cli_state_name(dnp_plan_node_weighted(p, v), dnp_plan_type(p, k, bits, v));
        if (with_times) {
            double cs, ms;
            dnp_plan_node_times(p, v, &cs, &ms);
            snprintf(cs_text, sizeof cs_text, "%.3f", cs * f_cs);
            snprintf(ms_text, sizeof ms_text, "%.3f", ms * f_ms);
            row[1 + depth] = cs_text;
            row[2 + depth] = ms_text;
        }
        if (cli_table_add(t, row) != 0) {
            cli_table_free(t);
            t = NULL;
        }
    }
    if (t == NULL)
        return -1;
    if (cli_table_print(t, stdout, CLI_MAX_WIDTH, 0))
        printf("  (names longer than the layer column are cut in the middle at '~'; --json has "
               "them in full)\n");
    cli_table_free(t);
    return 0;
}

void cli_plan_text(const dnp_plan *p, const cli_plan_info *info) {
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    char t1[32], t2[32], t3[32];
    /* The summary's times in one unit, the step time's (issue 15: one line
     * mixed ms and us); the JSON has them in seconds. */
    double per_s = 1.0;
    const char *unit = cli_time_unit(s.step_time_s, &per_s);
    char *spec = cli_cluster_spec(info->cluster);
    if (info->reason != NULL) /* plan --search auto: which search, and why, first */
        cli_wrapf(stdout, 0, "  ", "search: %s (%s)", info->search, info->reason);
    fmt_in_unit(t1, sizeof t1, s.step_time_s * per_s, unit);
    fmt_in_unit(t2, sizeof t2, s.compute_s * per_s, unit);
    fmt_in_unit(t3, sizeof t3, s.comm_s * per_s, unit);
    printf("model %s, batch %lld, cluster %s, search %s\n", info->model, (long long)info->batch,
           spec != NULL ? spec : "(out of memory)", info->search);
    dnp_free(spec);
    if (s.idle_devices > 0)
        cli_wrapf(stdout, 0, "  ",
                  "note: leaves %lld devices of the given cluster idle: AccPar on the devices "
                  "above alone is faster than the best plan on every device (%.6g s; "
                  "docs/time-model.md \"Idle device types\")",
                  (long long)s.idle_devices, s.all_devices_step_s);
    printf("levels searched %d of %d (deeper levels data parallel)\n", s.levels, s.total_levels);
    if (!s.exact)
        cli_wrapf(stdout, 0, "  ",
                  "note: %d tensors are live at once, too many for the exact layer-wise DP; "
                  "each level was solved by local search from the data-parallel and OWT "
                  "assignments",
                  s.frontier_width);
    if (s.time_limit_hit)
        cli_wrapf(stdout, 0, "  ",
                  "note: the --time-limit of %g s ran out: best plan found so far (the remaining "
                  "splits took the equal ratio; baselines not compared)",
                  s.time_limit_s);
    if (s.ratio_level_only)
        cli_wrapf(stdout, 0, "  ",
                  "note: a ratio search judging each candidate by its planned subtree was "
                  "estimated over budget for this many devices; every split ratio was chosen "
                  "by the level objective alone (%.0f level solves; docs/time-model.md)",
                  s.ratio_est_solves);
    if (s.cost_model == DNP_COST_ACCPAR_PAPER) {
        printf("cost model: the AccPar paper's accounting, AccPar's split ratios by Eq. 10 as "
               "printed (docs/time-model.md)\n");
        printf("predicted step time %s: compute %s, communication %s\n", t1, t2, t3);
        printf("busiest device receives %.3f GB per step; memory per device %.3f GB of %.3f GB "
               "(an estimate; not checked)\n",
               s.comm_bytes / 1e9, s.mem_bytes_max / 1e9, s.mem_capacity_bytes / 1e9);
    } else {
        char t4[32];
        fmt_in_unit(t4, sizeof t4, s.comm_busy_s * per_s, unit);
        printf("precision %s, optimizer %s; step simulated: %d tasks on %d device class%s\n",
               dnp_precision_name(s.precision), dnp_optimizer_name(s.optimizer), s.sim_tasks,
               s.device_classes, s.device_classes == 1 ? "" : "es");
        /* compute + exposed communication + host + waiting = step time (dnp_plan_summary). */
        printf("predicted step time %s: compute %s, exposed communication %s (%s in all)", t1,
               t2, t3, t4);
        if (s.wait_s > 0.0) {
            char t5[32];
            snprintf(t5, sizeof t5, "%.3f %s", s.wait_s * per_s, unit);
            printf("\n  and %s waiting for other devices (its compute idle, none of its "
                   "communication in flight)", t5);
        }
        if (s.host_wait_s > 0.0) {
            char t6[32];
            snprintf(t6, sizeof t6, "%.3f %s", s.host_wait_s * per_s, unit);
            printf("\n  and %s waiting for the host to issue its kernels (docs/device-model.md, "
                   "\"Host dispatch\")", t6);
        }
        printf("\n");
        printf("busiest device receives %.3f GB per step; memory per device %.3f GB of %.3f GB%s\n",
               s.comm_bytes / 1e9, s.mem_bytes_max / 1e9, s.mem_capacity_bytes / 1e9,
               s.mem_fits ? "" : "  ** DOES NOT FIT **");
        char note[320];
        cli_straggler_note(&s, note, sizeof note);
        if (note[0] != '\0')
            cli_wrap(stdout, 0, "  ", note);
        int rep = dnp_plan_replicated_nodes(p);
        if (rep > 0) /* issue 10: say whenever a plan leaves devices idle */
            cli_wrapf(stdout, 0, "  ",
                      "replicated layers: %d layer%s not split at some level of the device "
                      "tree (R): both halves compute all of it, one half's work redundant "
                      "(devices idle in effect; docs/time-model.md \"Replicated layers\")",
                      rep, rep == 1 ? " is" : "s are");
        if (s.chosen_scheme != DNP_SCHEME_ACCPAR && strcmp(info->search, "accpar") == 0)
            cli_wrapf(stdout, 0, "  ",
                      "note: the %s assignment, which AccPar's space contains, simulates "
                      "faster than the hierarchical search's own plan; it is reported",
                      dnp_scheme_name(s.chosen_scheme));
    }

    unsigned paths[16];
    int np = cli_plan_paths(p, s.levels, paths, 16);
    for (int i = 0; i < np; i++) {
        printf("\npath %d: the group taken at each level\n", i + 1);
        int depth = cli_path_levels(p, s.levels, paths[i]);
        if (depth > PLAN_TABLE_MAX_LEVELS)
            depth = PLAN_TABLE_MAX_LEVELS;
        if (levels_table(p, paths[i], depth) != 0 || layers_table(p, paths[i], depth, i == 0) != 0)
            cli_error("plan", "out of memory printing the plan");
    }
}
