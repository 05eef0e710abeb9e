/* test_pase_api.c - the public PaSE driver (dnnpar.h, dnp_pase_*): the
 * same F as the internal path, reports and getters consistent with the
 * strategy, MCMC against the optimum, the prototype's totals through
 * dnp_pase_reproduce, and errors that name what is wrong. */
#include "dnnpar.h"
#include "search/pase/pase.h"
#include "test.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* The prototype's hardware: 10 TFLOP/s, 16 GB/s, 8-byte words: r = 5000. */
static dnp_pase_hw proto_hw(int p)
{
    dnp_pase_hw hw;
    dnp_error err = {0};
    memset(&hw, 0, sizeof hw);
    CHECK(dnp_pase_hw_uniform(p, 10e12, 16e9, &hw, &err) == DNP_OK);
    return hw;
}

/* F of zoo model `name` at batch and p through the internal path:
 * dnp_graph -> pase_from_graph -> pase_problem_build -> pase_search. */
static double internal_f(const char *name, int64_t batch, int p)
{
    dnp_graph *g = NULL;
    pase_graph *pg = NULL;
    dnp_error err = {0};
    double f = -1.0;
    if (dnp_model_load(name, &g, &err) != DNP_OK || pase_from_graph(g, batch, &pg, &err) != DNP_OK) {
        printf("  %s\n", err.msg);
        dnp_graph_free(g);
        return f;
    }
    pase_params par = {p, 5000.0, 0, 2048.0 * 1048576.0};
    pase_problem pb;
    if (pase_problem_build(pg, &par, &pb, &err) == DNP_OK) {
        pase_search_opts so = {1, NULL, NULL, 0.0};
        pase_result r;
        if (pase_search(&pb, 0, &so, &r, &err) == DNP_OK) {
            f = r.cost;
            pase_result_free(&r);
        }
        pase_problem_free(&pb);
    }
    pase_graph_free(pg);
    dnp_graph_free(g);
    return f;
}

TEST(pase_api_same_f_as_internal)
{
    static const int ps[] = {1, 2, 4, 8};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        dnp_pase_hw hw = proto_hw(ps[i]);
        CHECK_NEAR(dnp_pase_hw_r_flop_per_word(&hw), 5000.0, 1e-15, 0);
        dnp_pase_options po = {64, 0, 0, 0.0, 0};
        dnp_pase_run_options ro;
        memset(&ro, 0, sizeof ro);
        ro.threads = 1;
        dnp_pase_problem *pb = NULL;
        dnp_pase_run *r = NULL;
        dnp_error err = {0};
        CHECK(dnp_pase_problem_load("lenet", &hw, &po, &pb, &err) == DNP_OK);
        CHECK(pb != NULL && dnp_pase_run_new(pb, &ro, &r, &err) == DNP_OK);
        if (r == NULL) {
            printf("  %s\n", err.msg);
            dnp_pase_problem_free(pb);
            continue;
        }
        CHECK_EQ_INT(dnp_pase_problem_batch(pb), 64);
        dnp_pase_summary s;
        dnp_pase_run_summary(r, &s);
        CHECK_NEAR(s.cost_flop, internal_f("lenet", 64, ps[i]), 1e-12, 0);
        CHECK_NEAR(s.cost_s, s.cost_flop / 10e12, 1e-12, 0);
        /* Eq. 1: F = sum of t_l + sum of t_x */
        double tl = 0.0;
        for (int v = 0; v < dnp_pase_problem_n_ops(pb); v++) {
            dnp_pase_op op;
            CHECK(dnp_pase_run_op(r, v, &op, &err) == DNP_OK);
            tl += op.layer_cost_flop;
        }
        CHECK_NEAR(tl + s.transfer_flop, s.cost_flop, 1e-9, 0);
        /* the DP is exact: no baseline in the same space beats it */
        CHECK_EQ_INT(s.n_baselines, 3);
        for (int b = 0; b < s.n_baselines; b++) {
            dnp_pase_baseline bl;
            CHECK(dnp_pase_run_baseline(r, b, &bl, &err) == DNP_OK);
            CHECK(bl.cost_flop >= s.cost_flop * (1 - 1e-12));
        }
        CHECK(s.optimum_flop == -1.0);
        dnp_pase_run_free(r);
        dnp_pase_problem_free(pb);
    }
}

/* A reference graph through the public API gives the prototype's total
 * (../shared/reference/pase/totals.csv: alexnet, p 8, 97098296512). */
TEST(pase_api_reference_total)
{
    dnp_pase_hw hw = proto_hw(8);
    dnp_pase_options po = {0, 0, 1, 0.0, 0}; /* batch 0: the paper's 128 */
    dnp_pase_problem *pb = NULL;
    dnp_pase_run *r = NULL;
    dnp_error err = {0};
    CHECK(dnp_pase_problem_load("pase-alexnet", &hw, &po, &pb, &err) == DNP_OK);
    CHECK(pb != NULL && dnp_pase_run_new(pb, NULL, &r, &err) == DNP_OK);
    if (r != NULL) {
        CHECK_EQ_INT(dnp_pase_problem_batch(pb), 128);
        CHECK_EQ_INT(dnp_pase_problem_n_ops(pb), 14);
        dnp_pase_summary s;
        dnp_pase_run_summary(r, &s);
        CHECK_NEAR(s.cost_flop, 97098296512.0, 1e-14, 0);
        CHECK_EQ_INT(s.dp_split_min, 8);
        CHECK_EQ_INT(s.dp_split_max, 8);
        /* the JSON report carries the same F and strategy */
        char *text = dnp_pase_run_json(r);
        CHECK(text != NULL);
        json_error_t je;
        json_t *root = text ? json_loads(text, 0, &je) : NULL;
        CHECK(root != NULL);
        if (root != NULL) {
            CHECK_NEAR(json_number_value(json_object_get(root, "cost_flop")), s.cost_flop, 1e-15, 0);
            CHECK_STR(json_string_value(json_object_get(root, "search")), "pase");
            CHECK_STR(json_string_value(json_object_get(root, "source")), "pase-alexnet");
            CHECK_EQ_INT(json_array_size(json_object_get(root, "strategy")), 14);
            dnp_pase_op op;
            CHECK(dnp_pase_run_op(r, 13, &op, &err) == DNP_OK);
            json_t *last = json_array_get(json_object_get(root, "strategy"), 13);
            CHECK_STR(json_string_value(json_object_get(last, "name")), op.name);
            CHECK_STR(json_string_value(json_object_get(last, "dims")), op.dims);
            json_decref(root);
        }
        dnp_free(text);
    }
    dnp_pase_run_free(r);
    dnp_pase_problem_free(pb);
}

/* MCMC through the API never beats the DP's optimum, which --optimum
 * reports beside it; the same seed gives the same strategy. */
TEST(pase_api_mcmc_optimum)
{
    dnp_pase_hw hw = proto_hw(4);
    dnp_pase_problem *pb = NULL;
    dnp_error err = {0};
    CHECK(dnp_pase_problem_load("lenet", &hw, NULL, &pb, &err) == DNP_OK);
    if (pb == NULL)
        return;
    dnp_pase_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.search = DNP_PASE_SEARCH_MCMC;
    ro.mcmc_iters = 3000;
    ro.seed = 7;
    ro.optimum = 1;
    dnp_pase_run *m1 = NULL, *m2 = NULL, *dp = NULL;
    CHECK(dnp_pase_run_new(pb, &ro, &m1, &err) == DNP_OK);
    CHECK(dnp_pase_run_new(pb, &ro, &m2, &err) == DNP_OK);
    CHECK(dnp_pase_run_new(pb, NULL, &dp, &err) == DNP_OK);
    if (m1 != NULL && m2 != NULL && dp != NULL) {
        dnp_pase_summary a, b, d;
        dnp_pase_run_summary(m1, &a);
        dnp_pase_run_summary(m2, &b);
        dnp_pase_run_summary(dp, &d);
        CHECK_NEAR(a.optimum_flop, d.cost_flop, 1e-12, 0);
        CHECK(a.cost_flop >= d.cost_flop * (1 - 1e-12));
        CHECK(a.cost_flop == b.cost_flop);
        CHECK_EQ_INT(a.n_baselines, 2);
        for (int v = 0; v < dnp_pase_problem_n_ops(pb); v++) {
            dnp_pase_op x, y;
            CHECK(dnp_pase_run_op(m1, v, &x, &err) == DNP_OK);
            CHECK(dnp_pase_run_op(m2, v, &y, &err) == DNP_OK);
            CHECK_STR(x.config, y.config);
        }
    }
    dnp_pase_run_free(m1);
    dnp_pase_run_free(m2);
    dnp_pase_run_free(dp);
    dnp_pase_problem_free(pb);
}

/* A mixed cluster counts as its weakest device and link, words of its
 * widest element (paper section V). */
TEST(pase_api_hw_from_cluster)
{
    dnp_cluster c;
    dnp_error err = {0};
    CHECK(dnp_cluster_parse("2xtpu-v2+2xtpu-v3", &c, &err) == DNP_OK);
    dnp_pase_hw hw;
    CHECK(dnp_pase_hw_from_cluster(&c, &hw, &err) == DNP_OK);
    double peak = c.types[0].peak_flops, bw = c.types[0].net_bw_bps;
    int word = c.types[0].bytes_per_elem;
    for (int t = 1; t < c.n_types; t++) {
        peak = c.types[t].peak_flops < peak ? c.types[t].peak_flops : peak;
        bw = c.types[t].net_bw_bps < bw ? c.types[t].net_bw_bps : bw;
        word = c.types[t].bytes_per_elem > word ? c.types[t].bytes_per_elem : word;
    }
    CHECK_EQ_INT(hw.p, 4);
    CHECK(hw.peak_flops == peak);
    CHECK(hw.link_bps == bw);
    CHECK_EQ_INT(hw.word_bytes, word);
    CHECK_NEAR(dnp_pase_hw_r_flop_per_word(&hw), peak * word / bw, 1e-15, 0);
    CHECK(strstr(hw.description, "weakest device") != NULL);
}

/* Each failure: DNP_ERR_INPUT (exit status 2 in the CLI), a message naming
 * what, and no output object. */
TEST(pase_api_errors)
{
    dnp_pase_hw hw;
    dnp_error err = {0};
    CHECK(dnp_pase_hw_uniform(0, 10e12, 16e9, &hw, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "got 0") != NULL);
    dnp_error_clear(&err);
    CHECK(dnp_pase_hw_uniform(4, 10e12, 0.0, &hw, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "bandwidth") != NULL);

    hw = proto_hw(8);
    dnp_pase_problem *pb = NULL;
    dnp_error_clear(&err);
    CHECK(dnp_pase_problem_load("no-such-model", &hw, NULL, &pb, &err) == DNP_ERR_INPUT);
    CHECK(pb == NULL && strstr(err.msg, "no-such-model") != NULL);
    /* DenseNet's dependent sets are far over the guard: refused before
     * any table is built, naming the op and the limit */
    dnp_pase_options po = {64, 0, 0, 0.0, 0};
    dnp_pase_run *r = NULL;
    dnp_error_clear(&err);
    CHECK(dnp_pase_problem_load("pase-densenet121", &hw, &po, &pb, &err) == DNP_OK);
    if (pb != NULL) {
        CHECK(dnp_pase_run_new(pb, NULL, &r, &err) == DNP_ERR_INPUT);
        CHECK(r == NULL && strstr(err.msg, "2048 MB") != NULL);
        dnp_pase_problem_free(pb);
        pb = NULL;
    }
    /* the exact search past its time limit has no strategy to return */
    dnp_error_clear(&err);
    CHECK(dnp_pase_problem_load("lenet", &hw, NULL, &pb, &err) == DNP_OK);
    if (pb != NULL) {
        dnp_pase_run_options ro;
        memset(&ro, 0, sizeof ro);
        ro.time_limit_s = 1e-9;
        dnp_error_clear(&err);
        CHECK(dnp_pase_run_new(pb, &ro, &r, &err) == DNP_ERR_INPUT);
        CHECK(r == NULL && strstr(err.msg, "time limit") != NULL);
        dnp_error_clear(&err);
        CHECK(dnp_pase_run_new(pb, NULL, &r, &err) == DNP_OK);
        if (r != NULL) {
            dnp_pase_baseline b;
            dnp_pase_op op;
            dnp_error_clear(&err);
            CHECK(dnp_pase_run_baseline(r, 3, &b, &err) == DNP_ERR_INPUT);
            CHECK(strstr(err.msg, "baseline 3") != NULL);
            dnp_error_clear(&err);
            CHECK(dnp_pase_run_op(r, -1, &op, &err) == DNP_ERR_INPUT);
            CHECK(strstr(err.msg, "op -1") != NULL);
        }
        dnp_pase_run_free(r);
        dnp_pase_problem_free(pb);
    }
}

/* dnp_pase_reproduce at p = 4: Table I's cells are the prototype's totals
 * (reference README, totals.csv), and a cell not run is an error. */
TEST(pase_api_reproduce_p4)
{
    dnp_pase_repro_options o = {4, 0, NULL, NULL};
    dnp_pase_repro *r = NULL;
    dnp_error err = {0};
    CHECK(dnp_pase_reproduce(&o, &r, &err) == DNP_OK);
    if (r == NULL) {
        printf("  %s\n", err.msg);
        return;
    }
    static const struct {
        const char *model;
        double total;
    } want[] = {{"pase-alexnet", 148215719552.0},
                {"pase-inception3", 986757044608.0},
                {"pase-rnnlm", 6866837733376.0},
                {"pase-transformer", 2189181321216.0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        double f = 0, proto = 0;
        CHECK(dnp_pase_repro_cell(r, want[i].model, 4, &f, &proto, &err) == DNP_OK);
        CHECK_NEAR(f, want[i].total, 1e-14, 0);
        CHECK(proto == want[i].total);
    }
    double f, proto;
    CHECK(dnp_pase_repro_cell(r, "pase-alexnet", 8, &f, &proto, &err) == DNP_ERR_INPUT);
    char *text = dnp_pase_repro_json(r);
    CHECK(text != NULL && strstr(text, "\"table2_p\": 4") != NULL);
    dnp_free(text);
    dnp_pase_repro_free(r);
}

/* compare's block: the cluster's figures into the internal call. */
TEST(pase_api_compare)
{
    dnp_graph *g = NULL;
    dnp_cluster c;
    dnp_error err = {0};
    CHECK(dnp_model_load("lenet", &g, &err) == DNP_OK);
    CHECK(dnp_cluster_parse("4xa100", &c, &err) == DNP_OK);
    dnp_pase_compare_result pub;
    pase_compare_result in;
    CHECK(dnp_pase_compare(g, &c, 64, &pub, &err) == DNP_OK);
    CHECK(pase_compare(g, 4, 64, c.types[0].peak_flops, c.types[0].net_bw_bps,
                       c.types[0].bytes_per_elem, &in, &err) == DNP_OK);
    CHECK(pub.pase_s == in.pase_s && pub.dp_s == in.dp_s && pub.mcmc_s == in.mcmc_s);
    CHECK_STR(pub.expert, in.expert);
    CHECK(pub.pase_s <= pub.dp_s && pub.pase_s <= pub.expert_s && pub.pase_s <= pub.mcmc_s);
    dnp_graph_free(g);
}
