/*
 * iter_nests.c - one nest builder per cost form: the iteration space
 * (domain) of the op, how each input tensor's dimensions map onto it,
 * and how the output tensor's dimensions map back.  Domains follow the authors'
 * prototype as the reference README lists them ("Layer costs"), so that
 * configurations and costs line up with its tables.
 */
#include "model/iter_build.h"
#include "core/einsum_eq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIT(d) (1u << (unsigned)(d))

static int ok_graph(iter_space *g) { return g != NULL && g->err[0] == '\0'; }

static void vinit(iter_nest *v, const char *name, iter_kind kind, int rank, const int64_t *dom)
{
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", name ? name : "");
    v->kind = kind;
    v->rank = rank;
    for (int i = 0; i < rank; i++)
        v->dom[i] = dom[i];
    v->batch_dim = -1;
    v->model_dim = -1;
}

static void set_name(char dst[4], const char *src)
{
    snprintf(dst, 4, "%s", src && src[0] ? src : "?");
}

/* The first dimension named "b" is the mini-batch. */
static void find_batch(iter_nest *v)
{
    for (int i = 0; i < v->rank; i++)
        if (strcmp(v->dim[i], "b") == 0) {
            v->batch_dim = i;
            return;
        }
}

static int check_tensor(iter_space *g, const char *name, const iter_tensor *t, int rank)
{
    if (t == NULL || t->rank < 1 || t->rank > ITER_MAX_RANK)
        return iter_fail(g, "op '%s': input has rank %d (1..%d)", name,
                               t ? t->rank : 0, ITER_MAX_RANK);
    if (rank > 0 && t->rank != rank)
        return iter_fail(g, "op '%s': input has rank %d, expected %d", name, t->rank, rank);
    for (int i = 0; i < t->rank; i++)
        if (t->shape[i] < 1)
            return iter_fail(g, "op '%s': input dimension %d is %lld", name, i,
                                   (long long)t->shape[i]);
    return 0;
}

static int check_dom(iter_space *g, const char *name, int rank, const int64_t *dom)
{
    if (rank < 1 || rank > ITER_MAX_RANK)
        return iter_fail(g, "op '%s': iteration space of rank %d (1..%d)", name, rank,
                               ITER_MAX_RANK);
    for (int i = 0; i < rank; i++)
        if (dom[i] < 1)
            return iter_fail(g, "op '%s': iteration-space dimension %d is %lld", name, i,
                                   (long long)dom[i]);
    return 0;
}

/* Output tensor `port` of vertex vid with per-dimension domain masks. */
static void make_out(iter_tensor *o, int vid, int port, int rank, const int64_t *shape,
                     const unsigned *map, const iter_nest *v)
{
    memset(o, 0, sizeof *o);
    o->nest = vid;
    o->port = port;
    o->rank = rank;
    for (int i = 0; i < rank; i++) {
        o->shape[i] = shape[i];
        o->map[i] = map[i];
        /* name a tensor dimension after the single domain dim it maps to */
        int d = -1;
        for (int k = 0; k < v->rank; k++)
            if (map[i] == BIT(k))
                d = k;
        set_name(o->dim[i], d >= 0 ? v->dim[d] : "x");
    }
}

/* Identity map of a tensor onto a domain of the same rank. */
static void identity(int rank, unsigned *map)
{
    for (int i = 0; i < rank; i++)
        map[i] = BIT(i);
}

/* Add the vertex, then one edge per input (the prototype's order). */
static int finish(iter_space *g, iter_nest *v, int n_in, const iter_tensor *const *in,
                  unsigned (*in_map)[ITER_MAX_RANK])
{
    if (check_dom(g, v->name, v->rank, v->dom) < 0)
        return -1;
    if (v->batch_dim < 0)
        find_batch(v);
    int id = iter_add_nest(g, v);
    for (int i = 0; i < n_in && id >= 0; i++)
        if (iter_add_read(g, in[i], id, i, in_map[i]) < 0)
            return -1;
    return id;
}

int nest_conv_sized(iter_space *g, const char *name, const iter_tensor *img, int64_t n_out,
                    int r, int s, int64_t ho, int64_t wo, int pw, iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, img, 4) < 0)
        return -1;
    if (ho < 1 || wo < 1 || n_out < 1 || r < 1 || s < 1)
        return iter_fail(g, "conv '%s': %dx%d window over %lldx%lld gives no output", name,
                               r, s, (long long)img->shape[2], (long long)img->shape[3]);
    const int64_t dom[7] = {img->shape[0], img->shape[1], ho, wo, r, s, n_out};
    static const char *const names[7] = {"b", "c", "h", "w", "r", "s", "n"};
    iter_nest v;
    vinit(&v, name, ITER_CONV, 7, dom);
    for (int i = 0; i < 7; i++)
        set_name(v.dim[i], names[i]);
    v.fixed = BIT(2) | BIT(3); /* no halo exchange: h_out, w_out unsplit */
    v.batch_dim = 0;
    v.pw = pw;
    v.gemm_m = BIT(0) | BIT(2) | BIT(3); /* M = b h_out w_out */
    v.gemm_n = BIT(6);                   /* N = n */
    v.gemm_k = BIT(1) | BIT(4) | BIT(5); /* K = c r s */
    unsigned in_map[1][ITER_MAX_RANK] = {{BIT(0), BIT(1), BIT(2), BIT(3)}};
    const iter_tensor *ins[1] = {img};
    int id = finish(g, &v, 1, ins, in_map);
    if (id >= 0) {
        const int64_t shape[4] = {dom[0], n_out, ho, wo};
        const unsigned map[4] = {BIT(0), BIT(6), BIT(2), BIT(3)};
        make_out(out, id, 0, 4, shape, map, &v);
        set_name(out->dim[1], "c");
    }
    return id;
}

/* Grouped convolution (ours; the prototype has none).  PyTorch / ONNX
 * semantics: output channel j of group q (j < n) reads input channels
 * q c .. q c + c - 1 only, so the op is `groups` independent dense convs,
 * i.e. the einsum "bgchw,gnc(rs)->bgnhw" whose g is in both operands and the
 * output: a batch dimension of the conv's GEMM (README "Layer costs",
 * GEMM: nb multiplies computation and communication alike). */
int nest_group_conv_sized(iter_space *g, const char *name, const iter_tensor *img,
                          int64_t groups, int64_t n_out, int r, int s, int64_t ho, int64_t wo,
                          int pw, iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, img, 4) < 0)
        return -1;
    if (ho < 1 || wo < 1 || n_out < 1 || r < 1 || s < 1)
        return iter_fail(g, "conv '%s': %dx%d window over %lldx%lld gives no output", name,
                               r, s, (long long)img->shape[2], (long long)img->shape[3]);
    if (groups < 1 || img->shape[1] % groups != 0 || n_out % groups != 0)
        return iter_fail(g, "conv '%s': channels %lld -> %lld do not divide into %lld "
                                  "groups",
                               name, (long long)img->shape[1], (long long)n_out,
                               (long long)groups);
    const int64_t dom[8] = {img->shape[0], groups, img->shape[1] / groups, ho, wo, r, s,
                            n_out / groups};
    static const char *const names[8] = {"b", "g", "c", "h", "w", "r", "s", "n"};
    iter_nest v;
    vinit(&v, name, ITER_GROUP_CONV, 8, dom);
    for (int i = 0; i < 8; i++)
        set_name(v.dim[i], names[i]);
    v.fixed = BIT(3) | BIT(4); /* no halo exchange, as the dense conv */
    v.batch_dim = 0;
    v.pw = pw;
    v.gemm_b = BIT(1);                   /* one GEMM per group */
    v.gemm_m = BIT(0) | BIT(3) | BIT(4); /* M = b h_out w_out */
    v.gemm_n = BIT(7);                   /* N = n (per group) */
    v.gemm_k = BIT(2) | BIT(5) | BIT(6); /* K = c r s (per group) */
    /* channels are group-major: their split is the product of g's and c's */
    unsigned in_map[1][ITER_MAX_RANK] = {{BIT(0), BIT(1) | BIT(2), BIT(3), BIT(4)}};
    const iter_tensor *ins[1] = {img};
    int id = finish(g, &v, 1, ins, in_map);
    if (id >= 0) {
        const int64_t shape[4] = {dom[0], n_out, ho, wo};
        const unsigned map[4] = {BIT(0), BIT(1) | BIT(7), BIT(3), BIT(4)};
        make_out(out, id, 0, 4, shape, map, &v);
        set_name(out->dim[1], "c");
    }
    return id;
}


int nest_pool_sized(iter_space *g, const char *name, const iter_tensor *img, int r, int s,
                    int64_t ho, int64_t wo, iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, img, 4) < 0)
        return -1;
    if (ho < 1 || wo < 1 || r < 1 || s < 1)
        return iter_fail(g, "pooling '%s': %dx%d window over %lldx%lld gives no output",
                               name, r, s, (long long)img->shape[2], (long long)img->shape[3]);
    const int64_t dom[4] = {img->shape[0], img->shape[1], ho, wo};
    static const char *const names[4] = {"b", "c", "h", "w"};
    iter_nest v;
    vinit(&v, name, ITER_POOL, 4, dom);
    for (int i = 0; i < 4; i++)
        set_name(v.dim[i], names[i]);
    v.batch_dim = 0;
    v.win_r = r;
    v.win_s = s;
    v.in_h = img->shape[2];
    v.in_w = img->shape[3];
    unsigned in_map[1][ITER_MAX_RANK];
    identity(4, in_map[0]);
    const iter_tensor *ins[1] = {img};
    int id = finish(g, &v, 1, ins, in_map);
    if (id >= 0)
        make_out(out, id, 0, 4, dom, in_map[0], &v);
    return id;
}

int nest_fc(iter_space *g, const char *name, const iter_tensor *in, int64_t n_units, int pw,
            iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, in, 0) < 0)
        return -1;
    if (in->rank < 2 || in->rank + 1 > ITER_MAX_RANK || n_units < 1)
        return iter_fail(g, "fc '%s': input of rank %d, %lld units", name, in->rank,
                               (long long)n_units);
    int rank = in->rank + 1, lead = in->rank - 1;
    int64_t dom[ITER_MAX_RANK] = {0};
    iter_nest v;
    for (int i = 0; i < lead; i++)
        dom[i] = in->shape[i];
    dom[lead] = n_units;
    dom[lead + 1] = in->shape[lead];
    vinit(&v, name, ITER_FC, rank, dom);
    unsigned in_map[1][ITER_MAX_RANK], omap[ITER_MAX_RANK];
    for (int i = 0; i < lead; i++) {
        set_name(v.dim[i], in->dim[i]);
        v.gemm_m |= BIT(i); /* M = the leading (batch-like) dims */
        in_map[0][i] = BIT(i);
        omap[i] = BIT(i);
    }
    set_name(v.dim[lead], "n");
    set_name(v.dim[lead + 1], "c");
    v.gemm_n = BIT(lead);
    v.gemm_k = BIT(lead + 1);
    v.model_dim = lead;
    v.pw = pw;
    in_map[0][lead] = BIT(lead + 1);
    omap[lead] = BIT(lead);
    const iter_tensor *ins[1] = {in};
    int id = finish(g, &v, 1, ins, in_map);
    if (id >= 0)
        make_out(out, id, 0, in->rank, dom, omap, &v);
    return id;
}

static int same_shape(const iter_tensor *a, const iter_tensor *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    return 1;
}

/* Domain = the tensor; one input, output identical (norm, softmax, ...). */
static int shape_op(iter_space *g, iter_nest *v, const iter_tensor *in, iter_tensor *out)
{
    for (int i = 0; i < in->rank; i++)
        set_name(v->dim[i], in->dim[i]);
    unsigned in_map[1][ITER_MAX_RANK];
    identity(in->rank, in_map[0]);
    const iter_tensor *ins[1] = {in};
    int id = finish(g, v, 1, ins, in_map);
    if (id >= 0)
        make_out(out, id, 0, in->rank, in->shape, in_map[0], v);
    return id;
}

int nest_elementwise(iter_space *g, const char *name, int n_in, const iter_tensor *const *in,
                     int pw, iter_tensor *out)
{
    if (!ok_graph(g))
        return -1;
    if (n_in < 1 || n_in > 2)
        return iter_fail(g, "element-wise '%s': %d inputs (1 or 2)", name, n_in);
    for (int i = 0; i < n_in; i++)
        if (check_tensor(g, name, in[i], 0) < 0)
            return -1;
    if (n_in == 2 && !same_shape(in[0], in[1]))
        return iter_fail(g, "element-wise '%s': inputs of different shapes", name);
    iter_nest v;
    vinit(&v, name, ITER_ELEMWISE, in[0]->rank, in[0]->shape);
    v.pw = pw;
    for (int i = 0; i < in[0]->rank; i++)
        set_name(v.dim[i], in[0]->dim[i]);
    unsigned in_map[2][ITER_MAX_RANK];
    identity(in[0]->rank, in_map[0]);
    identity(in[0]->rank, in_map[1]);
    int id = finish(g, &v, n_in, in, in_map);
    if (id >= 0)
        make_out(out, id, 0, in[0]->rank, in[0]->shape, in_map[0], &v);
    return id;
}

static int adjust_axis(int axis, int rank) { return axis < 0 ? axis + rank : axis; }

int nest_norm(iter_space *g, const char *name, const iter_tensor *in, int axis,
              iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, in, 0) < 0)
        return -1;
    axis = adjust_axis(axis, in->rank);
    if (in->rank < 2 || axis < 0 || axis >= in->rank)
        return iter_fail(g, "norm '%s': axis %d of a rank-%d tensor", name, axis,
                               in->rank);
    iter_nest v;
    vinit(&v, name, ITER_NORM, in->rank, in->shape);
    v.axis = axis;
    return shape_op(g, &v, in, out);
}

int nest_reduce_mean(iter_space *g, const char *name, const iter_tensor *in, unsigned axes,
                     int keepdims, iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, in, 0) < 0)
        return -1;
    if (axes == 0 || (axes >> in->rank) != 0)
        return iter_fail(g, "reduce-mean '%s': axes 0x%x of a rank-%d tensor", name, axes,
                               in->rank);
    iter_nest v;
    vinit(&v, name, ITER_REDUCE_MEAN, in->rank, in->shape);
    v.axes = axes;
    for (int i = 0; i < in->rank; i++)
        set_name(v.dim[i], in->dim[i]);
    unsigned in_map[1][ITER_MAX_RANK];
    identity(in->rank, in_map[0]);
    const iter_tensor *ins[1] = {in};
    int id = finish(g, &v, 1, ins, in_map);
    if (id < 0)
        return id;
    int64_t shape[ITER_MAX_RANK];
    unsigned map[ITER_MAX_RANK];
    int r = 0;
    for (int i = 0; i < in->rank; i++) {
        if (!(axes & BIT(i))) {
            shape[r] = in->shape[i];
            map[r++] = BIT(i);
        } else if (keepdims) {
            shape[r] = 1;
            map[r++] = 0;
        }
    }
    if (r == 0) {
        shape[0] = 1;
        map[0] = 0;
        r = 1;
    }
    make_out(out, id, 0, r, shape, map, &v);
    return id;
}

int nest_softmax(iter_space *g, const char *name, const iter_tensor *in, int axis,
                 iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, in, 0) < 0)
        return -1;
    axis = adjust_axis(axis, in->rank);
    if (axis < 0 || axis >= in->rank)
        return iter_fail(g, "softmax '%s': axis %d of a rank-%d tensor", name, axis,
                               in->rank);
    iter_nest v;
    vinit(&v, name, ITER_SOFTMAX, in->rank, in->shape);
    v.axis = axis;
    return shape_op(g, &v, in, out);
}

int nest_sce(iter_space *g, const char *name, const iter_tensor *in, iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, in, 0) < 0)
        return -1;
    iter_nest v;
    vinit(&v, name, ITER_SCE, in->rank, in->shape);
    v.model_dim = in->rank - 1; /* the classes */
    return shape_op(g, &v, in, out);
}

/* Parse "in1,in2->out" into three letter strings; 0 or -1
 * (core/einsum_eq.h; PaSE's equations may use upper-case letters). */
static int parse_eq(const char *eq, char *a, char *b, char *o)
{
    return einsum_eq_split(eq, ITER_MAX_RANK, 1, a, b, o);
}

int nest_einsum(iter_space *g, const char *name, const char *eq, const iter_tensor *a,
                const iter_tensor *b, int pw, iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, a, 0) < 0 || check_tensor(g, name, b, 0) < 0)
        return -1;
    char sa[ITER_MAX_RANK + 1], sb[ITER_MAX_RANK + 1], so[ITER_MAX_RANK + 1];
    if (eq == NULL || parse_eq(eq, sa, sb, so) < 0)
        return iter_fail(g, "einsum '%s': malformed equation '%s'", name, eq ? eq : "");
    if ((int)strlen(sa) != a->rank || (int)strlen(sb) != b->rank)
        return iter_fail(g, "einsum '%s': '%s' does not match input ranks %d and %d", name,
                               eq, a->rank, b->rank);
    /* domain letters: the output, then reductions in order of appearance */
    char dl[2 * ITER_MAX_RANK + 1];
    int nd = 0;
    for (const char *s = so; *s; s++) {
        if (!strchr(sa, *s) && !strchr(sb, *s))
            return iter_fail(g, "einsum '%s': output dim '%c' is in no input", name, *s);
        dl[nd++] = *s;
    }
    for (const char *s = sa; *s; s++)
        if (strchr(sb, *s) && !strchr(so, *s))
            dl[nd++] = *s;
    dl[nd] = '\0';
    for (int p = 0; p < 2; p++)
        for (const char *s = p ? sb : sa; *s; s++)
            if (!strchr(dl, *s))
                return iter_fail(g, "einsum '%s': dim '%c' of one input only is summed "
                                          "out (unsupported)",
                                       name, *s);
    if (nd > ITER_MAX_RANK)
        return iter_fail(g, "einsum '%s': %d dims (at most %d)", name, nd, ITER_MAX_RANK);
    int64_t dom[ITER_MAX_RANK] = {0};
    iter_nest v;
    unsigned in_map[2][ITER_MAX_RANK];
    for (int d = 0; d < nd; d++) {
        const char *pa = strchr(sa, dl[d]), *pb = strchr(sb, dl[d]);
        int64_t xa = pa ? a->shape[pa - sa] : -1, xb = pb ? b->shape[pb - sb] : -1;
        if (xa > 0 && xb > 0 && xa != xb)
            return iter_fail(g, "einsum '%s': dim '%c' is %lld and %lld", name, dl[d],
                                   (long long)xa, (long long)xb);
        dom[d] = xa > 0 ? xa : xb;
    }
    vinit(&v, name, ITER_EINSUM, nd, dom);
    v.pw = pw;
    for (int d = 0; d < nd; d++) {
        char nm[2] = {dl[d], '\0'};
        set_name(v.dim[d], nm);
        int in_a = strchr(sa, dl[d]) != NULL, in_b = strchr(sb, dl[d]) != NULL;
        int in_o = strchr(so, dl[d]) != NULL;
        if (in_a && in_b)
            *(in_o ? &v.gemm_b : &v.gemm_k) |= BIT(d);
        else
            *(in_a ? &v.gemm_m : &v.gemm_n) |= BIT(d);
        if (v.model_dim < 0 && (dl[d] == 'h' || dl[d] == 'f' || dl[d] == 'v'))
            v.model_dim = d;
    }
    if (v.gemm_m == 0 || v.gemm_n == 0)
        return iter_fail(g, "einsum '%s': '%s' needs a dim of each input alone in the "
                                  "output (as the prototype)",
                               name, eq);
    for (int i = 0; i < a->rank; i++)
        in_map[0][i] = BIT(strchr(dl, sa[i]) - dl);
    for (int i = 0; i < b->rank; i++)
        in_map[1][i] = BIT(strchr(dl, sb[i]) - dl);
    const iter_tensor *ins[2] = {a, b};
    int id = finish(g, &v, 2, ins, in_map);
    if (id >= 0) {
        int no = (int)strlen(so);
        unsigned omap[ITER_MAX_RANK];
        identity(no, omap);
        make_out(out, id, 0, no, dom, omap, &v);
    }
    return id;
}

int nest_embedding(iter_space *g, const char *name, const iter_tensor *ids, int64_t vocab,
                   int64_t width, char vocab_dim, char width_dim, iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, ids, 0) < 0)
        return -1;
    if (ids->nest >= 0)
        return iter_fail(g, "embedding '%s': the ids must be a graph input", name);
    if (ids->rank + 1 > ITER_MAX_RANK)
        return iter_fail(g, "embedding '%s': ids of rank %d", name, ids->rank);
    /* The prototype's Embedding: einsum of a dense one-hot with the table. */
    char eq[3 * ITER_MAX_RANK + 8], letters[ITER_MAX_RANK + 1];
    int64_t oh_shape[ITER_MAX_RANK], w_shape[2] = {vocab, width};
    for (int i = 0; i < ids->rank; i++) {
        letters[i] = ids->dim[i][0];
        oh_shape[i] = ids->shape[i];
    }
    letters[ids->rank] = '\0';
    oh_shape[ids->rank] = vocab;
    snprintf(eq, sizeof eq, "%s%c,%c%c->%s%c", letters, vocab_dim, vocab_dim, width_dim, letters,
             width_dim);
    char oh_dims[ITER_MAX_RANK + 2], w_dims[3] = {vocab_dim, width_dim, '\0'};
    snprintf(oh_dims, sizeof oh_dims, "%s%c", letters, vocab_dim);
    iter_tensor oh = iter_input(ids->rank + 1, oh_shape, oh_dims);
    iter_tensor w = iter_input(2, w_shape, w_dims);
    return nest_einsum(g, name, eq, &oh, &w, 0, out);
}

int nest_lstm(iter_space *g, const char *name, const iter_tensor *in, int64_t units,
              int layers, iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, in, 3) < 0)
        return -1;
    if (in->shape[2] != units || layers < 1)
        return iter_fail(g, "lstm '%s': input width %lld, %lld units, %d layers", name,
                               (long long)in->shape[2], (long long)units, layers);
    /* (layers, sequence, batch, units n, units k) */
    const int64_t dom[5] = {layers, in->shape[1], in->shape[0], units, units};
    /* the paper's Table II letters: layers, sequence, batch, d (units out), e (in) */
    static const char *const names[5] = {"l", "s", "b", "d", "e"};
    iter_nest v;
    vinit(&v, name, ITER_LSTM, 5, dom);
    for (int i = 0; i < 5; i++)
        set_name(v.dim[i], names[i]);
    v.fixed = BIT(1); /* the sequence is never split */
    v.batch_dim = 2;
    v.pw = 3;
    unsigned in_map[1][ITER_MAX_RANK] = {{BIT(2), BIT(1), BIT(4)}};
    const iter_tensor *ins[1] = {in};
    int id = finish(g, &v, 1, ins, in_map);
    if (id >= 0) {
        const int64_t shape[3] = {in->shape[0], in->shape[1], units};
        const unsigned map[3] = {BIT(2), BIT(1), BIT(3)};
        make_out(out, id, 0, 3, shape, map, &v);
    }
    return id;
}

int nest_concat(iter_space *g, const char *name, int n, const iter_tensor *const *in, int axis,
                iter_tensor *out)
{
    if (!ok_graph(g))
        return -1;
    if (n < 1 || n > 4096)
        return iter_fail(g, "concat '%s': %d inputs", name, n);
    for (int i = 0; i < n; i++)
        if (check_tensor(g, name, in[i], in[0]->rank) < 0)
            return -1;
    int rank = in[0]->rank;
    axis = adjust_axis(axis, rank);
    if (axis < 0 || axis >= rank)
        return iter_fail(g, "concat '%s': axis %d of rank %d", name, axis, rank);
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < rank; d++)
            if (d != axis && in[i]->shape[d] != in[0]->shape[d])
                return iter_fail(g, "concat '%s': input %d differs off the axis", name, i);
        total += in[i]->shape[axis];
    }
    int64_t dom[ITER_MAX_RANK] = {0}, shape[ITER_MAX_RANK] = {0};
    for (int d = 0; d < rank; d++)
        dom[d] = shape[d] = in[0]->shape[d];
    dom[axis] = 1; /* the axis is never split */
    shape[axis] = total;
    iter_nest v;
    vinit(&v, name, ITER_CONCAT, rank, dom);
    v.axis = axis;
    v.fixed = BIT(axis);
    for (int d = 0; d < rank; d++)
        set_name(v.dim[d], in[0]->dim[d]);
    unsigned(*maps)[ITER_MAX_RANK] = NULL;
    unsigned map1[ITER_MAX_RANK];
    identity(rank, map1);
    /* every input reads the same identity map */
    unsigned small[8][ITER_MAX_RANK];
    unsigned(*big)[ITER_MAX_RANK] = NULL;
    if (n <= 8) {
        maps = small;
    } else {
        big = dnp_malloc((size_t)n * sizeof *big);
        if (big == NULL)
            return iter_fail(g, "concat '%s': out of memory", name);
        maps = big;
    }
    for (int i = 0; i < n; i++)
        memcpy(maps[i], map1, sizeof map1);
    int id = finish(g, &v, n, in, maps);
    dnp_free(big);
    if (id >= 0)
        make_out(out, id, 0, rank, shape, map1, &v);
    return id;
}


int nest_stack(iter_space *g, const char *name, int n, const iter_tensor *const *in, int axis,
               iter_tensor *out)
{
    if (!ok_graph(g))
        return -1;
    if (n < 1 || n > 8)
        return iter_fail(g, "stack '%s': %d inputs (1..8)", name, n);
    for (int i = 0; i < n; i++)
        if (check_tensor(g, name, in[i], 0) < 0)
            return -1;
    int rank = in[0]->rank + 1;
    if (axis < 0)
        axis += rank;
    if (rank > ITER_MAX_RANK || axis < 0 || axis >= rank)
        return iter_fail(g, "stack '%s': axis %d of rank %d", name, axis, rank);
    for (int i = 1; i < n; i++)
        if (!same_shape(in[0], in[i]))
            return iter_fail(g, "stack '%s': inputs of different shapes", name);
    int64_t dom[ITER_MAX_RANK] = {0}, shape[ITER_MAX_RANK] = {0};
    unsigned maps[8][ITER_MAX_RANK];
    iter_nest v;
    for (int d = 0, k = 0; d < rank; d++) {
        if (d == axis) {
            dom[d] = 1;
            shape[d] = n;
        } else {
            dom[d] = shape[d] = in[0]->shape[k];
            for (int i = 0; i < n; i++)
                maps[i][k] = BIT(d);
            k++;
        }
    }
    vinit(&v, name, ITER_STACK, rank, dom);
    v.axis = axis;
    v.fixed = BIT(axis);
    for (int d = 0, k = 0; d < rank; d++)
        set_name(v.dim[d], d == axis ? "s" : in[0]->dim[k++]);
    int id = finish(g, &v, n, in, maps);
    if (id >= 0) {
        unsigned omap[ITER_MAX_RANK];
        identity(rank, omap);
        make_out(out, id, 0, rank, shape, omap, &v);
    }
    return id;
}

int nest_unstack(iter_space *g, const char *name, const iter_tensor *in, int axis,
                 iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, in, 0) < 0)
        return -1;
    axis = adjust_axis(axis, in->rank);
    if (in->rank < 2 || axis < 0 || axis >= in->rank || in->shape[axis] > 64)
        return iter_fail(g, "unstack '%s': axis %d of rank %d", name, axis, in->rank);
    int64_t dom[ITER_MAX_RANK] = {0}, shape[ITER_MAX_RANK] = {0};
    unsigned omap[ITER_MAX_RANK];
    for (int d = 0, k = 0; d < in->rank; d++) {
        dom[d] = in->shape[d];
        if (d != axis) {
            shape[k] = in->shape[d];
            omap[k++] = BIT(d);
        }
    }
    dom[axis] = 1;
    iter_nest v;
    vinit(&v, name, ITER_UNSTACK, in->rank, dom);
    v.axis = axis;
    v.fixed = BIT(axis);
    for (int d = 0; d < in->rank; d++)
        set_name(v.dim[d], in->dim[d]);
    unsigned in_map[1][ITER_MAX_RANK];
    identity(in->rank, in_map[0]);
    const iter_tensor *ins[1] = {in};
    int id = finish(g, &v, 1, ins, in_map);
    for (int i = 0; id >= 0 && i < in->shape[axis]; i++)
        make_out(&out[i], id, i, in->rank - 1, shape, omap, &v);
    return id;
}

int nest_ravel(iter_space *g, const char *name, const iter_tensor *in, iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, in, 0) < 0)
        return -1;
    iter_nest v;
    vinit(&v, name, ITER_RAVEL, in->rank, in->shape);
    v.contiguous = 1;
    int64_t total = 1;
    unsigned all = 0;
    for (int d = 0; d < in->rank; d++) {
        set_name(v.dim[d], in->dim[d]);
        total *= in->shape[d];
        all |= BIT(d);
    }
    unsigned in_map[1][ITER_MAX_RANK];
    identity(in->rank, in_map[0]);
    const iter_tensor *ins[1] = {in};
    int id = finish(g, &v, 1, ins, in_map);
    if (id >= 0)
        make_out(out, id, 0, 1, &total, &all, &v);
    return id;
}

int nest_unravel(iter_space *g, const char *name, const iter_tensor *in, int rank,
                 const int64_t *shape, const char *dims, iter_tensor *out)
{
    if (!ok_graph(g) || check_tensor(g, name, in, 1) < 0)
        return -1;
    int64_t total = 1;
    for (int d = 0; d < rank && d < ITER_MAX_RANK; d++)
        total *= shape[d];
    if (rank < 1 || rank > ITER_MAX_RANK || total != in->shape[0])
        return iter_fail(g, "unravel '%s': %lld elements into rank %d", name,
                               (long long)in->shape[0], rank);
    iter_nest v;
    vinit(&v, name, ITER_UNRAVEL, rank, shape);
    v.contiguous = 1;
    size_t nd = dims ? strlen(dims) : 0;
    unsigned all = 0;
    for (int d = 0; d < rank; d++) {
        char nm[2] = {(size_t)d < nd ? dims[d] : (char)('a' + d), '\0'};
        set_name(v.dim[d], nm);
        all |= BIT(d);
    }
    unsigned in_map[1][ITER_MAX_RANK] = {{all}};
    const iter_tensor *ins[1] = {in};
    int id = finish(g, &v, 1, ins, in_map);
    if (id >= 0) {
        unsigned omap[ITER_MAX_RANK];
        identity(rank, omap);
        make_out(out, id, 0, rank, shape, omap, &v);
    }
    return id;
}

