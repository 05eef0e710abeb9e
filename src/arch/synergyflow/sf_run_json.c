/*
 * sf_run_json.c - the JSON report of one SynergyFlow analysis (`dnnpar
 * synergy --json`): platform, per-layer characterisation (Eqs. 1, 3-5),
 * workload figures (Eq. 10), the split and its terms (Eq. 9), the design
 * space (Fig. 9) and the simulations.  Field units: docs/synergyflow.md.
 */
#include "arch/synergyflow/sf_api.h"

#include <math.h>

static json_t *platform_json(const sf_platform *p)
{
    return json_pack("{s:i,s:i,s:f,s:f,s:f,s:i,s:i,s:i,s:i}", "cores", p->cores, "tn", p->tn,
                     "bw_gibps", p->bw_bps / SF_GB_BYTES, "bw_bps", p->bw_bps, "freq_hz",
                     p->freq_hz, "dw_bits", 8 * p->dw_bytes, "tr", p->tr, "tc", p->tc, "tnn", p->tnn);
}

static json_t *models_json(const sf_analysis *an)
{
    json_t *models = json_array();
    for (int m = 0; m < an->w.n_models; m++) {
        const sf_model *md = &an->w.models[m];
        json_t *layers = json_array();
        for (int i = 0; i < md->n_layers; i++) {
            const sf_layer *l = &md->layers[i];
            const sf_layer_char *c = &an->lc[m][i];
            json_array_append_new(layers,
                                  json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:i,s:i,s:f,s:f,s:f}", "name",
                                            l->name, "kind", l->kind == SF_CONV ? "conv" : "fc",
                                            "m", (json_int_t)l->m, "n", (json_int_t)l->n, "r",
                                            (json_int_t)l->r, "c", (json_int_t)l->c, "k", l->kh,
                                            "s", l->sh, "ops", c->ops, "mem_bytes", c->mem_bytes,
                                            "ctc_ops_per_byte", c->ctc_ops_per_byte));
        }
        json_array_append_new(models, json_pack("{s:s,s:I,s:o}", "name", md->name, "instances",
                                                (json_int_t)md->instances, "layers", layers));
    }
    return models;
}

json_t *sf_json_real_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *char_json(const sf_workload_char *c)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:o,s:f,s:f,s:i,s:i}", "conv_ops", c->conv_ops, "fc_ops",
                     c->fc_ops, "conv_mem_bytes", c->conv_mem_bytes, "fc_mem_bytes",
                     c->fc_mem_bytes, "r_ctf", sf_json_real_or_null(c->r_ctf), "k_mean", c->k_mean,
                     "s_mean", c->s_mean, "k", c->k, "s", c->s);
}

static json_t *alloc_json(const sf_alloc *a)
{
    return json_pack("{s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:i,s:s,s:s,s:b,s:f,s:f}", "nc", a->nc, "nf",
                     a->nf, "bw_words_per_s", a->bw_words_per_s, "core_words_per_s",
                     a->core_words_per_s, "nc_bw_bound", a->nc_bw_bound, "nc_core_bound",
                     a->nc_core_bound, "nf_bw_bound", a->nf_bw_bound, "nf_core_bound",
                     a->nf_core_bound, "nc_limit", a->nc_limit, "nf_limit", a->nf_limit, "clamped",
                     a->clamped, "c_bw_bps", a->c_bw_bps, "f_bw_bps", a->f_bw_bps);
}

static json_t *dse_json(const sf_dse *d, const sf_alloc *a)
{
    json_t *rows = json_array();
    for (int nc = 0; nc <= d->n; nc++) {
        json_t *row = json_array();
        for (int nf = 0; nf <= d->n - nc; nf++) {
            double g = d->gops[nc * (d->n + 1) + nf];
            json_array_append_new(row, g < 0 ? json_null() : json_real(g));
        }
        json_array_append_new(rows, row);
    }
    double mine = d->gops[a->nc * (d->n + 1) + a->nf];
    return json_pack("{s:i,s:i,s:f,s:f,s:f,s:o}", "best_nc", d->best_nc, "best_nf", d->best_nf,
                     "best_gops", d->best_gops, "analytic_gops", mine, "analytic_over_best",
                     d->best_gops > 0 ? mine / d->best_gops : 0.0, "gops_by_nc_nf", rows);
}

static json_t *result_json(const sf_sim_result *r)
{
    json_t *eng = json_array();
    for (int e = 0; e < r->n_engines; e++) {
        const sf_engine_stats *s = &r->engine[e];
        json_array_append_new(
            eng, json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:I,s:I,s:I}", "cores", s->cores, "busy_s",
                           s->busy_s, "active_s", s->active_s, "ops", s->ops, "load_bytes",
                           s->load_bytes, "store_bytes", s->store_bytes, "compute_blocks",
                           (json_int_t)s->compute_blocks, "memory_blocks",
                           (json_int_t)s->mem_blocks, "tasks", (json_int_t)s->tasks));
    }
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:o,s:[f,f,f],s:I,s:I}", "time_s", r->time_s,
                     "ops", r->ops, "gops", r->gops, "bytes", r->bytes, "pe_util", r->pe_util,
                     "bw_util", r->bw_util, "instances", (json_int_t)r->instances, "engines", eng,
                     "fsm_s", r->fsm_s[0], r->fsm_s[1], r->fsm_s[2], "preemptions",
                     (json_int_t)r->preemptions, "events", (json_int_t)r->events);
}

json_t *sf_run_json(const sf_run_opts *o, const sf_analysis *an)
{
    json_t *root =
        json_pack("{s:s,s:s,s:o,s:o,s:o,s:o}", "workload", o->spec, "canonical", an->w.spec,
                  "platform", platform_json(&o->p), "models", models_json(an), "characterisation",
                  char_json(&an->ch), "allocation", alloc_json(&an->alloc));
    if (o->have_split)
        json_object_set_new(root, "split_given", json_pack("[i,i]", o->nc, o->nf));
    if (an->has_dse)
        json_object_set_new(root, "dse", dse_json(&an->dse, &an->alloc));
    if (an->n_runs > 0) {
        const sf_sim_config *c = &o->sim;
        json_t *sims = json_array();
        for (int i = 0; i < an->n_runs; i++)
            json_array_append_new(sims, json_pack("{s:s,s:i,s:i,s:o}", "arch",
                                                  sf_arch_name(an->runs[i].arch), "nc",
                                                  an->runs[i].nc, "nf", an->runs[i].nf, "result",
                                                  result_json(&an->runs[i].r)));
        json_object_set_new(
            root, "simulation",
            json_pack("{s:s,s:b,s:s,s:i,s:i,s:i,s:I,s:o}", "mode",
                      c->training ? "training" : "inference", "out_of_order", c->ooo, "arbiter",
                      c->round_robin ? "round-robin" : "priority", "epochs", c->epochs,
                      "batch_size", c->batch_size, "max_blocks", c->max_blocks, "sample",
                      (json_int_t)o->sample, "runs", sims));
    }
    return root;
}
