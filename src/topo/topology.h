/*
 * topology.h - which links a group of devices spans (docs/collectives.md,
 * "The group of a set of devices").
 *
 * A cluster's devices are numbered by global rank: the device types in the
 * order the cluster lists them, each type's devices filling its own nodes of
 * devices_per_node in order (devices_per_node 0 or 1: bare devices, each its
 * own node).  These functions map a set of ranks to the dnp_comm_group the
 * collective model (src/net/collective.c, dnp_coll_estimate) prices: the
 * nodes it spans, its members per node, and the link figures of its slowest
 * member.  The layer below src/net and src/sim: it includes only dnnpar.h.
 *
 * Every consumer that asks which links a set of devices spans asks here
 * (docs/collectives.md, "The group of a set of devices", lists them): the
 * group of the whole cluster (dnp_cluster_comm_group), the Megatron-LM
 * groups (src/sim/config3d.c), the device tree's levels (src/search/plan.c,
 * src/sim/lower.c, src/report/astra.c) and PaSE's placed devices
 * (src/search/pase/pase_perf.c, pase_hetero.c).
 *
 * Ownership: every function reads the cluster and writes only *out (and
 * the caller's arrays named as outputs); none keeps a pointer.  Units: the
 * group's bandwidths in bytes/s per device per direction, latencies in
 * seconds (dnp_comm_group).
 */
#ifndef DNNPAR_TOPOLOGY_H
#define DNNPAR_TOPOLOGY_H

#include "dnnpar.h"

/* Where global rank `rank` of cluster c sits: its device type (index into
 * c->types) and its node (0-based, numbered over the whole cluster in the
 * same order as the ranks).  Returns 0, or -1 (type and node untouched)
 * when rank is outside [0, devices).  O(types). */
int topo_locate(const dnp_cluster *c, int64_t rank, int *type, int64_t *node);

/* The link group of the n ranks ranks[0..n-1] (any order, no repeats) of
 * cluster c, written to *out:
 *   - inside one node: n_nodes 1, per_node n, the node's intra tier;
 *   - across nodes: per_node q = the fewest members any spanned node holds
 *     (the NIC bottleneck of a ring through every node), n_nodes =
 *     ceil(n / q) (a partly filled node is counted as full, as the
 *     collective model's uniform groups require);
 *   - figures: the slowest member type's of each tier (least intra and
 *     inter bandwidth, largest latencies, the topology of the slowest intra
 *     tier), with the collective model's fallbacks (intra bandwidth 0: the
 *     inter rate; intra topology NONE: a switch; inter bandwidth 0:
 *     net_bw_bps);
 *   - the network kinds (network.h; docs/collectives.md): across nodes of a
 *     "rail" network, a group whose nodes hold members at different local
 *     indices leaves its rails and crosses the spine (inter bandwidth over
 *     the oversubscription, latency plus the spine's); across nodes under
 *     several leaves of a "fattree" network, each member type's inter
 *     bandwidth times min over its leaves j of min(1, m_j / oversub), m_j
 *     the group's nodes under leaf j, the least of them, latency plus the
 *     spine's; inside one node of a "torus" network, members on every pair
 *     of a columns and b rows get shape {a, b} (else shape {0, 0}).
 * Ranks out of range are ignored; no valid rank gives a 1 x 1 group with
 * zero figures (a collective over it costs nothing).  Returns 0, or -1 when
 * a copy for sorting cannot be allocated (*out then zeroed as 1 x 1).
 * O(n log n) for the sort (none when the ranks are increasing) plus
 * O(n x types). */
int topo_group(const dnp_cluster *c, const int64_t *ranks, int64_t n, dnp_comm_group *out);

/* topo_group of the n ranks first, first + stride, ..., first + (n - 1)
 * stride (stride >= 1): Megatron's tensor-, data- and pipeline-parallel
 * groups are such progressions.  Never allocates.  O(n x types); O(types)
 * when stride is 1 (a run of ranks is taken node by node). */
void topo_group_strided(const dnp_cluster *c, int64_t first, int64_t n, int64_t stride,
                        dnp_comm_group *out);

/* The device types (bit k: type k) of the n ranks first, first + stride,
 * ... (ranks out of range ignored).  O(n + types). */
unsigned topo_types_strided(const dnp_cluster *c, int64_t first, int64_t n, int64_t stride);

/* The link of one point-to-point message from rank a to rank b: the same
 * node, its intra tier (n_nodes 1, per_node 2); different nodes, the inter
 * tier at the slower of the two devices' NIC shares and the larger of their
 * latencies (n_nodes 2, per_node 1), across the spine of a rail network
 * when their local indices differ, and of a fattree network when the nodes
 * sit under different leaves (one node a leaf: min(1, 1 / oversub)).
 * a == b gives a 1 x 1 group (free).  O(types). */
void topo_p2p(const dnp_cluster *c, int64_t a, int64_t b, dnp_comm_group *out);

/* topo_group of the ranks first + i_0 stride[0] + ... + i_{d-1}
 * stride[d-1] for every 0 <= i_j < count[j] (j < n_dims <= 30): a lattice
 * of devices, such as PaSE's group of the devices that differ only in some
 * dimensions of a configuration (src/search/pase/pase_perf.c).  Counts < 1
 * are read as 1.  When each stride exceeds the span of the dimensions after
 * it (stride[j] > sum over l > j of (count[l] - 1) stride[l], as for the
 * dimensions of a row-major placement taken in order), the ranks come in
 * increasing order and nothing is allocated: O(product of the counts /
 * count of the last dimension when its stride is 1, else the product, plus
 * O(types) each); otherwise they are sorted in a copy (topo_group).
 * Returns 0, or -1 when that copy cannot be allocated (*out then 1 x 1). */
int topo_group_grid(const dnp_cluster *c, int64_t first, int n_dims, const int64_t *count,
                    const int64_t *stride, dnp_comm_group *out);

/* The group of counts[t] devices of each type t (t < n_types): each type's
 * first counts[t] ranks, from the first of its nodes (counts[t] clamped to
 * [0, c->counts[t]]).  It is the group of "k devices of type t" (a PaSE
 * group, src/search/pase/pase_perf.c) and of every group of the device tree
 * (topo_tree_split): a tree group of one type starts at a boundary of that
 * type's nodes or lies inside one node, so it spans the same links as the
 * type's first devices.  Never allocates.  O(types). */
void topo_group_counts(const dnp_cluster *c, const int64_t *counts, dnp_comm_group *out);

/* A collective among n_nodes x per_node members drawn from the devices of
 * topo_group_counts(c, counts) when the caller knows how its members sit
 * but not which devices they are: the data-parallel replicas of a
 * device-tree path, per_node of them at the levels inside a node and
 * n_nodes at the levels across nodes (src/sim/lower.c).  Figures: those of
 * topo_group_counts (the slowest member type's of each tier); shape: the
 * given one (each at least 1).  O(types). */
void topo_group_members(const dnp_cluster *c, const int64_t *counts, int64_t n_nodes,
                        int64_t per_node, dnp_comm_group *out);

/* The device tree (docs/time-model.md, "The device tree follows the
 * topology"): the group of counts[t] devices of each type t splits into
 * halves a and b (arrays of c->n_types; the rest of DNP_MAX_DEVICE_TYPES
 * untouched): several types, the first type present to a and the others to
 * b; one type spanning several nodes (devices_per_node > 1), whole nodes,
 * a the floor half of them; otherwise (inside one node, bare devices) the
 * devices, a the floor half (3 devices split 1 | 2).  Nodes come before the
 * devices in them, so the levels that cross the network are the top ones.
 * O(types). */
void topo_tree_split(const dnp_cluster *c, const int64_t *counts, int64_t *a, int64_t *b);

/* The group of the device tree at depth `depth` on the branch `bits` (bit
 * j set: the second half at level j; the root is depth 0, the whole
 * cluster), written as counts per type to counts_out[0..n_types).  Returns
 * 0, or -1 (counts_out untouched) when the branch reaches a single device
 * above that depth.  O(depth x types). */
int topo_tree_group(const dnp_cluster *c, int depth, unsigned bits, int64_t *counts_out);

/* The link between the two halves of the device-tree group `counts`
 * (topo_tree_split): the halves sit on different nodes exactly when the
 * group spans several (several types, bare devices, more devices than a
 * node holds), and a device then exchanges with its counterpart over the
 * network: 2 x 1 on the group's inter tier; otherwise one node's intra
 * tier: 1 x 2.  Figures: topo_group_counts's (the slowest member type's),
 * except on a "fattree" network, where the inter tier is the exchange's
 * own: each member type's NIC share times min over leaves of
 * min(1, x_j / (oversub c_j)), c_j of the group's x_j nodes under leaf j
 * having their counterpart under another (docs/collectives.md, "The device
 * tree's exchange").  Returns 1 when the halves sit on different nodes,
 * else 0; out (may be NULL) gets the pair's group (1 x 1 for a group of one
 * device, which does not split).  O(types), plus O(min(na, nodes_per_leaf))
 * on a fattree network for a split of na nodes a half. */
int topo_tree_link(const dnp_cluster *c, const int64_t *counts, dnp_comm_group *out);

#endif
