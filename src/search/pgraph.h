/*
 * pgraph.h - the graph the partition searches work on: one node per
 * weighted layer (conv, FC) or join (add, concat), in topological order,
 * and one edge per data dependency between them.  Shape-preserving ops in
 * between (ReLU, pooling, batch norm, LRN, dropout, flatten, softmax) are
 * folded into the edge: the edge carries the tensor as the consumer reads
 * it, which is where a layout conversion is cheapest to make.
 */
#ifndef DNNPAR_PGRAPH_H
#define DNNPAR_PGRAPH_H

#include "dnnpar.h"

typedef struct {
    int op;              /* index in the dnp_graph */
    int weighted;        /* 1: conv / FC (types I, II, III); 0: join (layouts) */
    int is_fc;
    unsigned char types; /* states the search may give it (bit t = type t): all three,
                          * or only Type-I for an LSTM (see pgraph.c) */
    double flop;         /* forward + backward + gradient, whole batch (Table 6); a
                          * join's work splits with its batch and output shares */
    double w_elems;      /* A(W) */
    double fin_elems;    /* A(F_l), whole batch (sum over inputs for joins) */
    double fout_elems;   /* A(F_l+1), whole batch */
} pnode;

typedef struct {
    int u, v;            /* producer and consumer node */
    double elems;        /* tensor on the edge as v reads it, whole batch */
} pedge;

typedef struct {
    int n_nodes, n_edges;
    pnode *nodes;
    pedge *edges;        /* sorted by consumer v, then by input position */
    int *in_start;       /* edges into v: in_start[v] .. in_start[v+1]-1 */
    int *last_use;       /* largest consumer index of each node (itself if none) */
} pgraph;

/* Build the search graph of `g` for `batch`.  On success fills *pg (free
 * with pgraph_free).  Fails with DNP_ERR_INPUT if the model has no weighted
 * layer.  O(ops + edges * depth of folded chains). */
dnp_status pgraph_build(const dnp_graph *g, int64_t batch, pgraph *pg, dnp_error *err);
void pgraph_free(pgraph *pg);

/* For every op of g (built into pg): the search-graph node whose work it
 * belongs to: its own node for planned ops, else its first input's owner
 * (an op folded into an edge acts on its producer's output), or -1 for ops
 * that precede every planned op.  owner has dnp_graph_n_ops(g) entries.
 * node_of_op (may be NULL) gets each op's own node or -1.  O(ops). */
void pgraph_owners(const pgraph *pg, const dnp_graph *g, int *owner, int *node_of_op);

#endif
