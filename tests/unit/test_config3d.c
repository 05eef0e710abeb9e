/* test_config3d.c - Megatron-LM configurations in the step simulator
 * (src/sim/config3d.c): errors, the pipeline bubble of 1F1B against
 * Narayanan et al.'s (p - 1) / (m + p - 1), interleaving, recompute and
 * memory orderings, determinism. */
#include "test.h"

#include "dnnpar.h"

static int run(const char *model, const char *cluster, int64_t batch, const char *cfg_text,
               dnp_config3d_result *res)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_config3d cfg;
    dnp_error err = {0};
    int st = dnp_model_load(model, &g, &err);
    if (st == DNP_OK)
        st = dnp_cluster_parse(cluster, &cl, &err);
    if (st == DNP_OK)
        st = dnp_config3d_parse(cfg_text, &cfg, &err);
    if (st == DNP_OK) {
        dnp_plan_options opt = {.batch = batch, .precision = DNP_PREC_FP16,
                                .optimizer = DNP_OPTIM_ADAM};
        st = dnp_config3d_simulate(g, &cl, batch, &opt, &cfg, res, &err);
    }
    dnp_graph_free(g);
    return st;
}

#define GPT "gpt(hidden=1024,heads=16,layers=16,seq=1024)"
/* a small vocabulary keeps the first and last stages close to the others */
#define GPT_V64 "gpt(hidden=1024,heads=16,layers=16,seq=1024,vocab=64)"

TEST(config3d_errors)
{
    dnp_config3d_result r;
    dnp_config3d c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_config3d_parse("tp=8,pp=2,recompute=selective,seq_par=1", &c, &err), DNP_OK);
    CHECK(c.tp == 8 && c.pp == 2 && c.dp == 1 && c.recompute == DNP_RECOMPUTE_SELECTIVE &&
          c.seq_par == 1 && c.interleave == 1 && c.microbatch == 1);
    static const char *const bad[] = {"tp=0", "tp=x", "pp", "recompute=some", "seq_par=2",
                                      "bogus=1", "tp=8,,pp=2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dnp_error e = {0};
        CHECK_EQ_INT(dnp_config3d_parse(bad[i], &c, &e), DNP_ERR_INPUT);
        CHECK(e.msg[0] != '\0');
    }
    CHECK_EQ_INT(run(GPT, "8xa100", 8, "tp=4", &r), DNP_ERR_INPUT);           /* 4 != 8 */
    CHECK_EQ_INT(run(GPT, "8xa100", 8, "tp=2,pp=3,dp=1", &r), DNP_ERR_INPUT); /* 6 != 8 */
    CHECK_EQ_INT(run(GPT, "6xa100", 8, "pp=6", &r), DNP_ERR_INPUT);           /* 16 % 6 */
    CHECK_EQ_INT(run(GPT, "4xa100", 6, "pp=4,microbatch=4", &r), DNP_ERR_INPUT);
    CHECK_EQ_INT(run(GPT, "4xa100", 8, "pp=4,interleave=2,microbatch=4", &r), DNP_ERR_INPUT);
    CHECK_EQ_INT(run("resnet18", "4xa100", 8, "tp=4", &r), DNP_ERR_INPUT);
    CHECK_EQ_INT(run(GPT, "2xa100+2xv100", 8, "tp=4", &r), DNP_ERR_INPUT);
}

TEST(config3d_pipeline_bubble)
{
    dnp_config3d_result few, many, inter, again;
    CHECK_EQ_INT(run(GPT_V64, "1xdgx-a100", 8, "pp=8", &few), DNP_OK);
    CHECK_EQ_INT(run(GPT_V64, "1xdgx-a100", 128, "pp=8", &many), DNP_OK);
    CHECK_EQ_INT(run(GPT_V64, "1xdgx-a100", 128, "pp=8,interleave=2", &inter), DNP_OK);
    CHECK_EQ_INT(run(GPT_V64, "1xdgx-a100", 128, "pp=8", &again), DNP_OK);
    CHECK(many.step_time_s == again.step_time_s && many.bubble_s == again.bubble_s);
    CHECK_EQ_INT(few.microbatches, 8);
    CHECK_EQ_INT(many.microbatches, 128);
    /* 1F1B idles (p - 1) / (m + p - 1) of the step on every rank, up to the
     * uneven first and last stages (embedding, output layer) and the
     * messages: 7/15 and 7/135 */
    double f_few = few.bubble_s / few.step_time_s, f_many = many.bubble_s / many.step_time_s;
    CHECK(f_few > 0.7 * 7.0 / 15.0 && f_few < 1.3 * 7.0 / 15.0);
    CHECK(f_many > 0.5 * 7.0 / 135.0 && f_many < 2.0 * 7.0 / 135.0);
    /* interleaving v chunks cuts the bubble about v times */
    CHECK(inter.bubble_s < 0.75 * many.bubble_s);
    CHECK(many.mfu > 0.0 && many.mfu < 1.0);
}

TEST(config3d_recompute_and_memory)
{
    dnp_config3d_result none, sel, full, sp;
    CHECK_EQ_INT(run(GPT, "1xdgx-a100", 8, "tp=8,microbatch=8", &none), DNP_OK);
    CHECK_EQ_INT(run(GPT, "1xdgx-a100", 8, "tp=8,microbatch=8,recompute=selective", &sel), DNP_OK);
    CHECK_EQ_INT(run(GPT, "1xdgx-a100", 8, "tp=8,microbatch=8,recompute=full", &full), DNP_OK);
    CHECK_EQ_INT(run(GPT, "1xdgx-a100", 8, "tp=8,microbatch=8,recompute=selective,seq_par=1",
                     &sp),
                 DNP_OK);
    CHECK(none.step_time_s < sel.step_time_s && sel.step_time_s < full.step_time_s);
    /* full recompute runs the forward again, which is at most half of a
     * step (a backward costs at least its forward) */
    CHECK(full.step_time_s - none.step_time_s < 0.5 * none.step_time_s);
    CHECK(none.mem_activation_bytes > sel.mem_activation_bytes &&
          sel.mem_activation_bytes > sp.mem_activation_bytes &&
          sp.mem_activation_bytes > full.mem_activation_bytes);
    /* Korthikanti Table 2 with t = 8, b = 8, s = 1024, h = 1024, a = 16,
     * 16 layers, one micro-batch in flight:
     *   full recompute 2 sbh per layer; selective + sequence parallel 34 sbh / t */
    double sbh = 8.0 * 1024 * 1024;
    CHECK_NEAR(full.mem_activation_bytes, 16 * 2.0 * sbh, 1e-12, 0.0);
    CHECK_NEAR(sp.mem_activation_bytes, 16 * 34.0 * sbh / 8, 1e-12, 0.0);
    CHECK_NEAR(none.model_flop, full.model_flop, 1e-12, 0.0); /* recompute is not model work */
}

/* The search's branch and bound against simulating every configuration of
 * its space that fits: the same fastest step. */
TEST(config3d_search_is_exact)
{
    const char *model = "gpt(hidden=512,heads=8,layers=8,seq=512,vocab=1000)";
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load(model, &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("2xdgx-a100", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 32, .precision = DNP_PREC_BF16, .optimizer = DNP_OPTIM_ADAM,
                            .memory_limit_bytes = 2e9};
    dnp_config3d best;
    dnp_config3d_result res;
    dnp_config3d_stats stats;
    CHECK_EQ_INT(dnp_config3d_search(g, &cl, 32, &opt, &best, &res, &stats, &err), DNP_OK);
    CHECK(stats.simulated < stats.fitting); /* the bound pruned something */
    double min_s = INFINITY;
    int fitting = 0;
    for (int t = 1; t <= 8; t *= 2)
        for (int p = 1; p <= 8; p++)
            for (int mb = 1; mb <= 32; mb *= 2)
                for (int v = 1; v <= 8; v++)
                    for (int rc = 0; rc < DNP_RECOMPUTE_COUNT; rc++)
                        for (int sp = 0; sp <= (t > 1); sp++) {
                            if (16 % (t * p) != 0)
                                continue;
                            dnp_config3d c = {t, p, 16 / (t * p), mb, v, (dnp_recompute)rc, sp};
                            dnp_config3d_result r;
                            dnp_error e = {0};
                            if (dnp_config3d_simulate(g, &cl, 32, &opt, &c, &r, &e) != DNP_OK ||
                                !r.fits)
                                continue;
                            fitting++;
                            min_s = r.step_time_s < min_s ? r.step_time_s : min_s;
                        }
    CHECK_EQ_INT(stats.fitting, fitting);
    CHECK_NEAR(res.step_time_s, min_s, 0.0, 0.0);
    /* nothing fits in 1 MB: an error naming the smallest footprint */
    opt.memory_limit_bytes = 1e6;
    CHECK_EQ_INT(dnp_config3d_search(g, &cl, 32, &opt, &best, &res, &stats, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "smallest needs") != NULL);
    dnp_graph_free(g);
}
