/* test_collective.c - alpha-beta collective models (src/net/collective.c),
 * every expected value worked by hand in the comment beside it. */
#include "test.h"

#include "dnnpar.h"
#include "net/collective_int.h"

#include <math.h>

#define GB 1e9 /* bytes/s per GB/s */

static dnp_comm_group one_node(int64_t q, dnp_link_topo topo, double bw_bps, double lat_s)
{
    dnp_comm_group g = {.n_nodes = 1, .per_node = q, .intra_topo = topo,
                        .intra_bw_bps = bw_bps, .intra_lat_s = lat_s};
    return g;
}

static dnp_comm_group bare(int64_t n, double bw_bps, double lat_s)
{
    dnp_comm_group g = {.n_nodes = n, .per_node = 1, .inter_bw_bps = bw_bps, .inter_lat_s = lat_s};
    return g;
}

/* 2 nodes x 8 on an NVSwitch of B_i per device, NIC share B_e per device. */
static dnp_comm_group two_by_eight(double intra_bps, double intra_lat_s, double inter_bps,
                                   double inter_lat_s)
{
    dnp_comm_group g = {.n_nodes = 2, .per_node = 8, .intra_topo = DNP_TOPO_SWITCH,
                        .intra_bw_bps = intra_bps, .intra_lat_s = intra_lat_s,
                        .inter_bw_bps = inter_bps, .inter_lat_s = inter_lat_s};
    return g;
}

TEST(coll_names)
{
    CHECK_STR(dnp_coll_name(DNP_COLL_ALLREDUCE), "allreduce");
    CHECK_STR(dnp_coll_name(DNP_COLL_REDUCE_SCATTER), "reducescatter");
    CHECK_STR(dnp_coll_name(DNP_COLL_P2P), "p2p");
    CHECK_EQ_INT(dnp_coll_from_name("allreduce"), DNP_COLL_ALLREDUCE);
    CHECK_EQ_INT(dnp_coll_from_name("all-reduce"), DNP_COLL_ALLREDUCE);
    CHECK_EQ_INT(dnp_coll_from_name("All_Reduce"), DNP_COLL_ALLREDUCE);
    CHECK_EQ_INT(dnp_coll_from_name("REDUCE-SCATTER"), DNP_COLL_REDUCE_SCATTER);
    CHECK_EQ_INT(dnp_coll_from_name("all_gather"), DNP_COLL_ALLGATHER);
    CHECK_EQ_INT(dnp_coll_from_name("all-to-all"), DNP_COLL_ALLTOALL);
    CHECK_EQ_INT(dnp_coll_from_name("Broadcast"), DNP_COLL_BROADCAST);
    CHECK_EQ_INT(dnp_coll_from_name("sendrecv"), DNP_COLL_P2P);
    CHECK_EQ_INT(dnp_coll_from_name("allreduc"), -1);
    CHECK_EQ_INT(dnp_coll_from_name(""), -1);
    CHECK_EQ_INT(dnp_coll_from_name(NULL), -1);
    for (int i = 0; i < DNP_COLL_COUNT; i++)
        CHECK_EQ_INT(dnp_coll_from_name(dnp_coll_name((dnp_coll_op)i)), i);
}

/* Ring all-reduce, textbook T = 2(p-1) a + 2(p-1)/p S/B (Patarasuk & Yuan
 * 2009), p = 8, B = 100 GB/s, S = 1e9 bytes:
 *   a = 0:    T = 2*7/8 * 1e9/1e11 = 0.0175 s; algbw = 1e9/0.0175 =
 *             57.142857 GB/s; busbw = algbw * 2*7/8 = 100 GB/s = B.
 *   a = 5 us: T = 14 * 5e-6 + 0.0175 = 0.01757 s.
 * The same on 8 bare devices (inter tier) and inside a switch node. */
TEST(coll_ring_allreduce_textbook)
{
    dnp_coll_cost c;
    dnp_comm_group g = one_node(8, DNP_TOPO_SWITCH, 100 * GB, 0.0);
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &g, 1e9, &c);
    CHECK_NEAR(c.time_s, 0.0175, 1e-12, 0);
    CHECK_NEAR(c.algbw_bps, 1e9 / 0.0175, 1e-12, 0);
    CHECK_NEAR(c.busbw_bps, 100 * GB, 1e-12, 0);
    CHECK_STR(c.algorithm, "ring");
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_RING, &g, 1e9), 0.0175, 1e-12, 0);

    g.intra_lat_s = 5e-6;
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &g, 1e9, &c);
    CHECK_NEAR(c.time_s, 0.01757, 1e-12, 0);
    CHECK_STR(c.algorithm, "ring");

    dnp_comm_group b = bare(8, 100 * GB, 5e-6);
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &b, 1e9, &c);
    CHECK_NEAR(c.time_s, 0.01757, 1e-12, 0);
    CHECK_STR(c.algorithm, "ring");
    /* Tree on the same: 2 floor(log2 8) a + 2S/B = 30e-6 + 0.02 = 0.02003. */
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_TREE, &b, 1e9), 0.02003, 1e-12, 0);
    /* No hierarchical algorithm on bare devices or inside one node. */
    CHECK(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_HIERARCHICAL, &b, 1e9) < 0.0);
    CHECK(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_HIERARCHICAL, &g, 1e9) < 0.0);
}

/* Reduce-scatter / all-gather T = (p-1) a + (p-1)/p S/B (Thakur et al.
 * 2005), p = 8, B = 100 GB/s, S = 1e9:
 *   a = 5 us: 7 * 5e-6 + 7/8 * 0.01 = 35e-6 + 8.75e-3 = 8.785e-3 s;
 *   a = 0:    8.75e-3 s, busbw = (1e9 / 8.75e-3) * 7/8 = 100 GB/s. */
TEST(coll_reduce_scatter_allgather)
{
    dnp_coll_cost c;
    dnp_comm_group g = bare(8, 100 * GB, 5e-6);
    coll_estimate_at_rates(DNP_COLL_REDUCE_SCATTER, &g, 1e9, &c);
    CHECK_NEAR(c.time_s, 8.785e-3, 1e-12, 0);
    CHECK_NEAR(c.busbw_bps, 1e9 / 8.785e-3 * 7.0 / 8.0, 1e-12, 0);
    CHECK_STR(c.algorithm, "ring");
    coll_estimate_at_rates(DNP_COLL_ALLGATHER, &g, 1e9, &c);
    CHECK_NEAR(c.time_s, 8.785e-3, 1e-12, 0);
    CHECK(coll_algo_time_s(DNP_COLL_ALLGATHER, COLL_ALGO_TREE, &g, 1e9) < 0.0);

    g = one_node(8, DNP_TOPO_SWITCH, 100 * GB, 0.0);
    coll_estimate_at_rates(DNP_COLL_ALLGATHER, &g, 1e9, &c);
    CHECK_NEAR(c.time_s, 8.75e-3, 1e-12, 0);
    CHECK_NEAR(c.busbw_bps, 100 * GB, 1e-12, 0);
}

/* 2 nodes x 8, NVSwitch B_i = 300 GB/s, a_i = 1 us; NIC share
 * B_e = 12.5 GB/s (100 Gb/s per GPU), a_e = 5 us; S = 1e9 bytes; p = 16.
 *  hierarchical = 2 x intra ring RS + inter ring AR on S/q:
 *    intra RS  = 7 a_i + 7/8 S/B_i = 7e-6 + 2.916667e-3 = 2.923667e-3
 *    inter AR  = 2(2-1) a_e + 2(2-1)/2 (1e9/8)/B_e = 10e-6 + 1.25e8/1.25e10
 *              = 10e-6 + 10e-3 = 10.01e-3
 *    total     = 2 x 2.923667e-3 + 10.01e-3 = 15.857333e-3 s
 *  flat ring: B = min(B_i, q B_e) = min(300, 100) GB/s = 100 GB/s
 *    2(16-2) a_i + 2(2-1) a_e + 2*15/16 S/B = 28e-6 + 10e-6 + 18.75e-3
 *              = 18.788e-3 s
 *  tree: 2((8-1) a_i + floor(log2 2) a_e) + 2S/B = 24e-6 + 20e-3 = 20.024e-3 s
 *  -> hierarchical.
 * With B_e = 25 GB/s (8 x 200 Gb/s per node): q B_e = 200 GB/s,
 *    ring = 38e-6 + 2*15/16 x 1e9/2e11 = 38e-6 + 9.375e-3 = 9.413e-3
 *    hier = 5.847333e-3 + 10e-6 + 1.25e8/2.5e10 = 5.847333e-3 + 5.01e-3 = 10.857333e-3
 *    tree = 24e-6 + 2e9/2e11 = 10.024e-3
 *  -> ring (a flat ring beats the hierarchy unless B_i > p B_e). */
TEST(coll_hierarchical_two_nodes)
{
    dnp_coll_cost c;
    dnp_comm_group g = two_by_eight(300 * GB, 1e-6, 12.5 * GB, 5e-6);
    double rs = 7e-6 + 7.0 / 8.0 * 1e9 / 300e9;
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_HIERARCHICAL, &g, 1e9),
               2.0 * rs + 10.01e-3, 1e-12, 0);
    CHECK_NEAR(2.0 * rs + 10.01e-3, 15.857333e-3, 1e-6, 0);
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_RING, &g, 1e9), 18.788e-3, 1e-12, 0);
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_TREE, &g, 1e9), 20.024e-3, 1e-12, 0);
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &g, 1e9, &c);
    CHECK_STR(c.algorithm, "hierarchical");
    CHECK_NEAR(c.time_s, 2.0 * rs + 10.01e-3, 1e-12, 0);
    /* busbw = S/T x 2*15/16 */
    CHECK_NEAR(c.busbw_bps, 1e9 / c.time_s * 1.875, 1e-12, 0);

    g.inter_bw_bps = 25 * GB;
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_RING, &g, 1e9), 9.413e-3, 1e-12, 0);
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_HIERARCHICAL, &g, 1e9),
               2.0 * rs + 5.01e-3, 1e-12, 0);
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_TREE, &g, 1e9), 10.024e-3, 1e-12, 0);
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &g, 1e9, &c);
    CHECK_STR(c.algorithm, "ring");
    CHECK_NEAR(c.time_s, 9.413e-3, 1e-12, 0);

    /* Flat ring limited by the intra tier: B_i = 100 GB/s < q B_e = 200,
     * no latency: 2*15/16 * 1e9/1e11 = 18.75e-3 s. */
    g = two_by_eight(100 * GB, 0.0, 25 * GB, 0.0);
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_RING, &g, 1e9), 18.75e-3, 1e-12, 0);
}

/* Tree for small messages, ring for large: 16 bare devices, B = 12.5 GB/s,
 * a = 5 us.
 *   S = 1024: ring = 30 x 5e-6 + 2*15/16*1024/1.25e10 = 150e-6 + 0.1536e-6
 *             tree = 2 x 4 x 5e-6 + 2048/1.25e10 = 40e-6 + 0.16384e-6 -> tree
 *   S = 1e9:  ring = 150e-6 + 0.15 = 0.15015; tree = 40e-6 + 0.16 = 0.16004 -> ring */
TEST(coll_algorithm_choice)
{
    dnp_coll_cost c;
    dnp_comm_group g = bare(16, 12.5 * GB, 5e-6);
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &g, 1024, &c);
    CHECK_STR(c.algorithm, "tree");
    CHECK_NEAR(c.time_s, 40.16384e-6, 1e-12, 0);
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_RING, &g, 1024), 150.1536e-6, 1e-12,
               0);
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &g, 1e9, &c);
    CHECK_STR(c.algorithm, "ring");
    CHECK_NEAR(c.time_s, 0.15015, 1e-12, 0);
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_TREE, &g, 1e9), 0.16004, 1e-12, 0);

    /* Broadcast, 8 bare devices, 100 GB/s, 5 us:
     *   S = 1e9: ring (pipelined chain) 7 x 5e-6 + 1e9/1e11 = 0.010035;
     *            binomial 3 x (5e-6 + 0.01) = 0.030015 -> ring
     *   S = 8:   ring 35e-6 + 8e-11; binomial 3 x (5e-6 + 8e-11) -> binomial */
    g = bare(8, 100 * GB, 5e-6);
    coll_estimate_at_rates(DNP_COLL_BROADCAST, &g, 1e9, &c);
    CHECK_STR(c.algorithm, "ring");
    CHECK_NEAR(c.time_s, 0.010035, 1e-12, 0);
    CHECK_NEAR(c.busbw_bps, c.algbw_bps, 1e-15, 0);
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_BROADCAST, COLL_ALGO_BINOMIAL, &g, 1e9), 0.030015, 1e-12,
               0);
    coll_estimate_at_rates(DNP_COLL_BROADCAST, &g, 8, &c);
    CHECK_STR(c.algorithm, "binomial");
    CHECK_NEAR(c.time_s, 3.0 * (5e-6 + 8e-11), 1e-12, 0);
}

/* nccl-tests doc/PERFORMANCE.md factors on n = 8. */
TEST(coll_bus_factors)
{
    CHECK_NEAR(coll_bus_factor(DNP_COLL_ALLREDUCE, 8), 1.75, 1e-15, 0);
    CHECK_NEAR(coll_bus_factor(DNP_COLL_REDUCE_SCATTER, 8), 0.875, 1e-15, 0);
    CHECK_NEAR(coll_bus_factor(DNP_COLL_ALLGATHER, 8), 0.875, 1e-15, 0);
    CHECK_NEAR(coll_bus_factor(DNP_COLL_ALLTOALL, 8), 0.875, 1e-15, 0);
    CHECK_NEAR(coll_bus_factor(DNP_COLL_BROADCAST, 8), 1.0, 1e-15, 0);
    CHECK_NEAR(coll_bus_factor(DNP_COLL_P2P, 8), 1.0, 1e-15, 0);
    CHECK_NEAR(coll_bus_factor(DNP_COLL_ALLREDUCE, 2), 1.0, 1e-15, 0);
}

/* One member: time 0, "local"; zero bytes: time 0, "none". */
TEST(coll_degenerate)
{
    dnp_coll_cost c;
    dnp_comm_group g = bare(1, 100 * GB, 5e-6);
    for (int op = 0; op < DNP_COLL_COUNT; op++) {
        coll_estimate_at_rates((dnp_coll_op)op, &g, 1e9, &c);
        CHECK_NEAR(c.time_s, 0.0, 0, 0);
        CHECK_NEAR(c.algbw_bps, 0.0, 0, 0);
        CHECK_STR(c.algorithm, "local");
    }
    g = bare(8, 100 * GB, 5e-6);
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &g, 0, &c);
    CHECK_NEAR(c.time_s, 0.0, 0, 0);
    CHECK_STR(c.algorithm, "none");
    /* A group without the bandwidth it needs: infinite, never NaN. */
    g.inter_bw_bps = 0.0;
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &g, 1e9, &c);
    CHECK(isinf(c.time_s));
    CHECK_STR(c.algorithm, "unavailable");
}

/* Topologies inside one node.
 * 4 x 4 torus, B = 100 GB/s (25 per link), a = 1 us, S = 1e9:
 *   RS phase 1: 3e-6 + 3/4 x (S/2)/(B/2) = 3e-6 + 7.5e-3
 *   RS phase 2: 3e-6 + 3/4 x (S/8)/(B/2) = 3e-6 + 1.875e-3
 *   all-reduce = 2 x 9.381e-3 = 18.762e-3 = 12 a + 2*15/16 S/B
 *   ring embedded in the torus (B/2): 30e-6 + 2*15/16 x 1e9/5e10 = 37.53e-3
 * All-to-all, a = 0: torus 4x4: 2 S floor(16/4) / (4 B) = 0.02 s;
 *   ring topology of 8: S floor(64/4) / (8 B) = 1.6e10/8e11 = 0.02 s;
 *   switch of 8: 7/8 S/B = 8.75e-3 s, busbw = 100 GB/s. */
TEST(coll_intra_topologies)
{
    dnp_coll_cost c;
    dnp_comm_group t = one_node(16, DNP_TOPO_TORUS2D, 100 * GB, 1e-6);
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &t, 1e9, &c);
    CHECK_STR(c.algorithm, "torus-2d");
    CHECK_NEAR(c.time_s, 18.762e-3, 1e-12, 0);
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_RING, &t, 1e9), 37.53e-3, 1e-12, 0);
    coll_estimate_at_rates(DNP_COLL_REDUCE_SCATTER, &t, 1e9, &c);
    CHECK_STR(c.algorithm, "torus-2d");
    CHECK_NEAR(c.time_s, 9.381e-3, 1e-12, 0);

    t.intra_lat_s = 0.0;
    coll_estimate_at_rates(DNP_COLL_ALLTOALL, &t, 1e9, &c);
    CHECK_STR(c.algorithm, "pairwise");
    CHECK_NEAR(c.time_s, 0.02, 1e-12, 0);

    dnp_comm_group r = one_node(8, DNP_TOPO_RING, 100 * GB, 0.0);
    coll_estimate_at_rates(DNP_COLL_ALLTOALL, &r, 1e9, &c);
    CHECK_NEAR(c.time_s, 0.02, 1e-12, 0);
    /* Ring all-reduce on a ring topology uses all of B: same as a switch. */
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &r, 1e9, &c);
    CHECK_NEAR(c.time_s, 0.0175, 1e-12, 0);

    dnp_comm_group s = one_node(8, DNP_TOPO_SWITCH, 100 * GB, 0.0);
    coll_estimate_at_rates(DNP_COLL_ALLTOALL, &s, 1e9, &c);
    CHECK_NEAR(c.time_s, 8.75e-3, 1e-12, 0);
    CHECK_NEAR(c.busbw_bps, 100 * GB, 1e-12, 0);

    /* P2P on one ring link (B/2), a = 1 us: 1e-6 + 1e9/5e10 = 0.020001. */
    r.intra_lat_s = 1e-6;
    coll_estimate_at_rates(DNP_COLL_P2P, &r, 1e9, &c);
    CHECK_STR(c.algorithm, "direct");
    CHECK_NEAR(c.time_s, 0.020001, 1e-12, 0);
}

/* Across nodes: 2 x 8, B_i = 300 GB/s, a_i = 1 us, B_e = 12.5 GB/s,
 * a_e = 5 us, S = 1e9, p = 16.
 *   all-to-all = 7 a_i + 7/8 x (S x 8/16)/B_i + 8 x (a_e + (S/16)/B_e)
 *              = 7e-6 + 1.458333e-3 + 8 x (5e-6 + 5e-3) = 41.505333e-3
 *   p2p = a_e + S/B_e = 5e-6 + 0.08 = 0.080005 */
TEST(coll_across_nodes)
{
    dnp_coll_cost c;
    dnp_comm_group g = two_by_eight(300 * GB, 1e-6, 12.5 * GB, 5e-6);
    coll_estimate_at_rates(DNP_COLL_ALLTOALL, &g, 1e9, &c);
    CHECK_NEAR(c.time_s, 7e-6 + 7.0 / 8.0 * 5e8 / 3e11 + 8.0 * (5e-6 + 5e-3), 1e-12, 0);
    CHECK_NEAR(c.time_s, 41.505333e-3, 1e-6, 0);
    coll_estimate_at_rates(DNP_COLL_P2P, &g, 1e9, &c);
    CHECK_NEAR(c.time_s, 0.080005, 1e-12, 0);
    CHECK_NEAR(c.busbw_bps, 1e9 / 0.080005, 1e-12, 0);
    /* Reduce-scatter: 14 a_i + 1 a_e + 15/16 S / min(300, 8 x 12.5) GB/s
     *   = 14e-6 + 5e-6 + 9.375e-3 = 9.394e-3 */
    coll_estimate_at_rates(DNP_COLL_REDUCE_SCATTER, &g, 1e9, &c);
    CHECK_NEAR(c.time_s, 9.394e-3, 1e-12, 0);
}

static dnp_device_type node_type(const char *name, int dpn, dnp_link_topo topo, double intra_bps,
                                 double intra_lat_s, double inter_bps, double inter_lat_s)
{
    dnp_device_type d = {.peak_flops = 100e12, .net_bw_bps = 1 * GB, .bytes_per_elem = 2,
                         .devices_per_node = dpn, .intra_topo = topo, .intra_bw_bps = intra_bps,
                         .intra_lat_s = intra_lat_s, .inter_bw_bps = inter_bps,
                         .inter_lat_s = inter_lat_s};
    snprintf(d.name, sizeof d.name, "%s", name);
    return d;
}

TEST(coll_cluster_comm_group)
{
    dnp_comm_group g;
    dnp_cluster c = {.n_types = 1};
    c.types[0] = node_type("n8", 8, DNP_TOPO_SWITCH, 300 * GB, 2e-6, 25 * GB, 5e-6);

    c.counts[0] = 16; /* 16 / 8 = 2 nodes of 8 */
    dnp_cluster_comm_group(&c, &g);
    CHECK_EQ_INT(g.n_nodes, 2);
    CHECK_EQ_INT(g.per_node, 8);
    CHECK_EQ_INT(g.intra_topo, DNP_TOPO_SWITCH);
    CHECK_NEAR(g.intra_bw_bps, 300 * GB, 0, 0);
    CHECK_NEAR(g.intra_lat_s, 2e-6, 0, 0);
    CHECK_NEAR(g.inter_bw_bps, 25 * GB, 0, 0);
    CHECK_NEAR(g.inter_lat_s, 5e-6, 0, 0);

    c.counts[0] = 4; /* part of one node: 1 x 4 */
    dnp_cluster_comm_group(&c, &g);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_EQ_INT(g.per_node, 4);

    /* 20 devices on nodes of 8 (a parsed cluster fills whole nodes; this
     * one is built by hand): nodes of 8, 8 and 4 members, the last node's 4
     * NIC shares bound a ring through all three, so per node 4 and
     * ceil(20 / 4) = 5 nodes (src/topo, docs/collectives.md "The group of a
     * set of devices") */
    c.counts[0] = 20;
    dnp_cluster_comm_group(&c, &g);
    CHECK_EQ_INT(g.n_nodes, 5);
    CHECK_EQ_INT(g.per_node, 4);

    /* Mixed node types, 16 + 16: per node min(8, 8) = 8, 32 / 8 = 4 nodes;
     * the slowest intra tier (150 GB/s ring), largest latencies, least NIC
     * share. */
    c.counts[0] = 16;
    c.n_types = 2;
    c.types[1] = node_type("r8", 8, DNP_TOPO_RING, 150 * GB, 1e-6, 12.5 * GB, 8e-6);
    c.counts[1] = 16;
    dnp_cluster_comm_group(&c, &g);
    CHECK_EQ_INT(g.n_nodes, 4);
    CHECK_EQ_INT(g.per_node, 8);
    CHECK_EQ_INT(g.intra_topo, DNP_TOPO_RING);
    CHECK_NEAR(g.intra_bw_bps, 150 * GB, 0, 0);
    CHECK_NEAR(g.intra_lat_s, 2e-6, 0, 0);
    CHECK_NEAR(g.inter_bw_bps, 12.5 * GB, 0, 0);
    CHECK_NEAR(g.inter_lat_s, 8e-6, 0, 0);

    /* Bare devices (devices_per_node 0) beside nodes: every member its own
     * node, inter tier at the slowest of 25 GB/s and net_bw_bps 1 GB/s. */
    c.types[1] = node_type("bare", 0, DNP_TOPO_NONE, 0, 0, 0, 0);
    c.counts[1] = 4;
    dnp_cluster_comm_group(&c, &g);
    CHECK_EQ_INT(g.n_nodes, 20);
    CHECK_EQ_INT(g.per_node, 1);
    CHECK_EQ_INT(g.intra_topo, DNP_TOPO_NONE);
    CHECK_NEAR(g.intra_bw_bps, 0, 0, 0);
    CHECK_NEAR(g.inter_bw_bps, 1 * GB, 0, 0);
    CHECK_NEAR(g.inter_lat_s, 5e-6, 0, 0);

    /* A custom spec: bare devices at net_gbps = 800 Gb/s = 100 GB/s, latency 0. */
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("8xcustom(name=g,tflops=100,net_gbps=800)", &c, &err), DNP_OK);
    dnp_cluster_comm_group(&c, &g);
    CHECK_EQ_INT(g.n_nodes, 8);
    CHECK_EQ_INT(g.per_node, 1);
    CHECK_NEAR(g.inter_bw_bps, 100 * GB, 1e-15, 0);
    CHECK_NEAR(g.inter_lat_s, 0, 0, 0);
    dnp_coll_cost cost;
    /* 2*7/8 * 2^30 / 1e11 = 18.790482e-3 s (the golden comm_allreduce_text). */
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &g, 1073741824.0, &cost);
    CHECK_NEAR(cost.time_s, 1.75 * 1073741824.0 / 1e11, 1e-12, 0);
    CHECK_STR(cost.algorithm, "ring");
    /* A mixed custom spec: the slower device's 100 Gb/s = 12.5 GB/s. */
    CHECK_EQ_INT(dnp_cluster_parse("4xcustom(name=g,tflops=100,net_gbps=800)+"
                                   "4xcustom(name=h,tflops=50,net_gbps=100)",
                                   &c, &err),
                 DNP_OK);
    dnp_cluster_comm_group(&c, &g);
    CHECK_EQ_INT(g.n_nodes, 8);
    CHECK_NEAR(g.inter_bw_bps, 12.5 * GB, 1e-15, 0);
}

/* The public estimate is the hand-worked model at NCCL's achieved rates:
 * the intra tier's and the network's bandwidth times their efficiencies
 * (docs/collectives.md, "Link efficiency"), the latencies unchanged. */
TEST(coll_estimate_at_nccl_efficiency)
{
    double ei, ee;
    dnp_coll_link_efficiency(&ei, &ee);
    CHECK_NEAR(ei, 370.0 / 450.0, 1e-15, 0);
    CHECK_NEAR(ee, 0.96, 1e-15, 0);
    dnp_comm_group g = two_by_eight(300 * GB, 2e-6, 25 * GB, 5e-6), at = g;
    at.intra_bw_bps *= ei;
    at.inter_bw_bps *= ee;
    for (int op = 0; op < DNP_COLL_COUNT; op++) {
        dnp_coll_cost pub, raw;
        dnp_coll_estimate((dnp_coll_op)op, &g, 1e9, &pub);
        coll_estimate_at_rates((dnp_coll_op)op, &at, 1e9, &raw);
        CHECK_NEAR(pub.time_s, raw.time_s, 1e-15, 0);
        CHECK_STR(pub.algorithm, raw.algorithm);
    }
    /* one node of 8 on NVSwitch, 1 GB all-reduce: ring 2 x 7/8 x 1e9 /
     * (300e9 x 370/450) + 14 x 2 us = 7.0945946 ms + 28 us */
    dnp_comm_group n8 = one_node(8, DNP_TOPO_SWITCH, 300 * GB, 2e-6);
    dnp_coll_cost c;
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &n8, 1e9, &c);
    CHECK_NEAR(c.time_s, 1.75e9 / (300e9 * 370.0 / 450.0) + 14 * 2e-6, 1e-12, 0);
}
