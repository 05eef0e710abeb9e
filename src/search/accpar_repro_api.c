/* accpar_repro_api.c - the AccPar reproduction's figures through the public
 * API (dnnpar/accpar.h): rows, figures, the mixed array against each type
 * alone, the ends of the paper's ranges, Figs. 7 and 8. */
#include "search/accpar_repro.h"

#include <string.h>

const accpar_fig *accpar_repro_fig(const dnp_accpar_repro *r, int figure)
{
    return figure == 5 ? &r->f5 : figure == 6 ? &r->f6 : NULL;
}

/* The index of network in accpar_repro_networks, else -1 with an error. */
static int net_index(const char *network, dnp_error *err)
{
    for (int i = 0; i < ACCPAR_REPRO_NETS; i++)
        if (network != NULL && strcmp(network, accpar_repro_networks[i]) == 0)
            return i;
    dnp_error_set(err, DNP_ERR_INPUT,
                  "AccPar reproduction: no network '%s' (lenet, alexnet, vgg11, vgg13, vgg16, "
                  "vgg19, resnet18, resnet34, resnet50)",
                  network != NULL ? network : "(null)");
    return -1;
}

static const accpar_fig *fig_or_error(const dnp_accpar_repro *r, int figure, dnp_error *err)
{
    const accpar_fig *f = accpar_repro_fig(r, figure);
    if (f == NULL)
        dnp_error_set(err, DNP_ERR_INPUT,
                      "AccPar reproduction: no figure %d of speedups (5 or 6)", figure);
    return f;
}

dnp_status dnp_accpar_repro_row_of(const dnp_accpar_repro *r, int figure, const char *network,
                                   dnp_accpar_repro_row *out, dnp_error *err)
{
    const accpar_fig *f = fig_or_error(r, figure, err);
    if (f == NULL)
        return DNP_ERR_INPUT;
    int i = net_index(network, err);
    if (i < 0)
        return DNP_ERR_INPUT;
    const accpar_net_run *run = &f->run[i];
    memset(out, 0, sizeof *out);
    for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
        out->step_s[s] = run->t_s[s];
        out->speedup[s] = f->speedup[i][s];
    }
    out->plan_returns = run->returned;
    out->ratio_eq10 = run->ratio0;
    out->ratio_searched = run->searched_ratio0;
    out->searched_step_s = run->searched_s;
    return DNP_OK;
}

dnp_status dnp_accpar_repro_figure_of(const dnp_accpar_repro *r, int figure,
                                      dnp_accpar_repro_figure *out, dnp_error *err)
{
    const accpar_fig *f = fig_or_error(r, figure, err);
    if (f == NULL)
        return DNP_ERR_INPUT;
    const double *paper = figure == 5 ? accpar_repro_paper_fig5 : accpar_repro_paper_fig6;
    for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
        out->geomean[s] = f->geomean[s];
        out->paper_geomean[s] = paper[s];
    }
    out->ordered = f->ordered;
    out->own_best = f->own_best;
    out->networks = ACCPAR_REPRO_NETS;
    return DNP_OK;
}

dnp_status dnp_accpar_repro_alone_of(const dnp_accpar_repro *r, const char *network,
                                     dnp_accpar_repro_alone *out, dnp_error *err)
{
    int i = net_index(network, err);
    if (i < 0)
        return DNP_ERR_INPUT;
    const accpar_net_run *m = &r->f5.run[i], *h = &r->f6.run[i];
    double v3_s = h->t_s[DNP_SCHEME_ACCPAR];
    /* speedup = A x B x C (accpar_repro.c, fig5_ends) */
    out->mixed_s = m->t_s[DNP_SCHEME_ACCPAR];
    out->v2_alone_s = r->v2_s[i];
    out->v3_alone_s = v3_s;
    out->a = m->t_s[DNP_SCHEME_DP] / h->t_s[DNP_SCHEME_DP];
    out->b = h->t_s[DNP_SCHEME_DP] / v3_s;
    out->c = v3_s / m->t_s[DNP_SCHEME_ACCPAR];
    return DNP_OK;
}

void dnp_accpar_repro_beats_v3(const dnp_accpar_repro *r, int *eq10, int *searched)
{
    *eq10 = r->beats_v3;
    *searched = r->beats_v3_searched;
}

int dnp_accpar_repro_n_ends(const dnp_accpar_repro *r) { return r->n_ends; }

dnp_status dnp_accpar_repro_end_of(const dnp_accpar_repro *r, int k, dnp_accpar_repro_end *out,
                                   dnp_error *err)
{
    if (k < 0 || k >= r->n_ends) {
        dnp_error_set(err, DNP_ERR_INPUT, "AccPar reproduction: no range end %d (0 .. %d)", k,
                      r->n_ends - 1);
        return DNP_ERR_INPUT;
    }
    const accpar_end *e = &r->ends[k];
    /* C implied = S / (A B) and the largest A with C >= 1 = S / B, S the
     * paper's speedup (speedup = A x B x C). */
    *out = (dnp_accpar_repro_end){e->series, e->end, accpar_repro_networks[e->net], e->paper,
                                  e->ours, e->a, e->b, e->c, e->paper / (e->a * e->b),
                                  e->paper / e->b};
    return DNP_OK;
}

int dnp_accpar_repro_fig7_type(const dnp_accpar_repro *r, int level, const char *layer)
{
    if (level < 0 || level >= ACCPAR_REPRO_FIG7_LEVELS || layer == NULL)
        return -1;
    for (int i = 0; i < r->n7; i++)
        if (strcmp(r->names7[i], layer) == 0)
            return r->types7[level * r->n7 + i];
    return -1;
}

dnp_status dnp_accpar_repro_fig8(const dnp_accpar_repro *r, int levels, dnp_scheme scheme,
                                 double *speedup, dnp_error *err)
{
    if (levels < ACCPAR_REPRO_FIG8_MIN || levels > ACCPAR_REPRO_FIG8_MAX || levels > r->max8 ||
        (int)scheme < 0 || scheme >= DNP_SCHEME_COUNT) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "AccPar reproduction: fig. 8 has no %d levels of scheme %d (levels %d .. "
                      "%d)",
                      levels, (int)scheme, ACCPAR_REPRO_FIG8_MIN,
                      r->max8 < ACCPAR_REPRO_FIG8_MAX ? r->max8 : ACCPAR_REPRO_FIG8_MAX);
        return DNP_ERR_INPUT;
    }
    *speedup = r->speedup8[levels][scheme];
    return DNP_OK;
}
