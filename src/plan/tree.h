/*
 * tree.h - a decided strategy as the simulator reads it: the hierarchical
 * plan's binary tree of device groups with, at every internal node, the
 * share of its first half and each layer's partition type, and at every
 * node the shares of each layer its group holds (docs/time-model.md).
 *
 * This is the strategy layer between the searches (src/search, which
 * decide it) and the lowering (src/sim/lower.c, devcomm.c, which run it):
 * the lowering reads a plan_tree and nothing of the search that made it.
 * A search keeps its own figures at each node behind `ev` (AccPar's:
 * struct tnode_eval in search/plan_internal.h), opaque here.
 */
#ifndef DNNPAR_PLAN_TREE_H
#define DNNPAR_PLAN_TREE_H

#include "dnnpar.h"
#include "plan/layer_table.h"

struct tnode_eval;

/* One group of devices.  Its two halves are child[0] and child[1]; when
 * they are identical (same devices, same shares) child[1] == child[0] and
 * `shared` is set, so a homogeneous tree of depth L has L + 1 nodes.  The
 * per-row arrays have one entry per row of the plan's layer table. */
typedef struct tnode {
    int64_t counts[DNP_MAX_DEVICE_TYPES]; /* devices of each cluster type in the group */
    int64_t n_dev;
    int depth;
    struct tnode *child[2];
    int shared;
    /* decisions at this node (internal nodes only) */
    double alpha;        /* share of child[0] */
    int *types;          /* per row: a dnp_ptype for a weighted row, a layout for a join */
    /* shares of each layer this group holds: batch, input dim, output dim */
    double *fb, *fi, *fo;
    struct tnode_eval *ev; /* the deciding search's own figures (NULL: none) */
} tnode;

/* A decided strategy and what the lowering needs beside it, all borrowed
 * from its owner (a search's plan; search/plan.c: plan_tree_of). */
typedef struct {
    const char *model;          /* the model's name, for messages */
    const dnp_cluster *cl;      /* device types and link tiers the tree's counts index */
    const layer_table *lt;      /* the rows the per-row arrays index, for the graph lowered */
    char *const *node_names;    /* per row: its op's name */
    const tnode *root;
    int64_t batch;              /* samples per step (whole batch) */
    const double *pace;         /* [cl->n_types]: straggler factor of each type's kernel
                                 * times (perf_straggler_pace); 0 stands for 1 */
    double deadline_s;          /* core/clock.h deadline of the run (0 = none) */
    double time_limit_s;        /* the limit it came from, for the message */
} plan_tree;

#endif
