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
#include "topo/network.h"

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

/* topo_locate, and the rank's local index in its node (0 .. q-1). */
static int locate(const dnp_cluster *c, int64_t rank, int *type, int64_t *node, int64_t *local)
{
    if (c == NULL || rank < 0)
        return -1;
    int64_t start = 0, node0 = 0;
    for (int k = 0; k < c->n_types; k++) {
        int64_t n = c->counts[k] > 0 ? c->counts[k] : 0, q = per_node_of(&c->types[k]);
        if (rank < start + n) {
            *type = k;
            *node = node0 + (rank - start) / q;
            *local = (rank - start) % q;
            return 0;
        }
        start += n;
        node0 += (n + q - 1) / q;
    }
    return -1;
}

int topo_locate(const dnp_cluster *c, int64_t rank, int *type, int64_t *node)
{
    int64_t local;
    return locate(c, rank, type, node, &local);
}

/* The figures of the slowest member types (bit k of `types` set: type k
 * takes part) on a group of n_nodes x per_node.  cross_rail: the group's
 * inter-node traffic leaves its rails (docs/collectives.md, "Rail-optimised
 * fat tree"): on the member types with a rail network it crosses the spine,
 * at the NIC share over the largest oversubscription and with the largest
 * extra spine latency.  leaf_factor non-NULL: the group spans several
 * leaves (docs/collectives.md, "Leaf-spine fat tree"): each member type k's
 * NIC share times leaf_factor[k] (<= 1, from the uplinks of its fattree
 * leaves; 1 for other kinds), the least of them, and the largest spine
 * latency of its fattree member types; NULL: one leaf. */
static void fill(const dnp_cluster *c, unsigned types, int64_t n_nodes, int64_t per_node,
                 int cross_rail, const double *leaf_factor, dnp_comm_group *out)
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
    if (n_nodes <= 1 || (!cross_rail && leaf_factor == NULL))
        return;
    /* DGX SuperPOD reference architecture, compute fabric: traffic between
     * rails traverses the spine; a leaf with `oversub` downlinks per
     * uplink gives each NIC 1/oversub of its rate there (all of a
     * collective's inter-node traffic crosses when its rails differ).
     * Fat tree: each type's NIC share at its leaves' factor. */
    double oversub = 1.0, spine_lat_s = 0.0, leaf_bw_bps = INFINITY;
    for (int k = 0; k < c->n_types && k < DNP_MAX_DEVICE_TYPES; k++) {
        topo_net net;
        if (!(types & (1u << k)))
            continue;
        topo_net_of(&c->types[k], &net);
        if ((net.kind == TOPO_NET_RAIL && cross_rail) ||
            (net.kind == TOPO_NET_FATTREE && leaf_factor != NULL))
            spine_lat_s = fmax(spine_lat_s, net.spine_lat_s);
        if (leaf_factor != NULL)
            leaf_bw_bps = fmin(leaf_bw_bps, inter_bw_of(&c->types[k]) * leaf_factor[k]);
        if (net.kind == TOPO_NET_RAIL && cross_rail)
            oversub = fmax(oversub, net.oversub);
    }
    out->inter_bw_bps /= oversub;
    if (leaf_factor != NULL && leaf_bw_bps < out->inter_bw_bps)
        out->inter_bw_bps = leaf_bw_bps;
    out->inter_lat_s += spine_lat_s;
}

/* A set of local indices (or torus coordinates) below TOPO_NET_MAX_DIM. */
#define SET_WORDS (TOPO_NET_MAX_DIM / 64)
typedef struct {
    uint64_t w[SET_WORDS];
} idx_set;

static void set_add_range(idx_set *s, int64_t from, int64_t n)
{
    for (int64_t i = from; i < from + n && i < TOPO_NET_MAX_DIM; i++)
        s->w[i >> 6] |= (uint64_t)1 << (i & 63);
}

static int set_count(const idx_set *s)
{
    int n = 0;
    for (int j = 0; j < SET_WORDS; j++)
        for (uint64_t w = s->w[j]; w != 0; w &= w - 1)
            n++;
    return n;
}

/* Accumulates members in increasing rank order: nodes then come in
 * non-decreasing order, so each node's members are consecutive.  Beside
 * the shape it keeps what the network kinds read (network.h): the local
 * indices each node's members hold (the rails they use: rail-local when
 * every node holds the same ones), while the group lies in its first
 * node the torus coordinates of its members, and the leaves its nodes sit
 * on (a type's nodes fill its own leaves in order, so each leaf's nodes
 * are consecutive too; a type without a fattree network is one leaf). */
typedef struct {
    unsigned types;
    int64_t members, nodes, cur_node, cur_count, min_count;
    idx_set cur_locals, first_locals; /* the open node's local indices; the first node's */
    int have_first, locals_differ;    /* first_locals set; some node's differ from them */
    int64_t torus_x;                  /* > 0: the first node is a torus of torus_x columns */
    idx_set xs, ys;                   /* torus columns and rows of its members */
    /* leaves: the open one (type, index within the type, the group's nodes
     * on it, its type's oversubscription or 0 when not a fattree), the
     * leaves seen, and the least min(1, nodes / oversub) of a closed
     * fattree leaf of each type (docs/collectives.md, "Leaf-spine fat
     * tree") */
    int leaf_open, leaf_type;
    int64_t leaf_idx, leaf_nodes, leaves;
    double leaf_oversub, leaf_factor[DNP_MAX_DEVICE_TYPES];
    /* the last type looked up: its first node (cluster-wide) and leaf size
     * and oversubscription (leaf size INT64_MAX, oversub 0: not a fattree) */
    int info_type;
    int64_t info_node0, info_per_leaf;
    double info_oversub;
} span_acc;

static void acc_init(span_acc *a)
{
    memset(a, 0, sizeof *a);
    a->cur_node = -1;
    a->min_count = -1;
    for (int k = 0; k < DNP_MAX_DEVICE_TYPES; k++)
        a->leaf_factor[k] = 1.0;
    a->info_type = -1;
}

/* Fills a's cached figures of type t (its first node, leaf size and
 * oversubscription) unless they are t's already.  O(types + params). */
static void acc_type_info(const dnp_cluster *c, span_acc *a, int t)
{
    if (a->info_type == t)
        return;
    int64_t node0 = 0;
    for (int k = 0; k < t; k++) {
        int64_t n = c->counts[k] > 0 ? c->counts[k] : 0, q = per_node_of(&c->types[k]);
        node0 += (n + q - 1) / q;
    }
    topo_net net;
    topo_net_of(&c->types[t], &net);
    int fat = net.kind == TOPO_NET_FATTREE && net.nodes_per_leaf >= 1;
    a->info_type = t;
    a->info_node0 = node0;
    a->info_per_leaf = fat ? net.nodes_per_leaf : INT64_MAX;
    a->info_oversub = fat ? net.oversub : 0.0;
}

/* The open leaf is complete: a fattree leaf holding m of the group's
 * nodes lowers the factor to min(1, m / oversub).  NCCL's ring visits the
 * nodes in order (NVIDIA/nccl src/graph/connect.cc, connectRings), so it
 * leaves the leaf once per m of its inter-node edges; with every NIC of
 * the leaf (P nodes of D devices) moving such traffic at r, the uplinks
 * carry P D r / m against their P D B_e / oversub (Al-Fares et al. 2008's
 * oversubscription at the leaf): r <= B_e m / oversub
 * (docs/collectives.md, "Leaf-spine fat tree"). */
static void acc_close_leaf(span_acc *a)
{
    if (!a->leaf_open)
        return;
    a->leaf_open = 0;
    double *f = &a->leaf_factor[a->leaf_type];
    if (a->leaf_oversub > 0.0 && (double)a->leaf_nodes < a->leaf_oversub)
        *f = fmin(*f, (double)a->leaf_nodes / a->leaf_oversub);
}

/* n more nodes of the group (n >= 1), type t's nodes first .. first + n - 1
 * counted within the type, after every node added before: the leaves they
 * fill.  Whole leaves between the first and the last are counted at once:
 * O(1) besides acc_type_info. */
static void acc_leaf_nodes(const dnp_cluster *c, span_acc *a, int t, int64_t first, int64_t n)
{
    acc_type_info(c, a, t);
    int64_t per_leaf = a->info_per_leaf;
    if (per_leaf == INT64_MAX) { /* not a fattree: the type's nodes are one leaf */
        if (!a->leaf_open || a->leaf_type != t || a->leaf_idx != 0) {
            acc_close_leaf(a);
            a->leaf_open = 1;
            a->leaf_type = t;
            a->leaf_idx = 0;
            a->leaf_nodes = 0;
            a->leaf_oversub = a->info_oversub;
            a->leaves++;
        }
        a->leaf_nodes += n;
        return;
    }
    while (n > 0) {
        int64_t leaf = first / per_leaf, take = per_leaf - first % per_leaf;
        take = take < n ? take : n;
        if (!a->leaf_open || a->leaf_type != t || a->leaf_idx != leaf) {
            acc_close_leaf(a);
            a->leaf_open = 1;
            a->leaf_type = t;
            a->leaf_idx = leaf;
            a->leaf_nodes = 0;
            a->leaf_oversub = a->info_oversub;
            a->leaves++;
        }
        a->leaf_nodes += take;
        first += take;
        n -= take;
        /* the whole leaves before the last one (which stays open) */
        int64_t whole = n > 0 ? (n - 1) / per_leaf : 0;
        if (whole > 0) {
            acc_close_leaf(a);
            a->leaves += whole;
            double *f = &a->leaf_factor[t];
            if (a->info_oversub > 0.0 && (double)per_leaf < a->info_oversub)
                *f = fmin(*f, (double)per_leaf / a->info_oversub);
            first += whole * per_leaf;
            n -= whole * per_leaf;
        }
    }
}

/* The open node is complete: compare its local indices with the first's. */
static void acc_close_node(span_acc *a)
{
    if (!a->have_first) {
        a->first_locals = a->cur_locals;
        a->have_first = 1;
    } else if (memcmp(&a->first_locals, &a->cur_locals, sizeof a->cur_locals) != 0) {
        a->locals_differ = 1;
    }
}

/* `count` more members on node `node` (>= the last node added), of type
 * `type`, the node's local indices [off, off + count). */
static void acc_node(const dnp_cluster *c, span_acc *a, int type, int64_t node, int64_t off,
                     int64_t count)
{
    if (count <= 0)
        return;
    a->members += count;
    if (a->nodes > 0 && node == a->cur_node) {
        a->cur_count += count;
    } else {
        if (a->nodes > 0) {
            if (a->min_count < 0 || a->cur_count < a->min_count)
                a->min_count = a->cur_count;
            acc_close_node(a);
        }
        a->nodes++;
        a->cur_node = node;
        a->cur_count = count;
        memset(&a->cur_locals, 0, sizeof a->cur_locals);
        acc_type_info(c, a, type);
        acc_leaf_nodes(c, a, type, node - a->info_node0, 1);
        if (a->nodes == 1) {
            topo_net net;
            topo_net_of(&c->types[type], &net);
            a->torus_x = net.kind == TOPO_NET_TORUS ? net.torus_x : 0;
        }
    }
    set_add_range(&a->cur_locals, off, count);
    for (int64_t l = off; a->nodes == 1 && a->torus_x > 0 && l < off + count; l++) {
        set_add_range(&a->xs, l % a->torus_x, 1);
        set_add_range(&a->ys, l / a->torus_x, 1);
    }
}

static void acc_add(const dnp_cluster *c, span_acc *a, int64_t rank)
{
    int type;
    int64_t node, local;
    if (locate(c, rank, &type, &node, &local) != 0)
        return;
    a->types |= 1u << type;
    acc_node(c, a, type, node, local, 1);
}

/* The ranks [first, first + n) (those in range), a run per device type
 * and node kind: the partly filled first node, the full nodes between,
 * the partly filled last node.  The same accumulation as acc_add on each
 * rank in turn.  O(types). */
static void acc_add_range(const dnp_cluster *c, span_acc *a, int64_t first, int64_t n)
{
    int64_t start = 0, node0 = 0;
    for (int k = 0; c != NULL && k < c->n_types && n > 0; k++) {
        int64_t cnt = c->counts[k] > 0 ? c->counts[k] : 0, q = per_node_of(&c->types[k]);
        int64_t lo = first > start ? first : start;
        int64_t hi = first + n < start + cnt ? first + n : start + cnt;
        if (lo < hi) {
            a->types |= 1u << k;
            int64_t off = lo - start, len = hi - lo;
            int64_t node = node0 + off / q, head = q - off % q;
            head = head < len ? head : len;
            acc_node(c, a, k, node, off % q, head);
            len -= head;
            node++;
            int64_t full = len / q;
            if (full > 0) {
                acc_node(c, a, k, node, 0, q);
                /* the other full-1 nodes: each closes the one before (q
                 * members, all local indices) and opens its own of q */
                if (full > 1) {
                    if (a->min_count < 0 || q < a->min_count)
                        a->min_count = q;
                    acc_close_node(a);
                    acc_leaf_nodes(c, a, k, node + 1 - node0, full - 1);
                    a->nodes += full - 1;
                    a->members += (full - 1) * q;
                    a->cur_node = node + full - 1;
                    a->cur_count = q;
                }
                node += full;
                len -= full * q;
            }
            acc_node(c, a, k, node, 0, len);
        }
        start += cnt;
        node0 += (cnt + q - 1) / q;
    }
}

/* The group's leaf factors for fill, per type: NULL when its nodes sit on
 * one leaf, else each type's least min(1, m / oversub) over its fattree
 * leaves (1 for a type with none, or when none binds). */
static const double *acc_leaf_factor(span_acc *a)
{
    acc_close_leaf(a);
    return a->leaves > 1 ? a->leaf_factor : NULL;
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
    acc_close_node(a);
    if (a->nodes == 1) {
        fill(c, a->types, 1, a->members, 0, NULL, out);
        /* inside one torus node: members on a set of columns x a set of
         * rows (every pair present) are an a x b torus, each row and
         * column a ring on the node's closed dimension rings
         * (docs/collectives.md, "2-D torus") */
        int64_t nx = set_count(&a->xs), ny = set_count(&a->ys);
        if (a->torus_x > 0 && out->intra_topo == DNP_TOPO_TORUS2D && nx * ny == a->members) {
            out->shape[0] = nx;
            out->shape[1] = ny;
        }
    } else {
        fill(c, a->types, (a->members + a->min_count - 1) / a->min_count, a->min_count,
             a->locals_differ, acc_leaf_factor(a), out);
    }
}

void topo_group_strided(const dnp_cluster *c, int64_t first, int64_t n, int64_t stride,
                        dnp_comm_group *out)
{
    span_acc a;
    acc_init(&a);
    if (stride <= 1)
        acc_add_range(c, &a, first, n);
    else
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
    span_acc a;
    acc_init(&a);
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
    int64_t na, nb, la, lb;
    if (c == NULL || a == b || locate(c, a, &ta, &na, &la) != 0 ||
        locate(c, b, &tb, &nb, &lb) != 0) {
        memset(out, 0, sizeof *out);
        out->n_nodes = out->per_node = 1;
        if (c != NULL && locate(c, a, &ta, &na, &la) == 0)
            fill(c, 1u << ta, 1, 1, 0, NULL, out);
        return;
    }
    unsigned types = (1u << ta) | (1u << tb);
    if (na == nb) {
        fill(c, types, 1, 2, 0, NULL, out);
        return;
    }
    /* no network kind on either end (the common case, on the simulator's
     * every message): no leaves to count */
    if (c->types[ta].net.kind[0] == '\0' && c->types[tb].net.kind[0] == '\0') {
        fill(c, types, 2, 1, la != lb, NULL, out);
        return;
    }
    /* the two ends' leaves: a group of two nodes (each leaf holds one of
     * them, so a fattree leaf gives min(1, 1 / oversub)) */
    span_acc acc;
    acc_init(&acc);
    acc_add(c, &acc, a < b ? a : b);
    acc_add(c, &acc, a < b ? b : a);
    /* GPU i to GPU i of another node: rail i */
    fill(c, types, 2, 1, la != lb, acc_leaf_factor(&acc), out);
}

/* ------------------------------------------------------------------ */
/* Lattices, groups by type, the device tree                            */
/* ------------------------------------------------------------------ */

#define GRID_MAX_DIMS 30

int topo_group_grid(const dnp_cluster *c, int64_t first, int n_dims, const int64_t *count,
                    const int64_t *stride, dnp_comm_group *out)
{
    span_acc a;
    acc_init(&a);
    int64_t cnt[GRID_MAX_DIMS], str[GRID_MAX_DIMS], total = 1;
    int d = 0;
    for (int j = 0; j < n_dims && j < GRID_MAX_DIMS; j++) {
        if (count[j] <= 1)
            continue; /* one index: nothing to enumerate */
        cnt[d] = count[j];
        str[d++] = stride[j];
        total *= count[j];
    }
    /* increasing when every stride exceeds the span of the dimensions after it */
    int increasing = 1;
    int64_t span = 0;
    for (int j = d - 1; j >= 0; j--) {
        increasing &= str[j] > span;
        span += (cnt[j] - 1) * str[j];
    }
    if (!increasing) {
        int64_t *r = dnp_malloc((size_t)total * sizeof *r);
        if (r == NULL) {
            acc_finish(c, &a, out);
            return -1;
        }
        int64_t idx[GRID_MAX_DIMS] = {0};
        for (int64_t i = 0; i < total; i++) {
            int64_t x = first;
            for (int j = 0; j < d; j++)
                x += idx[j] * str[j];
            r[i] = x;
            for (int j = d - 1; j >= 0 && ++idx[j] == cnt[j]; j--)
                idx[j] = 0;
        }
        int st = topo_group(c, r, total, out);
        dnp_free(r);
        return st;
    }
    /* odometer over the outer dimensions, the last one a run when its
     * stride is 1 */
    int run = d > 0 && str[d - 1] == 1;
    int outer = run ? d - 1 : d;
    int64_t len = run ? cnt[d - 1] : 1;
    int64_t idx[GRID_MAX_DIMS] = {0};
    for (int64_t i = 0, n = total / len; c != NULL && i < n; i++) {
        int64_t x = first;
        for (int j = 0; j < outer; j++)
            x += idx[j] * str[j];
        if (run)
            acc_add_range(c, &a, x, len);
        else
            acc_add(c, &a, x);
        for (int j = outer - 1; j >= 0 && ++idx[j] == cnt[j]; j--)
            idx[j] = 0;
    }
    acc_finish(c, &a, out);
    return 0;
}

/* The members of topo_group_counts accumulated into *a (not finished). */
static void acc_counts(const dnp_cluster *c, const int64_t *counts, span_acc *a)
{
    acc_init(a);
    int64_t start = 0;
    for (int k = 0; c != NULL && k < c->n_types; k++) {
        int64_t n = c->counts[k] > 0 ? c->counts[k] : 0;
        int64_t m = counts[k] < 0 ? 0 : counts[k] > n ? n : counts[k];
        acc_add_range(c, a, start, m);
        start += n;
    }
}

void topo_group_counts(const dnp_cluster *c, const int64_t *counts, dnp_comm_group *out)
{
    span_acc a;
    acc_counts(c, counts, &a);
    acc_finish(c, &a, out);
}

void topo_group_members(const dnp_cluster *c, const int64_t *counts, int64_t n_nodes,
                        int64_t per_node, dnp_comm_group *out)
{
    topo_group_counts(c, counts, out);
    out->n_nodes = n_nodes > 1 ? n_nodes : 1;
    out->per_node = per_node > 1 ? per_node : 1;
}

/* The split rule of the device tree: AccPar's hierarchical partitioning
 * (section 5) halves a group at each level; a mixed group is split by type
 * (the paper's heterogeneous arrays), and a group of one type follows its
 * nodes so that the top levels, not the bottom ones, cross the network
 * (docs/time-model.md, "The device tree follows the topology"). */
void topo_tree_split(const dnp_cluster *c, const int64_t *counts, int64_t *a, int64_t *b)
{
    int first = -1, n_types = 0;
    for (int k = 0; k < c->n_types; k++) {
        a[k] = b[k] = 0;
        if (counts[k] > 0) {
            n_types++;
            if (first < 0)
                first = k;
        }
    }
    if (n_types > 1) {
        for (int k = 0; k < c->n_types; k++)
            (k == first ? a : b)[k] = counts[k];
    } else if (first >= 0) {
        int64_t per_node = c->types[first].devices_per_node;
        int64_t nodes = per_node > 1 ? (counts[first] + per_node - 1) / per_node : 0;
        if (nodes > 1)
            a[first] = nodes / 2 * per_node;
        else
            a[first] = counts[first] / 2;
        b[first] = counts[first] - a[first];
    }
}

int topo_tree_group(const dnp_cluster *c, int depth, unsigned bits, int64_t *counts_out)
{
    int64_t cur[DNP_MAX_DEVICE_TYPES] = {0}, a[DNP_MAX_DEVICE_TYPES], b[DNP_MAX_DEVICE_TYPES];
    int nt = c->n_types < DNP_MAX_DEVICE_TYPES ? c->n_types : DNP_MAX_DEVICE_TYPES;
    for (int k = 0; k < nt; k++)
        cur[k] = c->counts[k] > 0 ? c->counts[k] : 0;
    for (int j = 0; j < depth; j++) {
        int64_t n = 0;
        for (int k = 0; k < nt; k++)
            n += cur[k];
        if (n <= 1)
            return -1;
        topo_tree_split(c, cur, a, b);
        memcpy(cur, j < 32 && ((bits >> j) & 1u) ? b : a, (size_t)nt * sizeof *cur);
    }
    memcpy(counts_out, cur, (size_t)nt * sizeof *cur);
    return 0;
}

/* The fat-tree factors (per type; 1 where no fattree leaf binds) of the
 * exchange between the halves of the device-tree group `counts`, which sit
 * on different nodes (docs/collectives.md, "Leaf-spine fat tree", "The
 * device tree's exchange"): every device sends to its counterpart in the
 * other half, so a leaf holding x_j of the group's nodes of which c_j have
 * their counterpart under another leaf sends c_j / x_j of its traffic up:
 * factor min(1, x_j / (o c_j)), the least over leaves.  Several types:
 * each type's leaves are its own, every pair crosses: min(1, 1 / o).  One
 * type: its nodes 0 .. n-1 (the group is its first devices; a bare device
 * is a node of one), halves [0, na) | [na, n), node i paired with i + na
 * (the last node of an odd split unpaired); na >= P puts every pair on two
 * leaves, else the group lies on at most 2 leaves (n <= 2 na + 1 < 2 P + 1),
 * counted pair by pair.  Returns -1 when no member type has a fattree
 * network, 0 when no pair crosses a spine, 1 when some pair does.
 * O(types + min(na, P)). */
static int tree_leaf_factors(const dnp_cluster *c, const int64_t *counts, double *factor)
{
    int n_types = 0, crosses = -1;
    for (int k = 0; k < DNP_MAX_DEVICE_TYPES; k++)
        factor[k] = 1.0;
    for (int k = 0; k < c->n_types && k < DNP_MAX_DEVICE_TYPES; k++)
        n_types += counts[k] > 0;
    int64_t a[DNP_MAX_DEVICE_TYPES], b[DNP_MAX_DEVICE_TYPES];
    topo_tree_split(c, counts, a, b);
    for (int k = 0; k < c->n_types && k < DNP_MAX_DEVICE_TYPES; k++) {
        topo_net net;
        if (counts[k] <= 0)
            continue;
        topo_net_of(&c->types[k], &net);
        if (net.kind != TOPO_NET_FATTREE || net.nodes_per_leaf < 1)
            continue;
        crosses = crosses < 0 ? 0 : crosses;
        int64_t per_leaf = net.nodes_per_leaf, q = per_node_of(&c->types[k]);
        int64_t na = a[k] / q, n = (counts[k] + q - 1) / q;
        if (n_types > 1 || na >= per_leaf) {
            factor[k] = fmin(1.0, 1.0 / net.oversub);
            crosses = 1;
            continue;
        }
        int64_t crossing[3] = {0, 0, 0};
        for (int64_t i = 0; i < na && i + na < n; i++) {
            int64_t la = i / per_leaf, lb = (i + na) / per_leaf;
            if (la != lb && la < 3 && lb < 3) {
                crossing[la]++;
                crossing[lb]++;
            }
        }
        for (int64_t j = 0; j < 3; j++) {
            int64_t lo = j * per_leaf, hi = lo + per_leaf < n ? lo + per_leaf : n;
            if (crossing[j] == 0 || hi <= lo)
                continue;
            crosses = 1;
            factor[k] = fmin(factor[k], fmin(1.0, (double)(hi - lo) /
                                                      (net.oversub * (double)crossing[j])));
        }
    }
    return crosses;
}

int topo_tree_link(const dnp_cluster *c, const int64_t *counts, dnp_comm_group *out)
{
    dnp_comm_group g;
    span_acc acc;
    acc_counts(c, counts, &acc);
    acc_finish(c, &acc, &g);
    if (g.n_nodes * g.per_node <= 1) {
        if (out != NULL)
            *out = g;
        return 0;
    }
    int cross = g.n_nodes > 1;
    double factor[DNP_MAX_DEVICE_TYPES];
    int leaf = cross && out != NULL ? tree_leaf_factors(c, counts, factor) : -1;
    if (leaf >= 0) {
        /* a fattree network: the exchange's own crossing, not a ring's */
        dnp_comm_group pair;
        fill(c, acc.types, 2, 1, acc.locals_differ, leaf > 0 ? factor : NULL, &pair);
        g.inter_bw_bps = pair.inter_bw_bps;
        g.inter_lat_s = pair.inter_lat_s;
    }
    g.n_nodes = cross ? 2 : 1;
    g.per_node = cross ? 1 : 2;
    if (out != NULL)
        *out = g;
    return cross;
}
