/* test_pase_pin.c - PaSE's search where the exact DP's tables do not fit
 * (pase_pin.c): on DenseNet-121 (paper section V) the exact search
 * refuses and the pinned one returns a strategy below the expert's and
 * data parallelism's F; on Inception-v3 under a guard below its exact
 * tables, the pinned strategy lies between the exact optimum and the
 * expert's F. */
#include "search/pase/pase_driver.h"
#include "test.h"

#include <stdio.h>
#include <string.h>

/* F of strategy cfg of the baseline `which` (0 data parallel, 1 expert). */
static double baseline_f(const pase_problem *pb, int which)
{
    int cfg[1024];
    char what[64];
    dnp_error err = {0};
    CHECK(pb->n_v <= 1024);
    if (which == 0)
        pase_data_parallel(pb, cfg);
    else
        CHECK_EQ_INT(pase_expert(pb, cfg, what, sizeof what, &err), DNP_OK);
    return pase_objective(pb, cfg);
}

/* The prototype's accounting (r = 5000 FLOP per word) of `model` over p
 * devices with the table guard max_bytes. */
static int problem(const char *model, int p, int64_t batch, double max_bytes, iter_space **g,
                   pase_problem *pb)
{
    dnp_error err = {0};
    CHECK_EQ_INT(pase_model_build(model, batch, g, &err), DNP_OK);
    if (*g == NULL)
        return -1;
    pase_params par = {p, 5000.0, 1, max_bytes, pase_model_cutoff(pase_model_find(model))};
    CHECK_EQ_INT(pase_problem_build(*g, &par, pb, &err), DNP_OK);
    return 0;
}

TEST(pase_pin_dense_graph)
{
    /* the zoo's DenseNet-121 as PaSE sees it, on the prototype's hardware
     * (8 devices, 10 TFLOP/s, 16 GB/s: r = 5000 FLOP per word) */
    dnp_pase_hw hw;
    dnp_pase_problem *pp = NULL;
    dnp_error err = {0};
    dnp_pase_options po = {.batch = 64, .cost_model = DNP_COST_PASE_PAPER};
    CHECK_EQ_INT(dnp_pase_hw_uniform(8, 10e12, 16e9, &hw, &err), DNP_OK);
    CHECK_EQ_INT(dnp_pase_problem_load("pase-densenet121", &hw, &po, &pp, &err), DNP_OK);
    if (pp == NULL)
        return;
    const pase_problem *pb = &pp->pb;
    pase_result r;
    pase_search_opts exact = {1, NULL, NULL, 0.0, 0, 0.0};
    CHECK_EQ_INT(pase_search(pb, 0, &exact, &r, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "dependent sets of up to 25 ops") != NULL);
    memset(&err, 0, sizeof err);
    pase_search_opts pinned = {1, NULL, NULL, 0.0, 1, 0.0};
    CHECK_EQ_INT(pase_search(pb, 0, &pinned, &r, &err), DNP_OK);
    if (r.cfg != NULL) {
        CHECK(r.pinned > 0 && r.pinned < pb->n_v);
        CHECK_NEAR(pase_objective(pb, r.cfg), r.cost, 1e-12, 0.0);
        /* the pinned ops start at the expert's configurations and the
         * rest is the DP's optimum given them, so F is at most the
         * expert's; here strictly below it and data parallelism's */
        const double dp = baseline_f(pb, 0), expert = baseline_f(pb, 1);
        CHECK(r.cost < expert * (1.0 - 1e-4));
        CHECK(r.cost < dp);
        /* the tables it built fit the guard */
        CHECK(r.table_bytes <= pb->par.max_bytes);
        printf("  densenet121 p=8: pinned %d of %d ops, F %.6g, expert %.6g, data parallel "
               "%.6g\n",
               r.pinned, pb->n_v, r.cost, expert, dp);
        pase_result_free(&r);
    }
    dnp_pase_problem_free(pp);
}

TEST(pase_pin_between_optimum_and_expert)
{
    iter_space *g = NULL;
    pase_problem pb;
    if (problem("pase-inception3", 8, 128, 2048.0 * 1048576.0, &g, &pb) != 0)
        return;
    pase_result best, r;
    dnp_error err = {0};
    pase_search_opts exact = {1, NULL, NULL, 0.0, 0, 0.0};
    CHECK_EQ_INT(pase_search(&pb, 0, &exact, &best, &err), DNP_OK);
    CHECK_EQ_INT(best.pinned, 0);
    /* a guard a quarter of the exact tables' estimate: ops get pinned */
    pb.par.max_bytes = best.table_bytes / 4.0;
    CHECK_EQ_INT(pase_search(&pb, 0, &exact, &r, &err), DNP_ERR_INPUT);
    memset(&err, 0, sizeof err);
    pase_search_opts pinned = {1, NULL, NULL, 0.0, 1, 0.0};
    CHECK_EQ_INT(pase_search(&pb, 0, &pinned, &r, &err), DNP_OK);
    if (r.cfg != NULL && best.cfg != NULL) {
        CHECK(r.pinned > 0);
        CHECK(r.cost >= best.cost * (1.0 - 1e-12));
        CHECK(r.cost <= baseline_f(&pb, 1));
        CHECK(r.table_bytes <= pb.par.max_bytes);
        printf("  inception3 p=8: pinned %d ops, F %.6g vs optimum %.6g (+%.3f%%)\n", r.pinned,
               r.cost, best.cost, 100.0 * (r.cost / best.cost - 1.0));
    }
    pase_result_free(&r);
    pase_result_free(&best);
    pase_problem_free(&pb);
    iter_space_free(g);
}
