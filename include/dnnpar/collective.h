/*
 * dnnpar/collective.h - collectives (all-reduce, all-gather, ...) priced on the link
 * tiers of a group of devices, and the group a set of a cluster's devices
 * spans (src/net/, src/topo/; docs/collectives.md).
 *
 * Part of libdnnpar's public API: include <dnnpar.h>, which includes each
 * header under dnnpar/, or this header alone (it includes what it needs).  Its
 * conventions are dnnpar.h's (status and error record, dnp_X_new / dnp_X_free
 * pairs, units in names; docs/library.md).
 * Ownership: nothing here allocates; every figure is written into a
 * caller's struct.
 */
#ifndef DNNPAR_PUBLIC_COLLECTIVE_H
#define DNNPAR_PUBLIC_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cluster.h"

/* Default visibility for what this header declares (core.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------ */
/* Collectives (src/net/collective.c, docs/collectives.md)              */
/* ------------------------------------------------------------------ */

typedef enum {
    DNP_COLL_ALLREDUCE = 0,
    DNP_COLL_REDUCE_SCATTER,
    DNP_COLL_ALLGATHER,
    DNP_COLL_ALLTOALL,
    DNP_COLL_BROADCAST,
    DNP_COLL_P2P,
    DNP_COLL_COUNT
} dnp_coll_op;

/* Canonical name of op: "allreduce", "reducescatter", "allgather",
 * "alltoall", "broadcast", "p2p" ("unknown" out of range).  O(1). */
const char *dnp_coll_name(dnp_coll_op op);
/* The op named s, case-insensitive, '-' and '_' ignored ("all-reduce",
 * "All_Reduce", "allreduce"; "sendrecv" is p2p), or -1 if unknown.
 * O(length of s). */
int dnp_coll_from_name(const char *s);

/* A group of devices taking part in one collective: n_nodes nodes with
 * per_node members each, on the two link tiers of those nodes. */
typedef struct {
    int64_t n_nodes;          /* >= 1 */
    int64_t per_node;         /* >= 1 */
    dnp_link_topo intra_topo;
    double intra_bw_bps, intra_lat_s; /* per device, one direction */
    double inter_bw_bps, inter_lat_s; /* per device, one direction */
    /* The members as a shape[0] x shape[1] grid on a 2-D torus intra tier
     * (intra_topo TORUS2D, shape[0] shape[1] = per_node, a dimension of 1
     * a single ring), when the topology knows it (src/topo, a "torus"
     * network); {0, 0}: unknown, a torus node's members are then taken as
     * the squarest grid (docs/collectives.md, "2-D torus"). */
    int64_t shape[2];
} dnp_comm_group;

typedef struct {
    double time_s;            /* predicted completion time */
    double algbw_bps;         /* bytes / time_s (nccl-tests "algbw") */
    double busbw_bps;         /* algbw x the op's bus factor (nccl-tests "busbw") */
    char algorithm[24];       /* "ring", "tree", "hierarchical", "direct", ... */
} dnp_coll_cost;

/* Predicted time of `op` on `bytes` (the nccl-tests size: all-reduce and
 * broadcast the whole buffer, reduce-scatter its input, all-gather its
 * output, all-to-all the buffer each rank sends, p2p one message) over
 * group g, the fastest algorithm as NCCL picks it (minimum predicted time
 * over the algorithms that apply; ties keep the first of ring, tree,
 * hierarchical, torus-2d, binomial, pairwise, direct).  Alpha-beta models
 * on the tiers the group spans at NCCL's achieved fraction of each link rate
 * (dnp_coll_link_efficiency), formulas and sources in
 * docs/collectives.md.  Units: bytes; out->time_s seconds; algbw_bps and
 * busbw_bps bytes/s (nccl-tests definitions; 0 when time_s is 0).
 * One member: time 0, algorithm "local"; bytes <= 0: time 0, "none";
 * a tier the group needs without bandwidth: time INFINITY,
 * "unavailable".  Never fails.  O(1) (O(sqrt(per_node)) on a torus). */
/* The fractions of the intra-node and network link rates that
 * dnp_coll_estimate moves data at (NCCL's achieved bandwidth as its
 * maintainers measured it; docs/collectives.md, "Link efficiency").
 * Either pointer may be NULL.  O(1). */
void dnp_coll_link_efficiency(double *intra, double *network);
void dnp_coll_estimate(dnp_coll_op op, const dnp_comm_group *g, double bytes,
                       dnp_coll_cost *out);
/* The group of all devices of cluster c, from the device types' node
 * fields (each type's devices fill its own nodes of devices_per_node in
 * order; 0 or 1 = bare devices, one per node): per_node = the fewest
 * devices any node holds (min over types of min(count, devices_per_node)
 * when the counts fill whole nodes, as every parsed cluster's do), n_nodes
 * = ceil(devices / per_node).  Mixed types: the slowest of each tier
 * (least bandwidth, largest latency; the topology of the slowest intra
 * tier).  Inter tier: inter_bw_bps, or net_bw_bps when it is 0.  Intra
 * tier (only when per_node > 1): intra_bw_bps (inter rate if 0), topology
 * NONE read as SWITCH; per_node 1 leaves it zero.  Empty cluster: 1 x 1.
 * docs/collectives.md, "The group of a cluster".  O(types). */
void dnp_cluster_comm_group(const dnp_cluster *c, dnp_comm_group *out);
/* The group of the n devices first, first + stride, ..., first + (n - 1)
 * stride of cluster c (global ranks: types in order, each filling its
 * nodes; stride >= 1), as src/topo maps a set of devices to the links it
 * spans (docs/collectives.md, "The group of a set of devices"): Megatron's
 * data-parallel group of 4 nodes of 8 is (0, 4, 8).  Ranks out of range
 * are ignored.  Same intra-tier convention as dnp_cluster_comm_group.
 * O(n x types). */
void dnp_cluster_comm_group_strided(const dnp_cluster *c, int64_t first, int64_t n,
                                    int64_t stride, dnp_comm_group *out);

/* ------------------------------------------------------------------ */
/* Measured collectives (src/net/nccl_tests.c; docs/collectives.md,     */
/* "Your own measurements")                                             */
/* ------------------------------------------------------------------ */

/* One measured size: bytes (nccl-tests' size column) and the time of one
 * collective in seconds. */
typedef struct {
    double bytes;
    double time_s;
} dnp_coll_sample;

/* Read the output of one nccl-tests run (all_reduce_perf, all_gather_perf,
 * ...; "-" = standard input): every row that is not a '#' comment gives
 * its size and its out-of-place time (the column after the root column
 * when the header names one, else after the reduction op), microseconds
 * as nccl-tests prints them.  *ranks = the "# Rank" lines of its header
 * (0 when it has none).  *out is a new array of *n samples in the file's
 * order (caller frees it with dnp_free).  DNP_ERR_INPUT naming the file
 * and line for a row that is not size, count, type, op[, root], time,
 * ..., for sizes not increasing, a time that is not positive, or no row at
 * all; DNP_ERR_NOMEM.  At most 4096 rows.  O(file size). */
dnp_status dnp_nccl_tests_read(const char *path, dnp_coll_sample **out, int *n, int *ranks,
                               dnp_error *err);

/* Fit t = alpha_s + bytes / rate_bps to n samples (Hockney's alpha-beta
 * model, docs/collectives.md) by least squares on the relative residuals
 * (weights 1 / t^2, so every size counts alike), alpha kept >= 0 (else the
 * line through the origin).  rate_bps is the algorithm bandwidth the
 * sizes see (nccl-tests' algbw at large sizes), bytes/s.  Returns 0, or -1
 * (outputs untouched) with fewer than one sample or no positive slope.
 * O(n). */
int dnp_coll_fit(const dnp_coll_sample *s, int n, double *alpha_s, double *rate_bps);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* DNNPAR_PUBLIC_COLLECTIVE_H */
