/*
 * onnx_load.c - import an ONNX model (protobuf-c code generated from
 * Debian's onnx.proto) into the graph IR.
 *
 * Shapes are inferred here, node by node, whatever the file says about
 * intermediate tensors.  Tensors that depend on the data inputs become IR
 * ops; parameters and constants stay in the tensor table, and small
 * integer constants are folded so that shape arithmetic (Shape, Gather,
 * Slice, Concat, arithmetic, Unsqueeze feeding Reshape) resolves.
 *
 * Which graph inputs are data: all inputs that are not initializers when
 * the file has initializers; otherwise (weights exported as shape-only
 * graph inputs) the inputs of integer type or with a symbolic dimension,
 * or else the first input.  The batch axis of a data input is its symbolic
 * dimension named like a batch, else its only symbolic dimension, else its
 * first axis; it is followed through every operator (onnx_axes.c) and IR
 * shapes are per sample whatever the layout (docs/onnx.md, "Axes").
 *
 * Parameters are counted per use: exporters deduplicate identical initial
 * weights (PyTorch shares one tensor among the copies of a Transformer
 * layer), but each use is a separate trainable tensor of the model.
 */
#include "dnnpar/model.h"
#include "core/input.h"
#include "core/alloc.h"
#include "core/checked.h"
#include "model/onnx_tensors.h"
#include "model/onnx_axes.h"
#include "model/onnx_fuse.h"

#include "onnx.pb-c.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest tensor dimension accepted (elements along one axis) and largest
 * window attribute (kernel, stride, pad, dilation). */
#define DIM_MAX (INT64_C(1) << 40)
#define WINDOW_ATTR_MAX (INT64_C(1) << 20)
/* Extent given to a symbolic batch axis while shapes are inferred
 * (docs/onnx.md, "Axes").  Any value above 1 gives the batch a place among
 * the elements that a Reshape's strides reveal (a batch of 1 has none); it
 * never reaches a result, which is per sample. */
#define SYMBOLIC_BATCH 7


typedef struct {
    const char *path;
    const char *base; /* file name for messages */
    const dnp_load_options *opt;
    dnp_graph *g;
    ot_table tab;
    int64_t batch;    /* the extent of the batch axis of the file's data inputs
                       * (SYMBOLIC_BATCH when symbolic) */
    int batch_symbolic;
    dnp_error *err;
    const Onnx__NodeProto *node; /* node being imported, for messages */
    int n_ops_named;
    onnx_fuse_note pend;      /* what the current node's op is noted with (onnx_fuse.h) */
    onnx_fuse_note *notes;    /* [n_notes]: per IR op, for the fusion pass */
    int n_notes, cap_notes;
    char quoted[4][DNP_QUOTE_MAX + 8]; /* qname's rotating buffers */
    int n_quoted;
} importer;

/* A tensor or operator name as quoted in a message (at most DNP_QUOTE_MAX
 * characters, so the message keeps its reason).  Valid for the next three
 * calls. */
static const char *qname(importer *im, const char *name)
{
    char *buf = im->quoted[im->n_quoted++ % 4];
    return dnp_quote_str(name ? name : "?", buf, sizeof im->quoted[0]);
}

static int node_fail(importer *im, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Record "FILE: node 'NAME' (OP): message" and return -1. */
static int node_fail(importer *im, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* The graph builder's allocation failures keep their status. */
    dnp_status st = strncmp(msg, "out of memory", 13) == 0 ? DNP_ERR_NOMEM : DNP_ERR_INPUT;
    char qn[DNP_QUOTE_MAX + 8], qo[DNP_QUOTE_MAX + 8];
    if (im->node != NULL)
        dnp_error_set(im->err, st, "%s: node '%s' (%s): %s", im->base,
                      im->node->name && im->node->name[0]
                          ? dnp_quote_str(im->node->name, qn, sizeof qn)
                          : "(unnamed)",
                      dnp_quote_str(im->node->op_type ? im->node->op_type : "?", qo, sizeof qo),
                      msg);
    else
        dnp_error_set(im->err, st, "%s: %s", im->base, msg);
    return -1;
}

/* ---------------------------------------------------------------- */
/* Attributes                                                        */
/* ---------------------------------------------------------------- */

static const Onnx__AttributeProto *attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0)
            return n->attribute[i];
    return NULL;
}

static int64_t attr_i(const Onnx__NodeProto *n, const char *name, int64_t dflt)
{
    const Onnx__AttributeProto *a = attr(n, name);
    return (a && a->has_i) ? a->i : dflt;
}

/* Up to max ints of attribute `name`; returns the count (0 if absent). */
static int attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, int max)
{
    const Onnx__AttributeProto *a = attr(n, name);
    if (a == NULL)
        return 0;
    int k = (int)(a->n_ints < (size_t)max ? a->n_ints : (size_t)max);
    for (int i = 0; i < k; i++)
        out[i] = a->ints[i];
    return k;
}

static const char *attr_s(const Onnx__NodeProto *n, const char *name, char *buf, size_t len)
{
    const Onnx__AttributeProto *a = attr(n, name);
    if (a == NULL || !a->has_s)
        return NULL;
    size_t k = a->s.len < len - 1 ? a->s.len : len - 1;
    memcpy(buf, a->s.data, k);
    buf[k] = '\0';
    return buf;
}

/* ---------------------------------------------------------------- */
/* Tensors: values of constants, views of activations                */
/* ---------------------------------------------------------------- */

static int64_t read_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    if (bytes == 4)
        return (int64_t)(int32_t)(uint32_t)v;
    return (int64_t)v;
}

/* Fill t's shape (and small integer values or a float scalar) from a
 * TensorProto.  Returns -1 on a malformed tensor. */
static int from_tensor_proto(importer *im, ot_tensor *t, const Onnx__TensorProto *tp)
{
    if (tp->n_dims > OT_MAX_RANK)
        return node_fail(im, "tensor '%s' has %zu axes (at most %d supported)",
                         qname(im, tp->name ? tp->name : t->name), tp->n_dims, OT_MAX_RANK);
    t->rank = (int)tp->n_dims;
    for (int i = 0; i < t->rank; i++) {
        if (tp->dims[i] < 0 || tp->dims[i] > DIM_MAX)
            return node_fail(im, "tensor '%s' has a dimension outside 0 .. 2^40",
                             qname(im, t->name));
        t->dims[i] = tp->dims[i];
    }
    int64_t n = ot_numel(t);
    if (n < 0)
        return node_fail(im, "tensor '%s' is too large", qname(im, t->name));
    int type = tp->has_data_type ? tp->data_type : 0;
    int is_int = type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ||
                 type == ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
    if (is_int && n <= OT_MAX_VALUES) {
        int bytes = type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ? 8 : 4;
        if (tp->raw_data.len == (size_t)n * (size_t)bytes) {
            for (int64_t i = 0; i < n; i++)
                t->vals[i] = read_le(tp->raw_data.data + i * bytes, bytes);
            t->n_vals = (int)n;
        } else if (bytes == 8 && tp->n_int64_data == (size_t)n) {
            memcpy(t->vals, tp->int64_data, (size_t)n * sizeof *t->vals);
            t->n_vals = (int)n;
        } else if (bytes == 4 && tp->n_int32_data == (size_t)n) {
            for (int64_t i = 0; i < n; i++)
                t->vals[i] = tp->int32_data[i];
            t->n_vals = (int)n;
        }
        t->kind = OT_CONST;
    }
    if (type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT && n == 1) {
        if (tp->raw_data.len == 4) {
            float f;
            memcpy(&f, tp->raw_data.data, 4);
            t->f = f, t->has_f = 1;
        } else if (tp->n_float_data == 1) {
            t->f = tp->float_data[0], t->has_f = 1;
        }
    }
    return 0;
}

/* How an activation is viewed as the IR's c x h x w (dnp_shape). */
enum { VIEW_AUTO, VIEW_NCHW, VIEW_LAST };

/* The IR's per-sample view of an activation (the batch taken out where
 * onnx_axes.c tracked it): an image N x C x H x W keeps C x H x W; any
 * other tensor, channel-last images included, is c = its last axis (the
 * features a layer contracts or produces), h = the other per-sample axes.
 * VIEW_NCHW / VIEW_LAST force one of the two.  Fills a's out_dims with
 * the per-sample axes. */
static dnp_shape view_of(const importer *im, const ot_tensor *t, dnp_op_attrs *a, int mode)
{
    dnp_shape s = {1, 1, 1};
    int64_t pd[OT_MAX_RANK];
    signed char pr[OT_MAX_RANK];
    int r = ax_per_sample(t, im->batch, pd, pr);
    int64_t n = 1; /* checked: a shape not yet bounded by set_out may be huge */
    for (int i = 0; i < r && n > 0; i++)
        if (pd[i] < 0 || pd[i] > DIM_MAX || dnp_mul_i64(n, pd[i], &n) || n > (INT64_C(1) << 62))
            n = -1;
    int nchw = mode == VIEW_NCHW || (mode == VIEW_AUTO && ax_is_nchw(t, im->batch));
    if (n > 0 && nchw && r == 3) {
        s = (dnp_shape){pd[0], pd[1], pd[2]};
    } else if (n > 0) {
        int64_t c = r >= 1 ? pd[r - 1] : 1;
        s = (dnp_shape){c, n / c, 1};
    }
    if (a != NULL) {
        /* more per-sample axes than an op holds (DNP_MAX_RANK): the leading
         * ones are folded into the first kept, which leaves the view (c =
         * the last axis, h = the product of the others) as it is; n > 0
         * bounds the partial products */
        int fold = n > 0 && r > DNP_MAX_RANK ? r - DNP_MAX_RANK : 0;
        int64_t lead = 1;
        a->out_rank = 0;
        for (int i = 0; i < r && a->out_rank < DNP_MAX_RANK; i++) {
            if (i < fold) {
                lead *= pd[i];
                continue;
            }
            a->out_dims[a->out_rank++] = lead * pd[i];
            lead = 1;
        }
    }
    return s;
}

/* The input tensor k of the current node (NULL if absent or empty name). */
static ot_tensor *in_t(importer *im, size_t k)
{
    const Onnx__NodeProto *n = im->node;
    if (k >= n->n_input || n->input[k] == NULL || n->input[k][0] == '\0')
        return NULL;
    return ot_find(&im->tab, n->input[k]);
}

static int need_in(importer *im, size_t k, ot_tensor *copy)
{
    memset(copy, 0, sizeof *copy);
    ot_tensor *t = in_t(im, k);
    if (t == NULL)
        return node_fail(im, "input %zu is missing or produced by no earlier node", k);
    if (t->rank < 0)
        return node_fail(im, "the shape of input '%s' is unknown", qname(im, t->name));
    *copy = *t;
    return 0;
}

/* Bind output k of the current node to a tensor description. */
static int set_out(importer *im, size_t k, const ot_tensor *val)
{
    const Onnx__NodeProto *n = im->node;
    if (k >= n->n_output || n->output[k] == NULL || n->output[k][0] == '\0')
        return 0;
    /* Every tensor shape is bounded here, so shape arithmetic on known
     * tensors stays far from int64 overflow (issue 12, item 2). */
    for (int i = 0; i < val->rank; i++)
        if (val->dims[i] < 0 || val->dims[i] > DIM_MAX)
            return node_fail(im, "output %zu: dimension %d is %lld (must be in 0 .. 2^40)", k, i,
                             (long long)val->dims[i]);
    if (val->rank >= 0 && ot_numel(val) < 0)
        return node_fail(im, "output %zu has more than 2^62 elements", k);
    ot_tensor *t = ot_get(&im->tab, n->output[k]);
    if (t == NULL) {
        dnp_error_set(im->err, DNP_ERR_NOMEM, "out of memory importing %s", im->base);
        return -1;
    }
    const char *name = t->name;
    *t = *val;
    t->name = name;
    return 0;
}

/* Record im->pend, completed with out's last axis, as the note of IR op
 * `op` for the fusion pass (ops made without a note get a zero one).
 * Returns -1 on allocation failure.  O(1) amortised. */
static int note_op(importer *im, int op, const ot_tensor *out)
{
    if (op >= im->cap_notes) {
        int cap = im->cap_notes ? im->cap_notes * 2 : 256;
        while (cap <= op)
            cap *= 2;
        onnx_fuse_note *p = dnp_realloc_array(im->notes, (size_t)cap, sizeof *p);
        if (p == NULL) {
            dnp_error_set(im->err, DNP_ERR_NOMEM, "out of memory importing %s", im->base);
            return -1;
        }
        im->notes = p;
        im->cap_notes = cap;
    }
    for (; im->n_notes <= op; im->n_notes++)
        memset(&im->notes[im->n_notes], 0, sizeof *im->notes);
    onnx_fuse_note *t = &im->notes[op];
    *t = im->pend;
    t->noted = 1;
    t->out_last = out->rank >= 1 ? out->dims[out->rank - 1] : 1;
    return 0;
}

/* Append an IR op for the current node producing activation `out` from
 * the activation inputs listed; binds output 0. */
static int emit_view(importer *im, dnp_op_kind kind, const ot_tensor *const *ins, int n_ins,
                     ot_tensor *out, dnp_op_attrs *a, int mode)
{
    int small[16], *inputs = small; /* the heap only for a wide Concat */
    if (n_ins > 16 && (inputs = dnp_calloc((size_t)n_ins, sizeof *inputs)) == NULL) {
        dnp_error_set(im->err, DNP_ERR_NOMEM, "out of memory importing %s", im->base);
        return -1;
    }
    for (int i = 0; i < n_ins; i++)
        inputs[i] = ins[i]->op;
    dnp_op_attrs local = {0};
    if (a == NULL)
        a = &local;
    a->src_type = im->node->op_type;
    dnp_shape s = view_of(im, out, a, mode);
    char name[64];
    const char *nn = im->node->name;
    if (nn == NULL || nn[0] == '\0' || strlen(nn) >= sizeof name ||
        dnp_graph_find(im->g, nn) >= 0) {
        snprintf(name, sizeof name, "%s_%d", im->node->op_type, im->n_ops_named);
        nn = name;
    }
    im->n_ops_named++;
    int op = dnp_graph_append(im->g, nn, kind, n_ins, inputs, s, a);
    if (inputs != small)
        dnp_free(inputs);
    if (op < 0)
        return node_fail(im, "%s", dnp_graph_error(im->g));
    if (note_op(im, op, out) != 0)
        return -1;
    out->kind = OT_ACT;
    out->op = op;
    out->n_vals = 0;
    return set_out(im, 0, out);
}

static int emit(importer *im, dnp_op_kind kind, const ot_tensor *const *ins, int n_ins,
                ot_tensor *out, dnp_op_attrs *a)
{
    return emit_view(im, kind, ins, n_ins, out, a, VIEW_AUTO);
}

/* Make the IR op that produces activation x show it in the view `mode`
 * (a conv reads C x H x W, an FC at every position reads c = the
 * contracted last axis): when the producer's view differs, a free reshape
 * op re-views it, and x (and the table's entry) then refer to that op. */
static int ensure_view(importer *im, ot_tensor *x, int mode)
{
    dnp_shape want = view_of(im, x, NULL, mode);
    dnp_shape have = dnp_op_out_view(dnp_graph_op(im->g, x->op));
    if (have.c == want.c && have.h == want.h && have.w == want.w)
        return 0;
    char name[64];
    snprintf(name, sizeof name, "%s_view_%d", im->node->op_type, im->n_ops_named++);
    dnp_op_attrs a = {0};
    a.src_type = "Reshape";
    view_of(im, x, &a, mode);
    int op = dnp_graph_append(im->g, name, DNP_OP_RESHAPE, 1, &x->op, want, &a);
    if (op < 0)
        return node_fail(im, "%s", dnp_graph_error(im->g));
    x->op = op;
    ot_tensor *t = ot_find(&im->tab, x->name);
    if (t != NULL && t->kind == OT_ACT)
        t->op = op;
    return 0;
}

/* A batch of 1 fixed in the file may have been squeezed away or be hard to
 * place: an op that needs the batch alone on axis 0 takes a unit axis 0
 * as the batch (exact, since one sample is the whole tensor).  Otherwise
 * the batch must be alone on axis 0. */
static int need_batch_first(importer *im, ot_tensor *x, const char *what)
{
    if (x->bax == 0 && ax_batch_alone(x, im->batch))
        return 0;
    if (im->batch == 1 && x->rank >= 1 && x->dims[0] == 1 && x->bax < 0) {
        x->bax = 0, x->bstride = 1, x->role[0] = OT_ROLE_BATCH;
        return 0;
    }
    if (x->bax < 0)
        return node_fail(im, "%s needs the batch on axis 0; its input '%s' has no batch axis",
                         what, qname(im, x->name));
    return node_fail(im, "%s needs the batch alone on axis 0; its input '%s' has it %s axis %d",
                     what, qname(im, x->name),
                     ax_batch_alone(x, im->batch) ? "on" : "merged with another factor in",
                     x->bax);
}

/* ---------------------------------------------------------------- */
/* Node handlers                                                     */
/* ---------------------------------------------------------------- */

static int64_t dim_out(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d,
                       int ceil_mode)
{
    int64_t eff = d * (k - 1) + 1, span = in + pb + pe - eff;
    if (span < 0 || s <= 0)
        return 0;
    return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

/* Sliding-window geometry of Conv / MaxPool / AveragePool on an NCHW
 * input; kernel from the attribute or the weight. */
static int window(importer *im, const ot_tensor *x, const int64_t *kernel, ot_tensor *out,
                  dnp_op_attrs *a, int64_t out_c)
{
    const Onnx__NodeProto *n = im->node;
    if (x->rank != 4)
        return node_fail(im, "expects a 4-D N x C x H x W input, got %d axes", x->rank);
    int64_t strides[2] = {1, 1}, pads[4] = {0, 0, 0, 0}, dil[2] = {1, 1};
    attr_ints(n, "strides", strides, 2);
    attr_ints(n, "pads", pads, 4);
    attr_ints(n, "dilations", dil, 2);
    char ap[32] = "";
    attr_s(n, "auto_pad", ap, sizeof ap);
    int ceil_mode = (int)attr_i(n, "ceil_mode", 0);
    /* Checked before any arithmetic uses them: SAME padding divides by the
     * stride (a stride of 0 was a SIGFPE, issue 12). */
    for (int i = 0; i < 2; i++)
        if (kernel[i] <= 0 || strides[i] <= 0 || dil[i] <= 0 || kernel[i] > WINDOW_ATTR_MAX ||
            strides[i] > WINDOW_ATTR_MAX || dil[i] > WINDOW_ATTR_MAX)
            return node_fail(im, "kernel %lldx%lld, strides %lldx%lld and dilations %lldx%lld "
                                 "must be in 1 .. 2^20",
                             (long long)kernel[0], (long long)kernel[1], (long long)strides[0],
                             (long long)strides[1], (long long)dil[0], (long long)dil[1]);
    for (int i = 0; i < 4; i++)
        if (pads[i] < 0 || pads[i] > WINDOW_ATTR_MAX)
            return node_fail(im, "pad %lld must be in 0 .. 2^20", (long long)pads[i]);
    if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
        for (int i = 0; i < 2; i++) {
            int64_t o = (x->dims[2 + i] + strides[i] - 1) / strides[i];
            int64_t total = (o - 1) * strides[i] + dil[i] * (kernel[i] - 1) + 1 - x->dims[2 + i];
            total = total > 0 ? total : 0;
            pads[i] = strcmp(ap, "SAME_UPPER") == 0 ? total / 2 : total - total / 2;
            pads[i + 2] = total - pads[i];
        }
    }
    for (int i = 0; i < 4; i++)
        if (pads[i] < 0 || pads[i] > DIM_MAX)
            return node_fail(im, "pad %lld must be in 0 .. 2^40", (long long)pads[i]);
    *out = *x;
    out->dims[1] = out_c;
    out->role[1] = OT_ROLE_CHANNEL;
    out->role[2] = out->role[3] = OT_ROLE_SPATIAL;
    for (int i = 0; i < 2; i++) {
        out->dims[2 + i] =
            dim_out(x->dims[2 + i], kernel[i], strides[i], pads[i], pads[i + 2], dil[i], ceil_mode);
        if (out->dims[2 + i] <= 0)
            return node_fail(im, "window %lldx%lld does not fit input %lldx%lld",
                             (long long)kernel[0], (long long)kernel[1], (long long)x->dims[2],
                             (long long)x->dims[3]);
    }
    a->kh = (int)kernel[0], a->kw = (int)kernel[1];
    a->sh = (int)strides[0], a->sw = (int)strides[1];
    a->ph = (int)pads[0], a->pw = (int)pads[1];
    return 0;
}

static int h_conv(importer *im)
{
    ot_tensor x, w, out;
    if (need_in(im, 0, &x) || need_in(im, 1, &w))
        return -1;
    if (x.kind != OT_ACT)
        return node_fail(im, "the data input '%s' does not depend on the model's inputs",
                         qname(im, x.name));
    if (w.rank != 4)
        return node_fail(im, "weight '%s' must have 4 axes", qname(im, w.name));
    int64_t group = attr_i(im->node, "group", 1), in_c = -1;
    if (group <= 0 || group > (INT64_C(1) << 30) || x.rank != 4 ||
        dnp_mul_i64(w.dims[1], group, &in_c) || in_c != x.dims[1] || w.dims[0] % group != 0)
        return node_fail(im, "weight %lldx%lld per group does not match %lld input channels "
                             "in %lld groups",
                         (long long)w.dims[0], (long long)w.dims[1],
                         (long long)(x.rank == 4 ? x.dims[1] : -1), (long long)group);
    int64_t kernel[2] = {w.dims[2], w.dims[3]};
    attr_ints(im->node, "kernel_shape", kernel, 2);
    dnp_op_attrs a = {0};
    if (need_batch_first(im, &x, "a convolution") != 0 ||
        window(im, &x, kernel, &out, &a, w.dims[0]) != 0 || ensure_view(im, &x, VIEW_NCHW) != 0)
        return -1;
    a.groups = (int)group;
    a.bias = in_t(im, 2) != NULL;
    const ot_tensor *ins[1] = {&x};
    return emit_view(im, DNP_OP_CONV, ins, 1, &out, &a, VIEW_NCHW);
}

static int h_pool(importer *im, dnp_op_kind kind, int global)
{
    ot_tensor x, out;
    if (need_in(im, 0, &x))
        return -1;
    if (x.rank != 4)
        return node_fail(im, "expects a 4-D N x C x H x W input, got %d axes", x.rank);
    if (x.kind != OT_ACT)
        return node_fail(im, "pools a tensor that does not depend on the model's inputs");
    if (need_batch_first(im, &x, "a pooling") != 0 || ensure_view(im, &x, VIEW_NCHW) != 0)
        return -1;
    dnp_op_attrs a = {0};
    if (global) {
        out = x;
        out.dims[2] = out.dims[3] = 1;
        out.role[1] = OT_ROLE_CHANNEL;
        out.role[2] = out.role[3] = OT_ROLE_SPATIAL;
        if (x.dims[2] > INT32_MAX || x.dims[3] > INT32_MAX)
            return node_fail(im, "a global pool over %lldx%lld is too large",
                             (long long)x.dims[2], (long long)x.dims[3]);
        a.kh = (int)x.dims[2], a.kw = (int)x.dims[3];
        a.sh = a.kh, a.sw = a.kw;
    } else {
        int64_t kernel[2] = {0, 0};
        if (attr_ints(im->node, "kernel_shape", kernel, 2) != 2)
            return node_fail(im, "needs a 2-D kernel_shape");
        if (window(im, &x, kernel, &out, &a, x.dims[1]) != 0)
            return -1;
    }
    const ot_tensor *ins[1] = {&x};
    return emit_view(im, kind, ins, 1, &out, &a, VIEW_NCHW);
}

/* Weight operand of a product as (K, N), from a 2-D parameter tensor. */
static int weight_kn(importer *im, const ot_tensor *w, int trans, int64_t *k, int64_t *n)
{
    if (w->rank != 2)
        return node_fail(im, "weight '%s' must have 2 axes, has %d", qname(im, w->name), w->rank);
    *k = trans ? w->dims[1] : w->dims[0];
    *n = trans ? w->dims[0] : w->dims[1];
    return 0;
}

static int h_gemm(importer *im)
{
    ot_tensor a, b, out;
    if (need_in(im, 0, &a) || need_in(im, 1, &b))
        return -1;
    if (a.kind != OT_ACT || b.kind == OT_ACT || a.rank != 2 || attr_i(im->node, "transA", 0))
        return node_fail(im, "supported as activation (N x K) times a weight");
    int64_t k = 0, n = 0;
    if (weight_kn(im, &b, (int)attr_i(im->node, "transB", 0), &k, &n) != 0)
        return -1;
    if (k != a.dims[1])
        return node_fail(im, "inner dimensions %lld and %lld differ", (long long)a.dims[1],
                         (long long)k);
    if (a.bax == 1)
        return node_fail(im, "contracts over the batch axis of '%s'", qname(im, a.name));
    out = a;
    out.dims[1] = n;
    out.role[1] = OT_ROLE_FEATURE;
    dnp_op_attrs at = {0};
    at.bias = in_t(im, 2) != NULL;
    /* rows that are not the batch alone (e.g. sequence x batch flattened)
     * are positions the same weight is applied at */
    at.keep_positions = !(a.bax == 0 && ax_batch_alone(&a, im->batch)) &&
                        !(a.bax < 0 && a.dims[0] == 1);
    if (ensure_view(im, &a, VIEW_LAST) != 0)
        return -1;
    const ot_tensor *ins[1] = {&a};
    return emit_view(im, DNP_OP_FC, ins, 1, &out, &at, VIEW_LAST);
}

/* a x b (numpy matmul) for the current node's output. */
static int matmul_of(importer *im, ot_tensor a, ot_tensor b)
{
    ot_tensor out;
    if (a.rank < 1 || b.rank < 1)
        return node_fail(im, "operands must have at least one axis");
    if (a.kind != OT_ACT && b.kind != OT_ACT) {
        /* weights times weights: a parameter, no op */
        out = a;
        out.kind = OT_PARAM;
        out.n_vals = 0;
        out.dims[out.rank - 1] = b.dims[b.rank - 1];
        return set_out(im, 0, &out);
    }
    if (a.kind != OT_ACT)
        return node_fail(im, "a constant left operand times an activation is not supported");
    int64_t k = a.dims[a.rank - 1];
    if (a.bax == a.rank - 1 || (b.kind == OT_ACT && b.rank >= 2 && b.bax == b.rank - 2))
        return node_fail(im, "contracts over the batch axis");
    if (b.kind != OT_ACT) {
        /* activation x weight: an FC at every position (a 1x1 conv) */
        int64_t kk = 0, n = 0;
        if (weight_kn(im, &b, 0, &kk, &n) != 0)
            return -1;
        if (kk != k)
            return node_fail(im, "inner dimensions %lld and %lld differ", (long long)k,
                             (long long)kk);
        /* MACs = (output elements per sample) x K, whatever the layout:
         * positions x K x n (graph.c), read through the c = last axis view */
        out = a;
        out.dims[out.rank - 1] = n;
        out.role[out.rank - 1] = OT_ROLE_FEATURE;
        dnp_op_attrs at = {0};
        at.keep_positions = 1;
        if (ensure_view(im, &a, VIEW_LAST) != 0)
            return -1;
        const ot_tensor *ins[1] = {&a};
        return emit_view(im, DNP_OP_FC, ins, 1, &out, &at, VIEW_LAST);
    }
    /* activation x activation: batched product with broadcast batch axes */
    if (a.rank < 2 || b.rank < 2 || b.dims[b.rank - 2] != k)
        return node_fail(im, "operands %d-D and %d-D do not multiply", a.rank, b.rank);
    ot_tensor a_lead = a, b_lead = b;
    a_lead.rank -= 2;
    b_lead.rank -= 2;
    out = a;
    int r = ot_broadcast(&a_lead, &b_lead, out.dims);
    if (r < 0 || r + 2 > OT_MAX_RANK)
        return node_fail(im, "batch axes do not broadcast");
    /* named axes: the broadcast leading axes, rows of a, columns of b */
    a_lead.bax = a.bax < a.rank - 2 ? a.bax : -1;
    b_lead.bax = b.bax < b.rank - 2 ? b.bax : -1;
    out.rank = r;
    ax_broadcast(&a_lead, &b_lead, &out);
    out.rank = r + 2;
    out.dims[r] = a.dims[a.rank - 2];
    out.dims[r + 1] = b.dims[b.rank - 1];
    out.role[r] = a.role[a.rank - 2];
    out.role[r + 1] = b.role[b.rank - 1];
    if (out.bax < 0 && a.bax == a.rank - 2)
        out.bax = r, out.bstride = a.bstride;
    if (out.bax < 0 && b.bax == b.rank - 1)
        out.bax = r + 1, out.bstride = b.bstride;
    dnp_op_attrs at = {0};
    at.contract = k;
    const ot_tensor *ins[2] = {&a, &b};
    return emit(im, DNP_OP_MATMUL, ins, 2, &out, &at);
}

static int h_matmul(importer *im)
{
    ot_tensor a, b;
    if (need_in(im, 0, &a) || need_in(im, 1, &b))
        return -1;
    return matmul_of(im, a, b);
}

/* x with its last two axes swapped: a free re-layout op for an
 * activation (as Transpose), the dims alone for a constant. */
static int swap_last2(importer *im, ot_tensor *x)
{
    ot_tensor out = *x;
    int r = x->rank, src[OT_MAX_RANK];
    for (int i = 0; i < r; i++)
        src[i] = i;
    src[r - 2] = r - 1;
    src[r - 1] = r - 2;
    out.dims[r - 2] = x->dims[r - 1];
    out.dims[r - 1] = x->dims[r - 2];
    out.n_vals = 0;
    if (x->kind != OT_ACT) {
        *x = out;
        return 0;
    }
    ax_remap(x, src, &out);
    char name[64];
    snprintf(name, sizeof name, "%s_transpose_%d", im->node->op_type, im->n_ops_named++);
    dnp_op_attrs a = {0};
    a.src_type = "Transpose";
    dnp_shape s = view_of(im, &out, &a, VIEW_AUTO);
    int op = dnp_graph_append(im->g, name, DNP_OP_RESHAPE, 1, &x->op, s, &a);
    if (op < 0)
        return node_fail(im, "%s", dnp_graph_error(im->g));
    out.op = op;
    *x = out;
    return 0;
}

/* Einsum of two operands that is a batched matrix product (attention's
 * "bhid,bhjd->bhij" and "bhij,bhjd->bhid"): the letters common to both
 * operands and the output lead all three in one order, then a holds m
 * and k, b holds k and n (either order each) and the output m then n.
 * Lowered to MatMul, with a free transpose of an operand whose last two
 * letters come the other way round.  Others are refused by name. */
static int h_einsum(importer *im)
{
    const Onnx__AttributeProto *ea = attr(im->node, "equation");
    if (ea == NULL || !ea->has_s || ea->s.len == 0 || ea->s.len > 200)
        return node_fail(im, "needs an equation of 1 to 200 characters");
    char eq[3][OT_MAX_RANK + 1];
    int len[3] = {0, 0, 0}, part = 0, arrow = 0;
    for (size_t i = 0; i < ea->s.len; i++) {
        char c = (char)ea->s.data[i];
        if (c == ' ')
            continue;
        if (c == ',' && part == 0 && !arrow)
            part = 1;
        else if (c == '-' && i + 1 < ea->s.len && ea->s.data[i + 1] == '>' && part == 1 &&
                 !arrow)
            part = 2, arrow = 1, i++;
        else if (((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) && len[part] < OT_MAX_RANK)
            eq[part][len[part]++] = c;
        else
            return node_fail(im, "equation '%.*s': only two operands with letters and an "
                                 "explicit output (x,y->z) are supported",
                             (int)ea->s.len, (const char *)ea->s.data);
    }
    ot_tensor a, b;
    if (!arrow || im->node->n_input != 2 || need_in(im, 0, &a) || need_in(im, 1, &b))
        return arrow && im->node->n_input == 2
                   ? -1
                   : node_fail(im, "equation '%.*s': needs two operands and '->'",
                               (int)ea->s.len, (const char *)ea->s.data);
    int r = len[2];
    int ok = len[0] == a.rank && len[1] == b.rank && r >= 2 && len[0] == r && len[1] == r &&
             memcmp(eq[0], eq[2], (size_t)(r - 2)) == 0 &&
             memcmp(eq[1], eq[2], (size_t)(r - 2)) == 0;
    char m = eq[2][r - 2], n = eq[2][r - 1], ka = 0, kb = 0;
    int a_swapped = 0, b_swapped = 0;
    if (ok) {
        /* a's last two: (m, k) or (k, m); b's: (k, n) or (n, k) */
        if (eq[0][r - 2] == m)
            ka = eq[0][r - 1];
        else if (eq[0][r - 1] == m)
            ka = eq[0][r - 2], a_swapped = 1;
        if (eq[1][r - 1] == n)
            kb = eq[1][r - 2];
        else if (eq[1][r - 2] == n)
            kb = eq[1][r - 1], b_swapped = 1;
        ok = ka != 0 && ka == kb && ka != m && ka != n && m != n;
    }
    if (!ok)
        return node_fail(im, "equation '%.*s' is not a batched matrix product dnnpar models "
                             "(ab..mk,ab..kn->ab..mn with either operand's last two letters "
                             "swapped)",
                         (int)ea->s.len, (const char *)ea->s.data);
    if ((a_swapped && swap_last2(im, &a) != 0) || (b_swapped && swap_last2(im, &b) != 0))
        return -1;
    return matmul_of(im, a, b);
}

/* The trainable elements of parameter t (ot_tensor.train_elems). */
static int64_t param_train_elems(const ot_tensor *t)
{
    return t->train_elems > 0 ? t->train_elems : ot_numel(t);
}

/* Integer arithmetic on folded constants (shape arithmetic). */
static int fold_binary(const char *op, const ot_tensor *a, const ot_tensor *b, ot_tensor *out)
{
    int64_t dims[OT_MAX_RANK];
    int r = ot_broadcast(a, b, dims);
    if (r < 0 || a->n_vals == 0 || b->n_vals == 0)
        return 0;
    int64_t n = 1;
    for (int i = 0; i < r; i++)
        if (dnp_mul_i64(n, dims[i], &n))
            return 0;
    if (n > OT_MAX_VALUES || (a->n_vals != 1 && a->n_vals != n) ||
        (b->n_vals != 1 && b->n_vals != n))
        return 0;
    /* A result that overflows int64 is not folded (the node then fails
     * where a constant is needed, with its name). */
    for (int64_t i = 0; i < n; i++) {
        int64_t x = a->vals[a->n_vals == 1 ? 0 : i], y = b->vals[b->n_vals == 1 ? 0 : i], v;
        int bad;
        if (strcmp(op, "Add") == 0)
            bad = dnp_add_i64(x, y, &v);
        else if (strcmp(op, "Sub") == 0)
            bad = dnp_sub_i64(x, y, &v);
        else if (strcmp(op, "Mul") == 0)
            bad = dnp_mul_i64(x, y, &v);
        else if (strcmp(op, "Div") == 0 && y != 0 && !(x == INT64_MIN && y == -1))
            bad = (v = x / y, 0);
        else if (strcmp(op, "Equal") == 0)
            bad = (v = x == y, 0);
        else if (strcmp(op, "Less") == 0)
            bad = (v = x < y, 0);
        else if (strcmp(op, "Greater") == 0)
            bad = (v = x > y, 0);
        else if (strcmp(op, "LessOrEqual") == 0)
            bad = (v = x <= y, 0);
        else if (strcmp(op, "GreaterOrEqual") == 0)
            bad = (v = x >= y, 0);
        else if (strcmp(op, "And") == 0)
            bad = (v = x && y, 0);
        else if (strcmp(op, "Or") == 0)
            bad = (v = x || y, 0);
        else if (strcmp(op, "Xor") == 0)
            bad = (v = !x != !y, 0);
        else if ((strcmp(op, "Mod") == 0 || strcmp(op, "FMod") == 0) && y != 0 &&
                 !(x == INT64_MIN && y == -1)) {
            /* ONNX Mod: fmod = 1 keeps the dividend's sign (C's %), fmod = 0
             * the divisor's (Python's %) */
            v = x % y;
            if (strcmp(op, "Mod") == 0 && v != 0 && ((v < 0) != (y < 0)))
                v += y;
            bad = 0;
        } else
            return 0;
        if (bad)
            return 0;
        out->vals[i] = v;
    }
    out->n_vals = (int)n;
    return 1;
}

static int h_binary(importer *im)
{
    const char *op = im->node->op_type;
    ot_tensor a, b, out;
    if (need_in(im, 0, &a) || need_in(im, 1, &b))
        return -1;
    int64_t dims[OT_MAX_RANK];
    int r = ot_broadcast(&a, &b, dims);
    if (r < 0)
        return node_fail(im, "operand shapes do not broadcast");
    out = a;
    out.rank = r;
    memcpy(out.dims, dims, sizeof dims);
    out.n_vals = 0;
    out.has_f = 0;
    if (a.kind != OT_ACT && b.kind != OT_ACT) {
        out.kind = (a.kind == OT_PARAM || b.kind == OT_PARAM) ? OT_PARAM : OT_CONST;
        if (out.kind == OT_CONST)
            fold_binary(strcmp(op, "Mod") == 0 && attr_i(im->node, "fmod", 0) ? "FMod" : op, &a,
                        &b, &out);
        return set_out(im, 0, &out);
    }
    ax_broadcast(&a, &b, &out);
    dnp_op_attrs at = {0};
    if (a.kind == OT_ACT && b.kind == OT_ACT) {
        const ot_tensor *ins[2] = {&a, &b};
        return emit(im, strcmp(op, "Add") == 0 ? DNP_OP_ADD : DNP_OP_ELTWISE, ins, 2, &out, &at);
    }
    const ot_tensor *act = a.kind == OT_ACT ? &a : &b, *other = a.kind == OT_ACT ? &b : &a;
    im->pend.c_pos = a.kind == OT_ACT ? 2 : 1;
    im->pend.c_has_f = other->has_f != 0;
    im->pend.c_f = other->f;
    im->pend.c_param = other->kind == OT_PARAM;
    im->pend.c_numel = ot_numel(other);
    im->pend.c_last = other->rank >= 1 ? other->dims[other->rank - 1] : 1;
    if (other->kind == OT_PARAM)
        at.param_elems = param_train_elems(other); /* a bias or scale: trainable, counted per
                                                    * use */
    const ot_tensor *ins[1] = {act};
    return emit(im, DNP_OP_ELTWISE, ins, 1, &out, &at);
}

static int h_unary(importer *im, dnp_op_kind kind)
{
    ot_tensor x;
    if (need_in(im, 0, &x))
        return -1;
    if (x.kind != OT_ACT) {
        x.has_f = 0; /* a transformed parameter or constant */
        if (strcmp(im->node->op_type, "Not") == 0) /* folded: shape arithmetic's masks */
            for (int i = 0; i < x.n_vals; i++)
                x.vals[i] = !x.vals[i];
        else if (strcmp(im->node->op_type, "Cast") != 0 &&
                 strcmp(im->node->op_type, "Identity") != 0)
            x.n_vals = 0;
        return set_out(im, 0, &x);
    }
    if (kind == DNP_OP_INPUT) /* pass-through: alias */
        return set_out(im, 0, &x);
    ot_tensor out = x;
    dnp_op_attrs at = {0};
    if (kind == DNP_OP_LRN) {
        int64_t size = attr_i(im->node, "size", 5);
        if (size < 1 || size > WINDOW_ATTR_MAX) /* (size + 3) x elements FLOP, graph.c */
            return node_fail(im, "size %lld must be in 1 .. 2^20", (long long)size);
        at.kh = (int)size;
    }
    const ot_tensor *ins[1] = {&x};
    return emit(im, kind, ins, 1, &out, &at);
}

static int h_norm(importer *im, dnp_op_kind kind)
{
    ot_tensor x;
    if (need_in(im, 0, &x))
        return -1;
    if (x.kind != OT_ACT)
        return node_fail(im, "normalises a tensor that does not depend on the model's inputs");
    dnp_op_attrs at = {0};
    if (kind == DNP_OP_LAYERNORM)
        for (size_t k = 1; k < 3; k++) {
            ot_tensor *p = in_t(im, k);
            if (p != NULL && p->kind == OT_PARAM)
                at.param_elems += ot_numel(p);
        }
    ot_tensor out = x;
    const ot_tensor *ins[1] = {&x};
    return emit(im, kind, ins, 1, &out, &at);
}

static int h_softmax(importer *im)
{
    ot_tensor x;
    if (need_in(im, 0, &x))
        return -1;
    if (ot_axis(attr_i(im->node, "axis", -1), x.rank) < 0)
        return node_fail(im, "axis out of range");
    return h_unary(im, DNP_OP_SOFTMAX);
}

/* A data-movement op (reshape, transpose, slice, pad...) on x giving out. */
static int move_op(importer *im, const ot_tensor *x, ot_tensor *out)
{
    if (x->kind != OT_ACT) {
        /* values survive moves that keep the element order */
        if (out->n_vals != 0 && ot_numel(out) != out->n_vals)
            out->n_vals = 0;
        return set_out(im, 0, out);
    }
    const ot_tensor *ins[1] = {x};
    return emit(im, DNP_OP_RESHAPE, ins, 1, out, NULL);
}

static int h_reshape(importer *im)
{
    ot_tensor x, s, out;
    if (need_in(im, 0, &x) || need_in(im, 1, &s))
        return -1;
    if (s.n_vals == 0 || s.rank != 1)
        return node_fail(im, "the target shape '%s' is not a constant dnnpar can fold",
                         qname(im, s.name));
    if (s.n_vals > OT_MAX_RANK)
        return node_fail(im, "target shape has %d axes (at most %d)", s.n_vals, OT_MAX_RANK);
    out = x;
    out.rank = s.n_vals;
    int infer = -1;
    int64_t known = 1, n = ot_numel(&x);
    for (int i = 0; i < s.n_vals; i++) {
        int64_t v = s.vals[i];
        if (v == 0 && !attr_i(im->node, "allowzero", 0))
            v = i < x.rank ? x.dims[i] : 0;
        if (v == -1) {
            if (infer >= 0)
                return node_fail(im, "more than one -1 in the target shape");
            infer = i;
            v = 1;
        } else if (v <= 0 || v > DIM_MAX) {
            return node_fail(im, "target dimension %lld is invalid", (long long)s.vals[i]);
        }
        out.dims[i] = v;
        if (dnp_mul_i64(known, v, &known))
            return node_fail(im, "the target shape's element count overflows");
    }
    if (infer >= 0) {
        if (known <= 0 || n % known != 0)
            return node_fail(im, "cannot infer -1: %lld elements into %lld", (long long)n,
                             (long long)known);
        out.dims[infer] = n / known;
    } else if (known != n) {
        return node_fail(im, "%lld elements cannot take a shape of %lld", (long long)n,
                         (long long)known);
    }
    if (x.kind == OT_ACT && ax_reshape(&x, &out, im->batch) != 0)
        return node_fail(im, "the batch (axis %d of '%s') does not fall inside one axis of the "
                             "result: the reshape splits it",
                         x.bax, qname(im, x.name));
    return move_op(im, &x, &out);
}

static int h_transpose(importer *im)
{
    ot_tensor x, out;
    if (need_in(im, 0, &x))
        return -1;
    int64_t perm[OT_MAX_RANK];
    int k = attr_ints(im->node, "perm", perm, OT_MAX_RANK);
    out = x;
    out.n_vals = 0;
    int src[OT_MAX_RANK], seen[OT_MAX_RANK] = {0};
    for (int i = 0; i < x.rank; i++) {
        int64_t p = k == x.rank ? perm[i] : x.rank - 1 - i;
        if (p < 0 || p >= x.rank || seen[p]++)
            return node_fail(im, "perm entry %lld out of range or repeated", (long long)p);
        out.dims[i] = x.dims[p];
        src[i] = (int)p;
    }
    if (x.kind == OT_ACT)
        ax_remap(&x, src, &out);
    if (x.kind == OT_CONST && x.n_vals > 0 && x.n_vals == ot_numel(&x)) {
        /* folded (torch.onnx's pad-order arithmetic): out[i] = x[src index] */
        int64_t in_stride[OT_MAX_RANK], idx[OT_MAX_RANK] = {0};
        for (int i = x.rank - 1, w = 1; i >= 0; w *= (int)x.dims[i], i--)
            in_stride[i] = w;
        for (int o = 0; o < x.n_vals; o++) {
            int64_t at = 0;
            for (int i = 0; i < x.rank; i++)
                at += idx[i] * in_stride[src[i]];
            out.vals[o] = x.vals[at];
            for (int i = x.rank - 1; i >= 0 && ++idx[i] == out.dims[i]; i--)
                idx[i] = 0;
        }
        out.n_vals = x.n_vals;
        return set_out(im, 0, &out);
    }
    return move_op(im, &x, &out);
}

/* Axes of Squeeze / Unsqueeze / ReduceMean: input 1 (opset 13) or attribute. */
static int axes_of(importer *im, int64_t *axes)
{
    ot_tensor *t = in_t(im, 1);
    if (t != NULL) {
        if (t->n_vals == 0)
            return node_fail(im, "axes '%s' are not a constant", qname(im, t->name));
        memcpy(axes, t->vals, (size_t)t->n_vals * sizeof *axes);
        return t->n_vals;
    }
    return attr_ints(im->node, "axes", axes, OT_MAX_RANK);
}

static int h_squeeze(importer *im, int unsqueeze)
{
    ot_tensor x, out;
    if (need_in(im, 0, &x))
        return -1;
    int64_t axes[OT_MAX_VALUES];
    int n_axes = axes_of(im, axes);
    if (n_axes < 0)
        return -1;
    int mark[OT_MAX_RANK] = {0};
    out = x;
    if (unsqueeze) {
        int r = x.rank + n_axes;
        if (r > OT_MAX_RANK)
            return node_fail(im, "too many axes");
        for (int i = 0; i < n_axes; i++) {
            int ax = ot_axis(axes[i], r);
            if (ax < 0 || mark[ax])
                return node_fail(im, "axis %lld out of range or repeated", (long long)axes[i]);
            mark[ax] = 1;
        }
        int src[OT_MAX_RANK];
        for (int i = 0, j = 0; i < r; i++) {
            src[i] = mark[i] ? -1 : j;
            out.dims[i] = mark[i] ? 1 : x.dims[j++];
        }
        out.rank = r;
        if (x.kind == OT_ACT)
            ax_remap(&x, src, &out);
    } else {
        for (int i = 0; i < n_axes; i++) {
            int ax = ot_axis(axes[i], x.rank);
            if (ax < 0 || x.dims[ax] != 1)
                return node_fail(im, "axis %lld is not a unit axis", (long long)axes[i]);
            mark[ax] = 1;
        }
        int src[OT_MAX_RANK];
        out.rank = 0;
        for (int i = 0; i < x.rank; i++)
            if (!(n_axes == 0 ? x.dims[i] == 1 : mark[i])) {
                src[out.rank] = i;
                out.dims[out.rank++] = x.dims[i];
            }
        /* only a batch of 1 can be squeezed away (then one sample is the
         * whole tensor) */
        if (x.kind == OT_ACT && ax_remap(&x, src, &out) != 0 && im->batch != 1)
            return node_fail(im, "squeezes the batch axis away");
    }
    return move_op(im, &x, &out); /* values are kept: the element order does not change */
}

static int h_flatten(importer *im)
{
    ot_tensor x, out;
    if (need_in(im, 0, &x))
        return -1;
    int64_t axis = attr_i(im->node, "axis", 1);
    if (axis < 0)
        axis += x.rank;
    if (axis < 0 || axis > x.rank)
        return node_fail(im, "axis out of range");
    int64_t lead = 1, rest = 1;
    for (int i = 0; i < x.rank; i++)
        *(i < axis ? &lead : &rest) *= x.dims[i];
    out = x;
    out.rank = 2;
    out.dims[0] = lead;
    out.dims[1] = rest;
    if (x.kind != OT_ACT)
        return set_out(im, 0, &out);
    if (ax_reshape(&x, &out, im->batch) != 0)
        return node_fail(im, "the batch axis cannot be followed through the flatten");
    const ot_tensor *ins[1] = {&x};
    return emit(im, DNP_OP_FLATTEN, ins, 1, &out, NULL);
}

/* Any number of inputs: the activation inputs are gathered in arrays
 * sized by the node's input count (DenseNet-121's last block concatenates
 * 33 tensors). */
static int h_concat(importer *im)
{
    const Onnx__NodeProto *n = im->node;
    ot_tensor first, out;
    if (need_in(im, 0, &first))
        return -1;
    int ax = ot_axis(attr_i(n, "axis", 0), first.rank);
    if (ax < 0)
        return node_fail(im, "axis out of range");
    out = first;
    out.dims[ax] = 0;
    out.n_vals = 0;
    ot_tensor *acts = dnp_calloc(n->n_input, sizeof *acts);
    const ot_tensor **ins = dnp_calloc(n->n_input, sizeof *ins);
    int n_act = 0, all_vals = 1, any_param = 0, rc = -1;
    if (acts == NULL || ins == NULL) {
        dnp_error_set(im->err, DNP_ERR_NOMEM, "out of memory importing %s", im->base);
        goto done;
    }
    for (size_t k = 0; k < n->n_input; k++) {
        ot_tensor *t = &acts[n_act];
        if (need_in(im, k, t))
            goto done;
        if (t->rank != first.rank) {
            node_fail(im, "input %zu has %d axes, input 0 has %d", k, t->rank, first.rank);
            goto done;
        }
        for (int i = 0; i < t->rank; i++)
            if (i != ax && t->dims[i] != first.dims[i]) {
                node_fail(im, "input %zu differs off the concat axis", k);
                goto done;
            }
        out.dims[ax] += t->dims[ax];
        any_param |= t->kind == OT_PARAM;
        if (t->kind == OT_CONST && ot_numel(t) == 0)
            ; /* an empty constant adds no values */
        else if (t->kind != OT_CONST || t->n_vals == 0 || out.n_vals + t->n_vals > OT_MAX_VALUES)
            all_vals = 0;
        else if (all_vals) {
            memcpy(out.vals + out.n_vals, t->vals, (size_t)t->n_vals * sizeof *t->vals);
            out.n_vals += t->n_vals;
        }
        if (t->kind == OT_ACT) {
            if (t->bax == ax) {
                node_fail(im, "concatenates along the batch axis (%d of '%s')", ax,
                          qname(im, t->name));
                goto done;
            }
            ins[n_act] = t;
            n_act++;
        }
    }
    if (n_act == 0) {
        out.kind = any_param ? OT_PARAM : OT_CONST;
        if (!all_vals || first.rank != 1)
            out.n_vals = 0;
        rc = set_out(im, 0, &out);
    } else {
        /* named axes of the first activation input */
        memcpy(out.role, ins[0]->role, sizeof out.role);
        out.bax = ins[0]->bax;
        out.bstride = ins[0]->bstride;
        rc = emit(im, DNP_OP_CONCAT, ins, n_act, &out, NULL);
    }
done:
    dnp_free(acts);
    dnp_free(ins);
    return rc;
}

static int h_gather(importer *im)
{
    ot_tensor data, idx, out;
    if (need_in(im, 0, &data) || need_in(im, 1, &idx))
        return -1;
    int ax = ot_axis(attr_i(im->node, "axis", 0), data.rank);
    if (ax < 0)
        return node_fail(im, "axis out of range");
    if (data.rank - 1 + idx.rank > OT_MAX_RANK)
        return node_fail(im, "result has too many axes");
    out = data;
    out.rank = 0;
    for (int i = 0; i < ax; i++)
        out.dims[out.rank++] = data.dims[i];
    for (int i = 0; i < idx.rank; i++)
        out.dims[out.rank++] = idx.dims[i];
    for (int i = ax + 1; i < data.rank; i++)
        out.dims[out.rank++] = data.dims[i];
    out.n_vals = 0;
    if (data.kind != OT_ACT && idx.kind == OT_ACT) {
        /* a table indexed by the data: an embedding */
        if (ax != 0 || data.rank != 2)
            return node_fail(im, "an embedding needs a 2-D table gathered on axis 0");
        /* the ids' axes, then the table's feature axis */
        int src[OT_MAX_RANK];
        for (int i = 0; i < out.rank; i++)
            src[i] = i < idx.rank ? i : -1;
        ax_remap(&idx, src, &out);
        out.role[out.rank - 1] = OT_ROLE_FEATURE;
        dnp_op_attrs at = {0};
        at.param_elems = ot_numel(&data);
        const ot_tensor *ins[1] = {&idx};
        return emit(im, DNP_OP_EMBEDDING, ins, 1, &out, &at);
    }
    if (data.kind == OT_PARAM) /* e.g. a relative-position bias table: its own size */
        out.train_elems = param_train_elems(&data);
    if (data.kind != OT_ACT) {
        /* constant indexing (shape arithmetic) */
        if (data.kind == OT_CONST && data.n_vals > 0 && data.rank == 1 && idx.n_vals > 0) {
            for (int i = 0; i < idx.n_vals; i++) {
                int64_t j = idx.vals[i] < 0 ? idx.vals[i] + data.n_vals : idx.vals[i];
                if (j < 0 || j >= data.n_vals)
                    return node_fail(im, "index %lld out of range", (long long)idx.vals[i]);
                out.vals[i] = data.vals[j];
            }
            out.n_vals = idx.n_vals;
        }
        return set_out(im, 0, &out);
    }
    if (idx.kind == OT_ACT)
        return node_fail(im, "gathering an activation by an activation is not supported");
    if (ax == data.bax)
        return node_fail(im, "gathers along the batch axis (%d of '%s')", ax,
                         qname(im, data.name));
    int src[OT_MAX_RANK];
    for (int i = 0, j = 0; i < out.rank; i++)
        src[i] = i < ax ? i : (i < ax + idx.rank ? -1 : ax + 1 + j++);
    ax_remap(&data, src, &out);
    return move_op(im, &data, &out);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static int h_slice(importer *im)
{
    ot_tensor x, out;
    if (need_in(im, 0, &x))
        return -1;
    ot_tensor *st = in_t(im, 1), *en = in_t(im, 2), *ax = in_t(im, 3), *sp = in_t(im, 4);
    int64_t starts[OT_MAX_VALUES], ends[OT_MAX_VALUES], axes[OT_MAX_VALUES], steps[OT_MAX_VALUES];
    int n;
    if (st != NULL) { /* opset >= 10: inputs */
        if (st->n_vals == 0 || en == NULL || en->n_vals != st->n_vals ||
            (ax != NULL && ax->n_vals != st->n_vals) || (sp != NULL && sp->n_vals != st->n_vals))
            return node_fail(im, "starts, ends, axes and steps must be constants of equal length");
        n = st->n_vals;
        memcpy(starts, st->vals, (size_t)n * sizeof *starts);
        memcpy(ends, en->vals, (size_t)n * sizeof *ends);
        for (int i = 0; i < n; i++) {
            axes[i] = ax ? ax->vals[i] : i;
            steps[i] = sp ? sp->vals[i] : 1;
        }
    } else {
        n = attr_ints(im->node, "starts", starts, OT_MAX_VALUES);
        if (attr_ints(im->node, "ends", ends, OT_MAX_VALUES) != n)
            return node_fail(im, "starts and ends differ in length");
        if (attr_ints(im->node, "axes", axes, OT_MAX_VALUES) != n)
            for (int i = 0; i < n; i++)
                axes[i] = i;
        for (int i = 0; i < n; i++)
            steps[i] = 1;
    }
    out = x;
    int64_t from[OT_MAX_RANK] = {0}, by[OT_MAX_RANK];
    for (int i = 0; i < OT_MAX_RANK; i++)
        by[i] = 1;
    for (int i = 0; i < n; i++) {
        int a = ot_axis(axes[i], x.rank);
        if (a < 0 || steps[i] == 0)
            return node_fail(im, "axis %lld out of range or zero step", (long long)axes[i]);
        int64_t d = x.dims[a], s = starts[i], e = ends[i];
        /* a step longer than the axis takes one element, as one of length d */
        steps[i] = clamp64(steps[i], -(d > 0 ? d : 1), d > 0 ? d : 1);
        s = s < 0 ? s + d : s;
        e = e < 0 ? e + d : e;
        if (steps[i] > 0) {
            s = clamp64(s, 0, d);
            e = clamp64(e, 0, d);
            out.dims[a] = e > s ? (e - s + steps[i] - 1) / steps[i] : 0;
        } else {
            s = clamp64(s, -1, d - 1);
            e = clamp64(e, -1, d - 1);
            out.dims[a] = s > e ? (s - e - steps[i] - 1) / (-steps[i]) : 0;
        }
        from[a] = s, by[a] = steps[i];
        if (x.kind == OT_ACT && a == x.bax && out.dims[a] != d)
            return node_fail(im, "slices the batch axis (%d of '%s')", a, qname(im, x.name));
    }
    if (ot_numel(&out) == 0 && x.kind != OT_ACT) {
        out.n_vals = 0; /* an empty constant (shape arithmetic: a shape's tail) */
        return set_out(im, 0, &out);
    }
    if (ot_numel(&out) <= 0)
        return node_fail(im, "the slice is empty");
    if (x.kind == OT_CONST && x.n_vals > 0 && x.n_vals == ot_numel(&x)) {
        /* folded: out[idx] = x[from + idx x by] on every axis (row-major) */
        int64_t stride[OT_MAX_RANK], idx[OT_MAX_RANK] = {0}, n_out = ot_numel(&out);
        for (int i = x.rank - 1, w = 1; i >= 0; w *= (int)x.dims[i], i--)
            stride[i] = w;
        for (int64_t o = 0; o < n_out; o++) {
            int64_t at = 0;
            for (int i = 0; i < x.rank; i++)
                at += (from[i] + idx[i] * by[i]) * stride[i];
            out.vals[o] = x.vals[at];
            for (int i = x.rank - 1; i >= 0 && ++idx[i] == out.dims[i]; i--)
                idx[i] = 0;
        }
        out.n_vals = (int)n_out;
        return set_out(im, 0, &out);
    }
    out.n_vals = 0;
    return move_op(im, &x, &out);
}

static int h_split(importer *im)
{
    const Onnx__NodeProto *n = im->node;
    ot_tensor x;
    if (need_in(im, 0, &x))
        return -1;
    int ax = ot_axis(attr_i(n, "axis", 0), x.rank);
    if (ax < 0 || n->n_output == 0)
        return node_fail(im, "axis out of range or no outputs");
    int64_t parts[OT_MAX_VALUES];
    ot_tensor *sp = in_t(im, 1);
    int k = sp ? sp->n_vals : attr_ints(n, "split", parts, OT_MAX_VALUES);
    if (sp)
        memcpy(parts, sp->vals, (size_t)k * sizeof *parts);
    if (k == 0) {
        if (n->n_output > OT_MAX_VALUES || x.dims[ax] % (int64_t)n->n_output != 0)
            return node_fail(im, "%lld cannot be split evenly in %zu", (long long)x.dims[ax],
                             n->n_output);
        k = (int)n->n_output;
        for (int i = 0; i < k; i++)
            parts[i] = x.dims[ax] / k;
    }
    if ((size_t)k != n->n_output)
        return node_fail(im, "%d parts for %zu outputs", k, n->n_output);
    if (x.kind == OT_ACT && ax == x.bax)
        return node_fail(im, "splits the batch axis (%d of '%s')", ax, qname(im, x.name));
    for (int i = 0; i < k; i++) {
        ot_tensor out = x;
        out.dims[ax] = parts[i];
        out.n_vals = 0;
        if (parts[i] <= 0)
            return node_fail(im, "part %d is empty", i);
        if (x.kind != OT_ACT) {
            if (set_out(im, (size_t)i, &out) != 0)
                return -1;
            continue;
        }
        /* one data-movement op per output */
        int op = dnp_graph_append(im->g, n->output[i], DNP_OP_RESHAPE, 1, &x.op,
                                  view_of(im, &out, NULL, VIEW_AUTO), NULL);
        if (op < 0)
            return node_fail(im, "%s", dnp_graph_error(im->g));
        out.kind = OT_ACT;
        out.op = op;
        if (set_out(im, (size_t)i, &out) != 0)
            return -1;
    }
    return 0;
}

static int h_pad(importer *im)
{
    ot_tensor x, out;
    if (need_in(im, 0, &x))
        return -1;
    int64_t pads[2 * OT_MAX_RANK];
    ot_tensor *p = in_t(im, 1);
    int k = p ? p->n_vals : attr_ints(im->node, "pads", pads, 2 * OT_MAX_RANK);
    if (p && k > 0 && k <= 2 * OT_MAX_RANK)
        memcpy(pads, p->vals, (size_t)k * sizeof *pads);
    if (k != 2 * x.rank)
        return node_fail(im, "pads must be a constant of %d values", 2 * x.rank);
    out = x;
    out.n_vals = 0;
    for (int i = 0; i < x.rank; i++) {
        if (dnp_add_i64(x.dims[i], pads[i], &out.dims[i]) ||
            dnp_add_i64(out.dims[i], pads[i + x.rank], &out.dims[i]))
            return node_fail(im, "padding axis %d overflows", i);
        if (out.dims[i] <= 0)
            return node_fail(im, "padding removes axis %d", i);
        if (x.kind == OT_ACT && i == x.bax && out.dims[i] != x.dims[i])
            return node_fail(im, "pads the batch axis (%d of '%s')", i, qname(im, x.name));
    }
    return move_op(im, &x, &out);
}

static int h_reduce(importer *im)
{
    ot_tensor x, out;
    if (need_in(im, 0, &x))
        return -1;
    int64_t axes[OT_MAX_VALUES];
    int n_axes = axes_of(im, axes);
    if (n_axes < 0)
        return -1;
    int keep = (int)attr_i(im->node, "keepdims", 1), mark[OT_MAX_RANK] = {0};
    for (int i = 0; i < n_axes; i++) {
        int a = ot_axis(axes[i], x.rank);
        if (a < 0)
            return node_fail(im, "axis %lld out of range", (long long)axes[i]);
        mark[a] = 1;
    }
    out = x;
    out.rank = 0;
    out.n_vals = 0;
    int src[OT_MAX_RANK];
    for (int i = 0; i < x.rank; i++) {
        int reduced = n_axes == 0 || mark[i];
        if (x.kind == OT_ACT && reduced && i == x.bax && x.dims[i] > 1)
            return node_fail(im, "reduces over the batch axis (%d of '%s')", i,
                             qname(im, x.name));
        if (!reduced || keep) {
            src[out.rank] = i; /* a kept reduced axis keeps its name */
            out.dims[out.rank++] = reduced ? 1 : x.dims[i];
        }
    }
    if (x.kind != OT_ACT)
        return set_out(im, 0, &out);
    ax_remap(&x, src, &out);
    /* the mean over the last axis alone, as a layer norm takes it */
    im->pend.red_last = keep && n_axes == 1 && x.rank >= 1 && mark[x.rank - 1];
    const ot_tensor *ins[1] = {&x};
    return emit(im, DNP_OP_REDUCE, ins, 1, &out, NULL);
}

static int h_shape(importer *im)
{
    ot_tensor x, out = {0};
    if (need_in(im, 0, &x))
        return -1;
    out.kind = OT_CONST;
    out.rank = 1;
    out.dims[0] = x.rank;
    out.op = -1;
    for (int i = 0; i < x.rank; i++)
        out.vals[i] = x.dims[i];
    out.n_vals = x.rank;
    return set_out(im, 0, &out);
}

static int h_constant(importer *im)
{
    const Onnx__NodeProto *n = im->node;
    ot_tensor out = {0};
    out.kind = OT_CONST;
    out.op = -1;
    out.name = n->n_output ? n->output[0] : "";
    const Onnx__AttributeProto *a;
    if ((a = attr(n, "value")) != NULL && a->t != NULL) {
        if (from_tensor_proto(im, &out, a->t) != 0)
            return -1;
        out.kind = OT_CONST;
    } else if ((a = attr(n, "value_int")) != NULL && a->has_i) {
        out.rank = 0;
        out.vals[0] = a->i;
        out.n_vals = 1;
    } else if ((a = attr(n, "value_ints")) != NULL) {
        out.rank = 1;
        out.dims[0] = (int64_t)a->n_ints;
        out.n_vals = 0;
        if (a->n_ints <= OT_MAX_VALUES) {
            for (size_t i = 0; i < a->n_ints; i++)
                out.vals[i] = a->ints[i];
            out.n_vals = (int)a->n_ints;
        }
    } else if ((a = attr(n, "value_float")) != NULL && a->has_f) {
        out.rank = 0;
        out.f = a->f;
        out.has_f = 1;
    } else if ((a = attr(n, "value_floats")) != NULL) {
        out.rank = 1;
        out.dims[0] = (int64_t)a->n_floats;
    } else {
        return node_fail(im, "has no value dnnpar understands");
    }
    return set_out(im, 0, &out);
}

static int h_constant_of_shape(importer *im)
{
    ot_tensor s, out = {0};
    if (need_in(im, 0, &s))
        return -1;
    if (s.n_vals == 0 && ot_numel(&s) != 0)
        return node_fail(im, "the shape is not a constant");
    if (s.n_vals > OT_MAX_RANK)
        return node_fail(im, "too many axes");
    out.kind = OT_CONST;
    out.op = -1;
    out.rank = s.n_vals;
    for (int i = 0; i < s.n_vals; i++)
        out.dims[i] = s.vals[i];
    /* the fill value (default 0) folded when the tensor is small and the
     * value an integer: torch.onnx builds expand(-1)'s shapes this way */
    ot_tensor v = {0};
    const Onnx__AttributeProto *a = attr(im->node, "value");
    int64_t n = ot_numel(&out);
    if (a != NULL && a->t != NULL) {
        if (from_tensor_proto(im, &v, a->t) != 0)
            return -1;
    } else {
        v.n_vals = 1; /* vals[0] = 0 */
    }
    if (v.n_vals == 1 && n >= 0 && n <= OT_MAX_VALUES) {
        for (int64_t i = 0; i < n; i++)
            out.vals[i] = v.vals[0];
        out.n_vals = (int)n;
    }
    return set_out(im, 0, &out);
}

/* Where(cond, X, Y): an element-wise select over its activation operands;
 * folded when all three are constants with known values. */
static int h_where(importer *im)
{
    ot_tensor t[3], xy, out;
    for (size_t k = 0; k < 3; k++)
        if (need_in(im, k, &t[k]))
            return -1;
    int64_t d[OT_MAX_RANK];
    xy = t[1];
    if ((xy.rank = ot_broadcast(&t[1], &t[2], d)) < 0)
        return node_fail(im, "X and Y do not broadcast");
    memcpy(xy.dims, d, sizeof d);
    int r = ot_broadcast(&t[0], &xy, d);
    if (r < 0)
        return node_fail(im, "the condition does not broadcast with X and Y");
    int first = -1, any_param = 0;
    for (int k = 0; k < 3; k++) {
        if (first < 0 && t[k].kind == OT_ACT)
            first = k;
        any_param |= t[k].kind == OT_PARAM;
    }
    out = t[first >= 0 ? first : 1];
    out.rank = r;
    memcpy(out.dims, d, sizeof d);
    out.has_f = 0;
    out.n_vals = 0;
    if (first < 0) {
        out.kind = any_param ? OT_PARAM : OT_CONST;
        int64_t n = ot_numel(&out);
        int known = out.kind == OT_CONST && n >= 0 && n <= OT_MAX_VALUES;
        for (int k = 0; k < 3 && known; k++)
            known = t[k].n_vals == 1 || (t[k].n_vals == n && n > 0);
        for (int64_t i = 0; known && i < n; i++) {
            const ot_tensor *c = &t[0], *pick = c->vals[c->n_vals == 1 ? 0 : i] ? &t[1] : &t[2];
            out.vals[i] = pick->vals[pick->n_vals == 1 ? 0 : i];
        }
        out.n_vals = known ? (int)n : 0;
        return set_out(im, 0, &out);
    }
    const ot_tensor *ins[3];
    int n_act = 0;
    for (int k = 0; k < 3; k++)
        if (t[k].kind == OT_ACT)
            ins[n_act++] = &t[k];
    ax_broadcast(ins[0], n_act > 1 ? ins[1] : ins[0], &out);
    return emit(im, DNP_OP_ELTWISE, ins, n_act, &out, NULL);
}

/* Expand(X, shape): X broadcast to the folded shape; on an activation a
 * copy (an element-wise op writing the larger tensor), on a parameter or
 * constant a larger one of the same kind. */
static int h_expand(importer *im)
{
    ot_tensor x, s, st = {0}, out;
    if (need_in(im, 0, &x) || need_in(im, 1, &s))
        return -1;
    if (s.n_vals == 0 || s.rank != 1)
        return node_fail(im, "the target shape '%s' is not a constant dnnpar can fold",
                         qname(im, s.name));
    if (s.n_vals > OT_MAX_RANK)
        return node_fail(im, "target shape has %d axes (at most %d)", s.n_vals, OT_MAX_RANK);
    st.kind = OT_CONST;
    st.rank = s.n_vals;
    for (int i = 0; i < s.n_vals; i++) {
        if (s.vals[i] < 0 || s.vals[i] > DIM_MAX)
            return node_fail(im, "target dimension %d is %lld (must be in 0 .. 2^40)", i,
                             (long long)s.vals[i]);
        st.dims[i] = s.vals[i];
    }
    int64_t d[OT_MAX_RANK];
    int r = ot_broadcast(&x, &st, d);
    if (r < 0)
        return node_fail(im, "the input does not broadcast to the target shape");
    out = x;
    out.rank = r;
    memcpy(out.dims, d, sizeof d);
    out.has_f = 0;
    if (x.kind == OT_PARAM) /* e.g. ViT's class token, one per sample */
        out.train_elems = param_train_elems(&x);
    if (x.kind != OT_ACT) {
        int64_t n = ot_numel(&out);
        if (x.n_vals == 1 && n >= 0 && n <= OT_MAX_VALUES) {
            for (int64_t i = 1; i < n; i++)
                out.vals[i] = x.vals[0];
            out.n_vals = (int)n;
        } else if (x.n_vals != n) {
            out.n_vals = 0;
        }
        return set_out(im, 0, &out);
    }
    if (r == x.rank && memcmp(out.dims, x.dims, (size_t)r * sizeof *d) == 0)
        return set_out(im, 0, &x); /* nothing to broadcast: an alias */
    ax_broadcast(&x, &st, &out);
    const ot_tensor *ins[1] = {&x};
    return emit(im, DNP_OP_ELTWISE, ins, 1, &out, NULL);
}

/* Range(start, limit, delta): a 1-D constant, folded when its operands
 * are known integers (ONNX: max(ceil((limit - start) / delta), 0)
 * elements). */
static int h_range(importer *im)
{
    ot_tensor a[3], out = {0};
    for (size_t k = 0; k < 3; k++)
        if (need_in(im, k, &a[k]))
            return -1;
    for (int k = 0; k < 3; k++)
        if (a[k].kind == OT_ACT || a[k].n_vals != 1)
            return node_fail(im, "start, limit and delta must be integer constants dnnpar can "
                                 "fold");
    int64_t start = a[0].vals[0], limit = a[1].vals[0], delta = a[2].vals[0];
    if (delta == 0 || start < -DIM_MAX || start > DIM_MAX || limit < -DIM_MAX ||
        limit > DIM_MAX || delta < -DIM_MAX || delta > DIM_MAX)
        return node_fail(im, "start %lld, limit %lld, delta %lld: delta must be non-zero and "
                             "each within 2^40",
                         (long long)start, (long long)limit, (long long)delta);
    int64_t span = limit - start, n = delta > 0 ? (span + delta - 1) / delta
                                                : (span + delta + 1) / delta;
    if (span == 0 || (span > 0) != (delta > 0))
        n = 0;
    out.kind = OT_CONST;
    out.op = -1;
    out.rank = 1;
    out.dims[0] = n;
    if (n <= OT_MAX_VALUES) {
        for (int64_t i = 0; i < n; i++)
            out.vals[i] = start + i * delta;
        out.n_vals = (int)n;
    }
    return set_out(im, 0, &out);
}

/* Resize(X, roi, scales, sizes) with the output size given by folded
 * integer sizes (torchvision's FPN: F.interpolate(size=...)): an
 * element-wise op writing the resized tensor (nearest or linear: a few
 * operations per output element); the batch axis must keep its size.
 * Float scales are not folded: refused with that reason. */
static int h_resize(importer *im)
{
    ot_tensor x, sz;
    if (need_in(im, 0, &x))
        return -1;
    ot_tensor *sp = in_t(im, 3);
    if (sp == NULL)
        return node_fail(im, "the output size must be given by 'sizes' (input 3): float scales "
                             "are not folded");
    sz = *sp;
    if (sz.n_vals != x.rank || x.rank < 1)
        return node_fail(im, "sizes '%s' must be %d integer constants dnnpar can fold",
                         qname(im, sz.name), x.rank);
    ot_tensor out = x;
    for (int i = 0; i < x.rank; i++) {
        if (sz.vals[i] < 1 || sz.vals[i] > DIM_MAX)
            return node_fail(im, "size %d is %lld (must be in 1 .. 2^40)", i,
                             (long long)sz.vals[i]);
        out.dims[i] = sz.vals[i];
    }
    out.n_vals = 0;
    out.has_f = 0;
    if (x.kind != OT_ACT)
        return set_out(im, 0, &out);
    if (x.bax >= 0 && out.dims[x.bax] != x.dims[x.bax])
        return node_fail(im, "resizes the batch axis (%d of '%s')", x.bax, qname(im, x.name));
    const ot_tensor *ins[1] = {&x};
    return emit(im, DNP_OP_ELTWISE, ins, 1, &out, NULL);
}

/* ScatterND(data, indices, updates): shaped like data; an element-wise op
 * over its activation operands (data and updates). */
static int h_scatter_nd(importer *im)
{
    ot_tensor data, idx, upd;
    if (need_in(im, 0, &data) || need_in(im, 1, &idx) || need_in(im, 2, &upd))
        return -1;
    ot_tensor out = data;
    out.n_vals = 0;
    out.has_f = 0;
    const ot_tensor *ins[2];
    int n_act = 0;
    if (data.kind == OT_ACT)
        ins[n_act++] = &data;
    if (upd.kind == OT_ACT)
        ins[n_act++] = &upd;
    if (n_act == 0) {
        if (upd.kind == OT_PARAM)
            out.kind = OT_PARAM;
        return set_out(im, 0, &out);
    }
    if (data.kind != OT_ACT)
        return node_fail(im, "scatters activations into a tensor that does not depend on the "
                             "model's inputs");
    return emit(im, DNP_OP_ELTWISE, ins, n_act, &out, NULL);
}

/* The operators import_node knows, in four tables: the one list of
 * supported names (docs/onnx.md), also the candidates of a "did you
 * mean" for an unsupported one. */
static const char *const unary_elt_ops[] = {
    "Clip",  "Sigmoid", "Tanh",     "Erf",       "Gelu", "Sqrt",  "Exp",  "Log",
    "Neg",   "Abs",     "Reciprocal", "LeakyRelu", "HardSigmoid", "Softplus", "Elu", "Selu",
    "HardSwish", "Mish", "PRelu",   "Not",       "Floor", "Ceil", "Round", "Sign",
    "Sin",   "Cos"};
static const char *const binary_ops[] = {"Add",  "Sub",   "Mul",         "Div",
                                         "Pow",  "Max",   "Min",         "Mod",
                                         "Equal", "Less", "Greater",     "LessOrEqual",
                                         "GreaterOrEqual", "And", "Or", "Xor"};

static int h_conv(importer *im);
static int h_gemm(importer *im);
static int h_matmul(importer *im);
static int h_reshape(importer *im);
static int h_transpose(importer *im);
static int h_flatten(importer *im);
static int h_concat(importer *im);
static int h_gather(importer *im);
static int h_slice(importer *im);
static int h_split(importer *im);
static int h_pad(importer *im);
static int h_reduce(importer *im);
static int h_shape(importer *im);
static int h_constant(importer *im);
static int h_constant_of_shape(importer *im);
static int h_softmax(importer *im);
static int h_where(importer *im);
static int h_resize(importer *im);
static int h_einsum(importer *im);
static int h_expand(importer *im);
static int h_range(importer *im);
static int h_scatter_nd(importer *im);

static const struct {
    const char *name;
    int (*fn)(importer *);
} plain_ops[] = {
    {"Conv", h_conv},       {"Gemm", h_gemm},         {"MatMul", h_matmul},
    {"Reshape", h_reshape}, {"Transpose", h_transpose}, {"Flatten", h_flatten},
    {"Concat", h_concat},   {"Gather", h_gather},     {"Slice", h_slice},
    {"Split", h_split},     {"Pad", h_pad},           {"ReduceMean", h_reduce},
    {"Shape", h_shape},     {"Constant", h_constant}, {"ConstantOfShape", h_constant_of_shape},
    {"Softmax", h_softmax}, {"Where", h_where},       {"Expand", h_expand},
    {"Range", h_range},     {"ScatterND", h_scatter_nd}, {"Einsum", h_einsum},
    {"Resize", h_resize},
};

/* Operators handled by one handler with a kind and a flag. */
enum { H_UNARY, H_POOL, H_NORM, H_SQUEEZE };
static const struct {
    const char *name;
    int handler;
    dnp_op_kind kind;
    int flag;
} kind_ops[] = {
    {"Relu", H_UNARY, DNP_OP_RELU, 0},
    {"Dropout", H_UNARY, DNP_OP_DROPOUT, 0},
    {"Identity", H_UNARY, DNP_OP_INPUT, 0}, /* alias */
    {"Cast", H_UNARY, DNP_OP_INPUT, 0},     /* alias */
    {"LRN", H_UNARY, DNP_OP_LRN, 0},
    {"MaxPool", H_POOL, DNP_OP_MAXPOOL, 0},
    {"AveragePool", H_POOL, DNP_OP_AVGPOOL, 0},
    {"GlobalAveragePool", H_POOL, DNP_OP_AVGPOOL, 1},
    {"GlobalMaxPool", H_POOL, DNP_OP_MAXPOOL, 1},
    {"BatchNormalization", H_NORM, DNP_OP_BATCHNORM, 0},
    {"LayerNormalization", H_NORM, DNP_OP_LAYERNORM, 0},
    {"Squeeze", H_SQUEEZE, DNP_OP_INPUT, 0},
    {"Unsqueeze", H_SQUEEZE, DNP_OP_INPUT, 1},
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The supported operator nearest to `op` by edit distance, or NULL. */
static const char *nearest_op(const char *op)
{
    const char *names[N_OF(unary_elt_ops) + N_OF(binary_ops) + N_OF(plain_ops) + N_OF(kind_ops)];
    size_t n = 0;
    for (size_t i = 0; i < N_OF(unary_elt_ops); i++)
        names[n++] = unary_elt_ops[i];
    for (size_t i = 0; i < N_OF(binary_ops); i++)
        names[n++] = binary_ops[i];
    for (size_t i = 0; i < N_OF(plain_ops); i++)
        names[n++] = plain_ops[i].name;
    for (size_t i = 0; i < N_OF(kind_ops); i++)
        names[n++] = kind_ops[i].name;
    return dnp_suggest(op, names, n);
}

/* An operator dnnpar does not know, with --skip-unknown: a free
 * element-wise op shaped like its first input. */
static int h_unknown(importer *im)
{
    if (!im->opt || !im->opt->skip_unknown) {
        const char *near = nearest_op(im->node->op_type);
        if (near != NULL)
            return node_fail(im, "unsupported operator '%s'; did you mean '%s'? (or use "
                                 "--skip-unknown to treat unknown operators as free "
                                 "element-wise ops)",
                             qname(im, im->node->op_type), near);
        return node_fail(im, "unsupported operator '%s' (use --skip-unknown to treat unknown "
                             "operators as free element-wise ops)",
                         qname(im, im->node->op_type));
    }
    ot_tensor x;
    if (need_in(im, 0, &x))
        return -1;
    if (x.kind != OT_ACT) {
        x.n_vals = 0;
        for (size_t k = 0; k < im->node->n_output; k++)
            if (set_out(im, k, &x) != 0)
                return -1;
        return 0;
    }
    ot_tensor out = x;
    const ot_tensor *ins[1] = {&x};
    if (emit(im, DNP_OP_ELTWISE, ins, 1, &out, NULL) != 0)
        return -1;
    for (size_t k = 1; k < im->node->n_output; k++)
        if (set_out(im, k, &out) != 0)
            return -1;
    return 0;
}

static int import_node(importer *im)
{
    const char *op = im->node->op_type ? im->node->op_type : "";
    if (im->node->domain != NULL && im->node->domain[0] != '\0' &&
        strcmp(im->node->domain, "ai.onnx") != 0)
        return h_unknown(im);
    for (size_t i = 0; i < N_OF(binary_ops); i++)
        if (strcmp(op, binary_ops[i]) == 0)
            return h_binary(im);
    for (size_t i = 0; i < N_OF(unary_elt_ops); i++)
        if (strcmp(op, unary_elt_ops[i]) == 0)
            return h_unary(im, DNP_OP_ELTWISE);
    for (size_t i = 0; i < N_OF(plain_ops); i++)
        if (strcmp(op, plain_ops[i].name) == 0)
            return plain_ops[i].fn(im);
    for (size_t i = 0; i < N_OF(kind_ops); i++) {
        if (strcmp(op, kind_ops[i].name) != 0)
            continue;
        switch (kind_ops[i].handler) {
        case H_UNARY:
            return h_unary(im, kind_ops[i].kind);
        case H_POOL:
            return h_pool(im, kind_ops[i].kind, kind_ops[i].flag);
        case H_NORM:
            return h_norm(im, kind_ops[i].kind);
        default:
            return h_squeeze(im, kind_ops[i].flag);
        }
    }
    return h_unknown(im);
}

/* ---------------------------------------------------------------- */
/* Graph inputs                                                      */
/* ---------------------------------------------------------------- */

/* Is a symbolic dimension's name one of a batch ("batch", "batch_size",
 * "N", "B", "bs"; case-insensitive, "batch" anywhere in it)? */
static int names_batch(const char *p)
{
    if (p == NULL)
        return 0;
    char low[64];
    size_t n = 0;
    for (; p[n] != '\0' && n < sizeof low - 1; n++)
        low[n] = (char)(p[n] >= 'A' && p[n] <= 'Z' ? p[n] - 'A' + 'a' : p[n]);
    low[n] = '\0';
    return strstr(low, "batch") != NULL || strcmp(low, "n") == 0 || strcmp(low, "b") == 0 ||
           strcmp(low, "bs") == 0;
}

/* The shape of graph input v into t (-1 for a symbolic dimension), whether
 * any dimension is symbolic, whether it holds integers, and its batch axis
 * (docs/onnx.md, "Axes"): the symbolic dimension named like a batch, else
 * the only symbolic dimension, else axis 0 (-1 for a scalar); -2 when
 * several are symbolic and none is named like a batch. */
static int value_info_shape(importer *im, const Onnx__ValueInfoProto *v, ot_tensor *t,
                            int *symbolic, int *is_int, int *bax)
{
    *symbolic = 0;
    *is_int = 0;
    const Onnx__TypeProto *tp = v->type;
    if (tp == NULL || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        tp->tensor_type == NULL || tp->tensor_type->shape == NULL)
        return node_fail(im, "graph input '%s' has no tensor shape",
                         qname(im, v->name ? v->name : "?"));
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    *is_int = tt->has_elem_type && (tt->elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ||
                                    tt->elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT32);
    if (tt->shape->n_dim > OT_MAX_RANK)
        return node_fail(im, "graph input '%s' has too many axes", qname(im, v->name));
    t->rank = (int)tt->shape->n_dim;
    for (int i = 0; i < t->rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            d->dim_value > DIM_MAX)
            return node_fail(im, "graph input '%s' has a dimension over 2^40",
                             qname(im, v->name ? v->name : "?"));
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            d->dim_value > 0) {
            t->dims[i] = d->dim_value;
        } else {
            t->dims[i] = -1;
            *symbolic += 1;
        }
    }
    int named = -1, first_sym = -1;
    for (int i = 0; i < t->rank; i++)
        if (t->dims[i] < 0) {
            const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
            if (first_sym < 0)
                first_sym = i;
            if (named < 0 && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                names_batch(d->dim_param))
                named = i;
        }
    *bax = named >= 0 ? named : (first_sym >= 0 ? first_sym : (t->rank >= 1 ? 0 : -1));
    if (named < 0 && *symbolic > 1)
        *bax = -2;
    return 0;
}

static int import_inputs(importer *im, const Onnx__GraphProto *gp)
{
    int has_inits = gp->n_initializer > 0, data_found = 0;
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *tp = gp->initializer[i];
        if (tp->name == NULL)
            return node_fail(im, "an initializer has no name");
        ot_tensor *t = ot_get(&im->tab, tp->name);
        if (t == NULL)
            return -1;
        t->kind = OT_PARAM;
        if (from_tensor_proto(im, t, tp) != 0)
            return -1;
    }
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < gp->n_input; i++) {
            const Onnx__ValueInfoProto *v = gp->input[i];
            if (v->name == NULL || ot_find(&im->tab, v->name) != NULL)
                continue;
            ot_tensor t = {0};
            int symbolic = 0, is_int = 0, bax = -1;
            if (value_info_shape(im, v, &t, &symbolic, &is_int, &bax) != 0)
                return -1;
            int data = has_inits || is_int || symbolic || (pass == 1 && !data_found);
            if (!data && pass == 0)
                continue;
            ot_tensor *slot = ot_get(&im->tab, v->name);
            if (slot == NULL)
                return -1;
            slot->rank = t.rank;
            memcpy(slot->dims, t.dims, sizeof t.dims);
            if (!data) {
                slot->kind = OT_PARAM;
                for (int k = 0; k < slot->rank; k++)
                    if (slot->dims[k] < 0)
                        return node_fail(im, "weight input '%s' has a symbolic dimension",
                                         qname(im, v->name));
                continue;
            }
            if (bax == -2)
                return node_fail(im, "data input '%s' has %d symbolic axes and none is named like "
                                     "a batch ('batch', 'N'): only the batch axis may be symbolic",
                                 qname(im, v->name), symbolic);
            if (!data_found) {
                im->batch_symbolic = bax >= 0 && slot->dims[bax] <= 0;
                im->batch = bax < 0 ? 1 : (im->batch_symbolic ? SYMBOLIC_BATCH : slot->dims[bax]);
                data_found = 1;
            }
            for (int k = 0; k < slot->rank; k++)
                if (slot->dims[k] < 0) {
                    if (k != bax)
                        return node_fail(im, "data input '%s' has a symbolic axis %d: only the "
                                             "batch axis may be symbolic",
                                         qname(im, v->name), k);
                    slot->dims[k] = im->batch;
                }
            if (bax >= 0 && slot->dims[bax] != im->batch)
                return node_fail(im, "data input '%s' has %lld on its batch axis %d, the first "
                                     "data input a batch of %lld",
                                 qname(im, v->name), (long long)slot->dims[bax], bax,
                                 (long long)im->batch);
            if (ot_numel(slot) < 0) /* each axis is <= 2^40 (value_info_shape), not their product */
                return node_fail(im, "data input '%s' has more than 2^62 elements",
                                 qname(im, v->name));
            ax_input(slot, bax, is_int);
            dnp_op_attrs a = {0};
            dnp_shape s = view_of(im, slot, &a, VIEW_AUTO);
            int op = dnp_graph_input(im->g, v->name, s.c, s.h, s.w);
            if (op < 0)
                return node_fail(im, "%s", dnp_graph_error(im->g));
            slot->kind = OT_ACT;
            slot->op = op;
        }
    if (!data_found)
        return node_fail(im, "the graph has no data input");
    return 0;
}

/* ---------------------------------------------------------------- */
/* Entry point                                                       */
/* ---------------------------------------------------------------- */

/* Largest ONNX file read (bytes); protobuf itself stops at 2 GiB. */
#define MAX_ONNX_BYTES ((size_t)2 << 30)

static void *pb_alloc_noting(void *ctx, size_t n)
{
    void *p = dnp_malloc(n);
    if (p == NULL)
        *(int *)ctx = 1;
    return p;
}

static void pb_free(void *ctx, void *p)
{
    (void)ctx;
    dnp_free(p);
}

dnp_status dnp_load_onnx(const char *path, const dnp_load_options *opt, dnp_graph **out,
                         dnp_error *err)
{
    char *data = NULL;
    size_t len = 0;
    dnp_status st = dnp_input_read(path, MAX_ONNX_BYTES, &data, &len, err);
    if (st != DNP_OK)
        return st;
    st = dnp_load_onnx_buffer(data, len, path, opt, out, err);
    dnp_free(data);
    return st;
}

dnp_status dnp_load_onnx_buffer(const void *data, size_t len, const char *name,
                                const dnp_load_options *opt, dnp_graph **out, dnp_error *err)
{
    const char *path = name ? name : "<buffer>";
    const char *slash = strrchr(path, '/');
    char qbase[DNP_QUOTE_MAX + 8];
    const char *base = dnp_quote_str(slash ? slash + 1 : path, qbase, sizeof qbase);
    /* protobuf-c returns NULL for a malformed message and for a failed
     * allocation alike: this allocator notes the latter. */
    int unpack_oom = 0;
    ProtobufCAllocator noting = {pb_alloc_noting, pb_free, &unpack_oom};
    Onnx__ModelProto *m = onnx__model_proto__unpack(&noting, len, (const uint8_t *)data);
    if (m == NULL && unpack_oom) {
        dnp_error_set(err, DNP_ERR_NOMEM, "%s: out of memory decoding the model", base);
        return DNP_ERR_NOMEM;
    }
    if (m == NULL || m->graph == NULL) {
        if (m != NULL)
            onnx__model_proto__free_unpacked(m, dnp_protobuf_allocator());
        dnp_error_set(err, DNP_ERR_INPUT, "%s: not an ONNX model (the protobuf does not parse "
                      "as onnx.ModelProto with a graph)", base);
        return DNP_ERR_INPUT;
    }
    importer im = {0};
    im.path = path;
    im.base = base;
    im.opt = opt;
    im.err = err;
    im.batch = 1;
    const Onnx__GraphProto *gp = m->graph;
    dnp_status st = DNP_ERR_INPUT;
    char gname[64];
    /* The file name without its extension (any: files are recognised by content). */
    const char *dot = strrchr(base, '.');
    int stem = (int)(dot != NULL && dot > base ? (size_t)(dot - base) : strlen(base));
    snprintf(gname, sizeof gname, "%.*s", stem, base);
    if (gp->n_node > DNP_MAX_MODEL_OPS) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: %zu nodes (at most %d)", base, gp->n_node,
                      DNP_MAX_MODEL_OPS);
        goto done;
    }
    im.g = dnp_graph_new(gname);
    if (im.g == NULL || ot_init(&im.tab, (int)(gp->n_node * 2 + gp->n_input + gp->n_initializer)) != 0) {
        dnp_error_set(err, DNP_ERR_NOMEM, "%s: out of memory", base);
        st = DNP_ERR_NOMEM;
        goto done;
    }
    if (import_inputs(&im, gp) != 0)
        goto done;
    for (size_t i = 0; i < gp->n_node; i++) {
        im.node = gp->node[i];
        memset(&im.pend, 0, sizeof im.pend);
        if (im.node->op_type == NULL) {
            node_fail(&im, "has no operator type");
            goto done;
        }
        if (import_node(&im) != 0)
            goto done;
    }
    im.node = NULL;
    /* one op for what the exporter decomposed (onnx_fuse.h) */
    dnp_graph *fused = NULL;
    onnx_fuse_counts fc = {0};
    char fmsg[160];
    if (onnx_fuse(im.g, im.notes, im.n_notes, &fused, &fc, fmsg, sizeof fmsg) != 0) {
        dnp_status fst = strncmp(fmsg, "out of memory", 13) == 0 ? DNP_ERR_NOMEM : DNP_ERR_INPUT;
        dnp_error_set(err, fst, "%s: fusing decomposed ops: %s", base, fmsg);
        st = fst;
        goto done;
    }
    if (fused != NULL) {
        dnp_graph_free(im.g);
        im.g = fused;
    }
    /* "; fused 8 decomposed layer norms, 13 bias adds": the kinds found */
    char fused_text[128] = "";
    const struct {
        int n;
        const char *what;
    } kinds[3] = {{fc.layer_norms, "decomposed layer norm"}, {fc.gelus, "GELU"},
                  {fc.bias_adds, "bias add"}};
    for (int k = 0; k < 3; k++) {
        size_t used = strlen(fused_text);
        if (kinds[k].n > 0)
            snprintf(fused_text + used, sizeof fused_text - used, "%s %d %s%s",
                     used == 0 ? "; fused" : ",", kinds[k].n, kinds[k].what,
                     kinds[k].n == 1 ? "" : "s");
    }
    int n_weighted = 0;
    for (int i = 0; i < dnp_graph_n_ops(im.g); i++)
        n_weighted += dnp_op_is_weighted(dnp_graph_op(im.g, i));
    char note[256];
    char batch_text[48];
    if (im.batch_symbolic)
        snprintf(batch_text, sizeof batch_text, "symbolic batch axis");
    else
        snprintf(batch_text, sizeof batch_text, "batch %lld in the file", (long long)im.batch);
    snprintf(note, sizeof note, "ONNX model %s (%s%s%s), %s, %d ops%s", base,
             m->producer_name ? m->producer_name : "unknown producer",
             m->producer_version ? " " : "", m->producer_version ? m->producer_version : "",
             batch_text, dnp_graph_n_ops(im.g), fused_text);
    dnp_graph_set_note(im.g, note);
    if (n_weighted == 0) {
        node_fail(&im, "no conv, matmul or embedding layer found");
        goto done;
    }
    st = DNP_OK;
done:
    if (st != DNP_OK && err->status == DNP_OK)
        dnp_error_set(err, st, "%s: import failed", base);
    if (err->status != DNP_OK)
        st = err->status;
    if (st == DNP_OK) { /* the graph is the caller's only on success */
        *out = im.g;
        im.g = NULL;
    }
    dnp_graph_free(im.g);
    dnp_free(im.notes);
    ot_free(&im.tab);
    onnx__model_proto__free_unpacked(m, dnp_protobuf_allocator());
    return st;
}
