/*
 * graph_named.c - builders, sizes and costs of the ops on named axes
 * (graph_named.h; docs/models.md "Named axes").
 */
#include "model/graph_named.h"

#include "core/einsum_eq.h"
#include "model/graph_internal.h"
#include "core/checked.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NAMED_MAX (DNP_MAX_RANK + 1) /* letters of a named tensor, 'b' included */

int graph_named_kind(dnp_op_kind k)
{
    return k == DNP_OP_EINSUM || k == DNP_OP_LSTM || k == DNP_OP_STACK || k == DNP_OP_SELECT;
}

int graph_named_op(const dnp_op *op)
{
    return op->axes[0] != '\0' || graph_named_kind(op->kind);
}

static int gfail(dnp_graph *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int gfail(dnp_graph *g, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return graph_fail(g, msg);
}

int graph_named_shape(const dnp_op *op, int64_t batch, char *axes, int64_t *extents)
{
    int rank = (int)strlen(op->axes);
    for (int d = 0, k = 0; d < rank; d++) {
        axes[d] = op->axes[d];
        extents[d] = op->axes[d] == 'b' ? batch : op->out_dims[k++];
    }
    axes[rank] = '\0';
    return rank;
}

static int is_letter(char c) { return c >= 'a' && c <= 'z'; }

/* Axes (letters, one 'b', no repeats) and per-sample dims as attrs and
 * the c x h x w view; 0 or -1 with the reason in why. */
static int set_named(const char *axes, const int64_t *dims, dnp_op_attrs *a, dnp_shape *view,
                     char *why, size_t n_why)
{
    int rank = (int)strlen(axes), n_b = 0;
    if (rank < 1 || rank > NAMED_MAX) {
        snprintf(why, n_why, "axes '%s': 1 to %d letters", axes, NAMED_MAX);
        return -1;
    }
    for (int d = 0; d < rank; d++) {
        if (!is_letter(axes[d]) || strchr(axes + d + 1, axes[d]) != NULL) {
            snprintf(why, n_why, "axes '%s': lower-case letters, each once", axes);
            return -1;
        }
        n_b += axes[d] == 'b';
    }
    if (n_b != 1) {
        snprintf(why, n_why, "axes '%s' have no batch axis 'b'", axes);
        return -1;
    }
    a->axes = axes;
    a->out_rank = rank - 1;
    *view = (dnp_shape){1, 1, 1};
    for (int k = 0; k < rank - 1; k++) {
        if (dims[k] < 1) {
            snprintf(why, n_why, "axes '%s': extent %lld of axis %d", axes, (long long)dims[k], k);
            return -1;
        }
        a->out_dims[k] = dims[k];
        if (k == rank - 2)
            view->c = dims[k];
        else if (dnp_mul_i64(view->h, dims[k], &view->h)) {
            snprintf(why, n_why, "axes '%s': too many elements", axes);
            return -1;
        }
    }
    return 0;
}

/* Append a named op: axes and per-sample dims of its output. */
static int add_named(dnp_graph *g, const char *name, dnp_op_kind kind, int n, const int *in,
                     const char *axes, const int64_t *dims, dnp_op_attrs *a)
{
    char why[160];
    dnp_shape view;
    if (set_named(axes, dims, a, &view, why, sizeof why) < 0)
        return gfail(g, "op '%s': %s", name ? name : "", why);
    return dnp_graph_append(g, name, kind, n, in, view, a);
}

/* The named input `in` of the op being built, or NULL (error recorded). */
static const dnp_op *named_in(dnp_graph *g, const char *name, int in)
{
    const dnp_op *op = dnp_graph_op(g, in);
    if (op == NULL) {
        gfail(g, "op '%s': input %d does not exist", name ? name : "", in);
        return NULL;
    }
    if (op->axes[0] == '\0') {
        gfail(g, "op '%s': input '%s' has no named axes", name ? name : "", op->name);
        return NULL;
    }
    return op;
}

/* Per-sample axes of a named op: its letters but 'b' (0 for axes "b"
 * alone, whose op stores the view 1 x 1 x 1). */
static int named_rank(const dnp_op *op) { return dnp_op_has_axes(op) ? op->out_rank : 0; }

/* Per-sample dims of op (named_rank of them). */
static void per_sample(const dnp_op *op, int64_t *dims)
{
    for (int k = 0; k < named_rank(op); k++)
        dims[k] = op->out_dims[k];
}

int graph_named_input(dnp_graph *g, const char *name, const char *axes, const int64_t *dims)
{
    dnp_op_attrs a = {0};
    return add_named(g, name, DNP_OP_INPUT, 0, NULL, axes ? axes : "", dims, &a);
}

int graph_named_embedding(dnp_graph *g, const char *name, int ids, int64_t vocab, int64_t width,
                          char vocab_axis, char width_axis)
{
    const dnp_op *t = named_in(g, name, ids);
    if (t == NULL)
        return -1;
    int rank = (int)strlen(t->axes);
    if (vocab < 1 || width < 1 || rank + 1 > NAMED_MAX || !is_letter(vocab_axis) ||
        strchr(t->axes, vocab_axis) || vocab_axis == width_axis)
        return gfail(g, "embedding '%s': table %lldx%lld, axes '%c' '%c' on '%s'", name,
                     (long long)vocab, (long long)width, vocab_axis, width_axis, t->axes);
    char axes[NAMED_MAX + 2], loops[NAMED_MAX + 3];
    int64_t dims[DNP_MAX_RANK + 1];
    snprintf(axes, sizeof axes, "%s%c", t->axes, width_axis);
    snprintf(loops, sizeof loops, "%s%c", axes, vocab_axis); /* output, then the sum */
    per_sample(t, dims);
    dims[named_rank(t)] = width;
    int64_t table;
    if (dnp_mul_i64(vocab, width, &table))
        return gfail(g, "embedding '%s': table too large", name);
    dnp_op_attrs a = {0};
    a.param_elems = table;
    a.loops = loops;
    return add_named(g, name, DNP_OP_EMBEDDING, 1, &ids, axes, dims, &a);
}

int graph_named_lstm(dnp_graph *g, const char *name, int in, int64_t units, int layers)
{
    const dnp_op *t = named_in(g, name, in);
    if (t == NULL)
        return -1;
    if (strlen(t->axes) != 3 || t->axes[0] != 'b' || t->out_dims[1] != units || layers < 1)
        return gfail(g, "lstm '%s': input '%s' must be (b, sequence, %lld features), %d layers",
                     name, t->axes, (long long)units, layers);
    char axes[NAMED_MAX + 1];
    int64_t dims[2] = {t->out_dims[0], units};
    snprintf(axes, sizeof axes, "%s", t->axes);
    dnp_op_attrs a = {0};
    a.layers = layers;
    a.bias = 1;
    return add_named(g, name, DNP_OP_LSTM, 1, &in, axes, dims, &a);
}

int graph_named_fc(dnp_graph *g, const char *name, int in, int64_t units, char out_axis, int bias)
{
    const dnp_op *t = named_in(g, name, in);
    if (t == NULL)
        return -1;
    int rank = (int)strlen(t->axes);
    char last = t->axes[rank - 1];
    if (units < 1 || last == 'b' || !is_letter(out_axis) ||
        (strchr(t->axes, out_axis) && out_axis != last))
        return gfail(g, "fc '%s': %lld units named '%c' on '%s'", name, (long long)units,
                     out_axis, t->axes);
    char axes[NAMED_MAX + 1], loops[NAMED_MAX + 2];
    int64_t dims[DNP_MAX_RANK];
    snprintf(axes, sizeof axes, "%s", t->axes);
    axes[rank - 1] = out_axis;
    /* PaSE's FC domain: the leading dims, the units, the input features */
    snprintf(loops, sizeof loops, "%s%c", axes, last);
    per_sample(t, dims);
    dims[named_rank(t) - 1] = units;
    dnp_op_attrs a = {0};
    a.keep_positions = 1;
    a.bias = bias;
    a.loops = out_axis != last ? loops : NULL; /* distinct letters only */
    return add_named(g, name, DNP_OP_FC, 1, &in, axes, dims, &a);
}

/* Split "A,B->O"; 0 or -1 (core/einsum_eq.h; lower-case letters). */
static int parse_eq(const char *eq, char *sa, char *sb, char *so)
{
    return einsum_eq_split(eq, NAMED_MAX, 0, sa, sb, so);
}

/* Letter extents of an einsum: ext[c - 'a'] (0 = the batch, -1 unknown). */
typedef struct {
    int64_t ext[26];
} letter_ext;

/* Bind the letters s to tensor t's axes positionally; 'b' exactly at the
 * batch axis.  0 or -1 with why. */
static int bind_tensor(letter_ext *e, const char *s, const dnp_op *t, char *why, size_t n)
{
    char axes[NAMED_MAX + 1];
    int64_t ext[NAMED_MAX];
    int rank = graph_named_shape(t, 0, axes, ext);
    if ((int)strlen(s) != rank) {
        snprintf(why, n, "'%s' does not match input '%s' (axes '%s')", s, t->name, t->axes);
        return -1;
    }
    for (int d = 0; d < rank; d++) {
        if ((s[d] == 'b') != (axes[d] == 'b')) {
            snprintf(why, n, "letter 'b' must be the batch axis of input '%s'", t->name);
            return -1;
        }
        int64_t *x = &e->ext[s[d] - 'a'];
        if (*x >= 0 && *x != ext[d]) {
            snprintf(why, n, "letter '%c' is %lld and %lld", s[d], (long long)*x,
                     (long long)ext[d]);
            return -1;
        }
        *x = ext[d];
    }
    return 0;
}

int graph_named_einsum(dnp_graph *g, const char *name, const char *eq, int a, int b,
                       const char *letters, const int64_t *sizes)
{
    char sa[NAMED_MAX + 1], sb[NAMED_MAX + 1], so[NAMED_MAX + 1], why[160] = "";
    if (eq == NULL || strlen(eq) >= sizeof((dnp_op *)0)->equation || parse_eq(eq, sa, sb, so) < 0)
        return gfail(g, "einsum '%s': malformed equation '%s'", name, eq ? eq : "");
    const dnp_op *ta = named_in(g, name, a), *tb = b >= 0 ? named_in(g, name, b) : NULL;
    if (ta == NULL || (b >= 0 && tb == NULL))
        return -1;
    letter_ext e;
    for (int k = 0; k < 26; k++)
        e.ext[k] = -1;
    if (bind_tensor(&e, sa, ta, why, sizeof why) < 0 ||
        (tb != NULL && bind_tensor(&e, sb, tb, why, sizeof why) < 0))
        return gfail(g, "einsum '%s': %s", name, why);
    if (tb == NULL && strchr(sb, 'b'))
        return gfail(g, "einsum '%s': the weight operand '%s' has the batch letter", name, sb);
    if (!strchr(so, 'b'))
        return gfail(g, "einsum '%s': the output '%s' has no batch letter 'b'", name, so);
    for (int k = 0; letters != NULL && letters[k]; k++) {
        if (!is_letter(letters[k]) || sizes[k] < 1 ||
            (e.ext[letters[k] - 'a'] >= 0 && e.ext[letters[k] - 'a'] != sizes[k]))
            return gfail(g, "einsum '%s': extent %lld of letter '%c' is not positive or "
                            "differs from an input's", name, (long long)sizes[k], letters[k]);
        e.ext[letters[k] - 'a'] = sizes[k];
    }
    /* loop dims: the output's letters, then the summed ones (PaSE's order) */
    char loops[2 * NAMED_MAX + 1];
    int nl = 0;
    for (const char *c = so; *c; c++) {
        if (e.ext[*c - 'a'] < 0 || (!strchr(sa, *c) && !strchr(sb, *c)))
            return gfail(g, "einsum '%s': output letter '%c' has no extent", name, *c);
        loops[nl++] = *c;
    }
    int64_t contract = 1, weight = 1;
    for (const char *c = sa; *c; c++)
        if (!strchr(so, *c)) {
            if (!strchr(sb, *c))
                return gfail(g, "einsum '%s': letter '%c' of one operand only is summed", name,
                             *c);
            loops[nl++] = *c;
            if (dnp_mul_i64(contract, e.ext[*c - 'a'], &contract))
                return gfail(g, "einsum '%s': contraction too large", name);
        }
    loops[nl] = '\0';
    for (const char *c = sb; *c; c++) {
        if (!strchr(loops, *c))
            return gfail(g, "einsum '%s': letter '%c' of one operand only is summed", name, *c);
        if (tb == NULL && dnp_mul_i64(weight, e.ext[*c - 'a'], &weight))
            return gfail(g, "einsum '%s': weight too large", name);
    }
    if (nl > DNP_MAX_RANK + 3)
        return gfail(g, "einsum '%s': %d loop dims (at most %d)", name, nl, DNP_MAX_RANK + 3);
    int64_t dims[DNP_MAX_RANK];
    for (int d = 0, k = 0; so[d]; d++)
        if (so[d] != 'b')
            dims[k++] = e.ext[so[d] - 'a'];
    dnp_op_attrs at = {0};
    at.equation = eq;
    at.loops = loops;
    at.contract = contract;
    at.param_elems = tb == NULL ? weight : 0;
    int in[2] = {a, b};
    return add_named(g, name, DNP_OP_EINSUM, tb == NULL ? 1 : 2, in, so, dims, &at);
}

static int same_named(const dnp_op *x, const dnp_op *y)
{
    if (strcmp(x->axes, y->axes) != 0)
        return 0;
    for (int k = 0; k < named_rank(x); k++)
        if (x->out_dims[k] != y->out_dims[k])
            return 0;
    return 1;
}

int graph_named_stack(dnp_graph *g, const char *name, int n, const int *in, int axis, char letter)
{
    if (n < 1 || n > 64)
        return gfail(g, "stack '%s': %d inputs (1 to 64)", name, n);
    const dnp_op *t = named_in(g, name, in[0]);
    if (t == NULL)
        return -1;
    for (int k = 1; k < n; k++) {
        const dnp_op *u = named_in(g, name, in[k]);
        if (u == NULL)
            return -1;
        if (!same_named(t, u))
            return gfail(g, "stack '%s': input '%s' differs from '%s'", name, u->name, t->name);
    }
    int rank = (int)strlen(t->axes);
    if (axis < 0 || axis > rank || rank + 1 > NAMED_MAX || !is_letter(letter) || letter == 'b' ||
        strchr(t->axes, letter))
        return gfail(g, "stack '%s': new axis '%c' at %d of '%s'", name, letter, axis, t->axes);
    char axes[NAMED_MAX + 1];
    int64_t dims[DNP_MAX_RANK];
    for (int d = 0, k = 0, j = 0, p = 0; d <= rank; d++) {
        axes[d] = d == axis ? letter : t->axes[k++];
        if (d == axis)
            dims[j++] = n;
        else if (axes[d] != 'b')
            dims[j++] = t->out_dims[p++];
    }
    axes[rank + 1] = '\0';
    dnp_op_attrs a = {0};
    a.axis = axis;
    return add_named(g, name, DNP_OP_STACK, n, in, axes, dims, &a);
}

int graph_named_select(dnp_graph *g, const char *name, int in, int axis, int index)
{
    const dnp_op *t = named_in(g, name, in);
    if (t == NULL)
        return -1;
    int rank = (int)strlen(t->axes);
    char axes[NAMED_MAX + 1];
    int64_t ext[NAMED_MAX], dims[DNP_MAX_RANK];
    graph_named_shape(t, 0, axes, ext);
    if (axis < 0 || axis >= rank || rank < 2 || axes[axis] == 'b' || index < 0 ||
        index >= ext[axis])
        return gfail(g, "select '%s': slice %d of axis %d of '%s'", name, index, axis, t->axes);
    char out[NAMED_MAX + 1];
    int r = 0, j = 0;
    for (int d = 0; d < rank; d++)
        if (d != axis) {
            out[r++] = axes[d];
            if (axes[d] != 'b')
                dims[j++] = ext[d];
        }
    out[r] = '\0';
    dnp_op_attrs a = {0};
    a.axis = axis;
    a.index = index;
    return add_named(g, name, DNP_OP_SELECT, 1, &in, out, dims, &a);
}

int graph_named_like(dnp_graph *g, const char *name, dnp_op_kind kind, int n, const int *in,
                     int64_t param_elems)
{
    if (kind != DNP_OP_ADD && kind != DNP_OP_RELU && kind != DNP_OP_DROPOUT &&
        kind != DNP_OP_ELTWISE && kind != DNP_OP_LAYERNORM && kind != DNP_OP_SOFTMAX)
        return gfail(g, "op '%s': kind '%s' is not shape-preserving", name,
                     dnp_op_kind_name(kind));
    int ok_n = kind == DNP_OP_ADD ? n == 2 : kind == DNP_OP_ELTWISE ? (n == 1 || n == 2) : n == 1;
    if (!ok_n)
        return gfail(g, "op '%s': %d inputs for a %s", name, n, dnp_op_kind_name(kind));
    const dnp_op *t = named_in(g, name, in[0]);
    if (t == NULL)
        return -1;
    if (n == 2) {
        const dnp_op *u = named_in(g, name, in[1]);
        if (u == NULL)
            return -1;
        if (!same_named(t, u))
            return gfail(g, "op '%s': inputs '%s' and '%s' differ", name, t->name, u->name);
    }
    char axes[NAMED_MAX + 1];
    int64_t dims[DNP_MAX_RANK];
    snprintf(axes, sizeof axes, "%s", t->axes);
    per_sample(t, dims);
    dnp_op_attrs a = {0};
    a.param_elems = param_elems;
    return add_named(g, name, kind, n, in, axes, dims, &a);
}

int graph_named_annotate(dnp_graph *g, int i, const char *loops, char model_axis)
{
    dnp_op *op = graph_op_mut(g, i);
    if (op == NULL)
        return -1;
    if (loops != NULL) {
        if (strlen(loops) >= sizeof op->loops)
            return gfail(g, "op '%s': loop names '%s' too long", op->name, loops);
        for (const char *c = loops; *c; c++)
            if (!is_letter(*c) || strchr(c + 1, *c))
                return gfail(g, "op '%s': loop names '%s': letters, each once", op->name, loops);
        snprintf(op->loops, sizeof op->loops, "%s", loops);
    }
    if (model_axis != 0 && !is_letter(model_axis))
        return gfail(g, "op '%s': model axis '%c' is not a letter", op->name, model_axis);
    op->model_axis = model_axis;
    return i;
}

/* LSTM weights per layer: four gates of `units`, each over the layer's
 * input and the hidden state (PyTorch nn.LSTM: W_ih 4u x d, W_hh 4u x u). */
static int lstm_weights(const dnp_op *op, int64_t in_c, int64_t *w)
{
    int64_t units = dnp_op_out_view(op).c, total = 0, layer;
    for (int l = 0; l < op->layers; l++) {
        int64_t d_in = l == 0 ? in_c : units;
        if (dnp_mul3_i64(4, units, d_in + units, &layer) || dnp_add_i64(total, layer, &total))
            return -1;
    }
    *w = total;
    return 0;
}

int graph_named_sizes(const dnp_op *op, dnp_shape in, int64_t *weight_elems, int64_t *macs)
{
    int64_t out_per;
    const dnp_shape o = dnp_op_out_view(op);
    *weight_elems = *macs = 0;
    if (dnp_mul3_i64(o.c, o.h, o.w, &out_per))
        return -1;
    switch (op->kind) {
    case DNP_OP_EINSUM:
        /* every output element sums over the contracted letters */
        *weight_elems = op->param_elems;
        return dnp_mul_i64(out_per, op->contract, macs) ? -1 : 0;
    case DNP_OP_LSTM: {
        /* each position runs every layer's gate products once */
        int64_t w;
        if (lstm_weights(op, in.c, &w) || dnp_mul_i64(w, o.h, macs))
            return -1;
        *weight_elems = w;
        return 0;
    }
    default:
        return 0;
    }
}

void graph_named_cost(const dnp_graph *g, const dnp_op *op, int64_t batch, dnp_op_cost *out)
{
    int64_t w = 0, macs = 0;
    const dnp_shape o = dnp_op_out_view(op);
    if (graph_named_sizes(op, graph_in_view(g, op), &w, &macs) != 0)
        return; /* bounded when built */
    const double B = (double)batch, outv = (double)out->out_elems;
    const double M = B * (double)macs;
    switch (op->kind) {
    case DNP_OP_EINSUM: {
        /* as FC / matmul (graph.c, AccPar Table 6's 2M - R): forward 2M -
         * A(out); with a weight, one input gradient and one weight
         * gradient of M products each; with two activations, two input
         * gradients */
        out->macs_per_sample = macs;
        out->weight_elems = w;
        out->params = w;
        out->fwd_flop = 2.0 * M - fmin(outv, M);
        if (op->n_inputs == 1) {
            out->bwd_flop = 2.0 * M - fmin((double)out->in_elems, M);
            out->grad_flop = 2.0 * M - fmin((double)w, M);
        } else {
            double in_all = 0.0;
            for (int k = 0; k < op->n_inputs; k++) {
                dnp_shape s = dnp_op_out_view(dnp_graph_op(g, op->inputs[k]));
                in_all += B * (double)s.c * (double)s.h * (double)s.w;
            }
            out->bwd_flop = 4.0 * M - fmin(in_all, 2.0 * M);
        }
        break;
    }
    case DNP_OP_LSTM: {
        /* PyTorch nn.LSTM's equations per layer and position: four gate
         * pre-activations W_ih x + b_ih + W_hh h + b_hh (the GEMM's 2M
         * plus three additions per gate element: the two products' sum
         * and two biases, counted as 2 x 4u with the GEMM's missing one),
         * then c' = f c + i g, h' = o tanh(c') and the three sigmoids and
         * two tanh: 9 per hidden element.  Backward: the input (and
         * recurrent) gradients M products, the weight gradients M. */
        const double units = (double)o.c, cells = B * (double)o.h * op->layers;
        out->macs_per_sample = macs;
        out->weight_elems = w;
        out->params = w + 8 * (int64_t)op->layers * o.c; /* b_ih and b_hh */
        out->fwd_flop = 2.0 * M + cells * (2.0 * 4.0 * units + 9.0 * units);
        out->bwd_flop = 2.0 * M + cells * 9.0 * units;
        out->grad_flop = 2.0 * M + cells * 2.0 * 4.0 * units;
        break;
    }
    default: /* stack copies, select is a view: no arithmetic */
        break;
    }
}

int graph_named_view_check(const char *axes, int rank, const int64_t *dims, dnp_shape out,
                           char *why, size_t n)
{
    static const int64_t none[DNP_MAX_RANK] = {0}; /* no dims: extents 0, refused */
    dnp_op_attrs a = {0};
    dnp_shape view;
    if (set_named(axes, rank > 0 ? dims : none, &a, &view, why, n) < 0)
        return -1;
    if (a.out_rank != rank || view.c != out.c || view.h != out.h || out.w != 1) {
        snprintf(why, n, "\"axes\" '%s' and \"dims\" imply \"out\" [%lld, %lld, 1]", axes,
                 (long long)view.c, (long long)view.h);
        return -1;
    }
    return 0;
}

int graph_named_check(const dnp_graph *g, int i, char *why, size_t n)
{
    const dnp_op *op = dnp_graph_op(g, i);
    if (!graph_named_op(op))
        return 0;
    if (op->axes[0] == '\0') {
        snprintf(why, n, "a %s needs \"axes\" (named axes)", dnp_op_kind_name(op->kind));
        return -1;
    }
    if (graph_named_view_check(op->axes, named_rank(op), op->out_dims, dnp_op_out_view(op), why,
                               n) < 0)
        return -1;
    for (int k = 0; k < op->n_inputs; k++)
        if (dnp_graph_op(g, op->inputs[k])->axes[0] == '\0') {
            snprintf(why, n, "input %d has no named axes", k);
            return -1;
        }
    char sa[NAMED_MAX + 1], sb[NAMED_MAX + 1], so[NAMED_MAX + 1];
    int rank_in = op->n_inputs > 0 ? (int)strlen(dnp_graph_op(g, op->inputs[0])->axes) : 0;
    int bad_kind = 0;
    switch (op->kind) {
    case DNP_OP_EINSUM:
        bad_kind = parse_eq(op->equation, sa, sb, so) < 0 || strcmp(so, op->axes) != 0 ||
                   op->n_inputs < 1 || op->n_inputs > 2 || (int)strlen(sa) != rank_in;
        break;
    case DNP_OP_STACK:
        bad_kind = op->axis < 0 || op->axis >= (int)strlen(op->axes) || rank_in + 1 != (int)strlen(op->axes);
        break;
    case DNP_OP_SELECT: {
        const char *ia = dnp_graph_op(g, op->inputs[0])->axes;
        bad_kind = op->n_inputs != 1 || op->axis < 0 || op->axis >= rank_in ||
                   rank_in != (int)strlen(op->axes) + 1 || ia[op->axis] == 'b' ||
                   strncmp(ia, op->axes, (size_t)op->axis) != 0 ||
                   strcmp(ia + op->axis + 1, op->axes + op->axis) != 0;
        break;
    }
    case DNP_OP_LSTM:
        bad_kind = op->layers < 1 || op->n_inputs != 1 || strlen(op->axes) != 3;
        break;
    default:
        break;
    }
    if (bad_kind) {
        snprintf(why, n, "the %s's equation, axis, index or layers do not fit its axes '%s'",
                 dnp_op_kind_name(op->kind), op->axes);
        return -1;
    }
    return 0;
}

dnp_status graph_named_refuse(const dnp_graph *g, const char *search, dnp_error *err)
{
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (graph_named_kind(op->kind)) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "model '%s': op '%s' (%s, on named axes) is one %s cannot plan yet; "
                          "--search pase can",
                          dnp_graph_name(g), op->name, dnp_op_kind_name(op->kind), search);
            return DNP_ERR_INPUT;
        }
    }
    return DNP_OK;
}
