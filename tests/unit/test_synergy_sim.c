/* test_synergy_sim.c - the SynergyFlow simulator: hand-worked timelines,
 * the DRAM channel never above BW, conservation of blocks, bytes and
 * operations, determinism, out-of-order never slower than in-order, the
 * steady-state estimate, the Chrome trace and bad configurations. */
#include "test.h"

#include "arch/synergyflow/synergyflow.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers -------------------------------------------------------- */

static sf_layer fc(int64_t m, int64_t n)
{
    sf_layer l;
    memset(&l, 0, sizeof l);
    snprintf(l.name, sizeof l.name, "fc");
    l.kind = SF_FC;
    l.m = m, l.n = n, l.r = l.c = l.in_h = l.in_w = 1;
    l.kh = l.kw = l.sh = l.sw = l.groups = 1;
    l.macs = m * n;
    return l;
}

/* A 1x1 output CONV with K = S = 1. */
static sf_layer conv1x1(int64_t m, int64_t n)
{
    sf_layer l = fc(m, n);
    snprintf(l.name, sizeof l.name, "conv");
    l.kind = SF_CONV;
    return l;
}

/* A one-model workload over caller-owned layers (not to be freed). */
static sf_workload one_model(sf_layer *layers, int n, int64_t instances)
{
    sf_workload w;
    memset(&w, 0, sizeof w);
    w.n_models = 1;
    snprintf(w.models[0].name, sizeof w.models[0].name, "hand");
    w.models[0].instances = instances;
    w.models[0].n_layers = n;
    w.models[0].layers = layers;
    return w;
}

/* One byte per second, one cycle per second, Tnn = 8: times are counts. */
static sf_platform unit_platform(int cores)
{
    sf_platform p = {cores, 4, 1.0, 1.0, 1, 32, 32, 8};
    return p;
}

static sf_workload parse_ok(const char *spec)
{
    sf_workload w;
    dnp_error err;
    dnp_error_clear(&err);
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(sf_workload_parse(spec, &w, &err), DNP_OK);
    return w;
}

static double sim_time(const sf_workload *w, const sf_platform *p, const sf_sim_config *c)
{
    sf_sim_result r;
    dnp_error err;
    dnp_error_clear(&err);
    dnp_status st = sf_simulate(w, p, c, &r, &err);
    if (st != DNP_OK)
        printf("  simulate: %s\n", err.msg);
    CHECK_EQ_INT(st, DNP_OK);
    return st == DNP_OK ? r.time_s : -1.0;
}

static sf_sim_config split_config(int nc, int nf, int training, int ooo)
{
    sf_sim_config c;
    sf_sim_config_default(&c);
    c.nc = nc, c.nf = nf, c.training = training, c.ooo = ooo;
    return c;
}

/* ---- hand-worked timelines ----------------------------------------- */

/*
 * FC 8x8, one tile (Tnn = 8): load 64 weights + 8 inputs = 72 s, compute
 * ceil(8/4)^2 = 4 cycles = 4 s on one core, store 8 outputs = 8 s.
 *   one instance:              72 + 4 + 8 = 84 s
 *   two, in order (MonoArch):  2 x 84 = 168 s (no overlap across instances)
 *   two, out of order: load1 [0,72], load2 [72,144] (second buffer),
 *     compute1 [72,76], store1 waits for the channel [144,152],
 *     compute2 [144,148], store2 [152,160]: 160 s.
 */
TEST(synergy_sim_hand_fc)
{
    sf_layer l = fc(8, 8);
    sf_workload w1 = one_model(&l, 1, 1), w2 = one_model(&l, 1, 2);
    sf_platform p = unit_platform(1);
    sf_sim_config mono;
    sf_sim_config_default(&mono);
    mono.mono = 1;
    CHECK_NEAR(sim_time(&w1, &p, &mono), 84.0, 1e-12, 0);
    CHECK_NEAR(sim_time(&w2, &p, &mono), 168.0, 1e-12, 0);
    sf_sim_config ooo = split_config(0, 1, 0, 1), ino = split_config(0, 1, 0, 0);
    CHECK_NEAR(sim_time(&w2, &p, &ooo), 160.0, 1e-12, 0);
    CHECK_NEAR(sim_time(&w2, &p, &ino), 168.0, 1e-12, 0);
    /* Four cores share the 4 sub-blocks: 1 cycle of compute. */
    p.cores = 4;
    sf_sim_config four = split_config(0, 4, 0, 1);
    CHECK_NEAR(sim_time(&w1, &p, &four), 81.0, 1e-12, 0);
}

/*
 * CONV 4x4 with a 1x1 map (load 4 inputs + 16 weights = 20 s, 1 cycle,
 * store 4 outputs) then the FC 8x8 above, split (1, 1), two instances,
 * out of order, C-Engine priority:
 *   C: load c1 [0,20], load c2 [20,40], compute c1 [20,21], store c1
 *      [40,44] (FIFO behind load c2), compute c2 [40,41], store c2 [44,48];
 *   F: FF.F(1) ready at 44, its load waits for C's store: [48,120];
 *      load f2 [120,192]; compute f1 [120,124]; store f1 [192,200];
 *      compute f2 [192,196]; store f2 [200,208].  Total 208 s.
 * In order, instance 2 starts at 109 (= 20+1+4 + 72+4+8): 218 s.
 */
TEST(synergy_sim_hand_split)
{
    sf_layer layers[2] = {conv1x1(4, 4), fc(8, 8)};
    sf_workload w1 = one_model(layers, 2, 1), w2 = one_model(layers, 2, 2);
    sf_platform p = unit_platform(2);
    sf_sim_config ooo = split_config(1, 1, 0, 1), ino = split_config(1, 1, 0, 0);
    CHECK_NEAR(sim_time(&w1, &p, &ooo), 109.0, 1e-12, 0);
    CHECK_NEAR(sim_time(&w2, &p, &ooo), 208.0, 1e-12, 0);
    CHECK_NEAR(sim_time(&w2, &p, &ino), 218.0, 1e-12, 0);
}

/* ---- a probe on the timeline --------------------------------------- */

typedef struct {
    double t0, t1, bytes;
    int engine, is_store;
} seg;

typedef struct {
    seg *v;
    int64_t n, cap;
    int64_t computes;
    double compute_s[2];
    unsigned long long hash;
} probe;

static void mix(probe *p, double x)
{
    unsigned long long b;
    memcpy(&b, &x, sizeof b);
    p->hash = (p->hash ^ b) * 1099511628211ULL;
}

static void on_compute(void *ctx, int engine, double t0, double t1, int64_t inst, int model,
                       sf_phase ph)
{
    probe *p = ctx;
    p->computes++;
    p->compute_s[engine] += t1 - t0;
    mix(p, t0), mix(p, t1), mix(p, (double)(inst * 64 + model * 8 + (int)ph));
}

static void on_memory(void *ctx, int engine, int is_store, double t0, double t1, double bytes,
                      int64_t inst, int model, sf_phase ph)
{
    probe *p = ctx;
    (void)inst, (void)model, (void)ph;
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 1024;
        seg *g = dnp_realloc(p->v, (size_t)p->cap * sizeof *g);
        if (g == NULL) {
            p->cap = p->n;
            return;
        }
        p->v = g;
    }
    p->v[p->n++] = (seg){t0, t1, bytes, engine, is_store};
    mix(p, t0), mix(p, t1), mix(p, bytes);
}

static void run_probed(const sf_workload *w, const sf_platform *p, sf_sim_config c, probe *pr,
                       sf_sim_result *r)
{
    memset(pr, 0, sizeof *pr);
    sf_sim_sink sink = {pr, on_compute, on_memory};
    c.sink = &sink;
    dnp_error err;
    dnp_error_clear(&err);
    dnp_status st = sf_simulate(w, p, &c, r, &err);
    if (st != DNP_OK)
        printf("  simulate: %s\n", err.msg);
    CHECK_EQ_INT(st, DNP_OK);
}

/* At no moment do the two engines' transfers together exceed BW: the
 * channel's segments never overlap, each moves BW x its duration, and in
 * every one of 2000 time steps the bytes moved stay within BW x step. */
static void check_bandwidth(const probe *pr, const sf_sim_result *r, double bw)
{
    double T = r->time_s, total = 0.0;
    int bad_overlap = 0, bad_rate = 0, bad_step = 0;
    enum { STEPS = 2000 };
    double *bins = dnp_calloc(STEPS, sizeof *bins), dt = T / STEPS;
    for (int64_t i = 0; i < pr->n; i++) {
        const seg *s = &pr->v[i];
        total += s->bytes;
        if (i > 0 && s->t0 < pr->v[i - 1].t1 - 1e-12 * T)
            bad_overlap++;
        double expect = bw * (s->t1 - s->t0);
        if (fabs(s->bytes - expect) > 1e-9 * expect + 1e-6)
            bad_rate++;
        for (int64_t k = (int64_t)(s->t0 / dt); bins && k < STEPS && k * dt < s->t1; k++) {
            double a = s->t0 > k * dt ? s->t0 : k * dt;
            double b = s->t1 < (k + 1) * dt ? s->t1 : (k + 1) * dt;
            if (b > a)
                bins[k] += bw * (b - a);
        }
    }
    for (int k = 0; bins && k < STEPS; k++)
        bad_step += bins[k] > bw * dt * (1 + 1e-9);
    CHECK_EQ_INT(bad_overlap, 0);
    CHECK_EQ_INT(bad_rate, 0);
    CHECK_EQ_INT(bad_step, 0);
    CHECK_NEAR(total, r->bytes, 1e-9, 0);
    CHECK(r->bw_util <= 1.0 + 1e-9);
    dnp_free(bins);
}

TEST(synergy_sim_bandwidth_never_exceeded)
{
    sf_platform p;
    sf_platform_p395ab(&p);
    const char *specs[] = {"alexnet-2012:1+dbn-m:50", "vgg11:1+dbn-m:200", "alexnet-2012:3"};
    for (int i = 0; i < 3; i++) {
        sf_workload w = parse_ok(specs[i]);
        for (int mode = 0; mode < 4; mode++) {
            sf_sim_config c = split_config(i == 1 ? 60 : 26, i == 1 ? 4 : 11, mode >= 2, 1);
            c.round_robin = mode & 1;
            c.max_blocks = 32;
            probe pr;
            sf_sim_result r;
            run_probed(&w, &p, c, &pr, &r);
            check_bandwidth(&pr, &r, p.bw_bps);
            /* The FSM preempts F transfers for the C-Engine; round-robin never does. */
            if (c.round_robin)
                CHECK_EQ_INT(r.preemptions, 0);
            CHECK_NEAR(r.fsm_s[0] + r.fsm_s[1] + r.fsm_s[2], r.time_s, 1e-9, 0);
            dnp_free(pr.v);
        }
        sf_workload_free(&w);
    }
}

/* Every block is issued once and all work is done: the blocks, bytes and
 * operations simulated equal the programs' times the instances, for
 * inference and training, MonoArch and a split. */
TEST(synergy_sim_conservation)
{
    sf_platform p;
    sf_platform_p395ab(&p);
    sf_workload w = parse_ok("alexnet-2012:3+dbn-m:7");
    for (int mode = 0; mode < 4; mode++) {
        int training = mode >= 2, mono = mode & 1;
        sf_sim_config c = split_config(54, 10, training, 1);
        c.mono = mono;
        c.max_blocks = 16;
        c.epochs = training ? 2 : 1;
        double ops = 0, bytes = 0;
        int64_t blocks = 0, mem_blocks = 0, tasks = 0;
        for (int m = 0; m < w.n_models; m++)
            for (int ph = 0; ph < SF_N_PHASES; ph++) {
                if (!training && ph != SF_FF_C && ph != SF_FF_F)
                    continue;
                int cores = mono ? p.cores : (sf_phase_is_conv((sf_phase)ph) ? 54 : 10);
                sf_program pr;
                dnp_error err;
                dnp_error_clear(&err);
                CHECK_EQ_INT(sf_program_build(&w.models[m], (sf_phase)ph, &p, cores, 16, &pr, &err),
                             DNP_OK);
                double n = (double)(w.models[m].instances * c.epochs);
                ops += n * pr.ops;
                bytes += n * (pr.load_bytes + pr.store_bytes);
                blocks += (int64_t)n * pr.n_blocks;
                tasks += pr.n_blocks > 0 ? (int64_t)n : 0;
                for (int r = 0; r < pr.n_runs; r++)
                    mem_blocks += (int64_t)n * pr.runs[r].count *
                                  ((pr.runs[r].load_bytes > 0) + (pr.runs[r].store_bytes > 0));
                sf_program_free(&pr);
            }
        probe pr;
        sf_sim_result r;
        run_probed(&w, &p, c, &pr, &r);
        int64_t got_blocks = 0, got_mem = 0, got_tasks = 0;
        for (int e = 0; e < r.n_engines; e++) {
            got_blocks += r.engine[e].compute_blocks;
            got_mem += r.engine[e].mem_blocks;
            got_tasks += r.engine[e].tasks;
            CHECK_NEAR(pr.compute_s[e], r.engine[e].busy_s, 1e-9, 0);
            CHECK(r.engine[e].busy_s <= r.engine[e].active_s * (1 + 1e-9));
            CHECK(r.engine[e].active_s <= r.time_s * (1 + 1e-9));
        }
        CHECK_EQ_INT(got_blocks, blocks);
        CHECK_EQ_INT(pr.computes, blocks);
        CHECK_EQ_INT(got_mem, mem_blocks);
        CHECK_EQ_INT(got_tasks, tasks);
        CHECK_NEAR(r.ops, ops, 1e-12, 0);
        CHECK_NEAR(r.bytes, bytes, 1e-12, 0);
        CHECK_EQ_INT(r.instances, 10 * c.epochs);
        CHECK(r.pe_util <= 1.0);
        /* A lower bound no schedule can beat: the busiest resource. */
        CHECK(r.time_s >= r.bytes / p.bw_bps * (1 - 1e-12));
        dnp_free(pr.v);
    }
    sf_workload_free(&w);
}

/* Same inputs, same timeline, bit for bit. */
TEST(synergy_sim_deterministic)
{
    sf_platform p;
    sf_platform_p395ab(&p);
    sf_workload w = parse_ok("batch2");
    sf_workload s;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(sf_workload_rescale(&w, 100, 1, &s, &err), DNP_OK);
    sf_sim_config c = split_config(26, 11, 1, 1);
    c.max_blocks = 32;
    probe a, b;
    sf_sim_result ra, rb;
    run_probed(&s, &p, c, &a, &ra);
    run_probed(&s, &p, c, &b, &rb);
    CHECK(ra.time_s == rb.time_s);
    CHECK_EQ_INT(ra.events, rb.events);
    CHECK_EQ_INT(ra.preemptions, rb.preemptions);
    CHECK_EQ_INT(a.n, b.n);
    CHECK(a.hash == b.hash);
    dnp_free(a.v);
    dnp_free(b.v);
    sf_workload_free(&s);
    sf_workload_free(&w);
}

/* Out-of-order layer scheduling is never slower than in order, on every
 * Table 6 workload (one sample unit), inference and training. */
TEST(synergy_sim_ooo_never_slower)
{
    sf_platform p;
    sf_platform_p395ab(&p);
    for (int i = 0; i < sf_table6_count(); i++) {
        const sf_table6_row *t = sf_table6_at(i);
        sf_workload w = parse_ok(t->spec), s;
        dnp_error err;
        dnp_error_clear(&err);
        CHECK_EQ_INT(sf_workload_rescale(&w, t->unit_inference, 1, &s, &err), DNP_OK);
        for (int training = 0; training < 2; training++) {
            sf_sim_config o = split_config(t->paper_nc, t->paper_nf, training, 1);
            sf_sim_config n = split_config(t->paper_nc, t->paper_nf, training, 0);
            o.max_blocks = n.max_blocks = 32;
            double to = sim_time(&s, &p, &o), tn = sim_time(&s, &p, &n);
            if (to > tn * (1 + 1e-12))
                printf("  %s training %d: OoO %.6g s > in-order %.6g s\n", t->name, training, to,
                       tn);
            CHECK(to <= tn * (1 + 1e-12));
        }
        sf_workload_free(&s);
        sf_workload_free(&w);
    }
}

/* ---- the steady-state estimate ------------------------------------- */

/* Training batches end in a barrier, so a model's batches repeat exactly:
 * the estimate from one and two batches equals the whole simulation. */
TEST(synergy_estimate_exact_when_periodic)
{
    sf_platform p;
    sf_platform_p395ab(&p);
    sf_workload w = parse_ok("alexnet-2012:150");
    sf_sim_config c = split_config(54, 10, 1, 1);
    c.max_blocks = 16;
    sf_sim_result full, est;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(sf_simulate(&w, &p, &c, &full, &err), DNP_OK);
    CHECK_EQ_INT(sf_estimate(&w, 3, &p, &c, &est, &err), DNP_OK);
    CHECK_NEAR(est.time_s, full.time_s, 1e-9, 0);
    CHECK_NEAR(est.ops, full.ops, 1e-12, 0);
    CHECK_NEAR(est.bytes, full.bytes, 1e-12, 0);
    CHECK_NEAR(est.engine[0].busy_s, full.engine[0].busy_s, 1e-9, 0);
    CHECK_EQ_INT(est.instances, full.instances);
    /* k must divide the counts */
    dnp_error_clear(&err);
    CHECK_EQ_INT(sf_estimate(&w, 7, &p, &c, &est, &err), DNP_ERR_INPUT);
    sf_workload_free(&w);

    double bw[4] = {1, 2, 4, 8}, g[4] = {10, 50, 96, 100};
    CHECK_NEAR(sf_knee_gbps(bw, g, 4, 0.95), 4, 0, 0);
    CHECK_NEAR(sf_knee_gbps(bw, g, 4, 0.5), 2, 0, 0);
}

/* The estimate never reports more than the platform can do, even from a
 * unit too short to show the steady state (Batch3: one VGG11 per unit). */
TEST(synergy_estimate_physical)
{
    sf_platform p;
    sf_platform_p395ab(&p);
    sf_workload w = parse_ok("vgg11:20+dbn-m:4000");
    sf_sim_config c = split_config(60, 4, 1, 1);
    c.max_blocks = 32;
    sf_sim_result est;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(sf_estimate(&w, 20, &p, &c, &est, &err), DNP_OK);
    CHECK(est.gops * 1e9 <= sf_peak_ops_per_s(&p, 64));
    CHECK(est.pe_util <= 1.0 && est.bw_util <= 1.0);
    CHECK(est.time_s >= est.engine[0].busy_s);
    sf_workload_free(&w);
}

/* ---- configuration errors and the trace ------------------------------ */

TEST(synergy_sim_bad_config)
{
    sf_platform p;
    sf_platform_p395ab(&p);
    sf_workload w = parse_ok("alexnet-2012:2");
    sf_sim_result r;
    dnp_error err;
    struct {
        int nc, nf;
        const char *why;
    } bad[] = {{60, 10, "exceeds N = 64"},
               {0, 11, "CONV layers but N_c = 0"},
               {54, 0, "FC layers but N_f = 0"},
               {-1, 3, "exceeds"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sf_sim_config c = split_config(bad[i].nc, bad[i].nf, 0, 1);
        dnp_error_clear(&err);
        memset(&r, 0x5a, sizeof r);
        CHECK_EQ_INT(sf_simulate(&w, &p, &c, &r, &err), DNP_ERR_INPUT);
        CHECK(strstr(err.msg, bad[i].why) != NULL);
        CHECK_EQ_INT(r.n_engines, 0x5a5a5a5a); /* untouched */
    }
    sf_sim_config c = split_config(54, 10, 0, 1);
    c.epochs = 0;
    dnp_error_clear(&err);
    CHECK_EQ_INT(sf_simulate(&w, &p, &c, &r, &err), DNP_ERR_INPUT);
    c = split_config(54, 10, 0, 1);
    p.bw_bps = 0;
    dnp_error_clear(&err);
    CHECK_EQ_INT(sf_simulate(&w, &p, &c, &r, &err), DNP_ERR_INPUT);
    sf_workload_free(&w);
    CHECK_EQ_INT(sf_arch_from_name("ATA3"), SF_ARCH_ATA3);
    CHECK_EQ_INT(sf_arch_from_name("split"), -1);
    int nc = 0, nf = 0;
    CHECK(sf_arch_ata_split(SF_ARCH_ATA2, &nc, &nf) && nc == 48 && nf == 16);
    CHECK(!sf_arch_ata_split(SF_ARCH_MONO, &nc, &nf));
}

/* The Chrome trace is valid JSON with one span per stage on each engine. */
TEST(synergy_trace_json)
{
    sf_platform p;
    sf_platform_p395ab(&p);
    sf_workload w = parse_ok("alexnet-2012:2");
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f == NULL)
        return;
    sf_trace *t = sf_trace_new(f, &w, 0, 100000);
    sf_sim_config c = split_config(54, 10, 0, 1);
    c.sink = sf_trace_sink(t);
    sf_sim_result r;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(sf_simulate(&w, &p, &c, &r, &err), DNP_OK);
    CHECK_EQ_INT(sf_trace_finish(t), 0);
    CHECK_EQ_INT(sf_trace_dropped(t), 0);
    sf_trace_free(t);
    rewind(f);
    json_error_t je;
    json_t *root = json_loadf(f, 0, &je);
    CHECK(root != NULL);
    json_t *ev = json_object_get(root, "traceEvents");
    CHECK(json_is_array(ev));
    int spans[3] = {0, 0, 0};
    double dur_us[3] = {0, 0, 0};
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0)
            continue;
        int tid = (int)json_integer_value(json_object_get(e, "tid"));
        CHECK(tid >= 0 && tid <= 2);
        if (tid < 0 || tid > 2)
            continue;
        spans[tid]++;
        dur_us[tid] += json_real_value(json_object_get(e, "dur"));
        CHECK(strstr(json_string_value(json_object_get(e, "name")), "alexnet-2012#") != NULL);
    }
    /* Adjacent blocks of a stage merge into one span, and the spans cover
     * exactly the engines' computing and the channel's transfers. */
    for (int e = 0; e < 2; e++) {
        CHECK(spans[e] >= 2 && spans[e] < r.engine[e].compute_blocks);
        CHECK_NEAR(dur_us[e], r.engine[e].busy_s * 1e6, 0, 1e-3 * spans[e]);
    }
    CHECK_NEAR(dur_us[2], r.bytes / p.bw_bps * 1e6, 0, 1e-3 * spans[2]);
    json_decref(root);
    fclose(f);
    sf_workload_free(&w);
}

/*
 * A CONV-only model (no FC layer, so FF.F completes inside the step that
 * readies it) on one core, split (1, 0), two instances, inference:
 *   out of order: load c1 [0,20], load c2 [20,40], compute c1 [20,21],
 *     store c1 [40,44], compute c2 [40,41], store c2 [44,48]: 48 s;
 *   in order: 2 x (20 + 1 + 4) = 50 s.
 * Each instance is counted once (it used to complete twice and the run
 * ended "simulation stalled"); training completes too.
 */
TEST(synergy_sim_conv_only_counts_each_instance_once)
{
    sf_layer l = conv1x1(4, 4);
    sf_workload w = one_model(&l, 1, 2);
    sf_platform p = unit_platform(1);
    sf_sim_config ooo = split_config(1, 0, 0, 1), ino = split_config(1, 0, 0, 0);
    CHECK_NEAR(sim_time(&w, &p, &ooo), 48.0, 1e-12, 0);
    CHECK_NEAR(sim_time(&w, &p, &ino), 50.0, 1e-12, 0);
    sf_sim_config train = split_config(1, 0, 1, 1);
    sf_sim_result r;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(sf_simulate(&w, &p, &train, &r, &err), DNP_OK);
    CHECK_EQ_INT(r.instances, 2);
    CHECK_EQ_INT(r.engine[1].tasks, 0);
    /* The same through a model file: synergy takes model JSON and ONNX. */
    sf_workload f = parse_ok("tests/data/conv_only.json:10");
    CHECK_EQ_INT(f.n_models, 1);
    CHECK_EQ_INT(f.models[0].n_layers, 2);
    CHECK_EQ_INT(f.models[0].instances, 10);
    CHECK_EQ_INT(f.models[0].layers[0].macs + f.models[0].layers[1].macs, 1622016);
    sf_workload_free(&f);
}

/* Two spans that touch (A ends where B starts) at sub-nanosecond times:
 * A [0.6, 1.2] ns, B [1.2, 3.0] ns.  Rounding start and duration apart
 * wrote A as ts 0.001 us + dur 0.001 us, past B's start 0.001 us; with the
 * end rounded instead, A ends exactly where B starts. */
TEST(synergy_trace_touching_spans_do_not_overlap)
{
    sf_layer l = fc(8, 8);
    sf_workload w = one_model(&l, 1, 2);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f == NULL)
        return;
    sf_trace *t = sf_trace_new(f, &w, 0, 100);
    const sf_sim_sink *k = sf_trace_sink(t);
    k->compute(k->ctx, 0, 0.6e-9, 1.2e-9, 0, 0, SF_FF_C);
    k->compute(k->ctx, 0, 1.2e-9, 3.0e-9, 1, 0, SF_FF_C);
    CHECK_EQ_INT(sf_trace_finish(t), 0);
    sf_trace_free(t);
    rewind(f);
    json_error_t jerr;
    json_t *root = json_loadf(f, 0, &jerr);
    fclose(f);
    CHECK(root != NULL);
    if (root == NULL)
        return;
    json_t *ev = json_object_get(root, "traceEvents");
    double ts[2] = {-1, -1}, dur[2] = {-1, -1};
    int n = 0;
    for (size_t i = 0; i < json_array_size(ev) && n < 2; i++) {
        json_t *e = json_array_get(ev, i);
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0)
            continue;
        ts[n] = json_number_value(json_object_get(e, "ts"));
        dur[n] = json_number_value(json_object_get(e, "dur"));
        n++;
    }
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(llround((ts[0] + dur[0]) * 1000), llround(ts[1] * 1000));
    CHECK_EQ_INT(llround(ts[0] * 1000), 1);
    CHECK_EQ_INT(llround(ts[1] * 1000), 1);
    CHECK_EQ_INT(llround(dur[1] * 1000), 2);
    json_decref(root);
}

/* Model names come from file names: the trace escapes them, so a name
 * with a quote, a backslash and a tab still gives valid JSON whose span
 * names read back as the name. */
TEST(synergy_trace_escapes_model_names)
{
    sf_layer l = fc(8, 8);
    sf_workload w = one_model(&l, 1, 2);
    snprintf(w.models[0].name, sizeof w.models[0].name, "a\"b\\c\td");
    sf_platform p = unit_platform(1);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f == NULL)
        return;
    sf_trace *t = sf_trace_new(f, &w, 0, 1000);
    sf_sim_config c = split_config(0, 1, 0, 1);
    c.sink = sf_trace_sink(t);
    sf_sim_result r;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(sf_simulate(&w, &p, &c, &r, &err), DNP_OK);
    CHECK_EQ_INT(sf_trace_finish(t), 0);
    sf_trace_free(t);
    rewind(f);
    json_error_t je;
    json_t *root = json_loadf(f, 0, &je);
    CHECK(root != NULL);
    int named = 0;
    json_t *ev = json_object_get(root, "traceEvents");
    for (size_t i = 0; i < json_array_size(ev); i++) {
        const char *name = json_string_value(json_object_get(json_array_get(ev, i), "name"));
        named += name != NULL && strncmp(name, "a\"b\\c\td#", 8) == 0;
    }
    CHECK(named >= 2);
    json_decref(root);
    fclose(f);
}
