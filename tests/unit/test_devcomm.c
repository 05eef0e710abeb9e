/* test_devcomm.c - the executed accounting (dnp_plan_device_comm,
 * docs/time-model.md "Executed accounting"): hand-worked bytes per device,
 * and where it equals the simulator's per-class figures. */
#include "test.h"

#include "dnnpar.h"

#include <string.h>

/* x [8] -> fc1 (6, bias) -> fc2 (4, no bias). */
static dnp_graph *mlp(void)
{
    dnp_graph *g = dnp_graph_new("mlp");
    int x = dnp_graph_input(g, "x", 8, 1, 1);
    int a = dnp_graph_fc(g, "fc1", x, 6, 1);
    dnp_graph_fc(g, "fc2", a, 4, 0);
    return g;
}

/* The plan of `strategy` (JSON text) for mlp on 2 x tpu-v3 at fp32. */
static dnp_plan *given(const dnp_graph *g, const char *strategy, int64_t batch)
{
    dnp_cluster cl;
    dnp_error err = {0};
    dnp_strategy *s = NULL;
    dnp_plan *p = NULL;
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = batch,
                            .precision = DNP_PREC_FP32};
    if (dnp_cluster_parse("2xtpu-v3", &cl, &err) != DNP_OK ||
        dnp_strategy_read_buffer(strategy, strlen(strategy), "s.json", &s, &err) != DNP_OK ||
        dnp_plan_run_strategy(g, &cl, &opt, s, &p, &err) != DNP_OK)
        p = NULL;
    dnp_strategy_free(s);
    return p;
}

static const char *strategy_text(char *buf, size_t n, double ratio, const char *t1,
                                 const char *t2, int batch)
{
    snprintf(buf, n,
             "{\"model\": \"mlp\", \"batch\": %d, \"cluster\": \"2xtpu-v3\", \"levels\": 1,"
             " \"paths\": [{\"branch_bits\": 0, \"levels\": [{\"level\": 0, \"ratio\": %.17g,"
             " \"types\": {\"fc1\": \"%s\", \"fc2\": \"%s\"}}]}]}",
             batch, ratio, t1, t2);
    return buf;
}

/* Data parallelism: each device all-reduces every gradient with the other
 * (fc1 48 + 6 bias, fc2 24: 78 elements, 312 bytes), ring: 2 (p-1)/p = 1
 * times that sent and received; the simulator's busiest device receives
 * the same. */
TEST(devcomm_data_parallel)
{
    dnp_graph *g = mlp();
    char buf[512];
    dnp_plan *p = given(g, strategy_text(buf, sizeof buf, 0.5, "I", "I", 4), 4);
    CHECK(p != NULL);
    dnp_device_comm *dc = NULL;
    int n = 0;
    dnp_error err = {0};
    CHECK(dnp_plan_device_comm(p, g, 4, &dc, &n, &err) == DNP_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(dnp_plan_n_devices(p), 2);
    for (int d = 0; d < n; d++) {
        CHECK_EQ_INT(dc[d].device, d);
        CHECK_EQ_INT((int)dc[d].branch_bits, d);
        CHECK_EQ_INT((int)dc[d].allreduce_bytes[2], 312);
        for (int k = 0; k < DNP_XFER_COUNT; k++)
            CHECK_EQ_INT((int)(dc[d].p2p_sent_bytes[k] + dc[d].p2p_received_bytes[k]), 0);
        CHECK_NEAR(dc[d].sent_bytes, 312.0, 0, 0);
        CHECK_NEAR(dc[d].received_bytes, 312.0, 0, 0);
        CHECK_NEAR(dc[d].sim_received_bytes, 312.0, 0, 0);
    }
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    CHECK_NEAR(s.comm_bytes, 312.0, 0, 0);
    dnp_free(dc);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* fc1 Type-II, fc2 Type-III at ratio 1/4, batch 4: fc1's output partial
 * sums (4 x 6 floats, 96 bytes) and fc2's input-error partial sums (the
 * same size) are exchanged whole whatever the ratio (AccPar Table 4); the
 * layouts agree (replicated), no weight is replicated.  The simulator's
 * per-class figure is the same 192 bytes. */
TEST(devcomm_partial_sums)
{
    dnp_graph *g = mlp();
    char buf[512];
    dnp_plan *p = given(g, strategy_text(buf, sizeof buf, 0.25, "II", "III", 4), 4);
    CHECK(p != NULL);
    dnp_device_comm *dc = NULL;
    int n = 0;
    dnp_error err = {0};
    CHECK(dnp_plan_device_comm(p, g, 4, &dc, &n, &err) == DNP_OK);
    for (int d = 0; d < n; d++) {
        CHECK_EQ_INT((int)dc[d].p2p_received_bytes[DNP_XFER_PSUM_FWD], 96);
        CHECK_EQ_INT((int)dc[d].p2p_sent_bytes[DNP_XFER_PSUM_FWD], 96);
        CHECK_EQ_INT((int)dc[d].p2p_received_bytes[DNP_XFER_PSUM_BWD], 96);
        CHECK_EQ_INT((int)dc[d].p2p_received_bytes[DNP_XFER_LAYOUT_FWD], 0);
        CHECK_EQ_INT((int)dc[d].p2p_received_bytes[DNP_XFER_LAYOUT_BWD], 0);
        CHECK_EQ_INT((int)dc[d].allreduce_bytes[2], 0);
        CHECK_NEAR(dc[d].received_bytes, 192.0, 0, 0);
        CHECK_NEAR(dc[d].sim_received_bytes, 192.0, 0, 0);
    }
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    CHECK_NEAR(s.comm_bytes, 192.0, 0, 0);
    dnp_free(dc);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* Whole samples and channels at an uneven ratio: batch 5, ratio 0.3.
 * fc1 Type-I: device 0 gets floor(1.5 + 1/2) = 2 samples, device 1 three.
 * fc2 Type-II over fc1's 6 channels: floor(1.8 + 1/2) = 2 | 4.  Forward,
 * device 0 fetches samples 2..5 of channels 0..2 (6 floats, 24 bytes),
 * device 1 samples 0..2 of channels 2..6 (8 floats, 32 bytes); backward
 * the reverse.  fc2's output partial sums: 5 x 4 floats (80 bytes) each
 * way; fc1's 54 gradients (216 bytes) all-reduced by the pair. */
TEST(devcomm_uneven_layout_change)
{
    dnp_graph *g = mlp();
    char buf[512];
    dnp_plan *p = given(g, strategy_text(buf, sizeof buf, 0.3, "I", "II", 5), 5);
    CHECK(p != NULL);
    dnp_device_comm *dc = NULL;
    int n = 0;
    dnp_error err = {0};
    CHECK(dnp_plan_device_comm(p, g, 4, &dc, &n, &err) == DNP_OK);
    CHECK_EQ_INT((int)dc[0].p2p_received_bytes[DNP_XFER_LAYOUT_FWD], 24);
    CHECK_EQ_INT((int)dc[0].p2p_sent_bytes[DNP_XFER_LAYOUT_FWD], 32);
    CHECK_EQ_INT((int)dc[1].p2p_received_bytes[DNP_XFER_LAYOUT_FWD], 32);
    CHECK_EQ_INT((int)dc[0].p2p_received_bytes[DNP_XFER_LAYOUT_BWD], 32);
    CHECK_EQ_INT((int)dc[1].p2p_received_bytes[DNP_XFER_LAYOUT_BWD], 24);
    CHECK_EQ_INT((int)dc[1].p2p_sent_bytes[DNP_XFER_PSUM_FWD], 80);
    CHECK_EQ_INT((int)dc[0].allreduce_bytes[2], 216);
    CHECK_NEAR(dc[0].sent_bytes, 32.0 + 24.0 + 80.0 + 216.0, 0, 0);
    CHECK_NEAR(dc[1].received_bytes, 32.0 + 24.0 + 80.0 + 216.0, 0, 0);
    dnp_free(dc);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* x [4] -> fa (4) and fb (4), no bias -> add.  fa Type-I, fb Type-III, the
 * add batch-split, ratio 1/2, batch 4: fb's output goes from channel- to
 * batch-split (device 0 fetches samples 0..2 of channels 2..4: 4 floats)
 * and its error back (samples 2..4 of channels 0..2); fa's 16 gradients
 * are all-reduced by the pair.  An add into 8 channels (a broadcast) is
 * refused by name. */
static dnp_graph *fork_join(int64_t out_c)
{
    dnp_graph *g = dnp_graph_new("res");
    int x = dnp_graph_input(g, "x", 4, 1, 1);
    int a = dnp_graph_fc(g, "fa", x, 4, 0);
    int b = dnp_graph_fc(g, "fb", x, 4, 0);
    int in[2] = {a, b};
    dnp_shape sh = {out_c, 1, 1};
    dnp_op_attrs at;
    memset(&at, 0, sizeof at);
    dnp_graph_append(g, "sum", DNP_OP_ADD, 2, in, sh, &at);
    return g;
}

TEST(devcomm_join)
{
    dnp_graph *g = fork_join(4);
    const char *text =
        "{\"model\": \"res\", \"batch\": 4, \"cluster\": \"2xtpu-v3\", \"levels\": 1,"
        " \"paths\": [{\"branch_bits\": 0, \"levels\": [{\"level\": 0, \"ratio\": 0.5,"
        " \"types\": {\"fa\": \"I\", \"fb\": \"III\", \"sum\": \"batch\"}}]}]}";
    dnp_plan *p = given(g, text, 4);
    CHECK(p != NULL);
    dnp_device_comm *dc = NULL;
    int n = 0;
    dnp_error err = {0};
    CHECK(dnp_plan_device_comm(p, g, 4, &dc, &n, &err) == DNP_OK);
    for (int d = 0; d < n; d++) {
        CHECK_EQ_INT((int)dc[d].p2p_received_bytes[DNP_XFER_LAYOUT_FWD], 16);
        CHECK_EQ_INT((int)dc[d].p2p_sent_bytes[DNP_XFER_LAYOUT_BWD], 16);
        CHECK_EQ_INT((int)dc[d].p2p_received_bytes[DNP_XFER_PSUM_BWD], 0);
        CHECK_EQ_INT((int)dc[d].allreduce_bytes[2], 64);
        CHECK_NEAR(dc[d].received_bytes, 96.0, 0, 0);
    }
    dnp_free(dc);
    dnp_plan_free(p);
    dnp_graph_free(g);

    g = fork_join(8);
    dnp_cluster cl;
    p = NULL;
    dnp_plan_options opt = {.scheme = DNP_SCHEME_DP, .batch = 4, .precision = DNP_PREC_FP32};
    CHECK(dnp_cluster_parse("2xtpu-v3", &cl, &err) == DNP_OK);
    CHECK(dnp_plan_run(g, &cl, &opt, &p, &err) == DNP_OK);
    dc = NULL;
    n = 0;
    CHECK(dnp_plan_device_comm(p, g, 4, &dc, &n, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "'sum'") != NULL);
    CHECK(dc == NULL && n == 0);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* The accounting of `strategy` for g: 0 on success. */
static int comm_of(const dnp_graph *g, const char *strategy, int64_t batch, dnp_device_comm **dc)
{
    dnp_plan *p = given(g, strategy, batch);
    int n = 0;
    dnp_error err = {0};
    int rc = p != NULL && dnp_plan_device_comm(p, g, 4, dc, &n, &err) == DNP_OK && n == 2 ? 0 : 1;
    dnp_plan_free(p);
    return rc;
}

/* x [4 features, 3 positions] -> fc1 (6 per position, bias) -> fc2 (4 per
 * position, no bias): keep_positions FCs. */
static dnp_graph *mlp_positions(void)
{
    dnp_graph *g = dnp_graph_new("mlpp");
    int x = dnp_graph_input(g, "x", 4, 3, 1);
    dnp_op_attrs at = {.keep_positions = 1, .bias = 1};
    int a = dnp_graph_append(g, "fc1", DNP_OP_FC, 1, &x, (dnp_shape){6, 3, 1}, &at);
    at.bias = 0;
    dnp_graph_append(g, "fc2", DNP_OP_FC, 1, &a, (dnp_shape){4, 3, 1}, &at);
    return g;
}

/* Megatron-LM's MLP (fc1 column parallel = Type-III, fc2 row parallel =
 * Type-II) at batch 2: the only traffic is fc2's output partial sums, 2
 * samples x 4 features x 3 positions x 4 B = 96 B each way; fc1 reads the
 * model input (no input-error sum) and every weight piece has one holder.
 * Data parallel: the weights 6x4 + 6 + 4x6 = 54 elements (one per pair of
 * features, not per position), 216 B all-reduced. */
TEST(devcomm_per_position_fc)
{
    dnp_graph *g = mlp_positions();
    char buf[512];
    dnp_device_comm *dc = NULL;
    CHECK(comm_of(g, strategy_text(buf, sizeof buf, 0.5, "III", "II", 2), 2, &dc) == 0);
    for (int d = 0; dc != NULL && d < 2; d++) {
        CHECK_EQ_INT((int)dc[d].p2p_received_bytes[DNP_XFER_PSUM_FWD], 96);
        CHECK_EQ_INT((int)dc[d].p2p_received_bytes[DNP_XFER_PSUM_BWD], 0);
        CHECK_EQ_INT((int)dc[d].allreduce_bytes[2], 0);
        CHECK_NEAR(dc[d].sent_bytes, 96.0, 0, 0);
    }
    dnp_free(dc);
    dc = NULL;
    CHECK(comm_of(g, strategy_text(buf, sizeof buf, 0.5, "I", "I", 2), 2, &dc) == 0);
    for (int d = 0; dc != NULL && d < 2; d++)
        CHECK_EQ_INT((int)dc[d].allreduce_bytes[2], 216);
    dnp_free(dc);
    dnp_graph_free(g);
}

/* x [2] -> fa (3) and fb (2) -> concat [5] -> fc3 (1), no biases, batch 2;
 * fa, fb, fc3 Type-I, the concat channel-split at 0.5: device 0 holds its
 * channels 0..3 (all of fa's), device 1 3..5 (fb's).  Forward, device 0
 * receives fa's sample 1 (3 x 4 B) and device 1 fb's sample 0 (2 x 4 B);
 * then fc3 needs its sample's other channels: device 0 receives 2 x 4 B,
 * device 1 3 x 4 B.  Backward mirrors it.  Gradients 6 + 4 + 5 elements. */
TEST(devcomm_concat)
{
    dnp_graph *g = dnp_graph_new("cat");
    int x = dnp_graph_input(g, "x", 2, 1, 1);
    int in[2] = {dnp_graph_fc(g, "fa", x, 3, 0), dnp_graph_fc(g, "fb", x, 2, 0)};
    int c = dnp_graph_concat(g, "cat", 2, in);
    dnp_graph_fc(g, "fc3", c, 1, 0);
    const char *s = "{\"model\": \"cat\", \"batch\": 2, \"cluster\": \"2xtpu-v3\", \"levels\": 1,"
                    " \"paths\": [{\"branch_bits\": 0, \"levels\": [{\"level\": 0, \"ratio\": 0.5,"
                    " \"types\": {\"fa\": \"I\", \"fb\": \"I\", \"cat\": \"channel\","
                    " \"fc3\": \"I\"}}]}]}";
    dnp_device_comm *dc = NULL;
    CHECK(comm_of(g, s, 2, &dc) == 0);
    if (dc != NULL) {
        CHECK_EQ_INT((int)dc[0].p2p_received_bytes[DNP_XFER_LAYOUT_FWD], 12 + 8);
        CHECK_EQ_INT((int)dc[1].p2p_received_bytes[DNP_XFER_LAYOUT_FWD], 8 + 12);
        CHECK_EQ_INT((int)dc[0].p2p_sent_bytes[DNP_XFER_LAYOUT_FWD], 8 + 12);
        CHECK_EQ_INT((int)dc[0].p2p_received_bytes[DNP_XFER_LAYOUT_BWD], 8 + 12);
        CHECK_EQ_INT((int)dc[1].p2p_sent_bytes[DNP_XFER_LAYOUT_BWD], 8 + 12);
        CHECK_EQ_INT((int)dc[0].allreduce_bytes[2], 60);
        CHECK_NEAR(dc[1].received_bytes, 100.0, 0, 0);
    }
    dnp_free(dc);
    dnp_graph_free(g);
}

/* x [2 features, 3 positions] -> fa, fb (per-position FCs, 2 features, no
 * bias) -> s = fa fb^T (a matmul join, contract 2: [3 keys, 3 positions])
 * -> fc (1, no bias), batch 2, 4-byte elements; fa Type-I, fb Type-III, s
 * channel-split (keys 0..2 | 2..3), fc Type-I.  s needs both samples and
 * every channel of fa and fb (12 B per sample and channel): each device
 * receives fa's other sample (2 x 12 B) and fb's other channel (2 x 12 B).
 * fc needs its sample's keys: device 0 receives key 2 of sample 0 (12 B),
 * device 1 keys 0..2 of sample 1 (24 B).  Backward: fc's error of the other
 * sample's keys (device 0 24 B, device 1 12 B); s's channel-level partial
 * sums of both inputs' errors, 2 x 2 x 12 B each (fa's and fb's errors then
 * need not move: each device holds its part already).  Gradients: fa 4
 * elements, fc 9: 52 B; fb's outputs have one holder each.  A product
 * whose contracted length is not its first input's channels is refused. */
static dnp_graph *attention_scores(int64_t contract)
{
    dnp_graph *g = dnp_graph_new("att");
    int x = dnp_graph_input(g, "x", 2, 3, 1);
    dnp_op_attrs at = {.keep_positions = 1};
    int in[2] = {dnp_graph_append(g, "fa", DNP_OP_FC, 1, &x, (dnp_shape){2, 3, 1}, &at),
                 dnp_graph_append(g, "fb", DNP_OP_FC, 1, &x, (dnp_shape){2, 3, 1}, &at)};
    dnp_op_attrs mm = {.contract = contract};
    int sc = dnp_graph_append(g, "s", DNP_OP_MATMUL, 2, in, (dnp_shape){3, 3, 1}, &mm);
    dnp_graph_fc(g, "fc", sc, 1, 0);
    return g;
}

TEST(devcomm_matmul)
{
    const char *s = "{\"model\": \"att\", \"batch\": 2, \"cluster\": \"2xtpu-v3\", \"levels\": 1,"
                    " \"paths\": [{\"branch_bits\": 0, \"levels\": [{\"level\": 0, \"ratio\": 0.5,"
                    " \"types\": {\"fa\": \"I\", \"fb\": \"III\", \"s\": \"channel\","
                    " \"fc\": \"I\"}}]}]}";
    dnp_graph *g = attention_scores(2);
    dnp_device_comm *dc = NULL;
    CHECK(comm_of(g, s, 2, &dc) == 0);
    if (dc != NULL) {
        CHECK_EQ_INT((int)dc[0].p2p_received_bytes[DNP_XFER_LAYOUT_FWD], 48 + 12);
        CHECK_EQ_INT((int)dc[1].p2p_received_bytes[DNP_XFER_LAYOUT_FWD], 48 + 24);
        CHECK_EQ_INT((int)dc[0].p2p_received_bytes[DNP_XFER_LAYOUT_BWD], 24);
        CHECK_EQ_INT((int)dc[1].p2p_received_bytes[DNP_XFER_LAYOUT_BWD], 12);
        CHECK_EQ_INT((int)dc[0].p2p_received_bytes[DNP_XFER_PSUM_BWD], 96);
        CHECK_EQ_INT((int)dc[1].p2p_sent_bytes[DNP_XFER_PSUM_BWD], 96);
        CHECK_EQ_INT((int)dc[0].p2p_received_bytes[DNP_XFER_PSUM_FWD], 0);
        CHECK_EQ_INT((int)dc[1].allreduce_bytes[2], 52);
        CHECK_NEAR(dc[0].received_bytes, 232.0, 0, 0);
        CHECK_NEAR(dc[1].sent_bytes, 60.0 + 24.0 + 96.0 + 52.0, 0, 0);
    }
    dnp_free(dc);
    dnp_graph_free(g);
    g = attention_scores(3);
    dnp_plan *p = given(g, s, 2);
    CHECK(p != NULL);
    dnp_error err = {0};
    int n = 0;
    dc = NULL;
    CHECK(dnp_plan_device_comm(p, g, 4, &dc, &n, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "op 's'") != NULL && strstr(err.msg, "matmul") != NULL);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* x [4] -> c (1x1 conv, 4 -> 4 channels in `groups` groups, no bias) -> fc
 * (1, no bias), both Type-I on 2 devices: every weight is all-reduced by the
 * pair, and a grouped conv has only its groups' weights (PyTorch's conv2d
 * `groups`): 2 groups 2 x 2 + fc 4 = 12 elements, 48 B; depthwise (4
 * groups) 4 + 4 = 32 B; dense 16 + 4 = 80 B. */
TEST(devcomm_grouped_conv)
{
    const char *s = "{\"model\": \"g\", \"batch\": 2, \"cluster\": \"2xtpu-v3\", \"levels\": 1,"
                    " \"paths\": [{\"branch_bits\": 0, \"levels\": [{\"level\": 0, \"ratio\": 0.5,"
                    " \"types\": {\"c\": \"I\", \"fc\": \"I\"}}]}]}";
    const int groups[3] = {2, 4, 1}, want[3] = {48, 32, 80};
    for (int k = 0; k < 3; k++) {
        dnp_graph *g = dnp_graph_new("g");
        int x = dnp_graph_input(g, "x", 4, 1, 1);
        int c = dnp_graph_conv(g, "c", x, 4, 1, 1, 0, groups[k], 0);
        dnp_graph_fc(g, "fc", c, 1, 0);
        dnp_device_comm *dc = NULL;
        CHECK(comm_of(g, s, 2, &dc) == 0);
        for (int d = 0; dc != NULL && d < 2; d++)
            CHECK_EQ_INT((int)dc[d].allreduce_bytes[2], want[k]);
        dnp_free(dc);
        dnp_graph_free(g);
    }
}

/* x [4 features, 3 positions] -> fc1 (per position, 4, no bias) -> a norm
 * with `params` (8: scale and shift of 4 features) -> fc2 (per position, 4,
 * no bias), both Type-I on 2 devices, batch 2.  A layer norm's 8 values
 * are all-reduced with the weights (16 + 16): 40 elements, 160 B; a batch
 * norm's are its backward statistics, already all-reduced (4 values per
 * channel, 64 B): 128 + 64 = 192 B, as without parameters.  Before fc1 (on
 * the model input's chain) a norm with parameters is refused. */
static dnp_graph *norm_between(dnp_op_kind kind, int64_t params, int first)
{
    dnp_graph *g = dnp_graph_new("n");
    int x = dnp_graph_input(g, "x", 4, 3, 1);
    dnp_op_attrs fc = {.keep_positions = 1}, nm = {.param_elems = params};
    if (first)
        x = dnp_graph_append(g, "norm", kind, 1, &x, (dnp_shape){4, 3, 1}, &nm);
    int a = dnp_graph_append(g, "fc1", DNP_OP_FC, 1, &x, (dnp_shape){4, 3, 1}, &fc);
    if (!first)
        a = dnp_graph_append(g, "norm", kind, 1, &a, (dnp_shape){4, 3, 1}, &nm);
    dnp_graph_append(g, "fc2", DNP_OP_FC, 1, &a, (dnp_shape){4, 3, 1}, &fc);
    return g;
}

TEST(devcomm_norm_parameters)
{
    char buf[512];
    const dnp_op_kind kinds[4] = {DNP_OP_LAYERNORM, DNP_OP_LAYERNORM, DNP_OP_BATCHNORM,
                                  DNP_OP_BATCHNORM};
    const int64_t params[4] = {8, 0, 8, 0};
    const int want[4] = {160, 128, 192, 192};
    for (int k = 0; k < 4; k++) {
        dnp_graph *g = norm_between(kinds[k], params[k], 0);
        dnp_device_comm *dc = NULL;
        CHECK(comm_of(g, strategy_text(buf, sizeof buf, 0.5, "I", "I", 2), 2, &dc) == 0);
        for (int d = 0; dc != NULL && d < 2; d++)
            CHECK_EQ_INT((int)dc[d].allreduce_bytes[2], want[k]);
        dnp_free(dc);
        dnp_graph_free(g);
    }
    dnp_graph *g = norm_between(DNP_OP_LAYERNORM, 8, 1);
    dnp_plan *p = given(g, strategy_text(buf, sizeof buf, 0.5, "I", "I", 2), 2);
    CHECK(p != NULL);
    dnp_error err = {0};
    int n = 0;
    dnp_device_comm *dc = NULL;
    CHECK(dnp_plan_device_comm(p, g, 4, &dc, &n, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "op 'norm'") != NULL && strstr(err.msg, "model input") != NULL);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* x [2] -> fc1 (4, no bias) -> batchnorm -> fc2 (1, no bias), batch 2.
 * fc1 and fc2 Type-I: both devices hold fc1's 4 channels for one sample
 * each, so the statistics (2 values forward, 2 backward per channel, 64 B)
 * are all-reduced with the gradients (8 + 4 elements, 48 B).  fc1 Type-III:
 * each channel has one holder, no statistics move. */
TEST(devcomm_batchnorm_statistics)
{
    dnp_graph *g = dnp_graph_new("mlp");
    int x = dnp_graph_input(g, "x", 2, 1, 1);
    int a = dnp_graph_fc(g, "fc1", x, 4, 0);
    int b = dnp_graph_unary(g, "bn", DNP_OP_BATCHNORM, a);
    dnp_graph_fc(g, "fc2", b, 1, 0);
    char buf[512];
    dnp_device_comm *dc = NULL;
    CHECK(comm_of(g, strategy_text(buf, sizeof buf, 0.5, "I", "I", 2), 2, &dc) == 0);
    for (int d = 0; dc != NULL && d < 2; d++)
        CHECK_EQ_INT((int)dc[d].allreduce_bytes[2], 64 + 48);
    dnp_free(dc);
    dc = NULL;
    CHECK(comm_of(g, strategy_text(buf, sizeof buf, 0.5, "III", "I", 2), 2, &dc) == 0);
    /* fc2 Type-I reads fc1's channel-split output: layout changes, and its
     * gradient (4 elements) is all-reduced; fc1's pieces have one holder */
    for (int d = 0; dc != NULL && d < 2; d++)
        CHECK_EQ_INT((int)dc[d].allreduce_bytes[2], 16);
    dnp_free(dc);
    dnp_graph_free(g);
}

/* fc1 Type-I, fc2 R (DNP_TYPE_R: not split, each device computes all of
 * fc2 on all 4 samples): fc1's gradient all-reduce (48 + 6 bias = 54
 * elements, 216 bytes; ring of 2 sends and receives it once), fc2 none
 * (each device's dW is whole); forward, fc1's output (4 x 6) goes from the
 * batch split to replicated: each device fetches the other's 2 x 6 = 12
 * elements (48 bytes); backward, fc2 gives the error whole: nothing.
 * Each device: 216 + 48 = 264 bytes each way. */
TEST(devcomm_type_r)
{
    dnp_graph *g = mlp();
    char buf[512];
    dnp_plan *p = given(g, strategy_text(buf, sizeof buf, 0.5, "I", "R", 4), 4);
    CHECK(p != NULL);
    if (p == NULL) {
        dnp_graph_free(g);
        return;
    }
    int fc2 = -1;
    for (int v = 0; v < dnp_plan_n_nodes(p); v++)
        if (strcmp(dnp_plan_node_name(p, v), "fc2") == 0)
            fc2 = v;
    CHECK(fc2 >= 0);
    CHECK_EQ_INT(dnp_plan_type(p, 0, 0, fc2), DNP_TYPE_R);
    dnp_device_comm *dc = NULL;
    int n = 0;
    dnp_error err = {0};
    CHECK(dnp_plan_device_comm(p, g, 4, &dc, &n, &err) == DNP_OK);
    CHECK_EQ_INT(n, 2);
    for (int d = 0; d < n; d++) {
        CHECK_EQ_INT((int)dc[d].allreduce_bytes[2], 216);
        CHECK_NEAR(dc[d].sent_bytes, 264.0, 0, 0);
        CHECK_NEAR(dc[d].received_bytes, 264.0, 0, 0);
        CHECK_NEAR(dc[d].sim_received_bytes, 264.0, 0, 0);
    }
    /* fc2's compute is not split: its time on each device equals the
     * one-device plan's (every level R), while fc1's halves. */
    dnp_plan *q = given(g, strategy_text(buf, sizeof buf, 0.5, "R", "R", 4), 4);
    CHECK(q != NULL);
    if (q != NULL) {
        double c_p, m_p, c_q, m_q;
        dnp_plan_node_times(p, fc2, &c_p, &m_p);
        dnp_plan_node_times(q, fc2, &c_q, &m_q);
        CHECK_NEAR(c_p, c_q, 1e-12, 0);
        dnp_plan_summary sq;
        dnp_plan_get_summary(q, &sq);
        CHECK_NEAR(sq.comm_bytes, 0.0, 0, 0); /* all replicated: nothing moves */
    }
    dnp_plan_free(q);
    dnp_free(dc);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* Strategy JSON versions (docs/formats.md): "version" 1, 2 or 3 only; a
 * version-1 path lists every level, a version-2 path may stop early (the
 * levels below it data parallel); version 3 keeps the tree in "strategy"
 * ("Plan"). */
TEST(strategy_versions)
{
    static const char *const v3 =
        "{\"version\": 4, \"levels\": 1, \"paths\": [{\"branch_bits\": 0, \"levels\": [{\"level\":"
        " 0, \"ratio\": 0.5, \"types\": {\"fc1\": \"I\", \"fc2\": \"I\"}}]}]}";
    static const char *const short_v1 =
        "{\"levels\": 1, \"paths\": [{\"branch_bits\": 0, \"levels\": []}]}";
    static const char *const short_v2 =
        "{\"version\": 2, \"model\": \"mlp\", \"batch\": 4, \"cluster\": \"2xtpu-v3\","
        " \"levels\": 1, \"paths\": [{\"branch_bits\": 0, \"levels\": []}]}";
    dnp_strategy *s = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_strategy_read_buffer(v3, strlen(v3), "s.json", &s, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "\"version\" must be 1, 2 or 3") != NULL);
    err = (dnp_error){0};
    CHECK_EQ_INT(dnp_strategy_read_buffer(short_v1, strlen(short_v1), "s.json", &s, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "paths[0]") != NULL);
    /* version 2: the empty path leaves level 0 data parallel (Type-I) */
    dnp_graph *g = mlp();
    dnp_plan *p = given(g, short_v2, 4);
    CHECK(p != NULL);
    if (p != NULL)
        for (int v = 0; v < dnp_plan_n_nodes(p); v++)
            CHECK_EQ_INT(dnp_plan_type(p, 0, 0, v), DNP_TYPE_I);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* Version 3 (docs/formats.md "Plan"): the same tree under "strategy"
 * gives the same plan as version 2 (fc1 II, fc2 III at ratio 0.5); a
 * Megatron-LM configuration is read with no tree (levels 0, its text) and
 * refused by dnp_plan_run_strategy; a PaSE plan without a tree is refused
 * when read, with the file's reason; a v3 file with the tree at the top
 * level is refused. */
TEST(strategy_v3_plans)
{
    static const char *const tree =
        "{\"version\": 3, \"model\": \"mlp\", \"batch\": 4, \"cluster\": \"2xtpu-v3\","
        " \"strategy\": {\"kind\": \"tree\", \"levels\": 1, \"paths\": [{\"branch_bits\": 0,"
        " \"levels\": [{\"level\": 0, \"ratio\": 0.5, \"types\": {\"fc1\": \"II\","
        " \"fc2\": \"III\"}}]}]}}";
    static const char *const megatron =
        "{\"version\": 3, \"model\": \"gpt2\", \"batch\": 16, \"cluster\": \"1xdgx-a100\","
        " \"strategy\": {\"kind\": \"megatron\", \"text\": \"tp=1,pp=1,dp=8\","
        " \"megatron_version\": \"legacy\"}}";
    static const char *const pase =
        "{\"version\": 3, \"strategy\": {\"kind\": \"pase\", \"ops\": [],"
        " \"no_tree\": \"six devices\"}}";
    static const char *const flat =
        "{\"version\": 3, \"levels\": 1, \"paths\": [{\"branch_bits\": 0, \"levels\": []}]}";
    dnp_graph *g = mlp();
    dnp_plan *p = given(g, tree, 4);
    CHECK(p != NULL);
    for (int v = 0; p != NULL && v < dnp_plan_n_nodes(p); v++)
        CHECK_EQ_INT(dnp_plan_type(p, 0, 0, v),
                     strcmp(dnp_plan_node_name(p, v), "fc1") == 0 ? DNP_TYPE_II : DNP_TYPE_III);
    CHECK(p != NULL && dnp_plan_n_nodes(p) == 2);
    dnp_plan_free(p);
    dnp_strategy *s = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_strategy_read_buffer(megatron, strlen(megatron), "m.json", &s, &err),
                 DNP_OK);
    if (s != NULL) {
        CHECK(strcmp(dnp_strategy_config3d_text(s), "tp=1,pp=1,dp=8") == 0);
        CHECK_EQ_INT(dnp_strategy_levels(s), 0);
        CHECK_EQ_INT(dnp_strategy_batch(s), 16);
        CHECK(strcmp(dnp_strategy_option(s, "megatron_version"), "legacy") == 0);
        dnp_cluster cl;
        dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 4};
        CHECK_EQ_INT(dnp_cluster_parse("2xtpu-v3", &cl, &err), DNP_OK);
        CHECK_EQ_INT(dnp_plan_run_strategy(g, &cl, &opt, s, &p, &err), DNP_ERR_INPUT);
        CHECK(strstr(err.msg, "Megatron-LM configuration (tp=1,pp=1,dp=8") != NULL);
    }
    dnp_strategy_free(s);
    s = NULL;
    err = (dnp_error){0};
    CHECK_EQ_INT(dnp_strategy_read_buffer(pase, strlen(pase), "p.json", &s, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "a PaSE plan dnnpar cannot simulate: six devices") != NULL);
    err = (dnp_error){0};
    CHECK_EQ_INT(dnp_strategy_read_buffer(flat, strlen(flat), "f.json", &s, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "version 3 needs a \"strategy\" object") != NULL);
    dnp_graph_free(g);
}
