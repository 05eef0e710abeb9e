/*
 * layer_table.h - what a strategy decides over, as AccPar's search and
 * the simulator's lowering read a model (the strategy layer, src/plan,
 * below both): one row per deciding op of the core graph
 * (dnp_graph_decider: a weighted layer or a join), with the per-layer
 * figures of Tables 4-6 for the batch, and one
 * exchange per input of a deciding op that another deciding op produces
 * (Table 5's inter-layer transfers).  Rows and exchanges are indices into
 * the core graph, in its order; the one-input ops in between (ReLU,
 * pooling, batch norm, LRN, dropout, flatten, softmax) follow their
 * decider's layout (dnnpar.h), so an exchange carries the tensor as the
 * consumer reads it, which is where a layout conversion is cheapest.
 */
#ifndef DNNPAR_LAYER_TABLE_H
#define DNNPAR_LAYER_TABLE_H

#include "dnnpar.h"

typedef struct {
    int op;              /* index in the dnp_graph */
    int weighted;        /* 1: conv / FC (types I, II, III); 0: join (layouts) */
    int is_fc;
    unsigned char types; /* states the search may give it (bit t = type t): all three,
                          * or only Type-I for an LSTM (see layer_table.c) */
    unsigned char no_channel; /* 1: a search may not split its output channels (Type-III,
                               * a join's channel layout): a softmax, layer norm or LRN
                               * follows it (search/plan.c, row_op_states); a given
                               * strategy may, as its own accounting chose */
    double flop;         /* forward + backward + gradient, whole batch (Table 6); a
                          * join's work splits with its batch and output shares */
    double w_elems;      /* A(W) */
    double fin_elems;    /* A(F_l), whole batch (sum over inputs for joins) */
    double fout_elems;   /* A(F_l+1), whole batch */
} layer_row;

typedef struct {
    int u, v;            /* producing and consuming row */
    double elems;        /* tensor as v reads it, whole batch */
} layer_xchg;            /* 16 bytes: the level costs' inner loop walks these */

typedef struct {
    int n_rows, n_xchg;
    layer_row *row;
    layer_xchg *xchg;    /* sorted by consumer v, then by input position k */
    int *in_start;       /* exchanges into v: in_start[v] .. in_start[v+1]-1 */
    int *xchg_input;     /* per exchange: the input of v's op it feeds */
    int *last_use;       /* largest consumer row of each row (itself if none) */
    int *row_of_op;      /* per op of the graph: its row, -1 if it decides nothing */
    int n_ops;
} layer_table;

/* The table of `g` for `batch`.  On success fills *lt (free with
 * layer_table_free).  Fails with DNP_ERR_INPUT if the model has no
 * weighted layer.  O(ops + inputs). */
dnp_status layer_table_build(const dnp_graph *g, int64_t batch, layer_table *lt, dnp_error *err);
void layer_table_free(layer_table *lt);

/* The row whose layout op i's work follows: its decider's
 * (dnp_graph_decider), -1 if it has none.  O(1). */
int layer_table_owner(const layer_table *lt, const dnp_graph *g, int i);

#endif
