/*
 * tree.h - AccPar's decided tree as the hierarchical searches build it:
 * the binary tree of device groups with, at every internal node, the
 * share of its first half and each layer's partition type, and at every
 * node the shares of each layer its group holds (docs/time-model.md).
 *
 * The searches (src/search) decide it and turn it into the one strategy
 * type (plan/strategy.h: plan_strategy_from_tree, lossless), which is
 * what the lowering (src/sim/lower.c, devcomm.c) runs.  A search keeps
 * its own figures at each node behind `ev` (AccPar's: struct tnode_eval
 * in search/plan_internal.h), opaque here.
 */
#ifndef DNNPAR_PLAN_TREE_H
#define DNNPAR_PLAN_TREE_H

#include "dnnpar.h"
#include "plan/layer_table.h"
#include "plan/strategy.h"

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

/* A decided tree and what its strategy needs beside it, all borrowed
 * from its owner (a search's plan; search/plan.c: plan_tree_of). */
typedef struct {
    const char *model;          /* the model's name, for messages */
    const dnp_cluster *cl;      /* device types and link tiers the tree's counts index */
    const layer_table *lt;      /* the rows the per-row arrays index */
    const tnode *root;
    int64_t batch;              /* samples per step (whole batch) */
} plan_tree;

/* The strategy of AccPar's decided tree t (its ops: the graph indices
 * of t's layer table rows), lossless: one device group per distinct node
 * of the tree (depth-first, the first half first, a shared half once)
 * with its devices, alpha and per op the split of its type or layout,
 * and the shares derived from them (plan_strategy_derive_shares: equal to
 * the search's to the bit); as the mesh view, one axis "h<k>" per level
 * along the first path (child[0] at every level, as the exports read it),
 * size 2, share alpha, half_counts the halves' devices (no axes at all,
 * and no op splits, when that path is longer than PLAN_MAX_AXES); one op
 * per row of t's layer table (weighted rows by type I / II / III / R,
 * joins by layout B / C / R; a split node without decisions, types NULL,
 * splits nothing); one stage holding every device.  The tree's shares
 * (fb, fi, fo) and search figures (ev) are not read.  *out is the
 * caller's (plan_strategy_free).  DNP_ERR_NOMEM (six allocations).
 * O(groups x rows). */
dnp_status plan_strategy_from_tree(const plan_tree *t, plan_strategy **out, dnp_error *err);

/* 1 if the groups of s are tree t's decisions node for node (devices,
 * depth, halves, alpha and each row's type or layout, bitwise; a node
 * without decisions as all PLAN_SPLIT_NONE), else 0: the inverse check of
 * plan_strategy_from_tree.  O(groups x rows). */
int plan_strategy_matches_tree(const plan_strategy *s, const plan_tree *t);

#endif
