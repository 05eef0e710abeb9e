/*
 * onnx_axes.h - named axes of the ONNX importer's activations: which axis
 * holds the batch (alone or merged into a product such as sequence x batch
 * or batch x heads) and what the others are (channel, spatial, sequence,
 * feature, head), carried through the operators that move axes.  Per-sample
 * shapes, and so every FLOP and MAC count, are read through these
 * (docs/onnx.md, "Axes").  All functions are O(rank^2) with rank <= 8.
 */
#ifndef DNNPAR_ONNX_AXES_H
#define DNNPAR_ONNX_AXES_H

#include "model/onnx_tensors.h"

/* Name an activation input's axes: the batch on axis `bax` (-1: none);
 * rank 4 with the batch first is an image (N, C, H, W); integer ids are
 * (batch, sequence); a 3-D float tensor is (sequence, feature) around the
 * batch; the last axis of anything else is a feature axis. */
void ax_input(ot_tensor *t, int bax, int is_int);

/* 1 if the batch is alone on axis t->bax (dims[bax] == batch, not merged
 * with another factor). */
int ax_batch_alone(const ot_tensor *t, int64_t batch);

/* Per-sample dims and roles of activation t for a file batch of `batch`:
 * the batch axis is dropped when it is the batch alone, or divided by
 * `batch` when merged.  Writes up to t->rank entries; returns the
 * per-sample rank. */
int ax_per_sample(const ot_tensor *t, int64_t batch, int64_t *dims, signed char *roles);

/* 1 if t is an image with its channels last: (N, H, W, C), the batch alone
 * on axis 0, axes 1 and 2 spatial and the last a channel or feature axis. */
int ax_channel_last(const ot_tensor *t, int64_t batch);

/* 1 if t is viewed as an image N x C x H x W: rank 4, the batch alone on
 * axis 0, not channel-last. */
int ax_is_nchw(const ot_tensor *t, int64_t batch);

/* Output axis j of `out` is input axis src[j] of `in` (or new, -1): copy
 * the roles and move the batch axis.  out->rank must be set.  Returns 0,
 * or -1 if the batch axis is not carried over (dropped). */
int ax_remap(const ot_tensor *in, const int *src, ot_tensor *out);

/* Roles and batch axis of out = reshape(in) (out->dims set), by matching
 * the two shapes' row-major strides: the batch keeps its place among the
 * elements.  Returns 0, or -1 when the batch (if larger than 1) does not
 * fall inside one output axis (the reshape splits it). */
int ax_reshape(const ot_tensor *in, ot_tensor *out, int64_t batch);

/* Roles and batch axis of an element-wise op's broadcast output (out->rank
 * set) from the operands a and b, aligned from the right; either may be
 * a parameter or constant (no named axes). */
void ax_broadcast(const ot_tensor *a, const ot_tensor *b, ot_tensor *out);

/* "batch", "channel", ... for messages and documentation. */
const char *ax_role_name(int role);

#endif
