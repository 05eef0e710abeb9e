/* test_pase_exhaustive.c - FindBestStrategy (GenerateSeq's sequence) and
 * the breadth-first DP against exhaustive enumeration on random small
 * graphs: chains, diamonds, inception-like fans and residual blocks;
 * GenerateSeq's dependent sets against their definition (Theorem 2);
 * results independent of the thread count; the memory guard. */
#include "search/pase/pase.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A random core graph of small tensors, as its iteration space at batch
 * 4: shape 0 chains, 1 diamonds, 2 fans joined by concat, 3 residual
 * blocks, 4 a mix; *cutoff is 1 or 2.  NULL if the graph did not build. */
static iter_space *random_graph(unsigned long long *rng, int shape, int *cutoff)
{
    dnp_graph *g = dnp_graph_new("random");
    *cutoff = 1 + (int)(test_rand(rng) % 2);
    int x = dnp_graph_input(g, "x", 1 + (int64_t)(test_rand(rng) % 4), 4, 4), a, b, c;
    char nm[16];
    int id = 0, blocks = 1 + (int)(test_rand(rng) % 2);
#define NM() (snprintf(nm, sizeof nm, "op%d", id++), nm)
    x = dnp_graph_conv(g, NM(), x, 2 + (int64_t)(test_rand(rng) % 3), 1, 1, 0, 1, 0);
    for (int k = 0; k < blocks; k++) {
        int s = shape == 4 ? (int)(test_rand(rng) % 4) : shape;
        int64_t ch = x >= 0 ? dnp_op_out_view(dnp_graph_op(g, x)).c : 1;
        if (s == 0) { /* chain, a ReLU fused or not */
            x = dnp_graph_conv(g, NM(), x, 2 + (int64_t)(test_rand(rng) % 3), 3, 1, 1, 1, 0);
            if (test_rand(rng) % 2)
                x = dnp_graph_unary(g, NM(), DNP_OP_RELU, x);
        } else if (s == 1) { /* diamond: two branches joined by an add */
            a = dnp_graph_conv(g, NM(), x, ch, 1, 1, 0, 1, 0);
            b = dnp_graph_pool(g, NM(), DNP_OP_MAXPOOL, x, 3, 1, 1);
            x = dnp_graph_add(g, NM(), a, b);
        } else if (s == 2) { /* fan joined by concat */
            a = dnp_graph_conv(g, NM(), x, 2, 1, 1, 0, 1, 0);
            b = dnp_graph_unary(g, NM(), DNP_OP_BATCHNORM, x);
            c = dnp_graph_pool(g, NM(), DNP_OP_MAXPOOL, x, 3, 1, 1);
            const int three[3] = {a, b, c};
            x = dnp_graph_concat(g, NM(), 3, three);
        } else { /* residual: conv + norm, added to the input, then a ReLU */
            a = dnp_graph_conv(g, NM(), x, ch, 3, 1, 1, 1, 0);
            b = dnp_graph_unary(g, NM(), DNP_OP_BATCHNORM, a);
            x = dnp_graph_add(g, NM(), b, x);
            x = dnp_graph_unary(g, NM(), DNP_OP_RELU, x);
        }
    }
    x = dnp_graph_flatten(g, NM(), x);
    x = dnp_graph_fc(g, NM(), x, 4, 0);
    x = dnp_graph_unary(g, NM(), DNP_OP_SOFTMAX, x);
#undef NM
    iter_space *sp = NULL;
    dnp_error err = {0};
    if (x < 0 || iter_space_build(g, 4, &sp, &err) != DNP_OK) {
        printf("  random graph: %s%s\n", dnp_graph_error(g), err.msg);
        dnp_graph_free(g);
        return NULL;
    }
    sp->core_owned = g;
    return sp;
}

static double strategies(const pase_problem *pb)
{
    double n = 1.0;
    for (int v = 0; v < pb->n_v; v++)
        n *= pb->cfg[v].n;
    return n;
}

TEST(pase_dp_equals_exhaustive)
{
    unsigned long long rng = 0x9E3779B97F4A7C15ULL;
    int checked = 0, tries = 0;
    for (int shape = 0; shape < 5; shape++) {
        int done = 0;
        while (done < 4 && tries < 2000) {
            tries++;
            int cutoff = 1;
            iter_space *g = random_graph(&rng, shape, &cutoff);
            CHECK(g != NULL);
            if (g == NULL)
                continue;
            CHECK_STR(g->err, "");
            int p = 2 + (int)(test_rand(&rng) % 2);
            pase_params par = {p, test_uniform(&rng, 10.0, 5000.0), 0, 1e9, cutoff};
            pase_problem pb;
            dnp_error err = {0};
            if (pase_problem_build(g, &par, &pb, &err) != DNP_OK) {
                CHECK(0);
                iter_space_free(g);
                continue;
            }
            if (strategies(&pb) > 2e5 || g->n_nest < 5) { /* keep the oracle quick */
                pase_problem_free(&pb);
                iter_space_free(g);
                continue;
            }
            int *ex = dnp_malloc((size_t)pb.n_v * sizeof(int));
            double best = pase_exhaustive(&pb, 1e7, ex);
            for (int bfs = 0; bfs < 2; bfs++) {
                pase_search_opts o = {1, NULL, NULL, 0.0, 0, 0.0};
                pase_result r;
                CHECK(pase_search(&pb, bfs, &o, &r, &err) == DNP_OK);
                CHECK_NEAR(r.cost, best, 1e-12, 0);
                CHECK_NEAR(pase_objective(&pb, r.cfg), best, 1e-12, 0);
                pase_result_free(&r);
            }
            CHECK_NEAR(pase_objective(&pb, ex), best, 1e-12, 0);
            if (getenv("PASE_TEST_VERBOSE"))
                printf("  shape %d: %d ops, %d edges, p %d, %.0f strategies\n", shape, pb.n_v,
                       pb.n_e, p, strategies(&pb));
            dnp_free(ex);
            pase_problem_free(&pb);
            iter_space_free(g);
            done++;
            checked++;
        }
    }
    CHECK_EQ_INT(checked, 20);
}

/* The same in a dnnpar strategy's space (pase_restrict_to_strategy's
 * effect: splits by powers of two, some dimensions fixed) on 4 and 6
 * devices, where 3-way and 6-way splits exist unrestricted: every
 * configuration obeys the restriction and the DP still finds the
 * enumerated optimum of that space, which is never below the full
 * space's. */
TEST(pase_dp_equals_exhaustive_restricted)
{
    unsigned long long rng = 0xD1B54A32D192ED03ULL;
    int checked = 0, tries = 0, fewer = 0;
    while (checked < 10 && tries < 2000) {
        tries++;
        int cutoff = 1;
        iter_space *g = random_graph(&rng, (int)(test_rand(&rng) % 5), &cutoff);
        CHECK(g != NULL);
        if (g == NULL)
            continue;
        CHECK_STR(g->err, "");
        int p = test_rand(&rng) % 2 ? 4 : 6;
        pase_params par = {p, test_uniform(&rng, 10.0, 5000.0), 0, 1e9, cutoff};
        pase_problem full, pb;
        dnp_error err = {0};
        if (pase_problem_build(g, &par, &full, &err) != DNP_OK) {
            CHECK(0);
            iter_space_free(g);
            continue;
        }
        for (int v = 0; v < g->n_nest; v++) {
            g->nest[v].pow2 = 1;
            unsigned all = (1u << (unsigned)g->nest[v].rank) - 2u;
            g->nest[v].fixed |= (unsigned)test_rand(&rng) & all;
        }
        if (pase_problem_build(g, &par, &pb, &err) != DNP_OK) {
            CHECK(0);
            pase_problem_free(&full);
            iter_space_free(g);
            continue;
        }
        if (strategies(&full) > 2e5 || strategies(&pb) < 2.0 || g->n_nest < 5) {
            pase_problem_free(&full);
            pase_problem_free(&pb);
            iter_space_free(g);
            continue;
        }
        fewer += strategies(&pb) < strategies(&full);
        for (int v = 0; v < pb.n_v; v++)
            for (int i = 0; i < pb.cfg[v].n; i++)
                for (int d = 0; d < pb.cfg[v].rank; d++) {
                    int32_t e = pb.cfg[v].c[(size_t)i * (size_t)pb.cfg[v].rank + (size_t)d];
                    CHECK((e & (e - 1)) == 0);
                    CHECK(e == 1 || !(g->nest[v].fixed & (1u << (unsigned)d)));
                }
        int *ex = dnp_malloc((size_t)pb.n_v * sizeof(int));
        int *exf = dnp_malloc((size_t)full.n_v * sizeof(int));
        double best = pase_exhaustive(&pb, 1e7, ex), best_full = pase_exhaustive(&full, 1e7, exf);
        pase_search_opts o = {1, NULL, NULL, 0.0, 0, 0.0};
        pase_result r;
        CHECK(pase_search(&pb, 0, &o, &r, &err) == DNP_OK);
        CHECK_NEAR(r.cost, best, 1e-12, 0);
        CHECK(best >= best_full * (1.0 - 1e-12));
        pase_result_free(&r);
        dnp_free(ex);
        dnp_free(exf);
        pase_problem_free(&full);
        pase_problem_free(&pb);
        iter_space_free(g);
        checked++;
    }
    CHECK_EQ_INT(checked, 10);
    CHECK(fewer >= 5); /* the restriction removed configurations in most graphs */
}

/* D(i) = N(X(i)) n V>i, X(i) the vertices of V<=i connected to v(i)
 * through V<=i (section III-B), for GenerateSeq's sequence. */
static int dependent_sets_ok(const pase_problem *pb, const pase_seq *s)
{
    int n = pb->n_v, ok = 1;
    char *inx = dnp_malloc((size_t)n), *want = dnp_malloc((size_t)n);
    int *stack = dnp_malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n && ok; i++) {
        memset(inx, 0, (size_t)n);
        memset(want, 0, (size_t)n);
        int top = 0;
        stack[top++] = s->order[i];
        inx[s->order[i]] = 1;
        while (top > 0) {
            int v = stack[--top];
            for (int k = pb->nb_start[v]; k < pb->nb_start[v + 1]; k++) {
                int u = pb->nb[k];
                if (s->pos[u] > i)
                    want[u] = 1;
                else if (!inx[u]) {
                    inx[u] = 1;
                    stack[top++] = u;
                }
            }
        }
        int m = 0;
        for (int k = s->dep_start[i]; k < s->dep_start[i + 1]; k++) {
            ok &= want[s->dep[k]] == 1;
            m++;
        }
        for (int u = 0; u < n; u++)
            m -= want[u];
        ok &= m == 0;
    }
    dnp_free(inx);
    dnp_free(want);
    dnp_free(stack);
    return ok;
}

TEST(pase_generate_seq)
{
    static const char *const models[] = {"pase-alexnet", "pase-inception3", "pase-transformer",
                                         "pase-resnet101"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        iter_space *g = NULL;
        dnp_error err = {0};
        CHECK(pase_model_build(models[i], 8, &g, &err) == DNP_OK);
        pase_params par = {1, 5000.0, 0, 1e9, pase_model_cutoff(pase_model_find(models[i]))};
        pase_problem pb;
        CHECK(pase_problem_build(g, &par, &pb, &err) == DNP_OK);
        pase_seq s;
        CHECK(pase_generate_seq(&pb, &s, &err) == DNP_OK);
        CHECK(dependent_sets_ok(&pb, &s));
        int max = 0;
        for (int k = 0; k < s.n; k++)
            if (s.dep_start[k + 1] - s.dep_start[k] > max)
                max = s.dep_start[k + 1] - s.dep_start[k];
        /* the paper: |D(i) u {v(i)}| <= 3 for InceptionV3 */
        if (i == 1)
            CHECK(max + 1 <= 3);
        pase_seq_free(&s);
        pase_problem_free(&pb);
        iter_space_free(g);
    }
}

/* Same strategy, bit for bit, whatever the thread count. */
TEST(pase_threads_deterministic)
{
    iter_space *g = NULL;
    dnp_error err = {0};
    CHECK(pase_model_build("pase-transformer", 64, &g, &err) == DNP_OK);
    pase_params par = {8, 5000.0, 0, 1e9, 1}; /* README: cutoff 1 */
    pase_problem pb;
    CHECK(pase_problem_build(g, &par, &pb, &err) == DNP_OK);
    pase_result r1, r2;
    pase_search_opts o1 = {1, NULL, NULL, 0.0, 0, 0.0}, o2 = {3, NULL, NULL, 0.0, 0, 0.0};
    CHECK(pase_search(&pb, 0, &o1, &r1, &err) == DNP_OK);
    CHECK(pase_search(&pb, 0, &o2, &r2, &err) == DNP_OK);
    CHECK(r1.cost == r2.cost);
    CHECK(memcmp(r1.cfg, r2.cfg, (size_t)pb.n_v * sizeof(int)) == 0);
    CHECK_NEAR(r1.cost, 1421082828800.0, 1e-9, 0); /* both edges count; p = 8 */
    pase_result_free(&r1);
    pase_result_free(&r2);
    pase_problem_free(&pb);
    iter_space_free(g);
}

/* The breadth-first DP on Inception-v3 would need far more than the
 * guard (the paper's OOM): a clear error with the size. */
TEST(pase_memory_guard)
{
    iter_space *g = NULL;
    dnp_error err = {0};
    CHECK(pase_model_build("pase-inception3", 128, &g, &err) == DNP_OK);
    pase_params par = {8, 5000.0, 0, 64.0 * 1048576.0, 0};
    pase_problem pb;
    CHECK(pase_problem_build(g, &par, &pb, &err) == DNP_OK);
    pase_result r;
    memset(&r, 0, sizeof r);
    dnp_error e2 = {0};
    CHECK(pase_search(&pb, 1, NULL, &r, &e2) == DNP_ERR_INPUT);
    CHECK(strstr(e2.msg, "would need") != NULL);
    CHECK(strstr(e2.msg, "--max-memory 64 MiB") != NULL);
    dnp_error e3 = {0};
    CHECK(pase_search(&pb, 0, NULL, &r, &e3) == DNP_OK); /* GenerateSeq's fits */
    CHECK_NEAR(r.cost, 782140602432.0, 1e-9, 0);
    pase_result_free(&r);
    pase_problem_free(&pb);
    /* p < 1 */
    par.p = 0;
    dnp_error e4 = {0};
    CHECK(pase_problem_build(g, &par, &pb, &e4) == DNP_ERR_INPUT);
    CHECK(strstr(e4.msg, "at least 1") != NULL);
    iter_space_free(g);
}
