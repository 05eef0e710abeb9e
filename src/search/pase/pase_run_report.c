/*
 * pase_run_report.c - the reports of a dnp_pase_run (`dnnpar plan
 * --search pase|mcmc`): text (every op's configuration and t_l, F and its
 * split, the baselines, the tables; under the shared model the step time,
 * memory, idle devices and the type split) and JSON (docs/formats.md).
 */
#include "search/pase/pase_driver.h"
#include "core/rbuf.h"

#include <math.h>
#include <string.h>

static const char *search_name(dnp_pase_search s)
{
    return s == DNP_PASE_SEARCH_MCMC ? "mcmc" : (s == DNP_PASE_SEARCH_BFS ? "pase-bfs" : "pase");
}

static json_t *config_json(const pase_problem *pb, int v, int c)
{
    json_t *a = json_array();
    const pase_configs *cf = &pb->cfg[v];
    for (int d = 0; d < cf->rank; d++)
        json_array_append_new(a, json_integer(cf->c[(size_t)c * (size_t)cf->rank + (size_t)d]));
    return a;
}

/* The name of op i's split at the levels separating device types (the
 * refinement's r->cross, pase_cross.c), NULL for the batch. */
static const char *cross_name(const dnp_pase_run *r, int i)
{
    if (r->cross == NULL || r->cross[i] == 0)
        return NULL;
    const dnp_op *op = dnp_graph_op(r->pp->core, i);
    if (!dnp_op_is_weighted(op))
        return "channel";
    return r->cross[i] == 1 ? "II" : "III";
}

/* The type split as JSON (the "heterogeneous" object; docs/pase.md). */
static json_t *split_json(const dnp_pase_run *r)
{
    const pase_hetero_result *h = &r->het;
    json_t *groups = json_array();
    for (int t = 0; t < h->n_groups; t++) {
        const pase_hetero_group *gr = &h->grp[t];
        json_t *ops = json_array();
        for (int v = 0; gr->g != NULL && v < gr->g->n_nest; v++)
            json_array_append_new(ops, json_pack("{s:s,s:s}", "name", gr->g->nest[v].name, "config",
                                                 gr->cfg_text[v]));
        json_array_append_new(
            groups, json_pack("{s:s,s:i,s:I,s:f,s:f,s:i,s:o}", "device",
                              r->pp->hw.cluster.types[gr->type].name, "devices", gr->n_dev,
                              "batch", (json_int_t)gr->batch, "time_s", gr->time_s, "mem_bytes",
                              gr->mem_bytes, "devices_used", gr->batch > 0 ? gr->devices_used : 0,
                              "strategy", ops));
    }
    json_t *o = json_pack("{s:f,s:f,s:f,s:i,s:b,s:o,s:s}", "step_s", h->step_s, "sync_s",
                          h->sync_s, "grad_bytes", h->param_bytes, "candidates", h->candidates,
                          "exhaustive", h->exhaustive, "groups", groups, "chosen",
                          pase_run_split_chosen(r) ? "type split" : "weakest device");
    if (o != NULL && isfinite(h->judged_s)) { /* only where judged: older outputs unchanged */
        json_object_set_new(o, "simulated_s", json_real(h->judged_s));
        json_object_set_new(o, "simulated_splits", json_integer(h->judged));
        json_object_set_new(o, "group_plans", json_string(pase_hetero_variant_name(h->variant)));
        if (isfinite(r->own_simulated_s))
            json_object_set_new(o, "weakest_simulated_s", json_real(r->own_simulated_s));
    }
    if (o != NULL && r->cross_judged > 0) { /* the refined type level (pase_cross.c) */
        json_t *types = json_object();
        for (int i = 0; i < dnp_graph_n_ops(r->pp->core); i++)
            if (cross_name(r, i) != NULL)
                json_object_set_new(types, dnp_graph_op(r->pp->core, i)->name,
                                    json_string(cross_name(r, i)));
        json_t *plan_batch = json_array();
        for (int t = 0; t < h->n_groups; t++)
            json_array_append_new(plan_batch, json_integer(h->grp[t].plan_batch));
        json_object_set_new(o, "refined_from_s", json_real(r->cross_from_s));
        json_object_set_new(o, "refined_simulated", json_integer(r->cross_judged));
        json_object_set_new(o, "plan_batch", plan_batch);
        json_object_set_new(o, "cross_types", types);
    }
    return o;
}

/* The shared model's fields: costs in seconds replace the FLOP figures;
 * the devices used, the memory and the type split. */
static void seconds_json(const dnp_pase_run *r, json_t *root)
{
    const pase_problem *pb = &r->pp->pb;
    json_object_del(root, "cost_flop");
    json_object_del(root, "transfer_flop");
    json_object_del(root, "r_flop_per_word");
    json_object_set_new(root, "cost_model", json_string("default"));
    json_object_set_new(root, "cost_s", json_real(r->cost));
    json_object_set_new(root, "transfer_s", json_real(pase_transfer_total(pb, r->cfg)));
    json_object_set_new(root, "devices_used", json_integer(r->used));
    if (r->have_fit)
        json_object_set_new(root, "memory",
                            json_pack("{s:f,s:f,s:f,s:b}", "per_device_bytes", r->mem_bytes,
                                      "least_bytes", r->min_mem_bytes, "limit_bytes",
                                      pb->perf->mem_limit_bytes, "budgeted", r->budgeted));
    json_t *mem = json_object_get(root, "memory");
    if (mem != NULL && r->budgeted && r->budget_mcmc_iters > 0) { /* only where run */
        json_object_set_new(mem, "budgeted_cost_s", json_real(r->budgeted_cost));
        json_object_set_new(mem, "mcmc_iterations", json_integer(r->budget_mcmc_iters));
        json_object_set_new(mem, "kept", json_string(r->budget_from_expert ? "mcmc from the expert"
                                                                            : "mcmc from the budgets"));
    }
    if (r->have_het)
        json_object_set_new(root, "heterogeneous", split_json(r));
    else if (r->split_none_fits)
        json_object_set_new(root, "heterogeneous",
                            json_pack("{s:b,s:b,s:s}", "fits", 0, "exhaustive",
                                      r->split_exhaustive, "chosen", "weakest device"));
    if (r->refine_judged > 0) /* pase_refine.c */
        json_object_set_new(root, "refined",
                            json_pack("{s:i,s:f,s:f,s:f,s:b}", "simulated_plans",
                                      r->refine_judged, "optimum_cost_s", r->refined_from_cost,
                                      "optimum_simulated_s", r->refined_from_s, "simulated_s",
                                      r->refined_s, "local_optimum", !r->refine_stopped));
}

char *dnp_pase_run_json(const dnp_pase_run *r)
{
    const pase_problem *pb = &r->pp->pb;
    const dnp_pase_hw *hw = &r->pp->hw;
    int sec = PASE_SECONDS(r->pp);
    json_t *ops = json_array();
    for (int v = 0; v < pb->n_v; v++) {
        const iter_nest *x = &pb->g->nest[v];
        char dims[64];
        pase_fmt_dims(x, dims, sizeof dims);
        double tl = pb->tl[v][r->cfg[v]];
        json_array_append_new(ops, json_pack("{s:s,s:s,s:s,s:o,s:o}", "name", x->name, "kind",
                                             iter_kind_name(x->kind), "dims", dims, "config",
                                             config_json(pb, v, r->cfg[v]),
                                             sec ? "layer_cost_s" : "layer_cost_flop",
                                             sec ? json_real(tl) : pase_flop_json(tl)));
    }
    json_t *bl = json_array();
    for (int i = 0; i < r->n_base; i++) {
        const pase_baseline_row *b = &r->base[i];
        json_t *o = sec ? json_pack("{s:s,s:f,s:f}", "name", b->name, "cost_s", b->cost,
                                    "ratio_to_search", b->cost / r->cost)
                        : json_pack("{s:s,s:o,s:f,s:f}", "name", b->name, "cost_flop",
                                    pase_flop_json(b->cost), "cost_s", b->cost / hw->peak_flops,
                                    "ratio_to_search", b->cost / r->cost);
        if (b->iters > 0)
            json_object_set_new(o, "iterations", json_integer(b->iters));
        if (sec) {
            json_object_set_new(o, "mem_bytes", json_real(b->mem_bytes));
            json_object_set_new(o, "fits", json_boolean(b->fits));
        }
        if (i == 0) { /* data parallel: the batch split it uses */
            json_object_set_new(o, "batch_split_min", json_integer(r->dp_lo));
            json_object_set_new(o, "batch_split_max", json_integer(r->dp_hi));
        }
        json_array_append_new(bl, o);
    }
    json_t *root = json_pack(
        "{s:s,s:s,s:I,s:i,s:f,s:f,s:i,s:f,s:s,s:i,s:i,s:o,s:f,s:o,s:o,s:o,s:s}", "model",
        iter_space_name(pb->g), "source", r->pp->source, "batch", (json_int_t)r->pp->batch, "p",
        hw->p, "peak_flops", hw->peak_flops, "link_bytes_per_s", hw->link_bps, "word_bytes",
        hw->word_bytes, "r_flop_per_word", pb->par.r_w, "search", search_name(r->search), "ops",
        pb->n_v, "edges", pb->n_e, "cost_flop", pase_flop_json(r->cost), "cost_s",
        r->cost / hw->peak_flops, "transfer_flop",
        pase_flop_json(pase_transfer_total(pb, r->cfg)), "strategy", ops, "baselines", bl,
        "best_baseline", r->base[r->best_base].name);
    if (root != NULL && r->pp->opt.strategy_space) /* only where set: older files unchanged */
        json_object_set_new(root, "strategy_space", json_true());
    if (root != NULL && sec)
        seconds_json(r, root);
    if (root != NULL && r->have_tables)
        json_object_set_new(root, "tables",
                            json_pack("{s:i,s:f,s:f,s:f}", "max_dependent_set", r->max_dep,
                                      "largest_table_rows", r->max_rows, "work", r->work,
                                      "estimated_bytes", r->table_bytes));
    if (root != NULL && r->have_tables && r->pinned > 0) /* only where pinned */
        json_object_set_new(json_object_get(root, "tables"), "pinned_ops",
                            json_integer(r->pinned));
    if (root != NULL && r->optimum >= 0.0)
        json_object_set_new(root, sec ? "pase_optimum_s" : "pase_optimum_flop",
                            sec ? json_real(r->optimum) : pase_flop_json(r->optimum));
    if (root != NULL && (r->limit_hit || r->base_limit_hit))
        json_object_set_new(root, "time_limit",
                            json_pack("{s:f,s:b,s:s}", "seconds", r->time_limit_s, "reached", 1,
                                      "result",
                                      r->limit_hit ? "best plan found so far"
                                                   : "the MCMC baseline's best so far"));
    return pase_json_text(root);
}

/* Report lines are at most this wide (issue 15). */
#define PASE_REPORT_MAX_COLS 119

/* `text` broken at blanks into lines of at most PASE_REPORT_MAX_COLS
 * columns, continuation lines starting with `cont` (dnp_fmt_wrap). */
static void put_wrapped(FILE *f, const char *cont, const char *text)
{
    dnp_fmt_wrap(f, 0, PASE_REPORT_MAX_COLS, cont, text);
}

/* The note on a data-parallel baseline that cannot split the batch p ways. */
static void dp_note(const dnp_pase_run *r, FILE *f)
{
    const dnp_pase_hw *hw = &r->pp->hw;
    if (r->dp_lo == hw->p && r->dp_hi == hw->p)
        return;
    char ways[48];
    if (r->dp_lo == r->dp_hi)
        snprintf(ways, sizeof ways, "%d way%s", r->dp_hi, r->dp_hi == 1 ? "" : "s");
    else
        snprintf(ways, sizeof ways, "%d to %d ways", r->dp_lo, r->dp_hi);
    char line[512];
    snprintf(line, sizeof line,
             "note: data parallel splits the batch %s, not %d: the largest split of batch "
             "%lld that is at most p and leaves at least %d samples per device (cutoff); "
             "%s%d of the %d devices idle",
             ways, hw->p, (long long)r->pp->batch, pase_params_cutoff(&r->pp->pb.par),
             r->dp_lo == r->dp_hi ? "" : "at least ", hw->p - r->dp_hi, hw->p);
    put_wrapped(f, "  ", line);
}

/* The type split's block: the groups, the cross-type all-reduce, the step,
 * every op's configuration per group, idle devices and the choice. */
/* The refined type level (pase_cross.c): its step, the shares against
 * those the plans were searched at, and the ops split otherwise than by
 * the batch across the types (the first 8 named). */
static void cross_text(const dnp_pase_run *r, FILE *f)
{
    const pase_hetero_result *h = &r->het;
    char from[32], to[32];
    dnp_fmt_time(r->cross_from_s, from, sizeof from);
    dnp_fmt_time(h->judged_s, to, sizeof to);
    rbuf b;
    rbuf_init(&b);
    rbuf_printf(&b,
                "type level refined in the step simulator with the groups' plans kept (%d plans "
                "simulated): %s -> %s; shares",
                r->cross_judged, from, to);
    for (int t = 0; t < h->n_groups; t++)
        rbuf_printf(&b, "%s%lld", t ? " / " : " ", (long long)h->grp[t].batch);
    rbuf_puts(&b, ", plans searched at");
    for (int t = 0; t < h->n_groups; t++)
        rbuf_printf(&b, "%s%lld", t ? " / " : " ", (long long)h->grp[t].plan_batch);
    int named = 0, more = 0;
    for (int i = 0; i < dnp_graph_n_ops(r->pp->core); i++) {
        const char *c = cross_name(r, i);
        if (c == NULL)
            continue;
        if (named == 8) {
            more++;
            continue;
        }
        rbuf_printf(&b, "%s%s %s", named ? ", " : "; across the types ",
                    dnp_graph_op(r->pp->core, i)->name, c);
        named++;
    }
    if (more > 0)
        rbuf_printf(&b, " and %d more", more);
    if (named == 0)
        rbuf_puts(&b, "; every op split by the batch across the types");
    char *line = rbuf_take(&b);
    if (line != NULL) /* out of memory: the line is left out */
        put_wrapped(f, "  ", line);
    dnp_free(line);
}

static void split_text(const dnp_pase_run *r, FILE *f)
{
    const pase_hetero_result *h = &r->het;
    const dnp_cluster *cl = &r->pp->hw.cluster;
    char a[32], b[32];
    dnp_fmt_time(h->step_s, a, sizeof a);
    dnp_fmt_time(h->sync_s, b, sizeof b);
    fprintf(f,
            "\nbatch split across the device types (PaSE inside each type, %d group plans "
            "searched%s):\n",
            h->candidates, h->exhaustive ? ", every integer split tried" : "");
    /* The groups' times in one unit, named on the first row. */
    double max_s = 0.0, per_s = 1.0;
    for (int g = 0; g < h->n_groups; g++)
        max_s = h->grp[g].time_s > max_s ? h->grp[g].time_s : max_s;
    const char *unit = dnp_time_unit(max_s, &per_s);
    for (int g = 0; g < h->n_groups; g++) {
        const pase_hetero_group *gr = &h->grp[g];
        char at[48] = "";
        if (gr->plan_batch != gr->batch) /* moved by the refinement (pase_cross.c) */
            snprintf(at, sizeof at, " (plan, time and memory at %lld)",
                     (long long)gr->plan_batch);
        fprintf(f, "  %3dx %-12s batch %5lld  %9.3f %-2s  %.3g GB per device%s\n", gr->n_dev,
                cl->types[gr->type].name, (long long)gr->batch, gr->time_s * per_s, unit,
                gr->mem_bytes / 1e9, at);
    }
    fprintf(f, "  gradient all-reduce across the types: %s (%.4g MB)\n", b, h->param_bytes / 1e6);
    char w[32];
    dnp_fmt_time(r->cost, w, sizeof w);
    fprintf(f, "step time with the type split: %s, %.4fx the weakest-device plan's %s\n", a,
            h->step_s / r->cost, w);
    int first = -1;
    for (int g = 0; g < h->n_groups && first < 0; g++)
        if (h->grp[g].g != NULL)
            first = g;
    if (first >= 0) {
        fprintf(f, "%4s  %-34s", "#", "op");
        for (int g = 0; g < h->n_groups; g++)
            fprintf(f, " %-24.24s", cl->types[h->grp[g].type].name);
        fprintf(f, "\n");
        for (int v = 0; v < h->grp[first].g->n_nest; v++) {
            fprintf(f, "%4d  %-34.34s", v, h->grp[first].g->nest[v].name);
            for (int g = 0; g < h->n_groups; g++)
                fprintf(f, " %-24s", h->grp[g].g != NULL ? h->grp[g].cfg_text[v] : "idle");
            fprintf(f, "\n");
        }
    }
    for (int g = 0; g < h->n_groups; g++) {
        char what[96];
        snprintf(what, sizeof what, "the %s group", cl->types[h->grp[g].type].name);
        pase_idle_warning(f, h->grp[g].batch > 0 ? h->grp[g].devices_used : 0, h->grp[g].n_dev,
                          what);
    }
    if (isfinite(h->judged_s)) {
        /* shares and choice by the step simulator (pase_run.c run_split) */
        char j[32], o[32];
        dnp_fmt_time(r->cross_judged > 0 ? r->cross_from_s : h->judged_s, j, sizeof j);
        if (isfinite(r->own_simulated_s))
            dnp_fmt_time(r->own_simulated_s, o, sizeof o);
        else
            snprintf(o, sizeof o, "not runnable");
        char line[320];
        snprintf(line, sizeof line,
                 "shares chosen in the step simulator (%d splits simulated): type split %s with "
                 "each group's %s, weakest-device plan %s",
                 h->judged, j, pase_hetero_variant_name(h->variant), o);
        put_wrapped(f, "  ", line);
    }
    if (r->cross_judged > 0)
        cross_text(r, f);
    fprintf(f, "chosen: %s\n",
            pase_run_split_chosen(r) ? "the type split" : "the weakest-device plan");
}

/* The cost line(s): F in FLOP-equivalents, or the step time in seconds
 * with the memory the plan holds per device. */
static void cost_text(const dnp_pase_run *r, FILE *f)
{
    const pase_problem *pb = &r->pp->pb;
    double tx = pase_transfer_total(pb, r->cfg);
    char t[32];
    if (!PASE_SECONDS(r->pp)) {
        dnp_fmt_time(r->cost / r->pp->hw.peak_flops, t, sizeof t);
        fprintf(f, "\ncost F = %.2f FLOP (%s at peak): layers %.4g, transfers %.4g\n", r->cost,
                t, r->cost - tx, tx);
        if (r->optimum >= 0.0)
            fprintf(f, "PaSE's optimum F = %.2f FLOP; MCMC is %.4fx that\n", r->optimum,
                    r->cost / r->optimum);
        return;
    }
    char l[32], x[32];
    dnp_fmt_time(r->cost, t, sizeof t);
    dnp_fmt_time(r->cost - tx, l, sizeof l);
    dnp_fmt_time(tx, x, sizeof x);
    fprintf(f, "\nstep time (sum of t_l and t_x) = %s: layers %s, transfers %s\n", t, l, x);
    if (r->have_fit && pb->perf->mem_limit_bytes > 0.0) {
        char budget[320] = "";
        if (r->budgeted && r->budget_mcmc_iters > 0) {
            dnp_fmt_time(r->budgeted_cost, t, sizeof t);
            snprintf(budget, sizeof budget,
                     ";\n  the optimum did not fit: per-op budgets gave a strategy of sum %s; kept "
                     "the cheapest\n  fitting one a memory-aware MCMC met from it or from the "
                     "expert's (%s; docs/pase.md \"Memory\")",
                     t, r->budget_from_expert ? "from the expert's" : "from the budgets'");
        } else if (r->budgeted) {
            snprintf(budget, sizeof budget,
                     ";\n  the optimum did not fit: searched with per-op budgets");
        }
        fprintf(f, "memory: %.3g GB per device of %.3g GB (least possible %.3g GB)%s%s\n",
                r->mem_bytes / 1e9, pb->perf->mem_limit_bytes / 1e9, r->min_mem_bytes / 1e9,
                budget,
                r->mem_bytes > pb->perf->mem_limit_bytes ? ": does not fit (no strategy the "
                                                           "search met fits)"
                                                         : "");
    }
    if (r->optimum >= 0.0) {
        dnp_fmt_time(r->optimum, t, sizeof t);
        fprintf(f, "PaSE's optimum = %s; MCMC is %.4fx that\n", t, r->cost / r->optimum);
    }
    if (r->refine_judged > 0) { /* pase_refine.c */
        char line[512], from[32], to[32];
        dnp_fmt_time(r->refined_from_cost, t, sizeof t);
        dnp_fmt_time(r->refined_from_s, from, sizeof from);
        dnp_fmt_time(r->refined_s, to, sizeof to);
        if (r->refined_s < r->refined_from_s)
            snprintf(line, sizeof line,
                     "refined in the step simulator (%d plans simulated): PaSE's optimum (sum "
                     "%s) simulates in %s, the plan above in %s%s (docs/pase.md \"The plan, "
                     "refined in the step simulator\")",
                     r->refine_judged, t, from, to,
                     r->refine_stopped ? "; stopped by the work budget, not a local optimum"
                                       : "");
        else
            snprintf(line, sizeof line,
                     "refined in the step simulator (%d plans simulated): no decided op's "
                     "other configuration simulates faster than PaSE's optimum, %s%s",
                     r->refine_judged, from,
                     r->refine_stopped ? " (stopped by the work budget)" : "");
        put_wrapped(f, "  ", line);
    }
}

void dnp_pase_run_print(const dnp_pase_run *r, int timing, FILE *f)
{
    const pase_problem *pb = &r->pp->pb;
    const dnp_pase_hw *hw = &r->pp->hw;
    int sec = PASE_SECONDS(r->pp);
    char t[32], si[32];
    fprintf(f, "model %s: %d ops, %d edges; batch %lld; p = %d\n", iter_space_name(pb->g),
            pb->n_v, pb->n_e, (long long)r->pp->batch, hw->p);
    if (sec)
        fprintf(f,
                "hardware: %s\ncost model: default (seconds: roofline at %s, collectives on "
                "the link tiers; docs/pase.md)\n",
                hw->description, dnp_precision_name(pb->perf->r.precision));
    else {
        char line[512];
        snprintf(line, sizeof line, "hardware: %s: r = %.6g FLOP per word", hw->description,
                 pb->par.r_w);
        put_wrapped(f, "  ", line);
    }
    if (r->limit_hit)
        fprintf(f, "note: time limit reached after %g s: best plan found so far\n",
                r->time_limit_s);
    if (r->base_limit_hit)
        fprintf(f,
                "note: time limit reached after %g s in the MCMC baseline: its best so far is "
                "shown\n",
                r->time_limit_s);
    fprintf(f, "search: %s%s\n\n",
            r->search == DNP_PASE_SEARCH_MCMC
                ? "mcmc (FlexFlow-style, from the expert strategy)"
                : (r->search == DNP_PASE_SEARCH_DP ? "pase (GenerateSeq + FindBestStrategy)"
                                                   : "pase breadth-first DP (recurrence 2)"),
            r->pp->opt.strategy_space
                ? "\n  in a dnnpar strategy's space: decided ops split batch, input or output "
                  "(joins batch or\n  channel) by powers of two (docs/pase.md)"
                : "");
    /* seconds: one unit for the column, the one its largest t_l reads best
     * in, named in the header (issue 15: one unit per table column) */
    double max_tl = 0.0, per_s = 1.0;
    for (int v = 0; v < pb->n_v; v++)
        max_tl = fmax(max_tl, pb->tl[v][r->cfg[v]]);
    char h_tl[32];
    if (sec)
        snprintf(h_tl, sizeof h_tl, "t_l (%s)", dnp_time_unit(max_tl, &per_s));
    else
        snprintf(h_tl, sizeof h_tl, "t_l FLOP");
    fprintf(f, "%4s  %-34s %-19s %-8s %-24s %10s\n", "#", "op", "kind", "dims", "configuration",
            h_tl);
    for (int v = 0; v < pb->n_v; v++) {
        const iter_nest *x = &pb->g->nest[v];
        char dims[64], cfg[96];
        pase_fmt_dims(x, dims, sizeof dims);
        pase_run_fmt_config(r, v, cfg, sizeof cfg);
        if (sec)
            snprintf(si, sizeof si, "%.3f", pb->tl[v][r->cfg[v]] * per_s);
        else
            dnp_fmt_si(pb->tl[v][r->cfg[v]], si, sizeof si);
        fprintf(f, "%4d  %-34.34s %-19s %-8s %-24s %10s\n", v, x->name, iter_kind_name(x->kind),
                dims, cfg, si);
    }
    cost_text(r, f);
    fprintf(f, "baselines in the same space and cost model:\n");
    for (int i = 0; i < r->n_base; i++) {
        const pase_baseline_row *b = &r->base[i];
        if (sec) {
            dnp_fmt_time(b->cost, t, sizeof t);
            fprintf(f, "  %-24s %12s  %8.4fx", b->name, t, b->cost / r->cost);
        } else {
            dnp_fmt_time(b->cost / hw->peak_flops, t, sizeof t);
            fprintf(f, "  %-24s %.6e FLOP %12s  %8.4fx", b->name, b->cost, t, b->cost / r->cost);
        }
        if (b->iters > 0)
            fprintf(f, "  (%ld iterations)", b->iters);
        if (!b->fits)
            fprintf(f, "  (does not fit: %.3g GB per device)", b->mem_bytes / 1e9);
        fprintf(f, "\n");
    }
    dp_note(r, f);
    const pase_baseline_row *best = &r->base[r->best_base];
    if (best->fits)
        fprintf(f, "best baseline: %s, %.4fx this strategy's cost\n", best->name,
                best->cost / r->cost);
    else
        fprintf(f,
                "best baseline: none fits in the memory (the fastest, %s, would take %.4fx this "
                "strategy's cost)\n",
                best->name, best->cost / r->cost);
    if (sec)
        pase_idle_warning(f, r->used, hw->p,
                          r->have_het ? "the weakest-device plan" : "the plan");
    if (r->have_het)
        split_text(r, f);
    else if (r->split_none_fits)
        fprintf(f,
                "\nbatch split across the device types: none fits in the groups' memory (%s);\n"
                "  the plan is the one above, over all %d devices\n",
                r->split_exhaustive ? "every integer split tried" : "a grid of splits tried",
                hw->p);
    if (r->have_tables)
        fprintf(f,
                "tables: dependent sets of up to %d ops, largest table %.0f rows, estimated "
                "%.1f MiB\n",
                r->max_dep, r->max_rows, r->table_bytes / 1048576.0);
    if (r->pinned > 0) { /* pase_pin.c */
        char line[320];
        snprintf(line, sizeof line,
                 "not the exact optimum: the exact tables exceed the guard (dependent sets too "
                 "large, PaSE section V), so %d of the %d ops were pinned to one configuration "
                 "(the expert's, then improved one at a time) with the DP exact over the rest "
                 "(docs/pase.md \"Dense graphs: pinned ops\")",
                 r->pinned, pb->n_v);
        put_wrapped(f, "  ", line);
    }
    if (timing) {
        dnp_fmt_time(r->search_s, t, sizeof t);
        fprintf(f, "search time: %s\n", t);
    }
}
