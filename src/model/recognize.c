/*
 * recognize.c - a model recognised as a token transformer by its structure
 * (dnp_graph_match_transformer in dnnpar.h; docs/config3d.md "Your own
 * transformer").
 *
 * The Megatron-LM (3D) path plans the zoo's transformers, whose ops it
 * knows by name.  A user's transformer (an ONNX export, a model JSON) has
 * other names and other small ops (a decomposed layer norm, a ReLU, a bias
 * add), but the same costly structure: a token embedding, per layer one
 * attention (scores, softmax, context) between per-position fully connected
 * layers, and an output layer.  This module reads that structure's shape
 * from the kinds and sizes of the ops and writes the zoo spec of the
 * transformer of the same shape, whose parameter count must agree with the
 * graph's within 2%.
 *
 * Ownership: g is only read; the zoo graph built for the parameter check
 * is freed here.  Includes model/ headers only.
 */
#include "dnnpar/model.h"
#include "model/zoo_transformer.h"

#include <stdio.h>
#include <string.h>

/* The parameter counts agree within this fraction (docs/config3d.md). */
#define MATCH_PARAMS_TOLERANCE 0.02
/* Ops walked back from a softmax to the product of its scores (scale,
 * mask, reshape between them). */
#define MATCH_BACK_STEPS 6

static int64_t total_params(const dnp_graph *g)
{
    dnp_graph_totals t;
    dnp_graph_totals_get(g, 1, &t);
    return t.params;
}

/* 1 if a MATMUL (an activation product) is among the first
 * MATCH_BACK_STEPS producers of op i along first inputs. */
static int fed_by_product(const dnp_graph *g, int i)
{
    for (int step = 0; step < MATCH_BACK_STEPS; step++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->n_inputs < 1)
            return 0;
        i = op->inputs[0];
        if (dnp_graph_op(g, i)->kind == DNP_OP_MATMUL)
            return 1;
    }
    return 0;
}

/* An attention's scores as (heads, sequence): the softmax's output is
 * heads x queries x keys per sample (named axes when the op has them, else
 * the c x h x w view: c the keys, h w the heads x queries). */
static void scores_shape(const dnp_op *op, int64_t *heads, int64_t *seq)
{
    if (op->out_rank >= 3) {
        int r = op->out_rank;
        *seq = op->out_dims[r - 1];
        *heads = 1;
        for (int k = 0; k < r - 2; k++)
            *heads *= op->out_dims[k];
        return;
    }
    *seq = op->out.c;
    int64_t rows = op->out.h * op->out.w;
    *heads = *seq > 0 && rows % *seq == 0 ? rows / *seq : 0;
}

static dnp_status fail(dnp_error *err, const dnp_graph *g, const char *what)
{
    dnp_error_set(err, DNP_ERR_INPUT,
                  "'%s' is not recognised as a transformer the Megatron-LM path plans: %s",
                  dnp_graph_name(g), what);
    return DNP_ERR_INPUT;
}

/* Counts of a graph's per-position fully connected layers by (input,
 * output) features, for hidden h, feed-forward f, vocabulary v. */
typedef struct {
    int down;         /* f -> h */
    int up;           /* h -> f (or h -> 2f, counted twice: gate and up fused) */
    int hh;           /* h -> h (Q, the projection, a pooler) */
    int qkv;          /* h -> h + 2 kv (Q, K and V fused) */
    int64_t qkv_out;  /* its output features */
    int kv;           /* h -> kv < h (K or V) */
    int64_t kv_out;
    int head;         /* h -> v */
} fc_counts;

dnp_status dnp_graph_match_transformer(const dnp_graph *g, dnp_transformer_match *out,
                                       dnp_error *err)
{
    memset(out, 0, sizeof *out);
    const int n = dnp_graph_n_ops(g);
    out->params_model = total_params(g);
    if (dnp_graph_find(g, "embed.tokens") >= 0 && dnp_graph_find(g, "layer0.add2") >= 0) {
        out->native = 1;
        snprintf(out->spec, sizeof out->spec, "%s", dnp_graph_name(g));
        out->params_spec = out->params_model;
        return DNP_OK;
    }
    /* the token embedding: the largest table */
    int emb = -1;
    for (int i = 0; i < n; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind == DNP_OP_EMBEDDING &&
            (emb < 0 || op->param_elems > dnp_graph_op(g, emb)->param_elems))
            emb = i;
    }
    if (emb < 0)
        return fail(err, g,
                    "it has no token embedding (a table indexed by token ids; a CNN or a vision "
                    "transformer, whose patches a convolution embeds, has none)");
    const int64_t H = dnp_graph_op(g, emb)->out.c;
    if (H < 1 || dnp_graph_op(g, emb)->param_elems % H != 0)
        return fail(err, g, "its token embedding's table is not vocabulary x hidden");
    const int64_t V = dnp_graph_op(g, emb)->param_elems / H;
    /* the attentions: one softmax over products of activations per layer */
    int L = 0, flash = 0;
    int64_t heads = 0, seq = 0;
    char msg[200];
    for (int i = 0; i < n; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind != DNP_OP_SOFTMAX || !fed_by_product(g, i))
            continue;
        int64_t a = 0, s = 0;
        scores_shape(op, &a, &s);
        if (L > 0 && (a != heads || s != seq)) {
            snprintf(msg, sizeof msg,
                     "attention '%.63s' has %lld heads over %lld tokens, the first one %lld "
                     "over %lld",
                     op->name, (long long)a, (long long)s, (long long)heads, (long long)seq);
            return fail(err, g, msg);
        }
        heads = a;
        seq = s;
        flash |= strcmp(op->src_type, ZOO_FLASH_ATTENTION) == 0;
        L++;
    }
    if (L == 0 || heads < 1 || seq < 1 || H % heads != 0)
        return fail(err, g, L == 0 ? "it has no attention (a softmax over a product of "
                                     "activations)"
                                   : "its attention's heads do not divide its hidden size");
    /* the feed-forward width: the down projection's input (f -> h, f != h) */
    int64_t F = 0;
    for (int i = 0; i < n && F == 0; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind == DNP_OP_FC && op->out.c == H && op->in.c != H && op->in.h == seq)
            F = op->in.c;
    }
    if (F == 0)
        return fail(err, g, "it has no feed-forward layer (a fully connected layer back to the "
                            "hidden size)");
    fc_counts k = {0};
    int relu = 0, tied = 0, pooler = 0;
    double drop = -1.0, attn_drop = -1.0;
    for (int i = 0; i < n; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind == DNP_OP_RELU)
            relu++;
        if (op->kind == DNP_OP_MATMUL && op->out.c == V && V != seq)
            tied = 1; /* the logits as a product with the table */
        if (op->kind == DNP_OP_DROPOUT && op->ratio > 0.0) {
            int64_t a = 0, s = 0;
            scores_shape(op, &a, &s);
            if (a == heads && s == seq)
                attn_drop = attn_drop < 0 ? op->ratio : attn_drop;
            else
                drop = drop < 0 ? op->ratio : drop;
        }
        if (op->kind != DNP_OP_FC)
            continue;
        const int64_t fi = op->in.c, fo = op->out.c;
        if (fi == H && fo == H && op->in.h == 1) {
            pooler++; /* BERT's pooler: the first token only */
            continue;
        }
        if (op->in.h != seq || op->out.h != seq) {
            snprintf(msg, sizeof msg,
                     "fully connected layer '%.63s' is not applied at each of the %lld "
                     "positions",
                     op->name, (long long)seq);
            return fail(err, g, msg);
        }
        if (fi == F && fo == H)
            k.down++;
        else if (fi == H && fo == V)
            k.head++;
        else if (fi == H && fo == F)
            k.up++;
        else if (fi == H && fo == 2 * F)
            k.up += 2;
        else if (fi == H && fo == H)
            k.hh++;
        else if (fi == H && fo > H && (fo - H) % 2 == 0 && (k.qkv == 0 || fo == k.qkv_out)) {
            k.qkv++;
            k.qkv_out = fo;
        } else if (fi == H && fo < H && (k.kv == 0 || fo == k.kv_out)) {
            k.kv++;
            k.kv_out = fo;
        } else {
            snprintf(msg, sizeof msg,
                     "fully connected layer '%.63s' (%lld -> %lld features) fits no layer of "
                     "hidden %lld, feed-forward %lld, vocabulary %lld",
                     op->name, (long long)fi, (long long)fo, (long long)H, (long long)F,
                     (long long)V);
            return fail(err, g, msg);
        }
    }
    /* F == 3H with Q, K and V fused: the fused products counted as MLP ups */
    if (k.qkv == 0 && k.kv == 0 && k.hh == L && F == 3 * H && (k.up == 2 * L || k.up == 3 * L)) {
        k.qkv = L;
        k.qkv_out = F;
        k.up -= L;
    }
    const int64_t head_dim = H / heads;
    int64_t kv_dim = H;
    if (k.qkv == L && k.hh == L)
        kv_dim = (k.qkv_out - H) / 2;
    else if (k.qkv == 0 && k.kv == 2 * L && k.hh == 2 * L)
        kv_dim = k.kv_out;
    else if (!(k.qkv == 0 && k.kv == 0 && k.hh == 4 * L)) {
        snprintf(msg, sizeof msg,
                 "its %d attentions do not each have Q, K, V and an output projection (fully "
                 "connected layers: %d fused QKV, %d hidden -> hidden, %d hidden -> smaller)",
                 L, k.qkv, k.hh, k.kv);
        return fail(err, g, msg);
    }
    if (kv_dim < 1 || kv_dim % head_dim != 0 || heads % (kv_dim / head_dim) != 0)
        return fail(err, g, "its key-value width is not a whole number of heads dividing the "
                            "query heads");
    const int swiglu = k.up == 2 * L;
    if (k.down != L || !(k.up == L || swiglu) || k.head > 1) {
        snprintf(msg, sizeof msg,
                 "its %d layers do not each have one feed-forward block (%d down, %d up "
                 "projections; %d output layers)",
                 L, k.down, k.up, k.head);
        return fail(err, g, msg);
    }
    /* the family: SwiGLU -> LLaMA; no output layer -> BERT (an encoder);
     * else GPT */
    const char *fam = swiglu ? "llama" : (k.head == 0 && !tied) ? "bert" : "gpt";
    int w = snprintf(out->spec, sizeof out->spec,
                     "%s(hidden=%lld,heads=%lld,layers=%d,seq=%lld,ffn=%lld,vocab=%lld", fam,
                     (long long)H, (long long)heads, L, (long long)seq, (long long)F,
                     (long long)V);
    if (kv_dim != H)
        w += snprintf(out->spec + w, sizeof out->spec - (size_t)w, ",kv_heads=%lld",
                      (long long)(kv_dim / head_dim));
    w += snprintf(out->spec + w, sizeof out->spec - (size_t)w,
                  ",dropout=%g,attn_dropout=%g,attention=%s", drop > 0 ? drop : 0.0,
                  attn_drop > 0 ? attn_drop : 0.0, flash ? "flash" : "unfused");
    if (strcmp(fam, "gpt") == 0 && k.head == 1)
        w += snprintf(out->spec + w, sizeof out->spec - (size_t)w, ",head=untied");
    else if (strcmp(fam, "llama") == 0 && k.head == 0)
        w += snprintf(out->spec + w, sizeof out->spec - (size_t)w, ",head=tied");
    snprintf(out->spec + w, sizeof out->spec - (size_t)w, ")");
    /* what the spec assumes that the graph does not show */
    w = 0;
    if (drop < 0 && attn_drop < 0)
        w += snprintf(out->assumed + w, sizeof out->assumed - (size_t)w,
                      "no dropout in the model (exported for inference?): none simulated");
    if (relu >= L && !swiglu)
        w += snprintf(out->assumed + w, sizeof out->assumed - (size_t)w,
                      "%sthe ReLU MLP costed as GELU (element-wise either way)", w ? "; " : "");
    if (pooler > 0 && strcmp(fam, "bert") != 0)
        snprintf(out->assumed + w, sizeof out->assumed - (size_t)w, "%sthe pooler left out",
                 w ? "; " : "");
    /* the check: the spec's model has the graph's parameters */
    dnp_graph *z = NULL;
    dnp_status st = zoo_transformer_build_spec(out->spec, &z, err);
    if (st != DNP_OK)
        return st;
    out->params_spec = total_params(z);
    dnp_graph_free(z);
    double rel = out->params_model > 0
                     ? (double)(out->params_spec - out->params_model) / (double)out->params_model
                     : 1.0;
    if (rel > MATCH_PARAMS_TOLERANCE || rel < -MATCH_PARAMS_TOLERANCE) {
        snprintf(msg, sizeof msg,
                 "read as %.120s, which has %lld parameters against the model's %lld (%+.1f%%, "
                 "more than 2%%)",
                 out->spec, (long long)out->params_spec, (long long)out->params_model,
                 100.0 * rel);
        return fail(err, g, msg);
    }
    return DNP_OK;
}
