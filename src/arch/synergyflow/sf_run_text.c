/*
 * sf_run_text.c - the text report of one SynergyFlow analysis (`dnnpar
 * synergy`): platform, per-layer characterisation (Eqs. 1, 3-5), workload
 * figures (Eq. 10), the split and its terms (Eqs. 7, 9), the design space
 * map (Fig. 9), instruction blocks (section 5, Table 3) and simulations.
 * The model: docs/synergyflow.md.
 */
#include "arch/synergyflow/sf_api.h"

#include <math.h>
#include <string.h>

static void print_platform(const sf_platform *p, rbuf *tb)
{
    rbuf_printf(tb, "platform: N = %d cores of %dx%d PEs, %g MHz, BW = %g GiB/s, "
           "DW = %d bits, Tr x Tc = %d x %d, Tnn = %d\n",
           p->cores, p->tn, p->tn, p->freq_hz / 1e6, p->bw_bps / SF_GB_BYTES, 8 * p->dw_bytes,
           p->tr, p->tc, p->tnn);
}

/* Column width for names: at least `min`, the longest name, at most `max`. */
static int name_width(const sf_workload *w, int layers, int min, int max)
{
    int wd = min;
    for (int m = 0; m < w->n_models; m++) {
        const sf_model *md = &w->models[m];
        if (!layers && (int)strlen(md->name) > wd)
            wd = (int)strlen(md->name);
        for (int i = 0; layers && i < md->n_layers; i++)
            if ((int)strlen(md->layers[i].name) > wd)
                wd = (int)strlen(md->layers[i].name);
    }
    return wd < max ? wd : max;
}

/* s cut in the middle to at most `width` characters ("~" marks the cut):
 * ONNX names share long prefixes and differ in the middle and the end. */
static const char *fit_name(const char *s, int width, char *buf, size_t n)
{
    int len = (int)strlen(s);
    if (len <= width || width < 5 || (size_t)width >= n)
        return s;
    int head = (width - 1) / 2, tail = width - 1 - head;
    snprintf(buf, n, "%.*s~%s", head, s, s + len - tail);
    return buf;
}

static void print_layers(const sf_analysis *an, rbuf *tb)
{
    /* The other columns take 74 characters (with the indent and the spaces
     * after the names); the names get what keeps a row under 120. */
    int mw = name_width(&an->w, 0, 14, 32), lw = name_width(&an->w, 1, 10, 45 - mw);
    rbuf_printf(tb, "\nper instance (Eqs. 1, 3-5; FF; DRAM traffic under the Fig. 8 tiling, SI "
           "prefixes):\n");
    rbuf_printf(tb, "  %-*s %-*s %-4s %6s %6s %9s %5s %2s %11s %10s %9s\n", mw, "model", lw, "layer",
           "kind", "M", "N", "R x C", "K", "S", "ops", "DRAM", "CTC op/B");
    for (int m = 0; m < an->w.n_models; m++) {
        const sf_model *md = &an->w.models[m];
        for (int i = 0; i < md->n_layers; i++) {
            const sf_layer *l = &md->layers[i];
            const sf_layer_char *c = &an->lc[m][i];
            char rc[24], ops[16], mem[16], mb[64], lb[64];
            snprintf(rc, sizeof rc, "%lldx%lld", (long long)l->r, (long long)l->c);
            dnp_fmt_si(c->ops, ops, sizeof ops);
            dnp_fmt_si(c->mem_bytes, mem, sizeof mem);
            rbuf_printf(tb, "  %-*s %-*s %-4s %6lld %6lld %9s %5d %2d %11s %9sB %9.2f\n", mw,
                   i == 0 ? fit_name(md->name, mw, mb, sizeof mb) : "", lw,
                   fit_name(l->name, lw, lb, sizeof lb), l->kind == SF_CONV ? "conv" : "fc",
                   (long long)l->m, (long long)l->n, l->kind == SF_CONV ? rc : "-", l->kh, l->sh,
                   ops, mem, c->ctc_ops_per_byte);
        }
    }
}

static void print_char_alloc(const sf_analysis *an, const sf_platform *p, rbuf *tb)
{
    const sf_workload_char *c = &an->ch;
    const sf_alloc *a = &an->alloc;
    char cop[16], fop[16], cmem[16], fmem[16];
    dnp_fmt_si(c->conv_ops, cop, sizeof cop);
    dnp_fmt_si(c->fc_ops, fop, sizeof fop);
    dnp_fmt_si(c->conv_mem_bytes, cmem, sizeof cmem);
    dnp_fmt_si(c->fc_mem_bytes, fmem, sizeof fmem);
    rbuf_printf(tb, "\nworkload (all instances): CONV %sop, %sB DRAM; FC %sop, %sB DRAM\n", cop, cmem, fop,
           fmem);
    if (isinf(c->r_ctf))
        rbuf_printf(tb, "  R_ctf = inf (no FC work, Eq. 10)");
    else
        rbuf_printf(tb, "  R_ctf = C_op / F_op = %.4f (Eq. 10)", c->r_ctf);
    rbuf_printf(tb, "; K = %.3f -> %d, S = %.3f -> %d (CONV-op-weighted means, rounded)\n", c->k_mean, c->k,
           c->s_mean, c->s);
    rbuf_printf(tb, "\nallocation (Eq. 9 from the constraints of Eq. 8, floors):\n");
    rbuf_printf(tb, "  BW/DW = %.4g words/s; one core draws freq Tn^2 = %.4g words/s on FC (Eq. 7)\n",
           a->bw_words_per_s, a->core_words_per_s);
    rbuf_printf(tb, "  a C-Engine core draws %.5f of that: S^2/(Tn K^2) + 1/(Tr Tc) (Eq. 7)\n",
           a->c_words_per_core_cycle);
    if (strcmp(a->nc_limit, "no CONV work") == 0)
        rbuf_printf(tb, "  N_c = 0 (no CONV work)\n");
    else
        rbuf_printf(tb, "  N_c = min(floor(%.3f), floor(%.3f)) = %d  (%s bound)\n", a->nc_bw_bound,
               a->nc_core_bound, a->nc, a->nc_limit);
    if (strcmp(a->nf_limit, "no FC work") == 0)
        rbuf_printf(tb, "  N_f = 0 (no FC work)\n");
    else
        rbuf_printf(tb, "  N_f = min(floor(%.3f), %d) = %d  (%s bound)\n", a->nf_bw_bound, a->nf_core_bound,
               a->nf, a->nf_limit);
    if (a->clamped)
        rbuf_printf(tb, "  (adjusted after Eq. 9: an engine with work needs a core, and N_c + N_f <= N)\n");
    rbuf_printf(tb, "  demand at the split (Eq. 7): C-Engine %.2f + F-Engine %.2f = %.2f of %.2f GiB/s\n",
           a->c_bw_bps / SF_GB_BYTES, a->f_bw_bps / SF_GB_BYTES,
           (a->c_bw_bps + a->f_bw_bps) / SF_GB_BYTES, p->bw_bps / SF_GB_BYTES);
    rbuf_printf(tb, "SynergyFlow split: (N_c, N_f) = (%d, %d)\n", a->nc, a->nf);
}

/* One character per split: the estimate against the best. */
static char dse_mark(double g, double best)
{
    if (g < 0)
        return ' ';
    double f = g / best;
    return f >= 0.98 ? '#' : f >= 0.95 ? '+' : f >= 0.90 ? '=' : f >= 0.75 ? '-' : '.';
}

static void print_dse(const sf_dse *d, const sf_alloc *a, rbuf *tb)
{
    int n = d->n, step = (n + 64) / 65; /* at most 65 columns */
    double mine = d->gops[a->nc * (n + 1) + a->nf];
    rbuf_printf(tb, "\ndesign space (Fig. 9; steady-state estimate, GOPS = 1e9 op/s):\n");
    rbuf_printf(tb, "  best (%d, %d) %.2f GOPS; analytical (%d, %d) %.2f GOPS = %.1f%% of best\n",
           d->best_nc, d->best_nf, d->best_gops, a->nc, a->nf, mine,
           d->best_gops > 0 ? 100.0 * mine / d->best_gops : 0.0);
    rbuf_printf(tb, "  rows N_f, columns N_c%s; '@' analytical, '#' >= 98%%, '+' >= 95%%, '=' >= 90%%, "
           "'-' >= 75%%, '.' less, ' ' infeasible\n",
           step > 1 ? " (sampled)" : "");
    for (int nf = n; nf >= 0; nf -= step) {
        rbuf_printf(tb, "  %4d |", nf);
        for (int nc = 0; nc <= n; nc += step) {
            int here = a->nc >= nc && a->nc < nc + step && a->nf <= nf && a->nf > nf - step;
            rbuf_printf(tb, "%c", here ? '@' : dse_mark(d->gops[nc * (n + 1) + nf], d->best_gops));
        }
        rbuf_printf(tb, "%c", '\n');
    }
    rbuf_printf(tb, "       +");
    for (int nc = 0; nc <= n; nc += step)
        rbuf_printf(tb, "%c", nc % (10 * step) == 0 ? '|' : '-');
    rbuf_printf(tb, "\n        N_c from 0 at the left, '|' every %d\n", 10 * step);
}

static void print_sims(const sf_run_opts *o, const sf_analysis *an, rbuf *tb)
{
    const sf_sim_config *c = &o->sim;
    rbuf_printf(tb, "\nsimulation: %s, %s, %s arbitration, %s", c->training ? "training" : "inference",
           c->ooo ? "out of order" : "in order",
           c->round_robin ? "round-robin" : "C-Engine priority (Fig. 12)",
           c->max_blocks ? "merged blocks" : "one block per engine step");
    if (c->training)
        rbuf_printf(tb, ", %d epoch(s), batch %d", c->epochs, c->batch_size);
    if (c->max_blocks)
        rbuf_printf(tb, " (at most %d per layer)", c->max_blocks);
    if (o->sample > 1)
        rbuf_printf(tb, ";\n  estimated from samples of 1/%lld and 2/%lld of the counts", o->sample,
                    o->sample);
    rbuf_printf(tb, "\n  %-6s %4s %4s %12s %8s %7s %7s %8s %8s %9s\n", "arch", "N_c", "N_f", "time", "GOPS",
           "PE", "BW", "C busy", "F busy", "preempt");
    for (int i = 0; i < an->n_runs; i++) {
        const sf_run_sim *s = &an->runs[i];
        const sf_sim_result *r = &s->r;
        char t[32], nc[8] = "-", nf[8] = "-";
        dnp_fmt_time(r->time_s, t, sizeof t);
        if (s->arch != SF_ARCH_MONO) {
            snprintf(nc, sizeof nc, "%d", s->nc);
            snprintf(nf, sizeof nf, "%d", s->nf);
        }
        double cb = r->time_s > 0 ? r->engine[0].busy_s / r->time_s : 0.0;
        double fb = r->n_engines > 1 && r->time_s > 0 ? r->engine[1].busy_s / r->time_s : 0.0;
        rbuf_printf(tb, "  %-6s %4s %4s %12s %8.2f %6.1f%% %6.1f%% %7.1f%% ", sf_arch_name(s->arch), nc, nf,
               t, r->gops, 100 * r->pe_util, 100 * r->bw_util, 100 * cb);
        if (r->n_engines > 1)
            rbuf_printf(tb, "%7.1f%% %9lld\n", 100 * fb, (long long)r->preemptions);
        else
            rbuf_printf(tb, "%8s %9s\n", "-", "-");
    }
    const sf_sim_result *r = &an->runs[an->n_runs - 1].r;
    rbuf_printf(tb, "  %s: %lld instances, %lld events;\n  DRAM idle / C-Engine / F-Engine %.1f%% / %.1f%% / "
           "%.1f%% of the time (FSM S0 / S1 / S2)\n",
           sf_arch_name(an->runs[an->n_runs - 1].arch), (long long)r->instances,
           (long long)r->events, 100 * r->fsm_s[0] / r->time_s, 100 * r->fsm_s[1] / r->time_s,
           100 * r->fsm_s[2] / r->time_s);
    if (o->trace != NULL) {
        if (an->trace_dropped > 0)
            rbuf_printf(tb, "  trace: %s (first %lld spans; %lld more not written: raise "
                   "--trace-max-spans)\n",
                   o->trace, o->trace_max_spans, (long long)an->trace_dropped);
        else
            rbuf_printf(tb, "  trace: %s\n", o->trace);
    }
}

/* The engine a layer runs on at the split in use, and its core count. */
static int layer_cores(const sf_run_opts *o, const sf_analysis *an, const sf_layer *l)
{
    int nc = o->have_split ? o->nc : an->alloc.nc, nf = o->have_split ? o->nf : an->alloc.nf;
    return l->kind == SF_CONV ? nc : nf;
}

static void print_blocks(const sf_run_opts *o, const sf_analysis *an, rbuf *tb)
{
    rbuf_printf(tb, "\ninstruction blocks (section 5; FF at the split; memory instructions as in Table "
           "3:\n  mode, external and local-store address, length, stride, repetition, in words):\n");
    rbuf_printf(tb, "    %-2s %10s %6s %6s %8s %6s\n", "", "external", "LS", "length", "stride", "rep.");
    for (int m = 0; m < an->w.n_models; m++) {
        const sf_model *md = &an->w.models[m];
        for (int i = 0; i < md->n_layers; i++) {
            const sf_layer *l = &md->layers[i];
            sf_phase ph = l->kind == SF_CONV ? SF_FF_C : SF_FF_F;
            int cores = layer_cores(o, an, l);
            int64_t n = sf_layer_n_sublayers(l, ph, &o->p), cycles = -1;
            sf_sublayer_run *runs = NULL;
            int n_runs = 0;
            dnp_error err = {0};
            if (cores > 0 && sf_layer_sublayers(l, ph, &o->p, &runs, &n_runs, &err) == DNP_OK)
                cycles = sf_runs_cycles(runs, n_runs, cores, l->kind == SF_FC);
            dnp_free(runs);
            rbuf_printf(tb, "  %s %s: %lld sublayers", md->name, l->name, (long long)n);
            if (cycles >= 0)
                rbuf_printf(tb, ", %lld cycles on %d %s-Engine cores", (long long)cycles, cores,
                       l->kind == SF_CONV ? "C" : "F");
            rbuf_printf(tb, "; sublayer 0:\n");
            sf_mem_instr in[64];
            int k = sf_sublayer_instrs(l, ph, &o->p, 0, in, 64);
            for (int j = 0; j < k && j < 64; j++)
                rbuf_printf(tb, "    %s %10lld %6lld %6lld %8lld %6lld\n", in[j].mode,
                       (long long)in[j].mem_addr, (long long)in[j].ls_addr, (long long)in[j].length,
                       (long long)in[j].stride, (long long)in[j].repetition);
        }
    }
}

void sf_run_text(const sf_run_opts *o, const sf_analysis *an, rbuf *tb)
{
    rbuf_printf(tb, "workload %s = %s\n", o->spec, an->w.spec);
    print_platform(&o->p, tb);
    print_layers(an, tb);
    print_char_alloc(an, &o->p, tb);
    if (o->have_split)
        rbuf_printf(tb, "split given by hand: (N_c, N_f) = (%d, %d)\n", o->nc, o->nf);
    if (an->has_dse)
        print_dse(&an->dse, &an->alloc, tb);
    if (o->blocks)
        print_blocks(o, an, tb);
    if (an->n_runs > 0)
        print_sims(o, an, tb);
}
