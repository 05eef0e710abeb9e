/*
 * strategy.h - one decided strategy, whatever decided it (issue 34 item 2;
 * docs/architecture.md "The strategy type"): a device mesh of named axes,
 * pipeline stages as device groups, and per op of the core graph, per
 * named loop dimension, the mesh axes it is split over, which tensors are
 * partial sums over which axes, and the op's stage.
 *
 * AccPar's tree (plan/tree.h) is an instance, held twice: whole, as the
 * strategy's *device groups* (the tree's nodes, each with its devices, its
 * halves, the share alpha of its first half and per op the loop dimension
 * it splits: what the simulator lowers, sim/lower.h), and as the mesh view
 * the exports read: one axis per tree level ("h0" outermost), of size 2,
 * with the share alpha of its first half and the devices of each type in
 * each half along the first path; Type-I splits b, Type-II c (the output
 * a partial sum), Type-III n (the input's gradient a partial sum); a
 * join's B / C layouts split b / c.  A
 * Megatron-LM configuration is another (sim/config3d_stages.h:
 * c3_strategy_of): axes ("data", "model") of sizes dp and tp, one stage
 * per pipeline stage, and per op what tensor parallelism splits (n, c,
 * heads, c of the MLP's point-wise ops, vocab, seq), with its schedule
 * (plan_schedule: micro-batch, interleave, recompute, ZeRO ...), which the
 * 3D lowering (sim/lower3d.h) reads back.
 *
 * Loop dimension names are the IR's (src/model/iter_space.h, graph_named.h):
 * "b" the batch, "c" input features / channels (and a point-wise op's
 * features), "n" output features, and for a transformer's tensor
 * parallelism "heads", "seq" and "vocab".
 *
 * This is plan/ (layer 5): it includes dnnpar.h only, so the simulator,
 * the searches and the exports all read it; AccPar's tree and its
 * conversion (plan_strategy_from_tree) are in plan/tree.h, which the
 * simulator does not include.  The strategy is caller-owned:
 * plan_strategy_free.
 */
#ifndef DNNPAR_PLAN_STRATEGY_H
#define DNNPAR_PLAN_STRATEGY_H

#include "dnnpar.h"

#define PLAN_MAX_AXES 16   /* mesh axes (bits of an axis mask) */
#define PLAN_AXIS_NAME 16  /* bytes of an axis name, "\0" included */
#define PLAN_DIM_NAME 8    /* bytes of a loop dimension name, "\0" included */
#define PLAN_MAX_SPLITS 4  /* loop dimensions one op splits */

/* One mesh axis.  `size` positions; a dimension split over it gives
 * position 0 the fraction `share` and the others (1 - share) / (size - 1)
 * (an even axis: 1 / size).  A tree level also records the devices of
 * each cluster type in each of its two halves (first path), so the share
 * per device type is share / devices of the half when the half is one
 * type; a mesh axis leaves `half_counts` zero. */
typedef struct {
    char name[PLAN_AXIS_NAME];
    int size;
    double share;
    int64_t half_counts[2][DNP_MAX_DEVICE_TYPES];
} plan_axis;

/* One pipeline stage: a device group of ranks [first_rank, first_rank +
 * n_ranks) in the cluster spec's order, the device types it holds (bit
 * k: the cluster's type k) and its transformer layers (0 without a
 * pipeline's layer split). */
typedef struct {
    int64_t first_rank, n_ranks;
    unsigned types;
    int layers;
} plan_stage;

/* A loop dimension and the mesh axes it is split over (bit k: axis k). */
typedef struct {
    char dim[PLAN_DIM_NAME];
    unsigned axes;
} plan_split;

/* What a strategy decides for one op. */
typedef struct {
    int op;                 /* index in the dnp_graph */
    int stage;              /* its pipeline stage */
    int weighted;           /* 1: the op holds weights the strategy splits (conv, FC,
                             * embedding, einsum); 0: a join or a point-wise op */
    int n_splits;
    plan_split split[PLAN_MAX_SPLITS];
    unsigned out_partial;   /* the output is a partial sum over these axes until
                             * reduced (Type-II, row-parallel) */
    unsigned wgrad_partial; /* the weight gradient is summed over these axes
                             * (Type-I, data parallelism) */
    unsigned igrad_partial; /* the input gradient is summed over these axes
                             * (Type-III, column-parallel) */
} plan_op;

/* What a device group does to one op, as a loop dimension (AccPar
 * section 3.2): a weighted op's Type-I splits the batch b (its weight
 * gradient then summed over the group's halves), Type-II the input
 * features c (its output a partial sum until reduced), Type-III the output
 * features n (its input gradient a partial sum), R nothing; a join's
 * layout B splits b, C its channels c (input and output alike), R
 * nothing.  A weighted op's code equals its dnp_ptype (plan_split_type). */
enum { PLAN_SPLIT_B = 0, PLAN_SPLIT_C = 1, PLAN_SPLIT_N = 2, PLAN_SPLIT_NONE = 3 };

/* One device group of a tree strategy (a node of AccPar's device tree).
 * Its halves are groups child[0] and child[1]; identical halves (same
 * devices, same shares) are one group (child[0] == child[1], `shared`
 * set), so a homogeneous tree of depth L has L + 1 groups.  The per-op
 * arrays have the strategy's n_ops entries (index: the op's entry in
 * ops[]). */
typedef struct {
    int64_t counts[DNP_MAX_DEVICE_TYPES]; /* devices of each cluster type in the group */
    int64_t n_dev;
    int depth;                /* 0 at the root */
    int child[2];             /* group indices; -1 at a leaf (one device) */
    int shared;
    double alpha;             /* share of child[0] of what the group splits (internal) */
    unsigned char *split;     /* [n_ops]: PLAN_SPLIT_* of each op (internal groups; all
                               * PLAN_SPLIT_NONE at a leaf) */
    double *fb, *fi, *fo;     /* [n_ops]: the shares of each op's batch, input and output
                               * dimensions the group holds (plan_strategy_derive_shares) */
} plan_group;

/* How a pipelined strategy runs its stages (docs/config3d.md, "The 3D
 * lowering"): what a Megatron-LM configuration decides beyond the mesh,
 * the stages and the ops' splits (sim/config3d_stages.h: c3_strategy_of
 * fills it; sim/lower3d.h reads it).  `set` 0: no schedule (a tree
 * strategy, or a mesh strategy no pipeline simulator reads). */
typedef struct {
    int set;
    int64_t microbatch;     /* samples per micro-batch */
    int interleave;         /* virtual stages (model chunks) per stage; 1: 1F1B */
    int gpipe;              /* 1: GPipe's order (all forwards, then all backwards) */
    int vp_group;           /* the interleaved order's micro-batch group; 0: the stages */
    int recompute;          /* dnp_recompute of every layer */
    int zero;               /* ZeRO stage over the "data" axis (0..3) */
    int grad_fp32;          /* 1: gradients reduced in fp32 */
    int overlap_grad, overlap_param, tp_overlap; /* dnp_config3d's overlaps */
    int listed_stages;      /* stages whose layer counts were chosen (a custom layout,
                             * stage[].layers); 0: the layers split evenly */
} plan_schedule;

typedef struct plan_strategy {
    int n_axes;
    plan_axis axis[PLAN_MAX_AXES];
    int n_stages;
    plan_stage *stage;      /* [n_stages] */
    int n_ops;
    plan_op *ops;           /* [n_ops], in graph order */
    int64_t batch;          /* samples per step (whole batch) */
    int n_groups;
    plan_group *group;      /* [n_groups], group 0 the root (all devices); 0 groups: no
                             * tree form (a mesh strategy) */
    unsigned char *group_split; /* the block the groups' split arrays point into */
    double *group_shares;   /* the block their fb, fi, fo point into */
    plan_schedule schedule; /* a pipeline's schedule (zero: none) */
} plan_strategy;

/* A strategy with room for n_ops ops (zeroed, n_ops set) and n_stages
 * stages (zeroed), no axes; NULL when out of memory.  Free with
 * plan_strategy_free.  O(n_ops + n_stages). */
plan_strategy *plan_strategy_new(int n_ops, int n_stages);
/* Free s and what it owns; NULL is a no-op.  O(1). */
void plan_strategy_free(plan_strategy *s);

/* Append an axis named `name` (truncated to PLAN_AXIS_NAME - 1 bytes) of
 * `size` positions, position 0's share `share`.  Returns its index, -1
 * when PLAN_MAX_AXES are taken.  O(1). */
int plan_strategy_add_axis(plan_strategy *s, const char *name, int size, double share);

/* Split loop dimension `dim` of o over axis `axis` as well (the entry is
 * created on first use).  Returns 0, -1 when o already splits
 * PLAN_MAX_SPLITS other dimensions or axis is out of range.  O(splits). */
int plan_op_split(plan_op *o, const char *dim, int axis);
/* The axes loop dimension `dim` of o is split over (0: none).  O(splits). */
unsigned plan_op_axes(const plan_op *o, const char *dim);
/* The axes o splits any dimension over.  O(splits). */
unsigned plan_op_all_axes(const plan_op *o);

/* The entry of graph op `op` in s, NULL if s decides nothing for it.
 * O(log n_ops): s->ops is in graph order. */
const plan_op *plan_strategy_find(const plan_strategy *s, int op);

/* The AccPar type (weighted: dnp_ptype) or join layout (cost/accpar_cost.h
 * `layout`) of split code `split`, and back.  O(1). */
static inline int plan_split_type(int weighted, int split)
{
    return weighted || split != PLAN_SPLIT_NONE ? split : 2 /* LAYOUT_REPL */;
}
static inline int plan_split_of_type(int weighted, int type)
{
    return weighted || type != 2 /* LAYOUT_REPL */ ? type : PLAN_SPLIT_NONE;
}

/* The one rule for the shares a half holds (AccPar section 3.2): the half
 * of a group that splits an op by `split` with `share` (alpha for the
 * first half, 1 - alpha for the second) holds the group's *fb, *fi, *fo
 * (the caller's copies, updated in place) times `share` on the dimension
 * split: b for PLAN_SPLIT_B, c (and a join's output channels) for
 * PLAN_SPLIT_C, n for PLAN_SPLIT_N; nothing for PLAN_SPLIT_NONE.  The
 * search (search/plan.c) and plan_strategy_derive_shares both use it, so
 * their shares are the same doubles.  O(1). */
void plan_split_shares(int weighted, int split, double share, double *fb, double *fi,
                       double *fo);

/* Room for n_groups device groups in s (s->n_ops per-op entries each;
 * zeroed, children -1, every split PLAN_SPLIT_NONE), replacing any.
 * Returns 0, -1 when out of memory (s then has no groups).  Three
 * allocations whatever n_groups.  O(n_groups x n_ops). */
int plan_strategy_alloc_groups(plan_strategy *s, int n_groups);
/* Fill every group's fb, fi, fo from the root down: 1 at the root, each
 * child its parent's through plan_split_shares at alpha (child[0]) or
 * 1 - alpha (child[1]).  Children must follow their parent in s->group
 * (plan_strategy_from_tree's order).  O(n_groups x n_ops). */
void plan_strategy_derive_shares(plan_strategy *s);
/* The mesh view of s's device groups (the exports read it): one axis
 * "h<k>" per group along the first path (child[0] at every level), size
 * 2, share the group's alpha, half_counts its halves' devices, and each
 * op split there over that axis by its split code (b, c or n; a weighted
 * op's partial sums: Type-I the weight gradient, Type-II the output,
 * Type-III the input gradient; a join's N is no split).  Nothing when s
 * has no groups or that path is longer than PLAN_MAX_AXES.  Appends to
 * s's axes (none expected).  O(levels x n_ops). */
void plan_strategy_mesh_of_groups(plan_strategy *s);

#endif
