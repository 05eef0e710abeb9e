/* test_config3d_overlap.c - Megatron-LM's schedules and overlaps in the
 * configuration model (src/sim/config3d.c, docs/config3d.md "Schedules and
 * overlaps"): the overlap mechanisms worked by hand, the knobs through
 * simulate, the micro-batch rule of each Megatron-LM version, the text
 * round trip and the export. */
#include "test.h"

#include "dnnpar.h"
#include "sim/config3d_int.h"

#include "config3d_sim.h"

#include <math.h>
#include <string.h>

/* simulate cfg_text of model on cluster at batch (fp16, Adam) under
 * Megatron-LM version ver; the error into *e */
static int sim(const char *model, const char *cluster, int64_t batch, const char *cfg_text,
               int ver, dnp_config3d_result *res, dnp_error *e)
{
    dnp_plan_options opt = {.megatron_version = ver};
    return c3_sim(model, cluster, batch, cfg_text, opt, res, e);
}

/* The SM share of a collective: 16 of the A100's 108 SMs, 108 / 92; an
 * unknown SM count, no slow-down.  A GEMM beside a collective: inside it
 * when c >= g k, else g + c (1 - 1/k). */
TEST(config3d_overlap_contention_by_hand)
{
    CHECK_NEAR(c3_comm_slowdown(108), 108.0 / 92.0, 0.0, 1e-15);
    CHECK_NEAR(c3_comm_slowdown(0), 1.0, 0.0, 0.0);
    CHECK_NEAR(c3_beside_s(2.0, 1.0, 1.0), 2.0, 0.0, 0.0);   /* k 1: max(g, c) */
    CHECK_NEAR(c3_beside_s(2.0, 3.0, 1.0), 3.0, 0.0, 0.0);
    CHECK_NEAR(c3_beside_s(2.0, 1.0, 1.25), 2.2, 0.0, 1e-15); /* 2 + 1 x 0.2 */
    CHECK_NEAR(c3_beside_s(2.0, 3.0, 1.25), 3.0, 0.0, 0.0);   /* 3 >= 2.5: inside */
}

/* Transformer Engine's three overlaps worked by hand:
 * ring exchange, g 8 s on t 4 ranks: 2 + 3 max(2, c / 3): with c 3 the
 * all-gather is wholly hidden (8 s), with c 9 3 s of it stay (11 s);
 * pipeline, 4 chunks, g 8, c 4, k 1: 2 + 3 max(2, 1) + 1 = 9 (the last
 * chunk's reduce-scatter exposed); at k 108/92: each middle chunk
 * 2 + 1 x 16/108, 9.444... s; bulk, g 8 beside c 4 at k 108/92:
 * 8 + 4 x 16/108 = 8.592... s. */
TEST(config3d_tp_overlap_by_hand)
{
    CHECK_NEAR(c3_tp_ring_s(8.0, 3.0, 4), 8.0, 0.0, 1e-15);
    CHECK_NEAR(c3_tp_ring_s(8.0, 9.0, 4), 11.0, 0.0, 1e-15);
    CHECK_NEAR(c3_tp_pipe_s(8.0, 4.0, 1.0), 9.0, 0.0, 1e-15);
    const double k = 108.0 / 92.0;
    CHECK_NEAR(c3_tp_pipe_s(8.0, 4.0, k), 2.0 + 3.0 * (2.0 + 16.0 / 108.0) + 1.0, 0.0, 1e-12);
    CHECK_NEAR(c3_tp_bulk_s(8.0, 4.0, k), 8.0 + 4.0 * 16.0 / 108.0, 0.0, 1e-12);
    /* never above the GEMM and the collective one after the other */
    for (double c = 0.5; c < 40.0; c *= 2.0) {
        CHECK(c3_tp_ring_s(8.0, c, 8) <= 8.0 + c + 1e-12);
        CHECK(c3_tp_pipe_s(8.0, c, k) <= 8.0 + c + 1e-12);
        CHECK(c3_tp_bulk_s(8.0, c, k) <= 8.0 + c + 1e-12);
    }
}

/* Megatron-LM's bucketed gradient reduction by hand: 100 parameters in
 * buckets of 25 (ready at 1/4, 1/2, 3/4 and the end of the backward), one
 * collective of 1 s per bucket.
 * A 10 s backward, no contention: the buckets reduce in [2.5, 3.5],
 * [5, 6], [7.5, 8.5], [10, 11]: all hidden but the last bucket, 1 s after
 * the backward, no stretch.
 * The same at k 1.25: compute reaches 2.5 at 2.5; beside bucket 1 it does
 * 0.8 s of work by 3.5, then 1.7 s alone: bucket 2 at 5.2, likewise 7.9,
 * 10.6; the last ends 11.6: 1 s exposed, the backward 0.6 s longer.
 * A 2 s backward: ready at 0.5, 1, 1.5, 2; the reductions end at 1.5,
 * 2.5, 3.5, 4.5: 2.5 s of the 4 stay exposed (only part hidden). */
TEST(config3d_grad_overlap_by_hand)
{
    double stretch = -1.0;
    CHECK_NEAR(c3_grad_overlap_s(10.0, 100.0, 25.0, 1.0, 1.0, 1.0, &stretch), 1.0, 0.0, 1e-12);
    CHECK_NEAR(stretch, 0.0, 0.0, 1e-12);
    CHECK_NEAR(c3_grad_overlap_s(10.0, 100.0, 25.0, 1.0, 1.0, 1.25, &stretch), 1.0, 0.0, 1e-12);
    CHECK_NEAR(stretch, 0.6, 0.0, 1e-12);
    CHECK_NEAR(c3_grad_overlap_s(2.0, 100.0, 25.0, 1.0, 1.0, 1.0, &stretch), 2.5, 0.0, 1e-12);
    CHECK_NEAR(stretch, 0.0, 0.0, 1e-12);
    /* one bucket (a model under 40M parameters): nothing to hide */
    CHECK_NEAR(c3_grad_overlap_s(10.0, 30.0, 40.0, 3.0, 3.0, 1.0, &stretch), 3.0, 0.0, 1e-12);
    /* a last bucket of the rest: 90 in buckets of 40 (40, 40, 10), the
     * last taking 0.25 s: ready at 4.44.., 8.88.., 10 s */
    CHECK_NEAR(c3_grad_overlap_s(10.0, 90.0, 40.0, 1.0, 0.25, 1.0, &stretch), 0.25, 0.0, 1e-12);
}

/* The overlapped parameter all-gather by hand: 100 parameters in buckets
 * of 25, 1 s each, a 4 s forward (1 s per bucket's layers), no
 * contention.  Starting with the step, the forward waits 1 s for bucket 1
 * and then each next bucket arrives as the previous one's layers finish:
 * 1 s late.  Starting 1 s after the step (a later pipeline stage), wholly
 * hidden.  With 2 s per bucket every piece waits: 2 + 2 + 2 + 2 + 1 = 9,
 * 5 s late. */
TEST(config3d_param_overlap_by_hand)
{
    CHECK_NEAR(c3_param_overlap_s(4.0, 0.0, 100.0, 25.0, 1.0, 1.0, 1.0), 1.0, 0.0, 1e-12);
    CHECK_NEAR(c3_param_overlap_s(4.0, 1.0, 100.0, 25.0, 1.0, 1.0, 1.0), 0.0, 0.0, 1e-12);
    CHECK_NEAR(c3_param_overlap_s(4.0, 0.0, 100.0, 25.0, 2.0, 2.0, 1.0), 5.0, 0.0, 1e-12);
}

#define GPT_1B "gpt(hidden=2048,heads=16,layers=24,seq=1024)"
#define GPT_S "gpt(hidden=512,heads=8,layers=8,seq=512,vocab=1000)"

/* The overlaps through simulate: on 16 A100 in data parallelism a 1.3B
 * GPT's gradients fill 31 buckets of 40M parameters, so overlap_grad hides
 * most of the reduction behind the backward (the step is shorter by what
 * it hides net of the slower compute, and the exposed sync is at least the
 * last bucket's); a small GPT has one bucket and gains nothing.  With
 * ZeRO-1 overlap_param also moves the all-gather into the forward. */
TEST(config3d_overlap_grad_simulated)
{
    dnp_config3d_result off, on, z1, z1g, z1gp, s_off, s_on;
    CHECK_EQ_INT(sim(GPT_1B, "2xdgx-a100", 32, "tp=1,pp=1,dp=16", 0, &off, NULL), DNP_OK);
    CHECK_EQ_INT(sim(GPT_1B, "2xdgx-a100", 32, "tp=1,pp=1,dp=16,overlap_grad=1", 0, &on, NULL),
                 DNP_OK);
    CHECK(on.dp_hidden_s > 0.0 && on.dp_comm_s < off.dp_comm_s);
    /* the step shrinks by exactly what the overlap hides, net (pp 1: the
     * rank's stream is the step) */
    CHECK_NEAR(off.step_time_s - on.step_time_s, on.dp_hidden_s, 0.0, 1e-12);
    CHECK_NEAR(off.dp_hidden_s, 0.0, 0.0, 0.0);
    CHECK_EQ_INT(sim(GPT_1B, "2xdgx-a100", 32, "tp=1,pp=1,dp=16,zero=1", 0, &z1, NULL), DNP_OK);
    CHECK_EQ_INT(sim(GPT_1B, "2xdgx-a100", 32, "tp=1,pp=1,dp=16,zero=1,overlap_grad=1", 0, &z1g,
                     NULL),
                 DNP_OK);
    CHECK_EQ_INT(sim(GPT_1B, "2xdgx-a100", 32,
                     "tp=1,pp=1,dp=16,zero=1,overlap_grad=1,overlap_param=1", 0, &z1gp, NULL),
                 DNP_OK);
    CHECK(z1g.step_time_s < z1.step_time_s && z1gp.step_time_s < z1g.step_time_s);
    CHECK(z1gp.dp_comm_s < z1g.dp_comm_s);
    /* memory is unchanged by the overlaps */
    CHECK_NEAR(z1gp.mem_bytes, z1.mem_bytes, 0.0, 0.0);
    /* one bucket: the whole reduction is the last bucket, nothing hidden */
    CHECK_EQ_INT(sim(GPT_S, "2xdgx-a100", 32, "tp=1,pp=1,dp=16", 0, &s_off, NULL), DNP_OK);
    CHECK_EQ_INT(sim(GPT_S, "2xdgx-a100", 32, "tp=1,pp=1,dp=16,overlap_grad=1", 0, &s_on, NULL),
                 DNP_OK);
    CHECK_NEAR(s_on.step_time_s, s_off.step_time_s, 0.0, 0.0);
    CHECK_NEAR(s_on.dp_hidden_s, 0.0, 0.0, 0.0);
}

/* tp_overlap: the same layers with the collectives pipelined behind their
 * GEMMs; the step is never longer and the collectives' total stays (what
 * is hidden is reported apart); Megatron-LM's prerequisites refused. */
TEST(config3d_tp_overlap_simulated)
{
    dnp_config3d_result off, on;
    dnp_error e;
    CHECK_EQ_INT(sim(GPT_1B, "2xdgx-a100", 32, "tp=8,pp=1,dp=2,seq_par=1", 0, &off, NULL),
                 DNP_OK);
    CHECK_EQ_INT(sim(GPT_1B, "2xdgx-a100", 32, "tp=8,pp=1,dp=2,seq_par=1,tp_overlap=1", 0, &on,
                     NULL),
                 DNP_OK);
    CHECK(on.step_time_s < off.step_time_s);
    CHECK_NEAR(on.tp_comm_s, off.tp_comm_s, 0.0, 0.0);
    CHECK(on.tp_hidden_s > 0.0 && on.tp_hidden_s <= on.tp_comm_s);
    CHECK_NEAR(off.step_time_s - on.step_time_s, on.tp_hidden_s, 0.0, 1e-9);
    CHECK_EQ_INT(sim(GPT_1B, "2xdgx-a100", 32, "tp=8,pp=1,dp=2,tp_overlap=1", 0, &on, &e),
                 DNP_ERR_INPUT);
    CHECK(strstr(e.msg, "tp_overlap needs tp >= 2 and seq_par=1") != NULL);
    CHECK_EQ_INT(sim(GPT_1B, "2xdgx-a100", 32, "tp=1,pp=1,dp=16,overlap_param=1,zero=1", 0, &on,
                     &e),
                 DNP_ERR_INPUT);
    CHECK(strstr(e.msg, "overlap_param needs zero=1") != NULL);
    CHECK_EQ_INT(sim(GPT_1B, "2xdgx-a100", 32, "tp=1,pp=1,dp=16,overlap_grad=1,zero=2", 0, &on,
                     &e),
                 DNP_ERR_INPUT);
    CHECK(strstr(e.msg, "overlap_grad applies to zero=0 or 1") != NULL);
}

/* The interleaved schedule's micro-batch rule by version: 12 micro-batches
 * on 4 stages... are a multiple; 10 are not: core_r0.9 refuses them, the
 * current Megatron-LM takes them in one group of 10 (vp_group=10: 4 <= 10
 * <= 10, 10 mod 10 = 0) but not in groups of 6 (10 mod 6 = 4 >= 4: yes) or
 * 7 (10 mod 7 = 3 < 4: no).  vp_group = pp with m a multiple of pp is the
 * default schedule exactly. */
TEST(config3d_vp_group_rule)
{
    const char *m = "gpt(hidden=512,heads=8,layers=8,seq=512,vocab=1000)";
    dnp_config3d_result a, b;
    dnp_error e;
    /* batch 10 on dp 2: 5 micro-batches... use dp 1 via tp 4 x pp 4 */
    CHECK_EQ_INT(sim(m, "2xdgx-a100", 10, "tp=4,pp=4,interleave=2", 0, &a, &e), DNP_ERR_INPUT);
    CHECK(strstr(e.msg, "a multiple of pp") != NULL);
    CHECK_EQ_INT(sim(m, "2xdgx-a100", 10, "tp=4,pp=4,interleave=2,vp_group=10", 0, &a, &e),
                 DNP_OK);
    CHECK_EQ_INT(sim(m, "2xdgx-a100", 10, "tp=4,pp=4,interleave=2,vp_group=6", 0, &b, &e),
                 DNP_OK);
    CHECK_EQ_INT(sim(m, "2xdgx-a100", 10, "tp=4,pp=4,interleave=2,vp_group=7", 0, &b, &e),
                 DNP_ERR_INPUT);
    CHECK(strstr(e.msg, "vp_group 7 needs pp 4 <= vp_group") != NULL);
    CHECK_EQ_INT(sim(m, "2xdgx-a100", 10, "tp=4,pp=4,interleave=2,vp_group=10",
                     DNP_MEGATRON_LEGACY, &b, &e),
                 DNP_ERR_INPUT);
    CHECK(strstr(e.msg, "core_r0.9") != NULL);
    /* more micro-batches in flight with a larger group: more activation memory */
    CHECK_EQ_INT(sim(m, "2xdgx-a100", 12, "tp=4,pp=4,interleave=2", 0, &a, &e), DNP_OK);
    CHECK_EQ_INT(sim(m, "2xdgx-a100", 12, "tp=4,pp=4,interleave=2,vp_group=4", 0, &b, &e),
                 DNP_OK);
    CHECK_NEAR(b.step_time_s, a.step_time_s, 0.0, 0.0);
    CHECK_EQ_INT(sim(m, "2xdgx-a100", 12, "tp=4,pp=4,interleave=2,vp_group=12", 0, &b, &e),
                 DNP_OK);
    CHECK(b.mem_activation_bytes > a.mem_activation_bytes);
}

/* dnp_config3d_format writes what dnp_config3d_parse reads back. */
TEST(config3d_format_round_trips)
{
    static const char *const texts[] = {
        "tp=1,pp=1,dp=1",
        "tp=8,pp=8,dp=16,interleave=3,recompute=selective,seq_par=1,zero=1,overlap_grad=1,"
        "overlap_param=1,tp_overlap=1,vp_group=12",
        "tp=2,pp=4,dp=2,microbatch=4,recompute=full,schedule=gpipe,layers=0:3:3:2,"
        "grad_dtype=fp32"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        dnp_config3d c, back;
        dnp_error e = {0};
        char buf[512];
        CHECK_EQ_INT(dnp_config3d_parse(texts[i], &c, &e), DNP_OK);
        size_t need = dnp_config3d_format(&c, buf, sizeof buf);
        CHECK_EQ_INT((long long)need, (long long)strlen(texts[i]));
        CHECK_STR(buf, texts[i]);
        CHECK_EQ_INT(dnp_config3d_parse(buf, &back, &e), DNP_OK);
        CHECK(memcmp(&c, &back, sizeof c) == 0);
        /* truncated: NUL-terminated, the length it needed */
        char small[8];
        CHECK_EQ_INT((long long)dnp_config3d_format(&c, small, sizeof small), (long long)need);
        CHECK_EQ_INT((long long)strlen(small), 7);
    }
}

/* The Megatron-LM export turns each knob on with its prerequisites. */
TEST(config3d_overlap_export)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_config3d c;
    dnp_error e = {0};
    char *text = NULL;
    CHECK_EQ_INT(dnp_model_load(GPT_S, &g, &e), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("2xdgx-a100", &cl, &e), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_parse("tp=2,pp=4,dp=2,interleave=2,seq_par=1,zero=1,overlap_grad=1,"
                                    "overlap_param=1,tp_overlap=1,vp_group=6",
                                    &c, &e),
                 DNP_OK);
    if (g == NULL)
        return;
    CHECK_EQ_INT(dnp_megatron_args(g, &cl, 24, DNP_PREC_BF16, &c, &text, &e), DNP_OK);
    if (text != NULL) {
        static const char *const want[] = {
            "--sequence-parallel\n--tp-comm-overlap\n", "--use-distributed-optimizer\n"
            "--overlap-grad-reduce\n--overlap-param-gather\n",
            "--microbatch-group-size-per-virtual-pipeline-stage 6\n"};
        for (size_t i = 0; i < sizeof want / sizeof *want; i++)
            CHECK(strstr(text, want[i]) != NULL);
    }
    dnp_free(text);
    dnp_graph_free(g);
}

/* The stats of a search stay small enough for every caller's stack: the
 * Pareto front holds compact records. */
TEST(config3d_stats_compact)
{
    CHECK(sizeof(dnp_config3d_stats) < 32 * 1024);
    CHECK(sizeof(dnp_config3d_point) < 160);
}
