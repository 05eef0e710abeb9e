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
 *     net_bw_bps).
 * Ranks out of range are ignored; no valid rank gives a 1 x 1 group with
 * zero figures (a collective over it costs nothing).  Returns 0, or -1 when
 * a copy for sorting cannot be allocated (*out then zeroed as 1 x 1).
 * O(n log n) (O(n) when the ranks are increasing) plus O(types). */
int topo_group(const dnp_cluster *c, const int64_t *ranks, int64_t n, dnp_comm_group *out);

/* topo_group of the n ranks first, first + stride, ..., first + (n - 1)
 * stride (stride >= 1): Megatron's tensor-, data- and pipeline-parallel
 * groups are such progressions.  Never allocates.  O(n + types). */
void topo_group_strided(const dnp_cluster *c, int64_t first, int64_t n, int64_t stride,
                        dnp_comm_group *out);

/* The device types (bit k: type k) of the n ranks first, first + stride,
 * ... (ranks out of range ignored).  O(n + types). */
unsigned topo_types_strided(const dnp_cluster *c, int64_t first, int64_t n, int64_t stride);

/* The link of one point-to-point message from rank a to rank b: the same
 * node, its intra tier (n_nodes 1, per_node 2); different nodes, the inter
 * tier at the slower of the two devices' NIC shares and the larger of their
 * latencies (n_nodes 2, per_node 1).  a == b gives a 1 x 1 group (free).
 * O(types). */
void topo_p2p(const dnp_cluster *c, int64_t a, int64_t b, dnp_comm_group *out);

#endif
