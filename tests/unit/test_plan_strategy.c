/*
 * test_plan_strategy.c - the one strategy type (src/plan/strategy.h) and
 * its producers, on hand-worked cases: AccPar's tree (plan/tree.h), a
 * Megatron-LM configuration (sim/config3d_stages.h), PaSE's
 * configurations (search/pase/pase_driver.h).
 */
#include "dnnpar.h"
#include "plan/layer_table.h"
#include "plan/strategy.h"
#include "plan/tree.h"
#include "report/report.h"
#include "model/iter_space.h"
#include "search/pase/pase_driver.h"
#include "sim/config3d_stages.h"
#include "test.h"

#include <stdlib.h>

/* The op of graph g named `name` in s, NULL if none. */
static const plan_op *op_named(const plan_strategy *s, const dnp_graph *g, const char *name)
{
    int i = dnp_graph_find(g, name);
    return i >= 0 ? plan_strategy_find(s, i) : NULL;
}

/* The building blocks: axes, splits, lookups. */
TEST(plan_strategy_basics)
{
    plan_strategy *s = plan_strategy_new(3, 2);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    CHECK_EQ_INT(s->n_ops, 3);
    CHECK_EQ_INT(s->n_stages, 2);
    CHECK_EQ_INT(plan_strategy_add_axis(s, "data", 4, 0.25), 0);
    CHECK_EQ_INT(plan_strategy_add_axis(s, "model", 2, 0.5), 1);
    CHECK_STR(s->axis[1].name, "model");
    CHECK_EQ_INT(s->axis[0].size, 4);
    for (int i = 0; i < 3; i++)
        s->ops[i].op = 2 * i + 1; /* ops 1, 3, 5 */
    plan_op *o = &s->ops[1];
    CHECK_EQ_INT(plan_op_split(o, "b", 0), 0);
    CHECK_EQ_INT(plan_op_split(o, "n", 1), 0);
    CHECK_EQ_INT(plan_op_split(o, "b", 1), 0); /* b over both axes: one entry */
    CHECK_EQ_INT(o->n_splits, 2);
    CHECK_EQ_INT(plan_op_axes(o, "b"), 3);
    CHECK_EQ_INT(plan_op_axes(o, "n"), 2);
    CHECK_EQ_INT(plan_op_axes(o, "c"), 0);
    CHECK_EQ_INT(plan_op_all_axes(o), 3);
    CHECK_EQ_INT(plan_op_split(o, "c", 0), 0);
    CHECK_EQ_INT(plan_op_split(o, "heads", 0), 0);
    CHECK_EQ_INT(plan_op_split(o, "seq", 0), -1); /* a fifth dimension */
    CHECK_EQ_INT(plan_op_split(o, "b", PLAN_MAX_AXES), -1);
    CHECK(plan_strategy_find(s, 3) == o);
    CHECK(plan_strategy_find(s, 5) == &s->ops[2]);
    CHECK(plan_strategy_find(s, 1) == &s->ops[0]);
    CHECK(plan_strategy_find(s, 2) == NULL);
    CHECK(plan_strategy_find(s, 6) == NULL);
    for (int k = 2; k < PLAN_MAX_AXES; k++)
        CHECK_EQ_INT(plan_strategy_add_axis(s, "h", 2, 0.5), k);
    CHECK_EQ_INT(plan_strategy_add_axis(s, "one-too-many", 2, 0.5), -1);
    plan_strategy_free(s);
    plan_strategy_free(NULL);
}

/* A two-level AccPar tree of x -> fc1 -> fc2 on 2 x tpu-v3 + 2 x tpu-v2
 * (types 0 and 1), built by hand: the root gives the tpu-v3 half 0.6 of
 * the work, fc1 Type-I, fc2 Type-III; the tpu-v3 half splits evenly with
 * fc1 Type-II, fc2 Type-I.  Along the first path: h0 (share 0.6,
 * halves {2 tpu-v3} and {2 tpu-v2}), h1 (0.5, {1 tpu-v3} each); fc1
 * splits b over h0 (its weight gradient summed over h0) and c over h1
 * (its output a partial sum over h1); fc2 n over h0 (its input gradient
 * summed over h0) and b over h1 (weight gradient over h1). */
TEST(plan_strategy_from_accpar_tree)
{
    dnp_graph *g = dnp_graph_new("two_fc");
    int x = dnp_graph_input(g, "x", 8, 1, 1);
    int a = dnp_graph_fc(g, "fc1", x, 6, 0);
    dnp_graph_fc(g, "fc2", a, 4, 0);
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("2xtpu-v3+2xtpu-v2", &cl, &err), DNP_OK);
    layer_table lt;
    CHECK_EQ_INT(layer_table_build(g, 32, &lt, &err), DNP_OK);
    CHECK_EQ_INT(lt.n_rows, 2);
    int types_root[2] = {DNP_TYPE_I, DNP_TYPE_III}, types_v3[2] = {DNP_TYPE_II, DNP_TYPE_I};
    int types_v2[2] = {DNP_TYPE_R, DNP_TYPE_R};
    tnode leaf_v = {.counts = {1, 0}, .n_dev = 1, .depth = 2};
    tnode leaf_p = {.counts = {0, 1}, .n_dev = 1, .depth = 2};
    tnode v3 = {.counts = {2, 0}, .n_dev = 2, .depth = 1, .child = {&leaf_v, &leaf_v},
                .shared = 1, .alpha = 0.5, .types = types_v3};
    tnode v2 = {.counts = {0, 2}, .n_dev = 2, .depth = 1, .child = {&leaf_p, &leaf_p},
                .shared = 1, .alpha = 0.5, .types = types_v2};
    tnode root = {.counts = {2, 2}, .n_dev = 4, .depth = 0, .child = {&v3, &v2},
                  .alpha = 0.6, .types = types_root};
    plan_tree t = {.model = "two_fc", .cl = &cl, .lt = &lt, .root = &root, .batch = 32};
    plan_strategy *s = NULL;
    CHECK_EQ_INT(plan_strategy_from_tree(&t, &s, &err), DNP_OK);
    CHECK(s != NULL);
    if (s != NULL) {
        CHECK_EQ_INT(s->batch, 32);
        CHECK_EQ_INT(s->n_axes, 2);
        CHECK_STR(s->axis[0].name, "h0");
        CHECK_STR(s->axis[1].name, "h1");
        CHECK_EQ_INT(s->axis[0].size, 2);
        CHECK_EQ_INT(s->axis[1].size, 2);
        CHECK_NEAR(s->axis[0].share, 0.6, 0, 0);
        CHECK_NEAR(s->axis[1].share, 0.5, 0, 0);
        CHECK_EQ_INT(s->axis[0].half_counts[0][0], 2);
        CHECK_EQ_INT(s->axis[0].half_counts[0][1], 0);
        CHECK_EQ_INT(s->axis[0].half_counts[1][0], 0);
        CHECK_EQ_INT(s->axis[0].half_counts[1][1], 2);
        CHECK_EQ_INT(s->axis[1].half_counts[0][0], 1);
        CHECK_EQ_INT(s->axis[1].half_counts[1][0], 1);
        CHECK_EQ_INT(s->axis[1].half_counts[1][1], 0);
        CHECK_EQ_INT(s->n_stages, 1);
        CHECK_EQ_INT(s->stage[0].first_rank, 0);
        CHECK_EQ_INT(s->stage[0].n_ranks, 4);
        CHECK_EQ_INT(s->stage[0].types, 3);
        CHECK_EQ_INT(s->n_ops, 2);
        const plan_op *f1 = op_named(s, g, "fc1"), *f2 = op_named(s, g, "fc2");
        CHECK(f1 != NULL && f2 != NULL);
        CHECK(plan_strategy_find(s, x) == NULL); /* the input decides nothing */
        if (f1 != NULL && f2 != NULL) {
            CHECK_EQ_INT(f1->weighted, 1);
            CHECK_EQ_INT(f1->stage, 0);
            CHECK_EQ_INT(f1->n_splits, 2);
            CHECK_EQ_INT(plan_op_axes(f1, "b"), 1);
            CHECK_EQ_INT(plan_op_axes(f1, "c"), 2);
            CHECK_EQ_INT(plan_op_axes(f1, "n"), 0);
            CHECK_EQ_INT(f1->wgrad_partial, 1);
            CHECK_EQ_INT(f1->out_partial, 2);
            CHECK_EQ_INT(f1->igrad_partial, 0);
            CHECK_EQ_INT(plan_op_axes(f2, "n"), 1);
            CHECK_EQ_INT(plan_op_axes(f2, "b"), 2);
            CHECK_EQ_INT(plan_op_axes(f2, "c"), 0);
            CHECK_EQ_INT(f2->igrad_partial, 1);
            CHECK_EQ_INT(f2->wgrad_partial, 2);
            CHECK_EQ_INT(f2->out_partial, 0);
        }
    }
    plan_strategy_free(s);
    /* a replicated level (R for both) splits nothing and adds an axis */
    types_root[0] = types_root[1] = DNP_TYPE_R;
    CHECK_EQ_INT(plan_strategy_from_tree(&t, &s, &err), DNP_OK);
    if (s != NULL) {
        CHECK_EQ_INT(s->n_axes, 2);
        CHECK_EQ_INT(plan_op_all_axes(&s->ops[0]), 2); /* fc1: c over h1 only */
        CHECK_EQ_INT(plan_op_all_axes(&s->ops[1]), 2); /* fc2: b over h1 only */
    }
    plan_strategy_free(s);
    layer_table_free(&lt);
    dnp_graph_free(g);
}

/* The hand tree of plan_strategy_from_accpar_tree with halves that decide
 * differently: under the root (0.6 to the tpu-v3 half; fc1 Type-I, fc2
 * Type-III) the tpu-v3 half splits fc1 II, fc2 I and the tpu-v2 half fc1
 * III, fc2 II, each evenly into identical leaves.  The strategy holds it
 * whole: five groups depth first (root 0, tpu-v3 half 1 and its leaf 2,
 * tpu-v2 half 3 and its leaf 4), each with its tree node's devices, alpha
 * and splits, and the shares by hand: the tpu-v3 half holds fc1's batch
 * 0.6 and fc2's outputs 0.6; its leaf fc1 (b .6, c .5), fc2 (b .5, n .6);
 * the tpu-v2 half fc1 b .4, fc2 n .4; its leaf fc1 (b .4, n .5), fc2
 * (c .5, n .4).  A change in the second half alone is seen (the mesh view
 * of the first path cannot see it). */
TEST(plan_strategy_tree_lossless)
{
    dnp_graph *g = dnp_graph_new("two_fc");
    int x = dnp_graph_input(g, "x", 8, 1, 1);
    dnp_graph_fc(g, "fc2", dnp_graph_fc(g, "fc1", x, 6, 0), 4, 0);
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("2xtpu-v3+2xtpu-v2", &cl, &err), DNP_OK);
    layer_table lt;
    CHECK_EQ_INT(layer_table_build(g, 32, &lt, &err), DNP_OK);
    int types_root[2] = {DNP_TYPE_I, DNP_TYPE_III}, types_v3[2] = {DNP_TYPE_II, DNP_TYPE_I};
    int types_v2[2] = {DNP_TYPE_III, DNP_TYPE_II};
    tnode leaf_v = {.counts = {1, 0}, .n_dev = 1, .depth = 2};
    tnode leaf_p = {.counts = {0, 1}, .n_dev = 1, .depth = 2};
    tnode v3 = {.counts = {2, 0}, .n_dev = 2, .depth = 1, .child = {&leaf_v, &leaf_v},
                .shared = 1, .alpha = 0.5, .types = types_v3};
    tnode v2 = {.counts = {0, 2}, .n_dev = 2, .depth = 1, .child = {&leaf_p, &leaf_p},
                .shared = 1, .alpha = 0.5, .types = types_v2};
    tnode root = {.counts = {2, 2}, .n_dev = 4, .depth = 0, .child = {&v3, &v2},
                  .alpha = 0.6, .types = types_root};
    plan_tree t = {.model = "two_fc", .cl = &cl, .lt = &lt, .root = &root, .batch = 32};
    plan_strategy *s = NULL;
    CHECK_EQ_INT(plan_strategy_from_tree(&t, &s, &err), DNP_OK);
    if (s == NULL) {
        layer_table_free(&lt);
        dnp_graph_free(g);
        return;
    }
    CHECK_EQ_INT(s->n_groups, 5);
    CHECK(plan_strategy_matches_tree(s, &t));
    static const int want_child[5][2] = {{1, 3}, {2, 2}, {-1, -1}, {4, 4}, {-1, -1}};
    static const int want_depth[5] = {0, 1, 2, 1, 2}, want_dev[5] = {4, 2, 1, 2, 1};
    static const int want_shared[5] = {0, 1, 0, 1, 0};
    static const double want_alpha[5] = {0.6, 0.5, 0.0, 0.5, 0.0};
    /* splits of fc1, fc2 (internal groups) */
    static const int want_split[5][2] = {{PLAN_SPLIT_B, PLAN_SPLIT_N},
                                         {PLAN_SPLIT_C, PLAN_SPLIT_B},
                                         {0, 0},
                                         {PLAN_SPLIT_N, PLAN_SPLIT_C},
                                         {0, 0}};
    /* fb, fi, fo of fc1 then fc2 */
    static const double want_share[5][6] = {{1, 1, 1, 1, 1, 1},
                                            {0.6, 1, 1, 1, 1, 0.6},
                                            {0.6, 0.5, 1, 0.5, 1, 0.6},
                                            {0.4, 1, 1, 1, 1, 0.4},
                                            {0.4, 1, 0.5, 1, 0.5, 0.4}};
    for (int i = 0; i < s->n_groups && i < 5; i++) {
        const plan_group *q = &s->group[i];
        CHECK_EQ_INT(q->child[0], want_child[i][0]);
        CHECK_EQ_INT(q->child[1], want_child[i][1]);
        CHECK_EQ_INT(q->depth, want_depth[i]);
        CHECK_EQ_INT(q->n_dev, want_dev[i]);
        CHECK_EQ_INT(q->shared, want_shared[i]);
        CHECK_NEAR(q->alpha, want_alpha[i], 0, 0);
        for (int v = 0; v < 2; v++) {
            if (q->child[0] >= 0)
                CHECK_EQ_INT(q->split[v], want_split[i][v]);
            CHECK_NEAR(q->fb[v], want_share[i][3 * v], 0, 1e-15);
            CHECK_NEAR(q->fi[v], want_share[i][3 * v + 1], 0, 1e-15);
            CHECK_NEAR(q->fo[v], want_share[i][3 * v + 2], 0, 1e-15);
        }
    }
    CHECK_EQ_INT(s->group[2].counts[0], 1);
    CHECK_EQ_INT(s->group[4].counts[1], 1);
    CHECK_EQ_INT(plan_split_type(1, s->group[3].split[0]), DNP_TYPE_III);
    /* the mesh view is the first path's, as before */
    CHECK_EQ_INT(s->n_axes, 2);
    CHECK_EQ_INT(plan_op_axes(&s->ops[0], "c"), 2);
    CHECK_EQ_INT(plan_op_axes(&s->ops[1], "b"), 2);
    /* the second half's decisions are part of what the strategy holds */
    types_v2[1] = DNP_TYPE_I;
    CHECK(!plan_strategy_matches_tree(s, &t));
    plan_strategy *s2 = NULL;
    CHECK_EQ_INT(plan_strategy_from_tree(&t, &s2, &err), DNP_OK);
    if (s2 != NULL) {
        CHECK(plan_strategy_matches_tree(s2, &t));
        CHECK_EQ_INT(s2->group[3].split[1], PLAN_SPLIT_B);
        CHECK_NEAR(s2->group[4].fb[1], 0.5, 0, 0);
        CHECK_NEAR(s2->group[4].fi[1], 1.0, 0, 0);
    }
    plan_strategy_free(s2);
    types_v2[1] = DNP_TYPE_II;
    v2.alpha = 0.25; /* (its halves would then differ: the check sees the ratio alone) */
    CHECK(!plan_strategy_matches_tree(s, &t));
    plan_strategy_free(s);
    layer_table_free(&lt);
    dnp_graph_free(g);
}

/* Counts of gpt2's ops under tp=2 pp=2 dp=2 (12 layers of 15 ops, three
 * embedding ops before them, ln_f and the tied logits after): per layer
 * qkv and fc1 split n over model, attn.out and fc2 split c with the
 * output a partial sum, the gelu splits c (features), scores / softmax /
 * attention dropout / context split heads; the embedding and the tied
 * logits the vocabulary; every op b over data.  Layers 0-5 and the
 * embedding are on stage 0 (3 + 6 x 15 = 93 ops), layers 6-11, ln_f and
 * the logits on stage 1 (92). */
TEST(plan_strategy_from_config3d_gpt2)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_config3d cfg;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("gpt2", &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100", &cl, &err), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_parse("tp=2,pp=2,dp=2", &cfg, &err), DNP_OK);
    if (g == NULL)
        return;
    plan_strategy *s = NULL;
    CHECK_EQ_INT(c3_strategy_of(g, &cl, &cfg, 16, &s, &err), DNP_OK);
    CHECK(s != NULL);
    if (s != NULL) {
        CHECK_EQ_INT(s->batch, 16);
        CHECK_EQ_INT(s->n_axes, 2);
        CHECK_STR(s->axis[0].name, "data");
        CHECK_STR(s->axis[1].name, "model");
        CHECK_EQ_INT(s->axis[0].size, 2);
        CHECK_EQ_INT(s->axis[1].size, 2);
        CHECK_NEAR(s->axis[1].share, 0.5, 0, 0);
        CHECK_EQ_INT(s->n_stages, 2);
        for (int st = 0; st < 2; st++) {
            CHECK_EQ_INT(s->stage[st].first_rank, 4 * st);
            CHECK_EQ_INT(s->stage[st].n_ranks, 4);
            CHECK_EQ_INT(s->stage[st].types, 1);
            CHECK_EQ_INT(s->stage[st].layers, 6);
        }
        CHECK_EQ_INT(s->n_ops, 185);
        const unsigned data = 1u, model = 2u;
        int n_col = 0, n_row = 0, n_feat = 0, n_heads = 0, n_vocab = 0, n_none = 0;
        int on_stage[2] = {0, 0}, b_over_data = 0;
        for (int i = 0; i < s->n_ops; i++) {
            const plan_op *o = &s->ops[i];
            CHECK(i == 0 || o->op > s->ops[i - 1].op); /* graph order */
            b_over_data += plan_op_axes(o, "b") == data;
            if (o->stage >= 0 && o->stage < 2)
                on_stage[o->stage]++;
            if (plan_op_axes(o, "n") == model)
                n_col++;
            else if (plan_op_axes(o, "c") == model && o->out_partial == model)
                n_row++;
            else if (plan_op_axes(o, "c") == model)
                n_feat++;
            else if (plan_op_axes(o, "heads") == model)
                n_heads++;
            else if (plan_op_axes(o, "vocab") == model)
                n_vocab++;
            else if ((plan_op_all_axes(o) & model) == 0)
                n_none++;
        }
        CHECK_EQ_INT(b_over_data, 185);
        CHECK_EQ_INT(n_col, 24);
        CHECK_EQ_INT(n_row, 24);
        CHECK_EQ_INT(n_feat, 12);
        CHECK_EQ_INT(n_heads, 48);
        CHECK_EQ_INT(n_vocab, 2);
        CHECK_EQ_INT(n_none, 75);
        CHECK_EQ_INT(on_stage[0], 93);
        CHECK_EQ_INT(on_stage[1], 92);
        const plan_op *qkv = op_named(s, g, "layer0.attn.qkv");
        const plan_op *out = op_named(s, g, "layer5.attn.out");
        const plan_op *fc2 = op_named(s, g, "layer6.mlp.fc2");
        const plan_op *tok = op_named(s, g, "embed.tokens");
        const plan_op *logits = op_named(s, g, "lm_head.tied");
        const plan_op *lnf = op_named(s, g, "ln_f");
        CHECK(qkv && out && fc2 && tok && logits && lnf);
        if (qkv && out && fc2 && tok && logits && lnf) {
            CHECK_EQ_INT(qkv->stage, 0);
            CHECK_EQ_INT(qkv->igrad_partial, model);
            CHECK_EQ_INT(qkv->wgrad_partial, data);
            CHECK_EQ_INT(out->stage, 0);
            CHECK_EQ_INT(plan_op_axes(out, "c"), model);
            CHECK_EQ_INT(fc2->stage, 1);
            CHECK_EQ_INT(fc2->out_partial, model);
            CHECK_EQ_INT(tok->stage, 0);
            CHECK_EQ_INT(plan_op_axes(tok, "vocab"), model);
            CHECK_EQ_INT(logits->stage, 1);
            CHECK_EQ_INT(plan_op_axes(logits, "vocab"), model);
            CHECK_EQ_INT(lnf->stage, 1);
            CHECK_EQ_INT(plan_op_all_axes(lnf), data);
        }
    }
    plan_strategy_free(s);
    s = NULL;
    /* sequence parallelism: the 75 replicated ops split seq over model */
    CHECK_EQ_INT(dnp_config3d_parse("tp=2,pp=2,dp=2,seq_par=1", &cfg, &err), DNP_OK);
    CHECK_EQ_INT(c3_strategy_of(g, &cl, &cfg, 16, &s, &err), DNP_OK);
    if (s != NULL) {
        int n_seq = 0;
        for (int i = 0; i < s->n_ops; i++)
            n_seq += plan_op_axes(&s->ops[i], "seq") == 2u;
        CHECK_EQ_INT(n_seq, 75);
    }
    plan_strategy_free(s);
    s = NULL;
    /* a tp x pp x dp that is not the cluster's 8 devices */
    CHECK_EQ_INT(dnp_config3d_parse("tp=2,pp=2,dp=1", &cfg, &err), DNP_OK);
    CHECK_EQ_INT(c3_strategy_of(g, &cl, &cfg, 16, &s, &err), DNP_ERR_INPUT);
    CHECK(s == NULL);
    dnp_graph_free(g);
}

/* The one layer-to-stage rule: 12 layers on pp 2 evenly (0-5, 6-11),
 * interleaved with 2 chunks of 3 layers per stage (0-2 stage 0, 3-5
 * stage 1, 6-8 stage 0, 9-11 stage 1), and by a list 4:8; the embedding
 * (layer -1) first, the head (layer 12) last. */
TEST(plan_strategy_config3d_stages)
{
    dnp_config3d cfg;
    dnp_error err = {0};
    int layers[2];
    CHECK_EQ_INT(dnp_config3d_parse("pp=2", &cfg, &err), DNP_OK);
    c3_stage_layers(&cfg, 12, layers);
    CHECK_EQ_INT(layers[0], 6);
    CHECK_EQ_INT(layers[1], 6);
    static const int even[12] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
    static const int inter[12] = {0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1};
    static const int list[12] = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    for (int l = 0; l < 12; l++)
        CHECK_EQ_INT(c3_stage_of_layer(&cfg, 12, l), even[l]);
    CHECK_EQ_INT(c3_stage_of_layer(&cfg, 12, -1), 0);
    CHECK_EQ_INT(c3_stage_of_layer(&cfg, 12, 12), 1);
    CHECK_EQ_INT(dnp_config3d_parse("pp=2,interleave=2", &cfg, &err), DNP_OK);
    for (int l = 0; l < 12; l++)
        CHECK_EQ_INT(c3_stage_of_layer(&cfg, 12, l), inter[l]);
    c3_stage_layers(&cfg, 12, layers);
    CHECK_EQ_INT(layers[0], 6);
    CHECK_EQ_INT(dnp_config3d_parse("pp=2,layers=4:8", &cfg, &err), DNP_OK);
    for (int l = 0; l < 12; l++)
        CHECK_EQ_INT(c3_stage_of_layer(&cfg, 12, l), list[l]);
    c3_stage_layers(&cfg, 12, layers);
    CHECK_EQ_INT(layers[0], 4);
    CHECK_EQ_INT(layers[1], 8);
}

/* Every allocation of each producer (tree, configuration, PaSE's splits,
 * PaSE's configuration indices) failed in turn: DNP_ERR_NOMEM with a
 * message, no strategy, nothing left allocated; past the last, success. */
TEST(plan_strategy_alloc_failure)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_config3d cfg;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("gpt(hidden=64,heads=2,layers=2,seq=16,vocab=100)", &g, &err),
                 DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("4xa100", &cl, &err), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_parse("tp=2,pp=2", &cfg, &err), DNP_OK);
    if (g == NULL)
        return;
    layer_table lt;
    CHECK_EQ_INT(layer_table_build(g, 8, &lt, &err), DNP_OK);
    tnode leaf = {.counts = {1}, .n_dev = 1, .depth = 1};
    tnode root = {.counts = {2}, .n_dev = 2, .child = {&leaf, &leaf}, .shared = 1,
                  .alpha = 0.5, .types = NULL};
    plan_tree t = {.model = "gpt", .cl = &cl, .lt = &lt, .root = &root, .batch = 8};
    /* PaSE's: x [64] -> fc1 (32) -> fc2 (16) on 4 devices, data parallel */
    dnp_graph *mlp = dnp_graph_new("mlp");
    dnp_graph_fc(mlp, "fc2", dnp_graph_fc(mlp, "fc1", dnp_graph_input(mlp, "x", 64, 1, 1), 32, 0),
                 16, 0);
    iter_space *sp = NULL;
    CHECK_EQ_INT(iter_space_build(mlp, 32, &sp, &err), DNP_OK);
    pase_params par = {4, 5000.0, 0, 1e9, 0};
    pase_problem pb;
    int have_pb = sp != NULL && pase_problem_build(sp, &par, &pb, &err) == DNP_OK;
    CHECK(have_pb);
    const int32_t dp4[3] = {4, 1, 1};
    int cfg_dp[2] = {have_pb ? pase_configs_find(&pb.cfg[0], dp4) : -1,
                     have_pb ? pase_configs_find(&pb.cfg[1], dp4) : -1};
    CHECK(cfg_dp[0] >= 0 && cfg_dp[1] >= 0);
    const long b4[3] = {4, 1, 1};
    const long *split[2] = {b4, b4};
    /* the blocks each allocates: plan_strategy_new's three (the tree's
     * strategy three more, its device groups); c3_strategy_of
     * reads the model's layout first (dnp_graph_transformer_layout: four
     * blocks, an allocation failure there is DNP_ERR_NOMEM too), and
     * pase_plan_strategy_of's two tables come before them */
    static const long want_ok_at[4] = {7, 8, 4, 6};
    for (int producer = 0; producer < 4; producer++) {
        if (producer == 3 && !(have_pb && cfg_dp[0] >= 0 && cfg_dp[1] >= 0))
            continue;
        int ok = 0;
        for (long n = 1; n <= 10 && !ok; n++) {
            plan_strategy *s = NULL;
            dnp_error e = {0};
            dnp_set_allocator(test_fail_allocator(n));
            dnp_status st = producer == 0   ? plan_strategy_from_tree(&t, &s, &e)
                            : producer == 1 ? c3_strategy_of(g, &cl, &cfg, 8, &s, &e)
                            : producer == 2 ? pase_plan_strategy(sp, 4, split, &s, &e)
                                            : pase_plan_strategy_of(&pb, cfg_dp, &s, &e);
            if (st == DNP_OK) {
                ok = 1;
                CHECK(s != NULL);
                CHECK_EQ_INT(n, want_ok_at[producer]);
            } else {
                CHECK_EQ_INT(st, DNP_ERR_NOMEM);
                CHECK(s == NULL);
                CHECK(e.msg[0] != '\0');
            }
            plan_strategy_free(s);
            dnp_set_allocator(NULL);
            CHECK_EQ_INT(test_fail_live(), 0);
        }
        CHECK(ok);
    }
    if (have_pb)
        pase_problem_free(&pb);
    iter_space_free(sp);
    dnp_graph_free(mlp);
    layer_table_free(&lt);
    dnp_graph_free(g);
}

/* PaSE's configurations of x [64] -> fc1 (32) -> relu -> fc2 (16) at
 * batch 32 on 4 devices.  The space has two nests (fc1, fc2: dims b, n,
 * c; GEMM M = b, N = n, K = c); the relu is fused into fc1 and has no
 * entry.  fc1 (b 2, n 2, c 1): b over d0 (its weight gradient summed
 * over d0), n over d1 (its input gradient summed over d1); fc2 (1, 1, 4):
 * c over d0 and d1, its output a partial sum over both.  The same from
 * a problem's configuration indices; refusals: a split of 3, splits that
 * need 3 axes of 2, 6 devices. */
TEST(plan_strategy_from_pase)
{
    dnp_graph *g = dnp_graph_new("two_fc");
    int x = dnp_graph_input(g, "x", 64, 1, 1);
    int a = dnp_graph_fc(g, "fc1", x, 32, 0);
    a = dnp_graph_unary(g, "relu", DNP_OP_RELU, a);
    int f2 = dnp_graph_fc(g, "fc2", a, 16, 0);
    iter_space *sp = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(iter_space_build(g, 32, &sp, &err), DNP_OK);
    if (sp == NULL) {
        dnp_graph_free(g);
        return;
    }
    CHECK_EQ_INT(sp->n_nest, 2);
    const long fc1[3] = {2, 2, 1}, fc2[3] = {1, 1, 4};
    const long *split[2] = {fc1, fc2};
    for (int via_problem = 0; via_problem < 2; via_problem++) {
        plan_strategy *s = NULL;
        pase_problem pb;
        int built = 0;
        if (!via_problem) {
            CHECK_EQ_INT(pase_plan_strategy(sp, 4, split, &s, &err), DNP_OK);
        } else {
            pase_params par = {4, 5000.0, 0, 1e9, 0};
            CHECK_EQ_INT(pase_problem_build(sp, &par, &pb, &err), DNP_OK);
            built = 1;
            const int32_t c1[3] = {2, 2, 1}, c2[3] = {1, 1, 4};
            int cfg[2] = {pase_configs_find(&pb.cfg[0], c1), pase_configs_find(&pb.cfg[1], c2)};
            CHECK(cfg[0] >= 0 && cfg[1] >= 0);
            if (cfg[0] >= 0 && cfg[1] >= 0)
                CHECK_EQ_INT(pase_plan_strategy_of(&pb, cfg, &s, &err), DNP_OK);
        }
        CHECK(s != NULL);
        if (s != NULL) {
            CHECK_EQ_INT(s->n_axes, 2);
            CHECK_STR(s->axis[0].name, "d0");
            CHECK_STR(s->axis[1].name, "d1");
            CHECK_EQ_INT(s->axis[1].size, 2);
            CHECK_EQ_INT(s->n_stages, 1);
            CHECK_EQ_INT(s->stage[0].n_ranks, 4);
            CHECK_EQ_INT(s->n_ops, 2);
            const plan_op *o1 = plan_strategy_find(s, a - 1), *o2 = plan_strategy_find(s, f2);
            CHECK(plan_strategy_find(s, a) == NULL); /* the relu */
            CHECK(o1 != NULL && o2 != NULL);
            if (o1 != NULL && o2 != NULL) {
                CHECK_EQ_INT(o1->weighted, 1);
                CHECK_EQ_INT(plan_op_axes(o1, "b"), 1);
                CHECK_EQ_INT(plan_op_axes(o1, "n"), 2);
                CHECK_EQ_INT(plan_op_axes(o1, "c"), 0);
                CHECK_EQ_INT(o1->wgrad_partial, 1);
                CHECK_EQ_INT(o1->igrad_partial, 2);
                CHECK_EQ_INT(o1->out_partial, 0);
                CHECK_EQ_INT(o2->n_splits, 1);
                CHECK_EQ_INT(plan_op_axes(o2, "c"), 3);
                CHECK_EQ_INT(o2->out_partial, 3);
                CHECK_EQ_INT(o2->wgrad_partial, 0);
                CHECK_EQ_INT(o2->igrad_partial, 0);
            }
        }
        plan_strategy_free(s);
        if (built)
            pase_problem_free(&pb);
    }
    /* refusals, each naming the op */
    const long three[3] = {1, 1, 3}, eight[3] = {2, 2, 2};
    const long *bad1[2] = {fc1, three}, *bad2[2] = {eight, fc2};
    plan_strategy *s = NULL;
    dnp_error e1 = {0}, e2 = {0}, e3 = {0};
    CHECK_EQ_INT(pase_plan_strategy(sp, 4, bad1, &s, &e1), DNP_ERR_INPUT);
    CHECK(strstr(e1.msg, "'fc2'") != NULL);
    CHECK_EQ_INT(pase_plan_strategy(sp, 4, bad2, &s, &e2), DNP_ERR_INPUT);
    CHECK(strstr(e2.msg, "'fc1'") != NULL);
    CHECK_EQ_INT(pase_plan_strategy(sp, 6, split, &s, &e3), DNP_ERR_INPUT);
    CHECK(s == NULL);
    /* no splits at all: every op on every axis replicated */
    CHECK_EQ_INT(pase_plan_strategy(sp, 4, NULL, &s, &err), DNP_OK);
    if (s != NULL)
        CHECK_EQ_INT(plan_op_all_axes(&s->ops[0]) | plan_op_all_axes(&s->ops[1]), 0);
    plan_strategy_free(s);
    iter_space_free(sp);
    dnp_graph_free(g);
}

/* The exports' one spec writer on hand-worked tensors: a 3-dim tensor on
 * mesh (data 2, model 2) with dim 0 over data and dim 2 over model is
 * JAX P("data", None, "model") and DTensor (Shard(0), Shard(2)); a dim
 * over both axes is ("data", "model") in JAX and Shard of that dim on
 * both in DTensor; a partial sum over model with nothing sharded on it is
 * Partial() there (DTensor only: the JAX spec is after the psum); a
 * one-axis mesh's DTensor tuple keeps its trailing comma. */
TEST(plan_strategy_spec_writer)
{
    plan_strategy *s = plan_strategy_new(0, 1), *one = plan_strategy_new(0, 1);
    CHECK(s != NULL && one != NULL);
    if (s == NULL || one == NULL) {
        plan_strategy_free(s);
        plan_strategy_free(one);
        return;
    }
    plan_strategy_add_axis(s, "data", 2, 0.5);
    plan_strategy_add_axis(s, "model", 2, 0.5);
    plan_strategy_add_axis(one, "h0", 2, 0.6);
    static const struct {
        int which, torch, rank;
        unsigned dims[3], partial;
        const char *want;
    } cases[] = {
        {0, 0, 3, {1, 0, 2}, 0, "P(\"data\", None, \"model\")"},
        {0, 1, 3, {1, 0, 2}, 0, "(Shard(0), Shard(2))"},
        {0, 0, 2, {0, 3}, 0, "P(None, (\"data\", \"model\"))"},
        {0, 1, 2, {0, 3}, 0, "(Shard(1), Shard(1))"},
        {0, 1, 2, {1, 0}, 2, "(Shard(0), Partial())"},
        {0, 0, 2, {1, 0}, 2, "P(\"data\", None)"},
        {0, 1, 2, {0, 0}, 0, "(Replicate(), Replicate())"},
        {1, 1, 4, {1, 0, 0}, 0, "(Shard(0),)"},
        {1, 0, 1, {0}, 0, "P(None)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned dims[4] = {0u, 0u, 0u, 0u};
        for (int d = 0; d < 3; d++)
            dims[d] = cases[i].dims[d];
        rbuf b;
        rbuf_init(&b);
        report_put_spec(&b, cases[i].which ? one : s, cases[i].torch, cases[i].rank, dims,
                        cases[i].partial);
        char *text = rbuf_take(&b);
        CHECK(text != NULL);
        if (text != NULL)
            CHECK_STR(text, cases[i].want);
        dnp_free(text);
    }
    plan_strategy_free(s);
    plan_strategy_free(one);
}
