/*
 * row_ops.c - the ops that need every channel of a sample whole, and the
 * ops whose output they receive (row_ops.h; docs/pase.md "Row ops").
 */
#include "model/row_ops.h"

int row_op_kind(dnp_op_kind k)
{
    return k == DNP_OP_SOFTMAX || k == DNP_OP_LAYERNORM || k == DNP_OP_LRN;
}

int row_op_decider(const dnp_graph *g, int i)
{
    if (g == NULL || i < 0 || i >= dnp_graph_n_ops(g) || !row_op_kind(dnp_graph_op(g, i)->kind))
        return -1;
    return dnp_graph_decider(g, i);
}

int row_op_keeps_channels(const dnp_graph *g, int d)
{
    if (g == NULL || d < 0)
        return 0;
    for (int i = 0; i < dnp_graph_n_ops(g); i++)
        if (row_op_decider(g, i) == d)
            return 1;
    return 0;
}
