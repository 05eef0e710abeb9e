/* test_alloc_fail.c - allocation failure (issue 12, item 4): a hook that
 * fails the Nth allocation, for every N of a run (or, for the large plans,
 * a deterministic stride of N; `make alloc-check` sets DNNPAR_ALLOC_FULL=1
 * and visits every N of every run).  Each failed run must return
 * DNP_ERR_NOMEM with a message, hand back no partial result (the runs
 * check their out-pointers), and leave no block alive (counted here, and
 * LeakSanitizer at exit). */
#include "dnnpar.h"
#include "model/graph_named.h"
#include "test.h"

#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

/* One run of the code under test: everything it allocates is freed before
 * it returns, whatever the status. */
typedef dnp_status (*alloc_fail_run)(void *arg, dnp_error *err);

typedef struct {
    long total;    /* allocation calls of the reference run */
    long runs;     /* runs with one allocation failed */
    long survived; /* of those, runs that still succeeded */
    long bad;      /* runs that leaked, or failed without DNP_ERR_NOMEM and a message */
} alloc_fail_stats;

/* The hook's state: allocation calls so far, the one to fail (0: none),
 * blocks alive. */
static struct {
    long calls, fail_at, live;
    int failed;
} hk;

static void *fail_alloc(void *ctx, size_t n)
{
    (void)ctx;
    if (++hk.calls == hk.fail_at) {
        hk.failed = 1;
        return NULL;
    }
    void *p = malloc(n);
    hk.live += p != NULL;
    return p;
}

static void *fail_resize(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (++hk.calls == hk.fail_at) {
        hk.failed = 1;
        return NULL;
    }
    return realloc(p, n);
}

static void fail_release(void *ctx, void *p)
{
    (void)ctx;
    hk.live -= p != NULL;
    free(p);
}

static dnp_allocator fail_hook = {fail_alloc, fail_resize, fail_release, NULL};

const dnp_allocator *test_fail_allocator(long fail_at)
{
    hk.calls = hk.live = 0;
    hk.fail_at = fail_at;
    hk.failed = 0;
    return &fail_hook;
}

long test_fail_live(void) { return hk.live; }

/* Run once with allocation call `n` failing (0: none). */
static dnp_status run_failing(alloc_fail_run run, void *arg, long n, dnp_error *err)
{
    hk.calls = hk.live = 0;
    hk.fail_at = n;
    hk.failed = 0;
    dnp_error_clear(err);
    dnp_set_allocator(&fail_hook);
    dnp_status s = run(arg, err);
    dnp_set_allocator(NULL);
    return s;
}

/* Count the allocation calls T of a run that fails nothing, then run once
 * for each N = skip + 1, skip + 1 + stride, ... and N = T with the Nth call
 * failing, the stride chosen for about `max_runs` runs (1 when there are
 * fewer calls, and under DNNPAR_ALLOC_FULL=1: every N).  Prints the first
 * bad runs, naming `what`. */
static void alloc_fail_sweep(const char *what, alloc_fail_run run, void *arg, long max_runs,
                             long skip, alloc_fail_stats *st)
{
    dnp_error err = {0};
    memset(st, 0, sizeof *st);
    dnp_status ref = run_failing(run, arg, 0, &err);
    st->total = hk.calls;
    long span = st->total - skip, stride = span > max_runs ? span / max_runs : 1;
    const char *full = getenv("DNNPAR_ALLOC_FULL");
    if (full != NULL && strcmp(full, "1") == 0)
        stride = 1;
    if (ref != DNP_OK || hk.live != 0) {
        printf("  %s: reference run status %d (%s), %ld blocks alive\n", what, (int)ref,
               err.msg, hk.live);
        st->bad++;
        return;
    }
    for (long n = 1 + skip; n <= st->total; n = n < st->total && n + stride > st->total ? st->total
                                                                                : n + stride) {
        if (getenv("DNNPAR_ALLOC_TRACE") != NULL)
            fprintf(stderr, "%s: failing allocation %ld of %ld\n", what, n, st->total);
        dnp_status s = run_failing(run, arg, n, &err);
        st->runs++;
        st->survived += s == DNP_OK;
        int ok = hk.live == 0 && (s == DNP_OK || (s == DNP_ERR_NOMEM && err.msg[0] != '\0'));
        if (!ok) {
            if (st->bad < 5)
                printf("  %s: allocation %ld of %ld failed -> status %d \"%s\", %ld blocks "
                       "alive\n",
                       what, n, st->total, (int)s, err.msg, hk.live);
            st->bad++;
        }
    }
    if (getenv("DNNPAR_ALLOC_REPORT") != NULL)
        fprintf(stderr, "  alloc-check %-34s %7ld allocations, %7ld runs, %5ld survived, %ld bad\n",
               what, st->total, st->runs, st->survived, st->bad);
}

/* ---------------------------------------------------------------- */
/* The runs                                                          */
/* ---------------------------------------------------------------- */

static dnp_status run_zoo(void *arg, dnp_error *err)
{
    dnp_graph *g = NULL;
    dnp_status s = dnp_zoo_build(arg, &g, err);
    if (s != DNP_OK && g != NULL)
        return DNP_ERR_INTERNAL; /* a partial result */
    dnp_graph_free(g);
    return s;
}

typedef struct {
    const dnp_graph *g;
    dnp_cluster cl;
    dnp_plan_options opt;
} plan_case;

static dnp_status run_plan(void *arg, dnp_error *err)
{
    plan_case *pc = arg;
    dnp_plan *p = NULL;
    dnp_status s = dnp_plan_run(pc->g, &pc->cl, &pc->opt, &p, err);
    if (s != DNP_OK && p != NULL)
        return DNP_ERR_INTERNAL;
    dnp_plan_free(p);
    return s;
}

/* The executed accounting of a plan made outside the sweep. */
typedef struct {
    const dnp_plan *p;
    const dnp_graph *g;
} devcomm_case;

static dnp_status run_devcomm(void *arg, dnp_error *err)
{
    devcomm_case *dc = arg;
    dnp_device_comm *out = NULL;
    int n = 0;
    dnp_status s = dnp_plan_device_comm(dc->p, dc->g, 4, &out, &n, err);
    dnp_free(out);
    return s;
}

static dnp_status run_model_load(void *arg, dnp_error *err)
{
    dnp_graph *g = NULL;
    dnp_status s = dnp_model_load(arg, &g, err);
    if (s != DNP_OK && g != NULL)
        return DNP_ERR_INTERNAL;
    dnp_graph_free(g);
    return s;
}

static dnp_status run_accpar_text(void *arg, dnp_error *err)
{
    dnp_graph *g = NULL;
    dnp_status s = dnp_load_accpar_text(arg, &g, err);
    if (s != DNP_OK && g != NULL)
        return DNP_ERR_INTERNAL;
    dnp_graph_free(g);
    return s;
}

static dnp_status run_cluster_json(void *arg, dnp_error *err)
{
    dnp_cluster c;
    return dnp_cluster_read_json(arg, &c, err);
}

static dnp_status run_strategy(void *arg, dnp_error *err)
{
    dnp_strategy *s = NULL;
    dnp_status st = dnp_strategy_read(arg, &s, err);
    if (st != DNP_OK && s != NULL)
        return DNP_ERR_INTERNAL;
    dnp_strategy_free(s);
    return st;
}

static dnp_status run_validate(void *arg, dnp_error *err)
{
    dnp_validation *v = NULL;
    dnp_status st = dnp_validate_csv(arg, 1, &v, err);
    if (st != DNP_OK && v != NULL)
        return DNP_ERR_INTERNAL;
    dnp_validation_free(v);
    return st;
}

static int write_temp(char *path, const char *suffix, const char *text)
{
    snprintf(path, 64, "/tmp/dnnpar_allocfail_XXXXXX%s", suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    size_t n = text ? strlen(text) : 0;
    int ok = fd >= 0 && text != NULL && write(fd, text, n) == (ssize_t)n;
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

#define SWEEP(what, fn, arg, max_runs, skip)                                          \
    do {                                                                              \
        alloc_fail_stats st_;                                                         \
        alloc_fail_sweep(what, fn, arg, max_runs, skip, &st_);                                \
        CHECK(st_.total > 0);                                                         \
        CHECK_EQ_INT(st_.bad, 0);                                                     \
    } while (0)

/* The loaders read the file into one buffer (dnp_input_read: one
 * allocation) and parse it with json_loadb.  jansson's own parse is not
 * dnnpar code and Debian's jansson 2.14 does not survive every failed
 * allocation in it (a write through a bad pointer when the 5th, a 32-byte
 * block, fails while parsing a cluster JSON; elsewhere an out-of-memory
 * reported as a syntax error), so the JSON-file sweeps start after the
 * buffer and the parse: these are their allocation calls. */
static dnp_status run_jansson_parse(void *arg, dnp_error *err)
{
    (void)err;
    FILE *f = fopen(arg, "rb");
    static char text[1 << 20];
    size_t n = f ? fread(text, 1, sizeof text, f) : 0;
    if (f)
        fclose(f);
    void *buffer = dnp_malloc(n + 1); /* stands for dnp_input_read's buffer */
    json_error_t jerr;
    json_t *root = json_loadb(text, n, 0, &jerr);
    json_decref(root);
    dnp_free(buffer);
    return DNP_OK;
}

static long jansson_parse_allocs(const char *path)
{
    dnp_error err = {0};
    run_failing(run_jansson_parse, (void *)path, 0, &err);
    return hk.calls;
}

/* Every loader: every N up to LOADER_RUNS calls, else a stride. */
#define LOADER_RUNS 400
TEST(alloc_failure_loaders)
{
    char path[512], tmp[64];
    /* model JSON: a zoo model written out */
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_zoo_build("resnet18", &g, &err) == DNP_OK);
    char *json = dnp_model_to_json(g);
    dnp_graph_free(g);
    CHECK(write_temp(tmp, ".json", json) == 0);
    dnp_free(json);
    SWEEP("model JSON resnet18", run_model_load, tmp, LOADER_RUNS, jansson_parse_allocs(tmp));
    unlink(tmp);
    /* ONNX: the smallest real model */
    snprintf(path, sizeof path, "%s/onnx/alexnet.onnx", test_data_dir());
    SWEEP("ONNX alexnet", run_model_load, path, LOADER_RUNS, 0);
    /* ONNX with decomposed layer norms, GELUs and bias adds: the fusion
     * pass and its rebuilt graph (src/model/onnx_fuse.c) */
    SWEEP("ONNX convnext_mini (fused)", run_model_load, "tests/data/convnext_mini.onnx",
          LOADER_RUNS, 0);
    /* cluster JSON */
    dnp_cluster c;
    CHECK(dnp_cluster_parse("2xtpu-v2+2xtpu-v3", &c, &err) == DNP_OK);
    json = dnp_cluster_to_json(&c);
    CHECK(write_temp(tmp, ".json", json) == 0);
    dnp_free(json);
    SWEEP("cluster JSON", run_cluster_json, tmp, LOADER_RUNS, jansson_parse_allocs(tmp));
    unlink(tmp);
    /* strategy JSON (written by dnnpar plan alexnet --cluster 4xtpu-v3 --batch 64) */
    SWEEP("strategy JSON", run_strategy, "tests/data/alloc_strategy.json", LOADER_RUNS,
          jansson_parse_allocs("tests/data/alloc_strategy.json"));
    /* validate CSV */
    SWEEP("validate CSV", run_validate, "tests/data/validate_custom.csv", 8, 0);
    /* AccPar layer text */
    snprintf(path, sizeof path, "%s/reference/accpar/Alexnet.txt", test_data_dir());
    SWEEP("AccPar text Alexnet", run_accpar_text, path, LOADER_RUNS, 0);
}

/* Every zoo model built: about 100 failure points each. */
TEST(alloc_failure_zoo_builds)
{
    for (int i = 0; i < dnp_zoo_count(); i++)
        SWEEP(dnp_zoo_name(i), run_zoo, (void *)dnp_zoo_name(i), 100, 0);
}

/* A plan of every zoo model on 4 TPU-v3 at batch 32, both cost models:
 * about PLAN_RUNS failure points each (DNNPAR_ALLOC_FULL=1: every N). */
#define PLAN_RUNS 30
TEST(alloc_failure_plans)
{
    dnp_error err = {0};
    {
        dnp_graph *g = NULL;
        dnp_cluster cl;
        dnp_plan *p = NULL;
        dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 12,
                                .precision = DNP_PREC_FP32};
        CHECK(dnp_zoo_build("lenet", &g, &err) == DNP_OK);
        CHECK(dnp_cluster_parse("1xtpu-v2+2xtpu-v3", &cl, &err) == DNP_OK);
        CHECK(dnp_plan_run(g, &cl, &opt, &p, &err) == DNP_OK);
        devcomm_case dc = {p, g};
        SWEEP("device comm lenet", run_devcomm, &dc, PLAN_RUNS, 0);
        dnp_plan_free(p);
        dnp_graph_free(g);
    }
    for (int i = 0; i < dnp_zoo_count(); i++) {
        dnp_graph *g = NULL;
        if (dnp_zoo_build(dnp_zoo_name(i), &g, &err) != DNP_OK) {
            CHECK(0);
            continue;
        }
        if (graph_named_refuse(g, "", &err) != DNP_OK) { /* layer-wise planners refuse named
                                                          * kinds: test_graph_named.c */
            dnp_error_clear(&err);
            dnp_graph_free(g);
            continue;
        }
        for (int cm = 0; cm < 2; cm++) {
            plan_case pc = {g, {0}, {0}};
            CHECK(dnp_cluster_parse("4xtpu-v3", &pc.cl, &err) == DNP_OK);
            pc.opt.scheme = DNP_SCHEME_ACCPAR;
            pc.opt.batch = 32;
            pc.opt.cost_model = cm ? DNP_COST_ACCPAR_PAPER : DNP_COST_DEFAULT;
            pc.opt.keep_over_memory = 1;
            char what[96];
            snprintf(what, sizeof what, "plan %s %s", dnp_zoo_name(i), cm ? "paper" : "default");
            SWEEP(what, run_plan, &pc, PLAN_RUNS, 0);
        }
        dnp_graph_free(g);
    }
}

/* The public PaSE driver: a problem, a search with its baselines and the
 * JSON report.  A run that survives a failed allocation must still give
 * the reference run's F and baselines (want[] < 0: record them). */
typedef struct {
    dnp_pase_run_options ro;
    double want[4];      /* F, then the baselines' F (seconds: the default cost model) */
    const char *cluster; /* NULL: 4 bare devices (dnp_pase_hw_uniform) */
    int64_t batch;
} pase_case;

static dnp_status run_pase(void *arg, dnp_error *err)
{
    pase_case *pc = arg;
    dnp_pase_hw hw;
    dnp_pase_problem *pb = NULL;
    dnp_pase_run *r = NULL;
    dnp_pase_options po = {.batch = pc->batch}; /* the default (seconds) cost model */
    dnp_cluster cl;
    dnp_status s = pc->cluster == NULL ? dnp_pase_hw_uniform(4, 10e12, 16e9, &hw, err)
                                       : dnp_cluster_parse(pc->cluster, &cl, err);
    if (s == DNP_OK && pc->cluster != NULL)
        s = dnp_pase_hw_from_cluster(&cl, &hw, err);
    if (s == DNP_OK)
        s = dnp_pase_problem_load("lenet", &hw, &po, &pb, err);
    if (s != DNP_OK && pb != NULL)
        return DNP_ERR_INTERNAL;
    if (s == DNP_OK && (s = dnp_pase_run_new(pb, &pc->ro, &r, err)) != DNP_OK && r != NULL)
        return DNP_ERR_INTERNAL;
    if (s == DNP_OK) {
        dnp_pase_summary sum;
        dnp_pase_run_summary(r, &sum);
        double got[4] = {sum.cost_s, -1, -1, -1};
        for (int b = 0; b < sum.n_baselines && b < 3; b++) {
            dnp_pase_baseline bl;
            got[b + 1] = dnp_pase_run_baseline(r, b, &bl, err) == DNP_OK ? bl.cost_s : -2;
        }
        if (pc->want[0] < 0) /* the reference run, which fails nothing */
            memcpy(pc->want, got, sizeof got);
        if (memcmp(pc->want, got, sizeof got) != 0)
            s = DNP_ERR_INTERNAL; /* a different answer after a failed allocation */
        char *text = s == DNP_OK ? dnp_pase_run_json(r) : NULL;
        if (s == DNP_OK && text == NULL) {
            s = DNP_ERR_NOMEM;
            dnp_error_set(err, s, "out of memory writing JSON");
        }
        dnp_free(text);
    }
    dnp_pase_run_free(r);
    dnp_pase_problem_free(pb);
    return s;
}

TEST(alloc_failure_pase)
{
    pase_case pc = {
        {DNP_PASE_SEARCH_DP, 1, 2000, 1, 0, 0.0, NULL, NULL, 0, 0.0}, {-1, -1, -1, -1}, NULL, 16};
    SWEEP("pase lenet p 4", run_pase, &pc, 200, 0);
    pase_case mc = {
        {DNP_PASE_SEARCH_MCMC, 1, 2000, 1, 1, 0.0, NULL, NULL, 0, 0.0}, {-1, -1, -1, -1}, NULL, 16};
    SWEEP("pase mcmc lenet p 4", run_pase, &mc, 200, 0);
    /* the shared model's memory fit (a device capacity) and type split */
    pase_case hc = {{DNP_PASE_SEARCH_DP, 1, 2000, 1, 0, 0.0, NULL, NULL, 0, 0.0},
                    {-1, -1, -1, -1},
                    "1xa100+1xv100",
                    8};
    SWEEP("pase lenet type split", run_pase, &hc, 200, 0);
}
