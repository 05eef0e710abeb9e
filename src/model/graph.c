/*
 * graph.c - the graph IR: ops with shapes, builders with shape inference,
 * iteration-space dimensions and per-op FLOP / size figures.
 */
#include "dnnpar/model.h"
#include "model/graph_internal.h"
#include "model/graph_named.h"
#include "core/checked.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct dnp_graph {
    char name[64];
    char note[256];
    char err[256];
    int n_ops, cap;
    dnp_op *ops;
    int *decider;   /* per op: dnp_graph_decider, set when the op is appended */
    /* Name index: open addressing with linear probing over `slots`
     * (n_slots, a power of two; -1 empty) holding op indices.  An op
     * removed again by a failed builder (n_ops--) leaves a stale entry,
     * skipped by the lookup's name check and dropped at the next rehash. */
    int *slots;
    int n_slots, n_used;
    long probes; /* slots examined by lookups, for the structural test */
};

static const char *const kind_names[DNP_OP_KIND_COUNT] = {
    "input", "conv", "fc", "maxpool", "avgpool", "relu", "add",
    "concat", "batchnorm", "lrn", "flatten", "softmax", "dropout", "matmul",
    "embedding", "layernorm", "eltwise", "reshape", "reduce",
    "einsum", "lstm", "stack", "select",
};

const char *dnp_op_kind_name(dnp_op_kind k)
{
    return (k >= 0 && k < DNP_OP_KIND_COUNT) ? kind_names[k] : "?";
}

int dnp_op_kind_from_name(const char *s)
{
    for (int k = 0; k < DNP_OP_KIND_COUNT; k++)
        if (strcasecmp(s, kind_names[k]) == 0)
            return k;
    return -1;
}

int dnp_op_is_weighted(const dnp_op *op)
{
    dnp_op_kind k = op->kind;
    return k == DNP_OP_CONV || k == DNP_OP_FC || k == DNP_OP_EMBEDDING || k == DNP_OP_LSTM ||
           (k == DNP_OP_EINSUM && op->n_inputs == 1);
}

int dnp_op_is_join(const dnp_op *op)
{
    return op->kind == DNP_OP_ADD || op->kind == DNP_OP_CONCAT || op->n_inputs >= 2;
}

dnp_shape dnp_op_out_view(const dnp_op *op)
{
    const int64_t *d = op->out_dims;
    if (op->view != DNP_VIEW_LAST)
        return (dnp_shape){d[0], d[1], d[2]};
    /* c = the last axis, h = the others (docs/model.md "Shapes"); the
     * product is bounded when the op is built (set_out, finish) */
    int64_t h = 1;
    for (int k = 0; k + 1 < op->out_rank; k++)
        h *= d[k];
    return (dnp_shape){d[op->out_rank - 1], h, 1};
}

dnp_shape graph_in_view(const dnp_graph *g, const dnp_op *op)
{
    return op->n_inputs > 0 ? dnp_op_out_view(&g->ops[op->inputs[0]]) : (dnp_shape){0, 0, 0};
}

dnp_shape dnp_op_in_view(const dnp_graph *g, int i)
{
    return (i >= 0 && i < g->n_ops) ? graph_in_view(g, &g->ops[i]) : (dnp_shape){0, 0, 0};
}

int dnp_op_has_axes(const dnp_op *op) { return op->view != DNP_VIEW_CHW; }

/* Store s as op's output on the c x h x w view (a builder's shape). */
static void set_chw(dnp_op *op, dnp_shape s)
{
    op->view = DNP_VIEW_CHW;
    op->out_rank = 3;
    op->out_dims[0] = s.c, op->out_dims[1] = s.h, op->out_dims[2] = s.w;
}

/* Store op's output: the given axes (rank, dims) when their view
 * (dnp_view: an image's C x H x W, else c = the last axis, h = the
 * product of the others) is `out`; without axes (rank 0), out itself.
 * 0, or -1 when the axes do not give `out`. */
static int set_out(dnp_op *op, dnp_shape out, int rank, const int64_t *dims)
{
    if (rank <= 0 || rank > DNP_MAX_RANK) {
        set_chw(op, out);
        return 0;
    }
    op->out_rank = rank;
    memcpy(op->out_dims, dims, (size_t)rank * sizeof *dims);
    if (rank == 3 && dims[0] == out.c && dims[1] == out.h && dims[2] == out.w) {
        op->view = DNP_VIEW_IMAGE;
        return 0;
    }
    int64_t h = 1;
    for (int k = 0; k + 1 < rank; k++)
        if (dims[k] <= 0 || dnp_mul_i64(h, dims[k], &h))
            return -1;
    op->view = DNP_VIEW_LAST;
    return dims[rank - 1] == out.c && h == out.h && out.w == 1 ? 0 : -1;
}

dnp_graph *dnp_graph_new(const char *name)
{
    dnp_graph *g = dnp_calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    snprintf(g->name, sizeof g->name, "%s", name ? name : "");
    return g;
}

void dnp_graph_free(dnp_graph *g)
{
    if (g == NULL)
        return;
    for (int i = 0; i < g->n_ops; i++)
        dnp_free(g->ops[i].inputs);
    dnp_free(g->ops);
    dnp_free(g->decider);
    dnp_free(g->slots);
    dnp_free(g);
}

void dnp_graph_set_note(dnp_graph *g, const char *note)
{
    snprintf(g->note, sizeof g->note, "%s", note ? note : "");
}

const char *dnp_graph_name(const dnp_graph *g) { return g->name; }
const char *dnp_graph_note(const dnp_graph *g) { return g->note; }
int dnp_graph_n_ops(const dnp_graph *g) { return g->n_ops; }

int dnp_graph_default_optimizer(const dnp_graph *g)
{
    /* Adam for attention (Vaswani et al. 2017 train with Adam; Megatron-LM,
     * BERT, LLaMA and ViT with Adam or AdamW), SGD with momentum otherwise
     * (He et al. 2016) */
    int matmul = 0, softmax = 0;
    for (int i = 0; g != NULL && i < g->n_ops; i++) {
        matmul |= g->ops[i].kind == DNP_OP_MATMUL;
        softmax |= g->ops[i].kind == DNP_OP_SOFTMAX;
    }
    return matmul && softmax ? DNP_OPTIM_ADAM : DNP_OPTIM_MOMENTUM;
}
const char *dnp_graph_error(const dnp_graph *g) { return g->err; }

const dnp_op *dnp_graph_op(const dnp_graph *g, int i)
{
    return (i >= 0 && i < g->n_ops) ? &g->ops[i] : NULL;
}

int dnp_graph_decider(const dnp_graph *g, int i)
{
    return (i >= 0 && i < g->n_ops) ? g->decider[i] : -1;
}

/* FNV-1a over the name's bytes (Fowler, Noll, Vo; the public-domain
 * 32-bit parameters). */
static uint32_t name_hash(const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = (h ^ *c) * 16777619u;
    return h;
}

/* The slot holding `name`, or the empty slot where it would go. */
static int name_slot(const dnp_graph *g, const char *name, long *probes)
{
    unsigned mask = (unsigned)g->n_slots - 1u;
    unsigned s = name_hash(name) & mask;
    for (;;) {
        (*probes)++;
        int i = g->slots[s];
        if (i < 0 || (i < g->n_ops && strcmp(g->ops[i].name, name) == 0))
            return (int)s;
        s = (s + 1u) & mask;
    }
}

/* Index op `i` (already in g->ops) by name, growing the table to keep it
 * at most half full; 0 on allocation failure.  O(1) amortised. */
static int index_name(dnp_graph *g, int i)
{
    if (2 * (g->n_used + 1) > g->n_slots) {
        int n = g->n_slots ? 2 * g->n_slots : 64;
        while (2 * (g->n_ops + 1) > n)
            n *= 2;
        int *slots = dnp_malloc((size_t)n * sizeof *slots);
        if (slots == NULL)
            return 0;
        dnp_free(g->slots);
        g->slots = slots;
        g->n_slots = n;
        g->n_used = 0;
        for (int k = 0; k < n; k++)
            slots[k] = -1;
        for (int k = 0; k < g->n_ops; k++) {
            if (k == i)
                continue;
            g->slots[name_slot(g, g->ops[k].name, &g->probes)] = k;
            g->n_used++;
        }
    }
    g->slots[name_slot(g, g->ops[i].name, &g->probes)] = i;
    g->n_used++;
    return 1;
}

int dnp_graph_find(const dnp_graph *g, const char *name)
{
    if (g->n_slots == 0)
        return -1;
    long probes = 0;
    int i = g->slots[name_slot(g, name, &probes)];
    ((dnp_graph *)g)->probes += probes;
    return i >= 0 && i < g->n_ops ? i : -1;
}

long graph_name_probes(const dnp_graph *g) { return g->probes; }

static int fail(dnp_graph *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int fail(dnp_graph *g, const char *fmt, ...)
{
    if (g->err[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->err, sizeof g->err, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int graph_fail(dnp_graph *g, const char *msg)
{
    return fail(g, "%s", msg);
}

dnp_op *graph_op_mut(dnp_graph *g, int i)
{
    return (i >= 0 && i < g->n_ops) ? &g->ops[i] : NULL;
}

/* Append an op after checking its name and inputs; returns its index or -1. */
static int append(dnp_graph *g, const char *name, dnp_op_kind kind, int n_inputs,
                  const int *inputs)
{
    if (name == NULL || name[0] == '\0' || strlen(name) >= sizeof g->ops[0].name)
        return fail(g, "op name '%s' is empty or longer than 63 characters", name ? name : "");
    if (dnp_graph_find(g, name) >= 0)
        return fail(g, "op name '%s' is used twice", name);
    for (int k = 0; k < n_inputs; k++)
        if (inputs[k] < 0 || inputs[k] >= g->n_ops)
            return fail(g, "op '%s': input %d does not exist", name, k);
    if (g->n_ops == g->cap) {
        int cap = g->cap ? 2 * g->cap : 32;
        dnp_op *ops = dnp_realloc(g->ops, (size_t)cap * sizeof *ops);
        if (ops == NULL)
            return fail(g, "out of memory adding op '%s'", name);
        g->ops = ops;
        int *decider = dnp_realloc(g->decider, (size_t)cap * sizeof *decider);
        if (decider == NULL)
            return fail(g, "out of memory adding op '%s'", name);
        g->decider = decider;
        g->cap = cap;
    }
    dnp_op *op = &g->ops[g->n_ops];
    memset(op, 0, sizeof *op);
    if (n_inputs > 0) {
        op->inputs = dnp_malloc((size_t)n_inputs * sizeof *op->inputs);
        if (op->inputs == NULL)
            return fail(g, "out of memory adding op '%s'", name);
        memcpy(op->inputs, inputs, (size_t)n_inputs * sizeof *inputs);
    }
    snprintf(op->name, sizeof op->name, "%s", name);
    op->kind = kind;
    op->n_inputs = n_inputs;
    op->groups = 1;
    op->kh = op->kw = op->sh = op->sw = 1;
    /* Kind and inputs are final here (the builders set only attributes
     * afterwards), and so is what decides: dnnpar.h, dnp_graph_decider. */
    int self = g->n_ops;
    g->decider[self] = (dnp_op_is_weighted(op) || dnp_op_is_join(op)) ? self
                       : n_inputs > 0                                ? g->decider[inputs[0]]
                                                                     : -1;
    g->n_ops++;
    if (!index_name(g, g->n_ops - 1)) {
        g->n_ops--;
        dnp_free(op->inputs);
        return fail(g, "out of memory adding op '%s'", name);
    }
    return g->n_ops - 1;
}

/* Bounds that keep every cost figure of an op within int64 for any batch
 * the figures are later multiplied by (dnp_graph_check_batch) and within
 * double's exact integers per sample (issue 12, item 2). */
#define TENSOR_ELEMS_MAX (INT64_C(1) << 40) /* per sample, one tensor */
#define MACS_MAX (INT64_C(1) << 53)         /* per sample, one op */

/* Per-sample weight elements and multiply-accumulates of op (the formulas
 * of dnp_op_cost_get), overflow-checked: 0, or -1 if a product overflows
 * int64. */
static int op_sizes(const dnp_graph *g, const dnp_op *op, int64_t *weight_elems, int64_t *macs)
{
    *weight_elems = *macs = 0;
    int64_t in_per;
    const dnp_shape in = graph_in_view(g, op), o = dnp_op_out_view(op);
    if (op->n_inputs > 0 ? dnp_mul3_i64(in.c, in.h, in.w, &in_per) : (in_per = 0, 0))
        return -1;
    if (op->kind == DNP_OP_CONV || op->kind == DNP_OP_FC) {
        int conv_like = op->kind == DNP_OP_CONV || op->keep_positions;
        int64_t k_area = op->kind == DNP_OP_CONV ? (int64_t)op->kh * op->kw : 1;
        int64_t d_in = op->kind == DNP_OP_CONV ? in.c / op->groups
                                               : (op->keep_positions ? in.c : in_per);
        int64_t hw_out = 1, w;
        if ((conv_like && dnp_mul_i64(o.h, o.w, &hw_out)) ||
            dnp_mul3_i64(d_in, o.c, k_area, &w) || dnp_mul_i64(w, hw_out, macs))
            return -1;
        *weight_elems = w;
    } else if (graph_named_kind(op->kind)) {
        return graph_named_sizes(op, in, weight_elems, macs);
    } else if (op->kind == DNP_OP_MATMUL) {
        int64_t out_per;
        if (dnp_mul3_i64(o.c, o.h, o.w, &out_per) ||
            dnp_mul_i64(out_per, op->contract, macs))
            return -1;
    }
    return 0;
}

/* Last step of every builder: op i's per-sample sizes must stay within
 * TENSOR_ELEMS_MAX / MACS_MAX; otherwise op i is removed and -1 returned
 * with the op and the figure named.  Returns i on success. */
static int finish(dnp_graph *g, int i)
{
    dnp_op *op = &g->ops[i];
    int64_t out_per = -1, weights = 0, macs = 0;
    const char *what = NULL;
    const dnp_shape s = dnp_op_out_view(op);
    if (dnp_mul3_i64(s.c, s.h, s.w, &out_per) || out_per > TENSOR_ELEMS_MAX)
        what = "output elements per sample";
    else if (op_sizes(g, op, &weights, &macs) != 0 || weights > TENSOR_ELEMS_MAX)
        what = "weight elements";
    else if (macs > MACS_MAX)
        what = "multiply-accumulates per sample";
    if (what == NULL)
        return i;
    char name[sizeof op->name];
    memcpy(name, op->name, sizeof name);
    dnp_free(op->inputs);
    g->n_ops--;
    return fail(g, "op '%s': %s of output %lldx%lldx%lld exceed the limit (2^40 elements, "
                   "2^53 multiply-accumulates)", name, what, (long long)s.c, (long long)s.h,
                (long long)s.w);
}

int dnp_graph_input(dnp_graph *g, const char *name, int64_t c, int64_t h, int64_t w)
{
    if (c <= 0 || h <= 0 || w <= 0)
        return fail(g, "input '%s': shape %lldx%lldx%lld must be positive", name, (long long)c,
                    (long long)h, (long long)w);
    int i = append(g, name, DNP_OP_INPUT, 0, NULL);
    if (i >= 0)
        set_chw(&g->ops[i], (dnp_shape){c, h, w});
    return i >= 0 ? finish(g, i) : -1;
}

static int64_t shape_elems(dnp_shape s) { return s.c * s.h * s.w; }

int dnp_graph_append(dnp_graph *g, const char *name, dnp_op_kind kind, int n_inputs,
                     const int *inputs, dnp_shape out, const dnp_op_attrs *attrs)
{
    if (kind < 0 || kind >= DNP_OP_KIND_COUNT)
        return fail(g, "op '%s': unknown kind %d", name ? name : "", (int)kind);
    if (out.c <= 0 || out.h <= 0 || out.w <= 0)
        return fail(g, "op '%s': output shape %lldx%lldx%lld must be positive", name ? name : "",
                    (long long)out.c, (long long)out.h, (long long)out.w);
    int i = append(g, name, kind, n_inputs, inputs);
    if (i < 0)
        return -1;
    dnp_op *op = &g->ops[i];
    if (set_out(op, out, attrs != NULL ? attrs->out_rank : 0,
                attrs != NULL ? attrs->out_dims : NULL) != 0) {
        char ax[DNP_MAX_RANK * 21] = "";
        for (int k = 0, n = 0; k < op->out_rank && n < (int)sizeof ax; k++)
            n += snprintf(ax + n, sizeof ax - (size_t)n, "%s%lld", k ? "x" : "",
                          (long long)op->out_dims[k]);
        g->n_ops--;
        dnp_free(op->inputs);
        return fail(g, "op '%s': output axes %s do not give its shape %lldx%lldx%lld (an "
                       "image's C x H x W, or c = the last axis, h = the others)",
                    op->name, ax, (long long)out.c, (long long)out.h, (long long)out.w);
    }
    if (attrs != NULL) {
        op->kh = attrs->kh > 0 ? attrs->kh : 1;
        op->kw = attrs->kw > 0 ? attrs->kw : 1;
        op->sh = attrs->sh > 0 ? attrs->sh : 1;
        op->sw = attrs->sw > 0 ? attrs->sw : 1;
        op->ph = attrs->ph;
        op->pw = attrs->pw;
        op->groups = attrs->groups > 0 ? attrs->groups : 1;
        op->bias = attrs->bias != 0;
        op->keep_positions = attrs->keep_positions != 0;
        op->contract = attrs->contract;
        op->param_elems = attrs->param_elems;
        snprintf(op->src_type, sizeof op->src_type, "%s", attrs->src_type ? attrs->src_type : "");
        snprintf(op->axes, sizeof op->axes, "%s", attrs->axes ? attrs->axes : "");
        snprintf(op->loops, sizeof op->loops, "%s", attrs->loops ? attrs->loops : "");
        snprintf(op->equation, sizeof op->equation, "%s", attrs->equation ? attrs->equation : "");
        op->axis = attrs->axis;
        op->index = attrs->index;
        op->layers = attrs->layers;
        op->model_axis = attrs->model_axis;
        op->ratio = attrs->ratio >= 0.0 && attrs->ratio < 1.0 ? attrs->ratio : 0.0;
    }
    return finish(g, i);
}

/* PyTorch's floor-mode output size of a sliding window. */
static int64_t window_out(int64_t in, int k, int s, int p)
{
    if (s <= 0 || k <= 0 || p < 0 || in + 2 * (int64_t)p < k)
        return 0;
    return (in + 2 * (int64_t)p - k) / s + 1;
}

int dnp_graph_conv2(dnp_graph *g, const char *name, int in, int64_t out_c, int kh, int kw,
                    int sh, int sw, int ph, int pw, int groups, int bias)
{
    int i = append(g, name, DNP_OP_CONV, 1, &in);
    if (i < 0)
        return -1;
    dnp_op *op = &g->ops[i];
    const dnp_shape is = graph_in_view(g, op);
    if (groups <= 0 || out_c <= 0 || is.c % groups != 0 || out_c % groups != 0) {
        g->n_ops--;
        dnp_free(op->inputs);
        return fail(g, "conv '%s': channels %lld -> %lld do not divide into %d groups", name,
                    (long long)is.c, (long long)out_c, groups);
    }
    int64_t oh = window_out(is.h, kh, sh, ph), ow = window_out(is.w, kw, sw, pw);
    if (oh <= 0 || ow <= 0) {
        g->n_ops--;
        dnp_free(op->inputs);
        return fail(g, "conv '%s': kernel %dx%d stride %dx%d pad %dx%d does not fit input %lldx%lld",
                    name, kh, kw, sh, sw, ph, pw, (long long)is.h, (long long)is.w);
    }
    op->kh = kh, op->kw = kw, op->sh = sh, op->sw = sw, op->ph = ph, op->pw = pw;
    op->groups = groups;
    op->bias = bias != 0;
    set_chw(op, (dnp_shape){out_c, oh, ow});
    return finish(g, i);
}

int dnp_graph_conv(dnp_graph *g, const char *name, int in, int64_t out_c, int k, int stride,
                   int pad, int groups, int bias)
{
    return dnp_graph_conv2(g, name, in, out_c, k, k, stride, stride, pad, pad, groups, bias);
}

int dnp_graph_conv_explicit(dnp_graph *g, const char *name, int in, int64_t out_c, int k,
                            int64_t out_h, int64_t out_w)
{
    if (out_c <= 0 || k <= 0 || out_h <= 0 || out_w <= 0)
        return fail(g, "conv '%s': channels, kernel and output size must be positive", name);
    int i = append(g, name, DNP_OP_CONV, 1, &in);
    if (i < 0)
        return -1;
    dnp_op *op = &g->ops[i];
    op->kh = op->kw = k;
    set_chw(op, (dnp_shape){out_c, out_h, out_w});
    return finish(g, i);
}

int dnp_graph_fc(dnp_graph *g, const char *name, int in, int64_t out_features, int bias)
{
    if (out_features <= 0)
        return fail(g, "fc '%s': output features must be positive", name);
    int i = append(g, name, DNP_OP_FC, 1, &in);
    if (i < 0)
        return -1;
    g->ops[i].bias = bias != 0;
    set_chw(&g->ops[i], (dnp_shape){out_features, 1, 1});
    return finish(g, i);
}

int dnp_graph_pool(dnp_graph *g, const char *name, dnp_op_kind kind, int in, int k, int stride,
                   int pad)
{
    if (kind != DNP_OP_MAXPOOL && kind != DNP_OP_AVGPOOL)
        return fail(g, "pool '%s': kind must be maxpool or avgpool", name);
    int i = append(g, name, kind, 1, &in);
    if (i < 0)
        return -1;
    dnp_op *op = &g->ops[i];
    const dnp_shape is = graph_in_view(g, op);
    int64_t oh = window_out(is.h, k, stride, pad), ow = window_out(is.w, k, stride, pad);
    if (oh <= 0 || ow <= 0) {
        g->n_ops--;
        dnp_free(op->inputs);
        return fail(g, "pool '%s': window %d stride %d pad %d does not fit input %lldx%lld", name,
                    k, stride, pad, (long long)is.h, (long long)is.w);
    }
    op->kh = op->kw = k;
    op->sh = op->sw = stride;
    op->ph = op->pw = pad;
    set_chw(op, (dnp_shape){is.c, oh, ow});
    return finish(g, i);
}

int dnp_graph_adaptive_avgpool(dnp_graph *g, const char *name, int in, int64_t out_h,
                               int64_t out_w)
{
    if (out_h <= 0 || out_w <= 0)
        return fail(g, "pool '%s': output size must be positive", name);
    int i = append(g, name, DNP_OP_AVGPOOL, 1, &in);
    if (i < 0)
        return -1;
    dnp_op *op = &g->ops[i];
    const dnp_shape is = graph_in_view(g, op);
    /* Window of PyTorch's adaptive pooling when the size divides evenly;
     * otherwise the largest window, ceil(in/out). */
    op->kh = (int)((is.h + out_h - 1) / out_h);
    op->kw = (int)((is.w + out_w - 1) / out_w);
    op->sh = (int)(is.h / out_h > 0 ? is.h / out_h : 1);
    op->sw = (int)(is.w / out_w > 0 ? is.w / out_w : 1);
    set_chw(op, (dnp_shape){is.c, out_h, out_w});
    return finish(g, i);
}

int dnp_graph_unary(dnp_graph *g, const char *name, dnp_op_kind kind, int in)
{
    if (kind != DNP_OP_RELU && kind != DNP_OP_BATCHNORM && kind != DNP_OP_LRN &&
        kind != DNP_OP_DROPOUT && kind != DNP_OP_SOFTMAX)
        return fail(g, "op '%s': %s is not a shape-preserving op", name, dnp_op_kind_name(kind));
    int i = append(g, name, kind, 1, &in);
    if (i < 0)
        return -1;
    set_chw(&g->ops[i], graph_in_view(g, &g->ops[i]));
    if (kind == DNP_OP_LRN)
        g->ops[i].kh = 5;
    return finish(g, i);
}

int dnp_graph_flatten(dnp_graph *g, const char *name, int in)
{
    int i = append(g, name, DNP_OP_FLATTEN, 1, &in);
    if (i < 0)
        return -1;
    dnp_shape s = graph_in_view(g, &g->ops[i]);
    set_chw(&g->ops[i], (dnp_shape){s.c * s.h * s.w, 1, 1});
    return finish(g, i);
}

static int same_shape(dnp_shape a, dnp_shape b) { return a.c == b.c && a.h == b.h && a.w == b.w; }

int dnp_graph_add(dnp_graph *g, const char *name, int a, int b)
{
    int ins[2] = {a, b};
    int i = append(g, name, DNP_OP_ADD, 2, ins);
    if (i < 0)
        return -1;
    dnp_shape sa = dnp_op_out_view(&g->ops[a]), sb = dnp_op_out_view(&g->ops[b]);
    if (!same_shape(sa, sb)) {
        g->n_ops--;
        dnp_free(g->ops[i].inputs);
        return fail(g, "add '%s': shapes %lldx%lldx%lld and %lldx%lldx%lld differ", name,
                    (long long)sa.c, (long long)sa.h, (long long)sa.w, (long long)sb.c,
                    (long long)sb.h, (long long)sb.w);
    }
    set_chw(&g->ops[i], sa);
    return finish(g, i);
}

int dnp_graph_concat(dnp_graph *g, const char *name, int n, const int *inputs)
{
    if (n < 1)
        return fail(g, "concat '%s': needs at least one input", name);
    int i = append(g, name, DNP_OP_CONCAT, n, inputs);
    if (i < 0)
        return -1;
    dnp_shape s = dnp_op_out_view(&g->ops[inputs[0]]);
    int64_t c = 0;
    for (int k = 0; k < n; k++) {
        dnp_shape sk = dnp_op_out_view(&g->ops[inputs[k]]);
        if (sk.h != s.h || sk.w != s.w) {
            g->n_ops--;
            dnp_free(g->ops[i].inputs);
            return fail(g, "concat '%s': input %d is %lldx%lld, expected %lldx%lld", name, k,
                        (long long)sk.h, (long long)sk.w, (long long)s.h, (long long)s.w);
        }
        if (dnp_add_i64(c, sk.c, &c)) {
            g->n_ops--;
            dnp_free(g->ops[i].inputs);
            return fail(g, "concat '%s': the channel count overflows", name);
        }
    }
    set_chw(&g->ops[i], (dnp_shape){c, s.h, s.w});
    return finish(g, i);
}


static void set_dim(dnp_dim *d, const char *name, int64_t size)
{
    snprintf(d->name, sizeof d->name, "%s", name);
    d->size = size;
}

int dnp_op_dims(const dnp_graph *g, int i, int64_t batch, dnp_dim *dims)
{
    const dnp_op *op = &g->ops[i];
    const dnp_shape in = graph_in_view(g, op), o = dnp_op_out_view(op);
    int n = 0;
    set_dim(&dims[n++], "b", batch);
    switch (op->kind) {
    case DNP_OP_CONV:
        set_dim(&dims[n++], "c", in.c / op->groups);
        set_dim(&dims[n++], "n", o.c);
        set_dim(&dims[n++], "h", o.h);
        set_dim(&dims[n++], "w", o.w);
        set_dim(&dims[n++], "r", op->kh);
        set_dim(&dims[n++], "s", op->kw);
        break;
    case DNP_OP_FC:
        if (op->keep_positions)
            set_dim(&dims[n++], "m", o.h * o.w);
        set_dim(&dims[n++], "c", op->keep_positions ? in.c : shape_elems(in));
        set_dim(&dims[n++], "n", o.c);
        break;
    case DNP_OP_MATMUL:
        set_dim(&dims[n++], "m", o.h * o.w);
        set_dim(&dims[n++], "n", o.c);
        set_dim(&dims[n++], "k", op->contract);
        break;
    default:
        set_dim(&dims[n++], "c", o.c);
        set_dim(&dims[n++], "h", o.h);
        set_dim(&dims[n++], "w", o.w);
        break;
    }
    return n;
}

/* a * b, or INT64_MAX when the product overflows (a, b >= 0). */
static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    return dnp_mul_i64(a, b, &r) ? INT64_MAX : r;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    return dnp_add_i64(a, b, &r) ? INT64_MAX : r;
}

dnp_status dnp_graph_check_batch(const dnp_graph *g, int64_t batch, dnp_error *err)
{
    if (batch <= 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "batch %lld must be positive", (long long)batch);
        return DNP_ERR_INPUT;
    }
    int64_t total = 0, r;
    for (int i = 0; i < g->n_ops; i++) {
        const dnp_op *op = &g->ops[i];
        int64_t per = shape_elems(dnp_op_out_view(op));
        if (op->n_inputs > 0 && shape_elems(graph_in_view(g, op)) > per)
            per = shape_elems(graph_in_view(g, op));
        if (dnp_mul_i64(batch, per, &r) || dnp_add_i64(total, r, &total)) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "batch %lld is too large for model '%s': the activations of op '%s' "
                          "(%lld elements per sample) overflow a 64-bit count",
                          (long long)batch, g->name, op->name, (long long)per);
            return DNP_ERR_INPUT;
        }
    }
    return DNP_OK;
}

void dnp_op_cost_get(const dnp_graph *g, int i, int64_t batch, dnp_op_cost *out)
{
    const dnp_op *op = &g->ops[i];
    memset(out, 0, sizeof *out);
    const dnp_shape in = graph_in_view(g, op), o = dnp_op_out_view(op);
    int64_t in_per = op->n_inputs > 0 ? shape_elems(in) : 0;
    int64_t out_per = shape_elems(o);
    /* Sizes are bounded per sample (finish); a batch beyond what
     * dnp_graph_check_batch accepts saturates instead of overflowing. */
    out->in_elems = sat_mul(batch, in_per);
    out->out_elems = sat_mul(batch, out_per);
    double B = (double)batch, outv = (double)out->out_elems;

    switch (op->kind) {
    case DNP_OP_CONV:
    case DNP_OP_FC: {
        /* An FC at every position (ONNX MatMul with a weight) is a 1x1 conv. */
        int conv_like = op->kind == DNP_OP_CONV || op->keep_positions;
        int64_t k_area = op->kind == DNP_OP_CONV ? (int64_t)op->kh * op->kw : 1;
        int64_t d_in = op->kind == DNP_OP_CONV ? in.c / op->groups
                                               : (op->keep_positions ? in.c : in_per);
        int64_t d_out = o.c;
        int64_t hw_out = conv_like ? o.h * o.w : 1;
        out->weight_elems = d_in * d_out * k_area;
        out->params = out->weight_elems + (op->bias ? d_out : 0);
        /* Products per sample: every output element takes D_in*K products. */
        out->macs_per_sample = d_out * hw_out * d_in * k_area;
        /* AccPar Table 6 (x 2-D size for conv, section 4.3): each result
         * element costs P multiplications and P-1 additions, so a phase
         * whose M = B*macs products land in R result elements costs
         * 2M - R FLOP.  Forward: R = A(F_l+1); backward: R = A(E_l);
         * gradient: R = A(W).  With stride 1 this is exactly Table 6's
         * entries times the kernel or feature-map area; with strides it
         * counts the products really performed (docs/model.md). */
        double M = B * (double)out->macs_per_sample;
        /* A result element no product lands in (an input pixel a strided
         * window skips) costs nothing, so R counts at most M elements:
         * 2M - min(R, M) is the same figure whenever every element takes
         * a product, and never negative when strides skip inputs. */
        out->fwd_flop = 2.0 * M - fmin(outv, M);
        out->bwd_flop = 2.0 * M - fmin((double)out->in_elems, M);
        out->grad_flop = 2.0 * M - fmin((double)out->weight_elems, M);
        if (op->bias) {
            out->fwd_flop += outv;   /* add the bias */
            out->grad_flop += outv;  /* sum the error over batch and space */
        }
        break;
    }
    case DNP_OP_MATMUL: {
        /* C = A x B with M products: forward 2M - A(C); backward
         * dA = dC B^T and dB = A^T dC, M products each. */
        out->macs_per_sample = out_per * op->contract;
        double M = B * (double)out->macs_per_sample, in_all = 0.0;
        for (int k = 0; k < op->n_inputs; k++) {
            dnp_shape s = dnp_op_out_view(&g->ops[op->inputs[k]]);
            in_all += B * (double)shape_elems(s);
        }
        out->fwd_flop = 2.0 * M - fmin(outv, M);
        out->bwd_flop = 4.0 * M - fmin(in_all, 2.0 * M);
        break;
    }
    case DNP_OP_EMBEDDING:
        /* A lookup: copies forward, scatter-adds the error into the table. */
        out->weight_elems = op->param_elems;
        out->params = op->param_elems;
        out->fwd_flop = outv;
        out->grad_flop = outv;
        break;
    case DNP_OP_LAYERNORM:
        /* as batch norm, over the feature axis */
        out->params = op->param_elems;
        out->fwd_flop = 4.0 * outv;
        out->bwd_flop = 5.0 * outv;
        out->grad_flop = 2.0 * outv;
        break;
    case DNP_OP_ELTWISE:
        out->params = op->param_elems;
        out->fwd_flop = outv;
        out->bwd_flop = outv;
        out->grad_flop = op->param_elems > 0 ? outv : 0.0;
        break;
    case DNP_OP_REDUCE:
        out->fwd_flop = (double)out->in_elems;
        out->bwd_flop = (double)out->in_elems;
        break;
    case DNP_OP_MAXPOOL:
    case DNP_OP_AVGPOOL:
        out->fwd_flop = outv * op->kh * op->kw;
        out->bwd_flop = outv * op->kh * op->kw;
        break;
    case DNP_OP_RELU:
    case DNP_OP_DROPOUT:
        out->fwd_flop = outv;
        out->bwd_flop = outv;
        break;
    case DNP_OP_ADD:
        out->fwd_flop = outv;
        break;
    case DNP_OP_BATCHNORM:
        /* mean, variance, normalise, scale-and-shift: ~4 per element;
         * backward ~5 per element; gradients of gamma and beta ~2. */
        out->params = 2 * o.c;
        out->fwd_flop = 4.0 * outv;
        out->bwd_flop = 5.0 * outv;
        out->grad_flop = 2.0 * outv;
        break;
    case DNP_OP_LRN:
        /* square, windowed sum over kh channels, power and divide. */
        out->fwd_flop = (double)(op->kh + 3) * outv;
        out->bwd_flop = (double)(2 * op->kh + 3) * outv;
        break;
    case DNP_OP_SOFTMAX:
        out->fwd_flop = 3.0 * outv;
        out->bwd_flop = 3.0 * outv;
        break;
    case DNP_OP_EINSUM:
    case DNP_OP_LSTM:
    case DNP_OP_STACK:
    case DNP_OP_SELECT:
        graph_named_cost(g, op, batch, out);
        break;
    case DNP_OP_INPUT:
    case DNP_OP_CONCAT:
    case DNP_OP_FLATTEN:
    case DNP_OP_RESHAPE:
    case DNP_OP_KIND_COUNT:
        break;
    }
    (void)B;
}

void dnp_graph_totals_get(const dnp_graph *g, int64_t batch, dnp_graph_totals *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < g->n_ops; i++) {
        dnp_op_cost c;
        dnp_op_cost_get(g, i, batch, &c);
        out->params = sat_add(out->params, c.params);
        out->macs_per_sample = sat_add(out->macs_per_sample, c.macs_per_sample);
        out->forward_flop += c.fwd_flop;
        out->training_flop += c.fwd_flop + c.bwd_flop + c.grad_flop;
        out->activation_elems = sat_add(out->activation_elems, c.out_elems);
    }
}
