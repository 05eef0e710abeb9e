/* test_pase_grouped.c - PaSE's GroupConv iteration space (b, g, c, h, w,
 * r, s, n) for grouped and depthwise convolutions (issue 10): t_l and t_x
 * worked by hand, g = 1 identical to the dense Conv, the DP's optimum equal
 * to exhaustive enumeration on a small inverted-residual graph for p = 2,
 * 4, 8, and torchvision's MobileNet-v2 and ShuffleNet-v2 (ONNX) planned at
 * every p, never worse than the baselines. */
#include "search/pase/pase.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The configuration of vertex v equal to cfg (rank entries), or -1. */
static int find_cfg(const pase_problem *pb, int v, const int32_t *cfg)
{
    return pase_configs_find(&pb->cfg[v], cfg);
}

/* A depthwise 3x3 conv (16 channels, 8x8, batch 8) fed by a dense 1x1
 * conv: the domain, t_l of three configurations and t_x of two edge
 * layouts, each worked by hand (README "Layer costs" GEMM, "Transfer
 * cost"; r_w = 5000 FLOP per word). */
TEST(pase_group_conv_hand_costs)
{
    dnp_graph *core = dnp_graph_new("dw");
    int x = dnp_graph_input(core, "data", 8, 8, 8);
    int a = dnp_graph_conv(core, "pw1", x, 16, 1, 1, 0, 1, 0);
    int b = dnp_graph_conv(core, "dw", a, 16, 3, 1, 1, 16, 0);
    dnp_graph_add(core, "sum", b, a); /* reads dw's output */
    CHECK_STR(dnp_graph_error(core), "");
    iter_space *g = NULL;
    dnp_error err = {0};
    CHECK(iter_space_build(core, 8, &g, &err) == DNP_OK);
    if (g == NULL) {
        dnp_graph_free(core);
        return;
    }
    g->core_owned = core;
    const int c1 = 0, dw = 1;
    CHECK(g->n_nest == 3 && g->n_read == 3 && g->nest[c1].op == a && g->nest[dw].op == b);
    if (g->n_nest != 3 || g->n_read != 3) {
        iter_space_free(g);
        return;
    }
    const iter_nest *v = &g->nest[dw];
    CHECK_STR(iter_kind_name(v->kind), "GroupConv");
    const int64_t dom[8] = {8, 16, 1, 8, 8, 3, 3, 1};
    CHECK_EQ_INT(v->rank, 8);
    for (int d = 0; d < 8; d++)
        CHECK_EQ_INT(v->dom[d], dom[d]);
    /* output (b, 16, 8, 8) as sum reads it: channels = (g, n) */
    CHECK(g->read[1].src == dw && g->read[1].dst == 2);
    CHECK_EQ_INT(g->read[1].shape[1], 16);
    CHECK_EQ_INT(g->read[1].src_map[1], (1u << 1) | (1u << 7));

    const double r = 5000.0;
    /* (b 2, g 4): per device 4 groups x (8/2) x 8 x 8 outputs x 9 taps =
     * 9216 MACs forward, x3 for forward + two backward GEMMs = 27,648; the
     * 4 groups' weights (4 x 9 = 36 words) are all-reduced over the 2
     * batch halves: ring 2 (2-1)/2 x 36 = 36 words = 180,000 FLOP. */
    const int32_t bg[8] = {2, 4, 1, 1, 1, 1, 1, 1};
    CHECK_NEAR(pase_layer_cost(v, bg, r), 27648.0 + 180000.0, 1e-15, 0);
    /* (g 8): the same 27,648 FLOP, and no communication at all: each device
     * owns 2 groups' inputs, outputs and weights */
    const int32_t gg[8] = {1, 8, 1, 1, 1, 1, 1, 1};
    CHECK_NEAR(pase_layer_cost(v, gg, r), 27648.0, 1e-15, 0);
    /* unsplit: 16 x 8 x 64 x 9 x 3 = 221,184 */
    const int32_t one[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_NEAR(pase_layer_cost(v, one, r), 221184.0, 1e-15, 0);

    /* Edge pw1 -> dw carries (8, 16, 8, 8).  pw1 split over its output
     * channels n by 4, dw over g by 4: each device already holds its 4
     * channels, t_x = 0.  pw1 split over the batch by 2, dw over g by 4:
     * P_g = 4 > P_s = 2, so a device needs its whole (8, 4, 8, 8) block,
     * 2048 words, forward and backward: 2 x 5000 x 2048 = 20,480,000. */
    const iter_read *e = &g->read[0];
    const int32_t conv_n4[7] = {1, 1, 1, 1, 1, 1, 4}, conv_b2[7] = {2, 1, 1, 1, 1, 1, 1};
    const int32_t dw_g4[8] = {1, 4, 1, 1, 1, 1, 1, 1};
    int32_t s_src[4], s_dst[4];
    pase_project(e, 1, dw_g4, s_dst);
    CHECK(s_dst[0] == 1 && s_dst[1] == 4 && s_dst[2] == 1 && s_dst[3] == 1);
    pase_project(e, 0, conv_n4, s_src);
    CHECK_NEAR(pase_transfer_cost(4, e->shape, s_src, s_dst, r), 0.0, 0, 0);
    pase_project(e, 0, conv_b2, s_src);
    CHECK_NEAR(pase_transfer_cost(4, e->shape, s_src, s_dst, r), 20480000.0, 1e-15, 0);

    /* The same through a problem at p = 8 (cutoff 4): dw's configurations
     * split b (8: 1, 2) and g (16: 1, 2, 4) only, 6 of them */
    pase_params par = {8, r, 0, 1e9, 0};
    pase_problem pb;
    CHECK(pase_problem_build(g, &par, &pb, &err) == DNP_OK);
    CHECK_EQ_INT(pb.cfg[dw].n, 6);
    int k_bg = find_cfg(&pb, dw, (const int32_t[8]){2, 4, 1, 1, 1, 1, 1, 1});
    int k_n4 = find_cfg(&pb, c1, conv_n4), k_b2 = find_cfg(&pb, c1, conv_b2);
    int k_g4 = find_cfg(&pb, dw, dw_g4);
    CHECK(k_bg >= 0 && k_n4 >= 0 && k_b2 >= 0 && k_g4 >= 0);
    if (k_bg >= 0 && k_n4 >= 0 && k_b2 >= 0 && k_g4 >= 0) {
        CHECK_NEAR(pb.tl[dw][k_bg], 207648.0, 1e-15, 0);
        CHECK_NEAR(pase_problem_edge_cost(&pb, 0, k_n4, k_g4), 0.0, 0, 0);
        CHECK_NEAR(pase_problem_edge_cost(&pb, 0, k_b2, k_g4), 20480000.0, 1e-15, 0);
    }
    pase_problem_free(&pb);
    iter_space_free(g);
}

/* A grouped 1x1 conv with channels inside each group split too: g 4,
 * 16 -> 32 channels (c 4, n 8 per group), batch 8, 4x4; configuration
 * (g 2, c 2, n 2).  Per device nb = 2 groups, m = 8 x 16 = 128, n = 4,
 * k = 2: 3 m n k = 3072; the forward output is all-reduced over c's 2
 * (AR(mn = 512, 2) = 5000 x 256 x 2 = 2,560,000), the input gradient over
 * n's 2 (AR(mk = 256, 2) = 1,280,000), the weights not at all (c_M = 1):
 * t = 2 x (3072 + 3,840,000) = 7,686,144. */
TEST(pase_group_conv_split_inside_groups)
{
    dnp_graph *core = dnp_graph_new("gc");
    int x = dnp_graph_input(core, "data", 16, 4, 4);
    dnp_graph_conv(core, "gc", x, 32, 1, 1, 0, 4, 0);
    iter_space *g = NULL;
    dnp_error err = {0};
    CHECK(iter_space_build(core, 8, &g, &err) == DNP_OK);
    CHECK(g != NULL && g->n_nest == 1);
    if (g != NULL && g->n_nest == 1) {
        const int32_t c[8] = {1, 2, 2, 1, 1, 1, 1, 2};
        CHECK_NEAR(pase_layer_cost(&g->nest[0], c, 5000.0), 7686144.0, 1e-15, 0);
        /* one point-wise op fused adds 3 pw m n per group: 2 x 3 x 512 */
        g->nest[0].pw = 1;
        CHECK_NEAR(pase_layer_cost(&g->nest[0], c, 5000.0), 7686144.0 + 3072.0, 1e-15, 0);
    }
    iter_space_free(g);
    /* groups must divide both channel counts */
    CHECK(dnp_graph_conv(core, "bad", x, 32, 1, 1, 0, 3, 0) < 0);
    CHECK(strstr(dnp_graph_error(core), "bad") != NULL &&
          strstr(dnp_graph_error(core), "3 groups") != NULL);
    dnp_graph_free(core);
}

/* One group is the dense conv: same configurations (g never splits) and
 * bit-identical t_l for every one of them, at p = 8 and cutoff 1. */
TEST(pase_group_conv_one_group_is_conv)
{
    /* A dense conv and a 2-group conv of the same sizes (6 -> 8 channels,
     * 3x3 over 5x5, a ReLU fused); the GroupConv nest with its g extent
     * folded back into c and n (g = 1) is the dense conv's space. */
    dnp_graph *core = dnp_graph_new("one");
    int x = dnp_graph_input(core, "data", 6, 5, 5);
    int a = dnp_graph_conv(core, "conv", x, 8, 3, 1, 0, 1, 0);
    dnp_graph_unary(core, "relu", DNP_OP_RELU, a);
    int b = dnp_graph_conv(core, "gconv", x, 8, 3, 1, 0, 2, 0);
    dnp_graph_unary(core, "relu2", DNP_OP_RELU, b);
    CHECK_STR(dnp_graph_error(core), "");
    iter_space *g = NULL;
    dnp_error err = {0};
    CHECK(iter_space_build(core, 4, &g, &err) == DNP_OK);
    if (g == NULL || g->n_nest != 2 || g->nest[1].kind != ITER_GROUP_CONV) {
        CHECK(0);
        iter_space_free(g);
        dnp_graph_free(core);
        return;
    }
    g->core_owned = core;
    iter_nest *gv = &g->nest[1];
    CHECK(gv->dom[1] == 2 && gv->dom[2] == 3 && gv->dom[7] == 4 && gv->pw == 1);
    gv->dom[2] *= gv->dom[1];
    gv->dom[7] *= gv->dom[1];
    gv->dom[1] = 1;
    pase_params par = {8, 700.0, 0, 1e9, 1};
    pase_problem pb;
    CHECK(pase_problem_build(g, &par, &pb, &err) == DNP_OK);
    CHECK_EQ_INT(pb.cfg[1].n, pb.cfg[0].n);
    int same = pb.cfg[1].n == pb.cfg[0].n && pb.cfg[0].n > 20;
    for (int k = 0; same && k < pb.cfg[0].n; k++) {
        const int32_t *d = pb.cfg[0].c + (size_t)k * 7, *q = pb.cfg[1].c + (size_t)k * 8;
        same = q[0] == d[0] && q[1] == 1;
        for (int i = 1; same && i < 7; i++)
            same = q[i + 1] == d[i];
        same = same && pb.tl[1][k] == pb.tl[0][k];
    }
    CHECK(same);
    pase_problem_free(&pb);
    iter_space_free(g);
}

/* An inverted-residual block in the core IR: 1x1 expansion 16 -> 64,
 * depthwise 3x3 (64 groups), grouped 1x1 (8 groups of 8 -> 8), residual
 * add with the expansion; batch 16, 8x8. */
static dnp_graph *small_block(void)
{
    dnp_graph *g = dnp_graph_new("inverted-residual");
    int x = dnp_graph_input(g, "data", 16, 8, 8);
    int e = dnp_graph_conv(g, "expand", x, 64, 1, 1, 0, 1, 0);
    int r = dnp_graph_unary(g, "relu", DNP_OP_RELU, e);
    int d = dnp_graph_conv(g, "dw", r, 64, 3, 1, 1, 64, 0);
    int c = dnp_graph_conv(g, "gconv", d, 64, 1, 1, 0, 8, 0);
    dnp_graph_add(g, "add", c, r);
    return g;
}

TEST(pase_group_conv_dp_equals_exhaustive)
{
    dnp_graph *core = small_block();
    CHECK_STR(dnp_graph_error(core), "");
    iter_space *g = NULL;
    dnp_error err = {0};
    CHECK(iter_space_build(core, 16, &g, &err) == DNP_OK);
    if (g == NULL) {
        dnp_graph_free(core);
        return;
    }
    g->core_owned = core;
    /* expand (Conv, relu fused), dw, gconv (GroupConv), add */
    CHECK_EQ_INT(g->n_nest, 4);
    CHECK_EQ_INT(g->n_read, 4);
    if (g->n_nest != 4) {
        iter_space_free(g);
        return;
    }
    CHECK(g->nest[0].kind == ITER_CONV && g->nest[0].pw == 1);
    CHECK(g->nest[1].kind == ITER_GROUP_CONV && g->nest[2].kind == ITER_GROUP_CONV);
    const int64_t dw[8] = {16, 64, 1, 8, 8, 3, 3, 1}, gc[8] = {16, 8, 8, 8, 8, 1, 1, 8};
    for (int d = 0; d < 8; d++) {
        CHECK_EQ_INT(g->nest[1].dom[d], dw[d]);
        CHECK_EQ_INT(g->nest[2].dom[d], gc[d]);
    }
    /* Strategies at p = 2 (cutoff 4): expand 4 (unsplit, or b, c or n by 2),
     * dw 3 (b or g), gconv 5 (b, g, c or n), add 5 (b, c, h or w): 300. */
    static const int ps[3] = {2, 4, 8};
    static const double rs[3] = {1.0, 50.0, 5000.0};
    int split_g = 0;
    for (int t = 0; t < 9; t++) {
        int p = ps[t / 3];
        pase_params par = {p, rs[t % 3], 0, 1e9, 0};
        pase_problem pb;
        if (pase_problem_build(g, &par, &pb, &err) != DNP_OK) {
            CHECK(0);
            continue;
        }
        double n = 1.0;
        for (int v = 0; v < pb.n_v; v++)
            n *= pb.cfg[v].n;
        if (p == 2)
            CHECK_NEAR(n, 300.0, 0, 0);
        int ex[4];
        double best = pase_exhaustive(&pb, 5e6, ex);
        CHECK(best > 0.0);
        /* r = 5000: no split pays for its all-reduces; unsplit, F = expand
         * 3 (1024 x 64 x 16) + 3 pw (1024 x 64) = 3,342,336, dw 3 x 64 x
         * 1024 x 9 = 1,769,472, gconv 3 x 8 x 1024 x 8 x 8 = 1,572,864,
         * add 16 x 64 x 64 = 65,536: 6,750,208 */
        if (t % 3 == 2) {
            CHECK_NEAR(best, 6750208.0, 1e-15, 0);
            for (int v = 0; v < 4; v++)
                CHECK_EQ_INT(ex[v], 0);
        }
        for (int bfs = 0; bfs < 2; bfs++) {
            pase_search_opts o = {1, NULL, NULL, 0.0, 0, 0.0};
            pase_result r;
            CHECK(pase_search(&pb, bfs, &o, &r, &err) == DNP_OK);
            CHECK_NEAR(r.cost, best, 1e-12, 0);
            CHECK_NEAR(pase_objective(&pb, r.cfg), best, 1e-12, 0);
            if (bfs == 0)
                for (int v = 1; v <= 2; v++)
                    split_g |= (pb.cfg[v].c[(size_t)r.cfg[v] * 8 + 1] > 1) << t;
            pase_result_free(&r);
        }
        if (getenv("PASE_TEST_VERBOSE"))
            printf("  p %d r %g: %.0f strategies, optimum %.17g\n", p, par.r_w, n, best);
        pase_problem_free(&pb);
    }
    /* at p = 8 with cheap links (r = 1, 50) the optimum splits a group
     * dimension; never at p = 2, 4 or r = 5000 */
    CHECK_EQ_INT(split_g, 0x0c0);
    iter_space_free(g);
}

/* torchvision's MobileNet-v2 and ShuffleNet-v2 x1.0 (ONNX training graphs,
 * tests/data/make_grouped_onnx.py): every depthwise conv is a GroupConv
 * and both plan at every p from 2 to 64, PaSE never worse than data
 * parallelism or the expert strategy. */
TEST(pase_group_conv_onnx_models)
{
    static const struct {
        const char *path;
        int group_convs;
    } models[] = {{"tests/data/mobilenet_v2_train.onnx", 17},
                  {"tests/data/shufflenet_v2_x1_0_train.onnx", 19}};
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        dnp_graph *core = NULL;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_load_onnx(models[m].path, NULL, &core, &err), DNP_OK);
        if (core == NULL) {
            printf("  %s: %s\n", models[m].path, err.msg);
            continue;
        }
        iter_space *g = NULL;
        CHECK(iter_space_build(core, 128, &g, &err) == DNP_OK);
        dnp_graph_free(core);
        if (g == NULL) {
            printf("  %s: %s\n", models[m].path, err.msg);
            continue;
        }
        int n_group = 0;
        for (int v = 0; v < g->n_nest; v++)
            if (g->nest[v].kind == ITER_GROUP_CONV) {
                n_group++;
                CHECK_EQ_INT(g->nest[v].dom[2], 1); /* depthwise: one channel per group */
                CHECK_EQ_INT(g->nest[v].dom[7], 1);
            }
        CHECK_EQ_INT(n_group, models[m].group_convs);
        for (int p = 2; p <= 64; p *= 2) {
            pase_params par = {p, 5000.0, 0, 1e9, 0};
            pase_problem pb;
            pase_result r;
            if (pase_problem_build(g, &par, &pb, &err) != DNP_OK) {
                CHECK(0);
                continue;
            }
            if (pase_search(&pb, 0, NULL, &r, &err) != DNP_OK) {
                CHECK(0);
                pase_problem_free(&pb);
                continue;
            }
            int *dp = dnp_malloc((size_t)pb.n_v * sizeof(int));
            int *ex = dnp_malloc((size_t)pb.n_v * sizeof(int));
            char name[32];
            pase_data_parallel(&pb, dp);
            CHECK(pase_expert(&pb, ex, name, sizeof name, &err) == DNP_OK);
            CHECK(r.cost <= pase_objective(&pb, dp) * (1 + 1e-12));
            CHECK(r.cost <= pase_objective(&pb, ex) * (1 + 1e-12));
            CHECK_NEAR(pase_objective(&pb, r.cfg), r.cost, 1e-12, 0);
            dnp_free(dp);
            dnp_free(ex);
            pase_result_free(&r);
            pase_problem_free(&pb);
        }
        iter_space_free(g);
    }
}
