/* test_lower3d.c - the 3D lowering (src/sim/lower3d.c): a configuration's
 * strategy (c3_strategy_of) read back gives every op the tensor-parallel
 * role the simulator's own reading (c3_tp_role_at) gives it, on every zoo
 * transformer; lowering it gives exactly the figures of the configuration
 * prepared directly (c3_prepare, the search's path); and strategies the
 * model cannot simulate are refused, naming what. */
#include "test.h"

#include "dnnpar.h"
#include "plan/strategy.h"
#include "sim/config3d_int.h"
#include "sim/config3d_stages.h"
#include "sim/lower3d.h"
#include "sim/lower_any.h"

#include <string.h>

/* Every op of every zoo transformer (and three variants: GQA with an
 * unfused attention, an untied head with flash attention, BERT), with and
 * without sequence parallelism: the role c3_role_of_splits reads from the
 * op's splits over "model" equals c3_tp_role_at, and the strategy holds
 * exactly the ops that cost something.  gpt2 (12 layers of 15 ops, 3
 * before, 2 after): 185 ops, 72 column- and row-parallel. */
TEST(lower3d_roles_agree_on_zoo)
{
    static const char *const extra[] = {
        "llama(hidden=256,heads=8,kv_heads=2,layers=2,seq=64,head=tied,attention=unfused)",
        "gpt(hidden=256,heads=4,layers=3,seq=64,head=untied,attention=flash)",
        "bert(hidden=256,heads=4,layers=1,seq=64)"};
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100", &cl, &err), DNP_OK);
    int models = 0, gpt2_ops = -1, gpt2_gemms = -1;
    for (int k = 0; k < dnp_zoo_count() + 3; k++) {
        const char *name = k < dnp_zoo_count() ? dnp_zoo_name(k) : extra[k - dnp_zoo_count()];
        if (k < dnp_zoo_count() && strncmp(name, "gpt", 3) != 0 && strncmp(name, "bert", 4) != 0 &&
            strncmp(name, "llama", 5) != 0)
            continue;
        dnp_graph *g = NULL;
        CHECK_EQ_INT(dnp_zoo_build(name, &g, &err), DNP_OK);
        dnp_transformer_layout *lay = NULL;
        CHECK_EQ_INT(dnp_graph_transformer_layout(g, &lay, &err), DNP_OK);
        if (lay == NULL) {
            dnp_graph_free(g);
            continue;
        }
        models++;
        for (int sp = 0; sp <= 1; sp++) {
            dnp_config3d cfg;
            CHECK_EQ_INT(dnp_config3d_parse(sp ? "tp=8,seq_par=1" : "tp=2,dp=4", &cfg, &err),
                         DNP_OK);
            plan_strategy *s = NULL;
            CHECK_EQ_INT(c3_strategy_of(g, &cl, &cfg, 8, &s, &err), DNP_OK);
            if (s == NULL)
                continue;
            int bad = 0, costed = 0, gemms = 0;
            for (int i = 0; i < dnp_graph_n_ops(g); i++)
                costed += c3_tp_role_at(lay, g, i, sp) != C3_TP_SKIP;
            CHECK_EQ_INT(s->n_ops, costed);
            for (int j = 0; j < s->n_ops; j++) {
                const plan_op *o = &s->ops[j];
                const int have = c3_role_of_splits(o, 2u /* "model", axis 1 */);
                const int want = (int)c3_tp_role_at(lay, g, o->op, sp);
                gemms += have == C3_TP_COLUMN || have == C3_TP_ROW;
                if (have != want && bad++ < 3)
                    fprintf(stderr, "  %s sp %d: '%s' splits as %d, c3_tp_role_at %d\n", name,
                            sp, dnp_graph_op(g, o->op)->name, have, want);
            }
            CHECK_EQ_INT(bad, 0);
            if (strcmp(name, "gpt2") == 0 && sp == 0) {
                gpt2_ops = s->n_ops;
                gpt2_gemms = gemms;
            }
            plan_strategy_free(s);
        }
        dnp_transformer_layout_free(lay);
        dnp_graph_free(g);
    }
    CHECK_EQ_INT(models, 15); /* the 12 zoo transformers and the 3 variants */
    CHECK_EQ_INT(gpt2_ops, 185);
    CHECK_EQ_INT(gpt2_gemms, 48); /* 4 a layer: qkv, fc1 column; attn.out, fc2 row */
}

/* Configuration `text` of model on cluster: the lowering of its strategy
 * against c3_prepare + c3_layers + c3_eval on the configuration itself
 * (the search's path, roles from the layout): the same doubles. */
static void check_same(const char *model, const char *cluster, int64_t batch, const char *text)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_config3d cfg;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load(model, &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse(cluster, &cl, &err), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_parse(text, &cfg, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = batch, .precision = DNP_PREC_FP16,
                            .optimizer = DNP_OPTIM_ADAM, .keep_over_memory = 1};
    plan_strategy *s = NULL;
    CHECK_EQ_INT(c3_strategy_of(g, &cl, &cfg, batch, &s, &err), DNP_OK);
    dnp_config3d_result a, b;
    memset(&b, 0, sizeof b);
    CHECK_EQ_INT(c3_lower(g, s, &cl, &opt, C3_LOWER_SIMULATE, &a, NULL, &err), DNP_OK);
    c3_ctx *x = dnp_malloc(sizeof *x);
    int layers[DNP_CONFIG3D_MAX_STAGES];
    double bound;
    CHECK_EQ_INT(c3_prepare(g, &cl, batch, &opt, &cfg, NULL, x, &err), DNP_OK);
    CHECK_EQ_INT(c3_layers(x, layers, &err), DNP_OK);
    CHECK_EQ_INT(c3_eval(x, layers, 1, &bound, &b, NULL, &err), DNP_OK);
    if (a.step_time_s != b.step_time_s)
        fprintf(stderr, "  %s %s: lowered %.9g s, prepared %.9g s\n", model, text, a.step_time_s,
                b.step_time_s);
    CHECK(a.step_time_s == b.step_time_s && a.step_time_s > 0.0);
    CHECK(a.mem_bytes == b.mem_bytes && a.tp_comm_s == b.tp_comm_s);
    CHECK(a.dp_comm_s == b.dp_comm_s && a.model_flop == b.model_flop);
    for (int st = 0; st < cfg.pp; st++)
        CHECK_EQ_INT(a.stage_layers[st], b.stage_layers[st]);
    dnp_free(x);
    plan_strategy_free(s);
    dnp_graph_free(g);
}

TEST(lower3d_equals_the_configuration)
{
    check_same("gpt2", "2xdgx-a100", 32, "tp=2,pp=2,dp=4");
    check_same("gpt2", "2xdgx-a100", 32, "tp=4,pp=2,dp=2,seq_par=1,recompute=selective");
    check_same("gpt2", "2xdgx-a100", 64, "tp=2,pp=4,dp=2,interleave=3,microbatch=2");
    check_same("gpt2", "2xdgx-a100", 32, "tp=1,pp=2,dp=8,layers=4:8,zero=1,overlap_grad=1");
    check_same("gpt2", "2xdgx-a100", 32, "tp=4,pp=1,dp=4,seq_par=1,tp_overlap=1,zero=2");
    check_same("gpt2", "2xdgx-a100", 32, "tp=2,pp=2,dp=4,schedule=gpipe,grad_dtype=fp32");
    check_same("llama2-7b", "2xdgx-a100", 16, "tp=8,pp=2,dp=1,seq_par=1,recompute=full");
}

/* A strategy the model cannot simulate, each refused with its reason:
 * gpt2 under tp=2 pp=2 dp=2 on one DGX A100 (one device type, bit 0x1),
 * changed one way at a time. */
TEST(lower3d_refuses)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_config3d cfg;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("gpt2", &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100", &cl, &err), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_parse("tp=2,pp=2,dp=2", &cfg, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 16, .precision = DNP_PREC_FP16,
                            .optimizer = DNP_OPTIM_ADAM};
    dnp_config3d_result r;
    static const char *const want[] = {
        "mesh axis 2 'expert' is neither",   "mesh axis 'model' (size 2, share 0.6)",
        "stage 1 holds ranks [2, 6)",        "no schedule",
        "is split as heads; the Megatron-LM model simulates it column-parallel",
        "is on stage 1, its layer (0) on stage 0",
        "must split \"b\" over \"data\"",    "stage 0 holds 5 layers; an even split",
        "stage 0 says it holds device types 0x2; its ranks hold 0x1"};
    for (int k = 0; k < 9; k++) {
        plan_strategy *s = NULL;
        CHECK_EQ_INT(c3_strategy_of(g, &cl, &cfg, 16, &s, &err), DNP_OK);
        if (s == NULL)
            continue;
        CHECK_EQ_INT(c3_lower(g, s, &cl, &opt, C3_LOWER_CHECK, &r, NULL, &err), DNP_OK);
        int col = 0; /* the first column-parallel op (layer 0's qkv) */
        while (col < s->n_ops && c3_role_of_splits(&s->ops[col], 2u) != C3_TP_COLUMN)
            col++;
        switch (k) {
        case 0: plan_strategy_add_axis(s, "expert", 1, 1.0); break;
        case 1: s->axis[1].share = 0.6; break;
        case 2: s->stage[1].first_rank = 2; break;
        case 3: s->schedule.set = 0; break;
        case 4: strcpy(s->ops[col].split[1].dim, "heads"); break;
        case 5: s->ops[3].stage = 1; break;
        case 6: s->ops[0].split[0].axes = 0u; break;
        case 7:
            s->stage[0].layers = 5;
            s->stage[1].layers = 7;
            break;
        default: s->stage[0].types = 2u; break;
        }
        memset(&err, 0, sizeof err);
        CHECK_EQ_INT(c3_lower(g, s, &cl, &opt, C3_LOWER_SIMULATE, &r, NULL, &err), DNP_ERR_INPUT);
        if (strstr(err.msg, want[k]) == NULL)
            fprintf(stderr, "  case %d: '%s' lacks '%s'\n", k, err.msg, want[k]);
        CHECK(strstr(err.msg, want[k]) != NULL);
        plan_strategy_free(s);
    }
    dnp_graph_free(g);
}

/* The one lowering dispatches by what the strategy holds: a
 * configuration's strategy (stages, mesh, schedule) to the 3D lowering,
 * the same step as dnp_config3d_simulate (gpt2, tp=2 pp=2 dp=2 on one DGX
 * A100, batch 16); a strategy with neither groups nor a schedule is
 * refused. */
TEST(lower3d_one_lowering_dispatches)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_config3d cfg;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("gpt2", &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100", &cl, &err), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_parse("tp=2,pp=2,dp=2", &cfg, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 16, .precision = DNP_PREC_FP16,
                            .optimizer = DNP_OPTIM_ADAM};
    dnp_config3d_result want;
    CHECK_EQ_INT(dnp_config3d_simulate(g, &cl, 16, &opt, &cfg, &want, &err), DNP_OK);
    plan_strategy *s = NULL;
    CHECK_EQ_INT(c3_strategy_of(g, &cl, &cfg, 16, &s, &err), DNP_OK);
    lower_context m = {.model = "gpt2", .cl = &cl};
    sim_lowered r;
    CHECK_EQ_INT(sim_lower(g, s, &m, &opt, 0, 1, &r, &err), DNP_OK);
    CHECK_EQ_INT(r.kind, SIM_LOWERED_PIPELINE);
    CHECK(r.pipeline.step_time_s == want.step_time_s && want.step_time_s > 0.0);
    CHECK(r.trace_json != NULL && strstr(r.trace_json, "traceEvents") != NULL);
    sim_lowered_free(&r);
    plan_strategy_free(s);
    s = plan_strategy_new(0, 0);
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(sim_lower(g, s, &m, &opt, 0, 0, &r, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "neither device groups") != NULL);
    sim_lowered_free(&r);
    plan_strategy_free(s);
    dnp_graph_free(g);
}
