/*
 * test_perf.c - the roofline device model (src/perf/device_model.c) and
 * the names of precisions, cost models and optimizers.  Every expected
 * value is worked by hand from docs/device-model.md; the comments show
 * the arithmetic.
 */
#include "test.h"

#include "dnnpar.h"
#include "perf/device_model.h"

/* An A100-like device built by hand: dense peaks of the A100 datasheet,
 * round efficiencies and overhead so the arithmetic stays readable. */
static dnp_device_type a100_like(void)
{
    dnp_device_type d = {.name = "a100-test",
                         .peak_flops = 19.5e12,
                         .mem_bw_bps = 1555e9,
                         .bytes_per_elem = 4,
                         .dtype = "fp32",
                         .peak_fp32_flops = 19.5e12,
                         .peak_tf32_flops = 156e12,
                         .peak_fp16_flops = 312e12,
                         .peak_bf16_flops = 312e12,
                         .compute_eff = 0.5,
                         .mem_eff = 0.8,
                         .kernel_overhead_s = 5e-6,
                         .devices_per_node = 1};
    return d;
}

/* 1555e9 B/s x 0.8 */
#define BW_EFF 1.244e12
#define OVH 5e-6

/* input 64x56x56 -> conv1 (64, 3x3, pad 1) -> bn -> relu -> conv2 (same)
 *   -> maxpool 3x3/2 pad 1 -> flatten -> fc 10 (bias) */
static dnp_graph *small_net(void)
{
    dnp_graph *g = dnp_graph_new("perf-test");
    int x = dnp_graph_input(g, "x", 64, 56, 56);
    int c1 = dnp_graph_conv(g, "conv1", x, 64, 3, 1, 1, 1, 0);
    int bn = dnp_graph_unary(g, "bn", DNP_OP_BATCHNORM, c1);
    int re = dnp_graph_unary(g, "relu", DNP_OP_RELU, bn);
    int c2 = dnp_graph_conv(g, "conv2", re, 64, 3, 1, 1, 1, 0);
    int mp = dnp_graph_pool(g, "pool", DNP_OP_MAXPOOL, c2, 3, 2, 1);
    int fl = dnp_graph_flatten(g, "flat", mp);
    int fc = dnp_graph_fc(g, "fc", fl, 10, 1);
    CHECK(fc == 7);
    return g;
}

/* conv2 at batch 32:
 *   MACs/sample = 64 out x 56x56 x 64 in x 9 = 115,605,504
 *   M = 32 x that = 3,699,376,128
 *   X = Y = 32 x 64 x 3136 = 6,422,528 elements, W = 36,864
 *   fwd FLOP = 2M - Y = 7,392,329,728; bwd = 2M - X = 7,392,329,728
 *   wgrad FLOP = 2M - W = 7,398,715,392 */
TEST(perf_conv_roofline)
{
    dnp_graph *g = small_net();
    dnp_device_type d = a100_like();
    perf_rates r;
    perf_op_time t;

    /* tf32: 156e12 x 0.5 = 78e12 FLOP/s; compute-bound.
     * fwd bytes = (X + Y) x 4 + W x 4 = 51,380,224 + 147,456 = 51,527,680,
     * 51,527,680 / 1.244e12 = 41.4 us < 94.8 us of math. */
    perf_rates_get(&d, DNP_PREC_TF32, &r);
    CHECK_EQ_INT(r.precision, DNP_PREC_TF32);
    CHECK_NEAR(r.peak_flops, 156e12, 0, 0);
    perf_op_time_get(g, 4, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_NEAR(t.fwd_flop, 7392329728.0, 1e-15, 0);
    CHECK_NEAR(t.bwd_flop, 7392329728.0, 1e-15, 0);
    CHECK_NEAR(t.wgrad_flop, 7398715392.0, 1e-15, 0);
    CHECK_NEAR(t.fwd_bytes, 51527680.0, 1e-15, 0);
    CHECK_NEAR(t.bwd_bytes, 51527680.0, 1e-15, 0);
    CHECK_NEAR(t.wgrad_bytes, 51527680.0, 1e-15, 0);
    CHECK_NEAR(t.fwd_s, 7392329728.0 / 78e12 + OVH, 1e-12, 0);   /* 99.77 us */
    CHECK_NEAR(t.bwd_s, 7392329728.0 / 78e12 + OVH, 1e-12, 0);
    CHECK_NEAR(t.wgrad_s, 7398715392.0 / 78e12 + OVH, 1e-12, 0); /* 99.86 us */
    CHECK_EQ_INT(t.kernels, 3);

    /* fp32: 19.5e12 x 0.5 = 9.75e12 FLOP/s -> 758.2 us + 5 us */
    perf_rates_get(&d, DNP_PREC_FP32, &r);
    perf_op_time_get(g, 4, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_NEAR(t.fwd_s, 7392329728.0 / 9.75e12 + OVH, 1e-12, 0);

    /* amp: 312e12 x 0.5 = 156e12 FLOP/s; activations and weights 2 bytes,
     * dW written at 4 bytes: fwd bytes = 12,845,056 x 2 + 36,864 x 2 =
     * 25,763,840; wgrad bytes = 25,690,112 + 36,864 x 4 = 25,837,568. */
    perf_rates_get(&d, DNP_PREC_AMP, &r);
    perf_op_time_get(g, 4, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_NEAR(t.fwd_bytes, 25763840.0, 1e-15, 0);
    CHECK_NEAR(t.wgrad_bytes, 25837568.0, 1e-15, 0);
    CHECK_NEAR(t.fwd_s, 7392329728.0 / 156e12 + OVH, 1e-12, 0); /* 52.39 us */

    /* shares at tf32: half the batch, all input channels, half the output
     * channels: FLOP x 0.25; X = 3,211,264, Y = 1,605,632, W = 18,432:
     * bytes = 4,816,896 x 4 + 18,432 x 4 = 19,341,312 */
    perf_rates_get(&d, DNP_PREC_TF32, &r);
    perf_op_time_get(g, 4, 32, 0.5, 1.0, 0.5, &r, &t);
    CHECK_NEAR(t.fwd_flop, 7392329728.0 * 0.25, 1e-15, 0);
    CHECK_NEAR(t.fwd_bytes, 19341312.0, 1e-15, 0);
    CHECK_NEAR(t.fwd_s, 7392329728.0 * 0.25 / 78e12 + OVH, 1e-12, 0);

    /* conv1 reads the graph input: no input gradient */
    perf_op_time_get(g, 1, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_NEAR(t.bwd_s, 0.0, 0, 0);
    CHECK_NEAR(t.bwd_flop, 0.0, 0, 0);
    CHECK(t.fwd_s > 0.0 && t.wgrad_s > 0.0);
    CHECK_EQ_INT(t.kernels, 2);

    /* the input op and the flatten view cost nothing */
    perf_op_time_get(g, 0, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_EQ_INT(t.kernels, 0);
    CHECK_NEAR(t.fwd_s + t.bwd_s + t.wgrad_s, 0.0, 0, 0);
    perf_op_time_get(g, 6, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_EQ_INT(t.kernels, 0);
    CHECK_NEAR(t.fwd_s + t.bwd_s + t.wgrad_s, 0.0, 0, 0);
    dnp_graph_free(g);
}

/* Memory-bound ops: N = 32 x 64 x 56 x 56 = 6,422,528 elements. */
TEST(perf_memory_bound_ops)
{
    dnp_graph *g = small_net();
    dnp_device_type d = a100_like();
    perf_rates r;
    perf_op_time t;
    const double N = 6422528.0;

    /* ReLU at fp32: read X, write Y = 8N = 51,380,224 B -> 41.30 us
     * (its N FLOP at 19.5e12 take 0.33 us); backward reads Y, dY and
     * writes dX = 12N = 77,070,336 B. */
    perf_rates_get(&d, DNP_PREC_FP32, &r);
    perf_op_time_get(g, 3, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_NEAR(t.fwd_bytes, 51380224.0, 1e-15, 0);
    CHECK_NEAR(t.bwd_bytes, 77070336.0, 1e-15, 0);
    CHECK_NEAR(t.fwd_s, 51380224.0 / BW_EFF + OVH, 1e-12, 0);
    CHECK_NEAR(t.bwd_s, 77070336.0 / BW_EFF + OVH, 1e-12, 0);
    CHECK_NEAR(t.wgrad_s, 0.0, 0, 0);
    CHECK_EQ_INT(t.kernels, 2);
    /* tf32 changes nothing for an element-wise op */
    perf_rates_get(&d, DNP_PREC_TF32, &r);
    perf_op_time_get(g, 3, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_NEAR(t.fwd_s, 51380224.0 / BW_EFF + OVH, 1e-12, 0);
    /* amp: 2-byte activations halve the traffic */
    perf_rates_get(&d, DNP_PREC_AMP, &r);
    perf_op_time_get(g, 3, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_NEAR(t.fwd_bytes, 4.0 * N, 1e-15, 0);
    CHECK_NEAR(t.fwd_s, 4.0 * N / BW_EFF + OVH, 1e-12, 0);
    CHECK_NEAR(t.bwd_s, 6.0 * N / BW_EFF + OVH, 1e-12, 0);

    /* Batch norm at fp32: forward = statistics pass (read X, 4N B) +
     * normalise pass (read X, write Y, 8N B) = 12N = 77,070,336 B in 2
     * kernels; input gradient reads dY, X, writes dX (12N); the gamma /
     * beta reduction reads dY and X (8N).  Its 4N FLOP at 19.5e12 take
     * 1.3 us against 62 us of traffic. */
    perf_rates_get(&d, DNP_PREC_FP32, &r);
    perf_op_time_get(g, 2, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_NEAR(t.fwd_bytes, 12.0 * N, 1e-15, 0);
    CHECK_NEAR(t.bwd_bytes, 12.0 * N, 1e-15, 0);
    CHECK_NEAR(t.wgrad_bytes, 8.0 * N, 1e-15, 0);
    CHECK_NEAR(t.fwd_flop, 4.0 * N, 1e-15, 0);
    CHECK_NEAR(t.fwd_s, 4.0 * N / BW_EFF + 8.0 * N / BW_EFF + 2.0 * OVH, 1e-12, 0);
    CHECK_NEAR(t.bwd_s, 12.0 * N / BW_EFF + OVH, 1e-12, 0);
    CHECK_NEAR(t.wgrad_s, 8.0 * N / BW_EFF + OVH, 1e-12, 0);
    CHECK_EQ_INT(t.kernels, 4);
    /* at amp: 2 bytes each */
    perf_rates_get(&d, DNP_PREC_AMP, &r);
    perf_op_time_get(g, 2, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_NEAR(t.fwd_s, 2.0 * N / BW_EFF + 4.0 * N / BW_EFF + 2.0 * OVH, 1e-12, 0);

    /* Max pool 3x3/2 at fp32: output 32 x 64 x 28 x 28 = 1,605,632;
     * read X (4 x 6,422,528), write Y (4 x 1,605,632) and int64 indices
     * (8 x 1,605,632): 25,690,112 + 6,422,528 + 12,845,056 = 44,957,696 */
    perf_rates_get(&d, DNP_PREC_FP32, &r);
    perf_op_time_get(g, 5, 32, 1.0, 1.0, 1.0, &r, &t);
    CHECK_NEAR(t.fwd_bytes, 44957696.0, 1e-15, 0);
    CHECK_NEAR(t.bwd_bytes, 44957696.0, 1e-15, 0);
    CHECK_NEAR(t.fwd_s, 44957696.0 / BW_EFF + OVH, 1e-12, 0);

    /* a channel share halves every tensor of a batch norm */
    perf_op_time_get(g, 2, 32, 1.0, 0.5, 0.5, &r, &t);
    CHECK_NEAR(t.fwd_bytes, 6.0 * N, 1e-15, 0);
    dnp_graph_free(g);
}

TEST(perf_precision_fallbacks)
{
    perf_rates r;
    /* V100-like: fp32 15.7, fp16 tensor 125 TFLOP/s, no tf32 / bf16 */
    dnp_device_type v = {.name = "v100-test", .peak_flops = 125e12, .mem_bw_bps = 900e9,
                         .bytes_per_elem = 2, .dtype = "fp16",
                         .peak_fp32_flops = 15.7e12, .peak_fp16_flops = 125e12,
                         .devices_per_node = 1};
    perf_rates_get(&v, DNP_PREC_TF32, &r);
    CHECK_NEAR(r.peak_flops, 15.7e12, 0, 0); /* tf32 runs as fp32 */
    CHECK_EQ_INT(r.act_bytes, 4);
    perf_rates_get(&v, DNP_PREC_BF16, &r);
    CHECK_NEAR(r.peak_flops, 15.7e12, 0, 0); /* no bf16 tensor cores */
    perf_rates_get(&v, DNP_PREC_AMP, &r);
    CHECK_NEAR(r.peak_flops, 125e12, 0, 0);
    CHECK_NEAR(r.vector_flops, 15.7e12, 0, 0);
    perf_rates_get(&v, DNP_PREC_DEFAULT, &r); /* dtype fp16 */
    CHECK_EQ_INT(r.precision, DNP_PREC_FP16);
    CHECK_NEAR(r.peak_flops, 125e12, 0, 0);
    CHECK_EQ_INT(r.act_bytes, 2);
    CHECK_EQ_INT(r.master_bytes, 2);
    /* efficiencies left 0 take the model defaults */
    CHECK_NEAR(r.compute_eff, 0.57, 0, 0);
    CHECK_NEAR(r.mem_eff, 790.0 / 900.0, 1e-15, 0);
    CHECK_NEAR(r.kernel_overhead_s, 4e-6, 0, 0);

    /* only peak_flops and dtype known (presets before the per-precision
     * fields are filled): the dtype's peak is peak_flops, and every other
     * precision falls back to it too */
    dnp_device_type p = {.name = "bare", .peak_flops = 100e12, .mem_bw_bps = 1e12,
                         .bytes_per_elem = 2, .dtype = "bfloat16", .devices_per_node = 1};
    perf_rates_get(&p, DNP_PREC_DEFAULT, &r);
    CHECK_EQ_INT(r.precision, DNP_PREC_BF16);
    CHECK_NEAR(r.peak_flops, 100e12, 0, 0);
    perf_rates_get(&p, DNP_PREC_FP32, &r);
    CHECK_NEAR(r.peak_flops, 100e12, 0, 0);
    CHECK_NEAR(r.vector_flops, 100e12, 0, 0);
    perf_rates_get(&p, DNP_PREC_FP16, &r);
    CHECK_NEAR(r.peak_flops, 100e12, 0, 0);
    dnp_device_type q = {.name = "old", .peak_flops = 11.34e12, .mem_bw_bps = 484e9,
                         .bytes_per_elem = 4, .dtype = "fp32", .devices_per_node = 1};
    perf_rates_get(&q, DNP_PREC_AMP, &r);
    CHECK_NEAR(r.peak_flops, 11.34e12, 0, 0); /* no fp16 tensor cores: fp32 rate */
    CHECK_EQ_INT(r.act_bytes, 2);
    CHECK_EQ_INT(r.grad_bytes, 4);

    /* A100-like: amp and bf16 at 312, tf32 at 156, fp32 at 19.5 */
    dnp_device_type a = a100_like();
    perf_rates_get(&a, DNP_PREC_AMP, &r);
    CHECK_NEAR(r.peak_flops, 312e12, 0, 0);
    CHECK_EQ_INT(r.param_bytes, 2);
    CHECK_EQ_INT(r.master_bytes, 4);
    perf_rates_get(&a, DNP_PREC_BF16, &r);
    CHECK_NEAR(r.peak_flops, 312e12, 0, 0);
    perf_rates_get(&a, DNP_PREC_DEFAULT, &r);
    CHECK_EQ_INT(r.precision, DNP_PREC_FP32);
    CHECK_NEAR(r.peak_flops, 19.5e12, 0, 0);
    CHECK_NEAR(r.compute_eff, 0.5, 0, 0); /* the device's own figure wins */
}

TEST(perf_optimizer_traffic)
{
    dnp_device_type d = a100_like();
    perf_rates r;
    const double P = 1e6; /* one launch (< 320 x 65536 elements) */

    /* fp32: SGD reads w, g and writes w = 12 B/param; momentum adds the
     * buffer read and write = 20; Adam two moments = 28 */
    perf_rates_get(&d, DNP_PREC_FP32, &r);
    CHECK_NEAR(perf_optimizer_bytes_per_param(DNP_OPTIM_SGD, &r), 12.0, 0, 0);
    CHECK_NEAR(perf_optimizer_bytes_per_param(DNP_OPTIM_MOMENTUM, &r), 20.0, 0, 0);
    CHECK_NEAR(perf_optimizer_bytes_per_param(DNP_OPTIM_ADAM, &r), 28.0, 0, 0);
    CHECK_NEAR(perf_optimizer_time_s(P, DNP_OPTIM_SGD, &r), 12e6 / BW_EFF + OVH, 1e-12, 0);
    CHECK_NEAR(perf_optimizer_time_s(P, DNP_OPTIM_MOMENTUM, &r), 20e6 / BW_EFF + OVH, 1e-12, 0);
    CHECK_NEAR(perf_optimizer_time_s(P, DNP_OPTIM_ADAM, &r), 28e6 / BW_EFF + OVH, 1e-12, 0);
    /* held: master + grad (+ state) */
    CHECK_NEAR(perf_bytes_per_param(DNP_OPTIM_SGD, &r), 8.0, 0, 0);
    CHECK_NEAR(perf_bytes_per_param(DNP_OPTIM_MOMENTUM, &r), 12.0, 0, 0);
    CHECK_NEAR(perf_bytes_per_param(DNP_OPTIM_ADAM, &r), 16.0, 0, 0);

    /* amp: the same fp32 traffic plus writing the 2-byte copy */
    perf_rates_get(&d, DNP_PREC_AMP, &r);
    CHECK_NEAR(perf_optimizer_bytes_per_param(DNP_OPTIM_SGD, &r), 14.0, 0, 0);
    CHECK_NEAR(perf_optimizer_bytes_per_param(DNP_OPTIM_MOMENTUM, &r), 22.0, 0, 0);
    CHECK_NEAR(perf_optimizer_bytes_per_param(DNP_OPTIM_ADAM, &r), 30.0, 0, 0);
    CHECK_NEAR(perf_optimizer_time_s(P, DNP_OPTIM_ADAM, &r), 30e6 / BW_EFF + OVH, 1e-12, 0);
    CHECK_NEAR(perf_bytes_per_param(DNP_OPTIM_SGD, &r), 10.0, 0, 0);
    CHECK_NEAR(perf_bytes_per_param(DNP_OPTIM_MOMENTUM, &r), 14.0, 0, 0);
    CHECK_NEAR(perf_bytes_per_param(DNP_OPTIM_ADAM, &r), 18.0, 0, 0);

    /* pure fp16: everything 2 bytes: SGD 6, momentum 10 */
    perf_rates_get(&d, DNP_PREC_FP16, &r);
    CHECK_NEAR(perf_optimizer_bytes_per_param(DNP_OPTIM_SGD, &r), 6.0, 0, 0);
    CHECK_NEAR(perf_optimizer_bytes_per_param(DNP_OPTIM_MOMENTUM, &r), 10.0, 0, 0);

    /* launches: 320 x 65536 = 20,971,520 elements each */
    CHECK_EQ_INT(perf_optimizer_kernels(0.0), 0);
    CHECK_EQ_INT(perf_optimizer_kernels(20971520.0), 1);
    CHECK_EQ_INT(perf_optimizer_kernels(20971521.0), 2);
    CHECK_EQ_INT(perf_optimizer_kernels(25557032.0), 2); /* ResNet-50 */
    CHECK_NEAR(perf_optimizer_time_s(0.0, DNP_OPTIM_ADAM, &r), 0.0, 0, 0);
}

TEST(perf_op_memory)
{
    dnp_graph *g = small_net();
    dnp_device_type d = a100_like();
    perf_rates r;
    perf_op_mem m;
    const double N = 6422528.0;

    perf_rates_get(&d, DNP_PREC_FP32, &r);
    /* conv2: 36,864 weights; keeps its input (4N B); output 4N B */
    perf_op_mem_get(g, 4, 32, 1.0, 1.0, 1.0, &r, &m);
    CHECK_NEAR(m.param_elems, 36864.0, 0, 0);
    CHECK_NEAR(m.saved_act_bytes, 4.0 * N, 1e-15, 0);
    CHECK_NEAR(m.saved_input_bytes, 4.0 * N, 1e-15, 0);
    CHECK_NEAR(m.out_act_bytes, 4.0 * N, 1e-15, 0);
    /* batch norm: gamma, beta (128); input + fp32 mean and invstd (512 B) */
    perf_op_mem_get(g, 2, 32, 1.0, 1.0, 1.0, &r, &m);
    CHECK_NEAR(m.param_elems, 128.0, 0, 0);
    CHECK_NEAR(m.saved_act_bytes, 4.0 * N + 512.0, 1e-15, 0);
    /* ReLU keeps its output only */
    perf_op_mem_get(g, 3, 32, 1.0, 1.0, 1.0, &r, &m);
    CHECK_NEAR(m.param_elems, 0.0, 0, 0);
    CHECK_NEAR(m.saved_output_bytes, 4.0 * N, 1e-15, 0);
    CHECK_NEAR(m.saved_input_bytes, 0.0, 0, 0);
    CHECK_NEAR(m.saved_act_bytes, 4.0 * N, 1e-15, 0);
    /* max pool: input (25,690,112) + int64 indices (8 x 1,605,632) */
    perf_op_mem_get(g, 5, 32, 1.0, 1.0, 1.0, &r, &m);
    CHECK_NEAR(m.saved_act_bytes, 38535168.0, 1e-15, 0);
    CHECK_NEAR(m.out_act_bytes, 6422528.0, 1e-15, 0);
    /* flatten is a view */
    perf_op_mem_get(g, 6, 32, 1.0, 1.0, 1.0, &r, &m);
    CHECK_NEAR(m.out_act_bytes, 0.0, 0, 0);
    CHECK_NEAR(m.saved_act_bytes, 0.0, 0, 0);
    /* fc 50,176 -> 10 with bias at shares fi = fo = 1/2:
     * 501,760 x 1/4 + 10 x 1/2 = 125,445 parameters; keeps X at fb x fi:
     * 32 x 50,176 x 1/2 x 4 B = 3,211,264 */
    perf_op_mem_get(g, 7, 32, 1.0, 0.5, 0.5, &r, &m);
    CHECK_NEAR(m.param_elems, 125445.0, 1e-15, 0);
    CHECK_NEAR(m.saved_act_bytes, 3211264.0, 1e-15, 0);
    /* amp halves the activations */
    perf_rates_get(&d, DNP_PREC_AMP, &r);
    perf_op_mem_get(g, 4, 32, 1.0, 1.0, 1.0, &r, &m);
    CHECK_NEAR(m.saved_act_bytes, 2.0 * N, 1e-15, 0);
    dnp_graph_free(g);
}

TEST(perf_names)
{
    for (int p = 0; p < DNP_PREC_COUNT; p++)
        CHECK_EQ_INT(dnp_precision_from_name(dnp_precision_name((dnp_precision)p)), p);
    for (int m = 0; m < DNP_COST_COUNT; m++)
        CHECK_EQ_INT(dnp_cost_model_from_name(dnp_cost_model_name((dnp_cost_model)m)), m);
    for (int o = 0; o < DNP_OPTIM_COUNT; o++)
        CHECK_EQ_INT(dnp_optimizer_from_name(dnp_optimizer_name((dnp_optimizer)o)), o);
    CHECK_STR(dnp_precision_name(DNP_PREC_TF32), "tf32");
    CHECK_STR(dnp_precision_name(DNP_PREC_DEFAULT), "default");
    CHECK_STR(dnp_cost_model_name(DNP_COST_ACCPAR_PAPER), "accpar-paper");
    CHECK_STR(dnp_optimizer_name(DNP_OPTIM_MOMENTUM), "momentum");
    CHECK_EQ_INT(dnp_precision_from_name("bfloat16"), DNP_PREC_BF16);
    CHECK_EQ_INT(dnp_precision_from_name("BF16"), DNP_PREC_BF16);
    CHECK_EQ_INT(dnp_precision_from_name("AMP"), DNP_PREC_AMP);
    CHECK_EQ_INT(dnp_precision_from_name("fp64"), -1);
    CHECK_EQ_INT(dnp_precision_from_name(""), -1);
    CHECK_EQ_INT(dnp_precision_from_name(NULL), -1);
    CHECK_EQ_INT(dnp_cost_model_from_name("accpar"), -1);
    CHECK_EQ_INT(dnp_optimizer_from_name("adamw"), -1);
    CHECK_EQ_INT(dnp_optimizer_from_name("SGD"), DNP_OPTIM_SGD);
}

/* Sanity figure, not a check against measurements: one ResNet-50
 * training step at batch 256 on one A100 (datasheet peaks, model default
 * efficiencies).  Printed so the report can quote it; the assertions
 * only bound it by the pure-math time and a generous ceiling. */
TEST(perf_resnet50_sanity)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_zoo_build("resnet50", &g, &err) == DNP_OK);
    if (!g)
        return;
    dnp_device_type d = a100_like();
    d.compute_eff = d.mem_eff = d.kernel_overhead_s = 0.0; /* model defaults */
    const dnp_precision precs[2] = {DNP_PREC_TF32, DNP_PREC_AMP};
    dnp_graph_totals tot;
    dnp_graph_totals_get(g, 256, &tot);
    for (int k = 0; k < 2; k++) {
        perf_rates r;
        perf_rates_get(&d, precs[k], &r);
        double fwd_s = 0, bwd_s = 0, wgrad_s = 0, bytes = 0;
        int kernels = 0;
        for (int i = 0; i < dnp_graph_n_ops(g); i++) {
            perf_op_time t;
            perf_op_time_get(g, i, 256, 1.0, 1.0, 1.0, &r, &t);
            fwd_s += t.fwd_s;
            bwd_s += t.bwd_s;
            wgrad_s += t.wgrad_s;
            bytes += t.fwd_bytes + t.bwd_bytes + t.wgrad_bytes;
            kernels += t.kernels;
        }
        double opt_s = perf_optimizer_time_s((double)tot.params, DNP_OPTIM_MOMENTUM, &r);
        double step_s = fwd_s + bwd_s + wgrad_s + opt_s;
        printf("  resnet50 b256 1xA100 %s: step %.4f s (fwd %.4f, bwd %.4f, wgrad %.4f, "
               "optimizer %.5f), %d kernels, %.1f GB moved\n",
               dnp_precision_name(precs[k]), step_s, fwd_s, bwd_s, wgrad_s, opt_s, kernels,
               bytes / 1e9);
        CHECK(step_s > tot.training_flop / r.peak_flops);
        CHECK(step_s < 10.0);
    }
    dnp_graph_free(g);
}

/* E[max of n standard normals]: closed forms for n = 2 (1/sqrt(pi)) and
 * n = 3 (3 / (2 sqrt(pi))); n = 5 and 10 from the tables of expected
 * normal order statistics (Harter, "Expected values of normal order
 * statistics", Biometrika 48, 1961: 1.16296, 1.53875). */
TEST(perf_expected_max_normal)
{
    CHECK_NEAR(perf_expected_max_std_normal(1.0), 0.0, 0.0, 0.0);
    CHECK_NEAR(perf_expected_max_std_normal(2.0), 1.0 / sqrt(M_PI), 0.0, 1e-9);
    CHECK_NEAR(perf_expected_max_std_normal(3.0), 1.5 / sqrt(M_PI), 0.0, 1e-9);
    CHECK_NEAR(perf_expected_max_std_normal(5.0), 1.16296, 0.0, 1e-5);
    CHECK_NEAR(perf_expected_max_std_normal(10.0), 1.53875, 0.0, 1e-5);
    /* rises with n and stays finite far beyond any cluster */
    double prev = 0.0;
    for (double n = 2.0; n <= 1e7; n *= 4.0) {
        double m = perf_expected_max_std_normal(n);
        CHECK(m > prev && isfinite(m));
        prev = m;
    }
    CHECK(prev < 5.5);
    /* the factor: 1 + cv x E[max]; 1 for one device or no spread */
    CHECK_NEAR(perf_straggler_pace(0.02, 2.0), 1.0 + 0.02 / sqrt(M_PI), 0.0, 1e-11);
    CHECK_NEAR(perf_straggler_pace(0.02, 1.0), 1.0, 0.0, 0.0);
    CHECK_NEAR(perf_straggler_pace(0.0, 1024.0), 1.0, 0.0, 0.0);
}

/* The pace scales each kernel's roofline time, not its launch overhead:
 * a 1e6-element ReLU (memory-bound) at pace 1.5 takes 1.5x its traffic
 * time plus the same overhead. */
TEST(perf_pace_scales_roofline_only)
{
    dnp_device_type d = a100_like();
    perf_rates r1, r2;
    perf_rates_get(&d, DNP_PREC_FP32, &r1);
    CHECK_NEAR(r1.pace, 1.0, 0.0, 0.0);
    r2 = r1;
    r2.pace = 1.5;
    dnp_graph *g = dnp_graph_new("pace");
    int x = dnp_graph_input(g, "x", 1000, 1, 1);
    int re = dnp_graph_unary(g, "relu", DNP_OP_RELU, x);
    perf_op_time t1, t2;
    perf_op_time_get(g, re, 1000, 1.0, 1.0, 1.0, &r1, &t1);
    perf_op_time_get(g, re, 1000, 1.0, 1.0, 1.0, &r2, &t2);
    /* forward: read 1e6 + write 1e6 fp32 elements = 8e6 bytes */
    CHECK_NEAR(t1.fwd_s, 8e6 / BW_EFF + OVH, 1e-12, 0.0);
    CHECK_NEAR(t2.fwd_s, 1.5 * 8e6 / BW_EFF + OVH, 1e-12, 0.0);
    dnp_graph_free(g);
}

/* A plan on GPU presets charges the expected slowest GPU; TPU presets carry
 * no measured spread; --no-stragglers turns it off; the step never gets
 * faster with stragglers on. */
TEST(perf_plan_stragglers)
{
    dnp_graph *g = NULL;
    dnp_error zerr = {0};
    CHECK_EQ_INT(dnp_zoo_build("resnet18", &g, &zerr), DNP_OK);
    struct {
        const char *spec;
        double n;
        double cv;
    } cases[] = {{"1xdgx-a100", 8.0, 0.08 / (2.0 * 2.698)},
                 {"2xdgx-a100", 16.0, 0.08 / (2.0 * 2.698)},
                 {"4xv100", 4.0, 0.08 / (2.0 * 2.698)},
                 {"1xa100", 1.0, 0.0},
                 {"8xtpu-v3", 8.0, 0.0}};
    for (size_t i = 0; g != NULL && i < sizeof cases / sizeof cases[0]; i++) {
        dnp_cluster cl;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_cluster_parse(cases[i].spec, &cl, &err), DNP_OK);
        dnp_plan_options opt = {.scheme = DNP_SCHEME_DP, .batch = 256};
        dnp_plan *on = NULL, *off = NULL;
        CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &on, &err), DNP_OK);
        opt.no_stragglers = 1;
        CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &off, &err), DNP_OK);
        if (on == NULL || off == NULL) {
            dnp_plan_free(on);
            dnp_plan_free(off);
            continue;
        }
        dnp_plan_summary s_on, s_off;
        dnp_plan_get_summary(on, &s_on);
        dnp_plan_get_summary(off, &s_off);
        double want = cases[i].cv > 0.0 && cases[i].n > 1.0
                          ? 1.0 + cases[i].cv * perf_expected_max_std_normal(cases[i].n)
                          : 1.0;
        CHECK_NEAR(s_on.straggler_pace, want, 1e-12, 0.0);
        CHECK_NEAR(s_off.straggler_pace, 1.0, 0.0, 0.0);
        CHECK(s_on.step_time_s >= s_off.step_time_s);
        if (want > 1.0) {
            CHECK_EQ_INT(s_on.straggler_devices, (long long)cases[i].n);
            /* compute stretches by at most the factor (launch overheads do not) */
            CHECK(s_on.compute_s <= want * s_off.compute_s * (1.0 + 1e-12));
            CHECK(s_on.compute_s > s_off.compute_s);
        } else {
            CHECK_NEAR(s_on.step_time_s, s_off.step_time_s, 0.0, 0.0);
        }
        dnp_plan_free(on);
        dnp_plan_free(off);
    }
    dnp_graph_free(g);
}

/* Tiles and waves (docs/device-model.md, "GEMM tiles and waves"), worked by
 * hand on an A100-like device: 108 SMs, 312 TFLOP/s at a 0.8 ceiling
 * (2.3111e12 FLOP/s per SM), L2 5120 B/clk x 1.41 GHz = 7.2192e12 B/s,
 * 2-byte operands, 2039 GB/s x 790/900 DRAM. */
TEST(perf_gemm_tiles_and_waves)
{
    perf_rates r;
    memset(&r, 0, sizeof r);
    r.peak_flops = 312e12;
    r.compute_eff = 0.8;
    r.sm_count = 108;
    r.l2_bw_bps = 5120.0 * 1.41e9;
    r.act_bytes = 2;
    r.mem_bw_bps = 2039e9;
    r.mem_eff = 790.0 / 900.0;
    /* 8192^3: 256x128 tiles, 32 x 64 = 2048 of them in ceil(2048 / 108) = 19
     * waves (2052 slots); 128x128: 4096 tiles in 38 waves (4104 slots); each
     * tile at the ceiling (L2 feeds 6.68e10 B/s x 85.3 or x 64 FLOP/B per
     * SM, above 2.31e12): 2048/2052 = 4096/4104 of the ceiling */
    CHECK_NEAR(perf_gemm_eff(&r, 1, 8192, 8192, 8192), 4096.0 / 4104.0, 1e-12, 0);
    /* 128 x 128 x 4096: one output tile.  Best: 64x64 tiles (4) split 16
     * ways over k (64 tiles, one wave, 256-long slices): 2 64 64 256 /
     * 2.3111e12 = 0.90743 us, plus the fp32 partials written and read,
     * 2 x 16 x 128 x 128 x 4 B / 1.78984e12 B/s = 1.17172 us; the ceiling
     * would take 2 x 128^2 x 4096 / 2.496e14 = 0.53773 us: 0.25862 */
    double cl = 312e12 * 0.8 / 108.0, mem = 2039e9 * 790.0 / 900.0;
    double t = 2.0 * 64 * 64 * 256 / cl + 2.0 * 16 * 128 * 128 * 4 / mem;
    CHECK_NEAR(perf_gemm_eff(&r, 1, 128, 128, 4096), 2.0 * 128 * 128 * 4096 / (cl * 108) / t,
               1e-12, 0);
    CHECK_NEAR(perf_gemm_eff(&r, 1, 128, 128, 4096), 0.25862, 1e-4, 0);
    /* no SM count: no tile model */
    r.sm_count = 0;
    CHECK_NEAR(perf_gemm_eff(&r, 1, 128, 128, 4096), 1.0, 0, 0);
    /* 4-byte operands halve every tile's intensity: a 64x64 tile (64 of
     * them active) has 16 FLOP/B and is fed at 7.2192e12 / 64 x 16 =
     * 1.80480e12 FLOP/s, below the ceiling's 2.3111e12; it still beats
     * 64x128 tiles (32 active at the ceiling, twice the work per tile) */
    r.sm_count = 108;
    r.act_bytes = 4;
    double t64 = 2.0 * 64 * 64 * 256 / (7.2192e12 / 64.0 * 16.0) + 2.0 * 16 * 128 * 128 * 4 / mem;
    double t128 = 2.0 * 64 * 128 * 256 / cl + 2.0 * 16 * 128 * 128 * 4 / mem;
    CHECK(t64 < t128);
    CHECK_NEAR(perf_gemm_eff(&r, 1, 128, 128, 4096), 2.0 * 128 * 128 * 4096 / (cl * 108) / t64,
               1e-12, 0);
}

TEST(device_gemm_time_by_hand)
{
    /* dnp_device_gemm_time_s: the roofline of one GEMM kernel */
    dnp_device_type d;
    memset(&d, 0, sizeof d);
    snprintf(d.dtype, sizeof d.dtype, "fp32");
    d.peak_flops = 1e12;
    d.compute_eff = 0.5;
    d.mem_bw_bps = 1e11;
    d.mem_eff = 1.0;
    d.kernel_overhead_s = 1e-6;
    /* no sm_count: 2 x 1024^3 FLOP at 5e11 FLOP/s = 4.294967 ms (compute
     * bound: 3 x 1024^2 x 4 B / 1e11 B/s = 0.126 ms) + 1 us */
    CHECK_NEAR(dnp_device_gemm_time_s(&d, DNP_PREC_FP32, 1, 1024, 1024, 1024),
               2.0 * 1024 * 1024 * 1024 / 5e11 + 1e-6, 1e-15, 0);
    /* 4 x 1 x 4096 x 1: memory bound, (4096 + 4096 + 1) x 4 x 4 B / 1e11 */
    CHECK_NEAR(dnp_device_gemm_time_s(&d, DNP_PREC_FP32, 4, 1, 1, 4096),
               4.0 * (4096 + 4096 + 1) * 4 / 1e11 + 1e-6, 1e-15, 0);
    /* one unit: a 32^3 GEMM computes its whole 64x64 tile, 4x the FLOP */
    d.sm_count = 1;
    CHECK_NEAR(dnp_device_gemm_time_s(&d, DNP_PREC_FP32, 1, 32, 32, 32),
               2.0 * 64 * 64 * 32 / 5e11 + 1e-6, 1e-15, 0);
    /* 256 x 128 x k fills one 256x128 tile: the ceiling */
    CHECK_NEAR(dnp_device_gemm_time_s(&d, DNP_PREC_FP32, 1, 256, 128, 512),
               2.0 * 256 * 128 * 512 / 5e11 + 1e-6, 1e-15, 0);
    CHECK(isnan(dnp_device_gemm_time_s(&d, DNP_PREC_FP32, 1, 0, 32, 32)));
    CHECK(isnan(dnp_device_gemm_time_s(NULL, DNP_PREC_FP32, 1, 32, 32, 32)));
}

/* An attention's softmax (over a batched product's per-head scores): in
 * 16-bit one kernel each way (Megatron-LM's fused scale-mask-softmax); in
 * fp32 the scale and the mask are two more kernels each way, each reading
 * and writing the scores, the mask also reading its 1-byte mask
 * (src/perf/device_model.c).  gpt(hidden=64, heads=4, seq=16) at batch 2:
 * N = 4 x 16 x 16 x 2 = 2048 scores. */
TEST(perf_attention_softmax_fp32_passes)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("gpt(hidden=64,heads=4,layers=1,seq=16)", &g, &err), DNP_OK);
    if (g == NULL)
        return;
    int sm = dnp_graph_find(g, "layer0.attn.softmax");
    CHECK(sm >= 0);
    dnp_device_type d = a100_like();
    perf_rates r;
    perf_op_time t;
    const double N = 2048.0;
    perf_rates_get(&d, DNP_PREC_AMP, &r);
    perf_op_time_get(g, sm, 2, 1.0, 1.0, 1.0, &r, &t);
    CHECK_EQ_INT(t.kernels, 2);
    CHECK_NEAR(t.fwd_bytes, 2.0 * N * 2.0, 1e-15, 0);
    CHECK_NEAR(t.bwd_bytes, 3.0 * N * 2.0, 1e-15, 0);
    perf_rates_get(&d, DNP_PREC_FP32, &r);
    perf_op_time_get(g, sm, 2, 1.0, 1.0, 1.0, &r, &t);
    CHECK_EQ_INT(t.kernels, 6);
    /* softmax 8N, scale 8N, mask 8N + N */
    CHECK_NEAR(t.fwd_bytes, 25.0 * N, 1e-15, 0);
    /* softmax 12N, scale 8N, mask 8N + N */
    CHECK_NEAR(t.bwd_bytes, 29.0 * N, 1e-15, 0);
    /* the dropout after it: read X, write Y (4 bytes each) and the mask */
    int dr = dnp_graph_find(g, "layer0.attn.dropout");
    CHECK(dr >= 0);
    if (dr >= 0) {
        perf_op_time_get(g, dr, 2, 1.0, 1.0, 1.0, &r, &t);
        CHECK_EQ_INT(t.kernels, 2);
        CHECK_NEAR(t.fwd_bytes, 9.0 * N, 1e-15, 0);
        CHECK_NEAR(t.bwd_bytes, 9.0 * N, 1e-15, 0);
    }
    dnp_graph_free(g);
}

/* A fused (flash) attention core (FlashAttention-2, Dao 2023; src/perf/
 * device_model.c): one forward kernel on the scores op with both products'
 * FLOP (2 x heads x s x s x d MACs x 2) reading Q, K, V and writing O and a
 * 4-byte log-sum-exp per row; one backward kernel with 5 products' FLOP;
 * the softmax, dropout and context ops cost nothing of their own.  Saved:
 * the log-sum-exp (not the probabilities), no dropout mask, V and O.
 * gpt(hidden=64, heads=4, seq=16, attention=flash) at batch 2, fp32:
 * Q = K = V = O = 64 x 16 x 2 = 2048 elements, rows = 4 x 16 x 2 = 128,
 * one product 4 x 16 x 16 x 2 = 2048 outputs of (2 x 16 - 1) FLOP = 63488
 * (dnp_op_cost_get's count: 16 multiplies and 15 adds an output). */
TEST(perf_flash_attention_core)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("gpt(hidden=64,heads=4,layers=1,seq=16,attention=flash)", &g,
                                &err),
                 DNP_OK);
    if (g == NULL)
        return;
    dnp_device_type d = a100_like();
    perf_rates r;
    perf_rates_get(&d, DNP_PREC_FP32, &r);
    perf_op_time t;
    int sc = dnp_graph_find(g, "layer0.attn.scores");
    perf_op_time_get(g, sc, 2, 1.0, 1.0, 1.0, &r, &t);
    CHECK_EQ_INT(t.kernels, 2);
    CHECK_NEAR(t.fwd_flop, 2.0 * 63488.0, 1e-15, 0);
    CHECK_NEAR(t.bwd_flop, 5.0 * 63488.0, 1e-15, 0);
    CHECK_NEAR(t.fwd_bytes, 4.0 * 2048.0 * 4.0 + 128.0 * 4.0, 1e-15, 0);
    /* backward reads Q, K, V, O, dO and the statistics, writes dQ, dK, dV */
    CHECK_NEAR(t.bwd_bytes, 8.0 * 2048.0 * 4.0 + 128.0 * 4.0, 1e-15, 0);
    static const char *const inside[] = {"layer0.attn.softmax", "layer0.attn.dropout",
                                         "layer0.attn.context"};
    for (int k = 0; k < 3; k++) {
        int i = dnp_graph_find(g, inside[k]);
        CHECK(i >= 0);
        perf_op_time_get(g, i, 2, 1.0, 1.0, 1.0, &r, &t);
        CHECK_EQ_INT(t.kernels, 0);
        CHECK_NEAR(t.fwd_s + t.bwd_s + t.wgrad_s, 0.0, 0, 0);
    }
    perf_op_mem m;
    perf_op_mem_get(g, dnp_graph_find(g, "layer0.attn.softmax"), 2, 1.0, 1.0, 1.0, &r, &m);
    CHECK_NEAR(m.saved_act_bytes, 128.0 * 4.0, 1e-15, 0);
    CHECK_NEAR(m.out_act_bytes, 0.0, 0, 0);
    perf_op_mem_get(g, dnp_graph_find(g, "layer0.attn.dropout"), 2, 1.0, 1.0, 1.0, &r, &m);
    CHECK_NEAR(m.saved_act_bytes, 0.0, 0, 0);
    perf_op_mem_get(g, dnp_graph_find(g, "layer0.attn.context"), 2, 1.0, 1.0, 1.0, &r, &m);
    CHECK_NEAR(m.saved_act_bytes, 2.0 * 2048.0 * 4.0, 1e-15, 0); /* V and O */
    dnp_graph_free(g);
}

/* The per-layer roofline (dnp_op_roofline_get) on the hand-worked ops
 * above: the conv at tf32 is compute-bound in all three passes (99.77,
 * 99.77 and 99.86 us, each 5 us of launch), the ReLU at fp32 memory-bound
 * (41.30 + 61.95 us of traffic, 2 launches); the parts add up to the time,
 * and the fraction of peak is FLOP / (time x the precision's peak). */
TEST(perf_roofline_per_layer)
{
    dnp_graph *g = small_net();
    dnp_device_type d = a100_like();
    dnp_op_roofline c, u, in;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_op_roofline_get(g, 4, 32, &d, DNP_PREC_TF32, &c, &err), DNP_OK);
    const double conv_flop = 2.0 * 7392329728.0 + 7398715392.0;
    CHECK_NEAR(c.flop, conv_flop, 1e-15, 0);
    CHECK_NEAR(c.bytes, 3.0 * 51527680.0, 1e-15, 0);
    CHECK_NEAR(c.intensity, conv_flop / (3.0 * 51527680.0), 1e-12, 0); /* 143.5 FLOP/B */
    CHECK_NEAR(c.compute_s, conv_flop / 78e12, 1e-12, 0);
    CHECK_NEAR(c.memory_s, 0.0, 0, 0);
    CHECK_NEAR(c.launch_s, 3.0 * OVH, 1e-12, 0);
    CHECK_NEAR(c.time_s, c.compute_s + c.memory_s + c.launch_s, 1e-12, 0);
    CHECK_NEAR(c.achieved, conv_flop / (c.time_s * 156e12), 1e-12, 0); /* 47.6% */
    CHECK_EQ_INT(c.bound, DNP_BOUND_COMPUTE);
    CHECK_EQ_INT(c.precision, DNP_PREC_TF32);
    CHECK_EQ_INT(c.kernels, 3);
    CHECK_EQ_INT(dnp_op_roofline_get(g, 3, 32, &d, DNP_PREC_FP32, &u, &err), DNP_OK);
    CHECK_NEAR(u.memory_s, (51380224.0 + 77070336.0) / BW_EFF, 1e-12, 0);
    CHECK_NEAR(u.compute_s, 0.0, 0, 0);
    CHECK_NEAR(u.launch_s, 2.0 * OVH, 1e-12, 0);
    CHECK_EQ_INT(u.bound, DNP_BOUND_MEMORY);
    CHECK(u.intensity < dnp_device_ridge_intensity(&d, DNP_PREC_FP32));
    /* the ridge: 19.5e12 x 0.5 / (1555e9 x 0.8) = 7.84 FLOP/B at fp32 */
    CHECK_NEAR(dnp_device_ridge_intensity(&d, DNP_PREC_FP32), 9.75e12 / 1.244e12, 1e-12, 0);
    /* the input op: no kernels, no bound */
    CHECK_EQ_INT(dnp_op_roofline_get(g, 0, 32, &d, DNP_PREC_FP32, &in, &err), DNP_OK);
    CHECK_EQ_INT(in.kernels, 0);
    CHECK_EQ_INT(in.bound, DNP_BOUND_NONE);
    CHECK(strcmp(dnp_bound_name(DNP_BOUND_MEMORY), "memory") == 0);
    /* out of range */
    CHECK_EQ_INT(dnp_op_roofline_get(g, 99, 32, &d, DNP_PREC_FP32, &in, &err), DNP_ERR_INPUT);
    dnp_graph_free(g);
}
