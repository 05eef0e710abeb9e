/*
 * sf_char.c - workload characterisation (section 4.2.1): per layer the
 * operations (Eq. 3 C_op, Eq. 5 F_op), the external traffic under the
 * Fig. 8 tiling (Eqs. 3-5, see sf_tiling.c) and the CTC ratio (Eq. 1);
 * per workload R_ctf (Eq. 10) and the kernel size K and stride S averaged
 * over CONV layers weighted by their operations (section 4.2.3).
 */
#include "arch/synergyflow/synergyflow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* FF traffic of one layer, words.  O(sublayers). */
static dnp_status layer_words(const sf_layer *l, const sf_platform *p, double *words,
                              dnp_error *err)
{
    sf_sublayer_run *runs = NULL;
    int n = 0;
    sf_phase ph = l->kind == SF_CONV ? SF_FF_C : SF_FF_F;
    dnp_status st = sf_layer_sublayers(l, ph, p, &runs, &n, err);
    if (st != DNP_OK)
        return st;
    double w = 0.0;
    for (int i = 0; i < n; i++)
        w += (double)runs[i].count * (double)(runs[i].load_words + runs[i].store_words);
    dnp_free(runs);
    *words = w;
    return DNP_OK;
}

dnp_status sf_characterise_model(const sf_model *m, const sf_platform *p, sf_layer_char *out,
                                 dnp_error *err)
{
    for (int i = 0; i < m->n_layers; i++) {
        double words = 0.0;
        dnp_status st = layer_words(&m->layers[i], p, &words, err);
        if (st != DNP_OK)
            return st;
        out[i].ops = 2.0 * (double)m->layers[i].macs; /* Eqs. 3 and 5 */
        out[i].mem_bytes = words * (double)p->dw_bytes;
        out[i].ctc_ops_per_byte = out[i].ops / out[i].mem_bytes; /* Eq. 1 */
    }
    return DNP_OK;
}

dnp_status sf_characterise(const sf_workload *w, const sf_platform *p, sf_workload_char *out,
                           dnp_error *err)
{
    sf_workload_char c;
    memset(&c, 0, sizeof c);
    double k_sum = 0.0, s_sum = 0.0;
    for (int i = 0; i < w->n_models; i++) {
        const sf_model *m = &w->models[i];
        sf_layer_char *lc = dnp_calloc((size_t)m->n_layers, sizeof *lc);
        if (lc == NULL) {
            dnp_error_set(err, DNP_ERR_NOMEM, "out of memory characterising %s", m->name);
            return DNP_ERR_NOMEM;
        }
        dnp_status st = sf_characterise_model(m, p, lc, err);
        if (st != DNP_OK) {
            dnp_free(lc);
            return st;
        }
        double n = (double)m->instances;
        for (int j = 0; j < m->n_layers; j++) {
            const sf_layer *l = &m->layers[j];
            if (l->kind == SF_CONV) {
                c.conv_ops += n * lc[j].ops;
                c.conv_mem_bytes += n * lc[j].mem_bytes;
                /* Section 4.2.3: "the average value of each layer weighted
                 * by the operations of the layer"; non-square kernels
                 * count their mean side. */
                k_sum += n * lc[j].ops * 0.5 * (double)(l->kh + l->kw);
                s_sum += n * lc[j].ops * 0.5 * (double)(l->sh + l->sw);
            } else {
                c.fc_ops += n * lc[j].ops;
                c.fc_mem_bytes += n * lc[j].mem_bytes;
            }
        }
        dnp_free(lc);
    }
    /* Eq. 10: R_ctf = C_op / F_op over the whole workload. */
    c.r_ctf = c.fc_ops > 0 ? c.conv_ops / c.fc_ops : (c.conv_ops > 0 ? INFINITY : 0.0);
    if (c.conv_ops > 0) {
        c.k_mean = k_sum / c.conv_ops;
        c.s_mean = s_sum / c.conv_ops;
        /* Table 6 lists integer K ("K ~ 5" for AlexNet, whose mean is 4.94)
         * and the text uses "S ~ 1" although AlexNet's mean is 1.48: the
         * model takes both rounded to the nearest integer. */
        c.k = (int)floor(c.k_mean + 0.5);
        c.s = (int)floor(c.s_mean + 0.5);
    }
    *out = c;
    return DNP_OK;
}
