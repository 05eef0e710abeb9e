/*
 * onnx_tensors.h - the ONNX importer's table of named tensors: their full
 * shapes (batch axis included), whether they carry activations (depend on
 * the model's data inputs), parameters or constants, and the values of
 * small integer constants, which shape arithmetic (Shape -> Gather ->
 * Reshape) needs folded at import time.
 */
#ifndef DNNPAR_ONNX_TENSORS_H
#define DNNPAR_ONNX_TENSORS_H

#include <stddef.h>
#include <stdint.h>

#define OT_MAX_RANK 8
#define OT_MAX_VALUES 64 /* integer constants longer than this are not folded */

typedef enum {
    OT_UNKNOWN = 0,
    OT_ACT,   /* an activation: depends on the data inputs; produced by IR op `op` */
    OT_PARAM, /* a trainable parameter (initializer or weight graph input), or derived from one */
    OT_CONST  /* a constant (Constant node, integer initializer, shape arithmetic) */
} ot_kind;

/* What an axis of an activation means (docs/onnx.md, "Axes"), tracked by
 * src/model/onnx_axes.c.  OT_ROLE_NONE: not inferable (an inserted unit
 * axis, a mix). */
typedef enum {
    OT_ROLE_NONE = 0,
    OT_ROLE_BATCH,    /* the batch itself (the axis is exactly the batch) */
    OT_ROLE_CHANNEL,  /* channels of an image (C of NCHW / NHWC) */
    OT_ROLE_SPATIAL,  /* height or width of an image */
    OT_ROLE_SEQUENCE, /* positions of a sequence */
    OT_ROLE_FEATURE,  /* features a layer contracts or produces */
    OT_ROLE_HEAD      /* attention heads (the outer piece of a split feature axis) */
} ot_role;

typedef struct {
    const char *name; /* borrowed from the protobuf message */
    ot_kind kind;
    int rank;         /* -1 when the shape is unknown */
    int64_t dims[OT_MAX_RANK];
    int op;           /* OT_ACT: index of the IR op that produces it */
    int n_vals;       /* OT_CONST: number of known integer values (0 = unknown) */
    int64_t vals[OT_MAX_VALUES];
    int64_t train_elems; /* OT_PARAM derived from a smaller parameter (gathered by constant
                          * indices, expanded): the trainable elements behind it; 0 = its
                          * own element count */
    int has_f;        /* a known floating-point scalar */
    double f;
    /* OT_ACT only: named axes and where the batch is.  Axis `bax` holds
     * the batch, alone (dims[bax] == the batch, role OT_ROLE_BATCH) or as
     * a factor of a merged axis (e.g. sequence x batch), where it has
     * stride `bstride` inside the axis and role[bax] names the other
     * factor.  bax = -1: no batch axis (a rank-0 data input, or a batch of
     * 1 squeezed away); the whole tensor is then one sample. */
    signed char role[OT_MAX_RANK];
    int bax;
    int64_t bstride;
} ot_tensor;

typedef struct {
    ot_tensor *t;
    int n, cap;
    int *slots; /* open-addressing hash of names to indices, -1 empty */
    int n_slots;
} ot_table;

/* Create / free.  Returns -1 on allocation failure. */
int ot_init(ot_table *tab, int expected);
void ot_free(ot_table *tab);
/* The tensor called `name`, or NULL.  O(1) expected. */
ot_tensor *ot_find(ot_table *tab, const char *name);
/* The tensor called `name`, created (OT_UNKNOWN, rank -1) if absent; NULL
 * on allocation failure.  The pointer is valid until the next ot_get. */
ot_tensor *ot_get(ot_table *tab, const char *name);

/* Number of elements (1 for rank 0), or -1 if unknown or over 2^62. */
int64_t ot_numel(const ot_tensor *t);
/* Numpy-style broadcast of two shapes; returns the rank or -1 if they do
 * not broadcast. */
int ot_broadcast(const ot_tensor *a, const ot_tensor *b, int64_t *dims);
/* Normalise an axis against rank (negative counts from the end); -1 if
 * out of range. */
int ot_axis(int64_t axis, int rank);

#endif
