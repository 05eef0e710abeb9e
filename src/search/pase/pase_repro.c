/*
 * pase_repro.c - dnp_pase_repro: the PaSE paper's evaluation on our
 * implementation, at the prototype's defaults (10 TFLOP/s, 16 GB/s,
 * 8-byte words: r = 5000 FLOP per word; batch 128 for the CNNs, 64 for
 * RNNLM and Transformer).  Table I: per model and p, our best F (the
 * prototype's duplicate edges dropped) and our search time, and the
 * breadth-first DP where its tables fit.  Table II: our strategies at p =
 * 32 (both duplicate edges counted) and the best F with the paper's rows
 * held (pase_repro_report.c prints them).
 */
#include "search/pase/pase_driver.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The prototype's r: 10 TFLOP/s x 8 bytes / 16 GB/s (reference README). */
#define REPRO_R_FLOP_PER_WORD 5000.0
/* The breadth-first DP is skipped past this many table entries x
 * configurations of work (minutes under the sanitizers). */
#define REPRO_BFS_MAX_WORK 2e8

/* A failed reference search is not the user's input: report it as internal
 * (allocation failures as such). */
static dnp_status fail(dnp_error *err, dnp_status st, const char *model, int p, const char *msg)
{
    st = st == DNP_ERR_NOMEM ? st : DNP_ERR_INTERNAL;
    if (p > 0)
        dnp_error_set(err, st, "%s p %d: %s", model, p, msg);
    else
        dnp_error_set(err, st, "%s", msg);
    return st;
}

/* One Table I cell: the search and the breadth-first DP. */
static dnp_status table1_cell(const char *model, int p, const dnp_pase_repro_options *o,
                              pase_t1_cell *c, dnp_error *err)
{
    memset(c, 0, sizeof *c);
    c->p = p;
    iter_space *g = NULL;
    dnp_error e = {0};
    dnp_status st = pase_model_build(model, pase_model_default_batch(pase_model_find(model)), &g,
                                     &e);
    if (st != DNP_OK)
        return fail(err, st, model, 0, e.msg);
    pase_params par = {p, REPRO_R_FLOP_PER_WORD, 1, PASE_DEFAULT_MAX_BYTES,
                       pase_model_cutoff(pase_model_find(model))};
    pase_problem pb;
    if ((st = pase_problem_build(g, &par, &pb, &e)) != DNP_OK) {
        iter_space_free(g);
        return fail(err, st, model, p, e.msg);
    }
    char what[64];
    snprintf(what, sizeof what, "%s, p = %d", model, p);
    pase_progress_ctx pc = {o->progress, o->progress_user, what};
    pase_search_opts so = {o->threads, pase_progress_thunk, &pc, 0.0, 0, 0.0};
    pase_result r;
    if ((st = pase_search(&pb, 0, &so, &r, &e)) != DNP_OK) {
        st = fail(err, st, model, p, e.msg);
    } else {
        c->cost = pase_objective(&pb, r.cfg);
        c->search_s = r.search_s;
        c->ok = 1;
        pase_result_free(&r);
        /* the breadth-first DP, where its tables fit and its work is modest */
        pase_seq s;
        if (pase_bfs_seq(&pb, &s, &e) == DNP_OK) {
            double rows = 0, work = 0;
            double need = pase_dp_estimate(&pb, &s, o->threads > 0 ? o->threads : 2, &rows,
                                           &work);
            c->bfs_mib = need / 1048576.0;
            if (!(need <= par.max_bytes)) {
                c->bfs_s = -1;
            } else if (work > REPRO_BFS_MAX_WORK) {
                c->bfs_s = -2;
            } else if (pase_dp_run(&pb, &s, &so, &r, &e) == DNP_OK) {
                c->bfs_s = r.search_s;
                pase_result_free(&r);
            } else {
                c->bfs_s = -1;
            }
            pase_seq_free(&s);
        }
    }
    pase_problem_free(&pb);
    iter_space_free(g);
    return st;
}

/* The best F with the ops of the paper's rows held at the paper's
 * configurations (every other op free): the same DP with the other
 * configurations of those ops priced out (t_l = infinity), then restored.
 * -1 if a row does not map onto our dims, -2 if a configuration is not
 * one of ours (cutoff or p). */
static double paper_constrained_optimum(pase_problem *pb, const char *model, int threads)
{
    int n = pb->n_v;
    double **saved = dnp_calloc((size_t)n, sizeof(double *));
    double f = 0.0;
    if (saved == NULL)
        return -1.0;
    for (int i = 0; i < pase_table2_rows && f == 0.0; i++) {
        const pase_table2_row *t = &pase_table2[i];
        if (strcmp(t->model, model) != 0)
            continue;
        for (int v = 0; v < n && f == 0.0; v++) {
            int32_t c[ITER_MAX_RANK];
            if (!pase_table2_matches(&pb->g->nest[v], t))
                continue;
            int k = -1;
            if (!pase_table2_config(&pb->g->nest[v], t, c))
                f = -1.0;
            else if ((k = pase_configs_find(&pb->cfg[v], c)) < 0)
                f = -2.0;
            if (k < 0 || saved[v] != NULL)
                continue;
            saved[v] = dnp_malloc((size_t)pb->cfg[v].n * sizeof(double));
            if (saved[v] == NULL) {
                f = -1.0;
                break;
            }
            memcpy(saved[v], pb->tl[v], (size_t)pb->cfg[v].n * sizeof(double));
            for (int x = 0; x < pb->cfg[v].n; x++)
                if (x != k)
                    pb->tl[v][x] = INFINITY;
        }
    }
    if (f == 0.0) {
        pase_search_opts so = {threads, NULL, NULL, 0.0, 0, 0.0};
        pase_result r;
        dnp_error err = {0};
        f = pase_search(pb, 0, &so, &r, &err) == DNP_OK ? r.cost : -1.0;
        if (f >= 0.0)
            pase_result_free(&r);
    }
    for (int v = 0; v < n; v++)
        if (saved[v] != NULL) {
            memcpy(pb->tl[v], saved[v], (size_t)pb->cfg[v].n * sizeof(double));
            dnp_free(saved[v]);
        }
    dnp_free(saved);
    return f;
}

/* Table II's model m: our optimum at r->p2 and the paper-constrained F. */
static dnp_status table2_model(dnp_pase_repro *r, int m, int threads, dnp_error *err)
{
    const char *model = pase_table1[m].model;
    dnp_error e = {0};
    dnp_status st = pase_model_build(model, pase_model_default_batch(pase_model_find(model)),
                                     &r->g2[m], &e);
    if (st != DNP_OK)
        return fail(err, st, model, 0, e.msg);
    pase_params par = {r->p2, REPRO_R_FLOP_PER_WORD, 0, PASE_DEFAULT_MAX_BYTES,
                       pase_model_cutoff(pase_model_find(model))};
    if ((st = pase_problem_build(r->g2[m], &par, &r->pb2[m], &e)) != DNP_OK)
        return fail(err, st, model, 0, e.msg);
    r->have2[m] = 1;
    pase_search_opts so = {threads, NULL, NULL, 0.0, 0, 0.0};
    pase_result res;
    if ((st = pase_search(&r->pb2[m], 0, &so, &res, &e)) != DNP_OK)
        return fail(err, st, model, 0, e.msg);
    r->cfg2[m] = res.cfg; /* taken over */
    r->opt2[m] = pase_objective(&r->pb2[m], res.cfg);
    r->paper2[m] = paper_constrained_optimum(&r->pb2[m], model, threads);
    return DNP_OK;
}

dnp_status dnp_pase_reproduce(const dnp_pase_repro_options *o, dnp_pase_repro **out,
                              dnp_error *err)
{
    dnp_pase_repro_options dflt;
    memset(&dflt, 0, sizeof dflt);
    if (o == NULL)
        o = &dflt;
    int max_p = o->max_p > 0 ? o->max_p : 64;
    dnp_pase_repro *r = dnp_calloc(1, sizeof *r);
    if (r == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory reproducing PaSE");
        return DNP_ERR_NOMEM;
    }
    dnp_status st = DNP_OK;
    for (int m = 0; m < PASE_REPRO_MODELS && st == DNP_OK; m++)
        for (int k = 0; k < PASE_REPRO_PS && st == DNP_OK; k++)
            if (pase_table_p[k] <= max_p)
                st = table1_cell(pase_table1[m].model, pase_table_p[k], o, &r->cells[m][k], err);
    r->p2 = max_p < 32 ? max_p : 32;
    for (int m = 0; m < PASE_REPRO_T2_MODELS && st == DNP_OK; m++)
        st = table2_model(r, m, o->threads, err);
    if (st == DNP_OK)
        st = pase_repro_fig6(r, o, max_p, err);
    if (st != DNP_OK) {
        dnp_pase_repro_free(r);
        return st;
    }
    *out = r;
    return DNP_OK;
}

void dnp_pase_repro_free(dnp_pase_repro *r)
{
    if (r == NULL)
        return;
    for (int m = 0; m < PASE_REPRO_T2_MODELS; m++) {
        dnp_free(r->cfg2[m]);
        if (r->have2[m])
            pase_problem_free(&r->pb2[m]);
        iter_space_free(r->g2[m]);
    }
    dnp_free(r);
}

dnp_status dnp_pase_repro_cell(const dnp_pase_repro *r, const char *model, int p,
                               double *cost_flop, double *prototype_flop, dnp_error *err)
{
    for (int m = 0; m < PASE_REPRO_MODELS; m++)
        for (int k = 0; k < PASE_REPRO_PS; k++)
            if (strcmp(pase_table1[m].model, model) == 0 && pase_table_p[k] == p &&
                r->cells[m][k].ok) {
                *cost_flop = r->cells[m][k].cost;
                *prototype_flop = pase_table1[m].proto_cost[k];
                return DNP_OK;
            }
    dnp_error_set(err, DNP_ERR_INPUT, "no Table I cell for '%s' at p = %d", model, p);
    return DNP_ERR_INPUT;
}
