/*
 * row_ops.h - the ops that need every channel of a sample whole: a softmax
 * over the classes (or the last axis), a layer norm over the features of
 * each position, an LRN over neighbouring channels.  Split over the axis
 * they normalise, each device would hold part of every sample's row and
 * the op would need a reduction across the devices: a collective neither
 * the step simulator (src/sim/lower.c) nor the executor (run-torch,
 * python/dnnpar_torch/execute.py check_row_ops, model.py ROW) has.  Under
 * the default model both searches keep such a row whole (docs/pase.md "Row
 * ops"): AccPar's (search/plan.c row_op_states) and PaSE's
 * (search/pase/pase_rows.c).  This is the rule's one definition.
 * Internal to libdnnpar.
 */
#ifndef DNNPAR_ROW_OPS_H
#define DNNPAR_ROW_OPS_H

#include "dnnpar/model.h"

/* 1 if ops of kind k normalise over a sample's channels (softmax, layer
 * norm, LRN), else 0.  O(1). */
int row_op_kind(dnp_op_kind k);

/* The op whose layout op i receives and whose output channels must stay
 * whole for it: the decider (dnp_graph_decider) of op i when op i is of a
 * row kind; -1 when op i is not (or has no decider, or is out of range).
 * The executor refuses a strategy that gives this op a split of its output
 * channels (Type-III, or a join's channel layout) at any level.  O(1). */
int row_op_decider(const dnp_graph *g, int i);

/* 1 if op d of g is the decider of some op of a row kind (its output
 * channels must stay whole), else 0.  O(ops). */
int row_op_keeps_channels(const dnp_graph *g, int d);

#endif
