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
 * graph's within 2%; and (dnp_graph_transformer_layout) every op's layer
 * and role, which the Megatron-LM simulator reads in place of op names
 * (docs/config3d.md "How layers are found").
 *
 * Ownership: g is only read; the zoo graph built for the parameter check
 * is freed here; a layout is the caller's (dnp_transformer_layout_free).
 * Includes model/ headers only.
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
    if (dnp_op_has_axes(op) && op->out_rank >= 3) {
        int r = op->out_rank;
        *seq = op->out_dims[r - 1];
        *heads = 1;
        for (int k = 0; k < r - 2; k++)
            *heads *= op->out_dims[k];
        return;
    }
    const dnp_shape o = dnp_op_out_view(op);
    *seq = o.c;
    int64_t rows = o.h * o.w;
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
    const int64_t H = dnp_op_out_view(dnp_graph_op(g, emb)).c;
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
        const dnp_shape in = dnp_op_in_view(g, i);
        if (op->kind == DNP_OP_FC && dnp_op_out_view(op).c == H && in.c != H && in.h == seq)
            F = in.c;
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
        if (op->kind == DNP_OP_MATMUL && dnp_op_out_view(op).c == V && V != seq)
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
        const dnp_shape in = dnp_op_in_view(g, i), ov = dnp_op_out_view(op);
        const int64_t fi = in.c, fo = ov.c;
        if (fi == H && fo == H && in.h == 1) {
            pooler++; /* BERT's pooler: the first token only */
            continue;
        }
        if (in.h != seq || ov.h != seq) {
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
    /* the layers the simulator reads must be found too (its own reason if
     * not; the layout is the model's, planned as it is) */
    dnp_transformer_layout *lay = NULL;
    st = dnp_graph_transformer_layout(g, &lay, err);
    dnp_transformer_layout_free(lay);
    return st;
}

/* ---- the layout: every op's layer and role ----------------------------- */

const char *dnp_tf_role_name(dnp_tf_role r)
{
    static const char *const names[DNP_TF_ROLE_COUNT] = {
        "other",       "view",      "embed.tokens", "embed.positions", "embed.other",
        "qkv",         "q",         "k",            "v",               "attn.prep",
        "attn.scores", "attn.mask", "attn.softmax", "attn.dropout",    "attn.context",
        "attn.proj",   "mlp.up",    "mlp.gate",     "mlp.act",         "mlp.down",
        "norm",        "residual",  "dropout",      "head",            "head.tied",
        "pooler"};
    return (int)r >= 0 && r < DNP_TF_ROLE_COUNT ? names[r] : "?";
}

void dnp_transformer_layout_free(dnp_transformer_layout *lay)
{
    if (lay == NULL)
        return;
    dnp_free(lay->layer);
    dnp_free(lay->role);
    dnp_free(lay);
}

/* One layer's landmarks (graph indices). */
typedef struct {
    int softmax, scores, context, add1, add2;
    int input; /* the layer's input: add1's operand from before the scores */
    int end;   /* its last op */
} tf_marks;

static dnp_status layout_fail(dnp_error *err, const dnp_graph *g, dnp_transformer_layout *lay,
                              tf_marks *m, const char *what)
{
    dnp_transformer_layout_free(lay);
    dnp_free(m);
    return fail(err, g, what);
}

/* The first op of `kind` in (lo, hi), with out.c == c when c > 0; -1 if
 * none. */
static int first_of(const dnp_graph *g, int lo, int hi, dnp_op_kind kind, int64_t c)
{
    for (int i = lo + 1; i < hi; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind == kind && (c <= 0 || dnp_op_out_view(op).c == c))
            return i;
    }
    return -1;
}

/* Roles of the ops of (lo, hi) that are not views: `plain` for most,
 * DNP_TF_DROPOUT for dropouts when dropout_too. */
static void mark_range(const dnp_graph *g, dnp_transformer_layout *lay, int lo, int hi,
                       dnp_tf_role plain, int dropout_too)
{
    for (int i = lo + 1; i < hi; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind == DNP_OP_RESHAPE || op->kind == DNP_OP_INPUT)
            continue;
        lay->role[i] = dropout_too && op->kind == DNP_OP_DROPOUT ? DNP_TF_DROPOUT : plain;
    }
}

/* Roles inside layer l (marks m, ops (m->input, m->end]); "" on success,
 * else what does not fit, in msg. */
static void layer_roles(const dnp_graph *g, dnp_transformer_layout *lay, int l,
                        const tf_marks *m, int lo, char *msg, size_t n)
{
    const int64_t H = lay->hidden;
    msg[0] = '\0';
    for (int i = lo + 1; i <= m->end; i++)
        lay->layer[i] = l;
    /* Q, K, V: the fully connected layers before the scores */
    int fcs[3], n_fc = 0;
    for (int i = lo + 1; i < m->scores; i++)
        if (dnp_graph_op(g, i)->kind == DNP_OP_FC) {
            if (n_fc < 3)
                fcs[n_fc] = i;
            n_fc++;
        }
    if (n_fc != 1 && n_fc != 3) {
        snprintf(msg, n,
                 "layer %d has %d fully connected layers before its attention scores (one "
                 "fused QKV or separate Q, K and V expected)",
                 l, n_fc);
        return;
    }
    mark_range(g, lay, lo, fcs[0], DNP_TF_NORM, 1);
    mark_range(g, lay, fcs[0], m->scores, DNP_TF_ATTN_PREP, 0);
    if (n_fc == 1) {
        lay->role[fcs[0]] = DNP_TF_QKV;
    } else {
        lay->role[fcs[0]] = DNP_TF_Q;
        lay->role[fcs[1]] = DNP_TF_K;
        lay->role[fcs[2]] = DNP_TF_V;
    }
    lay->role[m->scores] = DNP_TF_SCORES;
    for (int i = m->scores + 1; i < m->context; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind == DNP_OP_RESHAPE)
            continue;
        lay->role[i] = i == m->softmax                ? DNP_TF_SOFTMAX
                       : op->kind == DNP_OP_DROPOUT ? DNP_TF_ATTN_DROPOUT
                                                    : DNP_TF_ATTN_MASK;
    }
    lay->role[m->context] = DNP_TF_CONTEXT;
    /* the projection, then the first residual add */
    const int proj = first_of(g, m->context, m->add1, DNP_OP_FC, H);
    if (proj < 0) {
        snprintf(msg, n, "layer %d has no output projection (a fully connected layer to the "
                         "hidden size) between its attention and its residual add", l);
        return;
    }
    mark_range(g, lay, m->context, proj, DNP_TF_OTHER, 0);
    lay->role[proj] = DNP_TF_PROJ;
    mark_range(g, lay, proj, m->add1, DNP_TF_OTHER, 1);
    lay->role[m->add1] = DNP_TF_RESIDUAL;
    /* the MLP: up (or gate and up) from the hidden size, down back to it */
    int down = -1;
    for (int i = m->add2 - 1; i > m->add1 && down < 0; i--) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind == DNP_OP_FC && dnp_op_out_view(op).c == H && dnp_op_in_view(g, i).c != H)
            down = i;
    }
    int ups[2], n_up = 0;
    for (int i = m->add1 + 1; down >= 0 && i < down; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind != DNP_OP_FC)
            continue;
        if (dnp_op_in_view(g, i).c != H || n_up == 2) {
            n_up = 3;
            break;
        }
        ups[n_up++] = i;
    }
    if (down < 0 || n_up < 1 || n_up > 2) {
        snprintf(msg, n, "layer %d has no feed-forward block (one or two fully connected "
                         "layers from the hidden size, then one back to it) between its "
                         "residual adds", l);
        return;
    }
    mark_range(g, lay, m->add1, ups[0], DNP_TF_NORM, 1);
    mark_range(g, lay, ups[0], down, DNP_TF_MLP_ACT, 0);
    if (n_up == 1) {
        lay->role[ups[0]] = DNP_TF_MLP_UP;
    } else { /* SwiGLU: the gate first (the zoo's and Hugging Face's order) */
        lay->role[ups[0]] = DNP_TF_MLP_GATE;
        lay->role[ups[1]] = DNP_TF_MLP_UP;
    }
    lay->role[down] = DNP_TF_MLP_DOWN;
    mark_range(g, lay, down, m->add2, DNP_TF_OTHER, 1);
    lay->role[m->add2] = DNP_TF_RESIDUAL;
    mark_range(g, lay, m->add2, m->end + 1, DNP_TF_NORM, 1); /* post-LN */
}

/* Roles of the ops before the layers ([0, end]) and after them
 * ((start, n)). */
static void outer_roles(const dnp_graph *g, dnp_transformer_layout *lay, int end, int start)
{
    const int64_t H = lay->hidden;
    int positions = 0;
    for (int i = 0; i <= end; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (i == lay->embed_op)
            lay->role[i] = DNP_TF_EMBED_TOKENS;
        else if ((op->kind == DNP_OP_EMBEDDING || op->kind == DNP_OP_ELTWISE) &&
                 op->param_elems > 0 && op->param_elems % H == 0) {
            lay->role[i] = positions ? DNP_TF_EMBED_OTHER : DNP_TF_EMBED_POSITIONS;
            positions = 1;
        } else if (op->kind == DNP_OP_LAYERNORM)
            lay->role[i] = DNP_TF_NORM;
        else if (op->kind == DNP_OP_DROPOUT)
            lay->role[i] = DNP_TF_DROPOUT;
    }
    int pooler = 0, head = 0;
    for (int i = start + 1; i < lay->n_ops; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind == DNP_OP_RESHAPE || op->kind == DNP_OP_INPUT || head)
            continue; /* what follows the head (its bias add) stays "other" */
        if (op->kind == DNP_OP_FC && dnp_op_out_view(op).c == lay->vocab) {
            lay->role[i] = DNP_TF_HEAD;
            head = 1;
        } else if (op->kind == DNP_OP_MATMUL && dnp_op_out_view(op).c == lay->vocab) {
            lay->role[i] = DNP_TF_HEAD_TIED;
            head = 1;
        } else if (pooler || (op->kind == DNP_OP_FC && dnp_op_in_view(g, i).c == H &&
                              dnp_op_out_view(op).c == H && dnp_op_in_view(g, i).h == 1)) {
            lay->role[i] = DNP_TF_POOLER; /* the first token's dense layer and what follows */
            pooler = 1;
        } else if (op->kind == DNP_OP_DROPOUT)
            lay->role[i] = DNP_TF_DROPOUT;
        else if (op->kind != DNP_OP_FC && op->kind != DNP_OP_MATMUL)
            lay->role[i] = DNP_TF_NORM; /* the final norm, or a piece of it */
    }
}

dnp_status dnp_graph_transformer_layout(const dnp_graph *g, dnp_transformer_layout **out,
                                        dnp_error *err)
{
    *out = NULL;
    const int n = dnp_graph_n_ops(g);
    dnp_transformer_layout *lay = dnp_calloc(1, sizeof *lay);
    tf_marks *m = dnp_calloc(n > 0 ? (size_t)n : 1, sizeof *m);
    if (lay != NULL) {
        lay->layer = dnp_malloc((n > 0 ? (size_t)n : 1) * sizeof *lay->layer);
        lay->role = dnp_calloc(n > 0 ? (size_t)n : 1, sizeof *lay->role);
    }
    if (lay == NULL || m == NULL || lay->layer == NULL || lay->role == NULL) {
        dnp_transformer_layout_free(lay);
        dnp_free(m);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory reading the layers of '%s'",
                      dnp_graph_name(g));
        return DNP_ERR_NOMEM;
    }
    lay->n_ops = n;
    lay->embed_op = -1;
    for (int i = 0; i < n; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        lay->layer[i] = -1;
        lay->role[i] = op->kind == DNP_OP_RESHAPE ? DNP_TF_VIEW : DNP_TF_OTHER;
        if (op->kind == DNP_OP_EMBEDDING &&
            (lay->embed_op < 0 ||
             op->param_elems > dnp_graph_op(g, lay->embed_op)->param_elems))
            lay->embed_op = i;
    }
    if (lay->embed_op < 0)
        return layout_fail(err, g, lay, m,
                           "it has no token embedding (a table indexed by token ids; a CNN or "
                           "a vision transformer, whose patches a convolution embeds, has none)");
    const dnp_op *e = dnp_graph_op(g, lay->embed_op);
    lay->hidden = dnp_op_out_view(e).c;
    lay->seq = dnp_op_out_view(e).h;
    if (lay->hidden < 1 || e->param_elems % lay->hidden != 0)
        return layout_fail(err, g, lay, m,
                           "its token embedding's table is not vocabulary x hidden");
    lay->vocab = e->param_elems / lay->hidden;
    /* the attentions, each with its scores and context products */
    int L = 0;
    for (int i = 0; i < n; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind == DNP_OP_SOFTMAX && fed_by_product(g, i))
            m[L++].softmax = i;
    }
    if (L == 0)
        return layout_fail(err, g, lay, m,
                           "it has no attention (a softmax over a product of activations)");
    lay->layers = L;
    int64_t s0 = 0;
    scores_shape(dnp_graph_op(g, m[0].softmax), &lay->heads, &s0);
    if (lay->heads < 1 || lay->hidden % lay->heads != 0)
        return layout_fail(err, g, lay, m, "its attention's heads do not divide its hidden size");
    char msg[240];
    for (int l = 0; l < L; l++) {
        tf_marks *k = &m[l];
        const int next = l + 1 < L ? m[l + 1].softmax : n;
        int sc = k->softmax;
        for (int step = 0; step < MATCH_BACK_STEPS && dnp_graph_op(g, sc)->kind != DNP_OP_MATMUL;
             step++)
            sc = dnp_graph_op(g, sc)->inputs[0];
        k->scores = sc;
        k->context = first_of(g, k->softmax, next, DNP_OP_MATMUL, 0);
        k->add1 = k->context < 0 ? -1 : first_of(g, k->context, next, DNP_OP_ADD, lay->hidden);
        k->add2 = k->add1 < 0 ? -1 : first_of(g, k->add1, next, DNP_OP_ADD, lay->hidden);
        k->input = -1;
        for (int j = 0; k->add1 >= 0 && j < dnp_graph_op(g, k->add1)->n_inputs; j++)
            if (dnp_graph_op(g, k->add1)->inputs[j] < sc)
                k->input = dnp_graph_op(g, k->add1)->inputs[j];
        if (k->context < 0 || k->add2 < 0 || k->input < 0 ||
            (l > 0 && k->input < m[l - 1].add2)) {
            snprintf(msg, sizeof msg,
                     "the attention of layer %d ('%.63s') is not followed by a context product "
                     "and two residual adds of the hidden size before the next attention",
                     l, dnp_graph_op(g, k->softmax)->name);
            return layout_fail(err, g, lay, m, msg);
        }
    }
    /* where each layer ends: at the next one's input; the last as far after
     * its second add as the first layer (a post-LN norm) */
    for (int l = 0; l + 1 < L; l++)
        m[l].end = m[l + 1].input;
    lay->post_ln = 1;
    for (int j = 0; j < dnp_graph_op(g, m[0].add2)->n_inputs; j++)
        if (dnp_graph_op(g, m[0].add2)->inputs[j] == m[0].add1)
            lay->post_ln = 0; /* pre-LN: the residual stream runs from add to add */
    int tail = L > 1 ? m[0].end - m[0].add2 : 0;
    if (L == 1 && lay->post_ln && m[0].add2 + 1 < n) { /* one layer: its norm, if one op */
        const dnp_op *op = dnp_graph_op(g, m[0].add2 + 1);
        tail = op->kind == DNP_OP_LAYERNORM && op->n_inputs > 0 && op->inputs[0] == m[0].add2;
    }
    m[L - 1].end = m[L - 1].add2 + tail < n ? m[L - 1].add2 + tail : n - 1;
    lay->first_op = m[0].input + 1;
    lay->last_op = m[L - 1].end;
    for (int l = 0; l < L; l++) {
        layer_roles(g, lay, l, &m[l], m[l].input, msg, sizeof msg);
        if (msg[0] != '\0')
            return layout_fail(err, g, lay, m, msg);
    }
    outer_roles(g, lay, m[0].input, lay->last_op);
    dnp_free(m);
    *out = lay;
    return DNP_OK;
}
