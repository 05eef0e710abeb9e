/*
 * network.c - the network kinds (network.h; docs/cluster.md, "Network
 * kinds"): their numbers' names, defaults and ranges, the check that they
 * fit a device type's node (dnp_cluster_check) and their reading
 * (topo_net_of).
 *
 * Sources of the kinds:
 *   rail:  NVIDIA DGX SuperPOD reference architecture (DGX B200 / B300,
 *          "Network Fabrics", Compute Fabric): "Each group of ... nodes is
 *          rail-aligned. Traffic per rail of the DGX ... systems is always
 *          one hop away from the other ... nodes in a SU. Traffic between
 *          nodes, or between rails, traverses the spine layer."  Its
 *          component table has as many leaf-spine as node-leaf cables
 *          (512 and 512 for 2 SUs of DGX B200): a non-blocking fat tree,
 *          hence oversub's default 1.
 *   torus: Google Cloud TPU v3 ("Interconnect topology: 2D torus"); Ying
 *          et al. 2018, "Image classification at supercomputer scale" (the
 *          2-D all-reduce on the TPU v3 pod's torus).
 *   fattree: Al-Fares, Loukissas & Vahdat, "A scalable, commodity data
 *          center network architecture", SIGCOMM 2008 (section 2,
 *          oversubscription: "the ratio of the worst-case achievable
 *          aggregate bandwidth among the end hosts to the total bisection
 *          bandwidth"; 1:1 lets every host talk to any other at its NIC's
 *          full rate); in a leaf-spine network it occurs at the leaf:
 *          "total bandwidth available to all servers connected to a leaf
 *          switch divided by the aggregate amount of uplink bandwidth"
 *          (VMware Validated Design 4.0, "Oversubscription in the Leaf
 *          Layer").  Every NIC of a node on the node's one leaf (top of
 *          rack), unlike rail's.
 */
#include "topo/network.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_KIND_PARAMS 3

/* One kind: its name, its numbers (names as the spec writes them, the
 * unit in the name; default, least and greatest value; integer or not). */
typedef struct {
    const char *name;
    topo_net_kind kind;
    int n_params;
    struct {
        const char *name;
        double def, lo, hi;
        int integer;
    } params[MAX_KIND_PARAMS];
} kind_entry;

static const kind_entry k_kinds[] = {
    /* oversub: leaf downlinks per uplink (1 = non-blocking, the SuperPOD's);
     * spine_lat_us: the two extra switch hops of a message that leaves its
     * rail (leaf -> spine -> leaf), 0 by default: no published per-hop
     * figure is used, and at InfiniBand's sub-microsecond switch latency it
     * is small beside NCCL's 14 us network latency (docs/collectives.md). */
    {"rail", TOPO_NET_RAIL, 2,
     {{"oversub", 1.0, 1.0, 1024.0, 0}, {"spine_lat_us", 0.0, 0.0, 1e6, 0}}},
    /* x, y: the torus's dimensions, x y = devices_per_node */
    {"torus", TOPO_NET_TORUS, 2,
     {{"x", 0.0, 1.0, TOPO_NET_MAX_DIM, 1}, {"y", 0.0, 1.0, TOPO_NET_MAX_DIM, 1}}},
    /* nodes_per_leaf: required (no default leaf size); its bound keeps
     * the leaf arithmetic exact, it is no switch's radix.  oversub and
     * spine_lat_us as rail's: oversub the leaf's downlink : uplink rate. */
    {"fattree", TOPO_NET_FATTREE, 3,
     {{"nodes_per_leaf", 0.0, 1.0, TOPO_NET_MAX_LEAF_NODES, 1},
      {"oversub", 1.0, 1.0, 1024.0, 0},
      {"spine_lat_us", 0.0, 0.0, 1e6, 0}}},
};

#define N_KINDS ((int)(sizeof k_kinds / sizeof k_kinds[0]))

static int name_is(const char *s, size_t cap, const char *word)
{
    size_t n = strlen(word);
    return n < cap && strncmp(s, word, cap) == 0;
}

static const kind_entry *kind_find(const dnp_net_desc *net)
{
    for (int i = 0; i < N_KINDS; i++)
        if (name_is(net->kind, sizeof net->kind, k_kinds[i].name))
            return &k_kinds[i];
    return NULL;
}

/* The numbers of *net in the order of kind k's table, defaults for those
 * not given.  Returns -1 (v partly written) when *net names a number k
 * does not have (its index in *bad), else 0. */
static int kind_values(const kind_entry *k, const dnp_net_desc *net, double *v, int *bad)
{
    for (int j = 0; j < k->n_params; j++)
        v[j] = k->params[j].def;
    for (int i = 0; i < net->n_params && i < DNP_NET_MAX_PARAMS; i++) {
        int found = -1;
        for (int j = 0; j < k->n_params; j++)
            if (name_is(net->param_name[i], sizeof net->param_name[i], k->params[j].name))
                found = j;
        if (found < 0) {
            *bad = i;
            return -1;
        }
        v[found] = net->param_value[i];
    }
    return 0;
}

/* "device type K (NAME[ in NODE])" for messages. */
static void type_label(const dnp_device_type *d, int k, char *out, size_t n)
{
    snprintf(out, n, "device type %d (%.31s%s%.31s)", k + 1, d->name, d->node[0] ? " in " : "",
             d->node);
}

/* The problem of type k's network, or 0 (written to err). */
static int check_type(const dnp_device_type *d, int k, dnp_error *err)
{
    const dnp_net_desc *net = &d->net;
    char who[96];
    if (net->kind[0] == '\0' && net->n_params == 0)
        return 0;
    type_label(d, k, who, sizeof who);
    const kind_entry *e = kind_find(net);
    if (e == NULL) {
        char known[128] = "";
        size_t o = 0;
        for (int i = 0; i < N_KINDS && o < sizeof known; i++)
            o += (size_t)snprintf(known + o, sizeof known - o, "%s%s", i ? ", " : "",
                                  k_kinds[i].name);
        dnp_error_set(err, DNP_ERR_INPUT, "%s: unknown network kind '%.15s' (known: %s)", who,
                      net->kind, known);
        return 1;
    }
    double v[MAX_KIND_PARAMS];
    int bad = 0;
    if (kind_values(e, net, v, &bad) != 0) {
        char known[128] = "";
        size_t o = 0;
        for (int j = 0; j < e->n_params && o < sizeof known; j++)
            o += (size_t)snprintf(known + o, sizeof known - o, "%snet.%s", j ? ", " : "",
                                  e->params[j].name);
        dnp_error_set(err, DNP_ERR_INPUT, "%s: network '%s' has no number 'net.%.15s' (known: %s)",
                      who, e->name, net->param_name[bad], known);
        return 1;
    }
    for (int j = 0; j < e->n_params; j++) {
        double x = v[j];
        int given = 0;
        for (int i = 0; i < net->n_params && i < DNP_NET_MAX_PARAMS; i++)
            given |= name_is(net->param_name[i], sizeof net->param_name[i], e->params[j].name);
        if (!given && e->params[j].def == 0.0 && e->params[j].lo > 0.0) {
            dnp_error_set(err, DNP_ERR_INPUT, "%s: network '%s' needs net.%s", who, e->name,
                          e->params[j].name);
            return 1;
        }
        if (!(x >= e->params[j].lo && x <= e->params[j].hi) ||
            (e->params[j].integer && x != floor(x))) {
            dnp_error_set(err, DNP_ERR_INPUT, "%s: network '%s': net.%s=%.6g must be %s from %g to %g",
                          who, e->name, e->params[j].name, x,
                          e->params[j].integer ? "an integer" : "a number", e->params[j].lo,
                          e->params[j].hi);
            return 1;
        }
    }
    int64_t per_node = d->devices_per_node > 1 ? d->devices_per_node : 1;
    if (e->kind == TOPO_NET_RAIL && (per_node < 2 || per_node > TOPO_NET_MAX_DIM)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "%s: network 'rail' joins nodes of 2 to %d devices (one rail per device "
                      "of a node), not %lld",
                      who, TOPO_NET_MAX_DIM, (long long)per_node);
        return 1;
    }
    if (e->kind == TOPO_NET_TORUS) {
        if (d->intra_topo != DNP_TOPO_TORUS2D) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "%s: network 'torus' lays out a node whose topo is torus2d, not %s",
                          who, dnp_link_topo_name(d->intra_topo));
            return 1;
        }
        if ((int64_t)v[0] * (int64_t)v[1] != per_node) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "%s: network 'torus': net.x x net.y = %lld x %lld must be the node's "
                          "%lld devices",
                          who, (long long)v[0], (long long)v[1], (long long)per_node);
            return 1;
        }
    }
    return 0;
}

dnp_status dnp_cluster_check(const dnp_cluster *c, dnp_error *err)
{
    if (c == NULL)
        return DNP_OK;
    for (int k = 0; k < c->n_types && k < DNP_MAX_DEVICE_TYPES; k++)
        if (check_type(&c->types[k], k, err))
            return DNP_ERR_INPUT;
    return DNP_OK;
}

void topo_net_of(const dnp_device_type *d, topo_net *out)
{
    memset(out, 0, sizeof *out);
    out->kind = TOPO_NET_FLAT;
    out->oversub = 1.0;
    const kind_entry *e = d->net.kind[0] != '\0' ? kind_find(&d->net) : NULL;
    double v[MAX_KIND_PARAMS];
    int bad = 0;
    if (e == NULL || kind_values(e, &d->net, v, &bad) != 0)
        return;
    for (int j = 0; j < e->n_params; j++)
        if (!(v[j] >= e->params[j].lo && v[j] <= e->params[j].hi))
            return;
    switch (e->kind) {
    case TOPO_NET_RAIL:
        out->kind = TOPO_NET_RAIL;
        out->oversub = v[0];
        out->spine_lat_s = v[1] * 1e-6; /* spine_lat_us: microseconds -> s */
        break;
    case TOPO_NET_TORUS:
        if ((int64_t)v[0] * (int64_t)v[1] != (d->devices_per_node > 1 ? d->devices_per_node : 1))
            return;
        out->kind = TOPO_NET_TORUS;
        out->torus_x = (int64_t)v[0];
        out->torus_y = (int64_t)v[1];
        break;
    case TOPO_NET_FATTREE:
        if (v[0] != floor(v[0]))
            return;
        out->kind = TOPO_NET_FATTREE;
        out->nodes_per_leaf = (int64_t)v[0];
        out->oversub = v[1];
        out->spine_lat_s = v[2] * 1e-6; /* spine_lat_us: microseconds -> s */
        break;
    default:
        break;
    }
}
