/*
 * mpt_dgx1.c - the MPT paper's multi-GPU comparison (Hong et al., MICRO 2018,
 * Sec. VII-C, Figs. 17 and 18) as a modelled estimate: the paper measured an
 * NVIDIA DGX-1 (8 V100, TensorFlow 1.4, FP16, NCCL rings); we have no DGX-1,
 * so the GPU side is dnnpar's own V100 model (the "dgx1" node preset,
 * src/hw/cluster.c: V100 SXM2 datasheet figures, NVLink 2 ring) running data
 * parallelism in FP16 through the step simulator (docs/time-model.md).
 * The NDP side is w_mp+* on 256 workers from mpt_wholenet_run.
 * Units: seconds, samples.
 */
#include "arch/mpt/mpt_model.h"

#include <string.h>

/* Fig. 18: the GPU batch "that showed the highest performance" among 2K to
 * 4K (Sec. VII-C); we try these and keep the fastest that fits. */
const int64_t mpt_dgx1_big_batches[MPT_DGX1_BIG_BATCHES] = {2048, 3072, 4096};

/* One data-parallel step of graph g on cluster spec at batch b in FP16
 * (dnnpar's default performance model, stragglers included).  *fits is 0 if
 * the plan exceeds the V100's 16 GB (its time is still returned). */
static dnp_status dp_step(const dnp_graph *g, const char *spec, int64_t batch, double *step_s,
                          int *fits, dnp_error *err)
{
    dnp_cluster c;
    dnp_status st = dnp_cluster_parse(spec, &c, err);
    if (st != DNP_OK)
        return st;
    dnp_plan_options opt;
    memset(&opt, 0, sizeof opt);
    opt.scheme = DNP_SCHEME_DP;
    opt.batch = batch;
    opt.precision = DNP_PREC_FP16; /* the paper's GPU runs: FP16 on the Tensor cores */
    opt.keep_over_memory = 1;
    dnp_plan *p = NULL;
    st = dnp_plan_run(g, &c, &opt, &p, err);
    if (st != DNP_OK)
        return st;
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    *step_s = s.step_time_s;
    *fits = s.mem_fits;
    dnp_plan_free(p);
    return DNP_OK;
}

dnp_status mpt_dgx1_run(const mpt_wholenet *wn, mpt_dgx1 *out, dnp_error *err)
{
    mpt_dgx1 r;
    memset(&r, 0, sizeof r);
    dnp_status st = DNP_OK;
    for (int k = 0; k < MPT_FIG17_NETS && st == DNP_OK; k++) {
        dnp_graph *g = NULL;
        st = dnp_zoo_build(wn->names[k], &g, err);
        int fits = 0;
        if (st == DNP_OK)
            st = dp_step(g, "1xv100", MPT_DGX1_BATCH, &r.v100_s[k], &r.v100_fits[k], err);
        if (st == DNP_OK)
            st = dp_step(g, "1xdgx1", MPT_DGX1_BATCH, &r.dgx1_s[k], &fits, err);
        for (int b = 0; b < MPT_DGX1_BIG_BATCHES && st == DNP_OK; b++) {
            double t = 0;
            int64_t n = mpt_dgx1_big_batches[b];
            st = dp_step(g, "1xdgx1", n, &t, &fits, err);
            /* throughput n / t; keep the best that fits in 16 GB */
            if (st == DNP_OK && fits &&
                (r.big_batch[k] == 0 || (double)n / t > (double)r.big_batch[k] / r.big_s[k])) {
                r.big_batch[k] = n;
                r.big_s[k] = t;
            }
        }
        dnp_graph_free(g);
        if (st != DNP_OK)
            break;
        /* NDP: 256 workers, batch 256, one iteration (forward + backward) */
        r.ndp_s[k] = wn->t[k][MPT_W_MP_PS].total_s;
        r.ndp_wdp_s[k] = wn->t[k][MPT_W_DP].total_s;
        r.gpu_scaling[k] = r.v100_s[k] / r.dgx1_s[k];
        /* speedup = throughput ratio; both at batch 256 (Fig. 17) */
        r.over_dgx1[k] = r.dgx1_s[k] / r.ndp_s[k];
        r.mean_over_dgx1 += r.over_dgx1[k] / MPT_FIG17_NETS;
        if (r.big_batch[k] > 0) { /* Fig. 18(a): samples/s, NDP at 256, GPU at its best batch */
            double ndp_sps = MPT_DGX1_BATCH / r.ndp_s[k];
            double gpu_sps = (double)r.big_batch[k] / r.big_s[k];
            r.over_big[k] = ndp_sps / gpu_sps;
            r.mean_over_big += r.over_big[k];
            r.n_big++;
        }
    }
    if (st != DNP_OK)
        return st;
    if (r.n_big > 0)
        r.mean_over_big /= r.n_big;
    *out = r;
    return DNP_OK;
}
