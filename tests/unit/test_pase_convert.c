/* test_pase_convert.c - the core-graph converter: the zoo's pase-* models
 * convert to the prototype's graphs, every core
 * zoo model converts and searches, unsupported input is a clear error,
 * and the compare entry point. */
#include "search/pase/pase.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pase_graph *convert(const char *zoo, int64_t batch)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    if (dnp_zoo_build(zoo, &g, &err) != DNP_OK) {
        printf("  %s: %s\n", zoo, err.msg);
        return NULL;
    }
    pase_graph *pg = NULL;
    if (pase_from_graph(g, batch, &pg, &err) != DNP_OK)
        printf("  %s: %s\n", zoo, err.msg);
    dnp_graph_free(g);
    return pg;
}

/* Same vertices (kind, domain, cost parameters) and edges (endpoints,
 * tensor, maps) as the native graph. */
static int same_graph(const pase_graph *a, const pase_graph *b)
{
    int bad = 0;
    if (a->n_v != b->n_v || a->n_e != b->n_e || a->cutoff != b->cutoff) {
        printf("  %d ops / %d edges, native %d / %d\n", a->n_v, a->n_e, b->n_v, b->n_e);
        return 0;
    }
    for (int v = 0; v < a->n_v; v++) {
        const pase_vertex *x = &a->v[v], *y = &b->v[v];
        int same = x->kind == y->kind && x->rank == y->rank && x->fixed == y->fixed &&
                   x->contiguous == y->contiguous && x->pw == y->pw && x->axis == y->axis &&
                   x->axes == y->axes && x->win_r == y->win_r && x->win_s == y->win_s &&
                   x->in_h == y->in_h && x->in_w == y->in_w && x->gemm_b == y->gemm_b &&
                   x->gemm_m == y->gemm_m && x->gemm_n == y->gemm_n && x->gemm_k == y->gemm_k;
        for (int d = 0; same && d < x->rank; d++)
            same = x->dom[d] == y->dom[d];
        if (!same && bad++ < 5)
            printf("  op %d '%s' differs from native '%s'\n", v, x->name, y->name);
    }
    for (int k = 0; k < a->n_e; k++) {
        const pase_edge *x = &a->e[k], *y = &b->e[k];
        int same = x->src == y->src && x->dst == y->dst && x->dst_port == y->dst_port &&
                   x->rank == y->rank;
        for (int d = 0; same && d < x->rank; d++)
            same = x->shape[d] == y->shape[d] && x->src_map[d] == y->src_map[d] &&
                   x->dst_map[d] == y->dst_map[d];
        if (!same && bad++ < 5)
            printf("  edge %d (%d -> %d) differs from native\n", k, x->src, x->dst);
    }
    return bad == 0;
}

/* The zoo's pase-* models convert to the prototype's graphs: its vertex
 * and edge counts (reference CSVs; the cost entries themselves are
 * checked in test_pase_tables.c) and the cutoff its README gives. */
TEST(pase_convert_reference_models)
{
    static const struct {
        const char *name;
        int n_v, n_e, cutoff;
    } want[] = {{"pase-alexnet", 14, 13, 4},
                {"pase-inception3", 219, 253, 4},
                {"pase-resnet101", 245, 277, 4},
                {"pase-rnnlm", 4, 3, 1}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        pase_graph *c = convert(want[i].name, 128), *n = NULL;
        dnp_error err = {0};
        CHECK(pase_model_build(want[i].name, 128, &n, &err) == DNP_OK);
        CHECK(c != NULL && n != NULL);
        if (c && n) {
            CHECK_EQ_INT(c->n_v, want[i].n_v);
            CHECK_EQ_INT(c->n_e, want[i].n_e);
            CHECK_EQ_INT(n->cutoff, want[i].cutoff);
            n->cutoff = c->cutoff; /* the only difference */
            CHECK(same_graph(c, n));
        }
        pase_graph_free(c);
        pase_graph_free(n);
    }
}

/* Every core zoo model converts and PaSE beats (or ties) data parallelism. */
TEST(pase_convert_zoo)
{
    static const char *const names[] = {"lenet", "alexnet", "vgg11", "vgg19", "resnet18",
                                        "resnet50"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        pase_graph *g = convert(names[i], 32);
        CHECK(g != NULL);
        if (g == NULL)
            continue;
        pase_params par = {4, 5000.0, 0, 1e9};
        pase_problem pb;
        dnp_error err = {0};
        CHECK(pase_problem_build(g, &par, &pb, &err) == DNP_OK);
        pase_result r;
        CHECK(pase_search(&pb, 0, NULL, &r, &err) == DNP_OK);
        int *dp = dnp_malloc((size_t)pb.n_v * sizeof(int)), *ex = dnp_malloc((size_t)pb.n_v * sizeof(int));
        char name[32];
        pase_data_parallel(&pb, dp);
        CHECK(pase_expert(&pb, ex, name, sizeof name, &err) == DNP_OK);
        CHECK(r.cost <= pase_objective(&pb, dp) * (1 + 1e-12));
        CHECK(r.cost <= pase_objective(&pb, ex) * (1 + 1e-12));
        CHECK_STR(name, "owt");
        dnp_free(dp);
        dnp_free(ex);
        pase_result_free(&r);
        pase_problem_free(&pb);
        pase_graph_free(g);
    }
}

TEST(pase_convert_errors)
{
    dnp_graph *g = dnp_graph_new("grouped");
    int x = dnp_graph_input(g, "data", 4, 8, 8);
    dnp_graph_conv(g, "gconv", x, 4, 3, 1, 1, 2, 0);
    pase_graph *pg = NULL;
    dnp_error err = {0};
    /* grouped convs convert (test_pase_grouped.c); batch 0 does not */
    CHECK(pase_from_graph(g, 8, &pg, &err) == DNP_OK);
    CHECK(pg != NULL && pg->n_v == 1 && pg->v[0].kind == PASE_GROUP_CONV);
    pase_graph_free(pg);
    pg = NULL;
    dnp_error e2 = {0};
    CHECK(pase_from_graph(g, 0, &pg, &e2) == DNP_ERR_INPUT);
    CHECK(strstr(e2.msg, "batch") != NULL && pg == NULL);
    dnp_graph_free(g);
    /* a dense graph: the tables are refused with the size they would need */
    pase_graph *d = convert("pase-densenet121", 64);
    CHECK(d != NULL);
    if (d != NULL) {
        pase_params par = {8, 5000.0, 0, 2048.0 * 1048576.0};
        pase_problem pb;
        dnp_error e3 = {0};
        CHECK(pase_problem_build(d, &par, &pb, &e3) == DNP_OK);
        pase_result r;
        CHECK(pase_search(&pb, 0, NULL, &r, &e3) == DNP_ERR_INPUT);
        CHECK(strstr(e3.msg, "would need") != NULL);
        pase_problem_free(&pb);
        pase_graph_free(d);
    }
}

/* The entry point for `dnnpar compare`: seconds at the peak, PaSE never
 * worse than the baselines it is compared with. */
TEST(pase_compare_entry)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_zoo_build("pase-alexnet", &g, &err) == DNP_OK);
    pase_compare_result r;
    CHECK(pase_compare(g, 8, 128, 10e12, 16e9, 8, &r, &err) == DNP_OK);
    CHECK_NEAR(r.pase_s, 97098296512.0 / 10e12, 1e-9, 0);
    CHECK(r.pase_s <= r.dp_s && r.pase_s <= r.expert_s && r.pase_s <= r.mcmc_s * (1 + 1e-12));
    CHECK(r.mcmc_s <= r.expert_s * (1 + 1e-12));
    CHECK_STR(r.expert, "owt");
    dnp_error e2 = {0};
    CHECK(pase_compare(g, 0, 128, 10e12, 16e9, 8, &r, &e2) == DNP_ERR_INPUT);
    dnp_graph_free(g);
}
