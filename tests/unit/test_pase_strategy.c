/* test_pase_strategy.c - a PaSE strategy as a dnnpar strategy
 * (src/search/pase/pase_strategy.c, docs/pase.md "As a dnnpar strategy"):
 * the levels each configuration becomes, read back and planned by the
 * strategy evaluator, and the refusals.  Public API only. */
#include "dnnpar.h"
#include "test.h"

#include <string.h>

/* PaSE on `model` over `spec` with options po, its step time or F in
 * seconds (*cost_s, may be NULL) and its dnnpar strategy. */
static int pase_strategy_po(const char *model, const char *spec, const dnp_pase_options *po,
                            double *cost_s, char **text, dnp_pase_strategy_info *info,
                            dnp_graph **g, dnp_cluster *cl, dnp_error *err)
{
    dnp_pase_hw hw;
    dnp_pase_problem *pb = NULL;
    dnp_pase_run *run = NULL;
    int st = dnp_cluster_parse(spec, cl, err);
    if (st == DNP_OK)
        st = dnp_pase_hw_from_cluster(cl, &hw, err);
    if (st == DNP_OK)
        st = dnp_pase_problem_load(model, &hw, po, &pb, err);
    if (st == DNP_OK)
        st = dnp_pase_run_new(pb, NULL, &run, err);
    if (st == DNP_OK && cost_s != NULL) {
        dnp_pase_summary s;
        dnp_pase_run_summary(run, &s);
        *cost_s = s.cost_s;
    }
    if (st == DNP_OK)
        st = dnp_model_load(model, g, err);
    if (st == DNP_OK)
        st = dnp_pase_run_strategy(run, *g, model, cl, dnp_pase_problem_batch(pb), text, info,
                                   err);
    dnp_pase_run_free(run);
    dnp_pase_problem_free(pb);
    return st;
}

/* PaSE on `model` over `spec` under cost model cm (the prototype's
 * accounting: exact, deterministic), and its dnnpar strategy. */
static int pase_strategy(const char *model, const char *spec, dnp_cost_model cm, char **text,
                         dnp_pase_strategy_info *info, dnp_graph **g, dnp_cluster *cl,
                         dnp_error *err)
{
    dnp_pase_options po;
    memset(&po, 0, sizeof po);
    po.cost_model = cm;
    po.max_memory_bytes = 256.0 * 1048576.0;
    return pase_strategy_po(model, spec, &po, NULL, text, info, g, cl, err);
}

TEST(pase_strategy_levels_and_plan)
{
    char *text = NULL;
    dnp_pase_strategy_info info;
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(pase_strategy("alexnet", "8xa100", DNP_COST_PASE_PAPER, &text, &info, &g, &cl,
                               &err),
                 DNP_OK);
    if (text == NULL) {
        dnp_graph_free(g);
        return;
    }
    CHECK_EQ_INT(info.idle_ops, 0);
    CHECK_EQ_INT(info.type_split, 0);
    /* The prototype's optimum on 8 devices (the report of `plan alexnet
     * --search pase --cost-model pase-paper -p 8`): the convs split the batch
     * 8 ways (I on all 3 levels), fc6 and fc8 are (b, n, c) = (1, 2, 4):
     * III on level 0 (n, the second dimension), then II, II (c); fc7 is
     * (1, 4, 2): III, III, II. */
    dnp_strategy *s = NULL;
    CHECK_EQ_INT(dnp_strategy_read_buffer(text, strlen(text), "pase", &s, &err), DNP_OK);
    dnp_plan *p = NULL;
    dnp_plan_options opt = {.batch = dnp_strategy_batch(s)};
    if (s != NULL)
        CHECK_EQ_INT(dnp_plan_run_strategy(g, &cl, &opt, s, &p, &err), DNP_OK);
    if (p != NULL) {
        static const char *const names[] = {"conv1", "conv5", "fc6", "fc7", "fc8"};
        static const int want[5][3] = {{DNP_TYPE_I, DNP_TYPE_I, DNP_TYPE_I},
                                       {DNP_TYPE_I, DNP_TYPE_I, DNP_TYPE_I},
                                       {DNP_TYPE_III, DNP_TYPE_II, DNP_TYPE_II},
                                       {DNP_TYPE_III, DNP_TYPE_III, DNP_TYPE_II},
                                       {DNP_TYPE_III, DNP_TYPE_II, DNP_TYPE_II}};
        for (int k = 0; k < 5; k++) {
            int node = -1;
            for (int v = 0; v < dnp_plan_n_nodes(p); v++)
                if (strcmp(dnp_plan_node_name(p, v), names[k]) == 0)
                    node = v;
            CHECK(node >= 0);
            for (int level = 0; level < 3 && node >= 0; level++)
                CHECK_EQ_INT(dnp_plan_type(p, level, 0, node), want[k][level]);
        }
        dnp_plan_summary sum;
        dnp_plan_get_summary(p, &sum);
        CHECK(sum.step_time_s > 0.0);
        CHECK_EQ_INT(dnp_strategy_batch(s), 128);
    }
    dnp_plan_free(p);
    dnp_strategy_free(s);
    dnp_free(text);
    dnp_graph_free(g);
}

TEST(pase_strategy_refusals_and_fill)
{
    char *text = NULL;
    dnp_pase_strategy_info info;
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    /* 6 devices: no binary device tree */
    CHECK_EQ_INT(pase_strategy("alexnet", "6xa100", DNP_COST_PASE_PAPER, &text, &info, &g, &cl,
                               &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "power-of-two") != NULL);
    dnp_graph_free(g);
    g = NULL;
    /* the shared model leaves LeNet's small layers on fewer than 16
     * devices (a GEMM of a few tiles gains nothing from more SMs): an
     * unused level is R (not split), counted */
    dnp_error e2 = {0};
    CHECK_EQ_INT(pase_strategy("lenet", "16xa100", DNP_COST_DEFAULT, &text, &info, &g, &cl,
                               &e2),
                 DNP_OK);
    CHECK(info.idle_ops >= 1);
    CHECK(text != NULL && strstr(text, "\"search\": \"pase\"") != NULL);
    CHECK(text != NULL && strstr(text, "\"R\"") != NULL);
    CHECK(text != NULL && strstr(text, "\"version\": 2") != NULL);
    dnp_free(text);
    dnp_graph_free(g);
}

/* The plan of strategy text `text` for g on cl (NULL on failure). */
static dnp_plan *plan_of(const char *text, const dnp_graph *g, const dnp_cluster *cl)
{
    dnp_error err = {0};
    dnp_strategy *s = NULL;
    dnp_plan *p = NULL;
    if (text != NULL && dnp_strategy_read_buffer(text, strlen(text), "pase", &s, &err) == DNP_OK) {
        dnp_plan_options opt = {.batch = dnp_strategy_batch(s)};
        if (dnp_plan_run_strategy(g, cl, &opt, s, &p, &err) != DNP_OK)
            p = NULL;
    }
    dnp_strategy_free(s);
    return p;
}

/* On 8xa100+8xv100 the shared model's run splits vgg11's 128 samples 96
 * (a100) / 32 (v100) across the types (the objective's share search,
 * dnp_pase_run_new): level 0 is that split, Type-I with ratio 96/128 =
 * 0.75 on both branches, and each type's 8 devices take their group's
 * plan on levels 1..3. */
TEST(pase_strategy_type_split)
{
    char *text = NULL;
    dnp_pase_strategy_info info;
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(pase_strategy("vgg11", "8xa100+8xv100", DNP_COST_DEFAULT, &text, &info, &g,
                               &cl, &err),
                 DNP_OK);
    CHECK_EQ_INT(info.type_split, 1);
    CHECK_EQ_INT(info.idle_types[0], '\0');
    CHECK(strcmp(info.cluster, "8xa100+8xv100") == 0);
    dnp_plan *p = plan_of(text, g, &cl);
    CHECK(p != NULL);
    if (p != NULL) {
        CHECK_NEAR(dnp_plan_ratio(p, 0, 0), 0.75, 0, 0);
        CHECK_NEAR(dnp_plan_ratio(p, 0, 1), 0.75, 0, 0);
        CHECK(!dnp_plan_level_identical(p, 0, 0));
        for (int v = 0; v < dnp_plan_n_nodes(p); v++)
            CHECK_EQ_INT(dnp_plan_type(p, 0, 0, v), 0); /* I, or a batch join */
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        CHECK_EQ_INT(s.levels, 4);
    }
    dnp_plan_free(p);
    dnp_free(text);
    dnp_graph_free(g);
}

/* 2xa100+4xv100: the device tree is 2 deep on the a100 branch and 3 on the
 * v100 one; the strategy (version 2) has short paths of 2 and 3 levels,
 * and the planner decides all 3 levels on the v100 branch although the
 * cluster's searches stop at 2 (dnp_cluster_max_levels). */
TEST(pase_strategy_uneven_tree)
{
    char *text = NULL;
    dnp_pase_strategy_info info;
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(pase_strategy("alexnet", "2xa100+4xv100", DNP_COST_DEFAULT, &text, &info, &g,
                               &cl, &err),
                 DNP_OK);
    CHECK_EQ_INT(dnp_cluster_max_levels(&cl), 2);
    CHECK_EQ_INT(dnp_cluster_tree_depth(&cl), 3);
    CHECK_EQ_INT(info.type_split, 1);
    dnp_plan *p = plan_of(text, g, &cl);
    CHECK(p != NULL);
    if (p != NULL) {
        CHECK(dnp_plan_type(p, 1, 0, 0) >= 0);
        CHECK_EQ_INT(dnp_plan_type(p, 2, 0, 0), -1); /* a100 branch: leaves at level 2 */
        CHECK(dnp_plan_type(p, 2, 1, 0) >= 0);       /* v100 branch: a third level */
        CHECK(dnp_plan_ratio(p, 0, 0) > 0.0 && dnp_plan_ratio(p, 0, 0) < 1.0);
    }
    dnp_plan_free(p);
    dnp_free(text);
    dnp_graph_free(g);
}

/* PaSE under the default model on `spec` at batch 16, in the full space
 * or the strategy's (dnp_pase_options.strategy_space): its step time in
 * *cost_s and the status of writing its dnnpar strategy. */
static int space_run(const char *model, const char *spec, int space, double *cost_s,
                     dnp_error *err)
{
    dnp_pase_options po;
    memset(&po, 0, sizeof po);
    po.batch = 16;
    po.strategy_space = space;
    dnp_cluster cl;
    dnp_graph *g = NULL;
    char *text = NULL;
    dnp_pase_strategy_info info;
    int st = pase_strategy_po(model, spec, &po, cost_s, &text, &info, &g, &cl, err);
    dnp_free(text);
    dnp_graph_free(g);
    return st;
}

/* The strategy's space (docs/pase.md "The strategy's space"): PaSE's
 * optimum of the prototype's Inception-v3 on 4xa100 splits a conv's input
 * channels 3 ways and of its RNNLM an LSTM's output units, which no
 * strategy holds; searched in the strategy's space both write, at a cost
 * never below the full space's optimum (a subset of it). */
TEST(pase_strategy_space)
{
    static const char *const models[] = {"pase-inception3", "pase-rnnlm", "bert-base"};
    static const char *const why[] = {"3 ways", "'lstm' splits its dimension 'd'",
                                       "dimension 's'"};
    for (int m = 0; m < 3; m++) {
        double full_s = -1.0, space_s = -1.0;
        dnp_error err = {0};
        CHECK_EQ_INT(space_run(models[m], "4xa100", 0, &full_s, &err), DNP_ERR_INPUT);
        CHECK(strstr(err.msg, why[m]) != NULL);
        memset(&err, 0, sizeof err);
        CHECK_EQ_INT(space_run(models[m], "4xa100", 1, &space_s, &err), DNP_OK);
        CHECK(full_s > 0.0 && space_s >= full_s * (1.0 - 1e-12));
    }
}
