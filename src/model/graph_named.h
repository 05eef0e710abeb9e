/*
 * graph_named.h - ops on tensors with named axes (docs/models.md "Named
 * axes"): einsum (a contraction whose loop dims are named letters, PaSE's
 * einsum view), lstm, stack and select, and the shape-preserving ops
 * (add, relu, eltwise, layernorm, softmax) on such tensors.
 *
 * A named tensor has one letter per axis ("ble": batch, length,
 * embedding), exactly one of them 'b', the batch; the op stores the
 * letters in op->axes and the per-sample extents (every axis but 'b', in
 * order) in op->out_dims.  Its c x h x w view is c = the last per-sample
 * axis, h = the product of the others, w = 1, so every query of the IR
 * (sizes, costs, memory) works on it unchanged.
 *
 * Builders follow dnnpar.h's contract: they append one op, return its
 * index or -1 with the reason in the graph's error, O(rank) each.
 */
#ifndef DNP_GRAPH_NAMED_H
#define DNP_GRAPH_NAMED_H

#include "dnnpar/model.h"

/* 1 for the kinds only named tensors have (einsum, lstm, stack, select). */
int graph_named_kind(dnp_op_kind k);
/* 1 if op i of g has named axes or a named-only kind. */
int graph_named_op(const dnp_op *op);

/* The tensor of op: its rank (letters in op->axes), the letters, and the
 * extents with `batch` for 'b'.  0 for an op on the c x h x w view. */
int graph_named_shape(const dnp_op *op, int64_t batch, char *axes, int64_t *extents);

/* A graph input with named axes, e.g. axes "bl", dims {256}: dims are the
 * per-sample extents, the axes' order without 'b'. */
int graph_named_input(dnp_graph *g, const char *name, const char *axes, const int64_t *dims);
/* Lookup of ids (a named tensor of integers) in a vocab x width table: the
 * output is ids' axes plus width_axis; loops are the output's letters
 * then vocab_axis (PaSE's embedding einsum: one-hot x table). */
int graph_named_embedding(dnp_graph *g, const char *name, int ids, int64_t vocab, int64_t width,
                          char vocab_axis, char width_axis);
/* `layers` stacked LSTM layers of `units` on a (b, s, d) input with d ==
 * units (PyTorch nn.LSTM, batch_first); output as the input. */
int graph_named_lstm(dnp_graph *g, const char *name, int in, int64_t units, int layers);
/* Linear layer at every position of a named tensor: the last axis (letter
 * k) becomes `units` named out_axis; loops are the leading letters,
 * out_axis, k.  bias: a bias vector of `units`. */
int graph_named_fc(dnp_graph *g, const char *name, int in, int64_t units, char out_axis, int bias);
/* Einsum "A,B->O" on activation a and b, or (b < 0) on a and a weight B
 * whose letters' extents come from a and the output; letters in neither
 * input (only in B and O) take their extents from `letters` / `sizes`
 * (may be NULL if none).  O must hold 'b'; a summed letter must be in
 * both operands (as PaSE's einsum). */
int graph_named_einsum(dnp_graph *g, const char *name, const char *eq, int a, int b,
                       const char *letters, const int64_t *sizes);
/* n tensors of equal axes and extents stacked along a new axis `letter`
 * at position axis of the output. */
int graph_named_stack(dnp_graph *g, const char *name, int n, const int *in, int axis,
                      char letter);
/* Slice `index` of axis `axis` of in (not the batch); the axis is dropped. */
int graph_named_select(dnp_graph *g, const char *name, int in, int axis, int index);
/* A shape-preserving op (add, relu, dropout, eltwise, layernorm, softmax)
 * on named inputs of equal axes; param_elems as dnp_op_attrs. */
int graph_named_like(dnp_graph *g, const char *name, dnp_op_kind kind, int n, const int *in,
                     int64_t param_elems);
/* Name op i's loop dims (loops: one letter per iteration-space dim, ""
 * keeps the kind's defaults) and the dim expert strategies split for
 * model parallelism (0: the default).  Returns i or -1. */
int graph_named_annotate(dnp_graph *g, int i, const char *loops, char model_axis);

/* Per-sample weight elements and multiply-accumulates of a named-only
 * kind (graph.c's limits), in the view of its first input (graph_in_view);
 * 0, or -1 on int64 overflow.  O(rank). */
int graph_named_sizes(const dnp_op *op, dnp_shape in, int64_t *weight_elems, int64_t *macs);
/* dnp_op_cost_get's figures for a named-only kind (out's element counts
 * already set).  O(rank). */
void graph_named_cost(const dnp_graph *g, const dnp_op *op, int64_t batch, dnp_op_cost *out);

/* Consistency of op i's named fields (loaded from a file): axes (letters,
 * one 'b', as many per-sample ones as dims, the c x h x w view they
 * imply), the kind's fields (einsum equation whose output is the axes,
 * stack / select axis and index, lstm layers), inputs with named axes.
 * 0, or -1 with the reason in why.  O(rank x inputs). */
int graph_named_check(const dnp_graph *g, int i, char *why, size_t n);
/* The first check of graph_named_check on fields not yet in a graph: axes
 * (letters, one 'b') with `rank` per-sample dims (0: none given) imply the
 * view `out`.  0, or -1 with the reason in why.  O(rank). */
int graph_named_view_check(const char *axes, int rank, const int64_t *dims, dnp_shape out,
                           char *why, size_t n);

/* DNP_ERR_INPUT naming the first op of g whose kind `search` cannot plan
 * yet (einsum, lstm, stack, select), with the searches that can; DNP_OK
 * if none.  O(ops). */
dnp_status graph_named_refuse(const dnp_graph *g, const char *search, dnp_error *err);

#endif
