/* config3d_report.c - the report of a Megatron-LM configuration (simulate
 * --config, plan --search 3d) as text and JSON. */
#include "cli.h"

#include <string.h>

/* The device types of stage s: "a100", or "v100+t4" when its ranks span
 * several types. */
static void stage_on(const dnp_cluster *cl, const dnp_config3d_result *res, int s, char *buf,
                     size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    unsigned types = res->stage_types[s] ? res->stage_types[s] : 1u << res->stage_type[s];
    for (int k = 0; k < cl->n_types && n < size; k++) {
        if (!(types & (1u << k)))
            continue;
        int w = snprintf(buf + n, size - n, "%s%s", n ? "+" : "", cl->types[k].name);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

/* The stages as runs of equal (device types, layers): "stages 1-2: 22
 * layers each on a100; stage 3: 18 layers on v100". */
static void stage_runs(const dnp_cluster *cl, const dnp_config3d *cfg,
                       const dnp_config3d_result *res, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int s = 0; s < cfg->pp && n < size;) {
        int e = s;
        while (e + 1 < cfg->pp && res->stage_type[e + 1] == res->stage_type[s] &&
               res->stage_types[e + 1] == res->stage_types[s] &&
               res->stage_layers[e + 1] == res->stage_layers[s])
            e++;
        char on[160];
        stage_on(cl, res, s, on, sizeof on);
        int w;
        if (e > s)
            w = snprintf(buf + n, size - n, "%sstages %d-%d: %d layers each on %s", n ? "; " : "",
                         s + 1, e + 1, res->stage_layers[s], on);
        else
            w = snprintf(buf + n, size - n, "%sstage %d: %d layers on %s", n ? "; " : "", s + 1,
                         res->stage_layers[s], on);
        if (w < 0)
            break;
        n += (size_t)w;
        s = e + 1;
    }
}

/* The schedule's and the overlaps' settings that are on, ", overlap_grad,
 * tp_overlap, micro-batch groups of 5" ("" when none). */
static void overlaps_text(const dnp_config3d *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s", c->overlap_grad ? ", overlap_grad" : "",
             c->overlap_param ? ", overlap_param" : "", c->tp_overlap ? ", tp_overlap" : "");
    if (c->vp_group > 0) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, ", micro-batch groups of %d", c->vp_group);
    }
}

static void config_text(const dnp_config3d *c, char *buf, size_t size)
{
    char ov[96];
    overlaps_text(c, ov, sizeof ov);
    int n = snprintf(buf, size, "tp %d, pp %d, dp %d, micro-batch %lld, interleave %d, recompute "
                     "%s, sequence parallel %s%s%s", c->tp, c->pp, c->dp,
                     (long long)c->microbatch, c->interleave, dnp_recompute_name(c->recompute),
                     c->seq_par ? "on" : "off", c->zero == 1 ? ", ZeRO-1" : "", ov);
    for (int s = 0; s < c->n_stage_layers && n > 0 && (size_t)n < size; s++) {
        int w = snprintf(buf + n, size - (size_t)n, "%s%d", s ? ":" : ", layers ",
                         c->stage_layers[s]);
        if (w < 0)
            break;
        n += w;
    }
}

/* "this plan is 1.67x faster" or "... 1.02x slower" than a baseline. */
static void print_ratio(double baseline_s, double plan_s)
{
    if (baseline_s >= plan_s)
        printf("this plan is %.2fx faster", baseline_s / plan_s);
    else
        printf("this plan is %.2fx slower", plan_s / baseline_s);
}

static json_t *stages_json(const dnp_cluster *cl, const dnp_config3d *cfg,
                           const dnp_config3d_result *res)
{
    json_t *a = json_array();
    for (int s = 0; a != NULL && s < cfg->pp; s++) {
        char on[160];
        stage_on(cl, res, s, on, sizeof on);
        json_array_append_new(a, json_pack("{s:i,s:s}", "layers", res->stage_layers[s], "device",
                                           on));
    }
    return a;
}

/* The layout line of a search over a mixed cluster's layouts
 * (docs/config3d.md, "Layouts"): which order of the device types the
 * stages take and which types are left idle; "" when the plan uses every
 * type in the order given.  O(types). */
static void layout_text(const dnp_cluster *used, const dnp_cluster *given,
                        const dnp_config3d_stats *stats, int by_cost, char *buf, size_t n)
{
    buf[0] = '\0';
    if (stats == NULL || given == NULL || stats->layouts <= 1)
        return;
    size_t len = (size_t)snprintf(buf, n, "layout: the %s of %d orders and subsets of the "
                                          "device types",
                                  by_cost ? "cheapest" : "fastest", stats->layouts);
    if (stats->layouts_bounded > 0 && len < n)
        len += (size_t)snprintf(buf + len, n - len, " (%d skipped: their devices' GEMM ceilings "
                                                    "cannot beat it)",
                                stats->layouts_bounded);
#define PUT(...)                                                                            \
    do {                                                                                    \
        if (len < n)                                                                        \
            len += (size_t)snprintf(buf + len, n - len, __VA_ARGS__);                       \
    } while (0)
    if (!stats->reordered && stats->idle_devices == 0) {
        PUT(" uses every device in the order given");
        return;
    }
    PUT(" takes");
    for (int i = 0; i < used->n_types; i++)
        PUT("%s %lld %s", i == 0 ? "" : i + 1 == used->n_types ? " then" : ",",
            (long long)used->counts[i], used->types[i].name);
    if (stats->idle_devices > 0) {
        PUT(" and leaves idle");
        int first = 1;
        for (int t = 0; t < given->n_types; t++) {
            int in = 0;
            for (int i = 0; i < used->n_types; i++)
                in |= strcmp(used->types[i].name, given->types[t].name) == 0 &&
                      used->counts[i] == given->counts[t];
            if (!in) {
                PUT("%s %lld %s", first ? "" : ",", (long long)given->counts[t],
                    given->types[t].name);
                first = 0;
            }
        }
        PUT(by_cost ? " (cheaper without them)" : " (faster without them)");
    }
#undef PUT
}

/* The layout of a ranked configuration: the given cluster's type names in
 * stage order joined by '+', or "as given".  O(types). */
static void ranked_layout(const dnp_config3d_ranked *r, const dnp_cluster *given, char *buf,
                          size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    if (r->n_types == 0) {
        snprintf(buf, n, "as given");
        return;
    }
    for (int i = 0; i < r->n_types && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "+" : "",
                                given->types[r->types[i]].name);
}

/* Point i of the Pareto front: its layout and configuration texts. */
static void point_text(const dnp_config3d_stats *stats, int i, const dnp_cluster *given,
                       char *lay, size_t n_lay, char *ct, size_t n_ct)
{
    dnp_config3d_ranked r;
    memset(&r, 0, sizeof r);
    r.n_types = stats->pareto[i].n_types;
    for (int k = 0; k < r.n_types && k < DNP_CONFIG3D_LAYOUT_TYPES; k++)
        r.types[k] = stats->pareto[i].types[k];
    ranked_layout(&r, given, lay, n_lay);
    int whole = dnp_config3d_point_config(stats, i, &r.cfg);
    config_text(&r.cfg, ct, n_ct);
    if (!whole) {
        size_t n = strlen(ct);
        snprintf(ct + n, n_ct - n, ", layers per stage not kept");
    }
}

/* One restricted search's line pair under "compared with ...". */
static void print_space(const char *what, int ok, int limit_hit, const dnp_config3d *cfg,
                        const dnp_config3d_result *r, const dnp_config3d_result *res)
{
    char ct[512], tb[32];
    if (!ok) {
        printf("  %s: %s\n", what, limit_hit ? "none by the time limit" : "no configuration fits");
        return;
    }
    config_text(cfg, ct, sizeof ct);
    cli_fmt_time(r->step_time_s, tb, sizeof tb);
    printf("  %s:\n", what);
    cli_wrapf(stdout, 0, "      ", "    %s", ct);
    printf("    predicted %s: ", tb);
    print_ratio(r->step_time_s, res->step_time_s);
    printf("\n");
}

static json_t *narrowed_json(const dnp_config3d_stats *stats)
{
    json_t *a = json_array();
    for (int i = 0; a != NULL && i < stats->n_narrowed; i++)
        json_array_append_new(a, json_string(stats->narrowed[i]));
    return a;
}

int cli_config3d_report(const char *cmd, const dnp_graph *g, const dnp_cluster *cl,
                        const dnp_cluster *given, int64_t batch, const dnp_plan_options *opt,
                        const dnp_config3d *cfg, const dnp_config3d_result *res,
                        const dnp_config3d_stats *stats, const char *json,
                        const cli_plan_info *info)
{
    int rc = 0;
    const dnp_cluster *whole = given != NULL ? given : cl;
    char layout[1024];
    layout_text(cl, given, stats,
                opt->config3d_objective == 1 || opt->config3d_deadline_s > 0.0, layout,
                sizeof layout);
    /* a search on a mixed cluster is compared with the plans that ignore
     * the mix (docs/config3d.md, "Mixed clusters"), on the cluster given */
    dnp_config3d_baselines base;
    int have_base = stats != NULL && whole->n_types > 1;
    if (have_base) {
        dnp_error err = {0};
        if (dnp_config3d_mixed_baselines(g, whole, batch, opt, &base, &err) != DNP_OK) {
            cli_error(cmd, "%s", err.msg);
            return cli_exit_for(err.status);
        }
    }
    char *spec = cli_cluster_spec(cl);
    if (spec == NULL) {
        cli_error(cmd, "out of memory");
        return EXIT_RUNTIME;
    }
    if (json != NULL) {
        json_t *o = cli_plan_summary_json(
            info, spec, dnp_cost_model_name(opt->cost_model), dnp_precision_name(opt->precision),
            dnp_optimizer_name(opt->optimizer), res->step_time_s, res->fits, res->mem_bytes,
            res->mem_capacity_bytes);
        if (o != NULL) {
            json_t *mem = json_object_get(o, "memory");
            json_object_set_new(mem, "weights_bytes", json_real(res->mem_weights_bytes));
            json_object_set_new(mem, "activation_bytes", json_real(res->mem_activation_bytes));
            /* the configuration simulate --strategy runs again (docs/formats.md "Plan"):
             * its text with the options' fp32 gradients folded in */
            dnp_config3d whole_cfg = *cfg;
            whole_cfg.grad_fp32 = cfg->grad_fp32 || opt->grad_fp32;
            char text[4096];
            dnp_config3d_format(&whole_cfg, text, sizeof text);
            json_t *c = json_pack("{s:s,s:s,s:i,s:i,s:i,s:I,s:i,s:s,s:b}", "kind", "megatron",
                                  "text", text, "tp", cfg->tp, "pp", cfg->pp, "dp", cfg->dp,
                                  "microbatch", (json_int_t)cfg->microbatch, "interleave",
                                  cfg->interleave, "recompute",
                                  dnp_recompute_name(cfg->recompute), "seq_par", cfg->seq_par);
            json_object_set_new(c, "zero", json_integer(cfg->zero));
            json_object_set_new(c, "schedule", json_string(cfg->gpipe ? "gpipe" : "1f1b"));
            json_object_set_new(c, "grad_dtype",
                                json_string(whole_cfg.grad_fp32 ? "fp32" : "default"));
            json_object_set_new(c, "overlap_grad", json_integer(cfg->overlap_grad));
            json_object_set_new(c, "overlap_param", json_integer(cfg->overlap_param));
            json_object_set_new(c, "tp_overlap", json_integer(cfg->tp_overlap));
            json_object_set_new(c, "vp_group", json_integer(cfg->vp_group));
            json_object_set_new(c, "megatron_version", json_string(dnp_megatron_version_name(
                                                           opt->megatron_version)));
            json_object_set_new(c, "tp_groups",
                                json_string(opt->tp_across_nodes ? "across_nodes" : "in_node"));
            json_object_set_new(c, "stages", stages_json(cl, cfg, res));
            json_object_set_new(o, "strategy", c);
            const double devices = (double)cfg->tp * cfg->pp * cfg->dp;
            json_object_set_new(o, "mfu", json_real(res->mfu));
            json_object_set_new(o, "bubble_s", json_real(res->bubble_s));
            json_object_set_new(o, "compute_busy_s", json_real(res->compute_busy_s));
            json_object_set_new(o, "tp_comm_s", json_real(res->tp_comm_s));
            json_object_set_new(o, "p2p_message_s", json_real(res->p2p_s));
            json_object_set_new(o, "dp_comm_s", json_real(res->dp_comm_s));
            json_object_set_new(o, "optimizer_s", json_real(res->optimizer_s));
            json_object_set_new(o, "microbatches", json_integer(res->microbatches));
            json_object_set_new(o, "tokens_per_s", json_real(res->tokens / res->step_time_s));
            json_object_set_new(o, "model_tflops_per_device",
                                json_real(res->model_flop / res->step_time_s / devices / 1e12));
        }
        if (o != NULL && res->straggler_pace > 1.0)
            json_object_set_new(o, "stragglers",
                                json_pack("{s:f,s:s}", "pace", res->straggler_pace, "source",
                                          DNP_SPEED_CV_SOURCE));
        if (o != NULL) {
            json_object_set_new(o, "dp_hidden_s", json_real(res->dp_hidden_s));
            json_object_set_new(o, "tp_hidden_s", json_real(res->tp_hidden_s));
            json_object_set_new(o, "embed_sync_s", json_real(res->embed_sync_s));
        }
        if (o != NULL && have_base) {
            json_t *b = json_object();
            if (base.slowest_ok) {
                json_t *sl = json_pack("{s:s,s:f}", "device", whole->types[base.slowest_type].name,
                                       "planned_step_time_s", base.slowest_planned.step_time_s);
                if (sl != NULL && base.slowest_on_cluster_ok)
                    json_object_set_new(sl, "step_time_s_on_cluster",
                                        json_real(base.slowest_on_cluster.step_time_s));
                json_object_set_new(b, "all_as_slowest", sl);
            }
            if (base.fastest_ok)
                json_object_set_new(b, "fastest_alone",
                                    json_pack("{s:s,s:I,s:f}", "device",
                                              whole->types[base.fastest_type].name, "devices",
                                              (json_int_t)whole->counts[base.fastest_type],
                                              "step_time_s", base.fastest_res.step_time_s));
            if (base.amp_ok)
                json_object_set_new(b, "amp_space",
                                    json_pack("{s:f}", "step_time_s", base.amp_res.step_time_s));
            if (base.uniform_ok)
                json_object_set_new(b, "one_type_stages",
                                    json_pack("{s:f}", "step_time_s",
                                              base.uniform_res.step_time_s));
            if (base.time_limit_hit)
                json_object_set_new(b, "time_limit_hit", json_true());
            json_object_set_new(o, "baselines", b);
        }
        if (o != NULL && stats != NULL && stats->price_per_hour > 0.0) {
            json_t *front = json_array();
            for (int i = 0; front != NULL && i < stats->n_pareto; i++) {
                char lay[256], ct[512];
                point_text(stats, i, whole, lay, sizeof lay, ct, sizeof ct);
                json_array_append_new(front, json_pack("{s:f,s:f,s:s,s:s}", "step_time_s",
                                                       stats->pareto[i].step_time_s,
                                                       "cost_per_step",
                                                       stats->pareto[i].cost_per_step,
                                                       "layout", lay, "config", ct));
            }
            json_object_set_new(o, "cost",
                                json_pack("{s:f,s:f,s:o}", "price_per_hour",
                                          stats->price_per_hour, "cost_per_step",
                                          stats->cost_per_step, "pareto", front));
        }
        if (o != NULL && stats != NULL && stats->n_top > 1) {
            json_t *top = json_array();
            for (int i = 0; top != NULL && i < stats->n_top; i++) {
                char lay[256], ct[512];
                ranked_layout(&stats->top[i], whole, lay, sizeof lay);
                config_text(&stats->top[i].cfg, ct, sizeof ct);
                json_array_append_new(top, json_pack("{s:f,s:s,s:s}", "step_time_s",
                                                     stats->top[i].step_time_s, "layout", lay,
                                                     "config", ct));
            }
            json_object_set_new(o, "top", top);
        }
        if (o != NULL && stats != NULL)
            json_object_set_new(o, "search_stats",
                                json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:I,s:b,s:o}",
                                          "candidates", stats->candidates, "weighed",
                                          stats->weighed, "fitting", stats->fitting,
                                          "simulated", stats->simulated, "layouts",
                                          stats->layouts, "layouts_bounded",
                                          stats->layouts_bounded, "idle_devices",
                                          (json_int_t)stats->idle_devices, "reordered",
                                          stats->reordered, "narrowed", narrowed_json(stats)));
        if (o != NULL && stats != NULL)
            json_object_set_new(json_object_get(o, "search_stats"), "time_limit_hit",
                                json_boolean(stats->time_limit_hit));
        rc = cli_write_json(cmd, json, o);
    }
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0)) {
        char t1[32], t2[32], t3[32], t4[32], t5[32];
        cli_fmt_time(res->step_time_s, t1, sizeof t1);
        cli_fmt_time(res->bubble_s, t2, sizeof t2);
        cli_fmt_time(res->tp_comm_s, t3, sizeof t3);
        cli_fmt_time(res->p2p_s, t4, sizeof t4);
        cli_fmt_time(res->dp_comm_s, t5, sizeof t5);
        if (info->reason != NULL) /* plan --search auto: which search, and why, first */
            cli_wrapf(stdout, 0, "  ", "search: %s (%s)", info->search, info->reason);
        printf("model %s, batch %lld, cluster %s\n", dnp_graph_name(g), (long long)batch, spec);
        if (stats != NULL) {
            cli_wrapf(stdout, 0, "  ",
                      "search 3d: %d configurations (%d weighed, %d fit in memory, %d "
                      "simulated; the rest bounded out); narrowed by:",
                      stats->candidates, stats->weighed, stats->fitting, stats->simulated);
            for (int i = 0; i < stats->n_narrowed; i++)
                cli_wrapf(stdout, 0, "    ", "  - %s", stats->narrowed[i]);
            if (layout[0] != '\0')
                cli_wrapf(stdout, 0, "  ", "%s", layout);
            if (stats->time_limit_hit)
                printf("the --time-limit of %g s ran out: the best weighed so far, not proven "
                       "the fastest:\n",
                       opt->time_limit_s);
            else
                printf("the fastest:\n");
        }
        char zero[24] = "", ov[96];
        if (cfg->zero > 0)
            snprintf(zero, sizeof zero, ", ZeRO-%d", cfg->zero);
        overlaps_text(cfg, ov, sizeof ov);
        cli_wrapf(stdout, 0, "  ",
                  "config tp %d, pp %d, dp %d, micro-batch %lld (%d per replica), interleave "
                  "%d, recompute %s, sequence parallel %s%s%s%s",
                  cfg->tp, cfg->pp, cfg->dp, (long long)cfg->microbatch, res->microbatches,
                  cfg->interleave, dnp_recompute_name(cfg->recompute),
                  cfg->seq_par ? "on" : "off", zero, cfg->gpipe ? ", GPipe schedule" : "", ov);
        if (cfg->n_stage_layers > 0 || cl->n_types > 1) {
            char runs[1024];
            stage_runs(cl, cfg, res, runs, sizeof runs);
            printf("%s\n", runs);
        }
        printf("precision %s, optimizer %s\n", dnp_precision_name(opt->precision),
               dnp_optimizer_name(opt->optimizer));
        printf("predicted step time %s, MFU %.1f%%: pipeline bubble %s, tensor-parallel "
               "collectives %s per rank\n",
               t1, 100.0 * res->mfu, t2, t3);
        /* tokens/s and the model FLOP/s each device sustains: the MFU's
         * numerator per device, in the units training logs print */
        const double devices = (double)cfg->tp * cfg->pp * cfg->dp;
        char tk[32];
        cli_fmt_si(res->tokens / res->step_time_s, tk, sizeof tk);
        printf("throughput %stokens/s, %.1f TFLOP/s of model FLOP per device\n", tk,
               res->model_flop / res->step_time_s / devices / 1e12);
        printf("pipeline message %s each, data-parallel gradient sync %s\n", t4, t5);
        if (cfg->overlap_grad || cfg->overlap_param || cfg->tp_overlap) {
            char h1[32], h2[32];
            cli_fmt_time(res->dp_hidden_s, h1, sizeof h1);
            cli_fmt_time(res->tp_hidden_s, h2, sizeof h2);
            cli_wrapf(stdout, 0, "  ",
                      "overlapped with compute: %s of the data-parallel traffic (net of the "
                      "slower compute beside it), %s of the tensor-parallel collectives per rank",
                      h1, h2);
        }
        const char *fp32 = cfg->grad_fp32 || opt->grad_fp32 ? "gradients all-reduced in fp32" : "";
        if (res->embed_sync_s > 0.0) {
            char t6[32];
            cli_fmt_time(res->embed_sync_s, t6, sizeof t6);
            printf("tied-embedding gradient sync %s between the first and last stage%s%s\n", t6,
                   *fp32 ? "; " : "", fp32);
        } else if (*fp32) {
            printf("%s\n", fp32);
        }
        printf("memory per device (fullest stage %d of %d) %.1f GB of %.1f GB: weights, "
               "gradients, optimizer %.1f GB, activations %.1f GB%s\n",
               res->mem_stage + 1, cfg->pp, res->mem_bytes / 1e9, res->mem_capacity_bytes / 1e9,
               res->mem_weights_bytes / 1e9, res->mem_activation_bytes / 1e9,
               res->fits ? "" : "  ** DOES NOT FIT **");
        if (stats != NULL && stats->price_per_hour > 0.0) {
            printf("cost %.6g per step at %.6g per hour for the devices it uses (price= of the "
                   "cluster)\n",
                   stats->cost_per_step, stats->price_per_hour);
            if (stats->n_pareto > 1) {
                printf("step time against cost, the layouts that no other beats on both:\n");
                for (int i = 0; i < stats->n_pareto; i++) {
                    char lay[256], ct[512], tt[32];
                    point_text(stats, i, whole, lay, sizeof lay, ct, sizeof ct);
                    cli_fmt_time(stats->pareto[i].step_time_s, tt, sizeof tt);
                    cli_wrapf(stdout, 0, "      ", "  %s  cost %.6g  %s: %s", tt,
                              stats->pareto[i].cost_per_step, lay, ct);
                }
            }
        }
        if (stats != NULL && stats->n_top > 1) {
            printf("the %d fastest (layout: the device types in stage order):\n", stats->n_top);
            for (int i = 0; i < stats->n_top; i++) {
                char lay[256], ct[512], tt[32];
                ranked_layout(&stats->top[i], whole, lay, sizeof lay);
                config_text(&stats->top[i].cfg, ct, sizeof ct);
                cli_fmt_time(stats->top[i].step_time_s, tt, sizeof tt);
                cli_wrapf(stdout, 0, "      ", "  %2d  %s  %s: %s", i + 1, tt, lay, ct);
            }
        }
        if (have_base) {
            char ct[512], tb[32], tc[32];
            printf("compared with plans that ignore the mix (same batch, precision, memory):\n");
            if (base.time_limit_hit)
                printf("  (the --time-limit of %g s ran out in these searches: each is the best "
                       "weighed by then; \"none\" may mean not reached)\n",
                       opt->time_limit_s);
            if (base.slowest_ok) {
                config_text(&base.slowest_cfg, ct, sizeof ct);
                cli_fmt_time(base.slowest_planned.step_time_s, tb, sizeof tb);
                printf("  every device as the slowest type (%s):\n",
                       whole->types[base.slowest_type].name);
                cli_wrapf(stdout, 0, "      ", "    %s", ct);
                printf("    predicted %s there", tb);
                if (base.slowest_on_cluster_ok) {
                    cli_fmt_time(base.slowest_on_cluster.step_time_s, tc, sizeof tc);
                    printf(", %s on this cluster: ", tc);
                    print_ratio(base.slowest_on_cluster.step_time_s, res->step_time_s);
                } else {
                    printf(" (on this cluster it does not fit): ");
                    print_ratio(base.slowest_planned.step_time_s, res->step_time_s);
                }
                printf("\n");
            } else {
                printf("  every device as the slowest type (%s): %s\n",
                       whole->types[base.slowest_type].name,
                       base.time_limit_hit ? "none by the time limit" : "no configuration fits");
            }
            if (base.fastest_ok) {
                config_text(&base.fastest_cfg, ct, sizeof ct);
                cli_fmt_time(base.fastest_res.step_time_s, tb, sizeof tb);
                printf("  the %lld %s alone:\n", (long long)whole->counts[base.fastest_type],
                       whole->types[base.fastest_type].name);
                cli_wrapf(stdout, 0, "      ", "    %s", ct);
                printf("    predicted %s: ", tb);
                print_ratio(base.fastest_res.step_time_s, res->step_time_s);
                printf("\n");
            } else {
                printf("  the %lld %s alone: %s\n", (long long)whole->counts[base.fastest_type],
                       whole->types[base.fastest_type].name,
                       base.time_limit_hit ? "none by the time limit" : "no configuration fits");
            }
            print_space("in AMP's space (no ZeRO, sequence parallelism, interleaving or "
                        "recompute; the types as given)",
                        base.amp_ok, base.time_limit_hit, &base.amp_cfg, &base.amp_res, res);
            print_space("with every stage on one device type (the types as given)",
                        base.uniform_ok, base.time_limit_hit, &base.uniform_cfg, &base.uniform_res, res);
        }
        if (res->straggler_pace > 1.0)
            printf("stragglers: kernel times x%.4f (--no-stragglers ignores it)\n  source: %s\n",
                   res->straggler_pace, DNP_SPEED_CV_SOURCE);
    }
    dnp_free(spec);
    return rc;
}

int cli_config3d_pictures(const char *cmd, const dnp_graph *g, const dnp_cluster *cl,
                          int64_t batch, const dnp_plan_options *opt, const dnp_config3d *cfg,
                          const char *trace_path, const char *plot_path, const char *title)
{
    if (trace_path == NULL && plot_path == NULL)
        return EXIT_OK;
    char *text = NULL;
    dnp_error err = {0};
    if (dnp_config3d_trace(g, cl, batch, opt, cfg, &text, &err) != DNP_OK) {
        cli_error(cmd, "%s", err.msg);
        return cli_exit_for(err.status);
    }
    int rc = trace_path != NULL ? cli_write_text(cmd, trace_path, text) : EXIT_OK;
    if (rc == EXIT_OK && plot_path != NULL && dnp_plot_trace(plot_path, text, title, &err) != DNP_OK) {
        cli_error(cmd, "%s", err.msg);
        rc = cli_exit_for(err.status);
    }
    dnp_free(text);
    return rc;
}
