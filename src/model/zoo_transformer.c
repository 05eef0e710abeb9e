/*
 * zoo_transformer.c - the transformer family of the zoo: GPT, BERT and
 * LLaMA built from their published shapes, as named presets and as
 * parametric names "gpt(hidden=768,heads=12,layers=12,seq=1024,...)"
 * (docs/zoo.md, "Transformers").
 *
 * Per sample a layer's activations are [seq, hidden], viewed as c = hidden
 * features at h = seq positions (dnnpar.h, dnp_shape).  Attention is two
 * batched products per sample, scores = Q K^T over the head width and
 * context = P V over the keys, each heads x seq x seq x head_dim
 * multiply-accumulates (Vaswani et al., 2017, section 3.2.1); the
 * projections and the feed-forward layers are fully connected layers
 * applied at every position.  Views (splitting Q, K, V, heads) are free
 * reshapes.  Dropout is an op where the model trains with it: on the
 * embedding output, on the attention probabilities, after the attention
 * projection and after the MLP, the four places of GPT-2's attn_pdrop,
 * resid_pdrop and embd_pdrop and of Megatron-LM's --attention-dropout and
 * --hidden-dropout (both 0.1 by default, megatron/training/arguments.py);
 * LLaMA trains without it (Touvron et al., 2023, section 2.2 lists none).
 */
#include "model/zoo.h"
#include "model/zoo_transformer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- building blocks ----------------------------------------------- */

/* An op at every position: out = [seq, features]. */
static dnp_shape seq_shape(int64_t features, int64_t seq)
{
    dnp_shape s = {features, seq, 1};
    return s;
}

static int fc_pos(dnp_graph *g, const char *name, int in, int64_t out_features, int64_t seq,
                  int bias)
{
    dnp_op_attrs at = {0};
    at.keep_positions = 1;
    at.bias = bias;
    return dnp_graph_append(g, name, DNP_OP_FC, 1, &in, seq_shape(out_features, seq), &at);
}

/* Layer norm (scale and shift: 2 H parameters) or RMSNorm (scale only: H;
 * Zhang and Sennrich, 2019), costed as a layer norm. */
static int norm(dnp_graph *g, const char *name, int in, int64_t hidden, int64_t seq, int rms)
{
    dnp_op_attrs at = {0};
    at.param_elems = rms ? hidden : 2 * hidden;
    at.src_type = rms ? "RMSNorm" : "LayerNorm";
    return dnp_graph_append(g, name, DNP_OP_LAYERNORM, 1, &in, seq_shape(hidden, seq), &at);
}

static int eltwise(dnp_graph *g, const char *name, int n_in, const int *in, int64_t features,
                   int64_t seq, int64_t params, const char *what)
{
    dnp_op_attrs at = {0};
    at.param_elems = params;
    at.src_type = what;
    return dnp_graph_append(g, name, DNP_OP_ELTWISE, n_in, in, seq_shape(features, seq), &at);
}

static int view(dnp_graph *g, const char *name, int in, dnp_shape out)
{
    return dnp_graph_append(g, name, DNP_OP_RESHAPE, 1, &in, out, NULL);
}

/* Dropout with probability p on `in`, keeping its shape and named axes
 * (out_rank, out_dims): one kernel reading the input and writing the
 * output and the mask (docs/device-model.md).  p 0: no op, returns in. */
static int dropout(dnp_graph *g, const char *name, int in, double p, const char *src_type)
{
    if (p <= 0.0 || in < 0)
        return in;
    const dnp_op *src = dnp_graph_op(g, in);
    dnp_op_attrs at = {0};
    at.ratio = p;
    at.src_type = src_type;
    at.out_rank = dnp_op_has_axes(src) ? src->out_rank : 0; /* 0: src's view */
    memcpy(at.out_dims, src->out_dims, sizeof at.out_dims);
    return dnp_graph_append(g, name, DNP_OP_DROPOUT, 1, &in, dnp_op_out_view(src), &at);
}

/* Batched product of two activations: per sample heads x rows x cols
 * outputs, each a sum over `contract` products. */
static int bmm(dnp_graph *g, const char *name, int a, int b, int64_t heads, int64_t rows,
               int64_t cols, int64_t contract, const char *src_type)
{
    dnp_op_attrs at = {0};
    at.src_type = src_type;
    at.contract = contract;
    at.out_rank = 3;
    at.out_dims[0] = heads;
    at.out_dims[1] = rows;
    at.out_dims[2] = cols;
    int in[2] = {a, b};
    dnp_shape s = {cols, heads * rows, 1};
    return dnp_graph_append(g, name, DNP_OP_MATMUL, 2, in, s, &at);
}

/* One transformer layer on x = [S, H]; returns its output or -1. */
static int layer(dnp_graph *g, const tf_config *c, int l, int x)
{
    char n[ZOO_NAME_LEN];
    const int64_t H = c->hidden, S = c->seq, A = c->heads, D = c->hidden / c->heads;
    const int64_t KV = c->kv_heads * D; /* width of K and of V (grouped-query attention) */
    const int llama = c->family == TF_LLAMA, post_ln = c->family == TF_BERT;
    const int bias = !llama;
    int h = post_ln ? x : norm(g, zoo_fmt(n, "layer%d.ln1", l), x, H, S, llama);
    int qkv = fc_pos(g, zoo_fmt(n, "layer%d.attn.qkv", l), h, H + 2 * KV, S, bias);
    int q = view(g, zoo_fmt(n, "layer%d.attn.q", l), qkv, seq_shape(H, S));
    int k = view(g, zoo_fmt(n, "layer%d.attn.k", l), qkv, seq_shape(KV, S));
    int v = view(g, zoo_fmt(n, "layer%d.attn.v", l), qkv, seq_shape(KV, S));
    /* K and V are shared by A / kv_heads query heads: the products still
     * run once per query head */
    /* fused attention: the four ops of the core are one kernel (marked) */
    const char *core = c->flash ? ZOO_FLASH_ATTENTION : NULL;
    int sc = bmm(g, zoo_fmt(n, "layer%d.attn.scores", l), q, k, A, S, S, D, core);
    dnp_op_attrs sm = {0};
    sm.src_type = core;
    sm.out_rank = 3;
    sm.out_dims[0] = A;
    sm.out_dims[1] = S;
    sm.out_dims[2] = S;
    dnp_shape ps = {S, A * S, 1};
    int p = dnp_graph_append(g, zoo_fmt(n, "layer%d.attn.softmax", l), DNP_OP_SOFTMAX, 1, &sc,
                             ps, &sm);
    p = dropout(g, zoo_fmt(n, "layer%d.attn.dropout", l), p, c->attn_dropout,
                core ? core : "Dropout");
    int ctx = bmm(g, zoo_fmt(n, "layer%d.attn.context", l), p, v, A, S, D, S, core);
    int merged = view(g, zoo_fmt(n, "layer%d.attn.merge", l), ctx, seq_shape(H, S));
    int o = fc_pos(g, zoo_fmt(n, "layer%d.attn.out", l), merged, H, S, bias);
    o = dropout(g, zoo_fmt(n, "layer%d.attn.out_dropout", l), o, c->dropout, "Dropout");
    int r1_in[2] = {x, o};
    int r1 = dnp_graph_append(g, zoo_fmt(n, "layer%d.add1", l), DNP_OP_ADD, 2, r1_in,
                              seq_shape(H, S), NULL);
    if (post_ln)
        r1 = norm(g, zoo_fmt(n, "layer%d.ln1", l), r1, H, S, 0);
    int h2 = post_ln ? r1 : norm(g, zoo_fmt(n, "layer%d.ln2", l), r1, H, S, llama);
    int f;
    if (llama) {
        /* SwiGLU (Shazeer, 2020): down(silu(gate(x)) * up(x)) */
        int gate = fc_pos(g, zoo_fmt(n, "layer%d.mlp.gate", l), h2, c->ffn, S, 0);
        int up = fc_pos(g, zoo_fmt(n, "layer%d.mlp.up", l), h2, c->ffn, S, 0);
        int act = eltwise(g, zoo_fmt(n, "layer%d.mlp.silu", l), 1, &gate, c->ffn, S, 0, "SiLU");
        int mul_in[2] = {act, up};
        int mul = eltwise(g, zoo_fmt(n, "layer%d.mlp.mul", l), 2, mul_in, c->ffn, S, 0, "Mul");
        f = fc_pos(g, zoo_fmt(n, "layer%d.mlp.down", l), mul, H, S, 0);
    } else {
        int up = fc_pos(g, zoo_fmt(n, "layer%d.mlp.fc1", l), h2, c->ffn, S, 1);
        int act = eltwise(g, zoo_fmt(n, "layer%d.mlp.gelu", l), 1, &up, c->ffn, S, 0, "Gelu");
        f = fc_pos(g, zoo_fmt(n, "layer%d.mlp.fc2", l), act, H, S, 1);
    }
    f = dropout(g, zoo_fmt(n, "layer%d.mlp.dropout", l), f, c->dropout, "Dropout");
    int r2_in[2] = {r1, f};
    int r2 = dnp_graph_append(g, zoo_fmt(n, "layer%d.add2", l), DNP_OP_ADD, 2, r2_in,
                              seq_shape(H, S), NULL);
    if (post_ln)
        r2 = norm(g, zoo_fmt(n, "layer%d.ln2", l), r2, H, S, 0);
    return r2;
}

/* ---- the model ------------------------------------------------------- */

int zoo_transformer_build(dnp_graph *g, const tf_config *c)
{
    const int64_t H = c->hidden, S = c->seq;
    int x = dnp_graph_input(g, "tokens", 1, S, 1);
    dnp_op_attrs emb = {0};
    emb.param_elems = c->vocab * H;
    x = dnp_graph_append(g, "embed.tokens", DNP_OP_EMBEDDING, 1, &x, seq_shape(H, S), &emb);
    if (c->family != TF_LLAMA) /* learned positions; LLaMA rotates Q and K instead (RoPE) */
        x = eltwise(g, "embed.positions", 1, &x, H, S, c->max_positions * H, "PositionEmbedding");
    if (c->family == TF_BERT) {
        x = eltwise(g, "embed.token_types", 1, &x, H, S, 2 * H, "TokenTypeEmbedding");
        x = norm(g, "embed.ln", x, H, S, 0);
    }
    x = dropout(g, "embed.dropout", x, c->dropout, "Dropout");
    for (int l = 0; l < c->layers && x >= 0; l++)
        x = layer(g, c, l, x);
    if (x < 0)
        return -1;
    if (c->family != TF_BERT && !zoo_transformer_tied(c)) {
        /* an output layer of its own (LLaMA; Megatron-LM's
         * --untie-embeddings-and-output-weights) */
        x = norm(g, c->family == TF_LLAMA ? "norm" : "ln_f", x, H, S, c->family == TF_LLAMA);
        return fc_pos(g, "lm_head", x, c->vocab, S, 0);
    }
    switch (c->family) {
    case TF_GPT:
    case TF_LLAMA: {
        /* GPT-2 ties the output projection to the token embedding (Radford
         * et al., 2019): the logits are a product with the table, whose
         * parameters the embedding already counts */
        x = norm(g, c->family == TF_LLAMA ? "norm" : "ln_f", x, H, S, c->family == TF_LLAMA);
        dnp_op_attrs head = {0};
        head.contract = H;
        int in[2] = {x, x};
        return dnp_graph_append(g, "lm_head.tied", DNP_OP_MATMUL, 2, in,
                                seq_shape(c->vocab, S), &head);
    }
    default: {
        /* BERT: the pooler (dense + tanh on the first token), as the
         * published parameter counts include it; the pre-training heads
         * are not built (docs/zoo.md) */
        int first = view(g, "pooler.first_token", x, seq_shape(H, 1));
        int p = fc_pos(g, "pooler.dense", first, H, 1, 1);
        return eltwise(g, "pooler.tanh", 1, &p, H, 1, 0, "Tanh");
    }
    }
}

/* ---- presets -------------------------------------------------------- */

/* Shapes from the papers and model cards cited in docs/zoo.md. */
static const struct {
    const char *name;
    tf_config c;
    const char *description;
} k_presets[] = {
    {"bert-base", {TF_BERT, 768, 12, 12, 12, 512, 3072, 30522, 512, 0.1, 0.1, 0, TF_HEAD_DEFAULT},
     "BERT-Base (Devlin et al., 2019): 12 layers, hidden 768, 12 heads, sequence 512"},
    {"bert-large", {TF_BERT, 1024, 16, 16, 24, 512, 4096, 30522, 512, 0.1, 0.1, 0, TF_HEAD_DEFAULT},
     "BERT-Large: 24 layers, hidden 1024, 16 heads, sequence 512"},
    {"gpt2", {TF_GPT, 768, 12, 12, 12, 1024, 3072, 50257, 1024, 0.1, 0.1, 0, TF_HEAD_DEFAULT},
     "GPT-2 small (Radford et al., 2019): 12 layers, hidden 768, sequence 1024"},
    {"gpt2-medium", {TF_GPT, 1024, 16, 16, 24, 1024, 4096, 50257, 1024, 0.1, 0.1, 0, TF_HEAD_DEFAULT},
     "GPT-2 medium: 24 layers, hidden 1024, 16 heads, sequence 1024"},
    {"gpt2-large", {TF_GPT, 1280, 20, 20, 36, 1024, 5120, 50257, 1024, 0.1, 0.1, 0, TF_HEAD_DEFAULT},
     "GPT-2 large: 36 layers, hidden 1280, 20 heads, sequence 1024"},
    {"gpt2-xl", {TF_GPT, 1600, 25, 25, 48, 1024, 6400, 50257, 1024, 0.1, 0.1, 0, TF_HEAD_DEFAULT},
     "GPT-2 XL: 48 layers, hidden 1600, 25 heads, sequence 1024"},
    {"gpt3-175b", {TF_GPT, 12288, 96, 96, 96, 2048, 49152, 50257, 2048, 0.1, 0.1, 0, TF_HEAD_DEFAULT},
     "GPT-3 175B (Brown et al., 2020, Table 2.1): 96 layers, hidden 12288, 96 heads, "
     "sequence 2048"},
    {"llama2-7b", {TF_LLAMA, 4096, 32, 32, 32, 4096, 11008, 32000, 4096, 0.0, 0.0, 1, TF_HEAD_DEFAULT},
     "Llama 2 7B (Touvron et al., 2023): 32 layers, hidden 4096, SwiGLU 11008, sequence 4096"},
    {"llama2-13b", {TF_LLAMA, 5120, 40, 40, 40, 4096, 13824, 32000, 4096, 0.0, 0.0, 1, TF_HEAD_DEFAULT},
     "Llama 2 13B: 40 layers, hidden 5120, SwiGLU 13824, sequence 4096"},
    {"llama2-70b", {TF_LLAMA, 8192, 64, 8, 80, 4096, 28672, 32000, 4096, 0.0, 0.0, 1, TF_HEAD_DEFAULT},
     "Llama 2 70B: 80 layers, hidden 8192, 8 key-value heads, SwiGLU 28672, sequence 4096"},
    {"llama3-8b", {TF_LLAMA, 4096, 32, 8, 32, 8192, 14336, 128256, 8192, 0.0, 0.0, 1, TF_HEAD_DEFAULT},
     "Llama 3 8B (Meta, 2024): 32 layers, hidden 4096, 8 key-value heads, vocab 128256, "
     "sequence 8192"},
    {"llama3-70b", {TF_LLAMA, 8192, 64, 8, 80, 8192, 28672, 128256, 8192, 0.0, 0.0, 1, TF_HEAD_DEFAULT},
     "Llama 3 70B: 80 layers, hidden 8192, 8 key-value heads, vocab 128256, "
     "sequence 8192"},
};
#define N_PRESETS ((int)(sizeof k_presets / sizeof k_presets[0]))

#define PRESET_BUILDER(i)                                                                   \
    static int build_preset_##i(dnp_graph *g) { return zoo_transformer_build(g, &k_presets[i].c); }
PRESET_BUILDER(0)
PRESET_BUILDER(1)
PRESET_BUILDER(2)
PRESET_BUILDER(3)
PRESET_BUILDER(4)
PRESET_BUILDER(5)
PRESET_BUILDER(6)
PRESET_BUILDER(7)
PRESET_BUILDER(8)
PRESET_BUILDER(9)
PRESET_BUILDER(10)
PRESET_BUILDER(11)

static zoo_model k_models[N_PRESETS];

const zoo_model *zoo_models_transformer(int *count)
{
    static int (*const builders[])(dnp_graph *) = {
        build_preset_0, build_preset_1, build_preset_2,  build_preset_3,
        build_preset_4, build_preset_5, build_preset_6,  build_preset_7,
        build_preset_8, build_preset_9, build_preset_10, build_preset_11};
    _Static_assert(sizeof builders / sizeof builders[0] == N_PRESETS, "one builder per preset");
    if (k_models[0].name == NULL)
        for (int i = 0; i < N_PRESETS; i++) {
            k_models[i].name = k_presets[i].name;
            k_models[i].description = k_presets[i].description;
            k_models[i].build = builders[i];
        }
    *count = N_PRESETS;
    return k_models;
}

/* ---- parametric names -------------------------------------------------- */

static const char *const k_family[] = {"gpt", "bert", "llama"};
static const char *const k_keys[] = {"hidden",       "heads",     "layers", "seq",
                                     "ffn",          "vocab",     "kv_heads", "dropout",
                                     "attn_dropout", "attention", "head"};
#define N_KEYS 11
#define N_INT_KEYS 7 /* the first seven are integers, then two probabilities */
#define KEY_ATTENTION 9
#define KEY_HEAD 10

int zoo_transformer_tied(const tf_config *c)
{
    return c->head == TF_HEAD_TIED || (c->head == TF_HEAD_DEFAULT && c->family == TF_GPT);
}

int zoo_transformer_is_spec(const char *name)
{
    if (name == NULL)
        return 0;
    for (int f = 0; f < 3; f++) {
        size_t n = strlen(k_family[f]);
        if (strncasecmp(name, k_family[f], n) == 0 && name[n] == '(')
            return 1;
    }
    return 0;
}

/* Limits that keep every element count of the model far inside int64. */
#define TF_MAX_DIM 1048576
#define TF_MAX_LAYERS 4096

dnp_status zoo_transformer_parse(const char *spec, tf_config *out, dnp_error *err)
{
    tf_config c = {0};
    int fam = -1;
    for (int f = 0; f < 3 && fam < 0; f++) {
        size_t n = strlen(k_family[f]);
        if (strncasecmp(spec, k_family[f], n) == 0 && spec[n] == '(')
            fam = f;
    }
    if (fam < 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "'%s' is not gpt(...), bert(...) or llama(...)", spec);
        return DNP_ERR_INPUT;
    }
    c.family = fam == 0 ? TF_GPT : fam == 1 ? TF_BERT : TF_LLAMA;
    int64_t v[N_INT_KEYS] = {0, 0, 0, 0, 0, 0, 0};
    double prob[N_KEYS - N_INT_KEYS] = {0.0, 0.0};
    int given[N_KEYS] = {0}, flash = 0, head = TF_HEAD_DEFAULT;
    const char *p = strchr(spec, '(') + 1;
    while (*p != ')') {
        const char *eq = strchr(p, '=');
        size_t klen = eq ? (size_t)(eq - p) : 0;
        int key = -1;
        for (int k = 0; k < N_KEYS && eq; k++)
            if (strlen(k_keys[k]) == klen && strncasecmp(p, k_keys[k], klen) == 0)
                key = k;
        if (key < 0) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "%s: at column %d: expected KEY=VALUE with KEY one of hidden, heads, "
                          "layers, seq, ffn, vocab, kv_heads, dropout, attn_dropout, attention, head",
                          spec, (int)(p - spec) + 1);
            return DNP_ERR_INPUT;
        }
        if (given[key]) {
            dnp_error_set(err, DNP_ERR_INPUT, "%s: '%s' given twice", spec, k_keys[key]);
            return DNP_ERR_INPUT;
        }
        given[key] = 1;
        const char *num = eq + 1;
        char *end = NULL;
        errno = 0;
        if (key == KEY_ATTENTION) {
            /* a word: flash or unfused */
            size_t len = strcspn(num, ",)");
            if ((len == 5 && strncasecmp(num, "flash", 5) == 0) ||
                (len == 7 && strncasecmp(num, "unfused", 7) == 0)) {
                flash = len == 5;
                end = (char *)num + len;
                p = *end == ',' ? end + 1 : end;
                continue;
            }
            dnp_error_set(err, DNP_ERR_INPUT,
                          "%s: at column %d: 'attention' must be flash or unfused", spec,
                          (int)(num - spec) + 1);
            return DNP_ERR_INPUT;
        }
        if (key == KEY_HEAD) {
            /* a word: tied or untied; BERT is built without an output layer */
            size_t len = strcspn(num, ",)");
            if (c.family != TF_BERT && ((len == 4 && strncasecmp(num, "tied", 4) == 0) ||
                                        (len == 6 && strncasecmp(num, "untied", 6) == 0))) {
                head = len == 4 ? TF_HEAD_TIED : TF_HEAD_UNTIED;
                end = (char *)num + len;
                p = *end == ',' ? end + 1 : end;
                continue;
            }
            dnp_error_set(err, DNP_ERR_INPUT, "%s: at column %d: %s", spec,
                          (int)(num - spec) + 1,
                          c.family == TF_BERT ? "bert(...) has no output layer to tie ('head')"
                                              : "'head' must be tied or untied");
            return DNP_ERR_INPUT;
        }
        if (key >= N_INT_KEYS) {
            /* a probability: a plain decimal in [0, 1) (no sign, exponent,
             * hexadecimal or infinity) */
            size_t digits = strspn(num, "0123456789.");
            double x = digits > 0 ? strtod(num, &end) : -1.0;
            if (digits == 0 || end != num + digits || (*end != ',' && *end != ')') ||
                !(x >= 0.0 && x < 1.0)) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "%s: at column %d: '%s' must be a probability from 0 to below 1 "
                              "(e.g. 0.1)",
                              spec, (int)(num - spec) + 1, k_keys[key]);
                return DNP_ERR_INPUT;
            }
            prob[key - N_INT_KEYS] = x;
            p = *end == ',' ? end + 1 : end;
            continue;
        }
        long long x = (num[0] >= '0' && num[0] <= '9') ? strtoll(num, &end, 10) : -1;
        if (x < 1 || errno == ERANGE || end == NULL || (*end != ',' && *end != ')') ||
            x > (key == 2 ? TF_MAX_LAYERS : TF_MAX_DIM)) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "%s: at column %d: '%s' must be an integer from 1 to %d", spec,
                          (int)(num - spec) + 1, k_keys[key],
                          key == 2 ? TF_MAX_LAYERS : TF_MAX_DIM);
            return DNP_ERR_INPUT;
        }
        v[key] = x;
        p = *end == ',' ? end + 1 : end;
    }
    if (p[1] != '\0') {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: text after ')' at column %d", spec,
                      (int)(p - spec) + 2);
        return DNP_ERR_INPUT;
    }
    for (int k = 0; k < 4; k++)
        if (v[k] == 0) {
            dnp_error_set(err, DNP_ERR_INPUT, "%s: '%s' is required (hidden, heads, layers, seq)",
                          spec, k_keys[k]);
            return DNP_ERR_INPUT;
        }
    c.hidden = v[0];
    c.heads = v[1];
    c.layers = (int)v[2];
    c.seq = v[3];
    c.max_positions = v[3];
    c.ffn = v[4] ? v[4] : 4 * v[0];
    c.vocab = v[5] ? v[5] : (c.family == TF_BERT ? 30522 : c.family == TF_GPT ? 50257 : 32000);
    c.kv_heads = v[6] ? v[6] : v[1];
    /* GPT-2 and BERT train with 0.1 (their configurations' *_pdrop and
     * *_dropout_prob), as Megatron-LM does by default; LLaMA with none */
    c.dropout = given[7] ? prob[0] : c.family == TF_LLAMA ? 0.0 : 0.1;
    c.attn_dropout = given[8] ? prob[1] : c.dropout;
    /* attention as the family's stacks run it by default: Megatron-LM's GPT
     * and BERT with the unfused core (and fused softmax), LLaMA with a
     * fused kernel (xformers' memory-efficient attention in Meta's
     * training, FlashAttention / Transformer Engine in Megatron-LM's
     * recipes) */
    c.flash = given[KEY_ATTENTION] ? flash : c.family == TF_LLAMA;
    c.head = head;
    if (c.hidden % c.heads != 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: hidden %lld is not a multiple of heads %lld", spec,
                      (long long)c.hidden, (long long)c.heads);
        return DNP_ERR_INPUT;
    }
    if (c.kv_heads > c.heads || c.heads % c.kv_heads != 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: kv_heads %lld must divide heads %lld", spec,
                      (long long)c.kv_heads, (long long)c.heads);
        return DNP_ERR_INPUT;
    }
    *out = c;
    return DNP_OK;
}

dnp_status zoo_transformer_build_spec(const char *spec, dnp_graph **out, dnp_error *err)
{
    tf_config c;
    dnp_status st = zoo_transformer_parse(spec, &c, err);
    if (st != DNP_OK)
        return st;
    /* the graph's name: the family and the shape, short enough for the
     * graph's 63-character names (defaults left out) */
    char name[96];
    int w = snprintf(name, sizeof name, "%s-l%d-h%lld-a%lld-s%lld", k_family[c.family], c.layers,
                     (long long)c.hidden, (long long)c.heads, (long long)c.seq);
    if (c.ffn != 4 * c.hidden)
        w += snprintf(name + w, sizeof name - (size_t)w, "-f%lld", (long long)c.ffn);
    if (c.kv_heads != c.heads)
        w += snprintf(name + w, sizeof name - (size_t)w, "-kv%lld", (long long)c.kv_heads);
    w += snprintf(name + w, sizeof name - (size_t)w, "-v%lld", (long long)c.vocab);
    /* dropout other than the family's default, in per mille */
    const double def = c.family == TF_LLAMA ? 0.0 : 0.1;
    if (c.dropout != def || c.attn_dropout != def)
        w += snprintf(name + w, sizeof name - (size_t)w, "-d%d-ad%d",
                      (int)(c.dropout * 1000.0 + 0.5), (int)(c.attn_dropout * 1000.0 + 0.5));
    if (c.flash != (c.family == TF_LLAMA))
        w += snprintf(name + w, sizeof name - (size_t)w, "-%s", c.flash ? "flash" : "unfused");
    if (c.head != TF_HEAD_DEFAULT && zoo_transformer_tied(&c) != (c.family == TF_GPT))
        snprintf(name + w, sizeof name - (size_t)w, "-%s",
                 zoo_transformer_tied(&c) ? "tied" : "untied");
    dnp_graph *g = dnp_graph_new(name);
    if (g == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building model '%s'", spec);
        return DNP_ERR_NOMEM;
    }
    char note[224];
    snprintf(note, sizeof note, "%s: %d layers, hidden %lld, %lld heads (%lld key-value), "
             "feed-forward %lld, vocabulary %lld, sequence %lld, dropout %g (attention %g), "
             "%s attention",
             k_family[c.family], c.layers, (long long)c.hidden, (long long)c.heads,
             (long long)c.kv_heads, (long long)c.ffn, (long long)c.vocab, (long long)c.seq,
             c.dropout, c.attn_dropout, c.flash ? "flash" : "unfused");
    dnp_graph_set_note(g, note);
    if (zoo_transformer_build(g, &c) < 0 || dnp_graph_error(g)[0] != '\0') {
        dnp_status s2 = strncmp(dnp_graph_error(g), "out of memory", 13) == 0 ? DNP_ERR_NOMEM
                                                                             : DNP_ERR_INPUT;
        dnp_error_set(err, s2, "building model '%s': %s", spec, dnp_graph_error(g));
        dnp_graph_free(g);
        return s2;
    }
    *out = g;
    return DNP_OK;
}
