/* test_zoo_transformer.c - the GPT / BERT / LLaMA zoo (src/model/
 * zoo_transformer.c): parameter counts against the published ones,
 * multiply-accumulates against the closed form, parametric names. */
#include "test.h"

#include "dnnpar.h"

#include <string.h>

/* Published trainable parameters: Hugging Face transformers' counts of
 * BertModel (with the pooler) for bert-base-uncased / bert-large-uncased
 * and of GPT2LMHeadModel (output tied to the token embedding) for gpt2,
 * gpt2-medium, -large, -xl; the Llama 2 and Llama 3 checkpoints' tensor
 * sizes summed (meta-llama model cards: 6.74B, 13.0B, 69.0B, 8.03B,
 * 70.6B). GPT-3 175B is "175.0B" in Brown et al. 2020, Table 2.1 (rounded;
 * 96 x 12 x 12288^2 plus embeddings, biases and norms is 174.6B). */
TEST(zoo_transformer_published_parameters)
{
    static const struct {
        const char *name;
        long long params;
    } want[] = {{"bert-base", 109482240LL},     {"bert-large", 335141888LL},
                {"gpt2", 124439808LL},          {"gpt2-medium", 354823168LL},
                {"gpt2-large", 774030080LL},    {"gpt2-xl", 1557611200LL},
                {"llama2-7b", 6738415616LL},    {"llama2-13b", 13015864320LL},
                {"llama2-70b", 68976648192LL},  {"llama3-8b", 8030261248LL},
                {"llama3-70b", 70553706496LL}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        dnp_graph *g = NULL;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_zoo_build(want[i].name, &g, &err), DNP_OK);
        if (g == NULL)
            continue;
        dnp_graph_totals t;
        dnp_graph_totals_get(g, 1, &t);
        if (t.params != want[i].params)
            printf("  %s\n", want[i].name);
        CHECK_EQ_INT(t.params, want[i].params);
        dnp_graph_free(g);
    }
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_zoo_build("gpt3-175b", &g, &err), DNP_OK);
    if (g != NULL) {
        dnp_graph_totals t;
        dnp_graph_totals_get(g, 1, &t);
        /* 96 layers x (12 H^2 + 13 H) + 50257 H + 2048 H + 2 H */
        long long H = 12288;
        CHECK_EQ_INT(t.params, 96 * (12 * H * H + 13 * H) + 50257 * H + 2048 * H + 2 * H);
        CHECK(t.params > 174.5e9 && t.params < 175.05e9);
    }
    dnp_graph_free(g);
}

/* GPT-2 at sequence S = 1024: every weight matrix of the layers is applied
 * at every position (12 H^2 + ... : the layers' 12 H^2 weights, i.e.
 * 4 H^2 attention and 8 H^2 MLP), attention's two products are 2 S^2 H per
 * layer, the tied output S V H:
 *   12 x 1024 x 12 x 768^2 + 12 x 2 x 1024^2 x 768 + 1024 x 50257 x 768. */
TEST(zoo_transformer_gpt2_macs)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_zoo_build("gpt2", &g, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_graph_totals t;
    dnp_graph_totals_get(g, 1, &t);
    long long S = 1024, H = 768, V = 50257, L = 12;
    CHECK_EQ_INT(t.macs_per_sample, L * S * 12 * H * H + L * 2 * S * S * H + S * V * H);
    dnp_graph_free(g);
}

/* Grouped-query attention: the K and V projections shrink to kv_heads
 * heads; the products do not. */
/* Each of the n model names is refused: DNP_ERR_INPUT, a message, no graph. */
static void check_refused(const char *const *bad, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        dnp_graph *g = NULL;
        dnp_error e = {0};
        CHECK_EQ_INT(dnp_model_load(bad[i], &g, &e), DNP_ERR_INPUT);
        CHECK(g == NULL && e.msg[0] != '\0');
        dnp_graph_free(g);
    }
}

TEST(zoo_transformer_parametric)
{
    dnp_graph *a = NULL, *b = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("llama(hidden=64,heads=8,layers=2,seq=16,ffn=128,vocab=100)", &a,
                                &err),
                 DNP_OK);
    CHECK_EQ_INT(dnp_model_load("LLAMA(kv_heads=2,vocab=100,ffn=128,seq=16,layers=2,heads=8,"
                                "hidden=64)",
                                &b, &err),
                 DNP_OK);
    if (a != NULL && b != NULL) {
        dnp_graph_totals ta, tb;
        dnp_graph_totals_get(a, 1, &ta);
        dnp_graph_totals_get(b, 1, &tb);
        /* per layer: q, k, v, o 4 x 64^2 (b: q, o 2 x 64^2, k, v 2 x 64 x 16),
         * SwiGLU 3 x 64 x 128, two RMSNorms 2 x 64; embedding and head
         * 2 x 100 x 64; final norm 64 */
        long long layer_a = 4 * 64 * 64 + 3 * 64 * 128 + 2 * 64;
        long long layer_b = 2 * 64 * 64 + 2 * 64 * 16 + 3 * 64 * 128 + 2 * 64;
        CHECK_EQ_INT(ta.params, 2 * layer_a + 2 * 100 * 64 + 64);
        CHECK_EQ_INT(tb.params, 2 * layer_b + 2 * 100 * 64 + 64);
        CHECK_EQ_INT(ta.macs_per_sample - tb.macs_per_sample, 2 * 16 * 2 * 64 * (64 - 16));
    }
    dnp_graph_free(a);
    dnp_graph_free(b);
    static const char *const bad[] = {
        "gpt(hidden=8,heads=3,layers=1,seq=4)",   "gpt(hidden=8,heads=2,layers=1)",
        "gpt(hidden=8,heads=2,layers=1,seq=0)",   "gpt(hidden=8,heads=2,layers=1,seq=4,x=1)",
        "gpt(hidden=8,heads=2,heads=2,seq=4)",    "gpt(hidden=8,heads=2,layers=1,seq=4",
        "bert(hidden=8,heads=2,layers=1,seq=4)x",
        "llama(hidden=8,heads=4,layers=1,seq=4,kv_heads=3)",
        "gpt(hidden=99999999999,heads=1,layers=1,seq=1)", "gpt("};
    check_refused(bad, sizeof bad / sizeof bad[0]);
}

/* Dropout where the models train with it (docs/zoo.md): GPT-2 and BERT at
 * 0.1 on the embedding output, the attention probabilities (per head,
 * heads x seq x seq), after the attention projection and after the MLP;
 * LLaMA has none; dropout= and attn_dropout= set them. */
TEST(zoo_transformer_dropout)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_zoo_build("gpt2", &g, &err), DNP_OK);
    if (g != NULL) {
        int n_drop = 0;
        for (int i = 0; i < dnp_graph_n_ops(g); i++)
            if (dnp_graph_op(g, i)->kind == DNP_OP_DROPOUT) {
                n_drop++;
                CHECK_NEAR(dnp_graph_op(g, i)->ratio, 0.1, 1e-15, 0);
            }
        CHECK_EQ_INT(n_drop, 1 + 3 * 12);
        int a = dnp_graph_find(g, "layer3.attn.dropout");
        CHECK(a >= 0);
        if (a >= 0) {
            const dnp_op *op = dnp_graph_op(g, a);
            CHECK_EQ_INT(op->out_rank, 3);
            CHECK_EQ_INT(op->out_dims[0], 12);
            CHECK_EQ_INT(op->out_dims[1], 1024);
            CHECK_EQ_INT(op->out_dims[2], 1024);
            /* the context product reads the dropped probabilities */
            CHECK_EQ_INT(dnp_graph_op(g, dnp_graph_find(g, "layer3.attn.context"))->inputs[0], a);
        }
        CHECK(dnp_graph_find(g, "layer3.attn.out_dropout") >= 0);
        CHECK(dnp_graph_find(g, "layer3.mlp.dropout") >= 0);
        CHECK(dnp_graph_find(g, "embed.dropout") >= 0);
    }
    dnp_graph_free(g);
    g = NULL;
    CHECK_EQ_INT(dnp_zoo_build("llama2-7b", &g, &err), DNP_OK);
    if (g != NULL)
        for (int i = 0; i < dnp_graph_n_ops(g); i++)
            CHECK(dnp_graph_op(g, i)->kind != DNP_OP_DROPOUT);
    dnp_graph_free(g);
    g = NULL;
    CHECK_EQ_INT(dnp_model_load("gpt(hidden=64,heads=4,layers=2,seq=16,dropout=0,"
                                "attn_dropout=0.25)",
                                &g, &err),
                 DNP_OK);
    if (g != NULL) {
        CHECK(dnp_graph_find(g, "layer1.mlp.dropout") < 0);
        int a = dnp_graph_find(g, "layer1.attn.dropout");
        CHECK(a >= 0);
        if (a >= 0)
            CHECK_NEAR(dnp_graph_op(g, a)->ratio, 0.25, 1e-15, 0);
        /* the probability survives the model JSON */
        char *text = dnp_model_to_json(g);
        dnp_graph *back = NULL;
        CHECK(text != NULL);
        if (text != NULL)
            CHECK_EQ_INT(dnp_model_read_json_buffer(text, strlen(text), "t", &back, &err),
                         DNP_OK);
        if (back != NULL) {
            int b = dnp_graph_find(back, "layer1.attn.dropout");
            CHECK(b >= 0);
            if (b >= 0)
                CHECK_NEAR(dnp_graph_op(back, b)->ratio, 0.25, 1e-15, 0);
        }
        dnp_graph_free(back);
        dnp_free(text);
    }
    dnp_graph_free(g);
    static const char *const bad[] = {
        "gpt(hidden=64,heads=4,layers=2,seq=16,dropout=1)",
        "gpt(hidden=64,heads=4,layers=2,seq=16,dropout=-0.1)",
        "gpt(hidden=64,heads=4,layers=2,seq=16,dropout=1e-1)",
        "gpt(hidden=64,heads=4,layers=2,seq=16,dropout=0x1)",
        "gpt(hidden=64,heads=4,layers=2,seq=16,dropout=)",
        "gpt(hidden=64,heads=4,layers=2,seq=16,dropout=0.1,dropout=0.2)",
        "gpt(hidden=64,heads=4,layers=2,seq=16,attn_dropout=nan)"};
    check_refused(bad, sizeof bad / sizeof bad[0]);
}

/* attention=flash|unfused marks the core's four ops as one fused kernel;
 * LLaMA presets default to flash, GPT and BERT to unfused. */
TEST(zoo_transformer_attention_kind)
{
    static const struct {
        const char *model;
        int flash;
    } want[] = {{"llama2-7b", 1},
                {"gpt2", 0},
                {"bert-base", 0},
                {"gpt(hidden=64,heads=4,layers=1,seq=8,attention=flash)", 1},
                {"llama(hidden=64,heads=4,layers=1,seq=8,attention=UNFUSED)", 0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        dnp_graph *g = NULL;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_model_load(want[i].model, &g, &err), DNP_OK);
        if (g == NULL)
            continue;
        static const char *const core[] = {"layer0.attn.scores", "layer0.attn.softmax",
                                           "layer0.attn.context"};
        for (int k = 0; k < 3; k++) {
            int o = dnp_graph_find(g, core[k]);
            CHECK(o >= 0);
            if (o >= 0)
                CHECK_EQ_INT(strcmp(dnp_graph_op(g, o)->src_type, "FlashAttention") == 0,
                             want[i].flash);
        }
        dnp_graph_free(g);
    }
    dnp_graph *g = NULL;
    dnp_error e = {0};
    CHECK_EQ_INT(dnp_model_load("gpt(hidden=64,heads=4,layers=1,seq=8,attention=fast)", &g, &e),
                 DNP_ERR_INPUT);
    CHECK(g == NULL && strstr(e.msg, "flash or unfused") != NULL);
}
