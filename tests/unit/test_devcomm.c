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
 * are all-reduced by the pair.  A concat is refused by name. */
static dnp_graph *fork_join(dnp_op_kind kind)
{
    dnp_graph *g = dnp_graph_new("res");
    int x = dnp_graph_input(g, "x", 4, 1, 1);
    int a = dnp_graph_fc(g, "fa", x, 4, 0);
    int b = dnp_graph_fc(g, "fb", x, 4, 0);
    int in[2] = {a, b};
    dnp_shape sh = {kind == DNP_OP_ADD ? 4 : 8, 1, 1};
    dnp_op_attrs at;
    memset(&at, 0, sizeof at);
    dnp_graph_append(g, "sum", kind, 2, in, sh, &at);
    return g;
}

TEST(devcomm_join)
{
    dnp_graph *g = fork_join(DNP_OP_ADD);
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

    g = fork_join(DNP_OP_CONCAT);
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

/* Strategy JSON versions (docs/formats.md): "version" 1 or 2 only; a
 * version-1 path lists every level, a version-2 path may stop early (the
 * levels below it data parallel). */
TEST(strategy_versions)
{
    static const char *const v3 =
        "{\"version\": 3, \"levels\": 1, \"paths\": [{\"branch_bits\": 0, \"levels\": [{\"level\":"
        " 0, \"ratio\": 0.5, \"types\": {\"fc1\": \"I\", \"fc2\": \"I\"}}]}]}";
    static const char *const short_v1 =
        "{\"levels\": 1, \"paths\": [{\"branch_bits\": 0, \"levels\": []}]}";
    static const char *const short_v2 =
        "{\"version\": 2, \"model\": \"mlp\", \"batch\": 4, \"cluster\": \"2xtpu-v3\","
        " \"levels\": 1, \"paths\": [{\"branch_bits\": 0, \"levels\": []}]}";
    dnp_strategy *s = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_strategy_read_buffer(v3, strlen(v3), "s.json", &s, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "\"version\" must be 1 or 2") != NULL);
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
