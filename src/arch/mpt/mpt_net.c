/*
 * mpt_net.c - from a graph to the layers MPT times: which convolutions the
 * Winograd layer serves, which are followed by a ReLU (activation
 * prediction applies, Sec. V), and which are joined in the Winograd domain
 * (FractalNet's modified join, Fig. 14).
 */
#include "arch/mpt/mpt_model.h"
#include "model/graph_named.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Consumers of every op, as index lists. */
typedef struct {
    int *count, *start, *list;
} consumers;

static int consumers_build(const dnp_graph *g, consumers *c)
{
    int n = dnp_graph_n_ops(g), total = 0;
    c->count = dnp_calloc((size_t)n + 1, sizeof *c->count);
    c->start = dnp_calloc((size_t)n + 1, sizeof *c->start);
    for (int i = 0; i < n && c->count; i++)
        total += dnp_graph_op(g, i)->n_inputs;
    c->list = dnp_calloc((size_t)total + 1, sizeof *c->list);
    if (!c->count || !c->start || !c->list)
        return 0;
    for (int i = 0; i < n; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        for (int k = 0; k < op->n_inputs; k++)
            c->count[op->inputs[k]]++;
    }
    for (int i = 1; i <= n; i++)
        c->start[i] = c->start[i - 1] + c->count[i - 1];
    int *fill = dnp_calloc((size_t)n + 1, sizeof *fill);
    if (fill == NULL)
        return 0;
    for (int i = 0; i < n; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        for (int k = 0; k < op->n_inputs; k++) {
            int p = op->inputs[k];
            c->list[c->start[p] + fill[p]++] = i;
        }
    }
    dnp_free(fill);
    return 1;
}

static void consumers_free(consumers *c) { dnp_free(c->count), dnp_free(c->start), dnp_free(c->list); }

/* Every path from op i through batch norm, dropout and adds reaches a ReLU
 * (and at least one path exists). */
static int relu_follows(const dnp_graph *g, const consumers *c, int i, int depth)
{
    if (c->count[i] == 0 || depth > 64)
        return 0;
    for (int k = 0; k < c->count[i]; k++) {
        int q = c->list[c->start[i] + k];
        dnp_op_kind kind = dnp_graph_op(g, q)->kind;
        if (kind == DNP_OP_RELU)
            continue;
        if ((kind == DNP_OP_BATCHNORM || kind == DNP_OP_DROPOUT || kind == DNP_OP_ADD) &&
            relu_follows(g, c, q, depth + 1))
            continue;
        return 0;
    }
    return 1;
}

static int wino_kernel(int kh, int kw)
{
    return (kh == 3 && kw == 3) || (kh == 5 && kw == 5) || (kh == 3 && kw == 1) ||
           (kh == 1 && kw == 3);
}

/* The layer of op; in: the view of its input (dnp_op_in_view). */
static void layer_of(const dnp_op *op, dnp_shape in, mpt_layer *l)
{
    const dnp_shape ov = dnp_op_out_view(op);
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", op->name);
    l->join_id = -1;
    l->join_size = 1;
    l->groups = op->groups > 0 ? op->groups : 1;
    if (op->kind == DNP_OP_FC) {
        l->fc = 1;
        l->in_c = (int)(in.c * in.h * in.w);
        l->out_c = (int)ov.c;
        l->in_h = l->in_w = l->out_h = l->out_w = 1;
        l->k_h = l->k_w = l->stride = 1;
        return;
    }
    l->in_c = (int)in.c;
    l->out_c = (int)ov.c;
    l->in_h = (int)in.h;
    l->in_w = (int)in.w;
    l->out_h = (int)ov.h;
    l->out_w = (int)ov.w;
    l->k_h = op->kh;
    l->k_w = op->kw;
    l->stride = op->sh > op->sw ? op->sh : op->sw;
    l->pad_h = op->ph;
    l->pad_w = op->pw;
    l->wino = op->sh == 1 && op->sw == 1 && l->groups == 1 && wino_kernel(op->kh, op->kw);
}

/* Leaves of the add chain at op i: eligible convs reached through adds and
 * batch norms that feed nothing else.  Returns the count, or -1 if a leaf
 * is anything else. */
static int join_leaves(const dnp_graph *g, const consumers *c, const int *layer_of_op,
                       const mpt_layer *layers, int i, int *out, int cap, int depth)
{
    const dnp_op *op = dnp_graph_op(g, i);
    if (depth > 64)
        return -1;
    if (op->kind == DNP_OP_CONV) {
        int l = layer_of_op[i];
        if (l < 0 || !layers[l].wino || c->count[i] != 1 || cap < 1)
            return -1;
        out[0] = l;
        return 1;
    }
    if (op->kind == DNP_OP_BATCHNORM && c->count[i] == 1)
        return join_leaves(g, c, layer_of_op, layers, op->inputs[0], out, cap, depth + 1);
    if (op->kind != DNP_OP_ADD || (depth > 0 && c->count[i] != 1))
        return -1;
    int total = 0;
    for (int k = 0; k < op->n_inputs; k++) {
        int got = join_leaves(g, c, layer_of_op, layers, op->inputs[k], out + total,
                              cap - total, depth + 1);
        if (got < 0)
            return -1;
        total += got;
    }
    return total;
}

/* Mark Winograd-domain joins: adds at the top of an add chain (no add
 * consumes them) whose leaves are all eligible convs of one output shape. */
static int mark_joins(const dnp_graph *g, const consumers *c, const int *layer_of_op,
                      mpt_layer *layers, int n_layers)
{
    int joins = 0;
    int *leaves = dnp_malloc(sizeof *leaves * ((size_t)n_layers + 1));
    if (leaves == NULL)
        return -1;
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        if (dnp_graph_op(g, i)->kind != DNP_OP_ADD)
            continue;
        int top = 1;
        for (int k = 0; k < c->count[i]; k++)
            top &= dnp_graph_op(g, c->list[c->start[i] + k])->kind != DNP_OP_ADD;
        if (!top)
            continue;
        int n = join_leaves(g, c, layer_of_op, layers, i, leaves, n_layers, 0);
        if (n < 2)
            continue;
        int same = 1;
        for (int k = 1; k < n; k++)
            same &= layers[leaves[k]].out_c == layers[leaves[0]].out_c &&
                    layers[leaves[k]].out_h == layers[leaves[0]].out_h &&
                    layers[leaves[k]].out_w == layers[leaves[0]].out_w &&
                    layers[leaves[k]].k_h == layers[leaves[0]].k_h &&
                    layers[leaves[k]].k_w == layers[leaves[0]].k_w;
        if (!same)
            continue;
        for (int k = 0; k < n; k++) {
            layers[leaves[k]].join_id = joins;
            layers[leaves[k]].join_size = n;
        }
        joins++;
    }
    dnp_free(leaves);
    return joins;
}

dnp_status mpt_net_from_graph(const dnp_graph *g, mpt_net *out, dnp_error *err)
{
    dnp_status refused = graph_named_refuse(g, "MPT", err);
    if (refused != DNP_OK)
        return refused;
    int n_ops = dnp_graph_n_ops(g), n = 0;
    for (int i = 0; i < n_ops; i++)
        n += dnp_op_is_weighted(dnp_graph_op(g, i));
    mpt_net net;
    memset(&net, 0, sizeof net);
    snprintf(net.name, sizeof net.name, "%s", dnp_graph_name(g));
    consumers c = {0};
    net.layers = dnp_calloc((size_t)n + 1, sizeof *net.layers);
    int *layer_of_op = dnp_malloc(sizeof *layer_of_op * ((size_t)n_ops + 1));
    if (net.layers == NULL || layer_of_op == NULL || !consumers_build(g, &c)) {
        dnp_free(net.layers);
        dnp_free(layer_of_op);
        consumers_free(&c);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory reading model '%s'", dnp_graph_name(g));
        return DNP_ERR_NOMEM;
    }
    for (int i = 0; i < n_ops; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        layer_of_op[i] = -1;
        if (!dnp_op_is_weighted(op))
            continue;
        layer_of(op, dnp_op_in_view(g, i), &net.layers[net.n]);
        net.layers[net.n].relu_after = relu_follows(g, &c, i, 0);
        layer_of_op[i] = net.n++;
    }
    net.n_joins = mark_joins(g, &c, layer_of_op, net.layers, net.n);
    dnp_free(layer_of_op);
    consumers_free(&c);
    if (net.n_joins < 0) {
        dnp_free(net.layers);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory reading model '%s'", dnp_graph_name(g));
        return DNP_ERR_NOMEM;
    }
    if (net.n == 0) {
        dnp_free(net.layers);
        dnp_error_set(err, DNP_ERR_INPUT, "model '%s' has no convolution or FC layer",
                      dnp_graph_name(g));
        return DNP_ERR_INPUT;
    }
    *out = net;
    return DNP_OK;
}
