/* test_mpt_model.c - the MPT system model (src/arch/mpt/mpt_model.h): the
 * Sec. III-C traffic formulas and link times worked by hand, dynamic
 * clustering, the timing model's invariants, the networks and the zoo. */
#include "test.h"

#include "arch/mpt/mpt_api.h"
#include "arch/mpt/mpt_model.h"

#include <stdlib.h>
#include <string.h>

static mpt_layer table2(const char *name, int kernel)
{
    mpt_layer l;
    CHECK(mpt_table2_layer(mpt_table2_find(name), kernel, &l, NULL));
    return l;
}

/* The default system: the paper's, with our measured prediction shares
 * (mpt_sys_paper). */
static mpt_sys sys_default(void)
{
    mpt_sys s = mpt_sys_paper_shares(); /* defined even if the measurement failed */
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_sys_paper(&s, &err), DNP_OK);
    return s;
}

static int build_net(const char *name, mpt_net *net)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    dnp_status st = dnp_zoo_build(name, &g, &err);
    if (st == DNP_OK)
        st = mpt_net_from_graph(g, net, &err);
    if (st != DNP_OK)
        printf("  %s: %s\n", name, err.msg);
    CHECK_EQ_INT(st, DNP_OK);
    dnp_graph_free(g);
    return st == DNP_OK;
}

/* Late-2 (640 -> 640, 8x8) and Mid-1 (256 -> 256, 14x14), batch 256,
 * FP32, F(2x2,3x3):
 *   |w| = 640 x 640 x 9 x 4 = 14,745,600 B;  |W| = 640 x 640 x 16 x 4 = 26,214,400 B
 *   Late-2 tiles per map: (8/2)^2 = 16; |Tiles| = 2 x 256 x 16 x 1280 x 16 x 4
 *     = 671,088,640 B
 *   p = 256 (16 x 16): DP 14,745,600 x 255/256 = 14,688,000;
 *     MPT weights 26,214,400 / 16 x 15/16 = 1,536,000;
 *     MPT tiles 671,088,640 / 256 x 15/16 = 2,457,600
 *   Mid-1 tiles per map: 7 x 7 = 49; |Tiles| = 2 x 256 x 49 x 512 x 64 = 822,083,584;
 *     p = 16 (4 x 4): 822,083,584 / 16 x 3/4 = 38,535,168 */
TEST(mpt_traffic_section3c_hand_worked)
{
    mpt_layer l = table2("late-2", 3);
    mpt_sizes sz;
    mpt_layer_sizes(&l, 4, 4, 256, 4, &sz);
    CHECK_NEAR(sz.w_bytes, 14745600.0, 0, 0);
    CHECK_NEAR(sz.W_bytes, 26214400.0, 0, 0);
    CHECK_NEAR(sz.tiles_bytes, 671088640.0, 0, 0);
    CHECK_NEAR(mpt_traffic_dp(sz.w_bytes, 256), 14688000.0, 0, 0);
    CHECK_NEAR(mpt_traffic_mpt_weights(sz.W_bytes, 16, 16), 1536000.0, 0, 0);
    CHECK_NEAR(mpt_traffic_mpt_tiles(sz.tiles_bytes, 16, 16), 2457600.0, 0, 0);
    mpt_layer m = table2("mid-1", 3);
    mpt_layer_sizes(&m, 4, 4, 256, 4, &sz);
    CHECK_NEAR(sz.tiles_bytes, 822083584.0, 0, 0);
    CHECK_NEAR(mpt_traffic_mpt_tiles(sz.tiles_bytes, 4, 4), 38535168.0, 0, 0);
    /* Fig. 6 uses the same numbers at p = 256 */
    mpt_traffic_curve c;
    mpt_fig6(&l, 256, 4, &c);
    CHECK_EQ_INT(c.p[3], 256);
    CHECK_NEAR(c.dp[3], 14688000.0, 0, 0);
    CHECK_NEAR(c.mpt_weights[3], 1536000.0, 0, 0);
    CHECK_NEAR(c.mpt_tiles[3], 2457600.0, 0, 0);
    /* MPT weight traffic falls as 1/sqrt(p), DP stays ~|w| (Sec. III-C) */
    CHECK(c.mpt_weights[3] < c.mpt_weights[2] && c.mpt_weights[2] < c.mpt_weights[1]);
    CHECK(c.dp[3] > c.dp[0]);
}

/* Link times (Table III: full 30 GB/s, narrow 10 GB/s per direction;
 * SerDes 5 ns per hop; 256-byte chunks, 64-byte packets). */
TEST(mpt_link_times_hand_worked)
{
    mpt_hw hw = mpt_hw_paper(0);
    CHECK_NEAR(hw.full_link_bps, 30e9, 0, 0);
    CHECK_NEAR(hw.narrow_link_bps, 10e9, 0, 0);
    /* ring of 4, 2 rings, 1 MB: 6 steps of 1/4 of 0.5 MB per link
     * = 6/4 x 524288 / 30e9 + 6 x (5 ns + 256 / 30e9) */
    double want = 6.0 / 4 * 524288 / 30e9 + 6 * (5e-9 + 256 / 30e9);
    CHECK_NEAR(mpt_ring_time_s(&hw, 1048576, 4, 2), want, 1e-12, 0);
    CHECK_NEAR(mpt_ring_time_s(&hw, 1048576, 1, 2), 0, 0, 0);
    /* 4x4 flattened butterfly: 6 narrow links (60 GB/s = half of 240 GB/s
     * of I/O), mean hops (3 + 3 + 2 x 9) / 15 = 1.6, at most 2 */
    want = 1e6 * 1.6 / 60e9 + 2 * (5e-9 + 64 / 10e9);
    CHECK_NEAR(mpt_fbfly_time_s(&hw, 1e6, 16), want, 1e-12, 0);
    /* Ng = 4: four fully connected workers, 3 links, one hop */
    want = 1e6 / 30e9 + (5e-9 + 64 / 10e9);
    CHECK_NEAR(mpt_fbfly_time_s(&hw, 1e6, 4), want, 1e-12, 0);
    CHECK_NEAR(mpt_fbfly_time_s(&hw, 1e6, 1), 0, 0, 0);
}

TEST(mpt_systolic_cycles_hand_worked)
{
    /* 256 x 640 by 640 x 640 on 64 x 64: 10 x 10 blocks of 256 rows + 128 */
    CHECK_NEAR(mpt_systolic_cycles(256, 640, 640, 64), 25728, 0, 0);
    /* 4 rows only: a block still costs 64 cycles (weight load) - the
     * under-use of data parallelism with one sample per worker */
    CHECK_NEAR(mpt_systolic_cycles(4, 640, 640, 64), 6400 + 128, 0, 0);
    CHECK_NEAR(mpt_systolic_cycles(0, 640, 640, 64), 0, 0, 0);
}

TEST(mpt_systolic_packed_hand_worked)
{
    /* 16 element products of 16 x 64 by 64 x 64 (F(4x4,3x3) on a 16x16 map
     * with 64 channels, one sample): split 4 gives sixteen 16x16 sub-arrays,
     * each product 4 x 4 blocks, 256 blocks in 16 rounds of 16 vectors,
     * plus one fill and drain of 2 x 16: 288 cycles. */
    CHECK_NEAR(mpt_systolic_cycles_packed(16, 16, 64, 64, 64, 4), 16 * 16 + 32, 0, 0);
    /* the same with 4 rows (an 8x8 map): rounds still take 16 cycles */
    CHECK_NEAR(mpt_systolic_cycles_packed(16, 4, 64, 64, 64, 4), 16 * 16 + 32, 0, 0);
    /* monolithic (split 1): 16 products of one 64-cycle block + 128 each */
    CHECK_NEAR(mpt_systolic_cycles_packed(16, 4, 64, 64, 64, 1), 16 * (64 + 128), 0, 0);
    CHECK_NEAR(mpt_systolic_cycles_packed(3, 256, 640, 640, 64, 1),
               3 * mpt_systolic_cycles(256, 640, 640, 64), 0, 0);
    /* a split that does not divide the side stops at the last that does */
    CHECK_NEAR(mpt_systolic_cycles_packed(1, 4, 72, 72, 72, 16), 9 + 18, 0, 0);
    CHECK_NEAR(mpt_systolic_cycles_packed(1, 4, 72, 72, 72, 8), 9 + 18, 0, 0);
    CHECK_NEAR(mpt_systolic_cycles_packed(0, 4, 64, 64, 64, 4), 0, 0, 0);
}

/* The array's use in w_dp with one sample per worker (batch 256 on 256
 * workers, F(4x4,3x3): 36 element products per phase, 64 channels, 64x64
 * array split into sixteen 16x16 sub-arrays): a 16x16 map has 16 tiles -
 * the sub-arrays' 16 rows exactly - so each of the 36 x 16 blocks streams
 * 16 vectors in 36 rounds (576 cycles, the whole array busy), plus 3 fills
 * and drains of 32 per sub-array: 672 cycles, use 576/672 = 6/7.  An 8x8
 * map has 4 tiles: the same cycles, a quarter of the work: 3/14.
 * Monolithic: 4 rows of 64 plus 128 of fill per product, 4/192 = 1/48. */
TEST(mpt_array_use_hand_worked)
{
    mpt_sys sys = sys_default();
    mpt_layer l = table2("late-2", 3);
    l.in_c = l.out_c = 64;
    dnp_error err = {0};
    mpt_layer_time t;
    l.in_h = l.in_w = l.out_h = l.out_w = 16;
    CHECK(mpt_layer_time_grid(&l, &sys, 1, 0, 0, 4, &t, &err) == DNP_OK);
    CHECK(t.th == 6 && t.tw == 6);
    CHECK_NEAR(t.compute_s, 3 * 672e-9, 1e-15, 0);
    CHECK_NEAR(t.array_use, 6.0 / 7.0, 1e-12, 0);
    l.in_h = l.in_w = l.out_h = l.out_w = 8;
    CHECK(mpt_layer_time_grid(&l, &sys, 1, 0, 0, 4, &t, &err) == DNP_OK);
    CHECK_NEAR(t.compute_s, 3 * 672e-9, 1e-15, 0);
    CHECK_NEAR(t.array_use, 3.0 / 14.0, 1e-12, 0);
    sys.hw.array_split = 1;
    CHECK(mpt_layer_time_grid(&l, &sys, 1, 0, 0, 4, &t, &err) == DNP_OK);
    CHECK_NEAR(t.array_use, 1.0 / 48.0, 1e-12, 0);
}

/* With the paper's criterion (sys.dyn_by_comm), dynamic clustering picks,
 * among the allowed grids, the one with the least communication time:
 * Early goes data parallel (1x256, Sec. VII-B), Late-2 to 16x16; every
 * other choice is no better. */
TEST(mpt_dynamic_clustering_minimises_communication)
{
    mpt_sys sys = sys_default();
    sys.dyn_by_comm = 1;
    static const char *const names[] = {"early", "mid-1", "late-1", "mid-2", "late-2"};
    for (int k = 0; k < 5; k++) {
        mpt_layer l = table2(names[k], 3);
        for (int pred = 0; pred < 2; pred++) {
            mpt_layer_time t;
            dnp_error err = {0};
            CHECK_EQ_INT(mpt_layer_eval(&l, &sys, pred ? MPT_W_MP_PS : MPT_W_MP_S, &t, &err),
                         DNP_OK);
            for (int c = 0; c < sys.n_choices; c++) {
                mpt_layer_time o;
                int rings = mpt_rings_for(&sys.hw, sys.choices[c]);
                CHECK_EQ_INT(
                    mpt_layer_time_grid(&l, &sys, sys.choices[c], 0, pred, rings, &o, &err),
                    DNP_OK);
                CHECK(t.tile_s + t.ring_s <= o.tile_s + o.ring_s);
            }
            if (k == 0)
                CHECK_EQ_INT(t.ng, 1);
            if (k == 4)
                CHECK_EQ_INT(t.ng, 16);
        }
    }
}

/* Rings per grid (Sec. VII-B): one group has no tile transfer, so all four
 * full links are rings; any other grid gives half to the butterfly. */
TEST(mpt_rings_follow_the_links_a_grid_has)
{
    mpt_hw hw = mpt_hw_paper(0);
    CHECK_EQ_INT(mpt_rings_for(&hw, 1), 4);
    CHECK_EQ_INT(mpt_rings_for(&hw, 4), 2);
    CHECK_EQ_INT(mpt_rings_for(&hw, 16), 2);
    hw.full_links = 1;
    CHECK_EQ_INT(mpt_rings_for(&hw, 16), 1);
}

/* Total time of net under cfg on sys. */
static double net_total(const mpt_net *net, const mpt_sys *sys, mpt_config cfg)
{
    mpt_net_time t;
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_net_eval(net, sys, cfg, &t, NULL, &err), DNP_OK);
    return t.total_s;
}

/* Dynamic clustering (by total time, the default) never picks a plan
 * slower than every fixed grid it considered, nor slower than w_dp (whose
 * grid, 1 x P on all four rings, is one of the choices): on every Table II
 * layer (3x3 and 5x5, FP32; on 256 and on 16 workers), every Fig. 17
 * network and VGG19 (FP16, 256 workers; VGG19 also FP32 and 16 workers),
 * with and without prediction.  Before the fix (communication-only
 * criterion, one group on half the links) issue 13 measured Mid-1 0.77x,
 * Mid-2 0.76x, VGG19 0.72x and 16 workers 0.57x of w_dp. */
TEST(mpt_dynamic_clustering_never_slower_than_a_fixed_grid)
{
    enum { N_NETS = MPT_TABLE2_LAYERS * 4 + 6 };
    mpt_sys fp32 = sys_default(), fp16 = sys_default(), few = sys_default();
    fp16.hw = mpt_hw_paper(1);
    few.workers = 16; /* batch 256: 16 samples per worker; grids 1, 4, 16 */
    mpt_net nets[N_NETS];
    const mpt_sys *syss[N_NETS];
    int n = 0;
    for (int k = 0; k < MPT_TABLE2_LAYERS; k++)
        for (int kernel = 3; kernel <= 5; kernel += 2)
            for (int w = 0; w < 2; w++) {
                mpt_layer l;
                dnp_error err = {0};
                CHECK(mpt_table2_layer(k, kernel, &l, NULL));
                CHECK_EQ_INT(mpt_net_single(&l, &nets[n], &err), DNP_OK);
                syss[n++] = w ? &few : &fp32;
            }
    static const char *const names[4] = {"wrn-40-10", "resnet34", "fractalnet", "vgg19"};
    for (int k = 0; k < 4; k++)
        if (build_net(names[k], &nets[n]))
            syss[n++] = &fp16;
    if (build_net("vgg19", &nets[n]))
        syss[n++] = &fp32;
    if (build_net("vgg19", &nets[n]))
        syss[n++] = &few;
    CHECK_EQ_INT(n, N_NETS);
    for (int i = 0; i < n; i++)
        for (int pred = 0; pred < 2; pred++) {
            mpt_sys s = *syss[i];
            double dyn = net_total(&nets[i], &s, pred ? MPT_W_MP_PS : MPT_W_MP_S);
            CHECK(dyn <= net_total(&nets[i], &s, MPT_W_DP) * (1 + 1e-12));
            double best_fixed = 0;
            for (int c = 0; c < s.n_choices; c++) {
                mpt_sys f = s;
                f.fixed_ng = s.choices[c];
                double t = net_total(&nets[i], &f, pred ? MPT_W_MP_P : MPT_W_MP);
                best_fixed = c == 0 || t < best_fixed ? t : best_fixed;
            }
            CHECK(dyn <= best_fixed * (1 + 1e-12));
        }
    for (int i = 0; i < n; i++)
        mpt_net_free(&nets[i]);
}

/* The timing model's invariants on every Table II layer, 3x3 and 5x5:
 * prediction never slows MPT down, the transforms follow Sec. VII-A,
 * 16 groups own one element of a 4x4 tile (2D), 4 groups one row (1D),
 * and 64 workers are slower than 256 (batch 256 still fills 256). */
TEST(mpt_timing_invariants)
{
    mpt_sys sys = sys_default();
    for (int k = 0; k < mpt_table2_count(); k++)
        for (int kernel = 3; kernel <= 5; kernel += 2) {
            mpt_layer l;
            mpt_table2_layer(k, kernel, &l, NULL);
            mpt_layer_time t[MPT_CONFIG_COUNT];
            dnp_error err = {0};
            for (int c = 0; c < MPT_CONFIG_COUNT; c++)
                CHECK_EQ_INT(mpt_layer_eval(&l, &sys, (mpt_config)c, &t[c], &err), DNP_OK);
            CHECK(t[MPT_W_MP_P].fwd_s + t[MPT_W_MP_P].bwd_s <=
                  t[MPT_W_MP].fwd_s + t[MPT_W_MP].bwd_s);
            CHECK(t[MPT_W_MP_P].tile_bytes < t[MPT_W_MP].tile_bytes);
            CHECK_EQ_INT(t[MPT_D_DP].th, 0);
            CHECK_EQ_INT(t[MPT_W_DP].th, kernel == 3 ? 6 : 6);
            CHECK_EQ_INT(t[MPT_W_MP].th, kernel == 3 ? 4 : 6);
            CHECK_EQ_INT(t[MPT_W_MP].ng * t[MPT_W_MP].nc, 256);
            CHECK_EQ_INT(t[MPT_W_MP].one_d, 0);
            CHECK(t[MPT_W_DP].tile_bytes == 0 && t[MPT_D_DP].tile_bytes == 0);
            mpt_layer_time g4;
            mpt_layer_time_grid(&l, &sys, 4, 0, 0, 2, &g4, &err);
            CHECK_EQ_INT(g4.one_d, kernel == 3);
            /* weights per worker: MPT sends |W|/Ng-sized chunks, DP |w| */
            CHECK(t[MPT_W_MP].weight_bytes < t[MPT_W_DP].weight_bytes);
            mpt_sys few = sys;
            few.workers = 64;
            mpt_layer_time tf;
            CHECK_EQ_INT(mpt_layer_eval(&l, &few, MPT_W_MP_PS, &tf, &err), DNP_OK);
            CHECK(tf.fwd_s + tf.bwd_s > t[MPT_W_MP_PS].fwd_s + t[MPT_W_MP_PS].bwd_s);
        }
}

TEST(mpt_sys_rejects_bad_grids)
{
    mpt_sys sys = sys_default();
    dnp_error err = {0};
    mpt_layer l = table2("late-2", 3), t5 = table2("late-2", 5);
    mpt_layer_time t;
    sys.fixed_ng = 3;
    CHECK_EQ_INT(mpt_layer_eval(&l, &sys, MPT_W_MP, &t, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "3 groups do not divide 256 workers");
    dnp_error_clear(&err);
    sys = sys_default();
    CHECK_EQ_INT(mpt_layer_time_grid(&l, &sys, 32, 0, 0, 2, &t, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "32 groups exceed the 16 elements of a 4x4 tile");
    dnp_error_clear(&err);
    sys.tile = 4; /* a 5x5 kernel has no transform with tile 4 */
    CHECK_EQ_INT(mpt_layer_eval(&t5, &sys, MPT_W_MP, &t, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "no Winograd transform with tile 4 for 5-tap kernels (supported: 6 = "
                       "F(2,5))");
}


/* Table I: WRN-40-10 55.6M parameters (55.5M in 3x3), FractalNet 164M
 * (163M); our FractalNet's 3x3 weights are 4 blocks x (4 convs c_in -> c
 * + 11 convs c -> c) x 9 with c = 128, 256, 512, 1024: 162,938,880. */
TEST(mpt_zoo_models_match_table1)
{
    static const char *const names[] = {"wrn-40-10", "fractalnet", "resnet34"};
    static const double params_m[] = {55.6, 164.0, 21.6};
    static const double k3_m[] = {55.5, 163.0, 21.1};
    for (int k = 0; k < 3; k++) {
        dnp_graph *g = NULL;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_zoo_build(names[k], &g, &err), DNP_OK);
        if (g == NULL)
            continue;
        dnp_graph_totals tot;
        dnp_graph_totals_get(g, 1, &tot);
        double k3 = 0;
        for (int i = 0; i < dnp_graph_n_ops(g); i++) {
            const dnp_op *op = dnp_graph_op(g, i);
            if (op->kind == DNP_OP_CONV && op->kh == 3)
                k3 += (double)dnp_op_in_view(g, i).c * dnp_op_out_view(op).c * 9;
        }
        CHECK_NEAR(tot.params / 1e6, params_m[k], 0.01, 0);
        CHECK_NEAR(k3 / 1e6, k3_m[k], 0.01, 0);
        if (k == 1)
            CHECK_NEAR(k3, 162938880.0, 0, 0);
        dnp_graph_free(g);
    }
}

/* What MPT sees in the networks: ResNet-34 has 36 convs + 1 FC, of which
 * 29 are stride-1 3x3 (the three strided 3x3, the stem and three 1x1
 * projections are not); every conv is followed by a ReLU through BN / add.
 * FractalNet's 4 blocks each have 15 convs and joins of 2, 3, 2 and 4
 * (Larsson et al., Fig. 1): 16 Winograd-domain joins over 44 convs. */
TEST(mpt_net_from_graph_finds_winograd_layers_and_joins)
{
    mpt_net net;
    if (build_net("resnet34", &net)) {
        int wino = 0, relu = 0, fc = 0;
        for (int i = 0; i < net.n; i++) {
            wino += net.layers[i].wino;
            relu += net.layers[i].relu_after;
            fc += net.layers[i].fc;
            CHECK_EQ_INT(net.layers[i].join_id, -1);
        }
        CHECK_EQ_INT(net.n, 37);
        CHECK_EQ_INT(wino, 29);
        CHECK_EQ_INT(relu, 36);
        CHECK_EQ_INT(fc, 1);
        mpt_net_free(&net);
    }
    if (build_net("fractalnet", &net)) {
        int joined = 0, sizes[5] = {0, 0, 0, 0, 0};
        for (int i = 0; i < net.n; i++) {
            joined += net.layers[i].join_id >= 0;
            if (net.layers[i].join_size <= 4)
                sizes[net.layers[i].join_size]++;
        }
        CHECK_EQ_INT(net.n, 62);
        CHECK_EQ_INT(net.n_joins, 16);
        CHECK_EQ_INT(joined, 44);
        CHECK_EQ_INT(sizes[2], 4 * 4); /* two joins of 2 per block */
        CHECK_EQ_INT(sizes[3], 4 * 3);
        CHECK_EQ_INT(sizes[4], 4 * 4);
        mpt_net_free(&net);
    }
    if (build_net("wrn-40-10", &net)) {
        CHECK_EQ_INT(net.n_joins, 0);
        CHECK_EQ_INT(net.n, 1 + 18 * 2 + 3 + 1); /* stem, 36 convs, 3 projections, fc */
        mpt_net_free(&net);
    }
}

/* Fig. 15's energy like for like: the paper's "up to 3.0x less energy" on
 * Late layers is total energy.  On the default system w_mp+* against w_dp
 * (per worker and iteration): Late-1 compute 521 -> 926 uJ, DRAM 1496 ->
 * 322 uJ, links 192.5 -> 66.3 Mbit of capacity x time; Late-2 814 -> 1447,
 * 2311 -> 456, 297.0 -> 92.6.  Without link energy the totals fall 1.62x and
 * 1.64x; the link cut alone is 2.90x and 3.21x; a 3.0x total needs, on
 * Late-2, e_L = (3 x 1903 - 3125) uJ / (297.0 - 3 x 92.6) Mbit = 134 pJ per
 * bit of capacity (links then 93% of w_dp's energy), and is out of reach on
 * Late-1.  So the ~3x our links give is not the paper's total. */
TEST(mpt_energy_late_layers_total_against_paper)
{
    mpt_sys sys = sys_default();
    mpt_layerwise lw;
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_layerwise_run(&sys, 3, &lw, &err), DNP_OK);
    static const char *const late[2] = {"late-1", "late-2"};
    static const double cd_cut[2] = {1.62, 1.64}, link_cut[2] = {2.90, 3.21};
    for (int k = 0; k < 2; k++) {
        int i = mpt_table2_find(late[k]);
        mpt_energy b, e;
        mpt_layer_energy(&lw.t[i][MPT_W_DP], &sys.hw, &b);
        mpt_layer_energy(&lw.t[i][MPT_W_MP_PS], &sys.hw, &e);
        CHECK_NEAR(mpt_energy_total_j(&b, 0) / mpt_energy_total_j(&e, 0), cd_cut[k], 0, 0.005);
        CHECK_NEAR(b.link_bit_s / e.link_bit_s, link_cut[k], 0, 0.005);
        CHECK(e.compute_j > 1.7 * b.compute_j); /* F(2x2) tiles: more multiplies */
        CHECK(e.dram_j < 0.25 * b.dram_j);      /* 1/Ng of the weights */
        double need = mpt_energy_link_for_cut(&b, &e, PAPER_FIG15_ENERGY_LATE);
        if (k == 0) {
            CHECK(isnan(need));
        } else {
            CHECK_NEAR(1e12 * need, 134.3, 0, 0.5);
            CHECK_NEAR(mpt_energy_total_j(&b, need) / mpt_energy_total_j(&e, need), 3.0, 1e-9, 0);
            CHECK(need * b.link_bit_s / mpt_energy_total_j(&b, need) > 0.9);
        }
        /* at up to 100 pJ/bit neither reaches the paper's total */
        CHECK(mpt_energy_total_j(&b, 100e-12) / mpt_energy_total_j(&e, 100e-12) < 3.0);
    }
    /* what the reproduction lists as not reproduced names Fig. 14(b) and
     * prediction on real data; its inputs name the power range */
    int fig14b = 0, real = 0, power = 0;
    for (int i = 0; i < mpt_repro_unreproduced_count(); i++) {
        fig14b += strstr(mpt_repro_unreproduced_at(i)->what, "Fig. 14(b)") != NULL;
        real += strstr(mpt_repro_unreproduced_at(i)->what, "on real data") != NULL;
    }
    for (int i = 0; i < mpt_repro_input_count(); i++)
        power += strstr(mpt_repro_input_at(i)->what, "1800-2600 W") != NULL;
    CHECK(fig14b == 1 && real == 1 && power == 1);
    CHECK(mpt_repro_unreproduced_at(mpt_repro_unreproduced_count()) == NULL);
}

/* The library's default system carries our measured prediction shares,
 * as `dnnpar mpt` and `reproduce mpt` use; the paper's measured shares
 * are had only by name (mpt_sys_paper_shares), marked from_paper. */
TEST(mpt_sys_default_is_measured_shares)
{
    mpt_sys d;
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_sys_paper(&d, &err), DNP_OK);
    mpt_cuts ours;
    CHECK_EQ_INT(mpt_cuts_ours(&ours, &err), DNP_OK);
    CHECK_EQ_INT(d.cuts.from_paper, 0);
    CHECK_NEAR(d.cuts.gather_2d, ours.gather_2d, 0, 0);
    CHECK_NEAR(d.cuts.gather_1d, ours.gather_1d, 0, 0);
    CHECK_NEAR(d.cuts.gather_bwd_2d, ours.gather_bwd_2d, 0, 0);
    CHECK_NEAR(d.cuts.gather_bwd_1d, ours.gather_bwd_1d, 0, 0);
    CHECK_NEAR(d.cuts.scatter_2d, ours.scatter_2d, 0, 0);
    CHECK_NEAR(d.cuts.scatter_1d, ours.scatter_1d, 0, 0);
    mpt_sys p = mpt_sys_paper_shares();
    CHECK_EQ_INT(p.cuts.from_paper, 1);
    CHECK_NEAR(p.cuts.gather_2d, 0.340, 0, 0);
    CHECK_NEAR(p.cuts.gather_1d, 0.781, 0, 0);
    /* everything else is the paper's system, the same in both */
    CHECK(d.batch == MPT_PAPER_BATCH && p.batch == MPT_PAPER_BATCH);
    CHECK_EQ_INT(d.workers, MPT_PAPER_WORKERS);
    CHECK_EQ_INT(d.fixed_ng, 16);
    CHECK_EQ_INT(d.n_choices, 3);
    CHECK(mpt_hw_is_paper(&d.hw) && mpt_hw_is_paper(&p.hw));
    CHECK_EQ_INT(d.hw.elem_bytes, 4);
    /* the CLI's default options are the paper's system's */
    dnp_mpt_options o;
    dnp_mpt_options_default(&o);
    CHECK_EQ_INT(o.workers, MPT_PAPER_WORKERS);
    CHECK_EQ_INT(o.batch, MPT_PAPER_BATCH);
    CHECK(o.prediction_shares == NULL); /* ours */
}

/* Whole networks (Fig. 17): w_mp+* beats w_dp on every network, MPT scales
 * better than data parallelism over one worker, and joined convs share one
 * grid.  With our measured shares w_mp+* over w_dp is 1.87x, 1.37x and 2.25x
 * (WRN-40-10, ResNet-34, FractalNet; the paper's shares give more). */
TEST(mpt_whole_networks)
{
    mpt_sys sys = sys_default();
    sys.hw = mpt_hw_paper(1);
    mpt_wholenet wn;
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_wholenet_run(&sys, &wn, &err), DNP_OK);
    for (int k = 0; k < MPT_FIG17_NETS; k++) {
        CHECK(wn.over_wdp[k][MPT_W_MP_PS] > 1.3);
        CHECK(wn.over_single[k][MPT_W_MP_PS] > wn.over_single[k][MPT_W_DP]);
        CHECK(wn.over_single[k][MPT_W_DP] > 10 && wn.over_single[k][MPT_W_MP_PS] < 256);
    }
    mpt_net net;
    if (build_net("fractalnet", &net)) {
        mpt_layer_time *per = dnp_calloc((size_t)net.n, sizeof *per);
        mpt_net_time t;
        CHECK_EQ_INT(mpt_net_eval(&net, &sys, MPT_W_MP_PS, &t, per, &err), DNP_OK);
        for (int i = 0; i < net.n; i++)
            for (int j = 0; j < net.n; j++)
                if (net.layers[i].join_id >= 0 && net.layers[i].join_id == net.layers[j].join_id)
                    CHECK_EQ_INT(per[i].ng, per[j].ng);
        dnp_free(per);
        mpt_net_free(&net);
    }
}

/* Hardware parameters as user input (issue 13, item 6): units, defaults,
 * every rejection naming what, and the JSON file. */
TEST(mpt_hw_set_units_and_errors)
{
    mpt_hw hw = mpt_hw_paper(0);
    dnp_error err = {0};
    CHECK(mpt_hw_is_paper(&hw));
    CHECK(mpt_hw_set(&hw, "array", "128x128", "--array", &err) == DNP_OK);
    CHECK(hw.array_dim == 128 && !mpt_hw_is_paper(&hw));
    CHECK(mpt_hw_set(&hw, "array", "96", "--array", &err) == DNP_OK && hw.array_dim == 96);
    CHECK(mpt_hw_set(&hw, "dram_gbps", "640", "--dram-gbps", &err) == DNP_OK);
    CHECK_NEAR(hw.dram_bps, 640e9, 0, 0);
    CHECK(mpt_hw_set(&hw, "input_buffer_kb", "2048", "x", &err) == DNP_OK);
    CHECK_NEAR(hw.input_buffer_bytes, 2048.0 * 1024, 0, 0);
    CHECK(mpt_hw_set(&hw, "clock_ghz", "1.5", "x", &err) == DNP_OK);
    CHECK_NEAR(hw.clock_hz, 1.5e9, 0, 0);
    /* the paper's values typed back give the paper's hardware exactly */
    mpt_hw p = mpt_hw_paper(0);
    CHECK(mpt_hw_set(&p, "hop_ns", "5", "x", &err) == DNP_OK);
    CHECK(mpt_hw_set(&p, "full_link_gbps", "30", "x", &err) == DNP_OK);
    CHECK(mpt_hw_set(&p, "array", "64x64", "x", &err) == DNP_OK);
    CHECK(mpt_hw_is_paper(&p));
    mpt_hw before = hw;
    static const char *const bad[][2] = {
        {"array", "128x64"},   {"array", "0"},         {"array", "64x"},
        {"array", "4097"},     {"array_split", "3"},   {"array_split", "0"},
        {"clock_ghz", "0"},    {"clock_ghz", "-1"},    {"dram_gbps", "abc"},
        {"dram_gbps", "inf"},  {"dram_gbps", "nan"},   {"dram_gbps", "2e6"},
        {"full_links", "1.5"}, {"full_links", "65"},   {"hop_ns", ""},
        {"clock", "1"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        dnp_error_clear(&err);
        CHECK(mpt_hw_set(&hw, bad[k][0], bad[k][1], "--what", &err) == DNP_ERR_INPUT);
        CHECK(strstr(err.msg, "--what") != NULL);
    }
    CHECK(memcmp(&hw, &before, sizeof hw) == 0);
    /* cross-checks */
    hw = mpt_hw_paper(0);
    CHECK(mpt_hw_check(&hw, &err) == DNP_OK);
    hw.array_split = 128;
    dnp_error_clear(&err);
    CHECK(mpt_hw_check(&hw, &err) == DNP_ERR_INPUT && strstr(err.msg, "array_split"));
    hw = mpt_hw_paper(0);
    hw.output_buffer_bytes = 255; /* one 64-wide FP32 row is 256 bytes */
    dnp_error_clear(&err);
    CHECK(mpt_hw_check(&hw, &err) == DNP_ERR_INPUT && strstr(err.msg, "output_buffer_kb"));
    hw.output_buffer_bytes = 256;
    CHECK(mpt_hw_check(&hw, &err) == DNP_OK);
}

TEST(mpt_hw_read_json_file)
{
    mpt_hw hw = mpt_hw_paper(1);
    dnp_error err = {0};
    CHECK(mpt_hw_read_json("tests/data/mpt_hardware.json", &hw, &err) == DNP_OK);
    CHECK(hw.array_dim == 128 && hw.elem_bytes == 2);
    CHECK_NEAR(hw.dram_bps, 640e9, 0, 0);
    CHECK_NEAR(hw.input_buffer_bytes, 2048.0 * 1024, 0, 0);
    CHECK_NEAR(hw.clock_hz, 1e9, 0, 0); /* not in the file: the default stays */
    mpt_hw before = hw;
    dnp_error_clear(&err);
    CHECK(mpt_hw_read_json("tests/data/mpt_hardware_bad.json", &hw, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "\"clock_ghz\"") != NULL);
    CHECK(hw.array_dim == before.array_dim); /* unchanged on error, though "array" came first */
    dnp_error_clear(&err);
    /* a missing file is an input problem (exit 2), named in the message */
    CHECK(mpt_hw_read_json("tests/data/does-not-exist.json", &hw, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "tests/data/does-not-exist.json") != NULL);
}

/* The energy model (mpt_energy.c) worked by hand on a made-up layer time:
 * 1e9 MACs in FP32 -> 1e9 x (0.9 + 3.7) pJ = 4.6 mJ; 1 us of DRAM at
 * 320 GB/s = 320 kB = 2.56e6 bit x 3.7 pJ = 9.472 uJ; links: forward 2 us
 * moving tiles on half of 4 x 30 GB/s = 480 Gb/s, backward 3 us on all:
 * 2e-6 x 480e9 + 3e-6 x 960e9 = 3.84e6 bit-s.  FP16 uses 0.4 + 1.1 pJ;
 * w_dp's forward (no tile transfer) has its links off. */
TEST(mpt_energy_hand_worked)
{
    mpt_hw hw = mpt_hw_paper(0);
    mpt_layer_time t;
    memset(&t, 0, sizeof t);
    t.mac_count = 1e9;
    t.dram_s = 1e-6;
    t.fwd_s = 2e-6;
    t.bwd_s = 3e-6;
    t.tile_bytes = 1;
    t.weight_bytes = 1;
    mpt_energy e;
    mpt_layer_energy(&t, &hw, &e);
    CHECK_NEAR(e.compute_j, 4.6e-3, 1e-12, 0);
    CHECK_NEAR(e.dram_j, 9.472e-6, 1e-12, 0);
    CHECK_NEAR(e.link_bit_s, 3.84e6, 1e-12, 0);
    t.tile_bytes = 0;
    mpt_layer_energy(&t, &hw, &e);
    CHECK_NEAR(e.link_bit_s, 2.88e6, 1e-12, 0);
    mpt_hw h16 = mpt_hw_paper(1);
    mpt_layer_energy(&t, &h16, &e);
    CHECK_NEAR(e.compute_j, 1.5e-3, 1e-12, 0);
    /* Totals with e_L joules per bit of capacity on.  Base: compute + DRAM
     * 3 uJ, 2e6 bits; other: 2 uJ, 0.5e6 bits.  At e_L = 0 the cut is
     * 3/2 = 1.5x; the link cut alone is 4x.  A 3x cut needs
     * (3 x 2e-6 - 3e-6) / (2e6 - 3 x 0.5e6) = 3e-6 / 0.5e6 = 6 pJ/bit:
     * then 3e-6 + 12e-6 = 15 uJ over 2e-6 + 3e-6 = 5 uJ.  A 5x cut (above
     * the link cut) is out of reach; a 1.2x cut needs no link energy. */
    mpt_energy b = {1e-6, 2e-6, 2e6}, o = {0.5e-6, 1.5e-6, 0.5e6};
    CHECK_NEAR(mpt_energy_total_j(&b, 0), 3e-6, 1e-12, 0);
    CHECK_NEAR(mpt_energy_total_j(&b, 6e-12), 15e-6, 1e-12, 0);
    CHECK_NEAR(mpt_energy_link_for_cut(&b, &o, 3.0), 6e-12, 1e-12, 0);
    CHECK_NEAR(mpt_energy_total_j(&b, 6e-12) / mpt_energy_total_j(&o, 6e-12), 3.0, 1e-12, 0);
    CHECK(isnan(mpt_energy_link_for_cut(&b, &o, 5.0)));
    CHECK(isnan(mpt_energy_link_for_cut(&b, &o, 4.0)));
    CHECK_NEAR(mpt_energy_link_for_cut(&b, &o, 1.2), 0, 0, 0);
}

/* One data-parallel FP16 step of zoo model `name` on `spec` at `batch`,
 * planned here independently of mpt_dgx1.c. */
static double dgx1_dp_step(const char *name, const char *spec, int64_t batch, int *fits)
{
    dnp_graph *g = NULL;
    dnp_cluster c;
    dnp_error err = {0};
    dnp_plan *p = NULL;
    dnp_plan_options opt = {0};
    opt.scheme = DNP_SCHEME_DP;
    opt.batch = batch;
    opt.precision = DNP_PREC_FP16;
    opt.keep_over_memory = 1;
    CHECK_EQ_INT(dnp_zoo_build(name, &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse(spec, &c, &err), DNP_OK);
    CHECK_EQ_INT(dnp_plan_run(g, &c, &opt, &p, &err), DNP_OK);
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    *fits = s.mem_fits;
    dnp_plan_free(p);
    dnp_graph_free(g);
    return s.step_time_s;
}

/* Figs. 17-18's DGX-1 bars (modelled estimate, dnnpar V100 model): with
 * NDP times set by hand (1, 2, 3 ms), every ratio is the GPU step of an
 * independent dp plan over them; 8 GPUs scale sublinearly over one; the
 * Fig. 18 batch is the best-throughput one of 2K/3K/4K that fits in 16 GB
 * (checked against every candidate), and FractalNet at 4096 does not fit. */
TEST(mpt_dgx1_modelled_estimate)
{
    mpt_wholenet wn;
    memset(&wn, 0, sizeof wn);
    static const char *const names[MPT_FIG17_NETS] = {"wrn-40-10", "resnet34", "fractalnet"};
    for (int k = 0; k < MPT_FIG17_NETS; k++) {
        wn.names[k] = names[k];
        wn.t[k][MPT_W_MP_PS].total_s = 1e-3 * (k + 1);
        wn.t[k][MPT_W_DP].total_s = 5e-3;
    }
    mpt_dgx1 d;
    dnp_error err = {0};
    CHECK_EQ_INT(mpt_dgx1_run(&wn, &d, &err), DNP_OK);
    double mean = 0, mean_big = 0;
    for (int k = 0; k < MPT_FIG17_NETS; k++) {
        int fits = 0;
        double one = dgx1_dp_step(names[k], "1xv100", 256, &fits);
        double eight = dgx1_dp_step(names[k], "1xdgx1", 256, &fits);
        CHECK_NEAR(d.v100_s[k], one, 1e-12, 0);
        CHECK_NEAR(d.dgx1_s[k], eight, 1e-12, 0);
        CHECK(d.gpu_scaling[k] > 1 && d.gpu_scaling[k] < 8);
        CHECK_NEAR(d.over_dgx1[k], eight / (1e-3 * (k + 1)), 1e-9, 0);
        mean += d.over_dgx1[k] / MPT_FIG17_NETS;
        int64_t best = 0;
        double best_sps = 0, best_s = 0;
        for (int b = 0; b < MPT_DGX1_BIG_BATCHES; b++) {
            int64_t n = mpt_dgx1_big_batches[b];
            double t = dgx1_dp_step(names[k], "1xdgx1", n, &fits);
            if (k == 2 && n == 4096)
                CHECK(!fits); /* 22.8 GB per V100 */
            if (fits && (double)n / t > best_sps) {
                best = n;
                best_sps = (double)n / t;
                best_s = t;
            }
        }
        CHECK_EQ_INT((int)d.big_batch[k], (int)best);
        CHECK_NEAR(d.over_big[k], (256 / (1e-3 * (k + 1))) / (best / best_s), 1e-9, 0);
        mean_big += d.over_big[k] / MPT_FIG17_NETS;
    }
    CHECK_EQ_INT(d.n_big, MPT_FIG17_NETS);
    CHECK_NEAR(d.mean_over_dgx1, mean, 1e-9, 0);
    CHECK_NEAR(d.mean_over_big, mean_big, 1e-9, 0);
}
