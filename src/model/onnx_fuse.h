/*
 * onnx_fuse.h - load-time fusion of what an ONNX exporter decomposed
 * (docs/onnx.md, "Fusion"): a layer norm written as ReduceMean, Sub, Pow,
 * ReduceMean, Add eps, Sqrt, Div, Mul scale, Add shift; GELU written with
 * Erf (or Tanh); a MatMul's bias written as a separate Add.  PyTorch and
 * Megatron-LM run each as one kernel, so the IR gets the one op it has for
 * it (DNP_OP_LAYERNORM, a "Gelu" element-wise op, an FC with its bias).
 *
 * The importer (onnx_load.c) records, per IR op, the facts the IR does
 * not keep (the constant operand of an element-wise op, which axes a
 * ReduceMean reduces); onnx_fuse() matches the patterns on the IR and
 * these facts, and rebuilds the graph.
 */
#ifndef DNNPAR_ONNX_FUSE_H
#define DNNPAR_ONNX_FUSE_H

#include "dnnpar/model.h"

#include <stdint.h>

/* What the importer knew about IR op i when it made it.  Zero for ops it
 * made without a note (views, inputs): such an op matches no pattern. */
typedef struct {
    unsigned char noted;    /* 1 when the fields below were filled */
    unsigned char red_last; /* ReduceMean over exactly the last axis, keepdims = 1 */
    unsigned char c_pos;    /* one-activation binary op: the other operand's position,
                             * 1 (first) or 2 (second); 0 = not such an op */
    unsigned char c_has_f;  /* the other operand is a known floating-point scalar c_f */
    unsigned char c_param;  /* the other operand is a trainable parameter */
    double c_f;
    int64_t c_numel;        /* the other operand's elements */
    int64_t c_last;         /* its last axis (1 for a scalar) */
    int64_t out_last;       /* the op's output: last axis (1 for a scalar) */
} onnx_fuse_note;

/* What onnx_fuse() replaced. */
typedef struct {
    int layer_norms; /* decomposed layer norms -> one DNP_OP_LAYERNORM each */
    int gelus;       /* decomposed GELUs (erf or tanh form) -> one "Gelu" element-wise op */
    int bias_adds;   /* bias Adds after a MatMul -> the FC's bias */
} onnx_fuse_counts;

/* Match the patterns of docs/onnx.md ("Fusion") on g, whose op i the
 * importer described in notes[i] (n_notes >= dnp_graph_n_ops(g)).  When
 * something matched, *out receives a new graph (named and noted as g,
 * owned by the caller: dnp_graph_free) in which each match is one op whose
 * parameters are the sum of the ops it replaces (so dnp_graph_totals'
 * parameter count is unchanged), and every other op as in g, in g's order;
 * otherwise *out is NULL.  Counts go to *counts.  Returns 0, or -1 on
 * allocation failure or a builder error (its text in err_msg, err_len
 * bytes).  g is only read.  O(ops + edges). */
int onnx_fuse(const dnp_graph *g, const onnx_fuse_note *notes, int n_notes, dnp_graph **out,
              onnx_fuse_counts *counts, char *err_msg, size_t err_len);

#endif
