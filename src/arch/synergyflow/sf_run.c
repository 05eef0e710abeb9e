/*
 * sf_run.c - one SynergyFlow analysis behind the public API (dnnpar.h,
 * "SynergyFlow accelerator"): the workload characterised (Eqs. 1, 3-5, 10),
 * the cores split (Eq. 9), the design space (Fig. 9) and the simulations
 * `dnnpar synergy` asks for, with the Chrome trace.  The model:
 * docs/synergyflow.md.
 */
#include "arch/synergyflow/sf_api.h"

#include <errno.h>
#include <string.h>

/* The public architecture enum is the model's. */
_Static_assert((int)DNP_SYNERGY_SF == (int)SF_ARCH_SF && (int)DNP_SYNERGY_MONO == (int)SF_ARCH_MONO &&
                   (int)DNP_SYNERGY_ATA1 == (int)SF_ARCH_ATA1 &&
                   (int)DNP_SYNERGY_ATA5 == (int)SF_ARCH_ATA5 &&
                   (int)DNP_SYNERGY_SPLIT == (int)SF_ARCH_SPLIT &&
                   (int)DNP_SYNERGY_ARCH_COUNT == (int)SF_N_ARCHS,
               "dnp_synergy_arch mirrors sf_arch");

const char *dnp_synergy_arch_name(dnp_synergy_arch a) { return sf_arch_name((sf_arch)a); }

int dnp_synergy_arch_from_name(const char *s) { return sf_arch_from_name(s); }

static void platform_to_sf(const dnp_synergy_platform *in, sf_platform *p)
{
    p->cores = in->cores;
    p->tn = in->tn;
    p->bw_bps = in->bw_bps;
    p->freq_hz = in->freq_hz;
    p->dw_bytes = in->dw_bytes;
    p->tr = in->tr;
    p->tc = in->tc;
    p->tnn = in->tnn;
}

void dnp_synergy_options_default(dnp_synergy_options *o)
{
    memset(o, 0, sizeof *o);
    sf_platform p;
    sf_platform_p395ab(&p);
    o->platform = (dnp_synergy_platform){p.cores, p.tn, p.bw_bps, p.freq_hz,
                                         p.dw_bytes, p.tr, p.tc, p.tnn};
    o->arch = -1;
    sf_sim_config c;
    sf_sim_config_default(&c);
    o->in_order = !c.ooo;
    o->round_robin = c.round_robin;
    o->epochs = c.epochs;
    o->batch_size = c.batch_size;
    o->max_blocks = c.max_blocks;
    o->sample = 1;
    o->trace_max_spans = 2000000; /* about 200 MB of trace */
}

dnp_status dnp_synergy_platform_check(const dnp_synergy_platform *p, dnp_error *err)
{
    sf_platform sp;
    platform_to_sf(p, &sp);
    return sf_platform_check(&sp, err);
}

/* The options in the model's types, checked.  Strings are copied. */
static dnp_status opts_from_public(const dnp_synergy_options *in, sf_run_opts *o, dnp_error *err)
{
    if (in->workload == NULL) {
        dnp_error_set(err, DNP_ERR_INPUT, "no workload given");
        return DNP_ERR_INPUT;
    }
    platform_to_sf(&in->platform, &o->p);
    dnp_status st = sf_platform_check(&o->p, err);
    if (st != DNP_OK)
        return st;
    if (in->have_split && (in->nc < 0 || in->nf < 0 || in->nc > o->p.cores - in->nf ||
                           in->nc + in->nf == 0)) {
        dnp_error_set(err, DNP_ERR_INPUT, "split (%d, %d) must have 1 to %d cores in all",
                      in->nc, in->nf, o->p.cores);
        return DNP_ERR_INPUT;
    }
    if (in->arch < -1 || in->arch >= SF_N_ARCHS) {
        dnp_error_set(err, DNP_ERR_INPUT, "unknown architecture %d", in->arch);
        return DNP_ERR_INPUT;
    }
    if (in->sample < 1 || in->trace_max_spans < 1 || in->epochs < 1 || in->batch_size < 1 ||
        in->max_blocks < 0) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "sample, trace_max_spans, epochs and batch_size must be positive and "
                      "max_blocks not negative");
        return DNP_ERR_INPUT;
    }
    if (in->trace_path != NULL && (in->compare || in->sample > 1)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "a trace records one whole simulation: no compare, sample 1");
        return DNP_ERR_INPUT;
    }
    o->have_split = in->have_split;
    o->nc = in->nc;
    o->nf = in->nf;
    o->arch = in->arch;
    o->dse = in->dse;
    o->blocks = in->blocks;
    o->compare = in->compare;
    o->simulate = in->simulate || in->compare || in->trace_path != NULL;
    sf_sim_config_default(&o->sim);
    o->sim.training = in->training;
    o->sim.ooo = !in->in_order;
    o->sim.round_robin = in->round_robin;
    o->sim.epochs = in->epochs;
    o->sim.batch_size = in->batch_size;
    o->sim.max_blocks = in->max_blocks;
    o->sample = in->sample;
    o->trace_max_spans = in->trace_max_spans;
    o->load.skip_unknown = in->skip_unknown;
    o->spec = dnp_strdup(in->workload);
    o->trace = in->trace_path ? dnp_strdup(in->trace_path) : NULL;
    if (o->spec == NULL || (in->trace_path != NULL && o->trace == NULL)) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory");
        return DNP_ERR_NOMEM;
    }
    return DNP_OK;
}

void dnp_synergy_run_free(dnp_synergy_run *r)
{
    if (r == NULL)
        return;
    for (int i = 0; i < SF_MAX_MODELS; i++)
        dnp_free(r->an.lc[i]);
    sf_dse_free(&r->an.dse);
    sf_workload_free(&r->an.w);
    dnp_free(r->o.spec);
    dnp_free(r->o.trace);
    dnp_free(r);
}

/* The split an architecture runs with. */
static void arch_split(const sf_run_opts *o, const sf_analysis *an, sf_arch arch,
                       sf_sim_config *c)
{
    c->mono = arch == SF_ARCH_MONO;
    c->nc = c->nf = 0;
    if (arch == SF_ARCH_SF || arch == SF_ARCH_SPLIT) {
        c->nc = o->have_split ? o->nc : an->alloc.nc;
        c->nf = o->have_split ? o->nf : an->alloc.nf;
    } else if (!c->mono) {
        sf_arch_ata_split(arch, &c->nc, &c->nf);
    }
}

/* Simulate one architecture, with the trace if asked. */
static dnp_status simulate_one(const sf_run_opts *o, sf_analysis *an, sf_arch arch,
                               dnp_error *err)
{
    sf_run_sim *run = &an->runs[an->n_runs];
    sf_sim_config c = o->sim;
    arch_split(o, an, arch, &c);
    run->arch = arch;
    run->nc = c.mono ? 0 : c.nc;
    run->nf = c.mono ? 0 : c.nf;
    dnp_output *out = NULL;
    sf_trace *tr = NULL;
    if (o->trace != NULL) {
        dnp_status ost = dnp_output_open(o->trace, &out, err);
        if (ost != DNP_OK)
            return ost;
        tr = sf_trace_new(dnp_output_stream(out), &an->w, c.mono, o->trace_max_spans);
        if (tr == NULL) {
            dnp_output_abort(out);
            dnp_error_set(err, DNP_ERR_NOMEM, "out of memory opening the trace");
            return DNP_ERR_NOMEM;
        }
        c.sink = sf_trace_sink(tr);
    }
    dnp_error e = {0};
    dnp_status st = sf_estimate(&an->w, o->sample, &o->p, &c, &run->r, &e);
    if (st != DNP_OK)
        dnp_error_set(err, st, "simulating %s: %s", sf_arch_name(arch), e.msg);
    if (tr != NULL) {
        if (sf_trace_finish(tr) != 0)
            dnp_output_fail(out, errno);
        an->trace_dropped = sf_trace_dropped(tr);
        sf_trace_free(tr);
        if (st != DNP_OK)
            dnp_output_abort(out);
        else
            st = dnp_output_close(out, err);
    }
    if (st == DNP_OK)
        an->n_runs++;
    return st;
}

static dnp_status analyse(const sf_run_opts *o, sf_analysis *an, dnp_error *err)
{
    dnp_status st = sf_workload_parse_opts(o->spec, &o->load, &an->w, err);
    if (st == DNP_OK)
        st = sf_characterise(&an->w, &o->p, &an->ch, err);
    for (int m = 0; st == DNP_OK && m < an->w.n_models; m++) {
        an->lc[m] = dnp_calloc((size_t)an->w.models[m].n_layers, sizeof *an->lc[m]);
        if (an->lc[m] == NULL) {
            dnp_error_set(err, DNP_ERR_NOMEM, "out of memory");
            st = DNP_ERR_NOMEM;
        } else {
            st = sf_characterise_model(&an->w.models[m], &o->p, an->lc[m], err);
        }
    }
    if (st != DNP_OK)
        return st;
    sf_allocate(&o->p, an->ch.r_ctf, an->ch.k, an->ch.s, &an->alloc);
    if (o->dse) {
        if ((st = sf_dse_run(&an->w, &o->p, &an->dse, err)) != DNP_OK)
            return st;
        an->has_dse = 1;
    }
    if (!o->simulate)
        return DNP_OK;
    if (o->compare) {
        for (int a = SF_ARCH_MONO; a <= SF_ARCH_ATA5; a++) {
            if (a != SF_ARCH_MONO && o->p.cores != 64)
                continue; /* the ATA splits are defined for 64 cores (section 6.1) */
            if ((st = simulate_one(o, an, (sf_arch)a, err)) != DNP_OK)
                return st;
        }
    }
    sf_arch mine = o->arch >= 0 ? (sf_arch)o->arch : (o->have_split ? SF_ARCH_SPLIT : SF_ARCH_SF);
    return simulate_one(o, an, mine, err);
}

dnp_status dnp_synergy_analyse(const dnp_synergy_options *o, dnp_synergy_run **out,
                               dnp_error *err)
{
    dnp_synergy_run *r = dnp_calloc(1, sizeof *r);
    if (r == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory");
        return DNP_ERR_NOMEM;
    }
    dnp_status st = opts_from_public(o, &r->o, err);
    if (st == DNP_OK)
        st = analyse(&r->o, &r->an, err);
    if (st != DNP_OK) {
        dnp_synergy_run_free(r);
        return st;
    }
    *out = r;
    return DNP_OK;
}

void dnp_synergy_get_summary(const dnp_synergy_run *r, dnp_synergy_summary *out)
{
    memset(out, 0, sizeof *out);
    out->conv_ops = r->an.ch.conv_ops;
    out->fc_ops = r->an.ch.fc_ops;
    out->r_ctf = r->an.ch.r_ctf;
    out->k = r->an.ch.k;
    out->s = r->an.ch.s;
    out->nc = r->an.alloc.nc;
    out->nf = r->an.alloc.nf;
    out->dse_best_nc = r->an.has_dse ? r->an.dse.best_nc : -1;
    out->dse_best_nf = r->an.has_dse ? r->an.dse.best_nf : -1;
    out->dse_best_gops = r->an.has_dse ? r->an.dse.best_gops : 0.0;
    out->n_sims = r->an.n_runs;
}

dnp_status dnp_synergy_sim_at(const dnp_synergy_run *r, int i, dnp_synergy_sim *out,
                              dnp_error *err)
{
    if (i < 0 || i >= r->an.n_runs) {
        dnp_error_set(err, DNP_ERR_INPUT, "simulation %d out of range (%d run)", i,
                      r->an.n_runs);
        return DNP_ERR_INPUT;
    }
    const sf_run_sim *s = &r->an.runs[i];
    out->arch = (dnp_synergy_arch)s->arch;
    out->nc = s->nc;
    out->nf = s->nf;
    out->time_s = s->r.time_s;
    out->ops = s->r.ops;
    out->gops = s->r.gops;
    out->bytes = s->r.bytes;
    out->pe_util = s->r.pe_util;
    out->bw_util = s->r.bw_util;
    out->instances = s->r.instances;
    out->events = s->r.events;
    out->preemptions = s->r.preemptions;
    return DNP_OK;
}

dnp_status dnp_synergy_text(const dnp_synergy_run *r, char **out, dnp_error *err)
{
    rbuf b;
    rbuf_init(&b);
    sf_run_text(&r->o, &r->an, &b);
    char *text = rbuf_take(&b);
    if (text == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the report");
        return DNP_ERR_NOMEM;
    }
    *out = text;
    return DNP_OK;
}

dnp_status dnp_synergy_json(const dnp_synergy_run *r, char **out, dnp_error *err)
{
    return dnp_json_report_text(sf_run_json(&r->o, &r->an), out, err);
}
