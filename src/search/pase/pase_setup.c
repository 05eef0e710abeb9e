/*
 * pase_setup.c - dnp_pase_problem: a model (a PaSE reference graph, or
 * any model the tool loads, converted) bound to PaSE hardware: every op's
 * configurations and t_l, every edge's projections (pase_problem_build).
 */
#include "search/pase/pase_driver.h"

#include <string.h>

/* --batch's default for a model that is not a reference graph. */
#define PASE_DEFAULT_BATCH 128

/* Bind graph g (taken over: freed on failure too) to hw and opt. */
static dnp_status bind(pase_graph *g, const char *source, int64_t batch, const dnp_pase_hw *hw,
                       const dnp_pase_options *opt, dnp_pase_problem **out, dnp_error *err)
{
    dnp_pase_problem *pp = dnp_calloc(1, sizeof *pp);
    char *src = dnp_strdup(source);
    if (pp == NULL || src == NULL) {
        dnp_free(pp);
        dnp_free(src);
        pase_graph_free(g);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building the PaSE problem");
        return DNP_ERR_NOMEM;
    }
    pp->g = g;
    pp->source = src;
    pp->hw = *hw;
    pp->batch = batch;
    if (opt != NULL && opt->cutoff > 0)
        g->cutoff = opt->cutoff;
    /* Eq. 1's r: FLOP per word moved */
    pase_params par = {hw->p, dnp_pase_hw_r_flop_per_word(hw),
                       opt != NULL ? opt->prototype_edges : 0,
                       opt != NULL && opt->max_memory_bytes > 0.0 ? opt->max_memory_bytes
                                                                  : PASE_DEFAULT_MAX_BYTES};
    dnp_status st = pase_problem_build(g, &par, &pp->pb, err);
    if (st != DNP_OK) {
        memset(&pp->pb, 0, sizeof pp->pb); /* nothing to free */
        dnp_pase_problem_free(pp);
        return st;
    }
    *out = pp;
    return DNP_OK;
}

static int64_t batch_of(const dnp_pase_options *opt, int64_t dflt)
{
    return opt != NULL && opt->batch > 0 ? opt->batch : dflt;
}

dnp_status dnp_pase_problem_load(const char *model, const dnp_pase_hw *hw,
                                 const dnp_pase_options *opt, dnp_pase_problem **out,
                                 dnp_error *err)
{
    pase_graph *pg = NULL;
    dnp_status st;
    int m = pase_model_find(model);
    int64_t batch = batch_of(opt, m >= 0 ? pase_model_default_batch(m) : PASE_DEFAULT_BATCH);
    if (m >= 0) {
        if ((st = pase_model_build(model, batch, &pg, err)) != DNP_OK)
            return st;
        return bind(pg, model, batch, hw, opt, out, err);
    }
    dnp_graph *g = NULL;
    dnp_load_options lo = {opt != NULL && opt->skip_unknown};
    if ((st = dnp_model_load_opts(model, &lo, &g, err)) != DNP_OK)
        return st;
    dnp_error cerr = {0};
    st = pase_from_graph(g, batch, &pg, &cerr);
    dnp_graph_free(g);
    if (st != DNP_OK) {
        dnp_error_set(err, st, "%s: %s", model, cerr.msg);
        return st;
    }
    return bind(pg, model, batch, hw, opt, out, err);
}

dnp_status dnp_pase_problem_from_graph(const dnp_graph *g, const dnp_pase_hw *hw,
                                       const dnp_pase_options *opt, dnp_pase_problem **out,
                                       dnp_error *err)
{
    pase_graph *pg = NULL;
    int64_t batch = batch_of(opt, PASE_DEFAULT_BATCH);
    dnp_status st = pase_from_graph(g, batch, &pg, err);
    if (st != DNP_OK)
        return st;
    return bind(pg, dnp_graph_name(g), batch, hw, opt, out, err);
}

void dnp_pase_problem_free(dnp_pase_problem *pp)
{
    if (pp == NULL)
        return;
    pase_problem_free(&pp->pb);
    pase_graph_free(pp->g);
    dnp_free(pp->source);
    dnp_free(pp);
}

int dnp_pase_problem_n_ops(const dnp_pase_problem *pp)
{
    return pp->pb.n_v;
}

int dnp_pase_problem_n_edges(const dnp_pase_problem *pp)
{
    return pp->pb.n_e;
}

int64_t dnp_pase_problem_batch(const dnp_pase_problem *pp)
{
    return pp->batch;
}
