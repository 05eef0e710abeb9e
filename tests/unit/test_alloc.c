/* test_alloc.c - the allocator hook (dnnpar.h, "Memory") sees every block:
 * the library's own, jansson's and protobuf-c's, and gets all of them back. */
#include "dnnpar.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

typedef struct {
    long allocs, frees, live;
} counts;

static void *count_alloc(void *ctx, size_t n)
{
    counts *c = ctx;
    void *p = malloc(n);
    if (p != NULL) {
        c->allocs++;
        c->live++;
    }
    return p;
}

static void *count_resize(void *ctx, void *p, size_t n)
{
    (void)ctx;
    return realloc(p, n);
}

static void count_release(void *ctx, void *p)
{
    counts *c = ctx;
    if (p != NULL) {
        c->frees++;
        c->live--;
    }
    free(p);
}

TEST(alloc_hook_sees_every_block_of_a_plan)
{
    counts c = {0, 0, 0};
    dnp_allocator a = {count_alloc, count_resize, count_release, &c};
    dnp_set_allocator(&a);
    dnp_error err = {0};
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_plan *p = NULL;
    CHECK(dnp_zoo_build("resnet18", &g, &err) == DNP_OK);
    CHECK(dnp_cluster_parse("8xtpu-v3", &cl, &err) == DNP_OK);
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 64};
    CHECK(dnp_plan_run(g, &cl, &opt, &p, &err) == DNP_OK);
    char *json = dnp_model_to_json(g); /* jansson allocates through the hook */
    CHECK(json != NULL);
    long before_json_free = c.live;
    dnp_free(json);
    CHECK_EQ_INT(c.live, before_json_free - 1);
    dnp_plan_free(p);
    dnp_graph_free(g);
    CHECK(c.allocs > 100);
    CHECK_EQ_INT(c.live, 0);

    /* protobuf-c: an ONNX model's decoded message goes through the hook. */
    char path[512];
    snprintf(path, sizeof path, "%s/onnx/alexnet.onnx", test_data_dir());
    long allocs_before = c.allocs;
    CHECK(dnp_model_load(path, &g, &err) == DNP_OK);
    CHECK(c.allocs - allocs_before > 20);
    dnp_graph_free(g);
    CHECK_EQ_INT(c.live, 0);
    dnp_set_allocator(NULL);
}

/* The output writer (src/core/outfile.c) under allocation failure: failing
 * each of its allocations in turn gives DNP_ERR_NOMEM, no file, no leak. */
typedef struct {
    long n, fail_at, live;
} failing;

static void *fail_alloc(void *ctx, size_t n)
{
    failing *f = ctx;
    if (++f->n == f->fail_at)
        return NULL;
    void *p = malloc(n);
    if (p != NULL)
        f->live++;
    return p;
}

static void *fail_resize(void *ctx, void *p, size_t n)
{
    failing *f = ctx;
    if (++f->n == f->fail_at)
        return NULL;
    return realloc(p, n);
}

static void fail_release(void *ctx, void *p)
{
    failing *f = ctx;
    if (p != NULL)
        f->live--;
    free(p);
}

TEST(alloc_failure_in_output_writer)
{
    char dir[] = "/tmp/dnnpar-alloc-out.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[64];
    /* a missing path: the atomic branch with its temporary file */
    snprintf(path, sizeof path, "%s/out.txt", dir);
    failing f = {0, 0, 0};
    dnp_allocator a = {fail_alloc, fail_resize, fail_release, &f};
    dnp_set_allocator(&a);
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_write_file(path, "x\n", 2, &err), DNP_OK);
    long total = f.n;
    CHECK(total >= 3); /* the object, the path, the target, the temporary name */
    CHECK_EQ_INT(f.live, 0);
    unlink(path);
    for (long k = 1; k <= total; k++) {
        f = (failing){0, k, 0};
        dnp_error_clear(&err);
        CHECK_EQ_INT(dnp_write_file(path, "x\n", 2, &err), DNP_ERR_NOMEM);
        CHECK(strstr(err.msg, "out of memory") != NULL);
        CHECK_EQ_INT(f.live, 0);
        CHECK(access(path, F_OK) != 0);
    }
    dnp_set_allocator(NULL);
    CHECK(rmdir(dir) == 0); /* empty: no temporary file left behind */
}
