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

/* ---- the layout (dnp_graph_transformer_layout) ------------------------ */

/* The role of every op of g named in want[] (name, role), checked one by
 * one, and every op's layer against its zoo name ("layer<l>." -> l, else
 * -1): the structure finds exactly the layers the zoo built. */
typedef struct {
    const char *name;
    dnp_tf_role role;
} role_row;

static void check_layout(const char *zoo, const role_row *want, size_t n_want, int layers,
                         int post_ln)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_zoo_build(zoo, &g, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_transformer_layout *lay = NULL;
    dnp_status st = dnp_graph_transformer_layout(g, &lay, &err);
    if (st != DNP_OK)
        printf("  %s: %s\n", zoo, err.msg);
    CHECK_EQ_INT(st, DNP_OK);
    if (lay != NULL) {
        CHECK_EQ_INT(lay->layers, layers);
        CHECK_EQ_INT(lay->post_ln, post_ln);
        CHECK_EQ_INT(lay->n_ops, dnp_graph_n_ops(g));
        int bad = 0;
        for (int i = 0; i < lay->n_ops; i++) {
            int l = -1;
            if (sscanf(dnp_graph_op(g, i)->name, "layer%d.", &l) != 1)
                l = -1;
            if (l != lay->layer[i] && bad++ < 3)
                printf("  %s: op %d '%s' in layer %d, named for %d\n", zoo, i,
                       dnp_graph_op(g, i)->name, lay->layer[i], l);
        }
        CHECK_EQ_INT(bad, 0);
        for (size_t k = 0; k < n_want; k++) {
            int i = dnp_graph_find(g, want[k].name);
            CHECK(i >= 0);
            if (i < 0)
                continue;
            if (lay->role[i] != want[k].role)
                printf("  %s: '%s' is %s, expected %s\n", zoo, want[k].name,
                       dnp_tf_role_name(lay->role[i]), dnp_tf_role_name(want[k].role));
            CHECK_EQ_INT(lay->role[i], want[k].role);
        }
    }
    dnp_transformer_layout_free(lay);
    dnp_graph_free(g);
}

/* GPT-2 (pre-LN, learned positions, dropouts, tied head): every op of
 * layer 0, the embedding and the head. */
TEST(recognize_layout_gpt2)
{
    static const role_row want[] = {
        {"tokens", DNP_TF_OTHER},
        {"embed.tokens", DNP_TF_EMBED_TOKENS},
        {"embed.positions", DNP_TF_EMBED_POSITIONS},
        {"embed.dropout", DNP_TF_DROPOUT},
        {"layer0.ln1", DNP_TF_NORM},
        {"layer0.attn.qkv", DNP_TF_QKV},
        {"layer0.attn.q", DNP_TF_VIEW},
        {"layer0.attn.k", DNP_TF_VIEW},
        {"layer0.attn.v", DNP_TF_VIEW},
        {"layer0.attn.scores", DNP_TF_SCORES},
        {"layer0.attn.softmax", DNP_TF_SOFTMAX},
        {"layer0.attn.dropout", DNP_TF_ATTN_DROPOUT},
        {"layer0.attn.context", DNP_TF_CONTEXT},
        {"layer0.attn.merge", DNP_TF_VIEW},
        {"layer0.attn.out", DNP_TF_PROJ},
        {"layer0.attn.out_dropout", DNP_TF_DROPOUT},
        {"layer0.add1", DNP_TF_RESIDUAL},
        {"layer0.ln2", DNP_TF_NORM},
        {"layer0.mlp.fc1", DNP_TF_MLP_UP},
        {"layer0.mlp.gelu", DNP_TF_MLP_ACT},
        {"layer0.mlp.fc2", DNP_TF_MLP_DOWN},
        {"layer0.mlp.dropout", DNP_TF_DROPOUT},
        {"layer0.add2", DNP_TF_RESIDUAL},
        {"layer11.attn.qkv", DNP_TF_QKV},
        {"ln_f", DNP_TF_NORM},
        {"lm_head.tied", DNP_TF_HEAD_TIED},
    };
    check_layout("gpt2", want, sizeof want / sizeof want[0], 12, 0);
    /* 12 layers of 19 ops, 4 before (input, tokens, positions, dropout),
     * 2 after: the op count itself */
    dnp_graph *g = NULL;
    dnp_error err = {0};
    dnp_transformer_layout *lay = NULL;
    CHECK_EQ_INT(dnp_zoo_build("gpt2", &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_graph_transformer_layout(g, &lay, &err), DNP_OK);
    if (lay != NULL) {
        CHECK_EQ_INT(lay->n_ops, 4 + 12 * 19 + 2);
        CHECK_EQ_INT(lay->first_op, 4);
        CHECK_EQ_INT(lay->last_op, 4 + 12 * 19 - 1);
        CHECK_EQ_INT(lay->hidden, 768);
        CHECK_EQ_INT(lay->heads, 12);
        CHECK_EQ_INT(lay->seq, 1024);
        CHECK_EQ_INT(lay->vocab, 50257);
        CHECK_EQ_INT(lay->embed_op, 1);
    }
    dnp_transformer_layout_free(lay);
    dnp_graph_free(g);
}

/* LLaMA 2 (RMSNorm, no positions, no dropout, SwiGLU, flash attention,
 * untied head). */
TEST(recognize_layout_llama2)
{
    static const role_row want[] = {
        {"embed.tokens", DNP_TF_EMBED_TOKENS},
        {"layer0.ln1", DNP_TF_NORM},
        {"layer0.attn.qkv", DNP_TF_QKV},
        {"layer0.attn.k", DNP_TF_VIEW},
        {"layer0.attn.scores", DNP_TF_SCORES},
        {"layer0.attn.softmax", DNP_TF_SOFTMAX},
        {"layer0.attn.context", DNP_TF_CONTEXT},
        {"layer0.attn.out", DNP_TF_PROJ},
        {"layer0.add1", DNP_TF_RESIDUAL},
        {"layer0.ln2", DNP_TF_NORM},
        {"layer0.mlp.gate", DNP_TF_MLP_GATE},
        {"layer0.mlp.up", DNP_TF_MLP_UP},
        {"layer0.mlp.silu", DNP_TF_MLP_ACT},
        {"layer0.mlp.mul", DNP_TF_MLP_ACT},
        {"layer0.mlp.down", DNP_TF_MLP_DOWN},
        {"layer0.add2", DNP_TF_RESIDUAL},
        {"norm", DNP_TF_NORM},
        {"lm_head", DNP_TF_HEAD},
    };
    check_layout("llama2-7b", want, sizeof want / sizeof want[0], 32, 0);
    /* grouped-query attention, a tied head */
    static const role_row tied[] = {{"layer1.attn.qkv", DNP_TF_QKV},
                                    {"lm_head.tied", DNP_TF_HEAD_TIED}};
    check_layout("llama(hidden=256,heads=8,kv_heads=2,layers=2,seq=64,head=tied,"
                 "attention=unfused)",
                 tied, 2, 2, 0);
}

/* BERT (post-LN: the norms after the adds belong to the layer; token
 * types; the pooler) and an untied GPT. */
TEST(recognize_layout_bert_and_untied_gpt)
{
    static const role_row want[] = {
        {"embed.positions", DNP_TF_EMBED_POSITIONS},
        {"embed.token_types", DNP_TF_EMBED_OTHER},
        {"embed.ln", DNP_TF_NORM},
        {"layer0.attn.qkv", DNP_TF_QKV},
        {"layer0.add1", DNP_TF_RESIDUAL},
        {"layer0.ln1", DNP_TF_NORM},
        {"layer0.mlp.fc1", DNP_TF_MLP_UP},
        {"layer0.add2", DNP_TF_RESIDUAL},
        {"layer0.ln2", DNP_TF_NORM},
        {"layer1.ln2", DNP_TF_NORM},
        {"pooler.first_token", DNP_TF_VIEW},
        {"pooler.dense", DNP_TF_POOLER},
        {"pooler.tanh", DNP_TF_POOLER},
    };
    check_layout("bert(hidden=256,heads=4,layers=2,seq=64)", want, sizeof want / sizeof want[0],
                 2, 1);
    /* one post-LN layer: its last norm still its own */
    check_layout("bert(hidden=256,heads=4,layers=1,seq=64)", want + 5, 4, 1, 1);
    static const role_row untied[] = {{"ln_f", DNP_TF_NORM}, {"lm_head", DNP_TF_HEAD}};
    check_layout("gpt(hidden=256,heads=4,layers=3,seq=64,head=untied,attention=flash)", untied,
                 2, 3, 0);
}

/* The ONNX export of PyTorch's TransformerEncoderLayer stack (post-LN,
 * ReLU, no dropout; its decomposed layer norms and bias adds fused at
 * import, docs/onnx.md "Fusion"): op indices as `dnnpar info
 * data/onnx/bert_encoder4.onnx` lists them. */
TEST(recognize_layout_onnx_bert_encoder)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("data/onnx/bert_encoder4.onnx", &g, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_transformer_layout *lay = NULL;
    dnp_status st = dnp_graph_transformer_layout(g, &lay, &err);
    if (st != DNP_OK)
        printf("  %s\n", err.msg);
    CHECK_EQ_INT(st, DNP_OK);
    if (lay != NULL) {
        CHECK_EQ_INT(lay->layers, 4);
        CHECK_EQ_INT(lay->post_ln, 1);
        CHECK_EQ_INT(lay->hidden, 768);
        CHECK_EQ_INT(lay->heads, 12);
        CHECK_EQ_INT(lay->seq, 128);
        CHECK_EQ_INT(lay->vocab, 30522);
        CHECK_EQ_INT(lay->embed_op, 1);
        /* layer 0: (1, 28] (the embedding's output is its input; op 2 the
         * layer's transpose); ops 23 and 28 the norms */
        static const struct {
            int op;
            dnp_tf_role role;
        } want[] = {{1, DNP_TF_EMBED_TOKENS}, {2, DNP_TF_VIEW},        {3, DNP_TF_QKV},
                    {4, DNP_TF_VIEW},         {12, DNP_TF_ATTN_PREP},  {14, DNP_TF_SCORES},
                    {15, DNP_TF_SOFTMAX},     {16, DNP_TF_CONTEXT},    {19, DNP_TF_PROJ},
                    {22, DNP_TF_RESIDUAL},    {23, DNP_TF_NORM},       {24, DNP_TF_MLP_UP},
                    {25, DNP_TF_MLP_ACT},     {26, DNP_TF_MLP_DOWN},   {27, DNP_TF_RESIDUAL},
                    {28, DNP_TF_NORM},        {29, DNP_TF_VIEW},       {30, DNP_TF_QKV}};
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
            if (lay->role[want[k].op] != want[k].role)
                printf("  op %d: %s, expected %s\n", want[k].op,
                       dnp_tf_role_name(lay->role[want[k].op]), dnp_tf_role_name(want[k].role));
            CHECK_EQ_INT(lay->role[want[k].op], want[k].role);
        }
        CHECK_EQ_INT(lay->first_op, 2);
        CHECK_EQ_INT(lay->layer[1], -1);
        CHECK_EQ_INT(lay->layer[2], 0);
        CHECK_EQ_INT(lay->layer[28], 0);
        CHECK_EQ_INT(lay->layer[30], 1);
        /* every layer has as many ops as the first (27); the head (op
         * 110, its bias fused) last */
        int count[4] = {0};
        for (int i = 0; i < lay->n_ops; i++)
            if (lay->layer[i] >= 0)
                count[lay->layer[i]]++;
        for (int l = 1; l < 4; l++)
            CHECK_EQ_INT(count[l], count[0]);
        CHECK_EQ_INT(count[0], 27);
        CHECK_EQ_INT(lay->n_ops, 111);
        CHECK_EQ_INT(lay->last_op, 109);
        CHECK_EQ_INT(lay->role[109], DNP_TF_NORM);
        CHECK_EQ_INT(lay->layer[109], 3);
        CHECK_EQ_INT(lay->role[110], DNP_TF_HEAD);
        CHECK_EQ_INT(lay->layer[110], -1);
    }
    dnp_transformer_layout_free(lay);
    dnp_graph_free(g);
}

/* The renamed zoo transformers (model JSON, no zoo op names) give the
 * same layout as the zoo graphs, op by op. */
TEST(recognize_layout_renamed_json)
{
    static const char *const models[] = {
        "gpt2", "bert(hidden=256,heads=4,layers=2,seq=64)",
        "llama(hidden=256,heads=8,kv_heads=2,layers=2,seq=64)"};
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
        dnp_graph *g = NULL, *r = NULL;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_zoo_build(models[k], &g, &err), DNP_OK);
        r = g != NULL ? renamed(g) : NULL;
        CHECK(r != NULL);
        dnp_transformer_layout *a = NULL, *b = NULL;
        if (r != NULL) {
            CHECK_EQ_INT(dnp_graph_transformer_layout(g, &a, &err), DNP_OK);
            CHECK_EQ_INT(dnp_graph_transformer_layout(r, &b, &err), DNP_OK);
        }
        if (a != NULL && b != NULL) {
            CHECK_EQ_INT(a->n_ops, b->n_ops);
            int same = a->n_ops == b->n_ops && a->layers == b->layers;
            for (int i = 0; same && i < a->n_ops; i++)
                same = a->layer[i] == b->layer[i] && a->role[i] == b->role[i];
            CHECK(same);
        }
        dnp_transformer_layout_free(a);
        dnp_transformer_layout_free(b);
        dnp_graph_free(r);
        dnp_graph_free(g);
    }
}

/* Graphs that are not transformers: refused with the reason, *out NULL. */
TEST(recognize_layout_refuses)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    dnp_transformer_layout *lay = (dnp_transformer_layout *)&err; /* overwritten */
    CHECK_EQ_INT(dnp_model_load("resnet50", &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_graph_transformer_layout(g, &lay, &err), DNP_ERR_INPUT);
    CHECK(lay == NULL);
    CHECK(strstr(err.msg, "no token embedding") != NULL);
    dnp_graph_free(g);
    /* a token embedding and an MLP but no attention */
    memset(&err, 0, sizeof err);
    g = dnp_graph_new("emb-mlp");
    int x = dnp_graph_input(g, "ids", 1, 16, 1);
    dnp_op_attrs at = {0};
    at.param_elems = 1000 * 64;
    dnp_shape s = {64, 16, 1};
    x = dnp_graph_append(g, "table", DNP_OP_EMBEDDING, 1, &x, s, &at);
    dnp_op_attrs fc = {0};
    fc.keep_positions = 1;
    dnp_shape s2 = {256, 16, 1};
    x = dnp_graph_append(g, "up", DNP_OP_FC, 1, &x, s2, &fc);
    CHECK(x >= 0);
    CHECK_EQ_INT(dnp_graph_transformer_layout(g, &lay, &err), DNP_ERR_INPUT);
    CHECK(lay == NULL);
    if (strstr(err.msg, "no attention") == NULL)
        printf("  %s\n", err.msg);
    CHECK(strstr(err.msg, "no attention") != NULL);
    CHECK(strstr(err.msg, "'emb-mlp'") != NULL);
    dnp_graph_free(g);
}

/* A zoo transformer written as a model JSON with every op renamed is
 * simulated exactly as the zoo graph (the simulator reads the layout,
 * never the names): the same step, bubble and tensor-parallel traffic to
 * the bit, tp 2 x pp 2 x dp 2 on a DGX A100, with sequence parallelism and
 * tp_overlap on the LLaMA (GQA, SwiGLU, flash attention). */
TEST(recognize_renamed_simulates_as_zoo)
{
    static const struct {
        const char *model, *cfg;
    } cases[] = {{"gpt(hidden=256,heads=4,layers=4,seq=64)", "tp=2,pp=2,dp=2,microbatch=2"},
                 {"llama(hidden=256,heads=8,kv_heads=2,layers=4,seq=64)",
                  "tp=2,pp=2,dp=2,microbatch=2,seq_par=1,tp_overlap=1"},
                 {"bert(hidden=256,heads=4,layers=4,seq=64)",
                  "tp=2,pp=2,dp=2,microbatch=4,recompute=selective"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        dnp_graph *g = NULL, *r = NULL;
        dnp_error err = {0};
        dnp_cluster cl;
        dnp_config3d cfg;
        CHECK_EQ_INT(dnp_zoo_build(cases[k].model, &g, &err), DNP_OK);
        CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100", &cl, &err), DNP_OK);
        CHECK_EQ_INT(dnp_config3d_parse(cases[k].cfg, &cfg, &err), DNP_OK);
        r = g != NULL ? renamed(g) : NULL;
        CHECK(r != NULL);
        if (r == NULL) {
            dnp_graph_free(g);
            continue;
        }
        dnp_plan_options opt = {0};
        opt.batch = 32;
        opt.optimizer = DNP_OPTIM_ADAM;
        opt.precision = DNP_PREC_BF16;
        dnp_config3d_result a, b;
        CHECK_EQ_INT(dnp_config3d_simulate(g, &cl, 32, &opt, &cfg, &a, &err), DNP_OK);
        dnp_status st = dnp_config3d_simulate(r, &cl, 32, &opt, &cfg, &b, &err);
        if (st != DNP_OK)
            printf("  %s renamed: %s\n", cases[k].model, err.msg);
        CHECK_EQ_INT(st, DNP_OK);
        CHECK(a.step_time_s > 0.0 && a.step_time_s == b.step_time_s);
        CHECK(a.bubble_s == b.bubble_s && a.tp_comm_s == b.tp_comm_s);
        CHECK(a.model_flop == b.model_flop && a.dp_comm_s == b.dp_comm_s);
        dnp_graph_free(r);
        dnp_graph_free(g);
    }
}
