/* layer_table.c - AccPar's per-layer table of a core graph (see layer_table.h). */
#include "plan/layer_table.h"

#include <stdlib.h>
#include <string.h>

void layer_table_free(layer_table *lt)
{
    if (lt == NULL)
        return;
    dnp_free(lt->row);
    dnp_free(lt->xchg);
    dnp_free(lt->in_start);
    dnp_free(lt->xchg_input);
    dnp_free(lt->last_use);
    dnp_free(lt->row_of_op);
    memset(lt, 0, sizeof *lt);
}

int layer_table_owner(const layer_table *lt, const dnp_graph *g, int i)
{
    int d = dnp_graph_decider(g, i);
    return d >= 0 && d < lt->n_ops ? lt->row_of_op[d] : -1;
}

dnp_status layer_table_build(const dnp_graph *g, int64_t batch, layer_table *lt, dnp_error *err)
{
    int n_ops = dnp_graph_n_ops(g);
    layer_table out = {0};
    dnp_status st = DNP_ERR_NOMEM;
    out.row_of_op = dnp_malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof *out.row_of_op);
    if (out.row_of_op == NULL)
        goto done;
    out.n_ops = n_ops;
    int n_rows = 0, n_xchg = 0, n_weighted = 0;
    for (int i = 0; i < n_ops; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        out.row_of_op[i] = -1;
        if (dnp_graph_decider(g, i) == i) {
            out.row_of_op[i] = n_rows++;
            n_xchg += op->n_inputs;
            n_weighted += dnp_op_is_weighted(op);
        }
    }
    if (n_weighted == 0) {
        layer_table_free(&out);
        dnp_error_set(err, DNP_ERR_INPUT, "model '%s' has no conv or fully connected layer to partition",
                      dnp_graph_name(g));
        return DNP_ERR_INPUT;
    }
    out.row = dnp_calloc((size_t)n_rows, sizeof *out.row);
    out.xchg = dnp_calloc((size_t)(n_xchg > 0 ? n_xchg : 1), sizeof *out.xchg);
    out.in_start = dnp_calloc((size_t)n_rows + 1, sizeof *out.in_start);
    out.xchg_input = dnp_calloc((size_t)(n_xchg > 0 ? n_xchg : 1), sizeof *out.xchg_input);
    out.last_use = dnp_calloc((size_t)n_rows, sizeof *out.last_use);
    if (!out.row || !out.xchg || !out.in_start || !out.xchg_input || !out.last_use)
        goto done;
    out.n_rows = n_rows;
    for (int i = 0; i < n_ops; i++) {
        int v = out.row_of_op[i];
        if (v < 0)
            continue;
        const dnp_op *op = dnp_graph_op(g, i);
        dnp_op_cost c;
        dnp_op_cost_get(g, i, batch, &c);
        layer_row *r = &out.row[v];
        r->op = i;
        r->weighted = dnp_op_is_weighted(op);
        r->is_fc = op->kind == DNP_OP_FC;
        /* An LSTM's Table 4 view holds for the batch split only: its
         * recurrence reads the whole hidden state at every position, so a
         * Type-II (input features) or Type-III (hidden units) split would
         * exchange partial gates or hidden states once per position, not
         * once per layer as AccPar's Tables 4-5 count (docs/model.md,
         * "Named axes"). */
        r->types = op->kind == DNP_OP_LSTM ? 1u : 7u;
        /* Table 6 counts the products of conv / FC layers, and of the
         * product of two activations (attention: matmul, or an einsum of
         * two activations); other joins are free. */
        r->flop = (r->weighted || op->kind == DNP_OP_MATMUL || op->kind == DNP_OP_EINSUM)
                      ? c.fwd_flop + c.bwd_flop + c.grad_flop
                      : 0.0;
        r->w_elems = (double)c.weight_elems;
        r->fout_elems = (double)c.out_elems;
        r->fin_elems = 0.0;
        out.in_start[v] = out.n_xchg;
        out.last_use[v] = v;
        for (int k = 0; k < op->n_inputs; k++) {
            const dnp_shape src = dnp_op_out_view(dnp_graph_op(g, op->inputs[k]));
            double elems = (double)batch * (double)(src.c * src.h * src.w);
            r->fin_elems += r->weighted ? 0.0 : elems;
            int u = layer_table_owner(&out, g, op->inputs[k]);
            if (u < 0)
                continue; /* read from the model input: sliced where it is read */
            out.xchg_input[out.n_xchg] = k;
            out.xchg[out.n_xchg++] = (layer_xchg){u, v, elems};
            out.last_use[u] = v;
        }
        if (r->weighted)
            r->fin_elems = (double)c.in_elems;
    }
    out.in_start[n_rows] = out.n_xchg;
    *lt = out;
    out = (layer_table){0};
    st = DNP_OK;
done:
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory building the layer table");
    layer_table_free(&out);
    return st;
}
