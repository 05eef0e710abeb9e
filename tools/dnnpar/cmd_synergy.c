/*
 * cmd_synergy.c - `dnnpar synergy WORKLOAD`: SynergyFlow's workload
 * characterisation, analytical C/F-Engine split, design space and
 * instruction-block simulation (Li et al., TODAES 2018); and
 * `dnnpar reproduce synergyflow`: the paper's Table 6, Figs. 9, 13(a),
 * 15, 16, 17 and Table 7 beside ours.  The model: docs/synergyflow.md.
 */
#include "cli.h"

#include "arch/synergyflow/synergyflow.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
    "usage: dnnpar synergy WORKLOAD [platform options] [--nc N --nf N] [--dse] [--blocks]\n"
    "                      [--simulate | --compare] [simulation options] [--json FILE]\n"
    "\n"
    "Sizes a SynergyFlow accelerator for WORKLOAD (Li et al., TODAES 2018): per\n"
    "CONV and FC layer the operations, DRAM traffic under the loop tiling of\n"
    "Fig. 8 and the CTC ratio (Eqs. 1, 3-5); the workload's R_ctf, K and S\n"
    "(Eq. 10); and the split of the N cores into a C-Engine and an F-Engine\n"
    "(Eq. 9, derived from Eq. 8) with the terms behind it.  Optionally the\n"
    "design space of every split (Fig. 9) and an event-driven simulation at\n"
    "instruction-block granularity.  Units and assumptions: docs/synergyflow.md.\n"
    "\n"
    "WORKLOAD is MODEL[:COUNT]('+'MODEL[:COUNT])* with zoo models (dnnpar models)\n"
    "and instance counts, e.g. alexnet-2012:100 or vgg11:100+dbn-m:20000, or a\n"
    "mix of Table 6: batch1, batch2, batch3.  Table 6's AlexNet is alexnet-2012.\n"
    "\n"
    "platform (default: the paper's P395-AB FPGA):\n"
    "  --cores N        cores (64)             --tn T      PE array T x T per core (4)\n"
    "  --bw GIBPS       DRAM bandwidth in GiB/s (2^30 B/s, the paper's GB) (34.2)\n"
    "  --freq MHZ       clock (100)            --dw BITS   data width (16)\n"
    "  --tr R --tc C    CONV output tile (32 x 32)   --tnn T   FC tile (128)\n"
    "split:\n"
    "  --nc N --nf N    use this split instead of Eq. 9 (both; N_c + N_f <= N)\n"
    "  --dse            map the estimated GOPS of every split (Fig. 9)\n"
    "  --blocks         per layer: sublayers, cycles on its engine and the memory\n"
    "                   instruction block of the first sublayer (Table 3), FF\n"
    "simulation:\n"
    "  --simulate       simulate --arch (default sf: the split above)\n"
    "  --compare        simulate mono, ata1..ata5 and sf side by side\n"
    "  --arch A         sf | mono (all cores, layers in turn) | ata1..ata5\n"
    "                   (fixed splits (32,32) (48,16) (56,8) (60,4) (63,1), N = 64)\n"
    "  --training       FF, BP and GD per instance (default: inference, FF)\n"
    "  --epochs E       training passes (1)    --batch-size B  weights change per\n"
    "                                          batch of a model (50)\n"
    "  --in-order       finish each instance before the next (default: out of order)\n"
    "  --round-robin    share DRAM round-robin (default: C-Engine priority, Fig. 12)\n"
    "  --max-blocks K   merge each layer into at most K instruction blocks (default:\n"
    "                   one block per engine step)\n"
    "  --sample K       estimate from simulations of counts/K and 2 counts/K\n"
    "  --trace FILE     write the timeline as a Chrome trace (chrome://tracing)\n"
    "  --trace-max-spans N  write at most N spans (2000000, about 200 MB); the\n"
    "                   output says how many more there were\n"
    "  --json FILE      results as JSON ('-' for standard output, text skipped)\n"
    "\n"
    "examples:\n"
    "  dnnpar synergy alexnet-2012:100\n"
    "  dnnpar synergy batch2 --dse\n"
    "  dnnpar synergy batch3 --compare --sample 100\n"
    "  dnnpar synergy alexnet-2012:4 --simulate --training --trace alexnet.json\n"
    "  dnnpar synergy vgg11 --bw 8 --nc 60 --nf 4 --simulate --json vgg11.json\n";

static const char repro_help[] =
    "usage: dnnpar reproduce synergyflow [--json FILE]\n"
    "\n"
    "Runs the SynergyFlow paper's evaluation (section 6) on our model and\n"
    "prints ours beside the paper's figures, for the six Table 6 workloads on\n"
    "the P395-AB preset:\n"
    "  Table 6   R_ctf, K and the split (N_c, N_f) from our layer shapes\n"
    "  Fig. 9    the analytical split against the best of the design space\n"
    "  Fig. 13a  SynergyFlow's gain over MonoArch (inference)\n"
    "  Fig. 15   GOPS against DRAM bandwidth, SynergyFlow and MonoArch\n"
    "  Fig. 16   out-of-order against in-order layer scheduling (training)\n"
    "  Fig. 17   SynergyFlow against ATA-1..5\n"
    "  Table 7   SynergyFlow's time and GOPS, inference and 10 training epochs\n"
    "  Sec. 4.1.2  C-Engine priority against round-robin DRAM arbitration\n"
    "Simulations use samples of the Table 6 counts scaled by the steady\n"
    "state, and at most 32 instruction blocks per layer.  Why our figures\n"
    "differ from the paper's: docs/synergyflow.md, 'Reproduction'.\n"
    "\n"
    "example:\n"
    "  dnnpar reproduce synergyflow --json synergyflow.json\n";

#define CMD "synergy"

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

typedef struct {
    sf_platform p;
    const char *spec;
    int have_split, nc, nf;
    int arch; /* sf_arch, or -1 if not given */
    int dse, blocks, simulate, compare;
    sf_sim_config sim;
    long long sample;
    long long trace_max_spans;
    const char *trace, *json;
} options;

/* A positive finite number (with unit `unit` for the message). */
static int parse_positive_real(const char *opt, const char *text, const char *unit, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || v <= 0 || v > 1e9) {
        cli_error(CMD, "--%s must be a positive number (%s), got '%s'", opt, unit, text);
        return -1;
    }
    *out = v;
    return 0;
}

/* An integer 0..max (cli_positive rejects 0). */
static int parse_count0(const char *opt, const char *text, int max, int *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < 0 || v > max) {
        cli_error(CMD, "--%s must be an integer from 0 to %d, got '%s'", opt, max, text);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* An optional positive integer option into *out. */
static int opt_int(const cli_args *a, const char *name, long long max, int *out)
{
    const char *v = cli_get(a, name);
    if (v == NULL)
        return 0;
    long long x = cli_positive(CMD, name, v, max);
    if (x < 0)
        return -1;
    *out = (int)x;
    return 0;
}

static int read_platform(const cli_args *a, sf_platform *p)
{
    sf_platform_p395ab(p);
    double bw_gibps = 34.2, mhz = 100.0;
    int dw_bits = 16;
    const char *v;
    if ((v = cli_get(a, "bw")) && parse_positive_real("bw", v, "GiB/s", &bw_gibps) != 0)
        return -1;
    if ((v = cli_get(a, "freq")) && parse_positive_real("freq", v, "MHz", &mhz) != 0)
        return -1;
    if (opt_int(a, "cores", 65536, &p->cores) != 0 || opt_int(a, "tn", 1024, &p->tn) != 0 ||
        opt_int(a, "dw", 512, &dw_bits) != 0 || opt_int(a, "tr", 65536, &p->tr) != 0 ||
        opt_int(a, "tc", 65536, &p->tc) != 0 || opt_int(a, "tnn", 1048576, &p->tnn) != 0)
        return -1;
    if (dw_bits % 8 != 0) {
        cli_error(CMD, "--dw must be a whole number of bytes (8, 16, 32, ...), got %d", dw_bits);
        return -1;
    }
    p->bw_bps = bw_gibps * SF_GB_BYTES;
    p->freq_hz = mhz * 1e6;
    p->dw_bytes = dw_bits / 8;
    dnp_error err = {0};
    if (sf_platform_check(p, &err) != DNP_OK) {
        cli_error(CMD, "%s", err.msg);
        return -1;
    }
    return 0;
}

static int read_split(const cli_args *a, options *o)
{
    const char *nc = cli_get(a, "nc"), *nf = cli_get(a, "nf");
    if ((nc == NULL) != (nf == NULL)) {
        cli_error(CMD, "--nc and --nf go together (got only --%s)", nc ? "nc" : "nf");
        return -1;
    }
    if (nc == NULL)
        return 0;
    if (parse_count0("nc", nc, 65536, &o->nc) != 0 || parse_count0("nf", nf, 65536, &o->nf) != 0)
        return -1;
    if (o->nc + o->nf > o->p.cores) {
        cli_error(CMD, "--nc %d + --nf %d = %d exceeds the %d cores (--cores)", o->nc, o->nf,
                  o->nc + o->nf, o->p.cores);
        return -1;
    }
    if (o->nc + o->nf == 0) {
        cli_error(CMD, "--nc and --nf are both 0: no engine has cores");
        return -1;
    }
    o->have_split = 1;
    return 0;
}

static int read_simulation(const cli_args *a, options *o)
{
    sf_sim_config_default(&o->sim);
    const char *arch = cli_get(a, "arch");
    o->arch = -1;
    if (arch != NULL && (o->arch = sf_arch_from_name(arch)) < 0) {
        cli_error(CMD, "unknown --arch '%s' (known: sf, mono, ata1, ata2, ata3, ata4, ata5)", arch);
        return -1;
    }
    if (o->arch >= SF_ARCH_ATA1 && o->arch <= SF_ARCH_ATA5 && o->p.cores != 64) {
        cli_error(CMD, "--arch %s is defined for 64 cores (section 6.1); use --nc/--nf", arch);
        return -1;
    }
    if (o->arch >= 0 && o->have_split && o->arch != SF_ARCH_SF) {
        cli_error(CMD, "--arch %s and --nc/--nf both choose the split; give one", arch);
        return -1;
    }
    o->sim.training = cli_flag(a, "training");
    o->sim.ooo = !cli_flag(a, "in-order");
    o->sim.round_robin = cli_flag(a, "round-robin");
    if (opt_int(a, "epochs", 1000000, &o->sim.epochs) != 0 ||
        opt_int(a, "batch-size", 1000000000, &o->sim.batch_size) != 0 ||
        opt_int(a, "max-blocks", 1000000000, &o->sim.max_blocks) != 0)
        return -1;
    const char *sample = cli_get(a, "sample");
    o->sample = 1;
    if (sample != NULL && (o->sample = cli_positive(CMD, "sample", sample, 1000000000)) < 0)
        return -1;
    o->trace = cli_get(a, "trace");
    const char *cap = cli_get(a, "trace-max-spans");
    o->trace_max_spans = 2000000;
    if (cap != NULL &&
        (o->trace_max_spans = cli_positive(CMD, "trace-max-spans", cap, 1000000000)) < 0)
        return -1;
    if (cap != NULL && o->trace == NULL) {
        cli_error(CMD, "--trace-max-spans limits the file of --trace; give --trace FILE too");
        return -1;
    }
    o->compare = cli_flag(a, "compare");
    o->simulate = cli_flag(a, "simulate") || o->trace != NULL || o->compare || o->arch >= 0 ||
                  o->sim.training || cli_get(a, "sample") != NULL;
    if (o->trace != NULL && o->compare) {
        cli_error(CMD, "--trace records one architecture; drop --compare or --trace");
        return -1;
    }
    if (o->trace != NULL && o->sample > 1) {
        cli_error(CMD, "--trace needs one whole simulation; drop --sample");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* The analysis                                                         */
/* ------------------------------------------------------------------ */

typedef struct {
    sf_arch arch;
    int nc, nf;
    sf_sim_result r;
} sim_run;

typedef struct {
    sf_workload w;
    sf_workload_char ch;
    sf_alloc alloc;
    sf_layer_char *lc[SF_MAX_MODELS];
    int has_dse;
    sf_dse dse;
    int n_runs;
    sim_run runs[SF_N_ARCHS];
    int64_t trace_dropped;
} analysis;

static void analysis_free(analysis *an)
{
    for (int i = 0; i < SF_MAX_MODELS; i++)
        dnp_free(an->lc[i]);
    sf_dse_free(&an->dse);
    sf_workload_free(&an->w);
}

/* The split an architecture runs with. */
static void arch_split(const options *o, const analysis *an, sf_arch arch, sf_sim_config *c)
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
static int simulate_one(const options *o, analysis *an, sf_arch arch)
{
    sim_run *run = &an->runs[an->n_runs];
    sf_sim_config c = o->sim;
    arch_split(o, an, arch, &c);
    run->arch = arch;
    run->nc = c.mono ? 0 : c.nc;
    run->nf = c.mono ? 0 : c.nf;
    dnp_error err = {0};
    dnp_output *out = NULL;
    sf_trace *tr = NULL;
    if (o->trace != NULL) {
        dnp_status ost = dnp_output_open(o->trace, &out, &err);
        if (ost != DNP_OK) {
            cli_error(CMD, "%s", err.msg);
            return cli_exit_for(ost);
        }
        tr = sf_trace_new(dnp_output_stream(out), &an->w, c.mono, o->trace_max_spans);
        if (tr == NULL) {
            dnp_output_abort(out);
            cli_error(CMD, "out of memory opening the trace");
            return EXIT_RUNTIME;
        }
        c.sink = sf_trace_sink(tr);
    }
    dnp_status st = sf_estimate(&an->w, o->sample, &o->p, &c, &run->r, &err);
    int rc = cli_exit_for(st);
    if (st != DNP_OK)
        cli_error(CMD, "simulating %s: %s", sf_arch_name(arch), err.msg);
    if (tr != NULL) {
        if (sf_trace_finish(tr) != 0)
            dnp_output_fail(out, errno);
        an->trace_dropped = sf_trace_dropped(tr);
        sf_trace_free(tr);
        if (rc != 0) {
            dnp_output_abort(out);
        } else if ((st = dnp_output_close(out, &err)) != DNP_OK) {
            cli_error(CMD, "%s", err.msg);
            rc = cli_exit_for(st);
        }
    }
    if (rc == 0)
        an->n_runs++;
    return rc;
}

static int analyse(const options *o, analysis *an)
{
    dnp_error err = {0};
    dnp_status st = sf_workload_parse(o->spec, &an->w, &err);
    if (st == DNP_OK)
        st = sf_characterise(&an->w, &o->p, &an->ch, &err);
    for (int m = 0; st == DNP_OK && m < an->w.n_models; m++) {
        an->lc[m] = dnp_calloc((size_t)an->w.models[m].n_layers, sizeof *an->lc[m]);
        if (an->lc[m] == NULL) {
            dnp_error_set(&err, DNP_ERR_NOMEM, "out of memory");
            st = DNP_ERR_NOMEM;
        } else {
            st = sf_characterise_model(&an->w.models[m], &o->p, an->lc[m], &err);
        }
    }
    if (st != DNP_OK) {
        cli_error(CMD, "%s", err.msg);
        return cli_exit_for(st);
    }
    sf_allocate(&o->p, an->ch.r_ctf, an->ch.k, an->ch.s, &an->alloc);
    if (o->dse) {
        if ((st = sf_dse_run(&an->w, &o->p, &an->dse, &err)) != DNP_OK) {
            cli_error(CMD, "%s", err.msg);
            return cli_exit_for(st);
        }
        an->has_dse = 1;
    }
    if (!o->simulate)
        return 0;
    if (o->compare) {
        for (int a = SF_ARCH_MONO; a <= SF_ARCH_ATA5; a++) {
            if (a != SF_ARCH_MONO && o->p.cores != 64)
                continue; /* the ATA splits are defined for 64 cores */
            int rc = simulate_one(o, an, (sf_arch)a);
            if (rc != 0)
                return rc;
        }
    }
    sf_arch mine = o->arch >= 0 ? (sf_arch)o->arch : (o->have_split ? SF_ARCH_SPLIT : SF_ARCH_SF);
    return simulate_one(o, an, mine);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */
/* ------------------------------------------------------------------ */

static json_t *platform_json(const sf_platform *p)
{
    return json_pack("{s:i,s:i,s:f,s:f,s:f,s:i,s:i,s:i,s:i}", "cores", p->cores, "tn", p->tn,
                     "bw_gibps", p->bw_bps / SF_GB_BYTES, "bw_bps", p->bw_bps, "freq_hz",
                     p->freq_hz, "dw_bits", 8 * p->dw_bytes, "tr", p->tr, "tc", p->tc, "tnn", p->tnn);
}

static json_t *models_json(const analysis *an)
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

/* R_ctf is infinite without FC work: JSON has no infinity, so null. */
static json_t *real_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *char_json(const sf_workload_char *c)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:o,s:f,s:f,s:i,s:i}", "conv_ops", c->conv_ops, "fc_ops",
                     c->fc_ops, "conv_mem_bytes", c->conv_mem_bytes, "fc_mem_bytes",
                     c->fc_mem_bytes, "r_ctf", real_or_null(c->r_ctf), "k_mean", c->k_mean,
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

static json_t *synergy_json(const options *o, const analysis *an)
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

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

static void print_platform(const sf_platform *p)
{
    printf("platform: N = %d cores of %dx%d PEs, %g MHz, BW = %g GiB/s, "
           "DW = %d bits, Tr x Tc = %d x %d, Tnn = %d\n",
           p->cores, p->tn, p->tn, p->freq_hz / 1e6, p->bw_bps / SF_GB_BYTES, 8 * p->dw_bytes,
           p->tr, p->tc, p->tnn);
}

static void print_layers(const analysis *an)
{
    printf("\nper instance (Eqs. 1, 3-5; FF; DRAM traffic under the Fig. 8 tiling, SI "
           "prefixes):\n");
    printf("  %-14s %-10s %-4s %6s %6s %9s %5s %2s %11s %10s %9s\n", "model", "layer", "kind", "M",
           "N", "R x C", "K", "S", "ops", "DRAM", "CTC op/B");
    for (int m = 0; m < an->w.n_models; m++) {
        const sf_model *md = &an->w.models[m];
        for (int i = 0; i < md->n_layers; i++) {
            const sf_layer *l = &md->layers[i];
            const sf_layer_char *c = &an->lc[m][i];
            char rc[24], ops[16], mem[16];
            snprintf(rc, sizeof rc, "%lldx%lld", (long long)l->r, (long long)l->c);
            cli_fmt_si(c->ops, ops, sizeof ops);
            cli_fmt_si(c->mem_bytes, mem, sizeof mem);
            printf("  %-14s %-10s %-4s %6lld %6lld %9s %5d %2d %11s %9sB %9.2f\n",
                   i == 0 ? md->name : "", l->name, l->kind == SF_CONV ? "conv" : "fc",
                   (long long)l->m, (long long)l->n, l->kind == SF_CONV ? rc : "-", l->kh, l->sh,
                   ops, mem, c->ctc_ops_per_byte);
        }
    }
}

static void print_char_alloc(const analysis *an, const sf_platform *p)
{
    const sf_workload_char *c = &an->ch;
    const sf_alloc *a = &an->alloc;
    char cop[16], fop[16], cmem[16], fmem[16];
    cli_fmt_si(c->conv_ops, cop, sizeof cop);
    cli_fmt_si(c->fc_ops, fop, sizeof fop);
    cli_fmt_si(c->conv_mem_bytes, cmem, sizeof cmem);
    cli_fmt_si(c->fc_mem_bytes, fmem, sizeof fmem);
    printf("\nworkload (all instances): CONV %sop, %sB DRAM; FC %sop, %sB DRAM\n", cop, cmem, fop,
           fmem);
    if (isinf(c->r_ctf))
        printf("  R_ctf = inf (no FC work, Eq. 10)");
    else
        printf("  R_ctf = C_op / F_op = %.4f (Eq. 10)", c->r_ctf);
    printf("; K = %.3f -> %d, S = %.3f -> %d (CONV-op-weighted means, rounded)\n", c->k_mean, c->k,
           c->s_mean, c->s);
    printf("\nallocation (Eq. 9 from the constraints of Eq. 8, floors):\n");
    printf("  BW/DW = %.4g words/s; one core draws freq Tn^2 = %.4g words/s on FC (Eq. 7)\n",
           a->bw_words_per_s, a->core_words_per_s);
    printf("  a C-Engine core draws %.5f of that: S^2/(Tn K^2) + 1/(Tr Tc) (Eq. 7)\n",
           a->c_words_per_core_cycle);
    if (strcmp(a->nc_limit, "no CONV work") == 0)
        printf("  N_c = 0 (no CONV work)\n");
    else
        printf("  N_c = min(floor(%.3f), floor(%.3f)) = %d  (%s bound)\n", a->nc_bw_bound,
               a->nc_core_bound, a->nc, a->nc_limit);
    if (strcmp(a->nf_limit, "no FC work") == 0)
        printf("  N_f = 0 (no FC work)\n");
    else
        printf("  N_f = min(floor(%.3f), %d) = %d  (%s bound)\n", a->nf_bw_bound, a->nf_core_bound,
               a->nf, a->nf_limit);
    if (a->clamped)
        printf("  (adjusted after Eq. 9: an engine with work needs a core, and N_c + N_f <= N)\n");
    printf("  demand at the split (Eq. 7): C-Engine %.2f + F-Engine %.2f = %.2f of %.2f GiB/s\n",
           a->c_bw_bps / SF_GB_BYTES, a->f_bw_bps / SF_GB_BYTES,
           (a->c_bw_bps + a->f_bw_bps) / SF_GB_BYTES, p->bw_bps / SF_GB_BYTES);
    printf("SynergyFlow split: (N_c, N_f) = (%d, %d)\n", a->nc, a->nf);
}

/* One character per split: the estimate against the best. */
static char dse_mark(double g, double best)
{
    if (g < 0)
        return ' ';
    double f = g / best;
    return f >= 0.98 ? '#' : f >= 0.95 ? '+' : f >= 0.90 ? '=' : f >= 0.75 ? '-' : '.';
}

static void print_dse(const sf_dse *d, const sf_alloc *a)
{
    int n = d->n, step = (n + 64) / 65; /* at most 65 columns */
    double mine = d->gops[a->nc * (n + 1) + a->nf];
    printf("\ndesign space (Fig. 9; steady-state estimate, GOPS = 1e9 op/s):\n");
    printf("  best (%d, %d) %.2f GOPS; analytical (%d, %d) %.2f GOPS = %.1f%% of best\n",
           d->best_nc, d->best_nf, d->best_gops, a->nc, a->nf, mine,
           d->best_gops > 0 ? 100.0 * mine / d->best_gops : 0.0);
    printf("  rows N_f, columns N_c%s; '@' analytical, '#' >= 98%%, '+' >= 95%%, '=' >= 90%%, "
           "'-' >= 75%%, '.' less, ' ' infeasible\n",
           step > 1 ? " (sampled)" : "");
    for (int nf = n; nf >= 0; nf -= step) {
        printf("  %4d |", nf);
        for (int nc = 0; nc <= n; nc += step) {
            int here = a->nc >= nc && a->nc < nc + step && a->nf <= nf && a->nf > nf - step;
            putchar(here ? '@' : dse_mark(d->gops[nc * (n + 1) + nf], d->best_gops));
        }
        putchar('\n');
    }
    printf("       +");
    for (int nc = 0; nc <= n; nc += step)
        putchar(nc % (10 * step) == 0 ? '|' : '-');
    printf("\n        N_c from 0 at the left, '|' every %d\n", 10 * step);
}

static void print_sims(const options *o, const analysis *an)
{
    const sf_sim_config *c = &o->sim;
    printf("\nsimulation: %s, %s, %s arbitration, %s", c->training ? "training" : "inference",
           c->ooo ? "out of order" : "in order",
           c->round_robin ? "round-robin" : "C-Engine priority (Fig. 12)",
           c->max_blocks ? "merged blocks" : "one block per engine step");
    if (c->training)
        printf(", %d epoch(s), batch %d", c->epochs, c->batch_size);
    if (c->max_blocks)
        printf(" (at most %d per layer)", c->max_blocks);
    if (o->sample > 1)
        printf("; estimated from samples of 1/%lld and 2/%lld of the counts", o->sample, o->sample);
    printf("\n  %-6s %4s %4s %12s %8s %7s %7s %8s %8s %9s\n", "arch", "N_c", "N_f", "time", "GOPS",
           "PE", "BW", "C busy", "F busy", "preempt");
    for (int i = 0; i < an->n_runs; i++) {
        const sim_run *s = &an->runs[i];
        const sf_sim_result *r = &s->r;
        char t[32], nc[8] = "-", nf[8] = "-";
        cli_fmt_time(r->time_s, t, sizeof t);
        if (s->arch != SF_ARCH_MONO) {
            snprintf(nc, sizeof nc, "%d", s->nc);
            snprintf(nf, sizeof nf, "%d", s->nf);
        }
        double cb = r->time_s > 0 ? r->engine[0].busy_s / r->time_s : 0.0;
        double fb = r->n_engines > 1 && r->time_s > 0 ? r->engine[1].busy_s / r->time_s : 0.0;
        printf("  %-6s %4s %4s %12s %8.2f %6.1f%% %6.1f%% %7.1f%% ", sf_arch_name(s->arch), nc, nf,
               t, r->gops, 100 * r->pe_util, 100 * r->bw_util, 100 * cb);
        if (r->n_engines > 1)
            printf("%7.1f%% %9lld\n", 100 * fb, (long long)r->preemptions);
        else
            printf("%8s %9s\n", "-", "-");
    }
    const sf_sim_result *r = &an->runs[an->n_runs - 1].r;
    printf("  %s: %lld instances, %lld events; DRAM idle / C-Engine / F-Engine %.1f%% / %.1f%% / "
           "%.1f%% of the time (FSM S0 / S1 / S2)\n",
           sf_arch_name(an->runs[an->n_runs - 1].arch), (long long)r->instances,
           (long long)r->events, 100 * r->fsm_s[0] / r->time_s, 100 * r->fsm_s[1] / r->time_s,
           100 * r->fsm_s[2] / r->time_s);
    if (o->trace != NULL) {
        if (an->trace_dropped > 0)
            printf("  trace: %s (first %lld spans; %lld more not written: raise "
                   "--trace-max-spans)\n",
                   o->trace, o->trace_max_spans, (long long)an->trace_dropped);
        else
            printf("  trace: %s\n", o->trace);
    }
}

/* The engine a layer runs on at the split in use, and its core count. */
static int layer_cores(const options *o, const analysis *an, const sf_layer *l)
{
    int nc = o->have_split ? o->nc : an->alloc.nc, nf = o->have_split ? o->nf : an->alloc.nf;
    return l->kind == SF_CONV ? nc : nf;
}

static void print_blocks(const options *o, const analysis *an)
{
    printf("\ninstruction blocks (section 5; FF at the split; memory instructions as in Table "
           "3: mode, external and local-store address, length, stride, repetition, in words):\n");
    printf("    %-2s %10s %6s %6s %8s %6s\n", "", "external", "LS", "length", "stride", "rep.");
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
            printf("  %s %s: %lld sublayers", md->name, l->name, (long long)n);
            if (cycles >= 0)
                printf(", %lld cycles on %d %s-Engine cores", (long long)cycles, cores,
                       l->kind == SF_CONV ? "C" : "F");
            printf("; sublayer 0:\n");
            sf_mem_instr in[64];
            int k = sf_sublayer_instrs(l, ph, &o->p, 0, in, 64);
            for (int j = 0; j < k && j < 64; j++)
                printf("    %s %10lld %6lld %6lld %8lld %6lld\n", in[j].mode,
                       (long long)in[j].mem_addr, (long long)in[j].ls_addr, (long long)in[j].length,
                       (long long)in[j].stride, (long long)in[j].repetition);
        }
    }
}

static void synergy_text(const options *o, const analysis *an)
{
    printf("workload %s = %s\n", o->spec, an->w.spec);
    print_platform(&o->p);
    print_layers(an);
    print_char_alloc(an, &o->p);
    if (o->have_split)
        printf("split given by hand: (N_c, N_f) = (%d, %d)\n", o->nc, o->nf);
    if (an->has_dse)
        print_dse(&an->dse, &an->alloc);
    if (o->blocks)
        print_blocks(o, an);
    if (an->n_runs > 0)
        print_sims(o, an);
}

int cmd_synergy(int argc, char **argv)
{
    static const char *const valued[] = {
        "cores", "tn",   "bw",     "freq",       "dw",         "tr",     "tc",    "tnn",  "nc",
        "nf",    "arch", "epochs", "batch-size", "max-blocks", "sample", "trace", "trace-max-spans", "json", NULL};
    static const char *const flags[] = {"help",     "dse",         "blocks",
                                        "simulate", "compare",     "training",
                                        "in-order", "round-robin", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, CMD, help, 1, "one WORKLOAD", &a, &done);
    if (rc != 0 || done)
        return rc;
    options o;
    memset(&o, 0, sizeof o);
    o.spec = a.pos[0];
    o.dse = cli_flag(&a, "dse");
    o.blocks = cli_flag(&a, "blocks");
    o.json = cli_get(&a, "json");
    if (read_platform(&a, &o.p) != 0 || read_split(&a, &o) != 0 || read_simulation(&a, &o) != 0)
        return EXIT_USAGE;
    analysis an;
    memset(&an, 0, sizeof an);
    rc = analyse(&o, &an);
    if (rc == 0 && o.json != NULL)
        rc = cli_write_json(CMD, o.json, synergy_json(&o, &an));
    if (rc == 0 && (o.json == NULL || strcmp(o.json, "-") != 0))
        synergy_text(&o, &an);
    analysis_free(&an);
    return rc;
}

/* ------------------------------------------------------------------ */
/* dnnpar reproduce synergyflow                                         */
/* ------------------------------------------------------------------ */

static double pct(double a, double b) { return 100.0 * (a / b - 1.0); }

/* Architectures of Fig. 17 in print order. */
static const sf_arch fig17_archs[6] = {SF_ARCH_SF,   SF_ARCH_ATA1, SF_ARCH_ATA2,
                                       SF_ARCH_ATA3, SF_ARCH_ATA4, SF_ARCH_ATA5};

static json_t *num_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

static json_t *repro_json(const sf_repro *r)
{
    json_t *rows = json_array(), *bw = json_array();
    for (int b = 0; b < SF_REPRO_N_BW; b++)
        json_array_append_new(bw, json_real(r->bw_gbps[b]));
    double m13 = 0, m16 = 0;
    int n = sf_table6_count();
    for (int i = 0; i < n; i++) {
        const sf_table6_row *t = sf_table6_at(i);
        const sf_repro_row *w = &r->row[i];
        json_t *fig17 = json_object(), *sfg = json_array(), *mog = json_array(),
               *split = json_array(), *fixg = json_array();
        for (int k = 0; k < 6; k++)
            json_object_set_new(fig17, sf_arch_name(fig17_archs[k]),
                                json_real(w->inf_gops[fig17_archs[k]]));
        int best = 1;
        for (int k = 1; k < 6; k++)
            best &= w->inf_gops[SF_ARCH_SF] >= w->inf_gops[fig17_archs[k]];
        for (int b = 0; b < SF_REPRO_N_BW; b++) {
            json_array_append_new(sfg, json_real(w->bw_sf_gops[b]));
            json_array_append_new(fixg, json_real(w->bw_sf_fixed_gops[b]));
            json_array_append_new(mog, json_real(w->bw_mono_gops[b]));
            json_array_append_new(split, json_pack("[i,i]", w->bw_nc[b], w->bw_nf[b]));
        }
        double g13 = pct(w->inf_gops[SF_ARCH_SF], w->inf_gops[SF_ARCH_MONO]);
        double g16 = pct(w->train_ooo_gops, w->train_inorder_gops);
        m13 += g13 / n;
        m16 += g16 / n;
        json_t *row = json_pack("{s:s,s:s}", "name", t->name, "workload", t->spec);
        json_object_set_new(row, "table6",
                            json_pack("{s:o,s:f,s:f,s:i,s:i,s:[i,i],s:[i,i],s:[i,i],s:b}", "r_ctf",
                                      real_or_null(w->ch.r_ctf), "paper_r_ctf", t->paper_r_ctf,
                                      "k_mean", w->ch.k_mean, "k", w->ch.k, "paper_k", t->paper_k,
                                      "split", w->alloc.nc, w->alloc.nf, "paper_split", t->paper_nc,
                                      t->paper_nf, "split_from_paper_r_k", w->alloc_paper_rk.nc,
                                      w->alloc_paper_rk.nf, "split_matches",
                                      w->alloc.nc == t->paper_nc && w->alloc.nf == t->paper_nf));
        json_object_set_new(row, "fig9",
                            json_pack("{s:[i,i],s:f,s:f,s:f}", "best_split", w->dse_best_nc,
                                      w->dse_best_nf, "best_gops", w->dse_best_gops,
                                      "analytic_gops", w->dse_analytic_gops, "analytic_over_best",
                                      w->dse_analytic_gops / w->dse_best_gops));
        json_object_set_new(row, "fig13a",
                            json_pack("{s:f,s:f,s:f,s:o}", "sf_gops", w->inf_gops[SF_ARCH_SF],
                                      "mono_gops", w->inf_gops[SF_ARCH_MONO], "gain_pct", g13,
                                      "paper_gain_pct", num_or_null(t->paper_fig13a_pct)));
        json_object_set_new(
            row, "fig15",
            json_pack(
                "{s:o,s:o,s:o,s:o,s:f,s:f,s:f,s:f}", "sf_gops", sfg, "sf_table6_split_gops",
                fixg, "mono_gops", mog, "sf_split", split, "sf_knee95_gbps",
                sf_knee_gbps(r->bw_gbps, w->bw_sf_gops, SF_REPRO_N_BW, 0.95), "mono_knee95_gbps",
                sf_knee_gbps(r->bw_gbps, w->bw_mono_gops, SF_REPRO_N_BW, 0.95), "sf_knee98_gbps",
                sf_knee_gbps(r->bw_gbps, w->bw_sf_gops, SF_REPRO_N_BW, 0.98), "mono_knee98_gbps",
                sf_knee_gbps(r->bw_gbps, w->bw_mono_gops, SF_REPRO_N_BW, 0.98)));
        json_object_set_new(row, "fig16",
                            json_pack("{s:f,s:f,s:f,s:o}", "ooo_gops", w->train_ooo_gops,
                                      "in_order_gops", w->train_inorder_gops, "gain_pct", g16,
                                      "paper_gain_pct", num_or_null(t->paper_fig16_pct)));
        json_object_set_new(row, "fig17",
                            json_pack("{s:o,s:b,s:f}", "gops", fig17, "sf_best", best,
                                      "ata2_vs_sf_pct",
                                      pct(w->inf_gops[SF_ARCH_ATA2], w->inf_gops[SF_ARCH_SF])));
        json_object_set_new(row, "table7",
                            json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "inference_s",
                                      w->inf_time_s, "inference_gops", w->inf_gops[SF_ARCH_SF],
                                      "paper_inference_s", t->paper_inf_s, "paper_inference_gibops",
                                      t->paper_inf_gops, "training_s", w->train_time_s,
                                      "training_gops", w->train_ooo_gops, "paper_training_s",
                                      t->paper_train_s, "paper_training_gibops", t->paper_train_gops,
                                      "paper_gpu_inference_gops", t->paper_gpu_inf_gops,
                                      "paper_gpu_training_gops", t->paper_gpu_train_gops));
        json_object_set_new(row, "sec412",
                            json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}", "priority_gops",
                                      w->prio1_gops, "round_robin_gops", w->rr1_gops,
                                      "priority_gain_pct", pct(w->prio1_gops, w->rr1_gops),
                                      "merged_priority_gops", w->inf_gops[SF_ARCH_SF],
                                      "merged_round_robin_gops", w->rr_gops,
                                      "merged_priority_gain_pct",
                                      pct(w->inf_gops[SF_ARCH_SF], w->rr_gops)));
        json_array_append_new(rows, row);
    }
    return json_pack("{s:s,s:i,s:i,s:o,s:o,s:{s:f,s:f,s:f,s:f}}", "platform", "P395-AB",
                     "max_blocks_per_layer", SF_REPRO_MAX_BLOCKS, "training_epochs",
                     SF_REPRO_EPOCHS, "fig15_bw_gbps", bw, "workloads", rows, "means",
                     "fig13a_gain_pct", m13, "paper_fig13a_gain_pct", 33.78, "fig16_gain_pct", m16,
                     "paper_fig16_gain_pct", 41.2);
}

static void paper_pct(double v, char *buf, size_t n)
{
    if (isnan(v))
        snprintf(buf, n, "%s", "-");
    else
        snprintf(buf, n, "%.2f%%", v);
}

static void repro_text(const sf_repro *r)
{
    int n = sf_table6_count();
    printf("SynergyFlow reproduction on the P395-AB preset (N = 64, Tn = 4, 34.2 GiB/s, "
           "100 MHz, 16 bits; GiB = 2^30 bytes, GOPS = 1e9 op/s)\n\n");
    printf("Table 6: workload characterisation and the analytical split (Eq. 9)\n");
    printf("  %-7s %8s %8s %6s %3s %10s %10s %14s\n", "", "R_ctf", "paper", "K", "pK", "split",
           "paper", "from paper R,K");
    for (int i = 0; i < n; i++) {
        const sf_table6_row *t = sf_table6_at(i);
        const sf_repro_row *w = &r->row[i];
        char s[16], ps[16], pr[16];
        snprintf(s, sizeof s, "(%d,%d)", w->alloc.nc, w->alloc.nf);
        snprintf(ps, sizeof ps, "(%d,%d)", t->paper_nc, t->paper_nf);
        snprintf(pr, sizeof pr, "(%d,%d)", w->alloc_paper_rk.nc, w->alloc_paper_rk.nf);
        printf("  %-7s %8.3f %8.2f %6.3f %3d %10s %10s %14s%s\n", t->name, w->ch.r_ctf,
               t->paper_r_ctf, w->ch.k_mean, t->paper_k, s, ps, pr,
               strcmp(s, ps) == 0 ? "" : "  MISMATCH");
    }
    printf("\nFig. 9: analytical split against the best split of the design-space estimate\n");
    for (int i = 0; i < n; i++) {
        const sf_repro_row *w = &r->row[i];
        printf("  %-7s best (%d,%d) %7.2f GOPS, analytical (%d,%d) %7.2f GOPS = %5.1f%%\n",
               sf_table6_at(i)->name, w->dse_best_nc, w->dse_best_nf, w->dse_best_gops, w->alloc.nc,
               w->alloc.nf, w->dse_analytic_gops, 100 * w->dse_analytic_gops / w->dse_best_gops);
    }
    printf("\nFig. 13(a): SynergyFlow over MonoArch, inference\n");
    printf("  %-7s %10s %10s %9s %9s\n", "", "SF GOPS", "Mono GOPS", "gain", "paper");
    double m13 = 0;
    for (int i = 0; i < n; i++) {
        const sf_repro_row *w = &r->row[i];
        double g = pct(w->inf_gops[SF_ARCH_SF], w->inf_gops[SF_ARCH_MONO]);
        char p[16];
        paper_pct(sf_table6_at(i)->paper_fig13a_pct, p, sizeof p);
        printf("  %-7s %10.2f %10.2f %8.2f%% %9s\n", sf_table6_at(i)->name, w->inf_gops[SF_ARCH_SF],
               w->inf_gops[SF_ARCH_MONO], g, p);
        m13 += g / n;
    }
    printf("  %-7s %21s %8.2f%% %8.2f%%\n", "mean", "", m13, 33.78);
    printf("\nFig. 15: GOPS against DRAM bandwidth (inference; SF re-split by Eq. 9 at each\n"
           "  bandwidth, SF6 with Table 6's split held)\n");
    printf("  %-7s %-4s", "GiB/s", "");
    for (int b = 0; b < SF_REPRO_N_BW; b++)
        printf(" %6.1f", r->bw_gbps[b]);
    printf("   GiB/s to reach 95%% / 98%% of max\n");
    for (int i = 0; i < n; i++) {
        const sf_repro_row *w = &r->row[i];
        const double *g[3] = {w->bw_sf_gops, w->bw_sf_fixed_gops, w->bw_mono_gops};
        static const char *const label[3] = {"SF", "SF6", "Mono"};
        for (int k = 0; k < 3; k++) {
            printf("  %-7s %-4s", k == 0 ? sf_table6_at(i)->name : "", label[k]);
            for (int b = 0; b < SF_REPRO_N_BW; b++)
                printf(" %6.1f", g[k][b]);
            printf("   %5.1f / %5.1f\n", sf_knee_gbps(r->bw_gbps, g[k], SF_REPRO_N_BW, 0.95),
                   sf_knee_gbps(r->bw_gbps, g[k], SF_REPRO_N_BW, 0.98));
        }
    }
    printf("  paper: SynergyFlow flat above a knee that differs per workload; MonoArch degrades "
           "steadily and needs up to 140 GiB/s on Batch3\n");
    printf("\nFig. 16: out-of-order layer scheduling, training (%d epochs)\n", SF_REPRO_EPOCHS);
    printf("  %-7s %10s %10s %9s %9s\n", "", "OoO GOPS", "in-order", "gain", "paper");
    double m16 = 0;
    for (int i = 0; i < n; i++) {
        const sf_repro_row *w = &r->row[i];
        double g = pct(w->train_ooo_gops, w->train_inorder_gops);
        char p[16];
        paper_pct(sf_table6_at(i)->paper_fig16_pct, p, sizeof p);
        printf("  %-7s %10.2f %10.2f %8.2f%% %9s\n", sf_table6_at(i)->name, w->train_ooo_gops,
               w->train_inorder_gops, g, p);
        m16 += g / n;
    }
    printf("  %-7s %21s %8.2f%% %8.2f%%\n", "mean", "", m16, 41.2);
    printf("\nFig. 17: SynergyFlow against the asymmetric tandem architectures (GOPS, "
           "inference)\n  %-7s",
           "");
    for (int k = 0; k < 6; k++)
        printf(" %8s", sf_arch_name(fig17_archs[k]));
    printf("  SF best  ATA-2 vs SF\n");
    for (int i = 0; i < n; i++) {
        const sf_repro_row *w = &r->row[i];
        int best = 1;
        printf("  %-7s", sf_table6_at(i)->name);
        for (int k = 0; k < 6; k++) {
            printf(" %8.2f", w->inf_gops[fig17_archs[k]]);
            best &= w->inf_gops[SF_ARCH_SF] >= w->inf_gops[fig17_archs[k]];
        }
        printf("  %-7s %+7.2f%%\n", best ? "yes" : "no",
               pct(w->inf_gops[SF_ARCH_ATA2], w->inf_gops[SF_ARCH_SF]));
    }
    printf("  paper: SynergyFlow best on every workload; ATA-2 loses 23.4%% on VGG11\n");
    /* Table 7's GOPS are 2^30 op/s: with that unit its GOPS x time is the
     * operation count (test synergy_table7_gops_are_binary), so ours are
     * shown in the same unit here. */
    const double per_gib = 1e9 / 1073741824.0;
    printf("\nTable 7: SynergyFlow time and throughput (Table 6 counts; training %d epochs);\n"
           "  throughput in the paper's GOPS, which are 2^30 op/s (GiOPS)\n",
           SF_REPRO_EPOCHS);
    printf("  %-7s %9s %9s %8s %8s   %9s %9s %8s %8s\n", "", "inf s", "paper", "GiOPS", "paper",
           "train s", "paper", "GiOPS", "paper");
    for (int i = 0; i < n; i++) {
        const sf_table6_row *t = sf_table6_at(i);
        const sf_repro_row *w = &r->row[i];
        printf("  %-7s %9.3f %9.2f %8.2f %8.2f   %9.2f %9.2f %8.2f %8.2f\n", t->name, w->inf_time_s,
               t->paper_inf_s, w->inf_gops[SF_ARCH_SF] * per_gib, t->paper_inf_gops,
               w->train_time_s, t->paper_train_s, w->train_ooo_gops * per_gib,
               t->paper_train_gops);
    }
    printf("  compare the times: the paper's GOPS x time is its operations (2^30 units), with a\n"
           "  one-channel VGG11 (its R_ctf 60.08 says so too); ours is the three-channel one\n");
    printf("\nSection 4.1.2: C-Engine priority (Fig. 12 FSM) against round-robin, inference,\n"
           "  at one instruction block per engine step (the simulator's resolution)\n");
    for (int i = 0; i < n; i++) {
        const sf_repro_row *w = &r->row[i];
        printf("  %-7s priority %8.2f GOPS, round-robin %8.2f GOPS, priority gains %6.2f%%\n",
               sf_table6_at(i)->name, w->prio1_gops, w->rr1_gops, pct(w->prio1_gops, w->rr1_gops));
    }
    printf("  with each layer merged into at most %d blocks (longer DRAM grants), as the other\n"
           "  figures here are simulated:\n",
           SF_REPRO_MAX_BLOCKS);
    for (int i = 0; i < n; i++) {
        const sf_repro_row *w = &r->row[i];
        printf("  %-7s priority %8.2f GOPS, round-robin %8.2f GOPS, priority gains %6.2f%%\n",
               sf_table6_at(i)->name, w->inf_gops[SF_ARCH_SF], w->rr_gops,
               pct(w->inf_gops[SF_ARCH_SF], w->rr_gops));
    }
    printf("  paper: priority improves throughput by 12%% on average\n");
    printf("\nWhy ours differ: docs/synergyflow.md, 'Reproduction'.\n");
}

int reproduce_synergyflow(int argc, char **argv)
{
    static const char *const valued[] = {"json", NULL};
    static const char *const flags[] = {"help", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "reproduce", repro_help, 1, "a paper: synergyflow",
                             &a, &done);
    if (rc != 0 || done)
        return rc;
    sf_repro *r = dnp_malloc(sizeof *r);
    if (r == NULL) {
        cli_error("reproduce", "out of memory");
        return EXIT_RUNTIME;
    }
    dnp_error err = {0};
    dnp_status st = sf_repro_run(r, &err);
    if (st != DNP_OK) {
        cli_error("reproduce", "synergyflow: %s", err.msg);
        dnp_free(r);
        return cli_exit_for(st);
    }
    const char *json = cli_get(&a, "json");
    if (json != NULL)
        rc = cli_write_json("reproduce", json, repro_json(r));
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0))
        repro_text(r);
    dnp_free(r);
    return rc;
}
