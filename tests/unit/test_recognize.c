/* test_recognize.c - transformers recognised by structure (src/model/
 * recognize.c, dnp_graph_match_transformer): the zoo's own transformers
 * under other op names give back their spec and parameters exactly; the
 * ONNX export of PyTorch's TransformerEncoderLayer stack
 * (data/onnx/bert_encoder4.onnx, data/onnx/README.md: vocabulary 30522,
 * width 768, 12 heads, feed-forward 3072, four layers, an untied linear
 * head, sequence 128) is read as that shape; CNNs and a vision transformer
 * are refused with the reason. */
#include "test.h"

#include "dnnpar.h"

#include <stdio.h>
#include <string.h>

/* g's model JSON with every op renamed "op<i>" (no name the zoo's readers
 * know), read back.  NULL on failure. */
static dnp_graph *renamed(const dnp_graph *g)
{
    char *json = dnp_model_to_json(g);
    if (json == NULL)
        return NULL;
    /* rebuild the text: each "name": "X" becomes "name": "op<i>", and each
     * input reference is by name too, so map every name */
    size_t cap = strlen(json) * 2 + 1024, o = 0;
    char *out = dnp_malloc(cap);
    const char *p = json;
    while (out != NULL && *p) {
        const char *q = strchr(p, '"');
        if (q == NULL) {
            o += (size_t)snprintf(out + o, cap - o, "%s", p);
            break;
        }
        const char *e = strchr(q + 1, '"');
        if (e == NULL)
            break;
        memcpy(out + o, p, (size_t)(q - p));
        o += (size_t)(q - p);
        char word[128];
        size_t len = (size_t)(e - q - 1);
        int idx = -1;
        if (len < sizeof word) {
            memcpy(word, q + 1, len);
            word[len] = '\0';
            idx = dnp_graph_find(g, word);
        }
        /* a quoted word that is an op's name (and not the graph's own name) */
        if (idx >= 0 && strcmp(word, dnp_graph_name(g)) != 0)
            o += (size_t)snprintf(out + o, cap - o, "\"op%d\"", idx);
        else {
            memcpy(out + o, q, (size_t)(e - q + 1));
            o += (size_t)(e - q + 1);
        }
        p = e + 1;
    }
    dnp_graph *r = NULL;
    dnp_error err = {0};
    if (out != NULL && dnp_model_read_json_buffer(out, o, "renamed", &r, &err) != DNP_OK)
        printf("  renamed: %s\n", err.msg);
    dnp_free(out);
    dnp_free(json);
    return r;
}

static void check_roundtrip(const char *zoo, const char *want_spec)
{
    dnp_graph *g = NULL, *r = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_zoo_build(zoo, &g, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_transformer_match m;
    CHECK_EQ_INT(dnp_graph_match_transformer(g, &m, &err), DNP_OK);
    CHECK_EQ_INT(m.native, 1);
    r = renamed(g);
    CHECK(r != NULL);
    if (r != NULL) {
        CHECK(dnp_graph_find(r, "embed.tokens") < 0);
        dnp_status st = dnp_graph_match_transformer(r, &m, &err);
        if (st != DNP_OK)
            printf("  %s: %s\n", zoo, err.msg);
        CHECK_EQ_INT(st, DNP_OK);
        CHECK_EQ_INT(m.native, 0);
        CHECK_STR(m.spec, want_spec);
        CHECK_EQ_INT(m.params_spec, m.params_model);
    }
    dnp_graph_free(r);
    dnp_graph_free(g);
}

TEST(recognize_zoo_transformers_renamed)
{
    check_roundtrip("gpt2-medium", "gpt(hidden=1024,heads=16,layers=24,seq=1024,ffn=4096,"
                                   "vocab=50257,dropout=0.1,attn_dropout=0.1,"
                                   "attention=unfused)");
    /* grouped-query attention and SwiGLU, fused attention */
    check_roundtrip("llama(hidden=1024,heads=16,layers=2,seq=256,kv_heads=4,ffn=2816)",
                    "llama(hidden=1024,heads=16,layers=2,seq=256,ffn=2816,vocab=32000,"
                    "kv_heads=4,dropout=0,attn_dropout=0,attention=flash)");
    /* an encoder: no output layer, the pooler */
    check_roundtrip("bert(hidden=256,heads=4,layers=2,seq=64)",
                    "bert(hidden=256,heads=4,layers=2,seq=64,ffn=1024,vocab=30522,"
                    "dropout=0.1,attn_dropout=0.1,attention=unfused)");
    /* GPT with an output layer of its own; ffn = 3 H beside fused QKV */
    check_roundtrip("gpt(hidden=256,heads=4,layers=2,seq=64,ffn=768,head=untied)",
                    "gpt(hidden=256,heads=4,layers=2,seq=64,ffn=768,vocab=50257,"
                    "dropout=0.1,attn_dropout=0.1,attention=unfused,head=untied)");
}

TEST(recognize_onnx_bert_encoder)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("data/onnx/bert_encoder4.onnx", &g, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_transformer_match m;
    dnp_status st = dnp_graph_match_transformer(g, &m, &err);
    if (st != DNP_OK)
        printf("  %s\n", err.msg);
    CHECK_EQ_INT(st, DNP_OK);
    CHECK_STR(m.spec, "gpt(hidden=768,heads=12,layers=4,seq=128,ffn=3072,vocab=30522,"
                      "dropout=0,attn_dropout=0,attention=unfused,head=untied)");
    /* data/onnx/README.md: 75,263,802 parameters; the GPT of that shape adds
     * learned positions (128 x 768) and keeps the same layers and head */
    CHECK_EQ_INT(m.params_model, 75263802);
    CHECK(m.params_spec > m.params_model && m.params_spec < m.params_model * 1.02);
    CHECK(strstr(m.assumed, "no dropout") != NULL);
    CHECK(strstr(m.assumed, "ReLU") != NULL);
    dnp_graph_free(g);
}

TEST(recognize_refuses_non_transformers)
{
    static const struct {
        const char *model, *why;
    } cases[] = {{"resnet50", "no token embedding"},
                 {"data/onnx/vit_tiny.onnx", "no token embedding"},
                 {"alexnet", "no token embedding"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dnp_graph *g = NULL;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_model_load(cases[i].model, &g, &err), DNP_OK);
        if (g == NULL)
            continue;
        dnp_transformer_match m;
        CHECK_EQ_INT(dnp_graph_match_transformer(g, &m, &err), DNP_ERR_INPUT);
        CHECK(strstr(err.msg, cases[i].why) != NULL);
        dnp_graph_free(g);
    }
}
