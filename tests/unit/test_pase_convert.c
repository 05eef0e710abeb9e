/* test_pase_convert.c - the core graph's iteration spaces: each op owns
 * its loop nests in graph order, the zoo's pase-* models give the
 * prototype's graphs, every core zoo model's spaces build and search,
 * unsupported input is a clear error, and the compare entry point. */
#include "search/pase/pase.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static iter_space *convert(const char *zoo, int64_t batch)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    if (dnp_zoo_build(zoo, &g, &err) != DNP_OK) {
        printf("  %s: %s\n", zoo, err.msg);
        return NULL;
    }
    iter_space *pg = NULL;
    if (iter_space_build(g, batch, &pg, &err) != DNP_OK) {
        printf("  %s: %s\n", zoo, err.msg);
        dnp_graph_free(g);
        return NULL;
    }
    pg->core_owned = g;
    return pg;
}

/* Same vertices (kind, domain, cost parameters) and edges (endpoints,
 * tensor, maps) as the native graph. */
static int same_graph(const iter_space *a, const iter_space *b)
{
    int bad = 0;
    if (a->n_nest != b->n_nest || a->n_read != b->n_read) {
        printf("  %d ops / %d edges, native %d / %d\n", a->n_nest, a->n_read, b->n_nest, b->n_read);
        return 0;
    }
    for (int v = 0; v < a->n_nest; v++) {
        const iter_nest *x = &a->nest[v], *y = &b->nest[v];
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
    for (int k = 0; k < a->n_read; k++) {
        const iter_read *x = &a->read[k], *y = &b->read[k];
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
        iter_space *c = convert(want[i].name, 128), *n = NULL;
        dnp_error err = {0};
        CHECK(pase_model_build(want[i].name, 128, &n, &err) == DNP_OK);
        CHECK(c != NULL && n != NULL);
        if (c && n) {
            CHECK_EQ_INT(c->n_nest, want[i].n_v);
            CHECK_EQ_INT(c->n_read, want[i].n_e);
            CHECK_EQ_INT(pase_model_cutoff(pase_model_find(want[i].name)), want[i].cutoff);
            CHECK(same_graph(c, n));
        }
        iter_space_free(c);
        iter_space_free(n);
    }
}

/* Every core zoo model converts and PaSE beats (or ties) data parallelism. */
TEST(pase_convert_zoo)
{
    static const char *const names[] = {"lenet", "alexnet", "vgg11", "vgg19", "resnet18",
                                        "resnet50"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        iter_space *g = convert(names[i], 32);
        CHECK(g != NULL);
        if (g == NULL)
            continue;
        pase_params par = {4, 5000.0, 0, 1e9, 0};
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
        iter_space_free(g);
    }
}

/* pase-alexnet's ops and their nests, by hand: the input and the ReLUs
 * own none (a ReLU's work is carried by its conv or FC, pw 1), the
 * flatten owns Ravel + Unravel (the Unravel is its own iteration space,
 * the Ravel a stage before it), every other op one nest, in graph order;
 * each nest lies in its owner's range and the reads follow the ops'
 * inputs. */
TEST(iter_space_ops_own_their_nests)
{
    iter_space *s = convert("pase-alexnet", 128);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    const dnp_graph *g = s->core;
    CHECK_EQ_INT(s->n_core, dnp_graph_n_ops(g));
    CHECK_EQ_INT(s->nest_start[0], 0);
    CHECK_EQ_INT(s->nest_start[s->n_core], s->n_nest);
    for (int v = 0; v < s->n_nest; v++) {
        int o = s->nest[v].owner;
        CHECK(o >= 0 && o < s->n_core && s->nest_start[o] <= v && v < s->nest_start[o + 1]);
        CHECK(s->nest[v].op < 0 || s->nest[v].op == o);
    }
    for (int i = 0; i < s->n_core; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        int own = s->nest_start[i + 1] - s->nest_start[i];
        if (op->kind == DNP_OP_INPUT || op->kind == DNP_OP_RELU) {
            CHECK_EQ_INT(own, 0);
            if (op->kind == DNP_OP_RELU) {
                int c = s->carrier[i];
                CHECK(c >= 0 && s->nest[c].op == op->inputs[0] && s->nest[c].pw == 1);
            } else {
                CHECK_EQ_INT(s->carrier[i], -1);
            }
        } else if (op->kind == DNP_OP_FLATTEN) {
            CHECK_EQ_INT(own, 2);
            int r = s->nest_start[i];
            CHECK(s->nest[r].kind == ITER_RAVEL && s->nest[r].op == -1);
            CHECK(s->nest[r + 1].kind == ITER_UNRAVEL && s->nest[r + 1].op == i);
            CHECK_STR(s->nest[r].name, "flatten.ravel");
            CHECK_EQ_INT(s->carrier[i], r + 1);
        } else {
            CHECK_EQ_INT(own, 1);
            CHECK(own == 1 && s->nest[s->nest_start[i]].op == i &&
                  s->carrier[i] == s->nest_start[i]);
        }
    }
    /* the reads: fc6 (nest 10) reads the Unravel (nest 9), which reads the Ravel */
    int fc6 = s->nest_start[dnp_graph_find(g, "fc6")];
    int reads_fc6 = 0;
    for (int k = 0; k < s->n_read; k++)
        if (s->read[k].dst == fc6) {
            reads_fc6++;
            CHECK_EQ_INT(s->read[k].src, fc6 - 1);
            CHECK_EQ_INT(s->read[k].shape[1], 9216); /* 256 x 6 x 6 */
        }
    CHECK_EQ_INT(reads_fc6, 1);
    CHECK_EQ_INT(s->n_nest, 14);
    iter_space_free(s);
}

TEST(pase_convert_errors)
{
    dnp_graph *g = dnp_graph_new("grouped");
    int x = dnp_graph_input(g, "data", 4, 8, 8);
    dnp_graph_conv(g, "gconv", x, 4, 3, 1, 1, 2, 0);
    iter_space *pg = NULL;
    dnp_error err = {0};
    /* grouped convs convert (test_pase_grouped.c); batch 0 does not */
    CHECK(iter_space_build(g, 8, &pg, &err) == DNP_OK);
    CHECK(pg != NULL && pg->n_nest == 1 && pg->nest[0].kind == ITER_GROUP_CONV);
    iter_space_free(pg);
    pg = NULL;
    dnp_error e2 = {0};
    CHECK(iter_space_build(g, 0, &pg, &e2) == DNP_ERR_INPUT);
    CHECK(strstr(e2.msg, "batch") != NULL && pg == NULL);
    dnp_graph_free(g);
    /* a dense graph: the tables are refused with the size they would need */
    iter_space *d = convert("pase-densenet121", 64);
    CHECK(d != NULL);
    if (d != NULL) {
        pase_params par = {8, 5000.0, 0, 2048.0 * 1048576.0, 0};
        pase_problem pb;
        dnp_error e3 = {0};
        CHECK(pase_problem_build(d, &par, &pb, &e3) == DNP_OK);
        pase_result r;
        CHECK(pase_search(&pb, 0, NULL, &r, &e3) == DNP_ERR_INPUT);
        CHECK(strstr(e3.msg, "would need") != NULL);
        pase_problem_free(&pb);
        iter_space_free(d);
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
    CHECK(pase_compare(g, 8, 128, 10e12, 16e9, 8, 0.0, 0.0, &r, &err) == DNP_OK);
    CHECK_NEAR(r.pase_s, 97098296512.0 / 10e12, 1e-9, 0);
    CHECK(r.pase_s <= r.dp_s && r.pase_s <= r.expert_s && r.pase_s <= r.mcmc_s * (1 + 1e-12));
    CHECK(r.mcmc_s <= r.expert_s * (1 + 1e-12));
    CHECK_STR(r.expert, "owt");
    dnp_error e2 = {0};
    CHECK(pase_compare(g, 0, 128, 10e12, 16e9, 8, 0.0, 0.0, &r, &e2) == DNP_ERR_INPUT);
    dnp_graph_free(g);
}
