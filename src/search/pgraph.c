/* pgraph.c - build the search graph from the IR (see pgraph.h). */
#include "search/pgraph.h"

#include <stdlib.h>
#include <string.h>

void pgraph_free(pgraph *pg)
{
    if (pg == NULL)
        return;
    dnp_free(pg->nodes);
    dnp_free(pg->edges);
    dnp_free(pg->in_start);
    dnp_free(pg->last_use);
    memset(pg, 0, sizeof *pg);
}

/* Follow single-input shape-preserving ops back from op `i` to the nearest
 * planned op; returns its node index, or -1 if the chain starts at an input. */
static int producer_node(const dnp_graph *g, const int *node_of_op, int i)
{
    for (;;) {
        if (node_of_op[i] >= 0)
            return node_of_op[i];
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->n_inputs == 0)
            return -1;
        i = op->inputs[0];
    }
}

dnp_status pgraph_build(const dnp_graph *g, int64_t batch, pgraph *pg, dnp_error *err)
{
    int n_ops = dnp_graph_n_ops(g);
    pgraph out = {0};
    int *node_of_op = dnp_malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof *node_of_op);
    dnp_status st = DNP_ERR_NOMEM;
    if (node_of_op == NULL)
        goto done;
    int n_nodes = 0, n_edges = 0, n_weighted = 0;
    for (int i = 0; i < n_ops; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        node_of_op[i] = -1;
        if (dnp_op_is_weighted(op) || dnp_op_is_join(op)) {
            node_of_op[i] = n_nodes++;
            n_edges += op->n_inputs;
            n_weighted += dnp_op_is_weighted(op);
        }
    }
    if (n_weighted == 0) {
        dnp_free(node_of_op);
        dnp_error_set(err, DNP_ERR_INPUT, "model '%s' has no conv or fully connected layer to partition",
                      dnp_graph_name(g));
        return DNP_ERR_INPUT;
    }
    out.nodes = dnp_calloc((size_t)n_nodes, sizeof *out.nodes);
    out.edges = dnp_calloc((size_t)(n_edges > 0 ? n_edges : 1), sizeof *out.edges);
    out.in_start = dnp_calloc((size_t)n_nodes + 1, sizeof *out.in_start);
    out.last_use = dnp_calloc((size_t)n_nodes, sizeof *out.last_use);
    if (!out.nodes || !out.edges || !out.in_start || !out.last_use)
        goto done;
    out.n_nodes = n_nodes;
    for (int i = 0; i < n_ops; i++) {
        int v = node_of_op[i];
        if (v < 0)
            continue;
        const dnp_op *op = dnp_graph_op(g, i);
        dnp_op_cost c;
        dnp_op_cost_get(g, i, batch, &c);
        pnode *pn = &out.nodes[v];
        pn->op = i;
        pn->weighted = dnp_op_is_weighted(op);
        pn->is_fc = op->kind == DNP_OP_FC;
        /* An LSTM's Table 4 view holds for the batch split only: its
         * recurrence reads the whole hidden state at every position, so a
         * Type-II (input features) or Type-III (hidden units) split would
         * exchange partial gates or hidden states once per position, not
         * once per layer as AccPar's Tables 4-5 count (docs/model.md,
         * "Named axes"). */
        pn->types = op->kind == DNP_OP_LSTM ? 1u : 7u;
        /* Table 6 counts the products of conv / FC layers, and of the
         * product of two activations (attention: matmul, or an einsum of
         * two activations); other joins are free. */
        pn->flop = (pn->weighted || op->kind == DNP_OP_MATMUL || op->kind == DNP_OP_EINSUM)
                       ? c.fwd_flop + c.bwd_flop + c.grad_flop
                       : 0.0;
        pn->w_elems = (double)c.weight_elems;
        pn->fout_elems = (double)c.out_elems;
        pn->fin_elems = 0.0;
        out.in_start[v] = out.n_edges;
        out.last_use[v] = v;
        for (int k = 0; k < op->n_inputs; k++) {
            const dnp_op *src = dnp_graph_op(g, op->inputs[k]);
            double elems = (double)batch * (double)(src->out.c * src->out.h * src->out.w);
            pn->fin_elems += pn->weighted ? 0.0 : elems;
            int u = producer_node(g, node_of_op, op->inputs[k]);
            if (u < 0)
                continue;
            out.edges[out.n_edges++] = (pedge){u, v, elems};
            out.last_use[u] = v;
        }
        if (pn->weighted)
            pn->fin_elems = (double)c.in_elems;
    }
    out.in_start[n_nodes] = out.n_edges;
    *pg = out;
    out = (pgraph){0};
    st = DNP_OK;
done:
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory building the search graph");
    pgraph_free(&out);
    dnp_free(node_of_op);
    return st;
}

void pgraph_owners(const pgraph *pg, const dnp_graph *g, int *owner, int *node_of_op)
{
    int n_ops = dnp_graph_n_ops(g);
    for (int i = 0; i < n_ops; i++)
        owner[i] = -1;
    for (int v = 0; v < pg->n_nodes; v++)
        owner[pg->nodes[v].op] = v;
    if (node_of_op != NULL)
        for (int i = 0; i < n_ops; i++)
            node_of_op[i] = owner[i];
    for (int i = 0; i < n_ops; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (owner[i] < 0 && op->n_inputs > 0 && op->inputs[0] < i)
            owner[i] = owner[op->inputs[0]];
    }
}
