/*
 * sf_repro.c - the paper's evaluation (section 6) on our model: Table 6
 * with what the paper reports, the steady-state estimate that scales a
 * simulated sample to the Table 6 counts, and the experiments behind
 * Figs. 9, 13(a), 13(b), 14 (energy, relative), 15, 16, 17 and Tables 7, 8.
 */
#include "arch/synergyflow/synergyflow.h"

#include <math.h>
#include <string.h>

/*
 * Table 6 (workloads, R_ctf, K, split), the numbers the text quotes for
 * Fig. 13(a) (section 6.2.1) and Fig. 16 (section 6.2.4), and Table 7
 * (SynergyFlow's and the GPU's times and GOPS).
 * Sample units: inference divides the counts by unit_inference (one VGG11
 * or AlexNet instance per unit); training runs 10 epochs as 10x the
 * counts divided by unit_training: one batch of 50 for the single models
 * (batches end in a barrier, so that is exact), the inference unit for the
 * mixes (their batch barriers fall once per 50 instances of the rarer
 * model and are left out; docs/synergyflow.md).
 */
static const sf_table6_row table6[] = {
    {"AlexNet", "alexnet-2012:100", 5.68, 5, 54, 10, 100, 20, 67.41, 63.5, 0.39, 188.52, 12.22,
     179.09, 144.20, 123.14, 0.51, 17.77},
    {"VGG11", "vgg11:100", 60.08, 3, 62, 2, 100, 20, 7.02, NAN, 7.22, 194.70, 233.03, 181.07,
     337.51, 297.44, 4.17, 141.86},
    {"DBN-M", "dbn-m:10000", 0.0, 0, 0, 11, 500, 2000, NAN, NAN, 0.91, 33.94, 28.21, 32.92, 31.00,
     26.00, 1.00, 35.72},
    {"Batch1", "vgg11:100+alexnet-2012:2000", 10.87, 4, 58, 6, 100, 1000, NAN, NAN, 14.93, 191.96,
     481.46, 178.52, 200.61, 172.87, 14.28, 497.19},
    {"Batch2", "alexnet-2012:100+dbn-m:5000", 2.35, 5, 26, 11, 100, 1000, 33.50, NAN, 0.83, 106.93,
     26.67, 99.45, 87.96, 74.44, 1.01, 35.63},
    {"Batch3", "vgg11:100+dbn-m:20000", 16.29, 3, 60, 4, 100, 1000, NAN, NAN, 7.46, 196.72, 240.80,
     182.95, 238.21, 206.53, 6.16, 213.30},
};

int sf_table6_count(void) { return (int)(sizeof table6 / sizeof table6[0]); }

const sf_table6_row *sf_table6_at(int i)
{
    return (i >= 0 && i < sf_table6_count()) ? &table6[i] : NULL;
}

/* Fig. 15's sweep, GB/s: from a tenth of the FPGA's 34.2 to 204.8, where
 * 64 cores' FC layers stop being memory bound (64 x 16 words x 2 B x
 * 100 MHz), with the 140 the text quotes. */
static const double sweep_gbps[SF_REPRO_N_BW] = {3.42, 6.84,  17.1,  34.2, 51.3,
                                                 68.4, 102.6, 140.0, 204.8};

dnp_status sf_estimate(const sf_workload *w, int64_t k, const sf_platform *p,
                       const sf_sim_config *c, sf_sim_result *out, dnp_error *err)
{
    if (k == 1)
        return sf_simulate(w, p, c, out, err);
    sf_workload w1, w2;
    memset(&w1, 0, sizeof w1);
    memset(&w2, 0, sizeof w2);
    sf_sim_result r1, r2;
    memset(&r1, 0, sizeof r1);
    memset(&r2, 0, sizeof r2);
    dnp_status st = sf_workload_rescale(w, k, 1, &w1, err);
    if (st == DNP_OK)
        st = sf_workload_rescale(w, k, 2, &w2, err);
    if (st == DNP_OK)
        st = sf_simulate(&w1, p, c, &r1, err);
    /* One model trained in whole batches: every batch ends at a barrier
     * with both engines drained, so the unit repeats exactly and the
     * second simulation would only double the first. */
    int periodic =
        c->training && w->n_models == 1 && w1.models[0].instances * c->epochs % c->batch_size == 0;
    if (st == DNP_OK && periodic) {
        r2 = r1;
        r2.time_s = 2 * r1.time_s;
        for (int e = 0; e < r1.n_engines; e++) {
            r2.engine[e].busy_s = 2 * r1.engine[e].busy_s;
            r2.engine[e].active_s = 2 * r1.engine[e].active_s;
        }
        r2.fsm_s[1] = 2 * r1.fsm_s[1];
        r2.fsm_s[2] = 2 * r1.fsm_s[2];
        r2.preemptions = 2 * r1.preemptions;
        r2.events = 0;
    } else if (st == DNP_OK) {
        st = sf_simulate(&w2, p, c, &r2, err);
    }
    sf_workload_free(&w1);
    sf_workload_free(&w2);
    if (st != DNP_OK)
        return st;
    /* The steady state cannot beat the unit's own demand on any resource:
     * each engine's active time (computing, or waiting for the channel
     * that the other engine holds) and the channel's bytes / BW.  A unit
     * short next to the pipeline's warm-up makes T2 - T1 too small: with
     * one VGG11 per unit, Batch3's F-Engine ends each run early, while in
     * the full run its backlog grows by 6 ms per unit. */
    double per_unit = r2.time_s - r1.time_s, floor_s = r1.bytes / p->bw_bps;
    for (int e = 0; e < r1.n_engines; e++)
        if (r1.engine[e].active_s > floor_s)
            floor_s = r1.engine[e].active_s;
    if (per_unit < floor_s)
        per_unit = floor_s;
    /* Additive statistics continue the same way: x1 + (k - 1)(x2 - x1). */
    double km = (double)(k - 1);
    sf_sim_result r = r2;
    r.time_s = r1.time_s + km * per_unit;
    r.ops = r1.ops * (double)k;
    r.bytes = r1.bytes * (double)k;
    r.instances = r1.instances * k;
    r.gops = r.ops / r.time_s / SF_GOPS;
    r.pe_util = r.ops / (sf_peak_ops_per_s(p, p->cores) * r.time_s);
    r.bw_util = r.bytes / (p->bw_bps * r.time_s);
    for (int e = 0; e < r.n_engines; e++) {
        const sf_engine_stats *a = &r1.engine[e], *b = &r2.engine[e];
        sf_engine_stats *o = &r.engine[e];
        o->busy_s = a->busy_s + km * (b->busy_s - a->busy_s);
        o->active_s = a->active_s + km * (b->active_s - a->active_s);
        o->ops = a->ops * (double)k;
        o->load_bytes = a->load_bytes * (double)k;
        o->store_bytes = a->store_bytes * (double)k;
        o->compute_blocks = a->compute_blocks * k;
        o->mem_blocks = a->mem_blocks * k;
        o->tasks = a->tasks * k;
    }
    r.fsm_s[1] = r1.fsm_s[1] + km * (r2.fsm_s[1] - r1.fsm_s[1]);
    r.fsm_s[2] = r1.fsm_s[2] + km * (r2.fsm_s[2] - r1.fsm_s[2]);
    r.fsm_s[0] = r.time_s - r.fsm_s[1] - r.fsm_s[2];
    if (r.fsm_s[0] < 0)
        r.fsm_s[0] = 0;
    r.preemptions = r1.preemptions + (int64_t)(k - 1) * (r2.preemptions - r1.preemptions);
    r.events = r1.events + r2.events;
    *out = r;
    return DNP_OK;
}

double sf_knee_gbps(const double *bw_gbps, const double *gops, int n, double frac)
{
    double best = 0.0;
    for (int i = 0; i < n; i++)
        if (gops[i] > best)
            best = gops[i];
    for (int i = 0; i < n; i++)
        if (gops[i] >= frac * best)
            return bw_gbps[i];
    return n > 0 ? bw_gbps[n - 1] : 0.0;
}

/* Simulate architecture `arch` (SF uses `a`) and return GOPS. */
static dnp_status run_arch_blocks(const sf_workload *w, int64_t k, const sf_platform *p,
                                  sf_arch arch, const sf_alloc *a, int training, int ooo, int rr,
                                  int max_blocks, sf_sim_result *r, dnp_error *err)
{
    sf_sim_config c;
    sf_sim_config_default(&c);
    c.max_blocks = max_blocks;
    c.training = training;
    c.ooo = ooo;
    c.round_robin = rr;
    if (arch == SF_ARCH_MONO)
        c.mono = 1;
    else if (arch == SF_ARCH_SF)
        c.nc = a->nc, c.nf = a->nf;
    else
        sf_arch_ata_split(arch, &c.nc, &c.nf);
    return sf_estimate(w, k, p, &c, r, err);
}

/* The reproduction's runs: layers merged into SF_REPRO_MAX_BLOCKS blocks. */
static dnp_status run_arch(const sf_workload *w, int64_t k, const sf_platform *p, sf_arch arch,
                           const sf_alloc *a, int training, int ooo, int rr, sf_sim_result *r,
                           dnp_error *err)
{
    return run_arch_blocks(w, k, p, arch, a, training, ooo, rr, SF_REPRO_MAX_BLOCKS, r, err);
}

/* A copy of w keeping only the layers of `kind` (layer = -1) or only layer
 * `layer` of every model (a model left without layers is dropped).
 * *out owns its arrays.  O(layers). */
static dnp_status workload_subset(const sf_workload *w, int kind, int layer, sf_workload *out,
                                  dnp_error *err)
{
    sf_workload c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < w->n_models; i++) {
        const sf_model *m = &w->models[i];
        sf_layer *keep = dnp_malloc((size_t)m->n_layers * sizeof *keep);
        if (keep == NULL) {
            dnp_error_set(err, DNP_ERR_NOMEM, "out of memory copying a workload");
            sf_workload_free(&c);
            return DNP_ERR_NOMEM;
        }
        int n = 0;
        for (int l = 0; l < m->n_layers; l++)
            if (layer >= 0 ? l == layer : (int)m->layers[l].kind == kind)
                keep[n++] = m->layers[l];
        if (n == 0) {
            dnp_free(keep);
            continue;
        }
        sf_model *o = &c.models[c.n_models++];
        *o = *m;
        o->n_layers = n;
        o->layers = keep;
    }
    snprintf(c.spec, sizeof c.spec, "%s", w->spec);
    *out = c;
    return DNP_OK;
}

double sf_degradation_ratio(double conv_only_gops, double nn_gops)
{
    return 1.0 - nn_gops / conv_only_gops;
}

double sf_energy_relative(double time_s, double bytes, double ops, double ref_time_s,
                          double ref_bytes, double ref_ops, double time_share, double dram_share)
{
    /* E / E_ref with E = P_t T + e_B bytes + e_op ops and the reference's
     * shares time_share = P_t T_ref / E_ref, dram_share = e_B bytes_ref /
     * E_ref: each term scales with its own quantity. */
    return time_share * time_s / ref_time_s + dram_share * bytes / ref_bytes +
           (1.0 - time_share - dram_share) * ops / ref_ops;
}

/* Fig. 13(b): every layer of the first model of w alone, on MonoArch and
 * on the engine of split a.  O(simulations of the layers). */
static dnp_status fig13b_layers(const sf_workload *w, int64_t k, const sf_platform *p,
                                const sf_alloc *a, sf_repro *res, dnp_error *err)
{
    const sf_model *m = &w->models[0];
    res->n_fig13b = 0;
    for (int l = 0; l < m->n_layers && l < SF_REPRO_MAX_LAYERS; l++) {
        sf_workload one;
        dnp_status st = workload_subset(w, -1, l, &one, err);
        if (st != DNP_OK)
            return st;
        sf_repro_layer *o = &res->fig13b[res->n_fig13b++];
        memset(o, 0, sizeof *o);
        snprintf(o->name, sizeof o->name, "%s", m->layers[l].name);
        o->kind = m->layers[l].kind;
        o->ops = 2.0 * (double)m->layers[l].macs; /* Eqs. 3, 5 */
        o->sf_cores = o->kind == SF_CONV ? a->nc : a->nf;
        sf_sim_result r;
        st = run_arch(&one, k, p, SF_ARCH_MONO, a, 0, 1, 0, &r, err);
        if (st == DNP_OK) {
            o->mono_gops = r.gops;
            o->mono_pe_util = r.pe_util;
            o->mono_bw_util = r.bw_util;
            st = run_arch(&one, k, p, SF_ARCH_SF, a, 0, 1, 0, &r, err);
        }
        sf_workload_free(&one);
        if (st != DNP_OK)
            return st;
        o->sf_gops = r.gops;
        /* r.pe_util is over all N cores; the engine has sf_cores of them. */
        o->sf_pe_util = r.pe_util * p->cores / o->sf_cores;
        o->sf_bw_util = r.bw_util;
    }
    return DNP_OK;
}

static dnp_status repro_row(const sf_table6_row *t, const sf_platform *p0, sf_repro_row *row,
                            dnp_error *err)
{
    sf_workload w, w10;
    memset(&w10, 0, sizeof w10);
    sf_dse dse;
    memset(&dse, 0, sizeof dse);
    sf_sim_result r;
    dnp_status st = sf_workload_parse(t->spec, &w, err);
    if (st != DNP_OK)
        return st;
    if ((st = sf_characterise(&w, p0, &row->ch, err)) != DNP_OK)
        goto done;
    sf_allocate(p0, row->ch.r_ctf, row->ch.k, row->ch.s, &row->alloc);
    sf_allocate(p0, t->paper_r_ctf, t->paper_k, 1, &row->alloc_paper_rk);
    /* Fig. 9 */
    if ((st = sf_dse_run(&w, p0, &dse, err)) != DNP_OK)
        goto done;
    row->dse_best_nc = dse.best_nc;
    row->dse_best_nf = dse.best_nf;
    row->dse_best_gops = dse.best_gops;
    row->dse_analytic_gops = dse.gops[row->alloc.nc * (dse.n + 1) + row->alloc.nf];
    /* Figs. 13(a) and 17: inference on every architecture. */
    for (int a = SF_ARCH_SF; a <= SF_ARCH_ATA5; a++) {
        if ((st = run_arch(&w, t->unit_inference, p0, (sf_arch)a, &row->alloc, 0, 1, 0, &r, err)) !=
            DNP_OK)
            goto done;
        row->inf_gops[a] = r.gops;
        if (a == SF_ARCH_SF) {
            row->inf_time_s = r.time_s;
            row->inf_bytes_sf = r.bytes;
            row->inf_ops = r.ops;
        } else if (a == SF_ARCH_MONO) {
            row->inf_time_mono_s = r.time_s;
            row->inf_bytes_mono = r.bytes;
        }
    }
    /* Table 8: the CONV layers alone on all N cores. */
    row->conv_only_gops = NAN;
    if (row->ch.conv_ops > 0) {
        sf_workload wc;
        if ((st = workload_subset(&w, SF_CONV, -1, &wc, err)) != DNP_OK)
            goto done;
        st = run_arch(&wc, t->unit_inference, p0, SF_ARCH_MONO, &row->alloc, 0, 1, 0, &r, err);
        sf_workload_free(&wc);
        if (st != DNP_OK)
            goto done;
        row->conv_only_gops = r.gops;
    }
    /* Section 4.1.2: the FSM's priority against round-robin. */
    if ((st = run_arch(&w, t->unit_inference, p0, SF_ARCH_SF, &row->alloc, 0, 1, 1, &r, err)) !=
        DNP_OK)
        goto done;
    row->rr_gops = r.gops;
    /* ... and at the simulator's own resolution, one block per engine step:
     * the headline (merging blocks makes each DRAM grant longer, which is
     * where priority shows). */
    for (int rr = 0; rr < 2; rr++) {
        if ((st = run_arch_blocks(&w, t->unit_inference, p0, SF_ARCH_SF, &row->alloc, 0, 1, rr, 0,
                                  &r, err)) != DNP_OK)
            goto done;
        *(rr ? &row->rr1_gops : &row->prio1_gops) = r.gops;
    }
    /* Fig. 15: SynergyFlow re-allocated at every bandwidth, and MonoArch. */
    for (int b = 0; b < SF_REPRO_N_BW; b++) {
        sf_platform p = *p0;
        p.bw_bps = sweep_gbps[b] * SF_GB_BYTES;
        sf_alloc a;
        sf_allocate(&p, row->ch.r_ctf, row->ch.k, row->ch.s, &a);
        row->bw_nc[b] = a.nc;
        row->bw_nf[b] = a.nf;
        if (p.bw_bps == p0->bw_bps) { /* the runs of Fig. 13(a) */
            row->bw_sf_gops[b] = row->inf_gops[SF_ARCH_SF];
            row->bw_sf_fixed_gops[b] = row->inf_gops[SF_ARCH_SF];
            row->bw_mono_gops[b] = row->inf_gops[SF_ARCH_MONO];
            continue;
        }
        if ((st = run_arch(&w, t->unit_inference, &p, SF_ARCH_SF, &a, 0, 1, 0, &r, err)) != DNP_OK)
            goto done;
        row->bw_sf_gops[b] = r.gops;
        /* Table 6's split (made for 34.2 GiB/s) held at every bandwidth. */
        if ((st = run_arch(&w, t->unit_inference, &p, SF_ARCH_SF, &row->alloc, 0, 1, 0, &r, err)) !=
            DNP_OK)
            goto done;
        row->bw_sf_fixed_gops[b] = r.gops;
        if ((st = run_arch(&w, t->unit_inference, &p, SF_ARCH_MONO, &a, 0, 1, 0, &r, err)) !=
            DNP_OK)
            goto done;
        row->bw_mono_gops[b] = r.gops;
    }
    /* Fig. 16 and Table 7: training, 10 epochs, out of order and in order. */
    if ((st = sf_workload_rescale(&w, 1, SF_REPRO_EPOCHS, &w10, err)) != DNP_OK)
        goto done;
    if ((st = run_arch(&w10, t->unit_training, p0, SF_ARCH_SF, &row->alloc, 1, 1, 0, &r, err)) !=
        DNP_OK)
        goto done;
    row->train_ooo_gops = r.gops;
    row->train_time_s = r.time_s;
    if ((st = run_arch(&w10, t->unit_training, p0, SF_ARCH_SF, &row->alloc, 1, 0, 0, &r, err)) !=
        DNP_OK)
        goto done;
    row->train_inorder_gops = r.gops;
done:
    sf_dse_free(&dse);
    sf_workload_free(&w10);
    sf_workload_free(&w);
    return st;
}

dnp_status sf_repro_run(sf_repro *out, dnp_error *err)
{
    sf_platform p;
    sf_platform_p395ab(&p);
    sf_repro res;
    memset(&res, 0, sizeof res);
    memcpy(res.bw_gbps, sweep_gbps, sizeof sweep_gbps);
    for (int i = 0; i < sf_table6_count(); i++) {
        dnp_status st = repro_row(&table6[i], &p, &res.row[i], err);
        if (st != DNP_OK)
            return st;
    }
    /* Fig. 13(b): AlexNet (row 0) layer by layer on its Table 6 split. */
    sf_workload w;
    dnp_status st = sf_workload_parse(table6[0].spec, &w, err);
    if (st != DNP_OK)
        return st;
    st = fig13b_layers(&w, table6[0].unit_inference, &p, &res.row[0].alloc, &res, err);
    sf_workload_free(&w);
    if (st != DNP_OK)
        return st;
    *out = res;
    return DNP_OK;
}
