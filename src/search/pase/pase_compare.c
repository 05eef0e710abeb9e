/*
 * pase_compare.c - one call for `dnnpar compare`: a core graph searched
 * with PaSE and with MCMC, and data parallelism and the expert strategy
 * evaluated, all in the PaSE space and cost model (Eq. 1), in seconds of
 * the device's peak (F / peak FLOP/s).
 */
#include "search/pase/pase.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dnp_status pase_compare(const dnp_graph *g, int p, int64_t batch, double peak_flops,
                        double net_bw_bps, int bytes_per_word, pase_compare_result *out,
                        dnp_error *err)
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
    pase_graph *pg = NULL;
    dnp_status st = pase_from_graph(g, batch, &pg, err);
    if (st != DNP_OK)
        return st;
    /* Eq. 1's r: FLOP per word moved */
    pase_params par = {p, peak_flops * bytes_per_word / net_bw_bps, 0, 2048.0 * 1048576.0};
    pase_problem pb;
    if ((st = pase_problem_build(pg, &par, &pb, err)) != DNP_OK) {
        pase_graph_free(pg);
        return st;
    }
    int *cfg = dnp_malloc((size_t)pb.n_v * sizeof(int));
    int *best = dnp_malloc((size_t)pb.n_v * sizeof(int));
    pase_result r;
    memset(&r, 0, sizeof r);
    pase_search_opts o = {0, NULL, NULL, 0.0};
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
    pase_graph_free(pg);
    return st;
}
