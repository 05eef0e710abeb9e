/*
 * sf_dse.c - design-space exploration (Fig. 9): every feasible
 * (N_c, N_f) estimated, to check that the analytical split of Eq. 9 lies
 * in the best region.
 *
 * The estimate is the steady state the out-of-order pipeline approaches
 * (section 4.1.1): both engines busy and the channel shared,
 *     T(N_c, N_f) = max(C cycles(N_c) / freq, F cycles(N_f) / freq, bytes / BW),
 * with the engines' cycles from the FF instruction-block programs (Eq. 6
 * per step) and the traffic of Eqs. 3-5, summed over the instances.
 */
#include "arch/synergyflow/synergyflow.h"

#include <stdlib.h>
#include <string.h>

/* FF cycles of every model's layers of one kind on 1..N cores, weighted
 * by the instance counts, into cyc[k] for k cores; FF traffic and
 * operations added to *bytes and *ops.  Each layer is tiled once. */
static dnp_status stage_cycles(const sf_workload *w, const sf_platform *p, sf_layer_kind kind,
                               double *cyc, double *bytes, double *ops, dnp_error *err)
{
    sf_phase ph = kind == SF_CONV ? SF_FF_C : SF_FF_F;
    for (int m = 0; m < w->n_models; m++) {
        const sf_model *md = &w->models[m];
        double n = (double)md->instances;
        for (int i = 0; i < md->n_layers; i++) {
            if (md->layers[i].kind != kind)
                continue;
            sf_sublayer_run *runs = NULL;
            int n_runs = 0;
            dnp_status st = sf_layer_sublayers(&md->layers[i], ph, p, &runs, &n_runs, err);
            if (st != DNP_OK)
                return st;
            for (int r = 0; r < n_runs; r++) {
                *bytes += n * (double)runs[r].count *
                          (double)(runs[r].load_words + runs[r].store_words) * p->dw_bytes;
                *ops += n * 2.0 * (double)runs[r].count * (double)runs[r].macs;
            }
            for (int k = 1; k <= p->cores && st == DNP_OK; k++) {
                int64_t c = sf_runs_cycles(runs, n_runs, k, kind == SF_FC);
                if (c < 0) {
                    dnp_error_set(err, DNP_ERR_NOMEM, "out of memory for the design space");
                    st = DNP_ERR_NOMEM;
                }
                cyc[k] += n * (double)c;
            }
            dnp_free(runs);
            if (st != DNP_OK)
                return st;
        }
    }
    return DNP_OK;
}

dnp_status sf_dse_run(const sf_workload *w, const sf_platform *p, sf_dse *out, dnp_error *err)
{
    dnp_status st = sf_platform_check(p, err);
    if (st != DNP_OK)
        return st;
    int n = p->cores;
    double *c_cyc = dnp_calloc((size_t)n + 1, sizeof *c_cyc);
    double *f_cyc = dnp_calloc((size_t)n + 1, sizeof *f_cyc);
    double *map = dnp_malloc((size_t)(n + 1) * (size_t)(n + 1) * sizeof *map);
    double bytes = 0.0, ops = 0.0;
    if (c_cyc == NULL || f_cyc == NULL || map == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory for the design space");
        st = DNP_ERR_NOMEM;
        goto done;
    }
    if ((st = stage_cycles(w, p, SF_CONV, c_cyc, &bytes, &ops, err)) != DNP_OK ||
        (st = stage_cycles(w, p, SF_FC, f_cyc, &bytes, &ops, err)) != DNP_OK)
        goto done;
    int has_conv = c_cyc[1] > 0, has_fc = f_cyc[1] > 0;
    sf_dse d = {n, map, -1, -1, -1.0};
    for (int nc = 0; nc <= n; nc++)
        for (int nf = 0; nf <= n; nf++) {
            double *cell = &map[nc * (n + 1) + nf];
            *cell = -1.0;
            if (nc + nf > n || (has_conv && nc == 0) || (has_fc && nf == 0))
                continue;
            double t = bytes / p->bw_bps;
            if (has_conv && c_cyc[nc] / p->freq_hz > t)
                t = c_cyc[nc] / p->freq_hz;
            if (has_fc && f_cyc[nf] / p->freq_hz > t)
                t = f_cyc[nf] / p->freq_hz;
            *cell = ops / t / SF_GOPS;
            if (*cell > d.best_gops) { /* strict: ties keep the smaller split */
                d.best_gops = *cell;
                d.best_nc = nc;
                d.best_nf = nf;
            }
        }
    *out = d;
    map = NULL;
done:
    dnp_free(c_cyc);
    dnp_free(f_cyc);
    dnp_free(map);
    return st;
}

void sf_dse_free(sf_dse *d)
{
    if (d == NULL)
        return;
    dnp_free(d->gops);
    memset(d, 0, sizeof *d);
}
