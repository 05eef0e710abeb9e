/* test_pase_perf.c - PaSE on the shared performance model (issue 10 items
 * 3-5): t_l and t_x in seconds worked by hand on a device with round
 * figures, the DP equal to exhaustive enumeration under the seconds
 * model, memory pruning on a model that does not fit, and the batch split
 * across two device types equal to a brute force over every split. */
#include "search/pase/pase_perf.h"
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* A bare fp32 device with round figures: 100 TFLOP/s at 50 % (50e12
 * FLOP/s achieved), 1e12 B/s memory at 100 %, 1 us per kernel, links of
 * 10 GB/s with 2 us latency, 1 GB of memory, no speed spread. */
static void round_device(dnp_device_type *d, double peak_flops)
{
    memset(d, 0, sizeof *d);
    strcpy(d->name, "round");
    d->peak_flops = d->peak_fp32_flops = peak_flops;
    d->compute_eff = 0.5;
    d->mem_bw_bps = 1e12;
    d->mem_eff = 1.0;
    d->kernel_overhead_s = 1e-6;
    d->net_bw_bps = d->inter_bw_bps = 10e9;
    d->inter_lat_s = 2e-6;
    d->mem_bytes = 1e9;
    d->bytes_per_elem = 4;
    strcpy(d->dtype, "fp32");
    d->devices_per_node = 1;
}

/* A core graph converted for `batch`, the iteration space owning it (the
 * shared model prices the core ops). */
static iter_space *converted(dnp_graph *core, int64_t batch)
{
    iter_space *g = NULL;
    dnp_error err = {0};
    if (core == NULL || dnp_graph_error(core)[0] != '\0' ||
        iter_space_build(core, batch, &g, &err) != DNP_OK) {
        dnp_graph_free(core);
        return NULL;
    }
    g->core_owned = core;
    return g;
}

/* FC 1024 -> 1024 twice, no bias (domains b n c): fc1 reads the data, so
 * it has no input-gradient pass (docs/device-model.md); fc2 has all three. */
static iter_space *two_fcs(int64_t batch)
{
    dnp_graph *core = dnp_graph_new("fc2");
    int x = dnp_graph_input(core, "x", 1024, 1, 1);
    int a = dnp_graph_fc(core, "fc1", x, 1024, 0);
    dnp_graph_fc(core, "fc2", a, 1024, 0);
    return converted(core, batch);
}

TEST(pase_perf_fc_by_hand)
{
    dnp_device_type d;
    round_device(&d, 100e12);
    pase_perf m;
    dnp_error err = {0};
    CHECK(pase_perf_init(&d, 2, DNP_PREC_DEFAULT, DNP_OPTIM_SGD, 0.0, 0, &m, &err) == DNP_OK);
    iter_space *g = two_fcs(64);
    CHECK(g != NULL);
    if (g == NULL)
        return;
    CHECK_EQ_INT(g->nest[1].op, 2); /* fc2's own iteration space */
    /* fc2 at (1,1,1): m = 64, n = k = 1024.  Each pass: 2 x 64 x 1024 x
     * 1024 = 134,217,728 FLOP / 50e12 = 2.684 us; bytes (X + Y) 4 + W 4 =
     * (65,536 + 65,536) 4 + 1,048,576 x 4 = 4,718,592 B / 1e12 = 4.719 us
     * (memory-bound), + 1 us: 5.718592 us, x 3 passes = 17.155776 us; the
     * SGD update's traffic (read and write the weight, read the gradient:
     * 12 B) over its 1,048,576 weights, 12.582912 us: 29.738688 us. */
    const int32_t one[3] = {1, 1, 1};
    CHECK_NEAR(pase_perf_layer_s(&m, g, 1, one), 29.738688e-6, 1e-9, 0.0);
    /* fc1, the same without the input-gradient pass: 2 x 5.718592 +
     * 12.582912 = 24.020096 us */
    CHECK_NEAR(pase_perf_layer_s(&m, g, 0, one), 24.020096e-6, 1e-9, 0.0);
    /* (1,1,2), c (K) split 2 ways: k = 512, bytes (32,768 + 65,536) 4 +
     * 524,288 x 4 = 2,490,368 B: 2.490368 us (FLOP 1.342 us), + 1 us, x 3
     * = 10.471104 us; the update over 524,288 weights, 6.291456 us; plus
     * the forward output's all-reduce over the 2 K devices (README AR(mn,
     * c_K)): 65,536 x 4 = 262,144 B, ring on bare devices
     * (docs/collectives.md): 2 (p - 1) a_e + 2 (p - 1) / p S / B_e, B_e =
     * 10e9 x 0.96 (NCCL's achieved fraction of a network link) = 4 us +
     * 27.306667 us = 31.306667 us.  Total 48.069227 us. */
    const int32_t k2[3] = {1, 1, 2};
    CHECK_NEAR(pase_perf_layer_s(&m, g, 1, k2), 48.0692266667e-6, 1e-9, 0.0);
    /* t_x of fc1 -> fc2 from one device to the batch split 2 ways: each of
     * the 2 needing devices lacks its whole (32, 1024) block (README
     * "Transfer cost": P_g > P_s), 32,768 x 4 = 131,072 B, one message
     * each way: 2 x (2 us + 131,072 / (10e9 x 0.96)) = 2 x 15.653333 us. */
    const double a_src[2] = {64, 1024}, a_dst[2] = {32, 1024};
    CHECK_NEAR(pase_perf_transfer_s(&m, 2, a_src, a_dst, 1, 2), 31.3066666667e-6, 1e-9, 0.0);
    CHECK(pase_perf_transfer_s(&m, 2, a_dst, a_dst, 2, 2) == 0.0);
    /* memory of fc2 at (1,1,2), as the step simulator counts it: weights
     * 1024 x 512 x 8 B (sgd: master + grad) = 4,194,304 B + its saved input
     * block (64, 512) x 4 = 131,072 B; fc1 the same (the data block it
     * saves for its weight gradient counts, as in the simulator) */
    unsigned char *saved = pase_perf_saved_by_consumer(g);
    CHECK(saved != NULL);
    if (saved != NULL) {
        CHECK_NEAR(pase_perf_mem_bytes(&m, g, saved, 1, k2), 4194304.0 + 131072.0, 1e-12, 0.0);
        CHECK_NEAR(pase_perf_mem_bytes(&m, g, saved, 0, k2), 4194304.0 + 131072.0, 1e-12, 0.0);
        /* fc2 split by the batch (2,1,1): both devices hold the whole
         * weight, 1,048,576 x 8 B = 8,388,608 B, and, replicated, its
         * gradient's copy in a DDP bucket (4-byte gradients: 4,194,304 B);
         * the saved input block is (32, 1024) x 4 = 131,072 B */
        const int32_t b2[3] = {2, 1, 1};
        CHECK_NEAR(pase_perf_mem_bytes(&m, g, saved, 1, b2), 8388608.0 + 4194304.0 + 131072.0,
                   1e-12, 0.0);
    }
    dnp_free(saved);
    iter_space_free(g);
}

/* A conv on the same device: 3x3, 64 -> 64 channels, 14x14 output, batch
 * 32, domain (b c h w r s n). */
TEST(pase_perf_conv_by_hand)
{
    dnp_device_type d;
    round_device(&d, 100e12);
    pase_perf m;
    dnp_error err = {0};
    CHECK(pase_perf_init(&d, 4, DNP_PREC_DEFAULT, DNP_OPTIM_SGD, 0.0, 0, &m, &err) == DNP_OK);
    dnp_graph *core = dnp_graph_new("conv");
    int x = dnp_graph_input(core, "x", 64, 14, 14);
    dnp_graph_conv(core, "conv", x, 64, 3, 1, 1, 1, 0);
    iter_space *g = converted(core, 32);
    CHECK(g != NULL);
    if (g == NULL)
        return;
    CHECK_EQ_INT(g->nest[0].rank, 7);
    /* (4,1,1,1,1,1,1): the device holds 8 of the 32 samples, M = 8 x 196
     * x 64 x 576 = 57,802,752 multiply-adds.  Forward 2M - A(Y) =
     * 115,505,152 FLOP / 50e12 = 2.31010304 us, weight gradient 2M - A(W) =
     * 115,596,288 FLOP = 2.31192576 us (docs/model.md "FLOP"); each pass's
     * bytes X + Y + W = (100,352 + 100,352) 4 + 36,864 x 4 = 950,272 B =
     * 0.950272 us (compute-bound), + 1 us each: 6.6220288 us for the two
     * passes (the conv reads the data: no input gradient); the SGD
     * update's 12 B over the 36,864 weights every device holds, 0.442368
     * us; the weight gradient's all-reduce over the 4 batch devices: 36,864
     * x 4 = 147,456 B, ring 2 x 3 x 2 us + 2 x 3 / 4 x 147,456 / (10e9 x
     * 0.96) = 12 + 23.04 = 35.04 us (the double binary tree, 2 log2(4) x 2
     * us + 2 S / B = 38.72 us, is slower).  Total 42.1043968 us. */
    const int32_t b4[7] = {4, 1, 1, 1, 1, 1, 1};
    CHECK_NEAR(pase_perf_layer_s(&m, g, 0, b4), 42.1043968e-6, 1e-9, 0.0);
    iter_space_free(g);
}

/* A batch norm on (b, c, h, w) = (32, 64, 14, 14) on the same device, 4
 * ways (docs/pase.md "Batch norm"): statistics per channel, so a batch
 * split exchanges no statistics (local statistics, as DDP); a split of h all-reduces
 * 2 + 2 statistics per channel (2 AR of 2 x 64 values) and the 2 x 64
 * scale and shift gradients (1 AR): 3 all-reduces of 512 B over the 4
 * devices.  A batch split all-reduces only those gradients (1 AR), a
 * channel split nothing.  The README's accounting (4 AR of c h w = 12,544
 * values over the batch split) would add 4 x 50 KB. */
TEST(pase_perf_batch_norm_statistics)
{
    dnp_device_type d;
    round_device(&d, 100e12);
    pase_perf m;
    dnp_error err = {0};
    CHECK(pase_perf_init(&d, 4, DNP_PREC_DEFAULT, DNP_OPTIM_SGD, 0.0, 0, &m, &err) == DNP_OK);
    dnp_graph *core = dnp_graph_new("bn");
    int x = dnp_graph_input(core, "x", 64, 14, 14);
    dnp_graph_unary(core, "bn", DNP_OP_BATCHNORM, x);
    iter_space *g = converted(core, 32);
    CHECK(g != NULL);
    if (g == NULL)
        return;
    CHECK_EQ_INT(g->nest[0].batch_dim, 0);
    const int32_t b4[4] = {4, 1, 1, 1}, c4[4] = {1, 4, 1, 1}, h4[4] = {1, 1, 4, 1};
    double tb = pase_perf_layer_s(&m, g, 0, b4), tc = pase_perf_layer_s(&m, g, 0, c4);
    double th = pase_perf_layer_s(&m, g, 0, h4);
    CHECK(tc > 0.0);
    /* the all-reduce of 512 B over 4 single-device nodes on the round
     * links, as every collective of the model prices it */
    dnp_comm_group grp = m.tiers;
    grp.per_node = 1;
    grp.n_nodes = 4;
    dnp_coll_cost cc;
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &grp, 512.0, &cc);
    CHECK(cc.time_s > 8e-6 && cc.time_s < 13e-6); /* 2 log2(4) x 2 us .. 2 x 3 x 2 us, + S/B */
    /* the kernels are the same (each device holds a quarter of every
     * tensor); the SGD update's 12 B per parameter covers all 128 scale
     * and shift values on a batch or h split, 32 on the channel split */
    double opt = 12.0 * (128.0 - 32.0) / 1e12;
    CHECK_NEAR(tb - tc, cc.time_s + opt, 1e-12, 0.0);
    CHECK_NEAR(th - tc, 3.0 * cc.time_s + opt, 1e-12, 0.0);
    iter_space_free(g);
}

/* One performance model: on BERT-Base (softmax, layer norm, GELU,
 * attention products, reshapes), every vertex whose ops hold no
 * parameters costs, split 8 ways over the batch, exactly what the step
 * simulator's device model charges its ops at that share
 * (perf_op_time_get with fb = 1/8): the same kernels, nothing moved.  The
 * softmax of the scores is the check that matters: the README's 4E + E d_a
 * FLOP made it 9x the simulator's on GPT-2. */
TEST(pase_perf_is_the_simulators_device_model)
{
    dnp_device_type d;
    dnp_error err = {0};
    CHECK(dnp_device_preset("a100", &d, &err) == DNP_OK);
    pase_perf m;
    CHECK(pase_perf_init(&d, 8, DNP_PREC_DEFAULT, DNP_OPTIM_ADAM, 0.0, 0, &m, &err) == DNP_OK);
    dnp_graph *core = NULL;
    CHECK(dnp_zoo_build("bert-base", &core, &err) == DNP_OK);
    iter_space *g = converted(core, 16);
    CHECK(g != NULL);
    if (g == NULL)
        return;
    int checked = 0, softmax = 0;
    for (int v = 0; v < g->n_nest; v++) {
        const iter_nest *pv = &g->nest[v];
        if (pv->op < 0 || pv->batch_dim < 0)
            continue;
        int32_t cfg[ITER_MAX_RANK];
        for (int k = 0; k < pv->rank; k++)
            cfg[k] = k == pv->batch_dim ? 8 : 1;
        double want = 0.0, params = 0.0;
        for (int k = g->op_start[v]; k < g->op_start[v + 1]; k++) {
            dnp_op_cost c;
            dnp_op_cost_get(g->core, g->ops[k], g->batch, &c);
            params += (double)c.params;
            perf_op_time t;
            perf_op_time_get(g->core, g->ops[k], g->batch, 1.0 / 8.0, 1.0, 1.0, &m.r, &t);
            want += t.fwd_s + t.bwd_s + t.wgrad_s;
        }
        if (params > 0.0)
            continue; /* + the optimizer update and the gradient all-reduce */
        CHECK_NEAR(pase_perf_layer_s(&m, g, v, cfg), want, 0.0, 1e-12);
        checked++;
        softmax += dnp_graph_op(g->core, pv->op)->kind == DNP_OP_SOFTMAX && want > 0.0;
    }
    CHECK(checked >= 100);
    CHECK_EQ_INT(softmax, 12);
    iter_space_free(g);
}

/* The DP under the seconds model equals exhaustive enumeration. */
TEST(pase_perf_dp_equals_exhaustive)
{
    dnp_device_type d;
    round_device(&d, 100e12);
    for (int p = 2; p <= 8; p *= 2) {
        pase_perf m;
        dnp_error err = {0};
        CHECK(pase_perf_init(&d, p, DNP_PREC_DEFAULT, DNP_OPTIM_SGD, 0.0, 0, &m, &err) ==
              DNP_OK);
        /* conv, ReLU, conv, ReLU, residual add, ReLU, flatten, FC */
        dnp_graph *core = dnp_graph_new("chain");
        int x = dnp_graph_input(core, "x", 8, 8, 8);
        int a = dnp_graph_conv(core, "c1", x, 16, 3, 1, 1, 1, 0);
        a = dnp_graph_unary(core, "r1", DNP_OP_RELU, a);
        int b = dnp_graph_conv(core, "c2", a, 16, 3, 1, 1, 1, 0);
        b = dnp_graph_unary(core, "r2", DNP_OP_RELU, b);
        int c = dnp_graph_add(core, "add", a, b);
        c = dnp_graph_unary(core, "r3", DNP_OP_RELU, c);
        c = dnp_graph_flatten(core, "flat", c);
        dnp_graph_fc(core, "fc", c, 32, 0);
        iter_space *g = converted(core, 16);
        CHECK(g != NULL);
        if (g == NULL)
            continue;
        CHECK_EQ_INT(g->n_nest, 6); /* c1 c2 add ravel unravel fc */
        pase_params par = {p, 1.0, 0, 1e9, 0};
        pase_problem pb;
        CHECK(pase_problem_build_perf(g, &par, &m, &pb, &err) == DNP_OK);
        pase_search_opts so = {1, NULL, NULL, 0.0, 0, 0.0};
        pase_result res;
        CHECK(pase_search(&pb, 0, &so, &res, &err) == DNP_OK);
        int cfg[8];
        double best = pase_exhaustive(&pb, 1e8, cfg);
        CHECK(best > 0.0);
        CHECK_NEAR(res.cost, best, 1e-12, 0.0);
        CHECK_NEAR(pase_objective(&pb, res.cfg), best, 1e-12, 0.0);
        pase_result_free(&res);
        pase_problem_free(&pb);
        iter_space_free(g);
    }
}

static dnp_status build_fcs(const void *user, int64_t batch, iter_space **out, dnp_error *err)
{
    (void)user;
    (void)err;
    *out = two_fcs(batch);
    return *out != NULL ? DNP_OK : DNP_ERR_NOMEM;
}

/* Memory: AlexNet on 8 A100 in 20 MB fits nowhere (exit 2, the least
 * footprint named); in 100 MB the unconstrained optimum does not fit and
 * the budgeted search returns a plan within the limit. */
TEST(pase_perf_memory_pruning)
{
    dnp_device_type d;
    dnp_error err = {0};
    CHECK(dnp_device_preset("a100", &d, &err) == DNP_OK);
    iter_space *g = NULL;
    CHECK(pase_model_build("pase-alexnet", 128, &g, &err) == DNP_OK);
    const double limits[3] = {20e6, 100e6, 0.0};
    for (int i = 0; i < 3; i++) {
        pase_perf m;
        CHECK(pase_perf_init(&d, 8, DNP_PREC_DEFAULT, DNP_OPTIM_MOMENTUM, limits[i], 0, &m,
                             &err) == DNP_OK);
        pase_params par = {8, 1.0, 0, 1e9, 0};
        pase_problem pb;
        CHECK(pase_problem_build_perf(g, &par, &m, &pb, &err) == DNP_OK);
        pase_search_opts so = {1, NULL, NULL, 0.0, 0, 0.0};
        pase_fit_result fr;
        dnp_error e2 = {0};
        dnp_status st = pase_fit_search(&pb, &so, &fr, &e2);
        if (i == 0) {
            CHECK(st == DNP_ERR_INPUT);
            CHECK(strstr(e2.msg, "no strategy fits") != NULL);
        } else {
            CHECK(st == DNP_OK);
            CHECK(fr.mem_bytes <= m.mem_limit_bytes);
            CHECK(fr.mem_bytes >= fr.min_mem_bytes);
            CHECK_EQ_INT(fr.budgeted, i == 1); /* 40 GB: the optimum fits */
            pase_fit_result_free(&fr);
        }
        pase_problem_free(&pb);
    }
    iter_space_free(g);
}

/* Two device types, one twice as fast, compute-bound (memory traffic
 * uncosted, no kernel overhead) on fast links: the split found equals the
 * best of every integer split (batch 32: the grid is every split), and
 * its step is the slower group's PaSE optimum plus the cross-type
 * all-reduce of the 2 x 1024 x 1024 x 4 B gradients over 1 device pair
 * without latency: ring S / B_e = 83.9 ns. */
/* Two types of one round device each, the first twice as fast. */
static void fast_slow(dnp_cluster *c)
{
    memset(c, 0, sizeof *c);
    c->n_types = 2;
    round_device(&c->types[0], 200e12);
    strcpy(c->types[0].name, "fast");
    round_device(&c->types[1], 100e12);
    strcpy(c->types[1].name, "slow");
    c->counts[0] = c->counts[1] = 1;
}

TEST(pase_perf_hetero_two_types)
{
    dnp_cluster c;
    fast_slow(&c);
    for (int k = 0; k < 2; k++) {
        c.types[k].mem_bw_bps = 0.0;
        c.types[k].kernel_overhead_s = 1e-30; /* 0 would be the model default */
        c.types[k].net_bw_bps = c.types[k].inter_bw_bps = 100e12;
        c.types[k].inter_lat_s = 0.0;
    }
    pase_search_opts so = {1, NULL, NULL, 0.0, 0, 0.0};
    pase_hetero_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.max_table_bytes = 1e9;
    ho.search = &so;
    pase_hetero_result h;
    dnp_error err = {0};
    CHECK(pase_hetero_search(&c, 32, build_fcs, NULL, &ho, &h, &err) == DNP_OK);
    CHECK_EQ_INT(h.n_groups, 2);
    CHECK(h.exhaustive);
    CHECK_EQ_INT((int)(h.grp[0].batch + h.grp[1].batch), 32);
    double sync = 2.0 * 1024 * 1024 * 4 / (100e12 * 0.96); /* NCCL's achieved fraction */
    CHECK_NEAR(h.sync_s, sync, 1e-9, 0.0);
    double worst = h.grp[0].time_s > h.grp[1].time_s ? h.grp[0].time_s : h.grp[1].time_s;
    CHECK_NEAR(h.step_s, worst + h.sync_s, 1e-12, 0.0);
    /* brute force: every split, each group on one device (a single FC pair
     * on one device: configuration all ones) */
    double best = INFINITY;
    for (int b0 = 0; b0 <= 32; b0++) {
        double t[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            int b = k == 0 ? b0 : 32 - b0;
            if (b == 0)
                continue;
            pase_perf m;
            CHECK(pase_perf_init(&c.types[k], 1, DNP_PREC_DEFAULT, DNP_OPTIM_MOMENTUM, 0.0, 0, &m,
                                 &err) == DNP_OK);
            iter_space *g = two_fcs(b);
            pase_params par = {1, 1.0, 0, 1e9, 0};
            pase_problem pb;
            CHECK(pase_problem_build_perf(g, &par, &m, &pb, &err) == DNP_OK);
            int zero[2] = {0, 0};
            t[k] = pase_objective(&pb, zero);
            pase_problem_free(&pb);
            iter_space_free(g);
        }
        double s = (t[0] > t[1] ? t[0] : t[1]) + (b0 > 0 && b0 < 32 ? sync : 0.0);
        best = s < best ? s : best;
    }
    CHECK_NEAR(h.step_s, best, 1e-12, 0.0);
    /* both types work, the fast one on more of the batch (Eq. 10) */
    CHECK(h.grp[0].batch > h.grp[1].batch && h.grp[1].batch > 0);
    pase_hetero_result_free(&h);
}

/* --cost-model pase-paper is a name of the shared option, and dnp_plan_run
 * (AccPar's searches) refuses it with an error instead of planning. */
/* A judge with a known minimum: the share search with a judge finds the
 * judge's best split and plan variant, not the objective's (every integer
 * split of a batch of 32 is tried, for each of the three variants). */
static dnp_status judge_21_dp(const void *user, const struct pase_hetero_result *cand,
                              double *step_s, dnp_error *err)
{
    (void)err;
    int *calls = (int *)(uintptr_t)user;
    (*calls)++;
    double d = (double)cand->grp[0].batch - 21.0;
    *step_s = d * d * 1e-6 + (cand->variant == PASE_HETERO_DATA_PARALLEL ? 0.0 : 1e-9);
    return DNP_OK;
}

TEST(pase_perf_hetero_judged)
{
    dnp_cluster c;
    fast_slow(&c);
    pase_search_opts so = {1, NULL, NULL, 0.0, 0, 0.0};
    pase_hetero_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.max_table_bytes = 1e9;
    ho.search = &so;
    int calls = 0;
    ho.judge = judge_21_dp;
    ho.judge_user = (const void *)(uintptr_t)&calls;
    pase_hetero_result h;
    dnp_error err = {0};
    CHECK(pase_hetero_search(&c, 32, build_fcs, NULL, &ho, &h, &err) == DNP_OK);
    CHECK_EQ_INT((int)h.grp[0].batch, 21);
    CHECK_EQ_INT((int)h.grp[1].batch, 11);
    CHECK_EQ_INT((int)h.variant, (int)PASE_HETERO_DATA_PARALLEL);
    CHECK_NEAR(h.judged_s, 0.0, 0.0, 0.0);
    /* 33 splits per variant, each judged once (memoised) */
    CHECK_EQ_INT(calls, 3 * 33);
    CHECK_EQ_INT(h.judged, 3 * 33);
    double worst = h.grp[0].time_s > h.grp[1].time_s ? h.grp[0].time_s : h.grp[1].time_s;
    CHECK_NEAR(h.step_s, worst + h.sync_s, 1e-12, 0.0);
    CHECK(h.best_objective_s <= h.step_s);
    pase_hetero_result_free(&h);
}

TEST(pase_paper_cost_model_name)
{
    CHECK_EQ_INT(dnp_cost_model_from_name("pase-paper"), DNP_COST_PASE_PAPER);
    CHECK_STR(dnp_cost_model_name(DNP_COST_PASE_PAPER), "pase-paper");
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_zoo_build("lenet", &g, &err) == DNP_OK);
    dnp_cluster c;
    CHECK(dnp_cluster_parse("2xa100", &c, &err) == DNP_OK);
    dnp_plan_options opt;
    memset(&opt, 0, sizeof opt);
    opt.scheme = DNP_SCHEME_ACCPAR;
    opt.batch = 32;
    opt.cost_model = DNP_COST_PASE_PAPER;
    dnp_plan *p = NULL;
    CHECK(dnp_plan_run(g, &c, &opt, &p, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "pase-paper") != NULL);
    CHECK(p == NULL);
    dnp_graph_free(g);
}
