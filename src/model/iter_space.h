/*
 * iter_space.h - the iteration spaces of a core graph's ops (the one IR's
 * einsum view; docs/pase.md "Iteration spaces").  Internal to libdnnpar.
 *
 * Every op of a dnp_graph that does work has one or more loop nests: its
 * domain (named loop dimensions and their extents for a batch) and, for
 * each tensor it reads, the map from that tensor's dimensions onto the
 * domain.  A point-wise op has none of its own: its work is fused into the
 * nest of its producer (the op's carrier).  Nests are derived from the
 * graph by one rule per op kind (iter_rules.c) and owned by the op they
 * come from, in graph order: an op's nests are nest[nest_start[i] ..
 * nest_start[i+1]-1], and every nest names its op.  A flatten is two
 * nests (Ravel + Unravel), the selects of one tensor along one axis share
 * one Unstack nest (owned by the first select); the rest have one.
 *
 * The reads (tensor u -> v) follow the graph's inputs: a nest reads its
 * op's input k as the nest that produced that tensor left it, or the
 * previous nest of its own op.  They are derived with the nests, kept in
 * read[], and never built any other way: there is no graph here to build,
 * only the core graph's ops seen as loop nests.  PaSE's search (src/search/
 * pase) binds an iteration space to devices (pase_problem) and prices it
 * with the prototype's Eq. 1 or with the shared performance model.
 */
#ifndef DNNPAR_ITER_SPACE_H
#define DNNPAR_ITER_SPACE_H

#include "dnnpar/model.h"

#include <stdint.h>

#define ITER_MAX_RANK 8 /* dimensions of a domain or a tensor */
#define ITER_NAME_LEN 64

/* Cost forms of a loop nest, named as the prototype's classes (its CSV
 * `type` column; the PaSE reference README "Layer costs"). */
typedef enum {
    ITER_CONV = 0,
    ITER_FC,
    ITER_POOL,
    ITER_ELEMWISE,
    ITER_NORM,
    ITER_REDUCE_MEAN,
    ITER_SOFTMAX,
    ITER_SCE, /* softmax cross-entropy */
    ITER_EINSUM,
    ITER_LSTM,
    ITER_CONCAT,
    ITER_STACK,
    ITER_UNSTACK,
    ITER_RAVEL,
    ITER_UNRAVEL,
    ITER_SLICE, /* slice or pad: data movement onto a smaller or larger domain (ours) */
    ITER_GROUP_CONV, /* grouped or depthwise convolution (ours, docs/pase.md) */
    ITER_KIND_COUNT
} iter_kind;

/* "Conv", "FC", "Pooling", ... as in the reference CSVs.  O(1). */
const char *iter_kind_name(iter_kind k);

/* One loop nest: its domain and the parameters of its cost. */
typedef struct {
    char name[ITER_NAME_LEN];        /* its op's name; "<op>.ravel" / "<op>.unravel" for a
                                      * flatten's two nests, the selects' base for Unstack */
    iter_kind kind;
    int rank;                        /* dimensions of the domain */
    int64_t dom[ITER_MAX_RANK];      /* extent of each dimension */
    char dim[ITER_MAX_RANK][4];      /* dimension names, e.g. b c h w r s n */
    unsigned fixed;                  /* bit d: dimension d is never split */
    int pow2;                        /* splits only by powers of two (a dnnpar strategy's
                                      * binary levels; pase_restrict_to_strategy) */
    int contiguous;                  /* ravel / unravel: contiguous splits only */
    int batch_dim;                   /* the mini-batch dimension, -1 if none */
    int model_dim;                   /* what expert strategies split for model
                                      * parallelism (FC n, vocabulary, heads,
                                      * feed-forward), -1 if none */
    int pw;                          /* fused point-wise ops (GEMMs, element-wise) */
    int axis;                        /* norm / softmax axis */
    unsigned axes;                   /* reduce-mean axes (bit mask) */
    int win_r, win_s;                /* pooling window */
    int64_t in_h, in_w;              /* pooling: input spatial sizes */
    unsigned gemm_b, gemm_m, gemm_n, gemm_k; /* GEMM roles of the dims (masks) */
    int owner;                       /* the core op whose rule made this nest */
    int op;                          /* the core op this nest is the iteration space of
                                      * (its carrier: the owner, or the select an Unstack
                                      * serves), -1 for a stage before it (the Ravel and
                                      * Unravel an FC flattens its input with, a flatten's
                                      * Ravel) */
} iter_nest;

/* A tensor as the rules pass it around: its shape and, per dimension,
 * the producing nest's domain dimensions whose splits multiply to that
 * dimension's split (mask 0: never split). */
typedef struct {
    int nest;                        /* producer, -1 for a graph input */
    int port;                        /* producer's output index */
    int rank;
    int64_t shape[ITER_MAX_RANK];
    unsigned map[ITER_MAX_RANK];
    char dim[ITER_MAX_RANK][4];
} iter_tensor;

/* Nest dst reading one tensor that nest src produced. */
typedef struct {
    int src, dst;                    /* nest ids */
    int src_port, dst_port;          /* output index of src, input index of dst */
    int rank;
    int64_t shape[ITER_MAX_RANK];
    unsigned src_map[ITER_MAX_RANK]; /* tensor dim -> src domain dims (mask) */
    unsigned dst_map[ITER_MAX_RANK]; /* tensor dim -> dst domain dims (mask) */
} iter_read;

typedef struct {
    const dnp_graph *core;           /* the graph (borrowed, or core_owned) */
    dnp_graph *core_owned;           /* freed with the space (pase_model_build) */
    int64_t batch;                   /* the batch the extents are for */
    int n_nest, cap_nest;
    iter_nest *nest;
    int n_read, cap_read;
    iter_read *read;
    char err[256];                   /* first rule error, "" if none */
    /* Per core op (n_core of them): the nests it owns (nest_start[i] ..
     * nest_start[i+1]-1); the nest that carries its work (its own last, or
     * the producer a point-wise op is fused into; -1 for inputs) and the
     * carrier's domain dims its output spans.  Per nest: the core ops it
     * carries (ops[op_start[v] .. op_start[v+1]-1]). */
    int n_core;
    int *nest_start;
    int *carrier;
    unsigned *carrier_mask;
    int *op_start, *ops;
} iter_space;

/* The iteration spaces of g's ops for `batch` (one rule per op kind,
 * iter_rules.c; docs/pase.md "Iteration spaces").  Unknown or unsupported
 * op kinds fail with DNP_ERR_INPUT naming the op.  The space borrows g:
 * g must outlive it, or be handed over as core_owned.  O(ops + inputs). */
dnp_status iter_space_build(const dnp_graph *g, int64_t batch, iter_space **out,
                            dnp_error *err);
/* Free s and everything it owns (core_owned included); NULL is a no-op.
 * O(1). */
void iter_space_free(iter_space *s);
/* The graph's name.  O(1). */
const char *iter_space_name(const iter_space *s);

#endif
