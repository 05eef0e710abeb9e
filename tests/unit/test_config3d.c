/* test_config3d.c - Megatron-LM configurations in the step simulator
 * (src/sim/config3d.c): errors, the pipeline bubble of 1F1B against
 * Narayanan et al.'s (p - 1) / (m + p - 1), interleaving, recompute and
 * memory orderings, determinism. */
#include "test.h"

#include "dnnpar.h"
#include "search/config3d_search.h"

#include "config3d_sim.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

static int run(const char *model, const char *cluster, int64_t batch, const char *cfg_text,
               dnp_config3d_result *res)
{
    return c3_sim(model, cluster, batch, cfg_text, (dnp_plan_options){0}, res, NULL);
}

/* run() with the node rule lifted (across) or memory not enforced (keep);
 * the error into *e when e is not NULL */
static int run_opt(const char *model, const char *cluster, int64_t batch, const char *cfg_text,
                   int across, int keep, dnp_config3d_result *res, dnp_error *e)
{
    dnp_plan_options opt = {.tp_across_nodes = across, .keep_over_memory = keep};
    return c3_sim(model, cluster, batch, cfg_text, opt, res, e);
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
    /* a tensor-parallel group over both types of bare devices spans nodes:
     * refused unless allowed, then it runs (at the v100s' pace) */
    CHECK_EQ_INT(run(GPT, "2xa100+2xv100", 8, "tp=4", &r), DNP_ERR_INPUT);
    CHECK_EQ_INT(run_opt(GPT, "2xa100+2xv100", 8, "tp=4", 1, 0, &r, NULL), DNP_OK);
}

/* dnp_config3d_check: one rule per case, each message naming the rule and
 * its figures; _simulate and _trace refuse with the same message. */
TEST(config3d_check_rules)
{
    static const struct {
        const char *model, *cluster, *cfg;
        int64_t batch;
        const char *says;
    } bad[] = {
        /* 12 heads, tp 8 inside one DGX A100 */
        {"gpt2", "1xdgx-a100", "tp=8", 8, "12 attention heads, not a multiple of tp"},
        {"gpt2", "1xdgx-a100", "tp=4,dp=2", 8, NULL}, /* fine */
        /* 2 key-value heads over tp 4 */
        {"llama(hidden=512,heads=8,layers=2,seq=256,kv_heads=2)", "1xdgx-a100", "tp=4,dp=2", 8,
         "2 key-value heads"},
        /* an MLP of 1020 over tp 8 */
        {"gpt(hidden=512,heads=8,layers=2,seq=256,ffn=1020)", "1xdgx-a100", "tp=8", 8,
         "MLP hidden size"},
        /* sequence parallelism over a sequence of 100 tokens at tp 8 */
        {"gpt(hidden=512,heads=8,layers=2,seq=100)", "1xdgx-a100", "tp=8,seq_par=1", 8,
         "sequence of 100 tokens"},
        {"gpt(hidden=512,heads=8,layers=2,seq=100)", "1xdgx-a100", "tp=8", 8, NULL},
        /* tp 8 over DGX-1 nodes of 8 but 4 devices of a type */
        {"gpt(hidden=512,heads=8,layers=2,seq=256)", "1xdgx-a100+4xv100", "tp=4,dp=3", 12,
         "would span nodes"},
        /* layers that do not divide, a list that does not sum */
        {"gpt(hidden=512,heads=8,layers=6,seq=256)", "4xa100", "pp=4", 8, "6 layers must divide"},
        {"gpt(hidden=512,heads=8,layers=6,seq=256)", "4xa100", "pp=4,layers=1:2:2:2", 8,
         "sums to 7"},
        /* a batch that does not divide into micro-batches */
        {"gpt(hidden=512,heads=8,layers=6,seq=256)", "4xa100", "dp=4,microbatch=3", 8,
         "not a multiple of dp 4 x microbatch 3"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dnp_graph *g = NULL;
        dnp_cluster cl;
        dnp_config3d cfg;
        dnp_error e1 = {0}, e2 = {0}, e3 = {0};
        CHECK_EQ_INT(dnp_model_load(bad[i].model, &g, &e1), DNP_OK);
        CHECK_EQ_INT(dnp_cluster_parse(bad[i].cluster, &cl, &e1), DNP_OK);
        CHECK_EQ_INT(dnp_config3d_parse(bad[i].cfg, &cfg, &e1), DNP_OK);
        if (g == NULL)
            continue;
        dnp_plan_options opt = {.batch = bad[i].batch, .precision = DNP_PREC_FP16,
                                .optimizer = DNP_OPTIM_ADAM};
        dnp_config3d_result r1, r2;
        char *trace = NULL;
        int s1 = dnp_config3d_check(g, &cl, bad[i].batch, &opt, &cfg, &r1, &e1);
        int s2 = dnp_config3d_simulate(g, &cl, bad[i].batch, &opt, &cfg, &r2, &e2);
        int s3 = dnp_config3d_trace(g, &cl, bad[i].batch, &opt, &cfg, &trace, &e3);
        dnp_free(trace);
        CHECK_EQ_INT(s1, bad[i].says == NULL ? DNP_OK : DNP_ERR_INPUT);
        CHECK_EQ_INT(s2, s1);
        CHECK_EQ_INT(s3, s1);
        if (bad[i].says != NULL) {
            if (strstr(e1.msg, bad[i].says) == NULL)
                printf("  case %zu: '%s'\n", i, e1.msg);
            CHECK(strstr(e1.msg, bad[i].says) != NULL);
            CHECK_STR(e2.msg, e1.msg);
            CHECK_STR(e3.msg, e1.msg);
        }
        dnp_graph_free(g);
    }
    /* bare devices are one per node: tp 2 is allowed only across nodes */
    dnp_config3d_result r;
    dnp_error e = {0};
    CHECK_EQ_INT(run_opt(GPT, "2xa100", 8, "tp=2", 0, 0, &r, &e), DNP_ERR_INPUT);
    CHECK(strstr(e.msg, "no node preset") != NULL || strstr(e.msg, "one device per node"));
    CHECK(strstr(e.msg, "--tp-across-nodes") != NULL);
    CHECK_EQ_INT(run_opt(GPT, "2xa100", 8, "tp=2", 1, 0, &r, NULL), DNP_OK);
    /* memory: refused naming the stage and the figures, unless kept */
    dnp_error em = {0};
    CHECK_EQ_INT(run_opt("gpt2-xl", "8xtpu-v3", 512, "dp=8,microbatch=64", 0, 0, &r, &em),
                 DNP_ERR_INPUT);
    CHECK(strstr(em.msg, "does not fit: stage 1 of 1 needs") != NULL);
    CHECK_EQ_INT(run_opt("gpt2-xl", "8xtpu-v3", 512, "dp=8,microbatch=64", 0, 1, &r, NULL),
                 DNP_OK);
    CHECK(!r.fits && r.step_time_s > 0.0);
}

/* The search says what narrowed its space, and everything it returns
 * passes dnp_config3d_check. */
TEST(config3d_search_narrowed)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("gpt(hidden=512,heads=8,layers=8,seq=512,vocab=1000)", &g, &err),
                 DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("16xa100", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    for (int across = 0; across <= 1; across++) {
        dnp_plan_options opt = {.batch = 32, .precision = DNP_PREC_BF16,
                                .optimizer = DNP_OPTIM_ADAM, .tp_across_nodes = across};
        dnp_config3d best;
        dnp_config3d_result res, chk;
        dnp_config3d_stats stats;
        CHECK_EQ_INT(dnp_config3d_search(g, &cl, 32, &opt, &best, &res, &stats, &err), DNP_OK);
        CHECK_EQ_INT(dnp_config3d_check(g, &cl, 32, &opt, &best, &chk, &err), DNP_OK);
        int node_line = 0, heads_line = 0;
        for (int i = 0; i < stats.n_narrowed; i++) {
            node_line |= strstr(stats.narrowed[i], "tp 2, 4, 8 left out") != NULL &&
                         strstr(stats.narrowed[i], "span nodes") != NULL;
            heads_line |= strstr(stats.narrowed[i], "tp 16 left out") != NULL &&
                          strstr(stats.narrowed[i], "8 attention heads") != NULL;
        }
        CHECK_EQ_INT(node_line, !across);
        CHECK(across ? heads_line : 1);
        if (!across)
            CHECK_EQ_INT(best.tp, 1);
    }
    dnp_graph_free(g);
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
    /* no recompute, no sequence parallelism: 10 + 24 / t + 5 as / h per sbh,
     * with a s / h = 16 x 1024 / 1024 = 16 */
    CHECK_NEAR(none.mem_activation_bytes, 16 * sbh * (10.0 + 24.0 / 8 + 5.0 * 16 / 8), 1e-12,
               0.0);
    /* the same model without dropout (dropout=0) keeps no masks and no
     * dropout output: 2-byte activations, 4 x 2 replicated + 12 x 2 split
     * per sbh, and the softmax output alone, 2 a s^2 b (docs/config3d.md) */
    dnp_config3d_result nd, nd_sp;
    CHECK_EQ_INT(run("gpt(hidden=1024,heads=16,layers=16,seq=1024,dropout=0)", "1xdgx-a100", 8,
                     "tp=8,microbatch=8", &nd),
                 DNP_OK);
    CHECK_EQ_INT(run("gpt(hidden=1024,heads=16,layers=16,seq=1024,dropout=0)", "1xdgx-a100", 8,
                     "tp=8,microbatch=8,recompute=selective,seq_par=1", &nd_sp),
                 DNP_OK);
    CHECK_NEAR(nd.mem_activation_bytes, 16 * sbh * (8.0 + 24.0 / 8 + 2.0 * 16 / 8), 1e-12, 0.0);
    CHECK_NEAR(nd_sp.mem_activation_bytes, 16 * 32.0 * sbh / 8, 1e-12, 0.0);
    /* and runs faster: four dropout kernels per layer fewer */
    CHECK(nd.step_time_s < none.step_time_s);
    /* a fused (flash) core keeps no s x s tensor, one fp32 log-sum-exp per
     * row of each head instead: 4 a s b bytes = sbh x 4 a / h, split t ways */
    dnp_config3d_result fl;
    CHECK_EQ_INT(run("gpt(hidden=1024,heads=16,layers=16,seq=1024,dropout=0,attention=flash)",
                     "1xdgx-a100", 8, "tp=8,microbatch=8", &fl),
                 DNP_OK);
    CHECK_NEAR(fl.mem_activation_bytes, 16 * sbh * (8.0 + 24.0 / 8 + 4.0 * 16 / 1024 / 8), 1e-12,
               0.0);
    CHECK(fl.step_time_s < nd.step_time_s); /* the scores never go to memory */
    /* grouped-query attention and another MLP width, worked by hand:
     * LLaMA with a = 16 heads, 8 K/V heads, ffn = 2816 (2.75 h), no
     * dropout, flash: split t ways Q (1) + K and V (2 x 8/16) + the
     * projection input (1) + SwiGLU's fused gate-and-up output (2 x 2.75)
     * and the fc2 input (2.75) = 11.25 sbh at 2 bytes, replicated 4 x 2;
     * the flash statistics as above */
    dnp_config3d_result gq;
    CHECK_EQ_INT(run("llama(hidden=1024,heads=16,kv_heads=8,layers=16,seq=1024,ffn=2816)",
                     "1xdgx-a100", 8, "tp=8,microbatch=8", &gq),
                 DNP_OK);
    CHECK_NEAR(gq.mem_activation_bytes,
               16 * sbh * (8.0 + 2.0 * 11.25 / 8 + 4.0 * 16 / 1024 / 8), 1e-12, 0.0);
    /* the same shape as GPT (GeLU: fc1 output and fc2 input, 2 x 2.75):
     * 1 + 1 + 1 + 5.5 = 8.5 sbh */
    dnp_config3d_result gg;
    CHECK_EQ_INT(run("gpt(hidden=1024,heads=16,kv_heads=8,layers=16,seq=1024,ffn=2816,"
                     "dropout=0,attention=flash)",
                     "1xdgx-a100", 8, "tp=8,microbatch=8", &gg),
                 DNP_OK);
    CHECK_NEAR(gg.mem_activation_bytes,
               16 * sbh * (8.0 + 2.0 * 8.5 / 8 + 4.0 * 16 / 1024 / 8), 1e-12, 0.0);
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
    dnp_config3d_stats stats, stats5;
    CHECK_EQ_INT(dnp_config3d_search(g, &cl, 32, &opt, &best, &res, &stats, &err), DNP_OK);
    CHECK(stats.simulated < stats.candidates); /* the bound pruned something */
    /* the five fastest, by the same bound (k-th best) */
    opt.config3d_top = 5;
    dnp_config3d best5;
    dnp_config3d_result res5;
    CHECK_EQ_INT(dnp_config3d_search(g, &cl, 32, &opt, &best5, &res5, &stats5, &err), DNP_OK);
    opt.config3d_top = 0;
    CHECK_EQ_INT(stats.n_top, 1);
    CHECK_EQ_INT(stats5.n_top, 5);
    CHECK(stats5.simulated >= stats.simulated && stats5.simulated < stats5.candidates);
    double all_s[4096];
    int n_all = 0;
    double min_s = INFINITY;
    int fitting = 0;
    for (int t = 1; t <= 8; t *= 2)
        for (int p = 1; p <= 8; p++)
            for (int mb = 1; mb <= 32; mb *= 2)
                for (int v = 1; v <= 8; v++)
                    for (int rc = 0; rc < DNP_RECOMPUTE_COUNT; rc++)
                        for (int sp = 0; sp <= (t > 1); sp++)
                        for (int z = 0; z <= 1; z++)
                        for (int ov = 0; ov <= 2; ov++) {
                            /* ov: overlap_grad off, on, on with overlap_param;
                             * tp_overlap wherever it applies */
                            const int dpn = 16 / (t * p);
                            if (16 % (t * p) != 0 || (z == 1 && dpn == 1) ||
                                (ov > 0 && dpn == 1) || (ov == 2 && z != 1))
                                continue;
                            dnp_config3d c = {.tp = t, .pp = p, .dp = dpn, .microbatch = mb,
                                              .interleave = v, .recompute = (dnp_recompute)rc,
                                              .seq_par = sp, .zero = z,
                                              .overlap_grad = ov >= 1, .overlap_param = ov == 2,
                                              .tp_overlap = sp};
                            /* Megatron-LM's micro-batch groups (current
                             * version): the smallest group when m is not a
                             * multiple of pp */
                            const int m = 32 / (dpn * mb);
                            if (v > 1 && 32 % (dpn * mb) == 0 && m % p != 0)
                                for (int n = p + 1; n <= m && c.vp_group == 0; n++)
                                    if (m % n == 0 || m % n >= p)
                                        c.vp_group = n;
                            dnp_config3d_result r;
                            dnp_error e = {0};
                            if (v == 1) {
                                /* 1F1B candidates carry the balanced layers per stage */
                                c3_ctx x;
                                int layers[DNP_CONFIG3D_MAX_STAGES];
                                c.n_stage_layers = p;
                                for (int s = 0; s < p; s++)
                                    c.stage_layers[s] = 1;
                                if (c3_prepare(g, &cl, 32, &opt, &c, NULL, &x, &e) != DNP_OK)
                                    continue;
                                c3_balance(&x, layers);
                                for (int s = 0; s < p; s++)
                                    c.stage_layers[s] = layers[s];
                            } else if (8 % p != 0) {
                                continue;
                            }
                            if (dnp_config3d_simulate(g, &cl, 32, &opt, &c, &r, &e) != DNP_OK ||
                                !r.fits)
                                continue;
                            if (sp) { /* tp_overlap off is never faster */
                                dnp_config3d_result r0;
                                c.tp_overlap = 0;
                                CHECK_EQ_INT(dnp_config3d_simulate(g, &cl, 32, &opt, &c, &r0, &e),
                                             DNP_OK);
                                CHECK(r0.step_time_s >= r.step_time_s);
                            }
                            fitting++;
                            min_s = r.step_time_s < min_s ? r.step_time_s : min_s;
                            if (n_all < 4096)
                                all_s[n_all++] = r.step_time_s;
                        }
    /* the search weighs only what its compute floor cannot rule out
     * (test_config3d_prune.c); the unpruned search weighs everything */
    dnp_config3d_stats stats_all;
    dnp_config3d best_all;
    dnp_config3d_result res_all;
    CHECK_EQ_INT(c3_search_unpruned(g, &cl, 32, &opt, &best_all, &res_all, &stats_all, &err),
                 DNP_OK);
    CHECK_EQ_INT(stats_all.fitting, fitting);
    CHECK(stats.fitting <= fitting && stats.weighed <= stats.candidates);
    CHECK_NEAR(res_all.step_time_s, min_s, 0.0, 0.0);
    CHECK_NEAR(res.step_time_s, min_s, 0.0, 0.0);
    CHECK_NEAR(stats.top[0].step_time_s, min_s, 0.0, 0.0);
    CHECK(n_all < 4096);
    /* the five smallest of the enumeration, in order */
    for (int i = 0; i < 5 && i < n_all; i++) {
        int m = i;
        for (int j = i + 1; j < n_all; j++)
            m = all_s[j] < all_s[m] ? j : m;
        double t = all_s[i];
        all_s[i] = all_s[m];
        all_s[m] = t;
        CHECK_NEAR(stats5.top[i].step_time_s, all_s[i], 0.0, 0.0);
    }
    /* nothing fits in 1 MB: an error naming the smallest footprint */
    opt.memory_limit_bytes = 1e6;
    CHECK_EQ_INT(dnp_config3d_search(g, &cl, 32, &opt, &best, &res, &stats, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "smallest needs") != NULL);
    dnp_graph_free(g);
}

TEST(config3d_parse_layers)
{
    dnp_config3d c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_config3d_parse("pp=3,layers=5:6:5", &c, &err), DNP_OK);
    CHECK(c.n_stage_layers == 3 && c.stage_layers[0] == 5 && c.stage_layers[1] == 6 &&
          c.stage_layers[2] == 5);
    static const char *const bad[] = {"layers=", "layers=3::4", "layers=-1:4", "layers=4:x",
                                      "layers=4:"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dnp_error e = {0};
        CHECK_EQ_INT(dnp_config3d_parse(bad[i], &c, &e), DNP_ERR_INPUT);
        CHECK(strstr(e.msg, "layers") != NULL);
    }
    dnp_config3d_result r;
    /* 16 layers: a list that sums to 15, a list of the wrong length,
     * uneven stages with interleaving */
    CHECK_EQ_INT(run(GPT, "4xa100", 8, "pp=4,layers=4:4:4:3", &r), DNP_ERR_INPUT);
    CHECK_EQ_INT(run(GPT, "4xa100", 8, "pp=4,layers=8:8", &r), DNP_ERR_INPUT);
    CHECK_EQ_INT(run(GPT, "4xa100", 8, "pp=4,interleave=2,layers=4:4:4:4", &r), DNP_ERR_INPUT);
    /* an explicit even list is the even split */
    dnp_config3d_result even, listed;
    CHECK_EQ_INT(run(GPT, "4xa100", 8, "pp=4", &even), DNP_OK);
    CHECK_EQ_INT(run(GPT, "4xa100", 8, "pp=4,layers=4:4:4:4", &listed), DNP_OK);
    CHECK_NEAR(listed.step_time_s, even.step_time_s, 0.0, 0.0);
    CHECK(even.stage_layers[0] == 4 && even.stage_layers[3] == 4);
}

/* Memory per stage: the first stage of 1F1B keeps p micro-batches in
 * flight, the last one; weights: the embedding on the first stage only. */
TEST(config3d_stage_memory)
{
    dnp_config3d_result r;
    /* 4 stages, 8 micro-batches of 1 sequence, full recompute: 2 sbh per
     * layer (Korthikanti Table 2) x 4 layers x 4 in flight on stage 1 */
    CHECK_EQ_INT(run(GPT, "4xa100", 8, "pp=4,recompute=full", &r), DNP_OK);
    double sbh = 1.0 * 1024 * 1024;
    CHECK_EQ_INT(r.mem_stage, 0);
    CHECK_NEAR(r.mem_activation_bytes, 2.0 * sbh * 4 * 4, 1e-12, 0.0);
    /* the weights of stage 1: 4 layers of 12 h^2 + 13 h parameters
     * (gpt block: qkv 3h^2+3h, out h^2+h, fc1 4h^2+4h, fc2 4h^2+h, two layer
     * norms 4h) plus the token and position embeddings (50257 + 1024) h,
     * 20 bytes each under Adam with fp16 (Megatron-LM: fp16 weights and
     * gradients, fp32 master, fp32 gradient copy, two fp32 moments) */
    double h = 1024.0;
    double params = 4 * (12 * h * h + 13 * h) + (50257.0 + 1024.0) * h;
    CHECK_NEAR(r.mem_weights_bytes, params * 20.0, 1e-9, 0.0);
    /* ZeRO over dp 2 (Rajbhandari et al. section 5; Megatron-LM's
     * distributed optimizer table: 4 + 16/d for fp16, 6 + 12/d for bf16):
     * stage 1 4 + 16/2 = 12, stage 2 2 + 18/2 = 11, stage 3 20/2 = 10 */
    dnp_config3d_result z1, z2, z3, gp;
    CHECK_EQ_INT(run(GPT, "8xa100", 8, "pp=4,dp=2,recompute=full,zero=1", &z1), DNP_OK);
    CHECK_EQ_INT(run(GPT, "8xa100", 8, "pp=4,dp=2,recompute=full,zero=2", &z2), DNP_OK);
    CHECK_EQ_INT(run(GPT, "8xa100", 8, "pp=4,dp=2,recompute=full,zero=3", &z3), DNP_OK);
    CHECK_NEAR(z1.mem_weights_bytes, params * 12.0, 1e-9, 0.0);
    CHECK_NEAR(z2.mem_weights_bytes, params * 11.0, 1e-9, 0.0);
    CHECK_NEAR(z3.mem_weights_bytes, params * 10.0, 1e-9, 0.0);
    /* GPipe keeps every micro-batch in flight: 4 per replica at batch 8, dp 2 */
    CHECK_EQ_INT(run(GPT, "8xa100", 8, "pp=4,dp=2,recompute=full,schedule=gpipe", &gp), DNP_OK);
    CHECK_NEAR(gp.mem_activation_bytes, 2.0 * sbh * 4 * 4, 1e-12, 0.0);
    CHECK_EQ_INT(run(GPT, "4xa100", 16, "pp=4,recompute=full,schedule=gpipe", &gp), DNP_OK);
    CHECK_NEAR(gp.mem_activation_bytes, 2.0 * sbh * 4 * 16, 1e-12, 0.0);
}

/* ZeRO's traffic: stage 1 moves the all-reduce's volume as a reduce-
 * scatter and an all-gather, and updates 1/dp of the parameters; stages 2
 * and 3 move theirs layer by layer; GPipe's bubble equals 1F1B's. */
TEST(config3d_zero_and_gpipe)
{
    dnp_config3d_result z0, z1, z3, f1, gp;
    CHECK_EQ_INT(run(GPT_V64, "2xdgx-a100", 64, "tp=8,dp=2,microbatch=4", &z0), DNP_OK);
    CHECK_EQ_INT(run(GPT_V64, "2xdgx-a100", 64, "tp=8,dp=2,microbatch=4,zero=1", &z1), DNP_OK);
    CHECK_EQ_INT(run(GPT_V64, "2xdgx-a100", 64, "tp=8,dp=2,microbatch=4,zero=3", &z3), DNP_OK);
    CHECK(z1.optimizer_s < 0.6 * z0.optimizer_s);
    /* RS + AG of 2-byte gradients and weights: a ring all-reduce's two
     * halves (docs/collectives.md), the same time within the latency terms */
    CHECK_NEAR(z1.dp_comm_s, z0.dp_comm_s, 0.02, 0.0);
    CHECK_NEAR(z3.dp_comm_s, 0.0, 0.0, 0.0);
    CHECK(z3.mem_weights_bytes < z1.mem_weights_bytes);
    CHECK_EQ_INT(run(GPT_V64, "1xdgx-a100", 64, "pp=8", &f1), DNP_OK);
    CHECK_EQ_INT(run(GPT_V64, "1xdgx-a100", 64, "pp=8,schedule=gpipe", &gp), DNP_OK);
    CHECK_NEAR(gp.step_time_s, f1.step_time_s, 0.01, 0.0);
    CHECK(gp.mem_activation_bytes > 4.0 * f1.mem_activation_bytes);
    dnp_config3d c;
    dnp_error e = {0};
    CHECK_EQ_INT(dnp_config3d_parse("zero=4", &c, &e), DNP_ERR_INPUT);
    CHECK_EQ_INT(dnp_config3d_parse("schedule=zb", &c, &e), DNP_ERR_INPUT);
    CHECK_EQ_INT(run(GPT_V64, "1xdgx-a100", 64, "pp=4,dp=2,interleave=2,schedule=gpipe", &gp),
                 DNP_ERR_INPUT);
}

/* Mixed clusters: stages follow the cluster's types; the balanced split
 * gives the faster type more layers, and beats the plan that treats every
 * device as the slowest and the fast devices alone. */
TEST(config3d_mixed_cluster)
{
    dnp_config3d_result r;
    /* 8 a100 then 8 v100: tp 4, dp 2 makes stage 1 the a100s, stage 2 the v100s */
    CHECK_EQ_INT(run(GPT, "1xdgx-a100+1xdgx1", 16, "tp=4,pp=2,dp=2,layers=10:6", &r), DNP_OK);
    CHECK(r.stage_type[0] == 0 && r.stage_type[1] == 1);
    CHECK(r.stage_layers[0] == 10 && r.stage_layers[1] == 6);
    /* a stage spanning both types (tp 4 x dp 4 = 16 ranks: replicas 1-2 on
     * the a100s, 3-4 on the v100s) runs; its memory is checked per type */
    CHECK_EQ_INT(run(GPT, "1xdgx-a100+1xdgx1", 16, "tp=4,pp=1,dp=4", &r), DNP_OK);
    CHECK_EQ_INT(r.stage_types[0], 3);

    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("llama2-13b", &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("4xdgx-a100+4xdgx1", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 512, .precision = DNP_PREC_FP16,
                            .optimizer = DNP_OPTIM_ADAM};
    dnp_config3d best;
    dnp_config3d_result res;
    dnp_config3d_stats stats;
    CHECK_EQ_INT(dnp_config3d_search(g, &cl, 512, &opt, &best, &res, &stats, &err), DNP_OK);
    CHECK(res.fits);
    /* more layers per a100 stage than per v100 stage */
    int a100_layers = 0, v100_layers = 0, a100_stages = 0, v100_stages = 0;
    for (int s = 0; s < best.pp; s++) {
        if (res.stage_type[s] == 0) {
            a100_layers += res.stage_layers[s];
            a100_stages++;
        } else {
            v100_layers += res.stage_layers[s];
            v100_stages++;
        }
    }
    CHECK(a100_stages > 0 && v100_stages > 0);
    CHECK(a100_layers * v100_stages > v100_layers * a100_stages);
    dnp_config3d_baselines base;
    CHECK_EQ_INT(dnp_config3d_mixed_baselines(g, &cl, 512, &opt, &base, &err), DNP_OK);
    CHECK(base.slowest_type == 1 && base.fastest_type == 0);
    CHECK(base.slowest_ok && base.slowest_on_cluster_ok && base.fastest_ok);
    CHECK(res.step_time_s < base.slowest_on_cluster.step_time_s);
    CHECK(res.step_time_s < base.slowest_planned.step_time_s);
    CHECK(res.step_time_s < base.fastest_res.step_time_s);
    /* the restricted spaces are subsets of the full one: never faster;
     * AMP's has no ZeRO, sequence parallelism, interleaving or recompute */
    CHECK(base.amp_ok && base.uniform_ok);
    CHECK(base.amp_res.step_time_s >= res.step_time_s);
    CHECK(base.uniform_res.step_time_s >= res.step_time_s);
    CHECK(base.amp_cfg.zero == 0 && base.amp_cfg.seq_par == 0 && base.amp_cfg.interleave == 1 &&
          base.amp_cfg.recompute == DNP_RECOMPUTE_NONE);
    /* one-type stages: every type's count a multiple of tp x dp */
    for (int t = 0; t < cl.n_types; t++)
        CHECK(cl.counts[t] % ((int64_t)base.uniform_cfg.tp * base.uniform_cfg.dp) == 0);
    dnp_graph_free(g);
}

/* c3_balance by hand: two stages of different speed, no memory limit. */
TEST(config3d_balance_by_hand)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load(GPT_V64, &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100+1xdgx1", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 16, .precision = DNP_PREC_FP16,
                            .optimizer = DNP_OPTIM_ADAM, .memory_limit_bytes = 1e15};
    dnp_config3d c;
    dnp_config3d_defaults(&c);
    c.tp = 8;
    c.pp = 2;
    c.n_stage_layers = 2;
    c.stage_layers[0] = c.stage_layers[1] = 1;
    c3_ctx x;
    CHECK_EQ_INT(c3_prepare(g, &cl, 16, &opt, &c, NULL, &x, &err), DNP_OK);
    int layers[DNP_CONFIG3D_MAX_STAGES];
    CHECK_EQ_INT(c3_balance(&x, layers), 1);
    /* the split minimising max(e0 + n0 t0, e1 + n1 t1) with n0 + n1 = 16,
     * checked against every split */
    double t0 = x.st[0].layer_f_s + x.st[0].layer_b_s, t1 = x.st[1].layer_f_s + x.st[1].layer_b_s;
    double e0 = x.st[0].pre_f_s + x.st[0].pre_b_s, e1 = x.st[1].post_f_s + x.st[1].post_b_s;
    double best = INFINITY;
    int best_n0 = 0;
    for (int n0 = 1; n0 <= 15; n0++) {
        double a = e0 + n0 * t0, b = e1 + (16 - n0) * t1, mx = a > b ? a : b;
        if (mx < best) {
            best = mx;
            best_n0 = n0;
        }
    }
    CHECK_EQ_INT(layers[0], best_n0);
    CHECK_EQ_INT(layers[0] + layers[1], 16);
    CHECK(t0 < t1 && layers[0] > layers[1]); /* the a100 stage is faster and takes more */
    /* a memory limit that holds 3 layers on a stage cannot hold 16 */
    opt.memory_limit_bytes = 18.0 * 3.5 * (12.0 * 1024 * 1024 / 8);
    CHECK_EQ_INT(c3_prepare(g, &cl, 16, &opt, &c, NULL, &x, &err), DNP_OK);
    CHECK_EQ_INT(c3_balance(&x, layers), 0);
    dnp_graph_free(g);
}

/* The trace of a step: one process per stage, each unit once, the last
 * event ending at the simulated step. */
TEST(config3d_trace)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_config3d cfg;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load(GPT_V64, &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100+1xdgx1", &cl, &err), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_parse("tp=8,pp=2,layers=10:6", &cfg, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 4, .precision = DNP_PREC_FP16,
                            .optimizer = DNP_OPTIM_ADAM};
    dnp_config3d_result res;
    char *text = NULL;
    CHECK_EQ_INT(dnp_config3d_simulate(g, &cl, 4, &opt, &cfg, &res, &err), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_trace(g, &cl, 4, &opt, &cfg, &text, &err), DNP_OK);
    if (text != NULL) {
        json_error_t je;
        json_t *doc = json_loads(text, 0, &je);
        CHECK(doc != NULL);
        json_t *ev = json_object_get(doc, "traceEvents");
        int procs = 0, fwd = 0, bwd = 0, sends = 0;
        double end_us = 0.0;
        size_t i;
        json_t *e;
        json_array_foreach(ev, i, e) {
            const char *name = json_string_value(json_object_get(e, "name"));
            const char *ph = json_string_value(json_object_get(e, "ph"));
            if (strcmp(ph, "M") == 0) {
                procs += strcmp(name, "process_name") == 0;
                continue;
            }
            /* the flows, counters and tensor-parallel blocks:
             * test_config3d_trace.c */
            if (strcmp(ph, "X") != 0 || strstr(name, "tensor-parallel") != NULL)
                continue;
            fwd += strstr(name, "forward") != NULL;
            bwd += strstr(name, "backward") != NULL;
            sends += strstr(name, "activations") != NULL || strstr(name, "gradients") != NULL;
            double e_us = json_number_value(json_object_get(e, "ts")) +
                          json_number_value(json_object_get(e, "dur"));
            end_us = e_us > end_us ? e_us : end_us;
        }
        /* 4 micro-batches x 2 stages forward and backward; one message
         * each way per micro-batch */
        CHECK_EQ_INT(procs, 2);
        CHECK_EQ_INT(fwd, 8);
        CHECK_EQ_INT(bwd, 8);
        CHECK_EQ_INT(sends, 8);
        CHECK_NEAR(end_us, res.step_time_s * 1e6, 1e-6, 0.002);
        CHECK(strstr(text, "stage 1: 10 layers on a100") != NULL);
        CHECK(strstr(text, "micro-batch 4 backward, layers 11-16") != NULL);
        json_decref(doc);
    }
    dnp_free(text);
    dnp_graph_free(g);
}

/* ---- stages spanning device types, the embedding sync, grad_dtype ---- */

/* Two bare fast and two bare slow devices of the same network (1e9 B/s, no
 * latency, no speed spread), and the same cluster of four slow ones. */
#define FAST_SLOW                                                                            \
    "2xcustom(name=f,tflops=100,mem_gb=80,membw_gbps=2000,net_gbps=8,dtype=fp16)+"          \
    "2xcustom(name=s,tflops=25,mem_gb=80,membw_gbps=500,net_gbps=8,dtype=fp16)"
#define ALL_SLOW "4xcustom(name=s,tflops=25,mem_gb=80,membw_gbps=500,net_gbps=8,dtype=fp16)"
#define SMALL_GPT "gpt(hidden=256,heads=4,layers=4,seq=128,vocab=1000)"

static int prepare(const char *model, const char *cluster, int64_t batch, const char *cfg_text,
                   dnp_graph **g, dnp_cluster *cl, c3_ctx *x, int *layers,
                   dnp_config3d_result *res)
{
    dnp_config3d cfg;
    dnp_error err = {0};
    double bound;
    dnp_plan_options opt = {.batch = batch, .precision = DNP_PREC_FP16,
                            .optimizer = DNP_OPTIM_ADAM};
    int st = dnp_model_load(model, g, &err);
    if (st == DNP_OK)
        st = dnp_cluster_parse(cluster, cl, &err);
    if (st == DNP_OK)
        st = dnp_config3d_parse(cfg_text, &cfg, &err);
    if (st == DNP_OK)
        st = c3_prepare(*g, cl, batch, &opt, &cfg, NULL, x, &err);
    if (st == DNP_OK)
        st = c3_layers(x, layers, &err);
    if (st == DNP_OK)
        st = c3_eval(x, layers, 1, &bound, res, NULL, &err);
    return st;
}

/* A stage whose data-parallel replicas span types runs at its slowest
 * replica's pace: with pp 1 the step is m micro-batches of the slow type's
 * layers, embedding and head, then the all-reduce and the update, and it
 * equals the step on four slow devices. */
TEST(config3d_mixed_stage_slowest_replica)
{
    static c3_ctx x;
    dnp_graph *g = NULL;
    dnp_cluster cl;
    int layers[DNP_CONFIG3D_MAX_STAGES];
    dnp_config3d_result r, slow;
    CHECK_EQ_INT(prepare(SMALL_GPT, FAST_SLOW, 8, "tp=1,pp=1,dp=4", &g, &cl, &x, layers, &r),
                 DNP_OK);
    if (g == NULL)
        return;
    CHECK_EQ_INT(r.stage_types[0], 3);
    const c3_type *F = &x.ty[0], *S = &x.ty[1];
    CHECK(F->lay.fwd_s < S->lay.fwd_s); /* the fast type is faster */
    /* the stage takes the slow type's layer, embedding and head */
    CHECK_NEAR(x.st[0].layer_f_s, S->lay.fwd_s, 1e-12, 0.0);
    CHECK_NEAR(x.st[0].layer_b_s, S->lay.bwd_s, 1e-12, 0.0);
    CHECK_NEAR(x.st[0].pre_f_s, S->pre.fwd_s, 1e-12, 0.0);
    CHECK_NEAR(x.st[0].post_b_s, S->post.bwd_s, 1e-12, 0.0);
    /* m = 8 / (4 x 1) = 2 micro-batches; pp 1: no bubble */
    double per_mb = 4.0 * (S->lay.fwd_s + S->lay.bwd_s) + S->pre.fwd_s + S->pre.bwd_s +
                    S->post.fwd_s + S->post.bwd_s;
    /* the gradient all-reduce on 4 bare devices of 1e9 B/s: the ring's
     * 2 (p - 1) / p S / B with S = params x 2 bytes (fp16 gradients) */
    double params = 4.0 * S->lay.params + S->pre.params + S->post.params;
    CHECK_NEAR(r.dp_comm_s, 1.5 * params * 2.0 / (1e9 * 0.96), 1e-9, 0.0); /* NCCL's 0.96 */
    CHECK_NEAR(r.step_time_s, 2.0 * per_mb + r.dp_comm_s + r.optimizer_s, 1e-9, 0.0);
    dnp_graph_free(g);
    g = NULL;
    CHECK_EQ_INT(prepare(SMALL_GPT, ALL_SLOW, 8, "tp=1,pp=1,dp=4", &g, &cl, &x, layers, &slow),
                 DNP_OK);
    CHECK_NEAR(r.step_time_s, slow.step_time_s, 1e-12, 0.0);
    dnp_graph_free(g);
}

/* A tensor-parallel group over a node of fast devices and a node of slow
 * ones: each layer waits for the slow member's compute, and its two
 * all-reduces forward run on the group's links (2 nodes x 2, the slower
 * intra tier, the slower NIC share). */
TEST(config3d_tp_group_spans_types)
{
    static c3_ctx x;
    dnp_graph *g = NULL;
    dnp_cluster cl;
    int layers[DNP_CONFIG3D_MAX_STAGES];
    dnp_config3d_result r;
    const char *spec =
        "2xcustom(name=f,tflops=100,net_gbps=16,dtype=fp16,node=nf,per_node=2,topo=switch,"
        "intra_gbps=100,inter_gbps=16)+2xcustom(name=s,tflops=25,net_gbps=8,dtype=fp16,node=ns,"
        "per_node=2,topo=switch,intra_gbps=10,inter_gbps=8)"; /* intra in GB/s, inter Gb/s */
    CHECK_EQ_INT(prepare(SMALL_GPT, spec, 8, "tp=4,microbatch=2", &g, &cl, &x, layers, &r),
                 DNP_OK);
    if (g == NULL)
        return;
    dnp_comm_group grp = {.n_nodes = 2, .per_node = 2, .intra_topo = DNP_TOPO_SWITCH,
                          .intra_bw_bps = 10e9, .inter_bw_bps = 1e9};
    dnp_coll_cost c;
    double act_bytes = 2.0 * 128 * 256 * 2; /* b s h activations at 2 bytes */
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &grp, act_bytes, &c);
    CHECK(c.time_s > 0.0);
    CHECK_NEAR(x.st[0].tp_fwd_s, 2.0 * c.time_s, 1e-12, 0.0);
    CHECK_NEAR(x.st[0].layer_f_s, x.ty[1].lay.fwd_s + 2.0 * c.time_s, 1e-12, 0.0);
    CHECK(x.ty[0].lay.fwd_s < x.ty[1].lay.fwd_s);
    dnp_graph_free(g);
}

/* The tied word-embedding gradient all-reduce between the first and last
 * stage (Megatron-LM _allreduce_word_embedding_grads): vocab x hidden / tp
 * gradients, here 50,000 x 1,024 x 2 bytes (fp16) = 102.4 MB between two
 * bare devices of 1e9 B/s: a ring of 2 moves S once, 0.1024 s.  It reduces
 * the gradient buffer itself, so grad_dtype=fp32 (which casts the
 * data-parallel buckets) leaves it; bf16 training keeps fp32 gradients
 * (Megatron's main_grad), 0.2048 s. */
TEST(config3d_embedding_sync)
{
    const char *gpt = "gpt(hidden=1024,heads=16,layers=2,seq=128,vocab=50000)";
    const char *two = "2xcustom(name=g,tflops=100,mem_gb=80,membw_gbps=2000,net_gbps=8,"
                      "dtype=fp16)";
    dnp_config3d_result r;
    CHECK_EQ_INT(run(gpt, two, 4, "pp=2", &r), DNP_OK);
    /* at NCCL's achieved 0.96 of the network rate (docs/collectives.md) */
    const double sync_s = 50000.0 * 1024 * 2 / (1e9 * 0.96);
    CHECK_NEAR(r.embed_sync_s, sync_s, 1e-12, 0.0);
    double step16 = r.step_time_s;
    CHECK_EQ_INT(run(gpt, two, 4, "pp=2,grad_dtype=fp32", &r), DNP_OK);
    CHECK_NEAR(r.embed_sync_s, sync_s, 1e-12, 0.0);
    /* both ends wait for it before their update: against the same step on
     * a network a million times faster (sync and messages ~0), the step is
     * longer by the sync plus the pipeline messages (4 micro-batches, each
     * 128 x 1024 x 2 bytes = 0.26 ms each way, at most 16 of them) */
    dnp_config3d_result fast;
    CHECK_EQ_INT(run(gpt, "2xcustom(name=g,tflops=100,mem_gb=80,membw_gbps=2000,net_gbps=8e6,"
                          "dtype=fp16)", 4, "pp=2", &fast), DNP_OK);
    CHECK(step16 - fast.step_time_s >= sync_s);
    CHECK(step16 - fast.step_time_s <= sync_s + 16 * 0.000263 / 0.96);
    /* one stage holds both ends: nothing to synchronise */
    CHECK_EQ_INT(run(gpt, two, 4, "dp=2", &r), DNP_OK);
    CHECK_NEAR(r.embed_sync_s, 0.0, 0.0, 0.0);
    /* LLaMA unties its output layer */
    CHECK_EQ_INT(run("llama(hidden=1024,heads=16,layers=2,seq=128,vocab=50000)", two, 4, "pp=2",
                     &r),
                 DNP_OK);
    CHECK_NEAR(r.embed_sync_s, 0.0, 0.0, 0.0);
}

/* grad_dtype=fp32 (DeepSpeed's fp32_allreduce): the gradient all-reduce
 * moves 4 bytes per parameter instead of fp16's 2: on a link without
 * latency exactly twice the time. */
TEST(config3d_grad_dtype)
{
    dnp_config3d c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_config3d_parse("grad_dtype=fp32", &c, &err), DNP_OK);
    CHECK_EQ_INT(c.grad_fp32, 1);
    CHECK_EQ_INT(dnp_config3d_parse("grad_dtype=default", &c, &err), DNP_OK);
    CHECK_EQ_INT(c.grad_fp32, 0);
    CHECK_EQ_INT(dnp_config3d_parse("grad_dtype=bf16", &c, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "grad_dtype 'bf16'") != NULL);
    const char *two = "2xcustom(name=g,tflops=100,mem_gb=80,membw_gbps=2000,net_gbps=8,"
                      "dtype=fp16)";
    dnp_config3d_result r16, r32;
    CHECK_EQ_INT(run(SMALL_GPT, two, 4, "dp=2", &r16), DNP_OK);
    CHECK_EQ_INT(run(SMALL_GPT, two, 4, "dp=2,grad_dtype=fp32", &r32), DNP_OK);
    CHECK(r16.dp_comm_s > 0.0);
    CHECK_NEAR(r32.dp_comm_s, 2.0 * r16.dp_comm_s, 1e-12, 0.0);
}

/* layers= may give the first stage (embedding only) or the last (final
 * norm and head only) no decoder layers, no other stage. */
TEST(config3d_zero_layer_stages)
{
    const char *three = "3xcustom(name=g,tflops=100,mem_gb=80,membw_gbps=2000,net_gbps=8,"
                        "dtype=fp16)";
    dnp_config3d_result r;
    CHECK_EQ_INT(run(SMALL_GPT, three, 4, "pp=3,layers=0:2:2", &r), DNP_OK);
    CHECK_EQ_INT(r.stage_layers[0], 0);
    CHECK(r.step_time_s > 0.0);
    CHECK_EQ_INT(run(SMALL_GPT, three, 4, "pp=3,layers=2:2:0", &r), DNP_OK);
    CHECK_EQ_INT(run(SMALL_GPT, three, 4, "pp=3,layers=0:4:0", &r), DNP_OK);
    CHECK_EQ_INT(r.stage_layers[1], 4);
    CHECK_EQ_INT(run(SMALL_GPT, three, 4, "pp=3,layers=2:0:2", &r), DNP_ERR_INPUT);
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_config3d cfg;
    dnp_error err = {0};
    static c3_ctx x;
    int layers[DNP_CONFIG3D_MAX_STAGES];
    CHECK_EQ_INT(dnp_model_load(SMALL_GPT, &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse(three, &cl, &err), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_parse("pp=3,layers=2:0:2", &cfg, &err), DNP_OK);
    dnp_plan_options opt = {.batch = 4, .precision = DNP_PREC_FP16,
                            .optimizer = DNP_OPTIM_ADAM};
    CHECK_EQ_INT(c3_prepare(g, &cl, 4, &opt, &cfg, NULL, &x, &err), DNP_OK);
    CHECK_EQ_INT(c3_layers(&x, layers, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "stage 2 of 3 no layers") != NULL);
    dnp_graph_free(g);
}

/* The layouts of a two-type cluster, in dnp_config3d_search_layouts'
 * order: both types as given, both reversed, the first alone, the second
 * alone. */
static const int k_layout_orders[4][2] = {{0, 1}, {1, 0}, {0, -1}, {1, -1}};

/* Layout k (k_layout_orders) of the two-type cluster cl as a cluster of
 * its own into *sub; returns the price per hour of its devices. */
static double layout_cluster(const dnp_cluster *cl, int k, dnp_cluster *sub)
{
    double rate = 0.0;
    memset(sub, 0, sizeof *sub);
    for (int i = 0; i < 2 && k_layout_orders[k][i] >= 0; i++) {
        sub->types[i] = cl->types[k_layout_orders[k][i]];
        sub->counts[i] = cl->counts[k_layout_orders[k][i]];
        sub->n_types = i + 1;
        rate += sub->types[i].price_per_hour * (double)sub->counts[i];
    }
    return rate;
}

/* The layout search (docs/config3d.md, "Layouts") is the best of the
 * searches over every order and non-empty subset of a mixed cluster's
 * types, each searched on its own: here 2 DGX A100 and 2 g4dn.12xlarge
 * (T4 on PCIe), 4 layouts; the plan, the cluster it runs on and the idle
 * count agree with that enumeration.  A small batch on a fast type beside
 * a slow one leaves the slow type idle. */
TEST(config3d_search_layouts_is_the_best_layout)
{
    const char *model = "gpt(hidden=512,heads=8,layers=8,seq=512,vocab=1000)";
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load(model, &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100+2xg4dn.12xlarge", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 16, .precision = DNP_PREC_FP16, .optimizer = DNP_OPTIM_ADAM};
    dnp_config3d best;
    dnp_config3d_result res;
    dnp_config3d_stats stats;
    dnp_cluster used;
    CHECK_EQ_INT(dnp_config3d_search_layouts(g, &cl, 16, &opt, &best, &res, &used, &stats, &err),
                 DNP_OK);
    CHECK_EQ_INT(stats.layouts, 4); /* a100+t4, t4+a100, a100, t4 */
    double min_s = INFINITY;
    int min_k = -1, candidates = 0;
    for (int k = 0; k < 4; k++) {
        dnp_cluster sub;
        layout_cluster(&cl, k, &sub);
        dnp_config3d c;
        dnp_config3d_result r;
        dnp_config3d_stats st;
        dnp_error e = {0};
        if (dnp_config3d_search(g, &sub, 16, &opt, &c, &r, &st, &e) == DNP_OK &&
            r.step_time_s < min_s) {
            min_s = r.step_time_s;
            min_k = k;
        }
        candidates += st.candidates;
    }
    CHECK_EQ_INT(stats.candidates, candidates);
    CHECK_NEAR(res.step_time_s, min_s, 0.0, 0.0);
    CHECK(min_k >= 0);
    if (min_k >= 0) {
        CHECK_EQ_INT(used.n_types, k_layout_orders[min_k][1] < 0 ? 1 : 2);
        CHECK_STR(used.types[0].name, cl.types[k_layout_orders[min_k][0]].name);
        CHECK_EQ_INT(stats.reordered, min_k == 1);
        CHECK_EQ_INT(stats.idle_devices,
                     min_k == 2 ? cl.counts[1] : min_k == 3 ? cl.counts[0] : 0);
    }
    /* at 16 sequences the 8 T4 only slow the A100s down: left idle */
    CHECK_EQ_INT(min_k, 2);
    /* one type: the plain search, the cluster as given */
    CHECK_EQ_INT(dnp_cluster_parse("2xdgx-a100", &cl, &err), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_search_layouts(g, &cl, 16, &opt, &best, &res, &used, &stats, &err),
                 DNP_OK);
    CHECK_EQ_INT(stats.layouts, 1);
    CHECK(stats.idle_devices == 0 && !stats.reordered && used.counts[0] == 16);
    dnp_graph_free(g);
}

/* Objectives (docs/config3d.md, "Objectives"): with prices, the cost of a
 * layout's fastest plan is its step x the price per hour of its devices /
 * 3600; the cost objective takes the least of the four layouts' costs, a
 * deadline between the T4-only and the A100-only steps the cheapest that
 * meets it, and the Pareto front holds exactly the layouts no other beats
 * on both; a cluster without prices is refused for the cost objective. */
TEST(config3d_objectives_cost_and_deadline)
{
    const char *model = "gpt(hidden=512,heads=8,layers=8,seq=512,vocab=1000)";
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load(model, &g, &err), DNP_OK);
    CHECK_EQ_INT(
        dnp_cluster_parse("1xdgx-a100(price=2.5)+2xg4dn.12xlarge(price=0.4)", &cl, &err),
        DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 64, .precision = DNP_PREC_FP16, .optimizer = DNP_OPTIM_ADAM};
    double step[4], cost[4];
    for (int k = 0; k < 4; k++) {
        dnp_cluster sub;
        const double rate = layout_cluster(&cl, k, &sub);
        dnp_config3d c;
        dnp_config3d_result r;
        dnp_config3d_stats st;
        step[k] = cost[k] = INFINITY;
        if (dnp_config3d_search(g, &sub, 64, &opt, &c, &r, &st, &err) == DNP_OK) {
            step[k] = r.step_time_s;
            cost[k] = rate * r.step_time_s / 3600.0;
        }
    }
    int cheapest = 0;
    for (int k = 1; k < 4; k++)
        if (cost[k] < cost[cheapest] || (cost[k] == cost[cheapest] && step[k] < step[cheapest]))
            cheapest = k;
    dnp_config3d best;
    dnp_config3d_result res;
    dnp_config3d_stats stats;
    dnp_cluster used;
    opt.config3d_objective = 1;
    CHECK_EQ_INT(dnp_config3d_search_layouts(g, &cl, 64, &opt, &best, &res, &used, &stats, &err),
                 DNP_OK);
    CHECK_NEAR(stats.cost_per_step, cost[cheapest], 0.0, 1e-12);
    CHECK_NEAR(res.step_time_s, step[cheapest], 0.0, 0.0);
    CHECK_NEAR(stats.cost_per_step, stats.price_per_hour * res.step_time_s / 3600.0, 0.0, 1e-12);
    /* the Pareto front: each layout on it is beaten by none on both */
    int on_front = 0;
    for (int k = 0; k < 4; k++) {
        int dominated = 0;
        for (int j = 0; j < 4; j++)
            dominated |= step[j] <= step[k] && cost[j] <= cost[k] &&
                         (step[j] < step[k] || cost[j] < cost[k]);
        on_front += !dominated && isfinite(step[k]);
    }
    CHECK(stats.n_pareto >= 1 && stats.n_pareto <= on_front);
    for (int i = 0; i < stats.n_pareto; i++) {
        if (i > 0)
            CHECK(stats.pareto[i].step_time_s > stats.pareto[i - 1].step_time_s &&
                  stats.pareto[i].cost_per_step < stats.pareto[i - 1].cost_per_step);
        int found = 0;
        for (int k = 0; k < 4; k++)
            found |= stats.pareto[i].step_time_s == step[k] &&
                     fabs(stats.pareto[i].cost_per_step - cost[k]) <= 1e-12 * cost[k];
        CHECK(found);
        /* the compact record gives back a configuration that simulates to
         * its step on its layout */
        dnp_config3d pc;
        CHECK_EQ_INT(dnp_config3d_point_config(&stats, i, &pc), 1);
        dnp_cluster lay_cl;
        memset(&lay_cl, 0, sizeof lay_cl);
        for (int j = 0; j < stats.pareto[i].n_types; j++) {
            lay_cl.types[j] = cl.types[stats.pareto[i].types[j]];
            lay_cl.counts[j] = cl.counts[stats.pareto[i].types[j]];
            lay_cl.n_types = j + 1;
        }
        dnp_config3d_result pr;
        CHECK_EQ_INT(dnp_config3d_simulate(g, &lay_cl, 64, &opt, &pc, &pr, &err), DNP_OK);
        CHECK_NEAR(pr.step_time_s, stats.pareto[i].step_time_s, 0.0, 0.0);
    }
    /* a deadline just above the A100 layout's step: only it (and faster
     * ones) qualify, the cheapest of those wins */
    opt.config3d_objective = 0;
    opt.config3d_deadline_s = step[2] * 1.0001;
    CHECK_EQ_INT(dnp_config3d_search_layouts(g, &cl, 64, &opt, &best, &res, &used, &stats, &err),
                 DNP_OK);
    CHECK(res.step_time_s <= opt.config3d_deadline_s);
    for (int k = 0; k < 4; k++)
        if (step[k] <= opt.config3d_deadline_s)
            CHECK(stats.cost_per_step <= cost[k] * (1 + 1e-12));
    /* below every step: refused, naming the fastest */
    double fastest = step[0];
    for (int k = 1; k < 4; k++)
        fastest = step[k] < fastest ? step[k] : fastest;
    opt.config3d_deadline_s = fastest / 2;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_config3d_search_layouts(g, &cl, 64, &opt, &best, &res, &used, &stats, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "no layout meets the deadline") != NULL);
    /* no prices: the cost objective is refused, naming the type */
    opt.config3d_deadline_s = 0.0;
    opt.config3d_objective = 1;
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100+2xg4dn.12xlarge(price=0.4)", &cl, &err), DNP_OK);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_config3d_search_layouts(g, &cl, 64, &opt, &best, &res, &used, &stats, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "'a100' has none") != NULL);
    dnp_graph_free(g);
}

/* --time-limit reaches the 3D search: a limit already spent stops the
 * enumeration before anything is weighed, an error that says so; the
 * layout search passes it on. */
TEST(config3d_search_time_limit)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("gpt(hidden=512,heads=8,layers=8,seq=512,vocab=1000)", &g, &err),
                 DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100+2xg4dn.12xlarge", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 16, .precision = DNP_PREC_FP16, .optimizer = DNP_OPTIM_ADAM,
                            .time_limit_s = 1e-12};
    static dnp_config3d best;
    static dnp_config3d_result res;
    static dnp_config3d_stats stats;
    static dnp_cluster used;
    CHECK_EQ_INT(dnp_config3d_search(g, &cl, 16, &opt, &best, &res, &stats, &err), DNP_ERR_INPUT);
    CHECK(stats.time_limit_hit && strstr(err.msg, "--time-limit") != NULL);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_config3d_search_layouts(g, &cl, 16, &opt, &best, &res, &used, &stats, &err),
                 DNP_ERR_INPUT);
    CHECK(stats.time_limit_hit && strstr(err.msg, "--time-limit") != NULL);
    /* a limit not reached changes nothing */
    opt.time_limit_s = 600.0;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_config3d_search_layouts(g, &cl, 16, &opt, &best, &res, &used, &stats, &err),
                 DNP_OK);
    CHECK(!stats.time_limit_hit);
    dnp_graph_free(g);
}

/* dnp_config3d_recognises over the whole zoo (plan --search auto's
 * predicate, docs/cli.md "plan"): exactly the gpt, bert and llama models,
 * the ones dnp_config3d_search plans; the CNNs, the MLP, the PaSE
 * reference graphs (pase-transformer is an encoder-decoder the 3D path
 * does not take) and the rest are not.  Every zoo model. */
TEST(config3d_recognises_zoo)
{
    int yes = 0;
    for (int i = 0; i < dnp_zoo_count(); i++) {
        const char *name = dnp_zoo_name(i);
        dnp_graph *g = NULL;
        dnp_error err = {0};
        if (dnp_zoo_build(name, &g, &err) != DNP_OK) {
            CHECK(!"a zoo model builds");
            continue;
        }
        int want = strncmp(name, "gpt", 3) == 0 || strncmp(name, "bert", 4) == 0 ||
                   strncmp(name, "llama", 5) == 0;
        yes += want;
        if (dnp_config3d_recognises(g) != want)
            fprintf(stderr, "  %s: recognised %d, expected %d\n", name,
                    dnp_config3d_recognises(g), want);
        CHECK_EQ_INT(dnp_config3d_recognises(g), want);
        dnp_graph_free(g);
    }
    CHECK_EQ_INT(yes, 12); /* bert x2, gpt2 x4, gpt3-175b, llama2 x3, llama3 x2 */
}

/* The role of a zoo transformer's op from its name (src/model/
 * zoo_transformer.c names them): the oracle the structural layout is
 * checked against. */
static int ends_with_name(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static dnp_tf_role zoo_role_by_name(const dnp_op *op)
{
    const char *n = op->name;
    switch (op->kind) {
    case DNP_OP_FC:
        return ends_with_name(n, ".qkv")                                ? DNP_TF_QKV
               : ends_with_name(n, ".fc1") || ends_with_name(n, ".up")  ? DNP_TF_MLP_UP
               : ends_with_name(n, ".gate")                             ? DNP_TF_MLP_GATE
               : strcmp(n, "lm_head") == 0                              ? DNP_TF_HEAD
               : ends_with_name(n, ".attn.out")                         ? DNP_TF_PROJ
               : ends_with_name(n, ".fc2") || ends_with_name(n, ".down") ? DNP_TF_MLP_DOWN
                                                                        : DNP_TF_OTHER;
    case DNP_OP_EMBEDDING:
        return DNP_TF_EMBED_TOKENS;
    case DNP_OP_MATMUL:
        return strcmp(n, "lm_head.tied") == 0 ? DNP_TF_HEAD_TIED : DNP_TF_SCORES;
    case DNP_OP_SOFTMAX:
        return DNP_TF_SOFTMAX;
    case DNP_OP_DROPOUT:
        return dnp_op_has_axes(op) && op->out_rank == 3 ? DNP_TF_ATTN_DROPOUT : DNP_TF_DROPOUT;
    case DNP_OP_ELTWISE:
        return strstr(n, ".mlp.") != NULL ? DNP_TF_MLP_ACT : DNP_TF_OTHER;
    default:
        return DNP_TF_OTHER;
    }
}

/* The simulator's tensor-parallel classification by layout
 * (c3_tp_role_at, from the structure) equals the one read from the zoo's
 * op names (zoo_role_by_name) for every op of every zoo transformer and of
 * the variants (flash or unfused, GQA, tied and untied heads, post-LN),
 * with and without sequence parallelism; and the shape read from the
 * layout is the zoo's. */
TEST(config3d_tp_roles_by_layout)
{
    static const char *const extra[] = {
        "llama(hidden=256,heads=8,kv_heads=2,layers=2,seq=64,head=tied,attention=unfused)",
        "gpt(hidden=256,heads=4,layers=3,seq=64,head=untied,attention=flash)",
        "bert(hidden=256,heads=4,layers=1,seq=64)"};
    int models = 0;
    for (int k = 0; k < dnp_zoo_count() + 3; k++) {
        const char *name = k < dnp_zoo_count() ? dnp_zoo_name(k) : extra[k - dnp_zoo_count()];
        if (k < dnp_zoo_count() && strncmp(name, "gpt", 3) != 0 && strncmp(name, "bert", 4) != 0 &&
            strncmp(name, "llama", 5) != 0)
            continue;
        dnp_graph *g = NULL;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_zoo_build(name, &g, &err), DNP_OK);
        dnp_transformer_layout *lay = NULL;
        CHECK_EQ_INT(dnp_graph_transformer_layout(g, &lay, &err), DNP_OK);
        if (lay == NULL) {
            dnp_graph_free(g);
            continue;
        }
        models++;
        int bad = 0;
        for (int i = 0; i < dnp_graph_n_ops(g); i++)
            for (int sp = 0; sp <= 1; sp++)
                if (c3_tp_role_at(lay, g, i, sp) !=
                        c3_tp_role_for(dnp_graph_op(g, i), zoo_role_by_name(dnp_graph_op(g, i)), sp) &&
                    bad++ < 3)
                    fprintf(stderr, "  %s: '%s' (%s) is %d by layout, %d by name\n", name,
                            dnp_graph_op(g, i)->name, dnp_tf_role_name(lay->role[i]),
                            (int)c3_tp_role_at(lay, g, i, sp),
                            (int)c3_tp_role_for(dnp_graph_op(g, i),
                                                zoo_role_by_name(dnp_graph_op(g, i)), sp));
        CHECK_EQ_INT(bad, 0);
        c3_shape sh;
        CHECK_EQ_INT(c3_shape_from_layout(g, lay, &sh), 1);
        CHECK_EQ_INT(sh.layers, lay->layers);
        CHECK_EQ_INT(sh.embed_op, dnp_graph_find(g, "embed.tokens"));
        CHECK_EQ_INT(sh.tied, dnp_graph_find(g, "lm_head.tied") >= 0);
        CHECK_EQ_INT(sh.untied, dnp_graph_find(g, "lm_head") >= 0);
        CHECK_EQ_INT(sh.bert, dnp_graph_find(g, "pooler.dense") >= 0);
        CHECK_EQ_INT(sh.llama, dnp_graph_find(g, "layer0.mlp.gate") >= 0);
        dnp_transformer_layout_free(lay);
        dnp_graph_free(g);
    }
    CHECK_EQ_INT(models, 15); /* the 12 zoo transformers and the 3 variants */
}

/* llama2-7b's shape read by structure: the numbers of its model card
 * (src/model/zoo_transformer.c presets). */
TEST(config3d_shape_by_layout_llama2)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_zoo_build("llama2-70b", &g, &err), DNP_OK);
    c3_shape sh;
    CHECK_EQ_INT(c3_shape_of(g, &sh), 1);
    CHECK_EQ_INT(sh.layers, 80);
    CHECK_EQ_INT(sh.hidden, 8192);
    CHECK_EQ_INT(sh.heads, 64);
    CHECK_EQ_INT(sh.kv_heads, 8);
    CHECK_EQ_INT(sh.ffn, 28672);
    CHECK_EQ_INT(sh.seq, 4096);
    CHECK_EQ_INT(sh.vocab, 32000);
    CHECK_EQ_INT(sh.positions, 4096);
    CHECK_EQ_INT(sh.llama, 1);
    CHECK_EQ_INT(sh.untied, 1);
    CHECK_EQ_INT(sh.flash, 1);
    CHECK(sh.attn_dropout == 0.0 && sh.hidden_dropout == 0.0);
    dnp_graph_free(g);
}

/* A model file simulated as it is (its layout, dnp_graph_transformer_layout):
 * data/onnx/bert_encoder4.onnx against the zoo spec of its shape on 8
 * A100s (tp 1, dp 8, micro-batch 8, fp16, no stragglers).  The GEMMs are
 * the same, so the model FLOP is equal.  Imported as exported, the file
 * ran 32 kernels a layer where the spec runs 12 (decomposed layer norms,
 * bias adds of their own): 7.300 ms against 5.696 ms (x1.28).  With them
 * fused at import (docs/onnx.md, "Fusion") it runs 13 (the spec's 12 and
 * the exporter's scaling of Q by 1/sqrt(64)) and its step is 5.706 ms
 * (x1.002); its gradient all-reduce moves its own parameters, 75,263,802
 * against 75,333,120 (-0.09%).  A model that is not a transformer is
 * refused with the layout's reason. */
TEST(config3d_file_as_it_is)
{
    dnp_plan_options opt = {0};
    opt.no_stragglers = 1;
    dnp_config3d_result rf, rz;
    dnp_error err = {0};
    CHECK_EQ_INT(c3_sim("data/onnx/bert_encoder4.onnx", "8xa100", 64,
                        "tp=1,pp=1,dp=8,microbatch=8", opt, &rf, &err),
                 DNP_OK);
    CHECK_EQ_INT(c3_sim("gpt(hidden=768,heads=12,layers=4,seq=128,ffn=3072,vocab=30522,"
                        "dropout=0,attn_dropout=0,attention=unfused,head=untied)",
                        "8xa100", 64, "tp=1,pp=1,dp=8,microbatch=8", opt, &rz, &err),
                 DNP_OK);
    CHECK_NEAR(rf.model_flop, rz.model_flop, 1e-12, 0.0);
    CHECK(rf.step_time_s > rz.step_time_s && rf.step_time_s < 1.005 * rz.step_time_s);
    CHECK_NEAR(rf.step_time_s, 5.706e-3, 1e-3, 0.0);
    CHECK_NEAR(rz.step_time_s, 5.696e-3, 1e-3, 0.0);
    CHECK(rf.dp_comm_s < rz.dp_comm_s && rf.dp_comm_s > 0.998 * rz.dp_comm_s);
    dnp_config3d_result r;
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(c3_sim("resnet50", "8xa100", 64, "tp=1,pp=1,dp=8,microbatch=8", opt, &r, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "no token embedding") != NULL);
}
