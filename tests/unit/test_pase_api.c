/* test_pase_api.c - the public PaSE driver (dnnpar.h, dnp_pase_*): the
 * same F as the internal path under both cost models (pase-paper: the
 * prototype's totals; default: the seconds of the shared model with its
 * precision, optimizer, memory limit and straggler options), reports and
 * getters consistent with the strategy, MCMC against the optimum, memory
 * pruning and the type split of a mixed cluster, the prototype's totals
 * through dnp_pase_reproduce, and errors that name what is wrong. */
#include "dnnpar.h"
#include "search/pase/pase.h"
#include "search/pase/pase_driver.h"
#include "search/pase/pase_perf.h"
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
 * dnp_graph -> iter_space_build -> pase_problem_build -> pase_search. */
static double internal_f(const char *name, int64_t batch, int p)
{
    dnp_graph *g = NULL;
    iter_space *pg = NULL;
    dnp_error err = {0};
    double f = -1.0;
    if (dnp_model_load(name, &g, &err) != DNP_OK ||
        iter_space_build(g, batch, &pg, &err) != DNP_OK) {
        printf("  %s\n", err.msg);
        dnp_graph_free(g);
        return f;
    }
    pase_params par = {p, 5000.0, 0, 2048.0 * 1048576.0, 0};
    pase_problem pb;
    if (pase_problem_build(pg, &par, &pb, &err) == DNP_OK) {
        pase_search_opts so = {1, NULL, NULL, 0.0, 0, 0.0};
        pase_result r;
        if (pase_search(&pb, 0, &so, &r, &err) == DNP_OK) {
            f = r.cost;
            pase_result_free(&r);
        }
        pase_problem_free(&pb);
    }
    iter_space_free(pg);
    dnp_graph_free(g);
    return f;
}

TEST(pase_api_same_f_as_internal)
{
    static const int ps[] = {1, 2, 4, 8};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        dnp_pase_hw hw = proto_hw(ps[i]);
        CHECK_NEAR(dnp_pase_hw_r_flop_per_word(&hw), 5000.0, 1e-15, 0);
        dnp_pase_options po = {.batch = 64, .cost_model = DNP_COST_PASE_PAPER};
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
 * (data/reference/pase/totals.csv: alexnet, p 8, 97098296512). */
TEST(pase_api_reference_total)
{
    dnp_pase_hw hw = proto_hw(8);
    /* batch 0: the paper's 128 */
    dnp_pase_options po = {.prototype_edges = 1, .cost_model = DNP_COST_PASE_PAPER};
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
    dnp_pase_options po = {.cost_model = DNP_COST_PASE_PAPER};
    CHECK(dnp_pase_problem_load("lenet", &hw, &po, &pb, &err) == DNP_OK);
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
    /* DenseNet's dependent sets are far over the guard: the breadth-first
     * DP (which pins nothing, as the paper's BF column) is refused before
     * any table is built, naming the op and the limit (the default DP
     * pins ops instead: test_pase_pin.c) */
    dnp_pase_options po = {.batch = 64, .cost_model = DNP_COST_PASE_PAPER};
    dnp_pase_run *r = NULL;
    dnp_error_clear(&err);
    CHECK(dnp_pase_problem_load("pase-densenet121", &hw, &po, &pb, &err) == DNP_OK);
    if (pb != NULL) {
        dnp_pase_run_options bfs;
        memset(&bfs, 0, sizeof bfs);
        bfs.search = DNP_PASE_SEARCH_BFS;
        CHECK(dnp_pase_run_new(pb, &bfs, &r, &err) == DNP_ERR_INPUT);
        CHECK(r == NULL && strstr(err.msg, "2048 MiB") != NULL);
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
    /* Fig. 6's rows are runs of the public API on the machines docs/pase.md
     * "Fig. 6" describes: AlexNet at p = 4 on one node of 1080 Ti, PaSE's optimum
     * (refinement off) and data parallelism, each priced in seconds (the JSON keeps 10
     * significant digits). */
    json_t *root = text != NULL ? json_loads(text, 0, NULL) : NULL;
    json_t *row = json_array_get(
        json_object_get(json_array_get(json_object_get(json_object_get(root, "fig6"), "machines"),
                                       0),
                        "rows"),
        0);
    CHECK(row != NULL);
    dnp_cluster cl;
    dnp_pase_hw hw;
    dnp_pase_problem *pb = NULL;
    dnp_pase_run *run = NULL;
    dnp_pase_options po = {.precision = DNP_PREC_FP32};
    dnp_pase_run_options ro = {.no_refine = 1};
    CHECK(dnp_cluster_parse("4xcustom(name=1080ti,node=n,per_node=4,topo=switch,intra_gbps=15.75,"
                            "intra_lat_us=5.7,inter_gbps=12.5,inter_lat_us=14)",
                            &cl, &err) == DNP_OK);
    CHECK(dnp_pase_hw_from_cluster(&cl, &hw, &err) == DNP_OK);
    CHECK(dnp_pase_problem_load("pase-alexnet", &hw, &po, &pb, &err) == DNP_OK);
    CHECK(pb != NULL && dnp_pase_run_new(pb, &ro, &run, &err) == DNP_OK);
    if (row != NULL && run != NULL) {
        dnp_pase_summary sum;
        dnp_pase_baseline dp;
        dnp_pase_run_summary(run, &sum);
        CHECK(dnp_pase_run_baseline(run, 0, &dp, &err) == DNP_OK);
        CHECK_STR(json_string_value(json_object_get(row, "model")), "pase-alexnet");
        CHECK_NEAR(json_real_value(json_object_get(row, "pase_s")), sum.cost_s, 1e-9, 0);
        CHECK_NEAR(json_real_value(json_object_get(row, "dp_s")), dp.cost_s, 1e-9, 0);
        CHECK_NEAR(json_real_value(json_object_get(json_object_get(row, "predicted_speedup"),
                                                   "pase")),
                   dp.cost_s / sum.cost_s, 1e-9, 0);
    }
    dnp_pase_run_free(run);
    dnp_pase_problem_free(pb);
    json_decref(root);
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
    CHECK(dnp_pase_compare(g, &c, 64, NULL, &pub, &err) == DNP_OK);
    CHECK(pase_compare(g, 4, 64, c.types[0].peak_flops, c.types[0].net_bw_bps,
                       c.types[0].bytes_per_elem, 0.0, 0.0, &in, &err) == DNP_OK);
    CHECK(pub.pase_s == in.pase_s && pub.dp_s == in.dp_s && pub.mcmc_s == in.mcmc_s);
    CHECK_STR(pub.expert, in.expert);
    CHECK(pub.pase_s <= pub.dp_s && pub.pase_s <= pub.expert_s && pub.pase_s <= pub.mcmc_s);
    dnp_graph_free(g);
}

/* ---- the default cost model: seconds on the shared performance model ---- */

/* The step time of zoo model `name` at batch on the one device type of
 * cluster `spec` through the internal path: pase_perf_init ->
 * iter_space_build -> pase_problem_build_perf -> pase_fit_search (the
 * memory limit of pase_perf.h).  -1 on failure. */
static double internal_s(const char *name, int64_t batch, const char *spec, dnp_precision prec,
                         dnp_optimizer o, double mem_limit_bytes, int no_stragglers)
{
    dnp_graph *g = NULL;
    iter_space *pg = NULL;
    dnp_cluster c;
    dnp_error err = {0};
    pase_perf m;
    double t = -1.0;
    if (dnp_cluster_parse(spec, &c, &err) != DNP_OK ||
        pase_perf_init(&c.types[0], (int)c.counts[0], prec, o, mem_limit_bytes, no_stragglers,
                       &m, &err) != DNP_OK ||
        dnp_model_load(name, &g, &err) != DNP_OK ||
        iter_space_build(g, batch, &pg, &err) != DNP_OK) {
        printf("  %s\n", err.msg);
        dnp_graph_free(g);
        return t;
    }
    pase_restrict_row_ops(pg); /* the default model's space (docs/pase.md "Row ops") */
    pase_params par = {(int)c.counts[0], 1.0, 0, 2048.0 * 1048576.0, 0};
    pase_problem pb;
    if (pase_problem_build_perf(pg, &par, &m, &pb, &err) == DNP_OK) {
        pase_search_opts so = {1, NULL, NULL, 0.0, 0, 0.0};
        pase_fit_result r;
        if (pase_fit_search(&pb, &so, &r, &err) == DNP_OK) {
            t = r.cost;
            pase_fit_result_free(&r);
        }
        pase_problem_free(&pb);
    }
    iter_space_free(pg);
    dnp_graph_free(g);
    return t;
}

/* A problem of `model` on cluster `spec` under po, and its DP run. */
static dnp_status load_run_refine(const char *model, const char *spec,
                                  const dnp_pase_options *po, int no_refine,
                                  dnp_pase_problem **pb, dnp_pase_run **r, dnp_error *err)
{
    dnp_cluster c;
    dnp_pase_hw hw;
    dnp_pase_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.threads = 1;
    ro.no_refine = no_refine;
    *pb = NULL;
    *r = NULL;
    dnp_status st = dnp_cluster_parse(spec, &c, err);
    if (st == DNP_OK)
        st = dnp_pase_hw_from_cluster(&c, &hw, err);
    if (st == DNP_OK)
        st = dnp_pase_problem_load(model, &hw, po, pb, err);
    if (st == DNP_OK)
        st = dnp_pase_run_new(*pb, &ro, r, err);
    return st;
}

static dnp_status load_run(const char *model, const char *spec, const dnp_pase_options *po,
                           dnp_pase_problem **pb, dnp_pase_run **r, dnp_error *err)
{
    return load_run_refine(model, spec, po, 0, pb, r, err);
}

/* The public API's step time equals the internal path's for the default
 * options and for each of precision, optimizer, memory limit and
 * stragglers; t_l + t_x add up to it; no baseline beats it; the FLOP
 * figures are -1 and the JSON carries seconds. */
TEST(pase_api_seconds_same_as_internal)
{
    static const struct {
        dnp_precision prec;
        dnp_optimizer opt;
        double mem_bytes;
        int no_stragglers;
    } cases[] = {{DNP_PREC_DEFAULT, DNP_OPTIM_MOMENTUM, 0.0, 0},
                 {DNP_PREC_FP32, DNP_OPTIM_MOMENTUM, 0.0, 0},
                 {DNP_PREC_DEFAULT, DNP_OPTIM_ADAM, 1e9, 0},
                 {DNP_PREC_FP16, DNP_OPTIM_SGD, 0.0, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dnp_pase_options po = {.batch = 64,
                               .precision = cases[i].prec,
                               .optimizer = cases[i].opt,
                               .memory_limit_bytes = cases[i].mem_bytes,
                               .no_stragglers = cases[i].no_stragglers};
        dnp_pase_problem *pb;
        dnp_pase_run *r;
        dnp_error err = {0};
        /* the DP's optimum itself: the refinement in the step simulator
         * (on by default) may leave it for a plan that simulates faster
         * and costs more under Eq. 1 (docs/pase.md) */
        CHECK(load_run_refine("lenet", "4xv100", &po, 1, &pb, &r, &err) == DNP_OK);
        if (r == NULL) {
            printf("  %s\n", err.msg);
            dnp_pase_problem_free(pb);
            continue;
        }
        dnp_pase_summary s;
        dnp_pase_run_summary(r, &s);
        CHECK(s.cost_model == DNP_COST_DEFAULT);
        CHECK_NEAR(s.cost_s,
                   internal_s("lenet", 64, "4xv100", cases[i].prec, cases[i].opt,
                              cases[i].mem_bytes, cases[i].no_stragglers),
                   1e-12, 0);
        CHECK(s.cost_flop == -1.0 && s.transfer_flop == -1.0 && s.optimum_s == -1.0);
        double tl = 0.0;
        for (int v = 0; v < dnp_pase_problem_n_ops(pb); v++) {
            dnp_pase_op op;
            CHECK(dnp_pase_run_op(r, v, &op, &err) == DNP_OK);
            CHECK(op.layer_cost_flop == -1.0 && op.layer_cost_s >= 0.0);
            tl += op.layer_cost_s;
        }
        CHECK_NEAR(tl + s.transfer_s, s.cost_s, 1e-9, 0);
        for (int b = 0; b < s.n_baselines; b++) {
            dnp_pase_baseline bl;
            CHECK(dnp_pase_run_baseline(r, b, &bl, &err) == DNP_OK);
            CHECK(bl.cost_flop == -1.0 && bl.cost_s >= s.cost_s * (1 - 1e-12));
        }
        /* memory: within the limit (the V100's 16 GB when none is given) */
        double limit = cases[i].mem_bytes > 0.0 ? cases[i].mem_bytes : 16e9;
        CHECK_NEAR(s.mem_limit_bytes, limit, 1e-12, 0);
        CHECK(s.min_mem_bytes > 0.0 && s.min_mem_bytes <= s.mem_bytes && s.mem_bytes <= limit);
        CHECK(s.devices_used >= 1 && s.devices_used <= 4 && !s.has_type_split);
        char *text = dnp_pase_run_json(r);
        CHECK(text != NULL && strstr(text, "\"cost_model\": \"default\"") != NULL &&
              strstr(text, "\"cost_flop\"") == NULL && strstr(text, "\"layer_cost_s\"") != NULL);
        dnp_free(text);
        dnp_pase_run_free(r);
        dnp_pase_problem_free(pb);
        /* refined (the default): never below the optimum under Eq. 1 */
        CHECK(load_run("lenet", "4xv100", &po, &pb, &r, &err) == DNP_OK);
        if (r != NULL) {
            dnp_pase_summary rs;
            dnp_pase_run_summary(r, &rs);
            CHECK(rs.cost_s >= s.cost_s * (1 - 1e-12));
        }
        dnp_pase_run_free(r);
        dnp_pase_problem_free(pb);
    }
}

/* --flops/--bw hardware under the default model: one bare fp32 device of
 * that peak and link, no memory capacity (nothing pruned). */
TEST(pase_api_seconds_bare_device)
{
    dnp_pase_hw hw = proto_hw(2);
    CHECK_EQ_INT(hw.device_types, 0);
    dnp_pase_problem *pb = NULL;
    dnp_pase_run *r = NULL;
    dnp_error err = {0};
    dnp_pase_options po = {.batch = 32};
    CHECK(dnp_pase_problem_load("lenet", &hw, &po, &pb, &err) == DNP_OK);
    CHECK(pb != NULL && dnp_pase_run_new(pb, NULL, &r, &err) == DNP_OK);
    if (r != NULL) {
        dnp_device_type d;
        memset(&d, 0, sizeof d);
        strcpy(d.name, "custom");
        d.peak_flops = 10e12;
        d.net_bw_bps = d.inter_bw_bps = 16e9;
        d.bytes_per_elem = 4;
        strcpy(d.dtype, "fp32");
        d.devices_per_node = 1;
        pase_perf m;
        CHECK(pase_perf_init(&d, 2, DNP_PREC_DEFAULT, DNP_OPTIM_MOMENTUM, 0.0, 0, &m, &err) ==
              DNP_OK);
        dnp_graph *g = NULL;
        iter_space *pg = NULL;
        CHECK(dnp_model_load("lenet", &g, &err) == DNP_OK);
        CHECK(iter_space_build(g, 32, &pg, &err) == DNP_OK);
        pase_params par = {2, 1.0, 0, 2048.0 * 1048576.0, 0};
        pase_problem in;
        CHECK(pase_problem_build_perf(pg, &par, &m, &in, &err) == DNP_OK);
        pase_search_opts so = {1, NULL, NULL, 0.0, 0, 0.0};
        pase_result res;
        CHECK(pase_search(&in, 0, &so, &res, &err) == DNP_OK);
        dnp_pase_summary s;
        dnp_pase_run_summary(r, &s);
        CHECK_NEAR(s.cost_s, res.cost, 1e-12, 0);
        CHECK(s.mem_limit_bytes == 0.0 && !s.mem_budgeted);
        pase_result_free(&res);
        pase_problem_free(&in);
        iter_space_free(pg);
        dnp_graph_free(g);
    }
    dnp_pase_run_free(r);
    dnp_pase_problem_free(pb);
}

/* Memory through the API (golden pase_perf_memory): AlexNet on 8 A100 in
 * 20 MB fits nowhere; in 100 MB the optimum does not fit, the per-op
 * budgets' plan (2.354 ms) fits, and the memory-aware MCMC from it finds a
 * fitting plan of 1.678 ms, which is kept (pase_run.c improve_budgeted).
 * Both in the default model's space, the loss's classes whole (docs/pase.md
 * "Row ops"; 2.348 and 1.67797 ms with them split).
 * Links at NCCL's achieved bandwidth (docs/collectives.md), GEMMs by tiles
 * and waves on the A100's 108 SMs (docs/device-model.md). */
TEST(pase_api_memory_limit)
{
    dnp_pase_options po = {.memory_limit_bytes = 20e6};
    dnp_pase_problem *pb;
    dnp_pase_run *r;
    dnp_error err = {0};
    CHECK(load_run("pase-alexnet", "8xa100", &po, &pb, &r, &err) == DNP_ERR_INPUT);
    CHECK(r == NULL && strstr(err.msg, "no strategy fits in 0.02 GB") != NULL);
    dnp_pase_problem_free(pb);
    po.memory_limit_bytes = 100e6;
    dnp_error_clear(&err);
    CHECK(load_run("pase-alexnet", "8xa100", &po, &pb, &r, &err) == DNP_OK);
    if (r != NULL) {
        dnp_pase_summary s;
        dnp_pase_run_summary(r, &s);
        CHECK(s.mem_budgeted == 1 && s.mem_bytes <= 100e6 && s.mem_limit_bytes == 100e6);
        const double budgeted_s = internal_s("pase-alexnet", 128, "8xa100", DNP_PREC_DEFAULT,
                                             DNP_OPTIM_MOMENTUM, 100e6, 0);
        CHECK_NEAR(budgeted_s, 2.3543409165124739e-3, 1e-12, 0);
        CHECK_NEAR(s.cost_s, 1.6780508108453353e-3, 1e-12, 0);
        /* the fitting baselines are no cheaper than the plan kept */
        for (int i = 0; i < s.n_baselines; i++) {
            dnp_pase_baseline b;
            CHECK_EQ_INT(dnp_pase_run_baseline(r, i, &b, &err), DNP_OK);
            CHECK(!b.fits || b.cost_s >= s.cost_s);
        }
    }
    dnp_pase_run_free(r);
    dnp_pase_problem_free(pb);
}

/* The type split through the API (alexnet on 2xa100+2xv100: 96 / 32): the
 * shares add up to the batch, the step is the slowest group plus the
 * cross-type all-reduce, the choice and the warnings follow. */
TEST(pase_api_type_split)
{
    dnp_pase_problem *pb;
    dnp_pase_run *r;
    dnp_error err = {0};
    CHECK(load_run("alexnet", "2xa100+2xv100", NULL, &pb, &r, &err) == DNP_OK);
    if (r == NULL) {
        printf("  %s\n", err.msg);
        dnp_pase_problem_free(pb);
        return;
    }
    dnp_pase_summary s;
    dnp_pase_run_summary(r, &s);
    CHECK(s.has_type_split);
    dnp_pase_type_split t;
    CHECK(dnp_pase_run_type_split(r, &t, &err) == DNP_OK);
    CHECK_EQ_INT(t.n_groups, 2);
    CHECK_STR(t.group[0].device, "a100");
    CHECK_STR(t.group[1].device, "v100");
    CHECK_EQ_INT(t.group[0].batch + t.group[1].batch, 128);
    CHECK_EQ_INT(t.group[0].batch, 96); /* dnnpar plan alexnet --search pase ... */
    double slow = t.group[0].time_s > t.group[1].time_s ? t.group[0].time_s : t.group[1].time_s;
    CHECK_NEAR(t.step_s, slow + t.sync_s, 1e-12, 0);
    CHECK(t.chosen == (t.step_s < s.cost_s) && t.chosen);
    CHECK(dnp_pase_run_type_config(r, 0, 0) != NULL);
    CHECK(dnp_pase_run_type_config(r, 0, dnp_pase_problem_n_ops(pb)) == NULL);
    CHECK(dnp_pase_run_type_config(r, 2, 0) == NULL);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f != NULL) {
        CHECK_EQ_INT(dnp_pase_run_warn(r, f), 0); /* both groups use both their devices */
        fclose(f);
    }
    char *text = dnp_pase_run_json(r);
    CHECK(text != NULL && strstr(text, "\"heterogeneous\"") != NULL &&
          strstr(text, "\"chosen\": \"type split\"") != NULL);
    dnp_free(text);
    dnp_pase_run_free(r);
    dnp_pase_problem_free(pb);
    /* pase-paper has no type split and no warnings */
    dnp_pase_options po = {.cost_model = DNP_COST_PASE_PAPER};
    CHECK(load_run("lenet", "2xa100+2xv100", &po, &pb, &r, &err) == DNP_OK);
    if (r != NULL) {
        CHECK(dnp_pase_run_type_split(r, &t, &err) == DNP_ERR_INPUT);
        CHECK_EQ_INT(dnp_pase_run_warn(r, stderr), 0);
    }
    dnp_pase_run_free(r);
    dnp_pase_problem_free(pb);
}

/* The options the cost model does not take are refused with a message. */
TEST(pase_api_cost_model_errors)
{
    dnp_pase_hw hw = proto_hw(2);
    dnp_pase_problem *pb = NULL;
    dnp_error err = {0};
    dnp_pase_options po = {.cost_model = DNP_COST_ACCPAR_PAPER};
    CHECK(dnp_pase_problem_load("lenet", &hw, &po, &pb, &err) == DNP_ERR_INPUT);
    CHECK(pb == NULL && strstr(err.msg, "not one of PaSE's") != NULL);
    po.cost_model = DNP_COST_PASE_PAPER;
    po.precision = DNP_PREC_FP16;
    dnp_error_clear(&err);
    CHECK(dnp_pase_problem_load("lenet", &hw, &po, &pb, &err) == DNP_ERR_INPUT);
    CHECK(pb == NULL && strstr(err.msg, "not pase-paper") != NULL);
}

/* The memory-aware MCMC (pase_mcmc.c): AlexNet on 8 A100 in 100 MB.  From
 * the expert's strategy (OWT, 0.116 GB: over the limit) it returns the
 * cheapest fitting strategy it met, and never one holding a configuration
 * over the limit by itself; without a limit the walk from the same start
 * is the unconstrained one (cheaper, over the limit). */
TEST(pase_mcmc_honours_memory_limit)
{
    dnp_graph *g = NULL;
    iter_space *pg = NULL;
    dnp_cluster c;
    dnp_error err = {0};
    CHECK(dnp_cluster_parse("8xa100", &c, &err) == DNP_OK);
    CHECK(dnp_model_load("pase-alexnet", &g, &err) == DNP_OK);
    CHECK(iter_space_build(g, 128, &pg, &err) == DNP_OK);
    double cost[2] = {0.0, 0.0}, bytes[2] = {0.0, 0.0};
    for (int limited = 0; limited < 2 && pg != NULL; limited++) {
        pase_perf m;
        CHECK(pase_perf_init(&c.types[0], 8, DNP_PREC_DEFAULT, DNP_OPTIM_MOMENTUM,
                             limited ? 100e6 : 0.0, 0, &m, &err) == DNP_OK);
        pase_params par = {8, 1.0, 0, 2048.0 * 1048576.0, 0};
        pase_problem pb;
        CHECK(pase_problem_build_perf(pg, &par, &m, &pb, &err) == DNP_OK);
        int *start = dnp_calloc((size_t)pb.n_v, sizeof *start);
        int *best = dnp_calloc((size_t)pb.n_v, sizeof *best);
        char name[40];
        CHECK(pase_expert(&pb, start, name, sizeof name, &err) == DNP_OK);
        CHECK(pase_footprint(&pb, start) > 100e6); /* the expert does not fit */
        pase_mcmc_opts mo;
        pase_mcmc_defaults(&mo);
        CHECK(pase_mcmc(&pb, start, &mo, best, NULL, &cost[limited], &err) == DNP_OK);
        bytes[limited] = pase_footprint(&pb, best);
        for (int v = 0; limited && v < pb.n_v; v++)
            CHECK(pb.mem[v][best[v]] <= 100e6);
        dnp_free(start);
        dnp_free(best);
        pase_problem_free(&pb);
    }
    CHECK(bytes[1] <= 100e6 && bytes[0] > 100e6);
    CHECK(cost[0] < cost[1]);
    CHECK_NEAR(cost[1], 1.773e-3, 1e-3, 0); /* plan pase-alexnet ... 100MB: the mcmc row */
    printf("  pase-alexnet 8xa100 in 100 MB: MCMC %.6g s at %.4g GB (unlimited %.6g s at %.4g "
           "GB)\n",
           cost[1], bytes[1] / 1e9, cost[0], bytes[0] / 1e9);
    iter_space_free(pg);
    dnp_graph_free(g);
}
