/* collective.c - alpha-beta models of collective operations on a two-tier
 * group of devices (n_nodes nodes x per_node members), and the choice of
 * the fastest algorithm as NCCL makes it (minimum predicted time).
 *
 * Notation (docs/collectives.md has every formula with its source):
 *   p = N x q members: N = n_nodes, q = per_node;
 *   S = bytes (the nccl-tests size of the op);
 *   B_i, a_i = intra tier bandwidth per device per direction (bytes/s) and
 *              latency per message (s); B_e, a_e = the inter tier's.
 * Every bandwidth is the link rate given times NCCL's achieved fraction of
 * it (COLL_INTRA_EFF, COLL_NET_EFF; docs/collectives.md, "Link efficiency").
 */
#include "net/collective_int.h"
#include "topo/topology.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Names                                                                */
/* ------------------------------------------------------------------ */

static const char *const coll_names[DNP_COLL_COUNT] = {
    "allreduce", "reducescatter", "allgather", "alltoall", "broadcast", "p2p",
};

const char *dnp_coll_name(dnp_coll_op op)
{
    return (int)op >= 0 && op < DNP_COLL_COUNT ? coll_names[op] : "unknown";
}

int dnp_coll_from_name(const char *s)
{
    if (s == NULL)
        return -1;
    /* Compare with '-' and '_' removed, case-insensitively: "All-Reduce",
     * "all_reduce" and "allreduce" are the same op.  Also accept "sendrecv"
     * (nccl-tests' name of the point-to-point test). */
    char buf[32];
    size_t n = 0;
    for (const char *c = s; *c != '\0'; c++) {
        if (*c == '-' || *c == '_')
            continue;
        if (n + 1 >= sizeof buf)
            return -1;
        buf[n++] = (char)tolower((unsigned char)*c);
    }
    buf[n] = '\0';
    for (int i = 0; i < DNP_COLL_COUNT; i++)
        if (strcmp(buf, coll_names[i]) == 0)
            return i;
    if (strcmp(buf, "sendrecv") == 0)
        return DNP_COLL_P2P;
    return -1;
}

static const char *const algo_names[COLL_ALGO_COUNT] = {
    "ring", "tree", "hierarchical", "torus-2d", "binomial", "pairwise", "direct",
};

const char *coll_algo_name(coll_algo a)
{
    return (int)a >= 0 && a < COLL_ALGO_COUNT ? algo_names[a] : "unknown";
}

/* nccl-tests doc/PERFORMANCE.md, "Bus bandwidth": busbw = algbw x factor. */
double coll_bus_factor(dnp_coll_op op, int64_t n)
{
    if (n < 1)
        n = 1;
    double nd = (double)n;
    switch (op) {
    case DNP_COLL_ALLREDUCE:
        return 2.0 * (nd - 1.0) / nd;
    case DNP_COLL_REDUCE_SCATTER:
    case DNP_COLL_ALLGATHER:
    case DNP_COLL_ALLTOALL:
        return (nd - 1.0) / nd;
    default:
        return 1.0;
    }
}

/* ------------------------------------------------------------------ */
/* Link shares of the intra tier                                        */
/* ------------------------------------------------------------------ */

/* intra_bw_bps is a device's total bandwidth in one direction over all its
 * links inside the node.  A switch (NVSwitch) gives it to any pattern; a
 * ring topology splits it over 2 neighbour links, a 2-D torus over 4. */
static int topo_links(dnp_link_topo t)
{
    return t == DNP_TOPO_RING ? 2 : t == DNP_TOPO_TORUS2D ? 4 : 1;
}

/* Bandwidth one member gets in a (bidirectional) ring over the node's
 * devices.  Switch and ring topologies: all of B_i (NCCL runs several rings
 * over the links, one per channel: src/graph/search.cc builds them, the
 * bus bandwidth is nChannels x per-channel speed in src/graph/tuning.cc).
 * 2-D torus: a ring embedded in the torus uses 2 of the 4 links, B_i / 2. */
static double intra_ring_bw_bps(const dnp_comm_group *g)
{
    return g->intra_topo == DNP_TOPO_TORUS2D ? g->intra_bw_bps / 2.0 : g->intra_bw_bps;
}

/* Bandwidth of one message between two neighbours inside a node: one link. */
static double intra_link_bw_bps(const dnp_comm_group *g)
{
    return g->intra_bw_bps / (double)topo_links(g->intra_topo);
}

/* Bandwidth per member of a ring over the whole group.  Inside one node:
 * the intra ring.  Bare devices (q = 1): the NIC share B_e.  Across nodes
 * (NCCL's flat ring): C rings each carrying S/C enter and leave every node
 * once, over q NICs in parallel, so a node moves its ring traffic at
 * q x B_e while each member moves its own at the intra rate; the slower
 * bounds the ring: min(B_i, q x B_e).  NCCL models the same bottleneck:
 * busBw = nChannels x speedInter, the per-channel speed limited by the
 * NIC (src/graph/tuning.cc, ncclTopoTuneModel). */
static double group_ring_bw_bps(const dnp_comm_group *g)
{
    if (g->n_nodes <= 1)
        return intra_ring_bw_bps(g);
    if (g->per_node <= 1)
        return g->inter_bw_bps;
    return fmin(intra_ring_bw_bps(g), (double)g->per_node * g->inter_bw_bps);
}

/* floor(log2(n)) for n >= 1 (NCCL's log2i). */
static int log2_floor(int64_t n)
{
    int k = 0;
    while (n > 1) {
        n >>= 1;
        k++;
    }
    return k;
}

/* ceil(log2(n)) for n >= 1: rounds of a binomial tree. */
static int log2_ceil(int64_t n)
{
    int k = 0;
    int64_t v = 1;
    while (v < n) {
        v <<= 1;
        k++;
    }
    return k;
}

/* ------------------------------------------------------------------ */
/* Ring family (Patarasuk & Yuan 2009; Thakur, Rabenseifner & Gropp 2005) */
/* ------------------------------------------------------------------ */

/* Latency of `steps_per_hop` x (p - 1) ring steps of which
 * steps_per_hop x (N - 1) cross a node boundary (NCCL tuning.cc:
 * latency += (nsteps - nInterSteps) x intraLat + nInterSteps x interLat,
 * nsteps = 2(p-1) for all-reduce, p-1 for reduce-scatter / all-gather). */
static double ring_latency_s(const dnp_comm_group *g, double steps_per_hop)
{
    double p = (double)(g->n_nodes * g->per_node), n = (double)g->n_nodes;
    return steps_per_hop * ((p - n) * g->intra_lat_s + (n - 1.0) * g->inter_lat_s);
}

/* Ring all-reduce (reduce-scatter then all-gather; Patarasuk & Yuan 2009,
 * Thakur et al. 2005 sec. 4.4): T = 2(p-1) alpha + 2(p-1)/p S / B. */
static double ring_allreduce_s(const dnp_comm_group *g, double bytes)
{
    double p = (double)(g->n_nodes * g->per_node);
    return ring_latency_s(g, 2.0) + 2.0 * (p - 1.0) / p * bytes / group_ring_bw_bps(g);
}

/* Ring reduce-scatter / all-gather (Thakur et al. 2005 sec. 4.1, ring
 * all-gather): T = (p-1) alpha + (p-1)/p S / B, S the full buffer. */
static double ring_rs_ag_s(const dnp_comm_group *g, double bytes)
{
    double p = (double)(g->n_nodes * g->per_node);
    return ring_latency_s(g, 1.0) + (p - 1.0) / p * bytes / group_ring_bw_bps(g);
}

/* Pipelined ring (chain) broadcast, NCCL's broadcast: the buffer flows
 * down the chain in small chunks, so each link carries S once:
 * T = (p-1) alpha + S / B (pipeline fill neglected, as NCCL's model
 * time = latency + S / algbw does, tuning.cc ncclTopoGetAlgoTime). */
static double ring_broadcast_s(const dnp_comm_group *g, double bytes)
{
    return ring_latency_s(g, 1.0) + bytes / group_ring_bw_bps(g);
}

/* ------------------------------------------------------------------ */
/* Double binary tree (NCCL 2.4; Sanders, Speck & Traff 2009)           */
/* ------------------------------------------------------------------ */

/* NCCL's all-reduce tree: a chain inside each node, two complementary
 * binary trees across nodes, each carrying half of the buffer; reduce up
 * and broadcast down, pipelined.  Every member sends (and receives) 2S in
 * total (S/2 per tree per phase, internal in one tree, leaf in the other),
 * so the bandwidth term is 2S / B: NCCL converts busBw to algBw with the
 * ratio 0.5 for trees (tuning.cc).  Latency as in tuning.cc:
 * 2 x ((q-1) a_i + floor(log2 N) a_e).  B is the ring bottleneck, the same
 * links carrying the trees' chains and NIC traffic.
 * T = 2((q-1) a_i + floor(log2 N) a_e) + 2S / min(B_i, q B_e). */
static double tree_allreduce_s(const dnp_comm_group *g, double bytes)
{
    double lat_s = 2.0 * ((double)(g->per_node - 1) * g->intra_lat_s +
                          (double)log2_floor(g->n_nodes) * g->inter_lat_s);
    return lat_s + 2.0 * bytes / group_ring_bw_bps(g);
}

/* ------------------------------------------------------------------ */
/* 2-D torus (Ying et al. 2018, "Image classification at supercomputer   */
/* scale", 2-D gradient summation on the TPU torus)                      */
/* ------------------------------------------------------------------ */

/* a x b factorisation of q with a the largest divisor <= sqrt(q). */
static void torus_dims(int64_t q, int64_t *a, int64_t *b)
{
    int64_t best = 1;
    for (int64_t d = 1; d * d <= q; d++)
        if (q % d == 0)
            best = d;
    *a = best;
    *b = q / best;
}

/* 1 if g carries its members' grid on the torus (dnp_comm_group.shape,
 * set by src/topo for a "torus" network): shape[0] shape[1] = per_node. */
static int group_has_shape(const dnp_comm_group *g)
{
    return g->shape[0] >= 1 && g->shape[1] >= 1 && g->per_node % g->shape[0] == 0 &&
           g->per_node / g->shape[0] == g->shape[1];
}

/* The a x b grid of g's per_node members on the torus: the topology's
 * (group_has_shape), else the squarest factorisation (torus_dims). */
static void group_torus_dims(const dnp_comm_group *g, int64_t *a, int64_t *b)
{
    if (group_has_shape(g)) {
        *a = g->shape[0];
        *b = g->shape[1];
    } else {
        torus_dims(g->per_node, a, b);
    }
}

/* Reduce-scatter of S over an a x b torus.  Each dimension is a
 * bidirectional ring (half of the data each way) on 2 of the 4 links,
 * B_i / 2 per member.  To keep all 4 links busy the buffer is split in
 * halves reduced X-then-Y and Y-then-X at the same time; each phase lasts
 * as long as its slower half.  Phase 1 on S/2, phase 2 on the S/(2a) or
 * S/(2b) left (ring reduce-scatter of Thakur et al. 2005 per dimension):
 *   phase1 = max((a-1) a_i + (a-1)/a (S/2)/(B_i/2), same with b)
 *   phase2 = max((b-1) a_i + (b-1)/b (S/2a)/(B_i/2), (a-1) a_i + (a-1)/a (S/2b)/(B_i/2))
 * For a = b = k this is 2(k-1) a_i + (p-1)/p S / B_i: the ring's
 * bandwidth term with 2(k-1) instead of p-1 latency steps.
 * All-gather is the mirror image, with the same time. */
static double torus_rs_s(const dnp_comm_group *g, double bytes)
{
    int64_t ai, bi;
    group_torus_dims(g, &ai, &bi);
    double a = (double)ai, b = (double)bi, bw_bps = g->intra_bw_bps / 2.0, lat = g->intra_lat_s;
    double half = bytes / 2.0;
    double x1 = (a - 1.0) * lat + (a - 1.0) / a * half / bw_bps;
    double y1 = (b - 1.0) * lat + (b - 1.0) / b * half / bw_bps;
    double y2 = (b - 1.0) * lat + (b - 1.0) / b * (half / a) / bw_bps;
    double x2 = (a - 1.0) * lat + (a - 1.0) / a * (half / b) / bw_bps;
    return fmax(x1, y1) + fmax(y2, x2);
}

/* 1 if the group is one node on a 2-D torus with both dimensions >= 2
 * (one row is a ring: the ring algorithm prices it, as fast). */
static int torus_applies(const dnp_comm_group *g)
{
    int64_t a, b;
    if (g->intra_topo != DNP_TOPO_TORUS2D)
        return 0;
    group_torus_dims(g, &a, &b);
    return a >= 2 && b >= 2;
}

/* ------------------------------------------------------------------ */
/* Intra-node pieces (one node of q members)                            */
/* ------------------------------------------------------------------ */

/* Reduce-scatter (= all-gather time) of S among the q members of one
 * node: the torus algorithm on a torus, else the ring
 * (q-1) a_i + (q-1)/q S / B_i (Thakur et al. 2005). */
static double intra_rs_s(const dnp_comm_group *g, double bytes)
{
    dnp_comm_group one = *g;
    one.n_nodes = 1;
    if (torus_applies(&one))
        return torus_rs_s(&one, bytes);
    return ring_rs_ag_s(&one, bytes);
}

/* floor(k^2 / 4) = sum over d = 1..k-1 of min(d, k-d): the byte-hops of one
 * source sending one unit to every other member of a bidirectional ring of
 * k along shortest paths. */
static double ring_hops(int64_t k)
{
    return (double)((k * k) / 4);
}

/* Bandwidth time of an all-to-all of S per member among the q members of
 * one node (each sends S/q to every member, itself included).
 *   switch: every member sends (q-1)/q S at B_i: (q-1)/q S / B_i;
 *   ring: total byte-hops S floor(q^2/4) spread over 2q directed links of
 *         B_i/2: S floor(q^2/4) / (q B_i);
 *   2-D torus a x b, dimension-ordered routing: X links carry
 *         S floor(a^2/4) / (2a) each at B_i/4, Y links likewise, in
 *         parallel: max over dimensions of 2 S floor(k^2/4) / (k B_i).
 * Link-load (bisection) bounds; shortest-path routing, no contention
 * beyond link sharing (Thakur et al. 2005 sec. 4.6 give the switch case). */
static double intra_a2a_bw_s(const dnp_comm_group *g, int64_t q, double bytes)
{
    double qd = (double)q;
    if (q <= 1)
        return 0.0;
    switch (g->intra_topo) {
    case DNP_TOPO_RING:
        return bytes * ring_hops(q) / (qd * g->intra_bw_bps);
    case DNP_TOPO_TORUS2D: {
        int64_t a, b;
        if (q == g->per_node)
            group_torus_dims(g, &a, &b);
        else
            torus_dims(q, &a, &b);
        double tx = 2.0 * bytes * ring_hops(a) / ((double)a * g->intra_bw_bps);
        double ty = 2.0 * bytes * ring_hops(b) / ((double)b * g->intra_bw_bps);
        return fmax(tx, ty);
    }
    default:
        return (qd - 1.0) / qd * bytes / g->intra_bw_bps;
    }
}

/* ------------------------------------------------------------------ */
/* Algorithms per op                                                    */
/* ------------------------------------------------------------------ */

/* Hierarchical all-reduce (Horovod's hierarchical all-reduce,
 * horovod/common/ops/nccl_operations.cc: ncclReduceScatter inside the node,
 * all-reduce across nodes, ncclAllGather inside, run one after the other;
 * BlueConnect, Cho et al. SysML 2019, decomposes the same way):
 *   T = RS_intra(S) + [2(N-1) a_e + 2(N-1)/N (S/q) / B_e] + AG_intra(S)
 * the middle term being q ring all-reduces of S/q over N nodes, one per
 * member, each on its own NIC share B_e, in parallel.  The phases are not
 * pipelined (Horovod waits for each), so their times add. */
static double hier_allreduce_s(const dnp_comm_group *g, double bytes)
{
    double n = (double)g->n_nodes, q = (double)g->per_node;
    double inter_s = 2.0 * (n - 1.0) * g->inter_lat_s +
                     2.0 * (n - 1.0) / n * (bytes / q) / g->inter_bw_bps;
    return 2.0 * intra_rs_s(g, bytes) + inter_s;
}

/* Binomial-tree broadcast (Thakur et al. 2005 sec. 4.3): ceil(log2 p)
 * rounds of alpha + S/B.  Rounds crossing nodes first (ceil(log2 N) at the
 * inter tier, one message per NIC share), then ceil(log2 q) inside nodes
 * on one intra link. */
static double binomial_broadcast_s(const dnp_comm_group *g, double bytes)
{
    double t = (double)log2_ceil(g->n_nodes) * (g->inter_lat_s + bytes / g->inter_bw_bps);
    if (g->per_node > 1)
        t += (double)log2_ceil(g->per_node) * (g->intra_lat_s + bytes / intra_link_bw_bps(g));
    return t;
}

/* Pairwise-exchange all-to-all (Thakur et al. 2005 sec. 4.6: p-1 steps,
 * T = (p-1) alpha + n beta with n the bytes a process sends).  Each member
 * sends S/p to each of the p-1 others: q-1 of them in its node (the node's
 * all-to-all of S q/p, intra_a2a_bw_s), p-q on other nodes through its NIC
 * share:
 *   T = (q-1) a_i + A2A_intra(S q/p) + (p-q) (a_e + (S/p) / B_e). */
static double pairwise_alltoall_s(const dnp_comm_group *g, double bytes)
{
    double q = (double)g->per_node, p = (double)(g->n_nodes * g->per_node);
    double t = (q - 1.0) * g->intra_lat_s + intra_a2a_bw_s(g, g->per_node, bytes * q / p);
    if (g->n_nodes > 1)
        t += (p - q) * (g->inter_lat_s + bytes / p / g->inter_bw_bps);
    return t;
}

/* One message between two members: across nodes when the group spans
 * nodes (the sender's NIC share), else one intra link:
 * T = alpha + S / B (the alpha-beta model, Hockney 1994). */
static double direct_p2p_s(const dnp_comm_group *g, double bytes)
{
    if (g->n_nodes > 1)
        return g->inter_lat_s + bytes / g->inter_bw_bps;
    return g->intra_lat_s + bytes / intra_link_bw_bps(g);
}

double coll_algo_time_s(dnp_coll_op op, coll_algo a, const dnp_comm_group *g, double bytes)
{
    int one_node = g->n_nodes <= 1;
    switch (op) {
    case DNP_COLL_ALLREDUCE:
        if (a == COLL_ALGO_RING)
            return ring_allreduce_s(g, bytes);
        if (a == COLL_ALGO_TREE)
            return tree_allreduce_s(g, bytes);
        if (a == COLL_ALGO_HIERARCHICAL && !one_node && g->per_node > 1)
            return hier_allreduce_s(g, bytes);
        if (a == COLL_ALGO_TORUS2D && one_node && torus_applies(g))
            return 2.0 * torus_rs_s(g, bytes);
        return -1.0;
    case DNP_COLL_REDUCE_SCATTER:
    case DNP_COLL_ALLGATHER:
        if (a == COLL_ALGO_RING)
            return ring_rs_ag_s(g, bytes);
        if (a == COLL_ALGO_TORUS2D && one_node && torus_applies(g))
            return torus_rs_s(g, bytes);
        return -1.0;
    case DNP_COLL_ALLTOALL:
        return a == COLL_ALGO_PAIRWISE ? pairwise_alltoall_s(g, bytes) : -1.0;
    case DNP_COLL_BROADCAST:
        if (a == COLL_ALGO_RING)
            return ring_broadcast_s(g, bytes);
        if (a == COLL_ALGO_BINOMIAL)
            return binomial_broadcast_s(g, bytes);
        return -1.0;
    case DNP_COLL_P2P:
        return a == COLL_ALGO_DIRECT ? direct_p2p_s(g, bytes) : -1.0;
    default:
        return -1.0;
    }
}

/* ------------------------------------------------------------------ */
/* Estimate: the fastest algorithm                                      */
/* ------------------------------------------------------------------ */

/* The fraction of a link's rate NCCL moves data at (docs/collectives.md,
 * "Link efficiency"), as NCCL's maintainers state it from their own
 * measurements: inside a node "450GB/s is the line rate. With the protocol
 * overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s"
 * (S. Jeaugey, NVIDIA/nccl-tests issue 212, 2024; 370/450 = 0.822; the same
 * author gives ~160 GB/s busbw on the A800's 200 GB/s per direction,
 * NVIDIA/nccl issue 412); between nodes "24GB/s inter-node" on 200 Gb/s HDR
 * InfiniBand (25 GB/s line rate; NVIDIA/nccl issue 412), and 192 GB/s
 * all-reduce busbw on a DGX A100's 8 x 200 Gb/s (NVIDIA/nccl issue 812):
 * 0.96.  Applied to every intra tier (NVLink, NVSwitch, PCIe) and every
 * network tier; TPU ICI and DCN take the same figures as stand-ins (no
 * published figure), as their latencies take NCCL's. */
#define COLL_INTRA_EFF (370.0 / 450.0)
#define COLL_NET_EFF (24.0 / 25.0)

void dnp_coll_link_efficiency(double *intra, double *network)
{
    if (intra != NULL)
        *intra = COLL_INTRA_EFF;
    if (network != NULL)
        *network = COLL_NET_EFF;
}

static void set_algorithm(dnp_coll_cost *out, const char *name)
{
    snprintf(out->algorithm, sizeof out->algorithm, "%s", name);
}

/* The group with its tiers made usable: a node of q > 1 members with no
 * topology is a switch; missing bandwidths make the tier unusable (the
 * estimate is then infinite, never NaN). */
static int group_usable(const dnp_comm_group *g)
{
    if (g->n_nodes < 1 || g->per_node < 1)
        return 0;
    if (g->per_node > 1 && !(g->intra_bw_bps > 0.0))
        return 0;
    if (g->n_nodes > 1 && !(g->inter_bw_bps > 0.0))
        return 0;
    return 1;
}

void dnp_coll_estimate(dnp_coll_op op, const dnp_comm_group *g, double bytes, dnp_coll_cost *out)
{
    if (g == NULL) {
        coll_estimate_at_rates(op, g, bytes, out);
        return;
    }
    dnp_comm_group achieved = *g;
    achieved.intra_bw_bps *= COLL_INTRA_EFF;
    achieved.inter_bw_bps *= COLL_NET_EFF;
    coll_estimate_at_rates(op, &achieved, bytes, out);
}

void coll_estimate_at_rates(dnp_coll_op op, const dnp_comm_group *g, double bytes,
                            dnp_coll_cost *out)
{
    memset(out, 0, sizeof *out);
    if (g == NULL || (int)op < 0 || op >= DNP_COLL_COUNT) {
        set_algorithm(out, "none");
        return;
    }
    dnp_comm_group grp = *g;
    if (grp.per_node > 1 && grp.intra_topo == DNP_TOPO_NONE)
        grp.intra_topo = DNP_TOPO_SWITCH;
    if (!(grp.intra_lat_s >= 0.0))
        grp.intra_lat_s = 0.0;
    if (!(grp.inter_lat_s >= 0.0))
        grp.inter_lat_s = 0.0;
    int64_t members = grp.n_nodes * grp.per_node;
    /* One member: nothing to exchange (NCCL with one rank copies locally). */
    if (grp.n_nodes <= 1 && grp.per_node <= 1) {
        set_algorithm(out, "local");
        return;
    }
    /* No data (or a nonsensical size): nothing to send, time 0. */
    if (!(bytes > 0.0)) {
        set_algorithm(out, "none");
        return;
    }
    if (!group_usable(&grp)) {
        out->time_s = INFINITY;
        set_algorithm(out, "unavailable");
        return;
    }
    double best_s = -1.0;
    coll_algo best = COLL_ALGO_RING;
    for (int a = 0; a < COLL_ALGO_COUNT; a++) {
        double t = coll_algo_time_s(op, (coll_algo)a, &grp, bytes);
        /* Strictly less: ties keep the earlier algorithm (deterministic). */
        if (t >= 0.0 && (best_s < 0.0 || t < best_s)) {
            best_s = t;
            best = (coll_algo)a;
        }
    }
    out->time_s = best_s;
    set_algorithm(out, coll_algo_name(best));
    if (best_s > 0.0 && isfinite(best_s)) {
        /* nccl-tests doc/PERFORMANCE.md: algbw = S / t; busbw = algbw x factor. */
        out->algbw_bps = bytes / best_s;
        out->busbw_bps = out->algbw_bps * coll_bus_factor(op, members);
    }
}

/* ------------------------------------------------------------------ */
/* The group of a cluster                                               */
/* ------------------------------------------------------------------ */

/* The group of every device: src/topo's group of the whole cluster
 * (topo_group_counts; docs/collectives.md, "The group of a set of
 * devices"), with no intra tier when no two members share a node (the
 * public contract in dnnpar.h: per_node 1 leaves it zero; no algorithm
 * reads it then). */
void dnp_cluster_comm_group(const dnp_cluster *c, dnp_comm_group *out)
{
    if (c == NULL) {
        memset(out, 0, sizeof *out);
        out->n_nodes = out->per_node = 1;
        return;
    }
    topo_group_counts(c, c->counts, out);
    if (out->per_node <= 1) {
        out->intra_topo = DNP_TOPO_NONE;
        out->intra_bw_bps = 0.0;
        out->intra_lat_s = 0.0;
    }
}

/* src/topo's group of the ranks first, first + stride, ... (topo_group_strided:
 * the rails, fat-tree leaves and torus rows they span), with dnp_cluster_comm_group's
 * convention for a group without two members on one node. */
void dnp_cluster_comm_group_strided(const dnp_cluster *c, int64_t first, int64_t n,
                                    int64_t stride, dnp_comm_group *out)
{
    if (c == NULL) {
        memset(out, 0, sizeof *out);
        out->n_nodes = out->per_node = 1;
        return;
    }
    topo_group_strided(c, first, n, stride < 1 ? 1 : stride, out);
    if (out->per_node <= 1) {
        out->intra_topo = DNP_TOPO_NONE;
        out->intra_bw_bps = 0.0;
        out->intra_lat_s = 0.0;
    }
}
