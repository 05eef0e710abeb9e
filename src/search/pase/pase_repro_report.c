/*
 * pase_repro_report.c - the reports of a dnp_pase_repro (`dnnpar
 * reproduce pase`): Table I (best F beside the prototype's, search times
 * beside the paper's and the prototype's) and Table II (our strategies
 * at p = 32 beside the paper's), as text and as JSON.
 */
#include "search/pase/pase_driver.h"

#include <math.h>
#include <string.h>

/* Table I's time cell: "> 20 min" (-2), "-" (unknown) or the time in
 * seconds with `decimals` decimals (one unit per column: tests/units.sh). */
static void fmt_secs(double s, int decimals, char *buf, size_t n)
{
    if (s == -2)
        snprintf(buf, n, "> 20 min");
    else if (s < 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.*f s", decimals, s);
}

/* Index of a Table II model among Table I's first rows, or -1. */
static int t2_model(const char *model)
{
    for (int m = 0; m < PASE_REPRO_T2_MODELS; m++)
        if (strcmp(pase_table1[m].model, model) == 0)
            return m;
    return -1;
}

/* 1 if our F equals the prototype's total (relative 1e-9). */
static int matches(double ours, double proto)
{
    return fabs(ours - proto) <= 1e-9 * proto;
}

/* Distinct configurations of a group of ops, most frequent first. */
typedef struct {
    char text[160];
    int count;
} cfg_count;

static int group_configs(const pase_problem *pb, const int *cfg, const pase_table2_row *t,
                         cfg_count *out, int max)
{
    int n = 0;
    for (int v = 0; v < pb->n_v; v++) {
        const iter_nest *x = &pb->g->nest[v];
        if (!pase_table2_matches(x, t))
            continue;
        char dims[64], c[80], text[160];
        pase_fmt_dims(x, dims, sizeof dims);
        pase_fmt_config(pb, v, cfg[v], c, sizeof c);
        snprintf(text, sizeof text, "%s %s", dims, c);
        int k = 0;
        while (k < n && strcmp(out[k].text, text) != 0)
            k++;
        if (k == n && n < max) {
            snprintf(out[n].text, sizeof out[n].text, "%s", text);
            out[n++].count = 0;
        }
        if (k < n)
            out[k].count++;
    }
    for (int a = 1; a < n; a++) { /* stable: more ops first */
        cfg_count x = out[a];
        int b = a - 1;
        while (b >= 0 && out[b].count < x.count) {
            out[b + 1] = out[b];
            b--;
        }
        out[b + 1] = x;
    }
    return n;
}

/* The paper's row in our dimension order ("" if it does not map). */
static void paper_in_our_order(const pase_problem *pb, const pase_table2_row *t, char *buf,
                               size_t n)
{
    buf[0] = '\0';
    for (int v = 0; v < pb->n_v; v++) {
        int32_t c[ITER_MAX_RANK];
        if (!pase_table2_matches(&pb->g->nest[v], t) || !pase_table2_config(&pb->g->nest[v], t, c))
            continue;
        size_t k = (size_t)snprintf(buf, n, "(");
        for (int d = 0; d < pb->g->nest[v].rank && k < n; d++)
            k += (size_t)snprintf(buf + k, n - k, "%s%d", d ? "," : "", c[d]);
        if (k < n)
            snprintf(buf + k, n - k, ")");
        return;
    }
}

static json_t *table1_json(const dnp_pase_repro *r)
{
    json_t *t1 = json_array();
    for (int m = 0; m < PASE_REPRO_MODELS; m++)
        for (int k = 0; k < PASE_REPRO_PS; k++) {
            const pase_t1_cell *c = &r->cells[m][k];
            const pase_table1_row *row = &pase_table1[m];
            if (!c->ok)
                continue;
            double pc = row->proto_cost[k];
            json_t *o = json_pack(
                "{s:s,s:i,s:I,s:o}", "model", row->model, "p", c->p, "batch",
                (json_int_t)pase_model_default_batch(pase_model_find(row->model)), "cost_flop",
                pase_flop_json(c->cost));
            json_object_set_new(o, "prototype_cost_flop", pc > 0 ? pase_flop_json(pc) : json_null());
            json_object_set_new(o, "matches_prototype",
                                pc > 0 ? json_boolean(matches(c->cost, pc)) : json_null());
            double ps = row->paper_s[k], qs = row->proto_s[k];
            json_object_set_new(o, "paper_search_s", ps > 0 ? json_real(ps) : json_null());
            json_object_set_new(o, "prototype_search_s", qs > 0 ? json_real(qs) : json_null());
            if (qs == -2)
                json_object_set_new(o, "prototype_note",
                                    json_string("did not finish in 20 minutes"));
            json_object_set_new(o, "breadth_first",
                                json_string(c->bfs_s == -1   ? "over the memory guard"
                                            : c->bfs_s == -2 ? "skipped (work)"
                                                             : "ran"));
            json_object_set_new(o, "breadth_first_table_mib", json_real(c->bfs_mib));
            json_array_append_new(t1, o);
        }
    return t1;
}

static json_t *table2_json(const dnp_pase_repro *r)
{
    json_t *t2 = json_array();
    for (int i = 0; i < pase_table2_rows; i++) {
        const pase_table2_row *t = &pase_table2[i];
        int m = t2_model(t->model);
        if (m < 0)
            continue;
        cfg_count cc[16];
        int n = group_configs(&r->pb2[m], r->cfg2[m], t, cc, 16);
        json_t *ours = json_array();
        for (int k = 0; k < n; k++)
            json_array_append_new(ours,
                                  json_pack("{s:s,s:i}", "config", cc[k].text, "ops", cc[k].count));
        char mine[96];
        paper_in_our_order(&r->pb2[m], t, mine, sizeof mine);
        json_array_append_new(t2, json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "model", t->model,
                                            "row", t->row, "paper_dims", t->dims,
                                            "paper_config", t->config,
                                            "paper_config_in_our_order", mine, "ours", ours));
    }
    return t2;
}

char *dnp_pase_repro_json(const dnp_pase_repro *r)
{
    return pase_json_text(json_pack("{s:i,s:f,s:o,s:i,s:o,s:o}", "words_bytes", 8,
                                    "r_flop_per_word", 5000.0, "table1", table1_json(r),
                                    "table2_p", r->p2, "table2", table2_json(r), "fig6",
                                    pase_fig6_json(r)));
}

static void print_table1(const dnp_pase_repro *r, int timing, FILE *f)
{
    fprintf(f, "Table I: search time (ours: GenerateSeq + FindBestStrategy; BF: our "
               "breadth-first DP)\n");
    fprintf(f,
            "and the best cost F beside the prototype's (duplicate edges dropped as it "
            "does)%s\n\n",
            timing ? "" : ";\nours and BF show their times with --timing");
    fprintf(f, "%-16s %3s %20s %6s %10s %10s %10s %12s\n", "model", "p", "F (FLOP)", "= proto",
            "ours", "BF", "paper", "prototype");
    for (int m = 0; m < PASE_REPRO_MODELS; m++)
        for (int k = 0; k < PASE_REPRO_PS; k++) {
            const pase_t1_cell *c = &r->cells[m][k];
            const pase_table1_row *row = &pase_table1[m];
            if (!c->ok)
                continue;
            char ours[24], bf[24], paper[24], proto[24];
            if (timing)
                fmt_secs(c->search_s, 6, ours, sizeof ours);
            else
                snprintf(ours, sizeof ours, "ran");
            if (c->bfs_s == -1)
                snprintf(bf, sizeof bf, "guard");
            else if (c->bfs_s == -2)
                snprintf(bf, sizeof bf, "skipped");
            else if (timing)
                fmt_secs(c->bfs_s, 6, bf, sizeof bf);
            else
                snprintf(bf, sizeof bf, "ran");
            fmt_secs(row->paper_s[k], 3, paper, sizeof paper);
            fmt_secs(row->proto_s[k], 3, proto, sizeof proto);
            double pc = row->proto_cost[k];
            fprintf(f, "%-16s %3d %20.2f %6s %10s %10s %10s %12s\n", row->model, c->p, c->cost,
                    pc > 0 ? (matches(c->cost, pc) ? "yes" : "NO") : "-", ours, bf, paper,
                    proto);
        }
    fprintf(f, "\nBF: 'guard' = its tables exceed the 2 GB memory guard (the paper's OOM);\n"
               "'skipped' = over 2e8 table entries x configurations of work.\n"
               "Prototype: measured on this kind of machine, one core (reference README);\n"
               "'> 20 min' = did not finish in 20 minutes.  Paper: its Table I (its prototype\n"
               "and machine).  Our search times vary from run to run (--timing prints them);\n"
               "bench/bench_pase.c has medians.\n");
}

static void print_table2(const dnp_pase_repro *r, FILE *f)
{
    fprintf(f, "\nTable II: strategies at p = %d (ours count both duplicate edges)\n", r->p2);
    const char *last = "";
    for (int i = 0; i < pase_table2_rows; i++) {
        const pase_table2_row *t = &pase_table2[i];
        int m = t2_model(t->model);
        if (m < 0)
            continue;
        if (strcmp(last, t->model) != 0) {
            fprintf(f, "\n%s\n", t->model);
            last = t->model;
        }
        cfg_count cc[16];
        int n = group_configs(&r->pb2[m], r->cfg2[m], t, cc, 16);
        char mine[96];
        paper_in_our_order(&r->pb2[m], t, mine, sizeof mine);
        int same = mine[0] != '\0' && n == 1 && strstr(cc[0].text, mine) != NULL;
        fprintf(f, "  %-15s paper %-7s %-18s", t->row, t->dims, t->config);
        if (mine[0])
            fprintf(f, " = %s", mine);
        fprintf(f, "%s\n", mine[0] == '\0' ? "" : (same ? "  (same)" : "  (differs)"));
        for (int k = 0; k < n; k++)
            fprintf(f, "  %-15s ours  %-30s x%d\n", "", cc[k].text, cc[k].count);
    }
    fprintf(f, "\nThe paper's rows under the prototype's cost model: the best F with those\n"
               "ops held at the paper's configurations (all other ops free):\n");
    for (int m = 0; m < PASE_REPRO_T2_MODELS; m++) {
        double opt = r->opt2[m], pf = r->paper2[m];
        fprintf(f, "  %-16s optimum %.2f; ", pase_table1[m].model, opt);
        if (pf == -1.0)
            fprintf(f, "the paper's dimensions do not map onto ours\n");
        else if (pf == -2.0)
            fprintf(f, "a paper configuration is not a valid one here\n");
        else if (pf > opt * (1 + 1e-12))
            fprintf(f,
                    "with the paper's rows %.2f (+%.2f%%):\n%18s not optimal under this cost "
                    "model, so the prototype, which finds\n%18s the optimum, does not report "
                    "the paper's rows\n",
                    pf, 100.0 * (pf / opt - 1.0), "", "");
        else
            fprintf(f, "with the paper's rows %.2f: a tie\n", pf);
    }
    fprintf(f, "Where ours differ from the paper but cost the same, the optimum is tied and\n"
               "the choice is the tie-breaking's (docs/pase.md).\n");
}

void dnp_pase_repro_print(const dnp_pase_repro *r, int timing, FILE *f)
{
    fprintf(f, "PaSE (Elango, IPDPS 2021) on dnnpar; Tables I and II: 10 TFLOP/s, 16 GB/s, r = "
               "5000 FLOP per word;\nbatch 128 (CNNs), 64 (RNNLM, Transformer)\n\n");
    print_table1(r, timing, f);
    print_table2(r, f);
    pase_fig6_print(r, f);
}
