/*
 * pase_run_split.c - a dnp_pase_run's batch split across device types
 * (pase_hetero.c; docs/pase.md "Heterogeneous clusters") as the public
 * API gives it, and the idle-device warnings of the shared model (a
 * device no op of the plan uses is idle all step; docs/pase.md).
 */
#include "search/pase/pase_driver.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int pase_run_split_chosen(const dnp_pase_run *r)
{
    if (!r->have_het)
        return 0;
    if (isfinite(r->het.judged_s) && isfinite(r->own_simulated_s))
        return r->het.judged_s < r->own_simulated_s;
    return r->het.step_s < r->cost;
}

int pase_idle_warning(FILE *f, int used, int p, const char *what)
{
    if (used >= p)
        return 0;
    fprintf(f, "warning: %s uses at most %d of the %d devices: %d idle all step\n", what, used, p,
            p - used);
    return 1;
}

dnp_status dnp_pase_run_type_split(const dnp_pase_run *r, dnp_pase_type_split *out,
                                   dnp_error *err)
{
    if (!r->have_het) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s",
                      r->split_none_fits
                          ? "the run has no type split: no split of the batch across the "
                            "device types fits in their memory (the plan is over all devices)"
                          : "the run has no type split (the default cost model's DP on "
                            "several device types has one)");
        return DNP_ERR_INPUT;
    }
    const pase_hetero_result *h = &r->het;
    dnp_pase_type_split s;
    memset(&s, 0, sizeof s);
    s.n_groups = h->n_groups;
    for (int g = 0; g < h->n_groups; g++) {
        const pase_hetero_group *gr = &h->grp[g];
        dnp_pase_type_group *o = &s.group[g];
        snprintf(o->device, sizeof o->device, "%s", r->pp->hw.cluster.types[gr->type].name);
        o->devices = gr->n_dev;
        o->batch = gr->batch;
        o->plan_batch = gr->plan_batch;
        o->time_s = gr->time_s;
        o->mem_bytes = gr->mem_bytes;
        o->devices_used = gr->batch > 0 ? gr->devices_used : 0;
    }
    s.sync_s = h->sync_s;
    s.grad_bytes = h->param_bytes;
    s.step_s = h->step_s;
    s.candidates = h->candidates;
    s.exhaustive = h->exhaustive;
    s.chosen = pase_run_split_chosen(r);
    *out = s;
    return DNP_OK;
}

const char *dnp_pase_run_type_config(const dnp_pase_run *r, int g, int v)
{
    if (!r->have_het || g < 0 || g >= r->het.n_groups)
        return NULL;
    const pase_hetero_group *gr = &r->het.grp[g];
    if (gr->g == NULL || v < 0 || v >= gr->g->n_nest)
        return NULL;
    return gr->cfg_text[v];
}

int dnp_pase_run_warn(const dnp_pase_run *r, FILE *f)
{
    if (!PASE_SECONDS(r->pp))
        return 0;
    if (!pase_run_split_chosen(r))
        return pase_idle_warning(f, r->used, r->pp->hw.p, "the plan");
    int n = 0;
    for (int g = 0; g < r->het.n_groups; g++) {
        const pase_hetero_group *gr = &r->het.grp[g];
        char what[96];
        snprintf(what, sizeof what, "the %s group", r->pp->hw.cluster.types[gr->type].name);
        n += pase_idle_warning(f, gr->batch > 0 ? gr->devices_used : 0, gr->n_dev, what);
    }
    return n;
}
