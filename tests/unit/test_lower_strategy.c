/*
 * test_lower_strategy.c - search -> strategy -> lowering (issue 34 item 3):
 * the AccPar search's tree becomes the one strategy type
 * (plan_strategy_from_tree) without losing anything, and the simulator
 * lowers that strategy (sim/lower.h) to the step it lowered from the tree
 * before.
 */
#include "dnnpar.h"
#include "plan/strategy.h"
#include "search/plan_internal.h"
#include "sim/lower.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Walk tree node n and group i of s together: 1 when every node's shares
 * are its group's to the bit (the search's and the strategy's come from
 * the one rule, plan_split_shares).  *differ counts the split nodes whose
 * halves are distinct groups deciding some row differently. */
static int same_shares(const plan_strategy *s, int i, const tnode *n, int V, int *differ)
{
    const plan_group *g = &s->group[i];
    size_t bytes = (size_t)V * sizeof(double);
    if (memcmp(g->fb, n->fb, bytes) != 0 || memcmp(g->fi, n->fi, bytes) != 0 ||
        memcmp(g->fo, n->fo, bytes) != 0)
        return 0;
    if (n->child[0] == NULL)
        return 1;
    if (!n->shared && n->child[0]->child[0] != NULL && n->child[1]->child[0] != NULL &&
        memcmp(n->child[0]->types, n->child[1]->types, (size_t)V * sizeof(int)) != 0)
        (*differ)++;
    return same_shares(s, g->child[0], n->child[0], V, differ) &&
           (n->shared || same_shares(s, g->child[1], n->child[1], V, differ));
}

/* Plan `model` with AccPar on `spec` at `batch`; the plan or NULL. */
static dnp_plan *accpar_plan(const char *model, const char *spec, int64_t batch, dnp_graph **g)
{
    dnp_error err = {0};
    dnp_cluster cl;
    dnp_plan *p = NULL;
    *g = NULL;
    if (dnp_cluster_parse(spec, &cl, &err) != DNP_OK || dnp_zoo_build(model, g, &err) != DNP_OK) {
        printf("  %s on %s: %s\n", model, spec, err.msg);
        return NULL;
    }
    dnp_plan_options o = {.scheme = DNP_SCHEME_ACCPAR, .batch = batch};
    if (dnp_plan_run(*g, &cl, &o, &p, &err) != DNP_OK)
        printf("  %s on %s: %s\n", model, spec, err.msg);
    return p;
}

/* lenet at batch 512 on 2 x tpu-v3 + 2 x tpu-v2: AccPar gives the tpu-v3
 * half 0.8728 of the root's work, and the halves decide level 1
 * differently (the tpu-v3 pair splits every layer's batch, the tpu-v2
 * pair fc1 and fc3 Type-II, fc2 Type-III: `dnnpar plan lenet --cluster
 * 2xtpu-v3+2xtpu-v2 --batch 512 --search accpar`).  Its strategy holds
 * every node (alpha, types, shares to the bit), and lowered it gives the
 * step the tree gave before the lowering read strategies (commit 478566f,
 * printed with %.17g: 484.360 us on 2 device classes) and the same
 * executed accounting (each device's simulated received bytes). */
TEST(lower_strategy_search_tree_as_before)
{
    dnp_graph *g = NULL;
    dnp_plan *p = accpar_plan("lenet", "2xtpu-v3+2xtpu-v2", 512, &g);
    CHECK(p != NULL && p->has_sim);
    if (p == NULL || !p->has_sim) {
        dnp_plan_free(p);
        dnp_graph_free(g);
        return;
    }
    plan_tree t = plan_tree_of(p);
    plan_strategy *s = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(plan_strategy_from_tree(&t, &s, &err), DNP_OK);
    if (s != NULL) {
        CHECK(plan_strategy_matches_tree(s, &t));
        /* root, the tpu-v3 pair and its leaf, the tpu-v2 pair and its leaf */
        CHECK_EQ_INT(s->n_groups, 5);
        CHECK_EQ_INT(s->group[0].shared, 0);
        int differ = 0;
        CHECK(same_shares(s, 0, p->root, p->lt.n_rows, &differ));
        CHECK_EQ_INT(differ, 1);
        const plan_group *a = &s->group[s->group[0].child[0]], *b = &s->group[s->group[0].child[1]];
        int fc1 = -1;
        for (int v = 0; v < s->n_ops; v++)
            if (strcmp(p->node_names[v], "fc1") == 0)
                fc1 = v;
        CHECK(fc1 >= 0);
        if (fc1 >= 0) {
            CHECK_EQ_INT(a->split[fc1], PLAN_SPLIT_B);
            CHECK_EQ_INT(b->split[fc1], PLAN_SPLIT_C);
        }
        lower_context m = plan_lower_context(p);
        lower_result r;
        memset(&r, 0, sizeof r);
        CHECK_EQ_INT(lower_simulate(s, &m, g, &p->opt, &r, &err), DNP_OK);
        CHECK_EQ_INT(r.n_classes, 2);
        CHECK_NEAR(r.step_time_s, 0.00048435985023260124, 0, 0);
        CHECK_NEAR(r.step_time_s, p->sim.step_time_s, 0, 0);
        CHECK_NEAR(r.compute_s, 0.00012549945408623985, 0, 0);
        CHECK_NEAR(r.exposed_comm_s, 0.00027683124999999998, 0, 0);
        CHECK_NEAR(r.mem_peak_bytes, 7278142.0022036033, 0, 0);
        /* the classes' paths: root -> tpu-v3 pair -> its leaf, root -> tpu-v2 ... */
        CHECK_EQ_INT(r.classes[0].depth, 2);
        CHECK_EQ_INT(r.classes[0].path[1], s->group[0].child[0]);
        CHECK_EQ_INT(r.classes[1].path[1], s->group[0].child[1]);
        dnp_device_comm *dc = NULL;
        int n = 0;
        CHECK_EQ_INT(lower_device_comm(s, &m, &r, g, 4, &dc, &n, &err), DNP_OK);
        CHECK_EQ_INT(n, 4);
        if (dc != NULL && n == 4) {
            static const double want_sim[4] = {185118.0, 185118.0, 125590.26202191791,
                                               125590.26202191791};
            static const double want_recv[4] = {330813.33333333331, 330813.33333333331,
                                                290469.33333333337, 289776.0};
            for (int d = 0; d < 4; d++) {
                CHECK_NEAR(dc[d].sim_received_bytes, want_sim[d], 0, 0);
                CHECK_NEAR(dc[d].received_bytes, want_recv[d], 0, 0);
            }
        }
        dnp_free(dc);
        lower_result_free(&r);
    }
    plan_strategy_free(s);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* A strategy made by hand, no tree and no search: x -> fc1 (1024) -> relu
 * -> fc2 (10) at batch 64, data parallel on two devices (a root group of 2
 * whose identical halves are one leaf group, alpha 1/2, every op split b).
 * Lowered, it is the step the data-parallel plan of the same graph gives
 * (sim_dp_two_layers_hand_worked works that one out by hand: each op's
 * three kernels at half the batch, paced by the host, then one ring
 * all-reduce of the gradients and the momentum update), to the bit. */
TEST(lower_strategy_by_hand_as_plan)
{
    dnp_graph *g = dnp_graph_new("mlp");
    int x = dnp_graph_input(g, "x", 1024, 1, 1);
    x = dnp_graph_fc(g, "fc1", x, 1024, 1);
    x = dnp_graph_unary(g, "relu", DNP_OP_RELU, x);
    dnp_graph_fc(g, "fc2", x, 10, 1);
    const char *spec = "2xcustom(name=g,tflops=100,net_gbps=100,dtype=fp32,mem_gb=16,"
                       "membw_gbps=900)";
    dnp_plan_options opt = {.scheme = DNP_SCHEME_DP, .batch = 64, .no_overlap = 1};
    dnp_cluster cl;
    dnp_error err = {0};
    dnp_plan *p = NULL;
    CHECK_EQ_INT(dnp_cluster_parse(spec, &cl, &err), DNP_OK);
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_OK);
    layer_table lt;
    CHECK_EQ_INT(layer_table_build(g, 64, &lt, &err), DNP_OK);
    CHECK_EQ_INT(lt.n_rows, 2);
    plan_strategy *s = plan_strategy_new(lt.n_rows, 1);
    CHECK(s != NULL && plan_strategy_alloc_groups(s, 2) == 0);
    if (p != NULL && s != NULL && s->n_groups == 2) {
        s->batch = 64;
        for (int v = 0; v < lt.n_rows; v++) {
            s->ops[v].op = lt.row[v].op;
            s->ops[v].weighted = lt.row[v].weighted;
        }
        plan_group *root = &s->group[0], *leaf = &s->group[1];
        root->counts[0] = root->n_dev = 2;
        root->child[0] = root->child[1] = 1;
        root->shared = 1;
        root->alpha = 0.5;
        memset(root->split, PLAN_SPLIT_B, (size_t)lt.n_rows);
        leaf->counts[0] = leaf->n_dev = 1;
        leaf->depth = 1;
        plan_strategy_derive_shares(s);
        CHECK_NEAR(leaf->fb[0], 0.5, 0, 0);
        CHECK_NEAR(leaf->fi[0], 1.0, 0, 0);
        const double pace[DNP_MAX_DEVICE_TYPES] = {1.0};
        char name1[] = "fc1", name2[] = "fc2";
        char *names[2] = {name1, name2};
        lower_context m = {.model = "mlp", .cl = &cl, .lt = &lt, .node_names = names,
                           .pace = pace};
        lower_result r;
        memset(&r, 0, sizeof r);
        CHECK_EQ_INT(lower_simulate(s, &m, g, &opt, &r, &err), DNP_OK);
        dnp_plan_summary sum;
        dnp_plan_get_summary(p, &sum);
        CHECK_EQ_INT(r.n_classes, 1);
        CHECK_NEAR(r.classes[0].devices, 2.0, 0, 0);
        CHECK_NEAR(r.step_time_s, sum.step_time_s, 0, 0);
        CHECK_NEAR(r.compute_s, sum.compute_s, 0, 0);
        CHECK_NEAR(r.exposed_comm_s, sum.exposed_comm_s, 0, 0);
        lower_result_free(&r);
        /* a strategy whose ops are not the layer table's rows is refused */
        s->n_ops = 1;
        CHECK_EQ_INT(lower_simulate(s, &m, g, &opt, &r, &err), DNP_ERR_INPUT);
        CHECK(strstr(err.msg, "no tree to lower") != NULL);
        s->n_ops = 2;
    }
    plan_strategy_free(s);
    layer_table_free(&lt);
    dnp_plan_free(p);
    dnp_graph_free(g);
}
