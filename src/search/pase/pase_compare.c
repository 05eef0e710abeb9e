/*
 * pase_compare.c - one call for `dnnpar compare`: a core graph searched
 * with PaSE and with MCMC, and data parallelism and the expert strategy
 * evaluated, all in the PaSE space and cost model (Eq. 1), in seconds of
 * the device's peak (F / peak FLOP/s).
 */
#include "search/pase/pase.h"

#include "core/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dnp_status pase_compare(const dnp_graph *g, int p, int64_t batch, double peak_flops,
                        double net_bw_bps, int bytes_per_word, double time_limit_s,
                        double deadline_s, pase_compare_result *out, dnp_error *err)
{
    if (p < 1) {
        dnp_error_set(err, DNP_ERR_INPUT, "the device count must be at least 1, got %d", p);
        return DNP_ERR_INPUT;
    }
    if (!(peak_flops > 0.0) || !(net_bw_bps > 0.0) || bytes_per_word < 1 || !isfinite(peak_flops) ||
        !isfinite(net_bw_bps)) {
        dnp_error_set(err, DNP_ERR_INPUT, "peak FLOP/s, bandwidth and word size must be positive");
        return DNP_ERR_INPUT;
    }
    iter_space *pg = NULL;
    dnp_status st = iter_space_build(g, batch, &pg, err);
    if (st != DNP_OK)
        return st;
    /* Eq. 1's r: FLOP per word moved */
    pase_params par = {p, peak_flops * bytes_per_word / net_bw_bps, 0, 2048.0 * 1048576.0, 0};
    pase_problem pb;
    if ((st = pase_problem_build(pg, &par, &pb, err)) != DNP_OK) {
        iter_space_free(pg);
        return st;
    }
    int *cfg = dnp_malloc((size_t)pb.n_v * sizeof(int));
    int *best = dnp_malloc((size_t)pb.n_v * sizeof(int));
    pase_result r;
    memset(&r, 0, sizeof r);
    pase_search_opts o = {0, NULL, NULL, time_limit_s, 0, deadline_s};
    if (cfg == NULL || best == NULL) {
        st = DNP_ERR_NOMEM;
        dnp_error_set(err, st, "out of memory comparing strategies");
    } else if ((st = pase_search(&pb, 0, &o, &r, err)) == DNP_OK) {
        pase_compare_result res;
        memset(&res, 0, sizeof res);
        res.pase_s = pase_objective(&pb, r.cfg) / peak_flops;
        res.search_s = r.search_s;
        pase_data_parallel(&pb, cfg);
        res.dp_s = pase_objective(&pb, cfg) / peak_flops;
        pase_mcmc_opts mo;
        pase_mcmc_defaults(&mo);
        mo.time_limit_s = time_limit_s;
        mo.deadline_s = deadline_s;
        mo.time_limit_hit = &res.time_limit_hit;
        double mcmc_flop = 0.0;
        if ((st = pase_expert(&pb, cfg, res.expert, sizeof res.expert, err)) == DNP_OK) {
            res.expert_s = pase_objective(&pb, cfg) / peak_flops;
            st = pase_mcmc(&pb, cfg, &mo, best, NULL, &mcmc_flop, err);
        }
        res.mcmc_s = mcmc_flop / peak_flops;
        if (st == DNP_OK)
            *out = res;
    }
    pase_result_free(&r);
    dnp_free(cfg);
    dnp_free(best);
    pase_problem_free(&pb);
    iter_space_free(pg);
    return st;
}

/* The public form: the cluster as one flat mesh of all its devices, each
 * counted as the weakest type's peak and link, words of the widest
 * element (PaSE's section V reading of a mixed cluster). */
dnp_status dnp_pase_compare(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                            const dnp_plan_options *opt, dnp_pase_compare_result *out,
                            dnp_error *err)
{
    const double limit_s = opt != NULL ? opt->time_limit_s : 0.0;
    const double deadline_s =
        opt != NULL ? dnp_deadline_at(opt->time_limit_from_s, opt->time_limit_s) : 0.0;
    double flops = INFINITY, bw = INFINITY;
    int bytes = 0;
    for (int k = 0; k < c->n_types; k++) {
        flops = fmin(flops, c->types[k].peak_flops);
        bw = fmin(bw, c->types[k].net_bw_bps);
        bytes = c->types[k].bytes_per_elem > bytes ? c->types[k].bytes_per_elem : bytes;
    }
    int64_t p = dnp_cluster_devices(c);
    if (p > 1 << 20) {
        dnp_error_set(err, DNP_ERR_INPUT, "too many devices for the PaSE space");
        return DNP_ERR_INPUT;
    }
    pase_compare_result r;
    dnp_status st = pase_compare(g, (int)p, batch, flops, bw, bytes, limit_s, deadline_s, &r, err);
    if (st != DNP_OK)
        return st;
    out->pase_s = r.pase_s;
    out->mcmc_s = r.mcmc_s;
    out->dp_s = r.dp_s;
    out->expert_s = r.expert_s;
    snprintf(out->expert, sizeof out->expert, "%s", r.expert);
    out->search_s = r.search_s;
    out->time_limit_hit = r.time_limit_hit;
    return DNP_OK;
}
