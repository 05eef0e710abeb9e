/* test_alloc.c - the allocator hook (dnnpar.h, "Memory") sees every block:
 * the library's own, jansson's and protobuf-c's, and gets all of them back. */
#include "dnnpar.h"
#include "test.h"

#include <stdlib.h>

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
    snprintf(path, sizeof path, "%s/data/onnx/alexnet.onnx", test_shared_dir());
    long allocs_before = c.allocs;
    CHECK(dnp_model_load(path, &g, &err) == DNP_OK);
    CHECK(c.allocs - allocs_before > 20);
    dnp_graph_free(g);
    CHECK_EQ_INT(c.live, 0);
    dnp_set_allocator(NULL);
}
