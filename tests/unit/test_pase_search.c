/* test_pase_search.c - FindBestStrategy against the prototype's best
 * totals (totals.csv), against exhaustive enumeration on random small
 * graphs (chains, diamonds, inception-like fans, residuals), and the
 * breadth-first DP against both. */
#include "search/pase/pase.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *model_of(const char *ref)
{
    static const char *const map[][2] = {{"alexnet", "pase-alexnet"},
                                         {"rnnlm", "pase-rnnlm"},
                                         {"inception3", "pase-inception3"},
                                         {"transformer", "pase-transformer"},
                                         {"resnet101", "pase-resnet101"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(ref, map[i][0]) == 0)
            return map[i][1];
    return NULL;
}

/* Best F of model for p, batch: GenerateSeq + FindBestStrategy, checked
 * against the objective of the strategy it returns. */
static double best_total(const char *model, int p, int64_t batch, int prototype_edges,
                         int threads)
{
    iter_space *g = NULL;
    dnp_error err = {0};
    if (pase_model_build(model, batch, &g, &err) != DNP_OK) {
        printf("  %s\n", err.msg);
        return -1;
    }
    pase_params par = {p, 5000.0, prototype_edges, 1e10, pase_model_cutoff(pase_model_find(model))};
    pase_problem pb;
    double cost = -1;
    if (pase_problem_build(g, &par, &pb, &err) == DNP_OK) {
        pase_search_opts o = {threads, NULL, NULL, 0.0, 0, 0.0};
        pase_result r;
        if (pase_search(&pb, 0, &o, &r, &err) == DNP_OK) {
            cost = r.cost;
            CHECK_NEAR(pase_objective(&pb, r.cfg), r.cost, 1e-12, 0);
            pase_result_free(&r);
        } else {
            printf("  %s\n", err.msg);
        }
        pase_problem_free(&pb);
    } else {
        printf("  %s\n", err.msg);
    }
    iter_space_free(g);
    return cost;
}

TEST(pase_totals)
{
    char path[512], line[256];
    snprintf(path, sizeof path, "%s/reference/pase/totals.csv", test_data_dir());
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        char model[32];
        long long batch;
        int p;
        double total, secs;
        if (sscanf(line, "%31[^,],%lld,%d,%lf,%lf", model, &batch, &p, &total, &secs) != 5)
            continue;
        const char *m = model_of(model);
        CHECK(m != NULL);
        if (m == NULL)
            continue;
        /* the prototype drops duplicate edges; its totals count them once */
        double got = best_total(m, p, batch, 1, 1);
        CHECK_NEAR(got, total, 1e-9, 0);
        n++;
    }
    if (f)
        fclose(f);
    CHECK_EQ_INT(n, 13);
}

/* Both duplicate edges count by default: never cheaper than the
 * prototype's single edge. */
TEST(pase_duplicate_edges)
{
    double one = best_total("pase-transformer", 4, 64, 1, 2);
    double both = best_total("pase-transformer", 4, 64, 0, 2);
    CHECK_NEAR(one, 2189181321216.0, 1e-9, 0);
    CHECK(both >= one);
    iter_space *g = NULL;
    dnp_error err = {0};
    CHECK(pase_model_build("pase-transformer", 64, &g, &err) == DNP_OK);
    pase_params par = {4, 5000.0, 1, 1e10, 1}; /* README: cutoff 1 */
    pase_problem pb;
    CHECK(pase_problem_build(g, &par, &pb, &err) == DNP_OK);
    CHECK_EQ_INT(g->n_nest, 204);
    CHECK_EQ_INT(g->n_read, 280);
    CHECK_EQ_INT(pb.n_e, 256);
    pase_problem_free(&pb);
    iter_space_free(g);
}

TEST(pase_model_sizes)
{
    static const struct {
        const char *name;
        int ops, edges;
    } want[] = {{"pase-alexnet", 14, 13},
                {"pase-inception3", 219, 253},
                {"pase-rnnlm", 4, 3},
                {"pase-transformer", 204, 280},
                {"pase-resnet101", 245, 0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        iter_space *g = NULL;
        dnp_error err = {0};
        CHECK(pase_model_build(want[i].name, 8, &g, &err) == DNP_OK);
        if (g == NULL)
            continue;
        CHECK_EQ_INT(g->n_nest, want[i].ops);
        if (want[i].edges > 0)
            CHECK_EQ_INT(g->n_read, want[i].edges);
        iter_space_free(g);
    }
}

/* The data-parallel baseline for a batch with no p-way split (cutoff 4 for
 * alexnet): batch 4 on p = 8 has only the split 1 (4 / 2 < 4), so the
 * baseline is serial; batch 100: the divisors of 100 that are <= 8 and
 * leave >= 4 samples are 1, 2, 4, 5, so 5 ways; batch 128: 8 ways. */
TEST(pase_data_parallel_uneven_batch)
{
    const int64_t batches[3] = {4, 100, 128};
    const int want[3] = {1, 5, 8};
    for (int i = 0; i < 3; i++) {
        iter_space *g = NULL;
        dnp_error err = {0};
        CHECK(pase_model_build("pase-alexnet", batches[i], &g, &err) == DNP_OK);
        if (g == NULL)
            continue;
        pase_params par = {8, 5000.0, 0, 1e9, 0};
        pase_problem pb;
        CHECK(pase_problem_build(g, &par, &pb, &err) == DNP_OK);
        int *cfg = dnp_malloc((size_t)pb.n_v * sizeof(int));
        pase_data_parallel(&pb, cfg);
        int lo = 0, hi = 0;
        pase_data_parallel_split(&pb, cfg, &lo, &hi);
        CHECK_EQ_INT(lo, want[i]);
        CHECK_EQ_INT(hi, want[i]);
        /* conv1's configuration: the batch split only */
        const int32_t *c = pb.cfg[0].c + (size_t)cfg[0] * (size_t)pb.cfg[0].rank;
        CHECK_EQ_INT(c[0], want[i]);
        for (int d = 1; d < pb.cfg[0].rank; d++)
            CHECK_EQ_INT(c[d], 1);
        dnp_free(cfg);
        pase_problem_free(&pb);
        iter_space_free(g);
    }
}
