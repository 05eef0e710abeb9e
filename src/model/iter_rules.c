/*
 * iter_rules.c - the iteration spaces of a core graph's ops, one rule per
 * op kind (the table `rules` below; a kind without a rule is a clear
 * error).  Each rule appends the op's loop nests (iter_nests.c) and the
 * reads of its inputs; a nest is called a vertex below, as in PaSE.
 * Activations are (b, c, h, w) tensors; the rules follow the prototype's
 * modelling so that the zoo's pase-* models give exactly the prototype's
 * graphs:
 *
 *   input        a graph input (no vertex, no edge: nothing to transfer)
 *   conv         Conv (b, c, h_out, w_out, r, s, n); a grouped or depthwise
 *                conv is GroupConv (b, g, c, h_out, w_out, r, s, n), c and n
 *                per group (ours)
 *   fc           FC (b, n, c) on the flattened input; a spatial input is
 *                first flattened by Ravel + Unravel, as the prototype's
 *                AlexNet does
 *   maxpool, avgpool   Pooling (b, c, h_out, w_out); a global average
 *                pool (one output pixel covering the input) is ReduceMean
 *                over h and w, as the prototype's Inception and ResNet
 *   relu, dropout      fused: no vertex; one more point-wise op (pw) for
 *                a producer that has the field (conv, FC, element-wise,
 *                einsum), free after the others (as after batch norm)
 *   add          Elementwise of two inputs
 *   batchnorm    Norm over axis 0 (the batch)
 *   lrn          a unary Elementwise (cost E; its channel halo ignored)
 *   concat       Concat along the channels
 *   flatten      Ravel + Unravel (nothing if already flat)
 *   softmax      SoftmaxCrossEntropy on a flat (b, classes) input (the
 *                loss of a classifier), else Softmax over the channels
 *
 * Ops imported from ONNX use the IR's view of a tensor (c = the feature
 * axis, h = the other per-sample axes; see dnnpar.h), on which:
 *   fc at every position   FC with the positions as batch-like dims
 *   matmul       a GEMM Einsum (b, m, n, k): m = the output's positions,
 *                n = its features, k = the contracted length; an input
 *                axis matching none of them is read unsplit
 *   embedding    the prototype's Embedding: the einsum of a one-hot
 *                (b, positions, vocabulary) with the table; the ids are
 *                an input of the model (no edge), as in the prototype
 *   layernorm    Norm over the feature axis
 *   eltwise      fused like relu with one input; Elementwise with two,
 *                broadcast axes read unsplit
 *   reduce       ReduceMean over the axes the output drops to 1
 *   reshape      nothing if the view is unchanged (a transpose), Ravel +
 *                Unravel if the size is (the prototype's Reshape), else a
 *                free Slice vertex on the output's domain (slice, pad)
 *
 * Ops on named axes (src/model/graph_named.h) keep their tensors' real
 * axes, with the batch wherever 'b' is, and map one to one onto the
 * prototype's builders (so pase-rnnlm and pase-transformer convert to its
 * RNNLM and Transformer):
 *   input        a graph input of the named shape
 *   embedding    Embedding (one-hot x table einsum; vocabulary letter =
 *                the op's last loop letter, width letter = its last axis)
 *   lstm         LSTM (l, s, b, d, e)
 *   fc           FC over the last axis at every position
 *   einsum       Einsum of the equation; one input: the second operand is
 *                a weight (a graph input of the letters' extents)
 *   select       the selects of one tensor along one axis are one Unstack
 *                vertex, named as the first select less its last
 *                ".suffix"; each select is one of its outputs
 *   stack        Stack
 *   softmax      SoftmaxCrossEntropy if nothing reads it (the loss), else
 *                Softmax over the last axis
 *   layernorm    Norm over the last axis
 *   add, eltwise Elementwise of two inputs; relu, dropout and one-input
 *                eltwise fused as above
 * The op's loop names (op->loops, one letter per domain dim) rename the
 * vertex's dims, and its model axis (op->model_axis) names the dim expert
 * strategies split (the prototype sets both by hand on a few ops).
 */
#include "model/iter_build.h"
#include "core/alloc.h"
#include "model/graph_named.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const dnp_graph *g;
    int64_t batch;
    iter_space *s;
    iter_tensor *out; /* per core op: its output as a (b, c, h, w) tensor */
    dnp_error *err;
    int *unstack;     /* per core op: the Unstack vertex of its selects, -1 if none */
    char *consumed;   /* per core op: 1 if a later op reads it */
} conv_ctx;

typedef int (*conv_rule)(conv_ctx *x, int i, const dnp_op *op);

static int fail(conv_ctx *x, const dnp_op *op, const char *why)
{
    dnp_error_set(x->err, DNP_ERR_INPUT, "op '%s' (%s): %s", op->name,
                  dnp_op_kind_name(op->kind), why);
    return -1;
}

/* The builder's error, if any, as the conversion's. */
static int built(conv_ctx *x, int id)
{
    if (id < 0)
        dnp_error_set(x->err, DNP_ERR_INPUT, "%s", x->s->err);
    return id < 0 ? -1 : 0;
}

static const iter_tensor *in_of(conv_ctx *x, const dnp_op *op, int k)
{
    return &x->out[op->inputs[k]];
}

/* A (b, c, 1, 1) tensor viewed as (b, c). */
static iter_tensor flat_view(const iter_tensor *t)
{
    iter_tensor v = *t;
    v.rank = 2;
    return v;
}

/* A (b, n) tensor viewed as (b, n, 1, 1). */
static iter_tensor image_view(const iter_tensor *t)
{
    iter_tensor v = *t;
    for (int d = t->rank; d < 4; d++) {
        v.shape[d] = 1;
        v.map[d] = 0;
        snprintf(v.dim[d], sizeof v.dim[d], "%c", d == 2 ? 'h' : 'w');
    }
    v.rank = 4;
    return v;
}

static int is_flat(const iter_tensor *t) { return t->shape[2] == 1 && t->shape[3] == 1; }

/* Flatten a spatial (b, c, h, w) tensor: Ravel + Unravel to (b, c h w). */
static int flatten(conv_ctx *x, const char *base, const iter_tensor *t, iter_tensor *out)
{
    char nm[ITER_NAME_LEN];
    iter_tensor r, u;
    snprintf(nm, sizeof nm, "%.54s.ravel", base);
    if (built(x, nest_ravel(x->s, nm, t, &r)) < 0)
        return -1;
    const int64_t shape[2] = {t->shape[0], t->shape[1] * t->shape[2] * t->shape[3]};
    snprintf(nm, sizeof nm, "%.52s.unravel", base);
    if (built(x, nest_unravel(x->s, nm, &r, 2, shape, "bc", &u)) < 0)
        return -1;
    *out = image_view(&u);
    return 0;
}


/* A vertex the builders do not offer (ONNX ops on the view): domain dom
 * with names, inputs read through maps, the output as out_map. */
static int custom(conv_ctx *x, int i, const dnp_op *op, iter_kind kind, int rank,
                  const int64_t *dom, const char *names, int n_in, const iter_tensor *const *in,
                  unsigned (*maps)[ITER_MAX_RANK], int out_rank, const int64_t *out_shape,
                  const unsigned *out_map, iter_nest *proto)
{
    iter_nest v = *proto;
    snprintf(v.name, sizeof v.name, "%s", op->name);
    v.kind = kind;
    v.rank = rank;
    for (int d = 0; d < rank; d++) {
        v.dom[d] = dom[d];
        snprintf(v.dim[d], sizeof v.dim[d], "%c", names[d]);
    }
    int id = iter_add_nest(x->s, &v);
    for (int k = 0; k < n_in && id >= 0; k++)
        if (iter_add_read(x->s, in[k], id, k, maps[k]) < 0)
            id = -1;
    if (built(x, id) < 0)
        return -1;
    iter_tensor *o = &x->out[i];
    memset(o, 0, sizeof *o);
    o->nest = id;
    o->rank = out_rank;
    for (int d = 0; d < out_rank; d++) {
        o->shape[d] = out_shape[d];
        o->map[d] = out_map[d];
        snprintf(o->dim[d], sizeof o->dim[d], "%c", "bchw"[d < 4 ? d : 3]);
    }
    return 0;
}

static iter_nest blank_vertex(void)
{
    iter_nest v;
    memset(&v, 0, sizeof v);
    v.batch_dim = 0;
    v.model_dim = -1;
    return v;
}

/* Map each dim of tensor t onto the domain dim of the same extent among
 * `cand` (first match), else leave it unsplit. */
static void match_dims(const iter_tensor *t, int rank, const int64_t *dom, unsigned cand,
                       unsigned *map)
{
    unsigned used = 0;
    map[0] = 1u; /* the batch */
    for (int d = 1; d < t->rank; d++) {
        map[d] = 0;
        for (int k = 0; k < rank; k++)
            if (((cand >> k) & 1u) && !((used >> k) & 1u) && dom[k] == t->shape[d] &&
                t->shape[d] > 1) {
                map[d] = 1u << (unsigned)k;
                used |= 1u << (unsigned)k;
                break;
            }
    }
}

static int rule_input(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    const int64_t shape[4] = {x->batch, ov.c, ov.h, ov.w};
    x->out[i] = iter_input(4, shape, "bchw");
    return 0;
}

static int rule_conv(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape iv = dnp_op_in_view(x->g, i);
    const dnp_shape ov = dnp_op_out_view(op);
    const iter_tensor *t = in_of(x, op, 0);
    if (t->shape[1] != iv.c)
        return fail(x, op, "input channels do not match the producer");
    if (op->groups > 1) /* grouped or depthwise: GroupConv (b, g, c, h, w, r, s, n) */
        return built(x, nest_group_conv_sized(x->s, op->name, t, op->groups, ov.c, op->kh,
                                              op->kw, ov.h, ov.w, 0, &x->out[i]));
    return built(x, nest_conv_sized(x->s, op->name, t, ov.c, op->kh, op->kw, ov.h,
                                    ov.w, 0, &x->out[i]));
}

static int rule_fc(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    iter_tensor t = *in_of(x, op, 0), o;
    if (op->keep_positions && !is_flat(&t)) {
        /* the same FC at every position: (b, h, w, c) -> (b, h, w, n) */
        iter_tensor pv = t;
        static const int perm[4] = {0, 2, 3, 1};
        for (int d = 0; d < 4; d++) {
            pv.shape[d] = t.shape[perm[d]];
            pv.map[d] = t.map[perm[d]];
            memcpy(pv.dim[d], t.dim[perm[d]], sizeof pv.dim[d]);
        }
        if (built(x, nest_fc(x->s, op->name, &pv, ov.c, 0, &o)) < 0)
            return -1;
        iter_tensor *r = &x->out[i];
        *r = o;
        for (int d = 0; d < 4; d++) { /* back to (b, n, h, w) */
            r->shape[perm[d]] = o.shape[d];
            r->map[perm[d]] = o.map[d];
            memcpy(r->dim[perm[d]], o.dim[d], sizeof r->dim[d]);
        }
        return 0;
    }
    if (!is_flat(&t) && flatten(x, op->name, &t, &t) < 0)
        return -1;
    iter_tensor f = flat_view(&t);
    if (built(x, nest_fc(x->s, op->name, &f, ov.c, 0, &o)) < 0)
        return -1;
    x->out[i] = image_view(&o);
    return 0;
}

static int rule_pool(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape iv = dnp_op_in_view(x->g, i);
    const dnp_shape ov = dnp_op_out_view(op);
    const iter_tensor *t = in_of(x, op, 0);
    if (op->kind == DNP_OP_AVGPOOL && ov.h == 1 && ov.w == 1 && op->kh >= iv.h &&
        op->kw >= iv.w) /* global average pooling */
        return built(x, nest_reduce_mean(x->s, op->name, t, (1u << 2) | (1u << 3), 1,
                                         &x->out[i]));
    return built(x, nest_pool_sized(x->s, op->name, t, op->kh, op->kw, ov.h, ov.w,
                                     &x->out[i]));
}

static int rule_pointwise(conv_ctx *x, int i, const dnp_op *op)
{
    const iter_tensor *t = in_of(x, op, 0);
    x->out[i] = *t;
    if (t->nest >= 0) {
        iter_nest *p = &x->s->nest[t->nest];
        if (p->kind == ITER_CONV || p->kind == ITER_GROUP_CONV || p->kind == ITER_FC ||
            p->kind == ITER_ELEMWISE || p->kind == ITER_EINSUM)
            p->pw++;
    }
    return 0;
}

static int rule_add(conv_ctx *x, int i, const dnp_op *op)
{
    if (op->n_inputs != 2)
        return fail(x, op, "element-wise add of other than two inputs");
    const iter_tensor *in[2] = {in_of(x, op, 0), in_of(x, op, 1)};
    return built(x, nest_elementwise(x->s, op->name, 2, in, 0, &x->out[i]));
}

static int rule_batchnorm(conv_ctx *x, int i, const dnp_op *op)
{
    return built(x, nest_norm(x->s, op->name, in_of(x, op, 0), 0, &x->out[i]));
}

static int rule_lrn(conv_ctx *x, int i, const dnp_op *op)
{
    const iter_tensor *in[1] = {in_of(x, op, 0)};
    return built(x, nest_elementwise(x->s, op->name, 1, in, 0, &x->out[i]));
}

static int rule_concat(conv_ctx *x, int i, const dnp_op *op)
{
    const iter_tensor **in = dnp_malloc((size_t)(op->n_inputs > 0 ? op->n_inputs : 1) * sizeof *in);
    if (in == NULL)
        return fail(x, op, "out of memory");
    for (int k = 0; k < op->n_inputs; k++)
        in[k] = in_of(x, op, k);
    int rc = built(x, nest_concat(x->s, op->name, op->n_inputs, in, 1, &x->out[i]));
    dnp_free(in);
    return rc;
}

static int rule_flatten(conv_ctx *x, int i, const dnp_op *op)
{
    const iter_tensor *t = in_of(x, op, 0);
    if (is_flat(t)) {
        x->out[i] = *t;
        return 0;
    }
    return flatten(x, op->name, t, &x->out[i]);
}

static int rule_softmax(conv_ctx *x, int i, const dnp_op *op)
{
    const iter_tensor *t = in_of(x, op, 0);
    if (!is_flat(t))
        return built(x, nest_softmax(x->s, op->name, t, 1, &x->out[i]));
    iter_tensor f = flat_view(t), o;
    if (built(x, nest_sce(x->s, op->name, &f, &o)) < 0)
        return -1;
    x->out[i] = image_view(&o);
    return 0;
}


/* matmul of two activations: Einsum (b, m, n, k) on the view. */
static int rule_matmul(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    if (op->n_inputs != 2 || op->contract < 1)
        return fail(x, op, "a matmul needs two inputs and a contracted length");
    const int64_t dom[4] = {x->batch, ov.h * ov.w, ov.c, op->contract};
    const iter_tensor *in[2] = {in_of(x, op, 0), in_of(x, op, 1)};
    unsigned maps[2][ITER_MAX_RANK];
    match_dims(in[0], 4, dom, (1u << 1) | (1u << 3), maps[0]); /* A: m, k */
    match_dims(in[1], 4, dom, (1u << 3) | (1u << 2), maps[1]); /* B: k, n */
    iter_nest v = blank_vertex();
    /* both operands are activations: b indexes A, B and C, a batch of
     * GEMMs (splitting it needs no all-reduce: no operand is shared across
     * samples) */
    v.gemm_b = 1u << 0;
    v.gemm_m = 1u << 1;
    v.gemm_n = 1u << 2;
    v.gemm_k = 1u << 3;
    const int64_t shape[4] = {x->batch, ov.c, ov.h, ov.w};
    const unsigned omap[4] = {1u << 0, 1u << 2, 1u << 1, 0};
    return custom(x, i, op, ITER_EINSUM, 4, dom, "bmnk", 2, in, maps, 4, shape, omap, &v);
}

/* Embedding: one-hot (b, s, v) x table (v, d), no in-edge (README: the
 * prototype's Embedding; its ids are a graph input). */
static int rule_embedding(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    int64_t width = ov.c, pos = ov.h * ov.w;
    int64_t vocab = width > 0 ? op->param_elems / width : 0;
    if (vocab < 1)
        return fail(x, op, "an embedding needs its table's size");
    const int64_t dom[4] = {x->batch, pos, width, vocab};
    iter_nest v = blank_vertex();
    v.gemm_m = (1u << 0) | (1u << 1);
    v.gemm_n = 1u << 2;
    v.gemm_k = 1u << 3;
    v.model_dim = 3;
    const int64_t shape[4] = {x->batch, width, ov.h, ov.w};
    const unsigned omap[4] = {1u << 0, 1u << 2, ov.h > 1 ? 1u << 1 : 0, 0};
    return custom(x, i, op, ITER_EINSUM, 4, dom, "bsdv", 0, NULL, NULL, 4, shape, omap, &v);
}

static int rule_layernorm(conv_ctx *x, int i, const dnp_op *op)
{
    return built(x, nest_norm(x->s, op->name, in_of(x, op, 0), 1, &x->out[i]));
}

/* Element-wise op of two activations, broadcast axes read unsplit. */
static int rule_eltwise(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    if (op->n_inputs == 1)
        return rule_pointwise(x, i, op);
    if (op->n_inputs != 2)
        return fail(x, op, "element-wise op of more than two inputs");
    const int64_t dom[4] = {x->batch, ov.c, ov.h, ov.w};
    const iter_tensor *in[2] = {in_of(x, op, 0), in_of(x, op, 1)};
    unsigned maps[2][ITER_MAX_RANK];
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < 4; d++)
            maps[k][d] = in[k]->shape[d] == dom[d] ? 1u << (unsigned)d : 0;
    iter_nest v = blank_vertex();
    const unsigned omap[4] = {1u << 0, 1u << 1, 1u << 2, 1u << 3};
    return custom(x, i, op, ITER_ELEMWISE, 4, dom, "bchw", 2, in, maps, 4, dom, omap, &v);
}

static int rule_reduce(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    const iter_tensor *t = in_of(x, op, 0);
    const int64_t out[4] = {x->batch, ov.c, ov.h, ov.w};
    unsigned axes = 0;
    for (int d = 1; d < 4; d++)
        if (out[d] == 1 && t->shape[d] > 1)
            axes |= 1u << (unsigned)d;
    if (axes == 0) {
        x->out[i] = *t;
        return 0;
    }
    return built(x, nest_reduce_mean(x->s, op->name, t, axes, 1, &x->out[i]));
}

/* Data movement: nothing, Ravel + Unravel, or a free Slice vertex. */
static int rule_reshape(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    const iter_tensor *t = in_of(x, op, 0);
    const int64_t out[4] = {x->batch, ov.c, ov.h, ov.w};
    int64_t n_in = 1, n_out = 1;
    int same = 1;
    for (int d = 0; d < 4; d++) {
        n_in *= t->shape[d];
        n_out *= out[d];
        same &= t->shape[d] == out[d];
    }
    if (same) { /* a transpose or a reshape that keeps the view */
        x->out[i] = *t;
        return 0;
    }
    if (n_in == n_out) {
        char nm[ITER_NAME_LEN];
        iter_tensor r;
        snprintf(nm, sizeof nm, "%.54s.ravel", op->name);
        if (built(x, nest_ravel(x->s, nm, t, &r)) < 0)
            return -1;
        snprintf(nm, sizeof nm, "%.52s.unravel", op->name);
        return built(x, nest_unravel(x->s, nm, &r, 4, out, "bchw", &x->out[i]));
    }
    unsigned maps[1][ITER_MAX_RANK];
    for (int d = 0; d < 4; d++)
        maps[0][d] = 1u << (unsigned)d;
    const iter_tensor *in[1] = {t};
    iter_nest v = blank_vertex();
    return custom(x, i, op, ITER_SLICE, 4, out, "bchw", 1, in, maps, 4, out, maps[0], &v);
}


/* ---- ops on named axes -------------------------------------------------- */

static int named_input(conv_ctx *x, int i, const dnp_op *op)
{
    char axes[DNP_MAX_RANK + 2];
    int64_t ext[DNP_MAX_RANK + 1];
    int rank = graph_named_shape(op, x->batch, axes, ext);
    x->out[i] = iter_input(rank, ext, axes);
    return 0;
}

static int named_embedding(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    size_t nl = strlen(op->loops), na = strlen(op->axes);
    int64_t width = ov.c, vocab = width > 0 ? op->param_elems / width : 0;
    if (nl < 1 || na < 1 || vocab < 1)
        return fail(x, op, "a named embedding needs its table and its loop letters");
    return built(x, nest_embedding(x->s, op->name, in_of(x, op, 0), vocab, width,
                                   op->loops[nl - 1], op->axes[na - 1], &x->out[i]));
}

static int named_lstm(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    return built(x, nest_lstm(x->s, op->name, in_of(x, op, 0), ov.c, op->layers,
                              &x->out[i]));
}

static int named_fc(conv_ctx *x, int i, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    return built(x, nest_fc(x->s, op->name, in_of(x, op, 0), ov.c, 0, &x->out[i]));
}

/* Split "A,B->O" (graph_named.c checked it when the op was built). */
static int split_eq(const char *eq, char *sa, char *sb, char *so)
{
    const char *comma = strchr(eq, ','), *arrow = strstr(eq, "->");
    if (comma == NULL || arrow == NULL || comma > arrow || comma - eq > ITER_MAX_RANK ||
        arrow - comma - 1 > ITER_MAX_RANK || strlen(arrow + 2) > ITER_MAX_RANK)
        return -1;
    snprintf(sa, ITER_MAX_RANK + 1, "%.*s", (int)(comma - eq), eq);
    snprintf(sb, ITER_MAX_RANK + 1, "%.*s", (int)(arrow - comma - 1), comma + 1);
    snprintf(so, ITER_MAX_RANK + 1, "%s", arrow + 2);
    return 0;
}

static int named_einsum(conv_ctx *x, int i, const dnp_op *op)
{
    char sa[ITER_MAX_RANK + 1], sb[ITER_MAX_RANK + 1], so[ITER_MAX_RANK + 1];
    if (split_eq(op->equation, sa, sb, so) < 0)
        return fail(x, op, "malformed einsum equation");
    const iter_tensor *a = in_of(x, op, 0);
    if (op->n_inputs == 2)
        return built(x, nest_einsum(x->s, op->name, op->equation, a, in_of(x, op, 1), 0,
                                    &x->out[i]));
    /* the weight: each letter's extent from the activation or the output */
    char axes[DNP_MAX_RANK + 2];
    int64_t ext[DNP_MAX_RANK + 1], shape[ITER_MAX_RANK];
    graph_named_shape(op, x->batch, axes, ext);
    int rank = (int)strlen(sb);
    for (int d = 0; d < rank; d++) {
        const char *pa = strchr(sa, sb[d]), *po = strchr(so, sb[d]);
        if (pa != NULL && pa - sa < a->rank)
            shape[d] = a->shape[pa - sa];
        else if (po != NULL)
            shape[d] = ext[po - so];
        else
            return fail(x, op, "a weight letter has no extent");
    }
    iter_tensor w = iter_input(rank, shape, sb);
    return built(x, nest_einsum(x->s, op->name, op->equation, a, &w, 0, &x->out[i]));
}

/* Output `index` of Unstack vertex id on tensor t along axis (as
 * pase_unstack makes it). */
static iter_tensor unstack_part(const iter_space *pg, int id, const iter_tensor *t, int axis,
                                int index)
{
    iter_tensor o;
    memset(&o, 0, sizeof o);
    o.nest = id;
    o.port = index;
    o.rank = t->rank - 1;
    for (int d = 0, k = 0; d < t->rank; d++)
        if (d != axis) {
            o.shape[k] = t->shape[d];
            o.map[k] = 1u << (unsigned)d;
            memcpy(o.dim[k], pg->nest[id].dim[d], sizeof o.dim[k]);
            k++;
        }
    return o;
}

static int named_select(conv_ctx *x, int i, const dnp_op *op)
{
    int src = op->inputs[0];
    const iter_tensor *t = in_of(x, op, 0);
    if (op->axis < 0 || op->axis >= t->rank || op->index < 0 || op->index >= t->shape[op->axis])
        return fail(x, op, "select outside its input");
    int id = x->unstack[src];
    if (id < 0) {
        if (t->shape[op->axis] > 64)
            return fail(x, op, "selects of an axis longer than 64");
        char base[ITER_NAME_LEN];
        snprintf(base, sizeof base, "%s", op->name);
        char *dot = strrchr(base, '.');
        if (dot != NULL && dot != base)
            *dot = '\0';
        iter_tensor parts[64];
        id = nest_unstack(x->s, base, t, op->axis, parts);
        if (built(x, id) < 0)
            return -1;
        x->unstack[src] = id;
    } else if (x->s->nest[id].axis != op->axis) {
        return fail(x, op, "selects of one tensor along two axes");
    }
    x->out[i] = unstack_part(x->s, id, t, op->axis, op->index);
    return 0;
}

static int named_stack(conv_ctx *x, int i, const dnp_op *op)
{
    const iter_tensor *in[8];
    if (op->n_inputs < 1 || op->n_inputs > 8)
        return fail(x, op, "a stack of other than 1 to 8 tensors");
    for (int k = 0; k < op->n_inputs; k++)
        in[k] = in_of(x, op, k);
    return built(x, nest_stack(x->s, op->name, op->n_inputs, in, op->axis, &x->out[i]));
}

static int named_softmax(conv_ctx *x, int i, const dnp_op *op)
{
    if (!x->consumed[i]) /* the loss */
        return built(x, nest_sce(x->s, op->name, in_of(x, op, 0), &x->out[i]));
    return built(x, nest_softmax(x->s, op->name, in_of(x, op, 0), -1, &x->out[i]));
}

static int named_layernorm(conv_ctx *x, int i, const dnp_op *op)
{
    return built(x, nest_norm(x->s, op->name, in_of(x, op, 0), -1, &x->out[i]));
}

static int named_eltwise(conv_ctx *x, int i, const dnp_op *op)
{
    if (op->n_inputs == 1)
        return rule_pointwise(x, i, op);
    if (op->n_inputs != 2)
        return fail(x, op, "element-wise op of more than two inputs");
    const iter_tensor *in[2] = {in_of(x, op, 0), in_of(x, op, 1)};
    return built(x, nest_elementwise(x->s, op->name, 2, in, 0, &x->out[i]));
}

static const struct {
    dnp_op_kind kind;
    conv_rule rule;
} named_rules[] = {
    {DNP_OP_INPUT, named_input},       {DNP_OP_EMBEDDING, named_embedding},
    {DNP_OP_LSTM, named_lstm},         {DNP_OP_FC, named_fc},
    {DNP_OP_EINSUM, named_einsum},     {DNP_OP_SELECT, named_select},
    {DNP_OP_STACK, named_stack},       {DNP_OP_SOFTMAX, named_softmax},
    {DNP_OP_LAYERNORM, named_layernorm}, {DNP_OP_ADD, rule_add},
    {DNP_OP_ELTWISE, named_eltwise},   {DNP_OP_RELU, rule_pointwise},
    {DNP_OP_DROPOUT, rule_pointwise},
};

/* The loop names and model axis of op on the vertex it just made. */
static void annotate(conv_ctx *x, const dnp_op *op, int n_v_before)
{
    if (x->s->n_nest != n_v_before + 1)
        return; /* fused, or a later select of an Unstack */
    iter_nest *v = &x->s->nest[n_v_before];
    if (op->loops[0] != '\0' && (int)strlen(op->loops) == v->rank)
        for (int d = 0; d < v->rank; d++)
            snprintf(v->dim[d], sizeof v->dim[d], "%c", op->loops[d]);
    if (op->model_axis != 0)
        for (int d = 0; d < v->rank; d++)
            if (v->dim[d][0] == op->model_axis && v->dim[d][1] == '\0')
                v->model_dim = d;
}

static const struct {
    dnp_op_kind kind;
    conv_rule rule;
} rules[] = {
    {DNP_OP_INPUT, rule_input},         {DNP_OP_CONV, rule_conv},
    {DNP_OP_FC, rule_fc},               {DNP_OP_MAXPOOL, rule_pool},
    {DNP_OP_AVGPOOL, rule_pool},        {DNP_OP_RELU, rule_pointwise},
    {DNP_OP_DROPOUT, rule_pointwise},   {DNP_OP_ADD, rule_add},
    {DNP_OP_BATCHNORM, rule_batchnorm}, {DNP_OP_LRN, rule_lrn},
    {DNP_OP_CONCAT, rule_concat},       {DNP_OP_FLATTEN, rule_flatten},
    {DNP_OP_SOFTMAX, rule_softmax},     {DNP_OP_MATMUL, rule_matmul},
    {DNP_OP_EMBEDDING, rule_embedding}, {DNP_OP_LAYERNORM, rule_layernorm},
    {DNP_OP_ELTWISE, rule_eltwise},     {DNP_OP_RESHAPE, rule_reshape},
    {DNP_OP_REDUCE, rule_reduce},
};

static conv_rule find_rule(const dnp_op *op)
{
    if (graph_named_op(op)) {
        for (size_t r = 0; r < sizeof named_rules / sizeof named_rules[0]; r++)
            if (named_rules[r].kind == op->kind)
                return named_rules[r].rule;
        return NULL;
    }
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
        if (rules[r].kind == op->kind)
            return rules[r].rule;
    return NULL;
}

/* Who carries core op i's work (iter_space's carrier): the nest its
 * output tensor comes from; that nest's op if this rule made it (the op's
 * own iteration space), else i is fused into it (a point-wise op, a
 * transpose left as a view of its producer).  The nests the rule made are
 * i's own (nest_start). */
static void carry(conv_ctx *x, int i, int n_v_before)
{
    for (int v = n_v_before; v < x->s->n_nest; v++)
        x->s->nest[v].owner = i;
    x->s->nest_start[i + 1] = x->s->n_nest;
    const iter_tensor *t = &x->out[i];
    unsigned mask = 0;
    for (int d = 0; d < t->rank; d++)
        mask |= t->map[d];
    x->s->carrier[i] = t->nest;
    x->s->carrier_mask[i] = mask;
    if (t->nest >= n_v_before && x->s->nest[t->nest].op < 0)
        x->s->nest[t->nest].op = i;
}

/* The per-vertex index of the carried ops (op_start, ops). */
static dnp_status carried_index(iter_space *pg)
{
    pg->op_start = dnp_calloc((size_t)pg->n_nest + 1, sizeof *pg->op_start);
    pg->ops = dnp_malloc((size_t)(pg->n_core > 0 ? pg->n_core : 1) * sizeof *pg->ops);
    if (pg->op_start == NULL || pg->ops == NULL)
        return DNP_ERR_NOMEM;
    for (int i = 0; i < pg->n_core; i++)
        if (pg->carrier[i] >= 0)
            pg->op_start[pg->carrier[i] + 1]++;
    for (int v = 0; v < pg->n_nest; v++)
        pg->op_start[v + 1] += pg->op_start[v];
    int *fill = dnp_malloc(((size_t)pg->n_nest + 1) * sizeof *fill);
    if (fill == NULL)
        return DNP_ERR_NOMEM;
    memcpy(fill, pg->op_start, ((size_t)pg->n_nest + 1) * sizeof *fill);
    for (int i = 0; i < pg->n_core; i++)
        if (pg->carrier[i] >= 0)
            pg->ops[fill[pg->carrier[i]]++] = i;
    dnp_free(fill);
    return DNP_OK;
}

static void ctx_free(conv_ctx *x)
{
    dnp_free(x->out);
    dnp_free(x->unstack);
    dnp_free(x->consumed);
}

/* Refuse op i: with no rule, or reading a tensor of the other form. */
static int check_op(conv_ctx *x, int i, const dnp_op *op, conv_rule *rule)
{
    int named = graph_named_op(op);
    *rule = find_rule(op);
    if (*rule == NULL) {
        char known[320] = "";
        size_t n = named ? sizeof named_rules / sizeof named_rules[0]
                         : sizeof rules / sizeof rules[0];
        for (size_t r = 0; r < n; r++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", r ? ", " : "",
                     dnp_op_kind_name(named ? named_rules[r].kind : rules[r].kind));
        dnp_error_set(x->err, DNP_ERR_INPUT,
                      "op '%s' of kind '%s'%s has no PaSE iteration space (supported: %s)",
                      op->name, dnp_op_kind_name(op->kind), named ? " on named axes" : "",
                      known);
        return -1;
    }
    for (int k = 0; k < op->n_inputs; k++) {
        if (op->inputs[k] < 0 || op->inputs[k] >= i)
            return fail(x, op, "an input is not an earlier op");
        if (graph_named_op(dnp_graph_op(x->g, op->inputs[k])) != named)
            return fail(x, op, named ? "reads a tensor without named axes"
                                     : "reads a tensor with named axes");
    }
    if (op->kind != DNP_OP_INPUT && op->kind != DNP_OP_EMBEDDING && op->n_inputs < 1)
        return fail(x, op, "no input");
    return 0;
}

static dnp_status oom(const dnp_graph *g, dnp_error *err)
{
    dnp_error_set(err, DNP_ERR_NOMEM, "out of memory deriving the iteration spaces of '%s'",
                  dnp_graph_name(g));
    return DNP_ERR_NOMEM;
}

dnp_status iter_space_build(const dnp_graph *g, int64_t batch, iter_space **out, dnp_error *err)
{
    if (batch < 1) {
        dnp_error_set(err, DNP_ERR_INPUT, "batch must be positive, got %lld", (long long)batch);
        return DNP_ERR_INPUT;
    }
    unsigned long fails0 = dnp_alloc_failures();
    int n = dnp_graph_n_ops(g);
    size_t n_alloc = (size_t)(n > 0 ? n : 1);
    conv_ctx x = {g, batch, iter_space_new(), NULL, err, NULL, NULL};
    x.out = dnp_calloc(n_alloc, sizeof *x.out);
    x.unstack = dnp_malloc(n_alloc * sizeof *x.unstack);
    x.consumed = dnp_calloc(n_alloc, 1);
    if (x.s == NULL || x.out == NULL || x.unstack == NULL || x.consumed == NULL) {
        iter_space_free(x.s);
        ctx_free(&x);
        return oom(g, err);
    }
    for (int i = 0; i < n; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        x.unstack[i] = -1;
        for (int k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && op->inputs[k] < n)
                x.consumed[op->inputs[k]] = 1;
    }
    x.s->core = g;
    x.s->batch = batch;
    x.s->n_core = n;
    x.s->carrier = dnp_malloc(n_alloc * sizeof *x.s->carrier);
    x.s->carrier_mask = dnp_calloc(n_alloc, sizeof *x.s->carrier_mask);
    x.s->nest_start = dnp_calloc(n_alloc + 1, sizeof *x.s->nest_start);
    if (x.s->carrier == NULL || x.s->carrier_mask == NULL || x.s->nest_start == NULL) {
        iter_space_free(x.s);
        ctx_free(&x);
        return oom(g, err);
    }
    for (int i = 0; i < n; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        conv_rule rule = NULL;
        if (check_op(&x, i, op, &rule) < 0) {
            iter_space_free(x.s);
            ctx_free(&x);
            return DNP_ERR_INPUT;
        }
        int n_v = x.s->n_nest;
        if (rule(&x, i, op) < 0) {
            iter_space_free(x.s);
            ctx_free(&x);
            if (dnp_alloc_failures() == fails0)
                return DNP_ERR_INPUT;
            /* the builders record a failed allocation as text: report it as such */
            dnp_error_clear(err);
            return oom(g, err);
        }
        if (graph_named_op(op))
            annotate(&x, op, n_v);
        carry(&x, i, n_v);
    }
    ctx_free(&x);
    if (carried_index(x.s) != DNP_OK) {
        iter_space_free(x.s);
        return oom(g, err);
    }
    if (x.s->n_nest == 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "model '%s' has no ops to partition", dnp_graph_name(g));
        iter_space_free(x.s);
        return DNP_ERR_INPUT;
    }
    *out = x.s;
    return DNP_OK;
}
