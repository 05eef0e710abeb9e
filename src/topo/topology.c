/*
 * topology.c - the link group a set of devices spans (topology.h;
 * docs/collectives.md, "The group of a set of devices").
 *
 * Ranks number the devices as Megatron-LM's launcher does over a host list
 * (torch.distributed: consecutive local ranks on one node, nodes in the
 * order listed): the cluster's types in order, each type's devices filling
 * its own nodes of devices_per_node.  The tiers of a group are those of its
 * slowest member, as dnp_cluster_comm_group takes them for a whole mixed
 * cluster (docs/collectives.md, "The group of a cluster"): a collective
 * runs at the pace of its slowest link (NCCL's rings and trees move every
 * byte through every member, src/graph/tuning.cc bounds busBw by the
 * slowest channel).
 */
#include "topo/topology.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The per-device inter-node rate of type d: its NIC share, or its network
 * rate for bare devices and custom specs without node figures. */
static double inter_bw_of(const dnp_device_type *d)
{
    return d->inter_bw_bps > 0.0 ? d->inter_bw_bps : d->net_bw_bps;
}

/* The intra-node rate: a node without intra figures moves data at its
 * network rate (collective model's fallback). */
static double intra_bw_of(const dnp_device_type *d)
{
    return d->intra_bw_bps > 0.0 ? d->intra_bw_bps : inter_bw_of(d);
}

static int64_t per_node_of(const dnp_device_type *d)
{
    return d->devices_per_node > 1 ? d->devices_per_node : 1;
}

int topo_locate(const dnp_cluster *c, int64_t rank, int *type, int64_t *node)
{
    if (c == NULL || rank < 0)
        return -1;
    int64_t start = 0, node0 = 0;
    for (int k = 0; k < c->n_types; k++) {
        int64_t n = c->counts[k] > 0 ? c->counts[k] : 0, q = per_node_of(&c->types[k]);
        if (rank < start + n) {
            *type = k;
            *node = node0 + (rank - start) / q;
            return 0;
        }
        start += n;
        node0 += (n + q - 1) / q;
    }
    return -1;
}

/* The figures of the slowest member types (bit k of `types` set: type k
 * takes part) on a group of n_nodes x per_node. */
static void fill(const dnp_cluster *c, unsigned types, int64_t n_nodes, int64_t per_node,
                 dnp_comm_group *out)
{
    memset(out, 0, sizeof *out);
    out->n_nodes = n_nodes;
    out->per_node = per_node;
    double ibw = INFINITY, ebw = INFINITY;
    for (int k = 0; k < c->n_types && k < DNP_MAX_DEVICE_TYPES; k++) {
        if (!(types & (1u << k)))
            continue;
        const dnp_device_type *d = &c->types[k];
        if (intra_bw_of(d) < ibw) {
            ibw = intra_bw_of(d);
            out->intra_topo = d->intra_topo == DNP_TOPO_NONE ? DNP_TOPO_SWITCH : d->intra_topo;
        }
        if (inter_bw_of(d) < ebw)
            ebw = inter_bw_of(d);
        if (d->intra_lat_s > out->intra_lat_s)
            out->intra_lat_s = d->intra_lat_s;
        if (d->inter_lat_s > out->inter_lat_s)
            out->inter_lat_s = d->inter_lat_s;
    }
    out->intra_bw_bps = isfinite(ibw) ? ibw : 0.0;
    out->inter_bw_bps = isfinite(ebw) ? ebw : 0.0;
}

/* Accumulates members in increasing rank order: nodes then come in
 * non-decreasing order, so each node's members are consecutive. */
typedef struct {
    unsigned types;
    int64_t members, nodes, cur_node, cur_count, min_count;
} span_acc;

static void acc_add(const dnp_cluster *c, span_acc *a, int64_t rank)
{
    int type;
    int64_t node;
    if (topo_locate(c, rank, &type, &node) != 0)
        return;
    a->types |= 1u << type;
    a->members++;
    if (a->nodes > 0 && node == a->cur_node) {
        a->cur_count++;
        return;
    }
    if (a->nodes > 0 && (a->min_count < 0 || a->cur_count < a->min_count))
        a->min_count = a->cur_count;
    a->nodes++;
    a->cur_node = node;
    a->cur_count = 1;
}

static void acc_finish(const dnp_cluster *c, span_acc *a, dnp_comm_group *out)
{
    if (a->members == 0) {
        memset(out, 0, sizeof *out);
        out->n_nodes = out->per_node = 1;
        return;
    }
    if (a->min_count < 0 || a->cur_count < a->min_count)
        a->min_count = a->cur_count;
    if (a->nodes == 1)
        fill(c, a->types, 1, a->members, out);
    else
        fill(c, a->types, (a->members + a->min_count - 1) / a->min_count, a->min_count, out);
}

void topo_group_strided(const dnp_cluster *c, int64_t first, int64_t n, int64_t stride,
                        dnp_comm_group *out)
{
    span_acc a = {0, 0, 0, -1, 0, -1};
    if (stride < 1)
        stride = 1;
    for (int64_t i = 0; c != NULL && i < n; i++)
        acc_add(c, &a, first + i * stride);
    acc_finish(c, &a, out);
}

unsigned topo_types_strided(const dnp_cluster *c, int64_t first, int64_t n, int64_t stride)
{
    unsigned types = 0;
    int type;
    int64_t node;
    for (int64_t i = 0; c != NULL && i < n; i++)
        if (topo_locate(c, first + i * (stride < 1 ? 1 : stride), &type, &node) == 0)
            types |= 1u << type;
    return types;
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

int topo_group(const dnp_cluster *c, const int64_t *ranks, int64_t n, dnp_comm_group *out)
{
    span_acc a = {0, 0, 0, -1, 0, -1};
    int sorted = 1;
    for (int64_t i = 1; i < n; i++)
        sorted &= ranks[i - 1] < ranks[i];
    const int64_t *r = ranks;
    int64_t *copy = NULL;
    if (!sorted) {
        copy = dnp_malloc((size_t)n * sizeof *copy);
        if (copy == NULL) {
            acc_finish(c, &a, out);
            return -1;
        }
        memcpy(copy, ranks, (size_t)n * sizeof *copy);
        qsort(copy, (size_t)n, sizeof *copy, cmp_i64);
        r = copy;
    }
    for (int64_t i = 0; c != NULL && i < n; i++)
        acc_add(c, &a, r[i]);
    acc_finish(c, &a, out);
    dnp_free(copy);
    return 0;
}

void topo_p2p(const dnp_cluster *c, int64_t a, int64_t b, dnp_comm_group *out)
{
    int ta, tb;
    int64_t na, nb;
    if (c == NULL || a == b || topo_locate(c, a, &ta, &na) != 0 ||
        topo_locate(c, b, &tb, &nb) != 0) {
        memset(out, 0, sizeof *out);
        out->n_nodes = out->per_node = 1;
        if (c != NULL && topo_locate(c, a, &ta, &na) == 0)
            fill(c, 1u << ta, 1, 1, out);
        return;
    }
    unsigned types = (1u << ta) | (1u << tb);
    if (na == nb)
        fill(c, types, 1, 2, out);
    else
        fill(c, types, 2, 1, out);
}
