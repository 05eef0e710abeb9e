/*
 * pase_run_report.c - the reports of a dnp_pase_run (`dnnpar plan
 * --search pase|mcmc`): text (every op's configuration and t_l, F and its
 * split, the baselines, the tables) and JSON (docs/formats.md).
 */
#include "search/pase/pase_driver.h"

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

char *dnp_pase_run_json(const dnp_pase_run *r)
{
    const pase_problem *pb = &r->pp->pb;
    const dnp_pase_hw *hw = &r->pp->hw;
    json_t *ops = json_array();
    for (int v = 0; v < pb->n_v; v++) {
        const pase_vertex *x = &pb->g->v[v];
        char dims[64];
        pase_fmt_dims(x, dims, sizeof dims);
        json_array_append_new(ops, json_pack("{s:s,s:s,s:s,s:o,s:o}", "name", x->name, "kind",
                                             pase_kind_name(x->kind), "dims", dims, "config",
                                             config_json(pb, v, r->cfg[v]), "layer_cost_flop",
                                             pase_flop_json(pb->tl[v][r->cfg[v]])));
    }
    json_t *bl = json_array();
    for (int i = 0; i < r->n_base; i++) {
        const pase_baseline_row *b = &r->base[i];
        json_t *o = json_pack("{s:s,s:o,s:f,s:f}", "name", b->name, "cost_flop",
                              pase_flop_json(b->cost_flop), "cost_s", b->cost_flop / hw->peak_flops,
                              "ratio_to_search", b->cost_flop / r->cost_flop);
        if (b->iters > 0)
            json_object_set_new(o, "iterations", json_integer(b->iters));
        if (i == 0) { /* data parallel: the batch split it uses */
            json_object_set_new(o, "batch_split_min", json_integer(r->dp_lo));
            json_object_set_new(o, "batch_split_max", json_integer(r->dp_hi));
        }
        json_array_append_new(bl, o);
    }
    json_t *root = json_pack(
        "{s:s,s:s,s:I,s:i,s:f,s:f,s:i,s:f,s:s,s:i,s:i,s:o,s:f,s:o,s:o,s:o,s:s}", "model",
        pb->g->name, "source", r->pp->source, "batch", (json_int_t)r->pp->batch, "p", hw->p,
        "peak_flops", hw->peak_flops, "link_bytes_per_s", hw->link_bps, "word_bytes",
        hw->word_bytes, "r_flop_per_word", pb->par.r_w, "search", search_name(r->search), "ops",
        pb->n_v, "edges", pb->n_e, "cost_flop", pase_flop_json(r->cost_flop), "cost_s",
        r->cost_flop / hw->peak_flops, "transfer_flop",
        pase_flop_json(pase_transfer_total(pb, r->cfg)), "strategy", ops, "baselines", bl,
        "best_baseline", r->base[r->best_base].name);
    if (root != NULL && r->have_tables)
        json_object_set_new(root, "tables",
                            json_pack("{s:i,s:f,s:f,s:f}", "max_dependent_set", r->max_dep,
                                      "largest_table_rows", r->max_rows, "work", r->work,
                                      "estimated_bytes", r->table_bytes));
    if (root != NULL && r->optimum_flop >= 0.0)
        json_object_set_new(root, "pase_optimum_flop", pase_flop_json(r->optimum_flop));
    if (root != NULL && (r->limit_hit || r->base_limit_hit))
        json_object_set_new(root, "time_limit",
                            json_pack("{s:f,s:b,s:s}", "seconds", r->time_limit_s, "reached", 1,
                                      "result",
                                      r->limit_hit ? "best plan found so far"
                                                   : "the MCMC baseline's best so far"));
    return pase_json_text(root);
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
    fprintf(f,
            "note: data parallel splits the batch %s, not %d: the largest split of batch "
            "%lld that is at most p and leaves at least %d samples per device (cutoff); "
            "%s%d of the %d devices idle\n",
            ways, hw->p, (long long)r->pp->batch, r->pp->g->cutoff,
            r->dp_lo == r->dp_hi ? "" : "at least ", hw->p - r->dp_hi, hw->p);
}

void dnp_pase_run_print(const dnp_pase_run *r, int timing, FILE *f)
{
    const pase_problem *pb = &r->pp->pb;
    const dnp_pase_hw *hw = &r->pp->hw;
    char t[32], si[32];
    fprintf(f, "model %s: %d ops, %d edges; batch %lld; p = %d\n", pb->g->name, pb->n_v, pb->n_e,
            (long long)r->pp->batch, hw->p);
    fprintf(f, "hardware: %s: r = %.6g FLOP per word\n", hw->description, pb->par.r_w);
    if (r->limit_hit)
        fprintf(f, "note: time limit reached after %g s: best plan found so far\n",
                r->time_limit_s);
    if (r->base_limit_hit)
        fprintf(f,
                "note: time limit reached after %g s in the MCMC baseline: its best so far is "
                "shown\n",
                r->time_limit_s);
    fprintf(f, "search: %s\n\n",
            r->search == DNP_PASE_SEARCH_MCMC
                ? "mcmc (FlexFlow-style, from the expert strategy)"
                : (r->search == DNP_PASE_SEARCH_DP ? "pase (GenerateSeq + FindBestStrategy)"
                                                   : "pase breadth-first DP (recurrence 2)"));
    fprintf(f, "%4s  %-34s %-19s %-8s %-24s %10s\n", "#", "op", "kind", "dims", "configuration",
            "t_l FLOP");
    for (int v = 0; v < pb->n_v; v++) {
        const pase_vertex *x = &pb->g->v[v];
        char dims[64], cfg[96];
        pase_fmt_dims(x, dims, sizeof dims);
        pase_fmt_config(pb, v, r->cfg[v], cfg, sizeof cfg);
        pase_fmt_si(pb->tl[v][r->cfg[v]], si, sizeof si);
        fprintf(f, "%4d  %-34.34s %-19s %-8s %-24s %10s\n", v, x->name, pase_kind_name(x->kind),
                dims, cfg, si);
    }
    double tx = pase_transfer_total(pb, r->cfg);
    pase_fmt_time(r->cost_flop / hw->peak_flops, t, sizeof t);
    fprintf(f, "\ncost F = %.2f FLOP (%s at peak): layers %.4g, transfers %.4g\n", r->cost_flop,
            t, r->cost_flop - tx, tx);
    if (r->optimum_flop >= 0.0)
        fprintf(f, "PaSE's optimum F = %.2f FLOP; MCMC is %.4fx that\n", r->optimum_flop,
                r->cost_flop / r->optimum_flop);
    fprintf(f, "baselines in the same space and cost model:\n");
    for (int i = 0; i < r->n_base; i++) {
        const pase_baseline_row *b = &r->base[i];
        pase_fmt_time(b->cost_flop / hw->peak_flops, t, sizeof t);
        fprintf(f, "  %-24s %.6e FLOP %12s  %8.4fx", b->name, b->cost_flop, t,
                b->cost_flop / r->cost_flop);
        if (b->iters > 0)
            fprintf(f, "  (%ld iterations)", b->iters);
        fprintf(f, "\n");
    }
    dp_note(r, f);
    fprintf(f, "best baseline: %s, %.4fx this strategy's cost\n", r->base[r->best_base].name,
            r->base[r->best_base].cost_flop / r->cost_flop);
    if (r->have_tables)
        fprintf(f,
                "tables: dependent sets of up to %d ops, largest table %.0f rows, estimated "
                "%.1f MB\n",
                r->max_dep, r->max_rows, r->table_bytes / 1048576.0);
    if (timing) {
        pase_fmt_time(r->search_s, t, sizeof t);
        fprintf(f, "search time: %s\n", t);
    }
}
