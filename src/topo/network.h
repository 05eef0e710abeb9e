/*
 * network.h - the network kinds src/topo interprets (docs/cluster.md,
 * "Network kinds"; docs/collectives.md, "Rail-optimised fat tree",
 * "Leaf-spine fat tree" and "2-D torus").
 *
 * A device type carries its node's network as data (dnp_net_desc in
 * dnnpar.h: a kind name and named numbers) that src/hw stores without
 * reading.  This module is the one place that reads it: a table of kinds,
 * each with its numbers' names, defaults and ranges and a check that the
 * numbers fit the node.  A new kind is a row of that table, its reading
 * into topo_net and its use in topology.c's group rule, plus an algorithm
 * in src/net if its groups need one.
 *
 * Ownership: nothing is kept; every function reads its arguments and
 * writes only *out.  Includes only dnnpar.h.
 */
#ifndef DNNPAR_TOPO_NETWORK_H
#define DNNPAR_TOPO_NETWORK_H

#include "dnnpar.h"

typedef enum {
    TOPO_NET_FLAT = 0, /* kind "": every NIC on one non-blocking switch tier */
    TOPO_NET_RAIL,     /* "rail": NIC i of every node on leaf (rail) switch i, spine above */
    TOPO_NET_TORUS,    /* "torus": the node's devices on an x x y torus (intra tier) */
    TOPO_NET_FATTREE   /* "fattree": all NICs of a node on one leaf, nodes_per_leaf nodes a
                        * leaf, leaves joined by spines (not rail-optimised) */
} topo_net_kind;

/* A device type's network, read: the kind and its figures with their
 * defaults filled in.  Units in the names. */
typedef struct {
    topo_net_kind kind;
    double oversub;      /* rail, fattree: leaf oversubscription (down / up link rate), >= 1 */
    double spine_lat_s;  /* rail, fattree: extra latency of a message across the spine, s */
    int64_t nodes_per_leaf; /* fattree: nodes on one leaf (node k of the type on leaf
                             * k div nodes_per_leaf) */
    int64_t torus_x;     /* torus: devices along the first dimension (local index mod x) */
    int64_t torus_y;     /* torus: along the second (local index div x) */
} topo_net;

/* The largest rail count (devices per node of a rail network) and torus
 * dimension topology.c tracks exactly (its member sets are bitsets of
 * this many bits); dnp_cluster_check refuses larger ones. */
#define TOPO_NET_MAX_DIM 256

/* The most nodes a fattree leaf may hold (net.nodes_per_leaf): a bound
 * that keeps the leaf arithmetic exact in int64, not a switch's radix. */
#define TOPO_NET_MAX_LEAF_NODES 65536

/* d's network read into *out: an unknown kind or a number out of range
 * reads as flat (dnp_cluster_check reports them; a cluster that passed it
 * never gets here with one).  O(params). */
void topo_net_of(const dnp_device_type *d, topo_net *out);

#endif
