/*
 * onnx_fuse.c - the ONNX importer's fusion of decomposed layer norms,
 * GELUs and bias adds (onnx_fuse.h; docs/onnx.md, "Fusion").
 *
 * A pattern matches only as a whole: every op of it has the operator,
 * operand order and constant the formula needs, and every intermediate
 * result is read by the next op of the pattern alone.  Anything else stays
 * as imported.  The formulas matched:
 *   layer norm (Ba et al. 2016, eq. 4; ONNX LayerNormalization, opset 17):
 *     y = (x - E[x]) / sqrt(E[(x - E[x])^2] + eps) * gamma + beta, E over
 *     the last axis; PyTorch < 2's exporter writes it at opset < 17 as
 *     ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul, Add
 *     (torch/onnx/symbolic_opset9.py, native_layer_norm).
 *   GELU (Hendrycks and Gimpel 2016, section 2): x * 0.5 * (1 + erf(x /
 *     sqrt 2)), exported as Div sqrt 2 (or Mul 1/sqrt 2), Erf, Add 1 and
 *     two Muls (x, 0.5) in any association; and its tanh approximation
 *     0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) with Pow 3.
 *   bias: y = x W + b, exported as MatMul then Add of a parameter vector
 *     of the MatMul's output features (torch.nn.Linear at rank > 2).
 */
#include "model/onnx_fuse.h"
#include "model/graph_internal.h"
#include "core/alloc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { KEEP = 0, GONE, ANCHOR, BIASED, BIAS_ADD };
enum { F_NONE = 0, F_LN, F_GELU };

typedef struct {
    const dnp_graph *g;
    const onnx_fuse_note *nt;
    int n;
    int *cstart, *cons; /* consumers of op i: cons[cstart[i] .. cstart[i+1]) */
    unsigned char *state;
    unsigned char *fkind; /* ANCHOR: F_LN or F_GELU */
    int *from;            /* ANCHOR: the fused op's input (old index); BIAS_ADD: its FC */
    int64_t *params;      /* ANCHOR: parameter elements of the ops it replaces */
} fz;

static const dnp_op *op_at(const fz *z, int i) { return dnp_graph_op(z->g, i); }
static int ncons(const fz *z, int i) { return z->cstart[i + 1] - z->cstart[i]; }
static int cons1(const fz *z, int i) { return ncons(z, i) == 1 ? z->cons[z->cstart[i]] : -1; }

/* Op i is an unclaimed element-wise op imported from ONNX operator `src`
 * with n_in activation inputs. */
static int elt(const fz *z, int i, const char *src, int n_in)
{
    if (i < 0 || z->state[i] != KEEP)
        return 0;
    const dnp_op *op = op_at(z, i);
    return op->kind == DNP_OP_ELTWISE && op->n_inputs == n_in && strcmp(op->src_type, src) == 0;
}

/* A float32 constant exported for v: equal to 1e-6 relative. */
static int near(double a, double v) { return fabs(a - v) <= 1e-6 * fabs(v); }

/* Op i (one activation input) has the scalar constant v as its other
 * operand; pos: 2 = second operand only, 0 = either. */
static int const_is(const fz *z, int i, double v, int pos)
{
    const onnx_fuse_note *t = &z->nt[i];
    return t->noted && t->c_pos != 0 && (pos == 0 || t->c_pos == pos) && t->c_has_f &&
           t->c_numel == 1 && near(t->c_f, v);
}

/* Op i's two inputs are {a, b} in either order. */
static int inputs_are(const fz *z, int i, int a, int b)
{
    const dnp_op *op = op_at(z, i);
    return op->n_inputs == 2 && ((op->inputs[0] == a && op->inputs[1] == b) ||
                                 (op->inputs[0] == b && op->inputs[1] == a));
}

static int in0(const fz *z, int i) { return op_at(z, i)->inputs[0]; }

static int same_shape(const fz *z, int a, int b)
{
    dnp_shape x = dnp_op_out_view(op_at(z, a)), y = dnp_op_out_view(op_at(z, b));
    return x.c == y.c && x.h == y.h && x.w == y.w;
}

/* An unclaimed ReduceMean of op `x` over its last axis alone (keepdims). */
static int mean_last(const fz *z, int i, int x)
{
    if (i < 0 || z->state[i] != KEEP)
        return 0;
    const dnp_op *op = op_at(z, i);
    return op->kind == DNP_OP_REDUCE && op->n_inputs == 1 && op->inputs[0] == x &&
           strcmp(op->src_type, "ReduceMean") == 0 && z->nt[i].noted && z->nt[i].red_last;
}

/* Op i scales or shifts every position by a vector of the last axis (a
 * layer norm's gamma or beta). */
static int per_feature(const fz *z, int i)
{
    const onnx_fuse_note *t = &z->nt[i];
    return t->noted && t->c_pos != 0 && t->c_numel == t->out_last && t->c_last == t->out_last;
}

static void claim(fz *z, const int *ops, int n, int anchor, int kind, int x)
{
    int64_t p = 0;
    for (int k = 0; k < n; k++) {
        z->state[ops[k]] = GONE;
        p += op_at(z, ops[k])->param_elems;
    }
    z->state[anchor] = ANCHOR;
    z->fkind[anchor] = (unsigned char)kind;
    z->from[anchor] = x;
    z->params[anchor] = p;
}

/* The layer norm whose first ReduceMean is op r1. */
static int match_layer_norm(fz *z, int r1)
{
    const dnp_op *op = op_at(z, r1);
    if (op->kind != DNP_OP_REDUCE || op->n_inputs != 1)
        return 0;
    int x = op->inputs[0];
    if (!mean_last(z, r1, x))
        return 0;
    int s = cons1(z, r1); /* x - mean */
    if (!elt(z, s, "Sub", 2) || op_at(z, s)->inputs[0] != x || op_at(z, s)->inputs[1] != r1 ||
        ncons(z, s) != 2)
        return 0;
    int p = z->cons[z->cstart[s]], d = z->cons[z->cstart[s] + 1];
    if (!elt(z, p, "Pow", 1)) {
        int t = p;
        p = d, d = t;
    }
    if (!elt(z, p, "Pow", 1) || !const_is(z, p, 2.0, 2) || !elt(z, d, "Div", 2) ||
        op_at(z, d)->inputs[0] != s)
        return 0;
    int r2 = cons1(z, p); /* variance */
    if (!mean_last(z, r2, p))
        return 0;
    int a = cons1(z, r2); /* + eps */
    if (!elt(z, a, "Add", 1) || !z->nt[a].noted || z->nt[a].c_pos == 0 || !z->nt[a].c_has_f ||
        z->nt[a].c_numel != 1 || !(z->nt[a].c_f > 0.0 && z->nt[a].c_f <= 1e-2))
        return 0;
    int q = cons1(z, a);
    if (!elt(z, q, "Sqrt", 1) || cons1(z, q) != d || op_at(z, d)->inputs[1] != q)
        return 0;
    int grp[9] = {r1, s, p, r2, a, q, d}, n = 7, last = d;
    int m = cons1(z, last);
    if (elt(z, m, "Mul", 1) && per_feature(z, m))
        grp[n++] = last = m;
    int b = cons1(z, last);
    if (elt(z, b, "Add", 1) && per_feature(z, b))
        grp[n++] = last = b;
    if (!same_shape(z, last, x))
        return 0;
    claim(z, grp, n - 1, last, F_LN, x);
    z->params[last] += op_at(z, last)->param_elems;
    return 1;
}

/* The two Muls that finish a GELU: x times t (= 1 + erf or 1 + tanh)
 * times 0.5 in any association; their ops go to grp. */
static int gelu_tail(const fz *z, int x, int t, int *grp, int *n)
{
    int t1 = cons1(z, t);
    if (elt(z, t1, "Mul", 2) && inputs_are(z, t1, x, t)) { /* (x t) 0.5 */
        int y = cons1(z, t1);
        if (!elt(z, y, "Mul", 1) || !const_is(z, y, 0.5, 0))
            return -1;
        grp[(*n)++] = t1;
        grp[(*n)++] = y;
        return y;
    }
    if (elt(z, t1, "Mul", 1) && const_is(z, t1, 0.5, 0)) { /* x (0.5 t) */
        int y = cons1(z, t1);
        if (!elt(z, y, "Mul", 2) || !inputs_are(z, y, x, t1))
            return -1;
        grp[(*n)++] = t1;
        grp[(*n)++] = y;
        return y;
    }
    if (elt(z, t1, "Mul", 2)) { /* (0.5 x) t */
        const dnp_op *op = op_at(z, t1);
        int h = op->inputs[0] == t ? op->inputs[1] : op->inputs[0];
        if (!inputs_are(z, t1, h, t) || h == t || !elt(z, h, "Mul", 1) || in0(z, h) != x ||
            !const_is(z, h, 0.5, 0) || cons1(z, h) != t1)
            return -1;
        grp[(*n)++] = h;
        grp[(*n)++] = t1;
        return t1;
    }
    return -1;
}

/* The GELU whose first op is op i: Div sqrt 2 / Mul 1/sqrt 2 (erf form)
 * or Pow 3 (tanh form). */
static int match_gelu(fz *z, int i)
{
    int grp[10], n = 0, t = -1;
    if ((elt(z, i, "Div", 1) && const_is(z, i, sqrt(2.0), 2)) ||
        (elt(z, i, "Mul", 1) && const_is(z, i, sqrt(0.5), 0))) {
        int e = cons1(z, i);
        if (!elt(z, e, "Erf", 1))
            return 0;
        t = cons1(z, e);
        if (!elt(z, t, "Add", 1) || !const_is(z, t, 1.0, 0))
            return 0;
        grp[0] = i, grp[1] = e, grp[2] = t, n = 3;
    } else if (elt(z, i, "Pow", 1) && const_is(z, i, 3.0, 2)) {
        int x = in0(z, i), m1 = cons1(z, i);
        if (!elt(z, m1, "Mul", 1) || !const_is(z, m1, 0.044715, 0))
            return 0;
        int a1 = cons1(z, m1);
        /* an Add of two activations is imported as DNP_OP_ADD */
        if (a1 < 0 || z->state[a1] != KEEP || op_at(z, a1)->kind != DNP_OP_ADD ||
            !inputs_are(z, a1, x, m1))
            return 0;
        int m2 = cons1(z, a1);
        /* sqrt(2 / pi) */
        if (!elt(z, m2, "Mul", 1) || !const_is(z, m2, sqrt(2.0 / 3.14159265358979323846), 0))
            return 0;
        int th = cons1(z, m2);
        if (!elt(z, th, "Tanh", 1))
            return 0;
        t = cons1(z, th);
        if (!elt(z, t, "Add", 1) || !const_is(z, t, 1.0, 0))
            return 0;
        int g5[6] = {i, m1, a1, m2, th, t};
        memcpy(grp, g5, sizeof g5);
        n = 6;
    } else {
        return 0;
    }
    int x = in0(z, i);
    int y = gelu_tail(z, x, t, grp, &n);
    if (y < 0 || !same_shape(z, y, x))
        return 0;
    claim(z, grp, n - 1, y, F_GELU, x);
    z->params[y] += op_at(z, y)->param_elems;
    return 1;
}

/* The bias Add that follows FC op f. */
static int match_bias(fz *z, int f)
{
    const dnp_op *op = op_at(z, f);
    if (op->kind != DNP_OP_FC || op->bias || z->state[f] != KEEP)
        return 0;
    int b = cons1(z, f);
    if (!elt(z, b, "Add", 1))
        return 0;
    const onnx_fuse_note *t = &z->nt[b];
    int64_t n = dnp_op_out_view(op).c;
    if (!t->noted || !t->c_param || t->c_numel != n || t->c_last != n || t->out_last != n ||
        op_at(z, b)->param_elems != n || !same_shape(z, b, f))
        return 0;
    z->state[f] = BIASED;
    z->state[b] = BIAS_ADD;
    z->from[b] = f;
    return 1;
}

/* The attributes that rebuild op (graph.c's append). */
static dnp_op_attrs attrs_of(const dnp_op *op)
{
    dnp_op_attrs a = {0};
    a.kh = op->kh, a.kw = op->kw, a.sh = op->sh, a.sw = op->sw, a.ph = op->ph, a.pw = op->pw;
    a.groups = op->groups, a.bias = op->bias, a.keep_positions = op->keep_positions;
    a.contract = op->contract;
    a.param_elems = op->param_elems;
    a.src_type = op->src_type;
    /* the given axes (none on the c x h x w view: the view is the shape) */
    a.out_rank = dnp_op_has_axes(op) ? op->out_rank : 0;
    memcpy(a.out_dims, op->out_dims, sizeof a.out_dims);
    a.axes = op->axes, a.loops = op->loops, a.equation = op->equation;
    a.axis = op->axis, a.index = op->index, a.layers = op->layers;
    a.model_axis = op->model_axis;
    a.ratio = op->ratio;
    return a;
}

/* The fused op's name: the last op's scope ("/enc/layers.0/norm1/") and
 * what it is, or the last op's own name if that is taken or too long. */
static void fused_name(const fz *z, const dnp_graph *ng, int last, const char *what, char *buf,
                       size_t len)
{
    const char *nm = op_at(z, last)->name, *slash = strrchr(nm, '/');
    int scope = slash ? (int)(slash - nm) + 1 : 0;
    int k = snprintf(buf, len, "%.*s%s", scope, nm, what);
    if (scope == 0 || k < 0 || (size_t)k >= len || dnp_graph_find(z->g, buf) >= 0 ||
        dnp_graph_find(ng, buf) >= 0)
        snprintf(buf, len, "%s", nm);
}

static int rebuild(fz *z, dnp_graph *ng, char *err_msg, size_t err_len)
{
    int *nid = dnp_calloc((size_t)z->n, sizeof *nid), small[16], ok = 1;
    if (nid == NULL) {
        if (err_msg != NULL && err_len > 0)
            snprintf(err_msg, err_len, "out of memory");
        return -1;
    }
    for (int i = 0; i < z->n && ok; i++) {
        const dnp_op *op = op_at(z, i);
        nid[i] = -1;
        if (z->state[i] == GONE)
            continue;
        if (z->state[i] == BIAS_ADD) {
            nid[i] = nid[z->from[i]];
            continue;
        }
        dnp_op_attrs a = attrs_of(op);
        int *in = small, r;
        if (op->n_inputs > 16 && (in = dnp_calloc((size_t)op->n_inputs, sizeof *in)) == NULL) {
            ok = 0;
            break;
        }
        for (int k = 0; k < op->n_inputs; k++)
            in[k] = nid[op->inputs[k]];
        if (z->state[i] == ANCHOR) {
            int ln = z->fkind[i] == F_LN;
            char name[64];
            fused_name(z, ng, i, ln ? "LayerNormalization" : "Gelu", name, sizeof name);
            a.src_type = ln ? "LayerNormalization" : "Gelu";
            a.param_elems = z->params[i];
            in[0] = nid[z->from[i]];
            r = dnp_graph_append(ng, name, ln ? DNP_OP_LAYERNORM : DNP_OP_ELTWISE, 1, in,
                                 dnp_op_out_view(op), &a);
        } else if (op->kind == DNP_OP_INPUT) {
            const dnp_shape v = dnp_op_out_view(op);
            r = dnp_graph_input(ng, op->name, v.c, v.h, v.w);
            dnp_op *o = r >= 0 ? graph_op_mut(ng, r) : NULL;
            if (o != NULL) { /* the input's axes as imported (its view is v) */
                o->view = op->view;
                o->out_rank = op->out_rank;
                memcpy(o->out_dims, op->out_dims, sizeof o->out_dims);
                memcpy(o->axes, op->axes, sizeof o->axes);
            }
        } else {
            a.bias = op->bias || z->state[i] == BIASED;
            r = dnp_graph_append(ng, op->name, op->kind, op->n_inputs, in, dnp_op_out_view(op),
                                 &a);
        }
        if (in != small)
            dnp_free(in);
        nid[i] = r;
        ok = r >= 0;
    }
    dnp_free(nid);
    if (!ok && err_msg != NULL && err_len > 0)
        snprintf(err_msg, err_len, "%s", dnp_graph_error(ng)[0] ? dnp_graph_error(ng)
                                                                : "out of memory");
    return ok ? 0 : -1;
}

int onnx_fuse(const dnp_graph *g, const onnx_fuse_note *notes, int n_notes, dnp_graph **out,
              onnx_fuse_counts *counts, char *err_msg, size_t err_len)
{
    *out = NULL;
    memset(counts, 0, sizeof *counts);
    fz z = {0};
    z.g = g;
    z.nt = notes;
    z.n = dnp_graph_n_ops(g);
    if (z.n == 0 || n_notes < z.n)
        return 0;
    int n_edges = 0;
    for (int i = 0; i < z.n; i++)
        n_edges += op_at(&z, i)->n_inputs;
    z.cstart = dnp_calloc((size_t)z.n + 1, sizeof *z.cstart);
    z.cons = dnp_calloc((size_t)n_edges + 1, sizeof *z.cons);
    z.state = dnp_calloc((size_t)z.n, 1);
    z.fkind = dnp_calloc((size_t)z.n, 1);
    z.from = dnp_calloc((size_t)z.n, sizeof *z.from);
    z.params = dnp_calloc((size_t)z.n, sizeof *z.params);
    int rc = -1;
    if (!z.cstart || !z.cons || !z.state || !z.fkind || !z.from || !z.params) {
        if (err_msg != NULL && err_len > 0)
            snprintf(err_msg, err_len, "out of memory");
        goto done;
    }
    /* consumers, in op order (an op reading a tensor twice is listed twice) */
    for (int i = 0; i < z.n; i++)
        for (int k = 0; k < op_at(&z, i)->n_inputs; k++)
            z.cstart[op_at(&z, i)->inputs[k] + 1]++;
    for (int i = 0; i < z.n; i++)
        z.cstart[i + 1] += z.cstart[i];
    for (int i = 0; i < z.n; i++) {
        const dnp_op *op = op_at(&z, i);
        for (int k = 0; k < op->n_inputs; k++)
            z.cons[z.cstart[op->inputs[k]] + z.from[op->inputs[k]]++] = i;
    }
    for (int i = 0; i < z.n; i++)
        z.from[i] = 0;
    for (int i = 0; i < z.n; i++) {
        counts->layer_norms += match_layer_norm(&z, i);
        counts->gelus += match_gelu(&z, i);
    }
    for (int i = 0; i < z.n; i++)
        counts->bias_adds += match_bias(&z, i);
    rc = 0;
    if (counts->layer_norms + counts->gelus + counts->bias_adds == 0)
        goto done;
    dnp_graph *ng = dnp_graph_new(dnp_graph_name(g));
    if (ng == NULL || rebuild(&z, ng, err_msg, err_len) != 0) {
        if (ng == NULL && err_msg != NULL && err_len > 0)
            snprintf(err_msg, err_len, "out of memory");
        dnp_graph_free(ng);
        rc = -1;
        goto done;
    }
    dnp_graph_set_note(ng, dnp_graph_note(g));
    *out = ng;
done:
    dnp_free(z.cstart);
    dnp_free(z.cons);
    dnp_free(z.state);
    dnp_free(z.fkind);
    dnp_free(z.from);
    dnp_free(z.params);
    return rc;
}
