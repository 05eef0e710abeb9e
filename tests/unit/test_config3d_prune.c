/* test_config3d_prune.c - the 3D search's compute floor (src/sim/
 * config3d_search.c, docs/config3d.md "Search"): the floor by hand, the
 * floor under c3_eval's bound for every configuration of small mixed
 * clusters, and the pruned search against the unpruned one (every
 * configuration weighed) and against every layout searched unpruned. */
#include "test.h"

#include "dnnpar.h"
#include "search/config3d_search.h"

#include <math.h>
#include <string.h>

#define SMALL_GPT "gpt(hidden=512,heads=8,layers=8,seq=512,vocab=1000)"

/* The floor by hand on 3 + 5 devices of two types, a layer of fwd 1 s and
 * bwd 2 s on the first (attention core 0.5 s), fwd 2 s and bwd 4 s on the
 * second (core 1 s); m = 5 micro-batches. */
TEST(config3d_floor_by_hand)
{
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("3xa100+5xt4", &cl, &err), DNP_OK);
    c3_cache ce;
    memset(&ce, 0, sizeof ce);
    ce.valid = 1;
    ce.part[0][0].fwd_s = 1.0;
    ce.part[0][0].bwd_s = 2.0;
    ce.part[0][0].attn_core_fwd_s = 0.5;
    ce.part[1][0].fwd_s = 2.0;
    ce.part[1][0].bwd_s = 4.0;
    ce.part[1][0].attn_core_fwd_s = 1.0;
    const double shave = 1.0 - 1e-9;
    /* tp 1, dp 2, pp 4: stages on ranks 0-1 (a100, tau 3), 2-3 (a100 and
     * t4: 6), 4-5 and 6-7 (t4: 6); 10 layers: L / sum(1/tau) = 10 / (1/3 +
     * 3/6) = 12, ceil(10/4) x 3 = 9: floor 5 x 12 = 60 */
    CHECK_NEAR(c3_compute_floor_s(&cl, &ce, 10, 1, 4, 2, 1, DNP_RECOMPUTE_NONE, 5), 60.0 * shave,
               1e-15, 0.0);
    /* the same, 8 layers in 2 chunks per rank (even): 5 x 8/4 x 6 = 60 */
    CHECK_NEAR(c3_compute_floor_s(&cl, &ce, 8, 1, 4, 2, 2, DNP_RECOMPUTE_NONE, 5), 60.0 * shave,
               1e-15, 0.0);
    /* full recompute adds the forward: tau 4 and 8; 10 / (1/4 + 3/8) = 16,
     * ceil x 4 = 12: 5 x 16 = 80 */
    CHECK_NEAR(c3_compute_floor_s(&cl, &ce, 10, 1, 4, 2, 1, DNP_RECOMPUTE_FULL, 5), 80.0 * shave,
               1e-15, 0.0);
    /* selective adds the attention core: tau 3.5 and 7; 10 / (1/3.5 +
     * 3/7) = 14: 70 */
    CHECK_NEAR(c3_compute_floor_s(&cl, &ce, 10, 1, 4, 2, 1, DNP_RECOMPUTE_SELECTIVE, 5),
               70.0 * shave, 1e-12, 0.0);
    /* tp 2, dp 4, pp 1: one stage over both types at the slower's pace:
     * 5 x 10 x 6 = 300 */
    CHECK_NEAR(c3_compute_floor_s(&cl, &ce, 10, 2, 1, 4, 1, DNP_RECOMPUTE_NONE, 5),
               300.0 * shave, 1e-15, 0.0);
    /* one type (8 a100, tau 3), pp 4, 10 layers: the integer split's
     * ceil(10/4) = 3 layers beat 10/4: 5 x 3 x 3 = 45 */
    CHECK_EQ_INT(dnp_cluster_parse("8xa100", &cl, &err), DNP_OK);
    CHECK_NEAR(c3_compute_floor_s(&cl, &ce, 10, 1, 4, 2, 1, DNP_RECOMPUTE_NONE, 5), 45.0 * shave,
               1e-15, 0.0);
    /* an empty cache entry gives no floor */
    ce.valid = 0;
    CHECK_NEAR(c3_compute_floor_s(&cl, &ce, 10, 1, 4, 2, 1, DNP_RECOMPUTE_NONE, 5), 0.0, 0.0,
               0.0);
}

/* The floor is under c3_eval's bound of every configuration the search
 * enumerates (every overlap variant, ZeRO 0 and 1, balanced 1F1B layers
 * or even interleaved ones) on mixed clusters of two and three types and
 * one type: so the floor never keeps the search from weighing a
 * configuration it would have simulated. */
TEST(config3d_floor_under_every_bound)
{
    static const char *clusters[] = {"1xdgx-a100+2xg4dn.12xlarge", "1xdgx1+1xdgx-a100",
                                     "1xdgx-a100+1xdgx1+2xg4dn.12xlarge", "2xdgx-a100"};
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load(SMALL_GPT, &g, &err), DNP_OK);
    if (g == NULL)
        return;
    static c3_ctx x;
    int checked = 0, tight = 0;
    for (size_t ic = 0; ic < sizeof clusters / sizeof clusters[0]; ic++) {
        dnp_cluster cl;
        CHECK_EQ_INT(dnp_cluster_parse(clusters[ic], &cl, &err), DNP_OK);
        const int n = (int)dnp_cluster_devices(&cl);
        const int64_t batch = 32;
        dnp_plan_options opt = {.batch = batch, .precision = DNP_PREC_FP16,
                                .optimizer = DNP_OPTIM_ADAM};
        for (int t = 1; t <= 8; t *= 2)
            for (int p = 1; p <= 8; p++)
                for (int mb = 1; mb <= 4; mb *= 2)
                    for (int v = 1; v <= 4; v++)
                        for (int rc = 0; rc < DNP_RECOMPUTE_COUNT; rc++)
                            for (int sp = 0; sp <= (t > 1); sp++)
                                for (int z = 0; z <= 1; z++) {
                                    if (n % (t * p) != 0)
                                        continue;
                                    const int dp = n / (t * p);
                                    if (batch % ((int64_t)dp * mb) != 0 || (z && dp == 1))
                                        continue;
                                    const int64_t m = batch / ((int64_t)dp * mb);
                                    if (v > 1 && (8 % (p * v) != 0 || p < 2 || m % p != 0))
                                        continue;
                                    dnp_config3d c;
                                    dnp_config3d_defaults(&c);
                                    c.tp = t;
                                    c.pp = p;
                                    c.dp = dp;
                                    c.microbatch = mb;
                                    c.interleave = v;
                                    c.recompute = (dnp_recompute)rc;
                                    c.seq_par = sp;
                                    c.tp_overlap = sp;
                                    c.zero = z;
                                    if (v == 1) {
                                        c.n_stage_layers = p;
                                        for (int s = 0; s < p; s++)
                                            c.stage_layers[s] = 1;
                                    }
                                    c3_cache ce;
                                    memset(&ce, 0, sizeof ce);
                                    dnp_error e = {0};
                                    if (c3_prepare(g, &cl, batch, &opt, &c, &ce, &x, &e) !=
                                        DNP_OK)
                                        continue; /* a rule (tp inside a node, heads) */
                                    int layers[DNP_CONFIG3D_MAX_STAGES];
                                    if (v == 1)
                                        c3_balance(&x, layers);
                                    else
                                        CHECK_EQ_INT(c3_layers(&x, layers, &e), DNP_OK);
                                    const double floor_s = c3_compute_floor_s(
                                        &cl, &ce, 8, t, p, dp, v, (dnp_recompute)rc, m);
                                    CHECK(floor_s > 0.0);
                                    for (int ov = 0; ov <= (dp > 1 ? 1 + z : 0); ov++) {
                                        x.cfg.overlap_grad = ov >= 1;
                                        x.cfg.overlap_param = ov == 2;
                                        dnp_config3d_result r;
                                        double bound = 0.0;
                                        CHECK_EQ_INT(c3_eval(&x, layers, 0, &bound, &r, NULL, &e),
                                                     DNP_OK);
                                        if (!(floor_s <= bound))
                                            printf("  %s: floor %.17g above bound %.17g (tp %d "
                                                   "pp %d dp %d mb %d v %d rc %d sp %d z %d "
                                                   "ov %d)\n",
                                                   clusters[ic], floor_s, bound, t, p, dp, mb, v,
                                                   rc, sp, z, ov);
                                        CHECK(floor_s <= bound);
                                        checked++;
                                        tight += floor_s >= 0.5 * bound;
                                    }
                                }
    }
    CHECK(checked > 1000);
    CHECK(tight > checked / 4); /* not a vacuous floor */
    dnp_graph_free(g);
}

/* Everything the search reports but the weighed and fitting counts. */
static void check_same_search(const dnp_config3d_stats *a, const dnp_config3d_result *ra,
                              const dnp_config3d *ca, const dnp_config3d_stats *b,
                              const dnp_config3d_result *rb, const dnp_config3d *cb)
{
    char ta[512], tb[512];
    dnp_config3d_format(ca, ta, sizeof ta);
    dnp_config3d_format(cb, tb, sizeof tb);
    CHECK_STR(ta, tb);
    CHECK_NEAR(ra->step_time_s, rb->step_time_s, 0.0, 0.0);
    CHECK_NEAR(ra->mem_bytes, rb->mem_bytes, 0.0, 0.0);
    CHECK_EQ_INT(a->candidates, b->candidates);
    CHECK_EQ_INT(a->simulated, b->simulated);
    CHECK_EQ_INT(a->n_top, b->n_top);
    for (int i = 0; i < a->n_top && i < b->n_top; i++) {
        dnp_config3d_format(&a->top[i].cfg, ta, sizeof ta);
        dnp_config3d_format(&b->top[i].cfg, tb, sizeof tb);
        CHECK_STR(ta, tb);
        CHECK_NEAR(a->top[i].step_time_s, b->top[i].step_time_s, 0.0, 0.0);
    }
    CHECK_EQ_INT(a->n_narrowed, b->n_narrowed);
    CHECK(a->weighed <= a->candidates && b->weighed == b->candidates);
    CHECK(a->fitting <= b->fitting && a->fitting <= a->weighed);
}

/* The pruned search (dnp_config3d_search) against the unpruned one
 * (c3_search_unpruned: every configuration weighed first, the search as it
 * was before the floor): the same plan, step, ranked list, simulations and
 * refusals, on one type and on mixed clusters of two and three types, with
 * and without a memory limit. */
TEST(config3d_pruned_search_matches_unpruned)
{
    static const struct {
        const char *model, *cluster;
        int64_t batch;
        int top;
        double mem_bytes;
    } cases[] = {
        {SMALL_GPT, "2xdgx-a100", 32, 5, 0.0},
        {SMALL_GPT, "2xdgx-a100", 32, 1, 2e9},
        {SMALL_GPT, "1xdgx-a100+2xg4dn.12xlarge", 16, 3, 0.0},
        {SMALL_GPT, "1xdgx1+1xdgx-a100", 64, 5, 0.0},
        {SMALL_GPT, "1xdgx-a100+1xdgx1+2xg4dn.12xlarge", 48, 5, 0.0},
        {"gpt(hidden=1024,heads=16,layers=12,seq=1024)", "1xdgx-a100+1xdgx1", 32, 2, 4e9},
        {"llama(hidden=1024,heads=16,kv_heads=4,layers=8,seq=1024)",
         "2xg4dn.12xlarge+1xdgx1", 32, 3, 0.0},
        {SMALL_GPT, "1xdgx-a100", 16, 1, 1e6}, /* nothing fits: the same refusal */
    };
    int pruned = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dnp_graph *g = NULL;
        dnp_cluster cl;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_model_load(cases[i].model, &g, &err), DNP_OK);
        CHECK_EQ_INT(dnp_cluster_parse(cases[i].cluster, &cl, &err), DNP_OK);
        if (g == NULL)
            continue;
        dnp_plan_options opt = {.batch = cases[i].batch, .precision = DNP_PREC_FP16,
                                .optimizer = DNP_OPTIM_ADAM, .config3d_top = cases[i].top,
                                .memory_limit_bytes = cases[i].mem_bytes};
        static dnp_config3d ca, cb;
        static dnp_config3d_result ra, rb;
        static dnp_config3d_stats sa, sb;
        dnp_error ea = {0}, eb = {0};
        dnp_status st_a = dnp_config3d_search(g, &cl, cases[i].batch, &opt, &ca, &ra, &sa, &ea);
        dnp_status st_b = c3_search_unpruned(g, &cl, cases[i].batch, &opt, &cb, &rb, &sb, &eb);
        CHECK_EQ_INT(st_a, st_b);
        if (st_a == DNP_OK && st_b == DNP_OK) {
            check_same_search(&sa, &ra, &ca, &sb, &rb, &cb);
            pruned += sa.weighed < sa.candidates;
        } else {
            CHECK_STR(ea.msg, eb.msg);
        }
        dnp_graph_free(g);
    }
    CHECK(pruned >= 4); /* the floor left configurations unweighed in most cases */
}

/* The layout search (every order and subset of three types, the cutoff
 * carried across layouts, the floor in each) against every layout
 * searched unpruned one by one: the same fastest step and the same three
 * fastest steps over all layouts. */
TEST(config3d_layouts_pruned_match_unpruned)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load(SMALL_GPT, &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100+1xdgx1+2xg4dn.12xlarge", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 48, .precision = DNP_PREC_FP16,
                            .optimizer = DNP_OPTIM_ADAM, .config3d_top = 3};
    static dnp_config3d best;
    static dnp_config3d_result res;
    static dnp_config3d_stats stats;
    static dnp_cluster used;
    CHECK_EQ_INT(dnp_config3d_search_layouts(g, &cl, 48, &opt, &best, &res, &used, &stats, &err),
                 DNP_OK);
    CHECK_EQ_INT(stats.layouts, 15); /* 6 orders of 3, 3 x 2 orders of 2, 3 alone */
    CHECK_EQ_INT(stats.n_top, 3);
    /* every layout unpruned: its three fastest */
    double all_s[15 * 3];
    int n_all = 0;
    static const int orders[15][3] = {{0, 1, 2},  {0, 2, 1},  {1, 0, 2},  {1, 2, 0},  {2, 0, 1},
                                      {2, 1, 0},  {0, 1, -1}, {1, 0, -1}, {0, 2, -1}, {2, 0, -1},
                                      {1, 2, -1}, {2, 1, -1}, {0, -1, -1}, {1, -1, -1},
                                      {2, -1, -1}};
    for (int k = 0; k < 15; k++) {
        dnp_cluster sub;
        memset(&sub, 0, sizeof sub);
        for (int j = 0; j < 3 && orders[k][j] >= 0; j++) {
            sub.types[j] = cl.types[orders[k][j]];
            sub.counts[j] = cl.counts[orders[k][j]];
            sub.n_types = j + 1;
        }
        static dnp_config3d c;
        static dnp_config3d_result r;
        static dnp_config3d_stats st;
        dnp_error e = {0};
        if (c3_search_unpruned(g, &sub, 48, &opt, &c, &r, &st, &e) != DNP_OK)
            continue;
        for (int j = 0; j < st.n_top; j++)
            all_s[n_all++] = st.top[j].step_time_s;
    }
    /* the three smallest of them, in order */
    for (int j = 0; j < 3 && j < n_all; j++) {
        int at = j;
        for (int i = j + 1; i < n_all; i++)
            if (all_s[i] < all_s[at])
                at = i;
        double tmp = all_s[j];
        all_s[j] = all_s[at];
        all_s[at] = tmp;
        CHECK_NEAR(stats.top[j].step_time_s, all_s[j], 0.0, 0.0);
    }
    CHECK(n_all >= 3);
    CHECK_NEAR(res.step_time_s, all_s[0], 0.0, 0.0);
    CHECK(stats.weighed < stats.candidates);
    dnp_graph_free(g);
}
