/* test_topology.c - the link group a set of devices spans
 * (src/topo/topology.c, docs/collectives.md "The group of a set of
 * devices"): tiers on hand-built clusters of two node kinds, one of them a
 * PCIe-only node with a slower intra-node figure. */
#include "test.h"

#include "dnnpar.h"
#include "topo/topology.h"

/* 2 nodes of 4 "a" (switch, 100 GB/s inside, 100 Gb/s NIC share, 5 us),
 * then 1 node of 4 "p" on PCIe (ring, 12.5 GB/s inside, 50 Gb/s, 10 us;
 * intra_gbps is in GB/s, inter_gbps in Gb/s, docs/cluster.md):
 * ranks 0-3 node 0, 4-7 node 1, 8-11 node 2. */
#define TWO_KINDS                                                                            \
    "8xcustom(name=a,tflops=100,net_gbps=100,node=na,per_node=4,topo=switch,intra_gbps=100,"  \
    "inter_gbps=100,inter_lat_us=5)+4xcustom(name=p,tflops=50,net_gbps=50,node=np,"           \
    "per_node=4,topo=ring,intra_gbps=12.5,inter_gbps=50,inter_lat_us=10)"

TEST(topology_locate)
{
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse(TWO_KINDS, &cl, &err), DNP_OK);
    int type = -1;
    int64_t node = -1;
    CHECK_EQ_INT(topo_locate(&cl, 5, &type, &node), 0);
    CHECK_EQ_INT(type, 0);
    CHECK_EQ_INT(node, 1);
    CHECK_EQ_INT(topo_locate(&cl, 9, &type, &node), 0);
    CHECK_EQ_INT(type, 1);
    CHECK_EQ_INT(node, 2);
    CHECK_EQ_INT(topo_locate(&cl, 12, &type, &node), -1);
    CHECK_EQ_INT(topo_locate(&cl, -1, &type, &node), -1);
    CHECK_EQ_INT(topo_types_strided(&cl, 6, 4, 1), 3); /* ranks 6-9: both kinds */
    CHECK_EQ_INT(topo_types_strided(&cl, 0, 2, 4), 1); /* ranks 0, 4 */
}

TEST(topology_groups)
{
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse(TWO_KINDS, &cl, &err), DNP_OK);
    dnp_comm_group g;
    /* one node of "a": the switch inside, 100 GB/s */
    topo_group_strided(&cl, 0, 4, 1, &g);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_EQ_INT(g.per_node, 4);
    CHECK_EQ_INT(g.intra_topo, DNP_TOPO_SWITCH);
    CHECK_NEAR(g.intra_bw_bps, 100e9, 1e-12, 0.0);
    /* two nodes of "a": 2 x 4 on the NIC shares, 100 Gb/s = 12.5e9 B/s, 5 us */
    topo_group_strided(&cl, 0, 8, 1, &g);
    CHECK_EQ_INT(g.n_nodes, 2);
    CHECK_EQ_INT(g.per_node, 4);
    CHECK_NEAR(g.inter_bw_bps, 12.5e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 5e-6, 1e-12, 0.0);
    /* ranks 2-5 straddle nodes 0 and 1: 2 x 2 */
    topo_group_strided(&cl, 2, 4, 1, &g);
    CHECK_EQ_INT(g.n_nodes, 2);
    CHECK_EQ_INT(g.per_node, 2);
    /* the PCIe node alone: its ring at 12.5 GB/s */
    topo_group_strided(&cl, 8, 4, 1, &g);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_EQ_INT(g.per_node, 4);
    CHECK_EQ_INT(g.intra_topo, DNP_TOPO_RING);
    CHECK_NEAR(g.intra_bw_bps, 12.5e9, 1e-12, 0.0);
    /* ranks 6-11: 2 "a" on node 1 and 4 "p" on node 2: the fewest per node
     * (2) bound the NICs, ceil(6 / 2) = 3 nodes; the slower kind's figures */
    topo_group_strided(&cl, 6, 6, 1, &g);
    CHECK_EQ_INT(g.n_nodes, 3);
    CHECK_EQ_INT(g.per_node, 2);
    CHECK_EQ_INT(g.intra_topo, DNP_TOPO_RING);
    CHECK_NEAR(g.intra_bw_bps, 12.5e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 10e-6, 1e-12, 0.0);
    /* any order: {9, 3} is {3, 9}, two nodes of one member */
    int64_t r1[2] = {9, 3}, r2[2] = {3, 9};
    dnp_comm_group g1, g2;
    CHECK_EQ_INT(topo_group(&cl, r1, 2, &g1), 0);
    CHECK_EQ_INT(topo_group(&cl, r2, 2, &g2), 0);
    CHECK(memcmp(&g1, &g2, sizeof g1) == 0);
    CHECK_EQ_INT(g1.n_nodes, 2);
    CHECK_EQ_INT(g1.per_node, 1);
    /* bare devices: every device its own node */
    dnp_cluster bare;
    CHECK_EQ_INT(dnp_cluster_parse("4xcustom(name=b,tflops=1,net_gbps=8)", &bare, &err), DNP_OK);
    topo_group_strided(&bare, 0, 4, 1, &g);
    CHECK_EQ_INT(g.n_nodes, 4);
    CHECK_EQ_INT(g.per_node, 1);
    CHECK_NEAR(g.inter_bw_bps, 1e9, 1e-12, 0.0);
}

TEST(topology_p2p)
{
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse(TWO_KINDS, &cl, &err), DNP_OK);
    dnp_comm_group g;
    dnp_coll_cost c;
    /* (every rate at NCCL's achieved fraction, docs/collectives.md: 370/450
     * inside a node, 0.96 on the network) same node of "a": one switch port,
     * 1 MB in 1e6 / (100e9 x 370/450) = 12.162 us (no intra latency given) */
    topo_p2p(&cl, 0, 1, &g);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_EQ_INT(g.per_node, 2);
    dnp_coll_estimate(DNP_COLL_P2P, &g, 1e6, &c);
    CHECK_NEAR(c.time_s, 1e6 / (100e9 * 370.0 / 450.0), 1e-12, 0.0);
    /* two "a" nodes: the NIC share, 5 us + 1e6 / (12.5e9 x 0.96) = 88.333 us */
    topo_p2p(&cl, 0, 4, &g);
    CHECK_EQ_INT(g.n_nodes, 2);
    dnp_coll_estimate(DNP_COLL_P2P, &g, 1e6, &c);
    CHECK_NEAR(c.time_s, 5e-6 + 1e6 / (12.5e9 * 0.96), 1e-12, 0.0);
    /* "a" to "p": the slower NIC share and the larger latency,
     * 10 us + 1e6 / (6.25e9 x 0.96) = 176.667 us */
    topo_p2p(&cl, 7, 8, &g);
    dnp_coll_estimate(DNP_COLL_P2P, &g, 1e6, &c);
    CHECK_NEAR(c.time_s, 10e-6 + 1e6 / (6.25e9 * 0.96), 1e-12, 0.0);
    /* inside the PCIe node: one of the ring's two links, 12.5e9 / 2:
     * 1e6 / (6.25e9 x 370/450) = 194.595 us (no intra latency given) */
    topo_p2p(&cl, 8, 9, &g);
    CHECK_EQ_INT(g.n_nodes, 1);
    dnp_coll_estimate(DNP_COLL_P2P, &g, 1e6, &c);
    CHECK_NEAR(c.time_s, 1e6 / (6.25e9 * 370.0 / 450.0), 1e-12, 0.0);
    /* to itself: free */
    topo_p2p(&cl, 3, 3, &g);
    dnp_coll_estimate(DNP_COLL_P2P, &g, 1e6, &c);
    CHECK_NEAR(c.time_s, 0.0, 0.0, 0.0);
}

/* The group of k devices of each type (topo_group_counts): each type's
 * first devices, from the first of its nodes. */
TEST(topology_group_counts)
{
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse(TWO_KINDS, &cl, &err), DNP_OK);
    dnp_comm_group g;
    /* 2 "a": inside node 0, its switch at 100 GB/s */
    int64_t two_a[2] = {2, 0};
    topo_group_counts(&cl, two_a, &g);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_EQ_INT(g.per_node, 2);
    CHECK_EQ_INT(g.intra_topo, DNP_TOPO_SWITCH);
    CHECK_NEAR(g.intra_bw_bps, 100e9, 1e-12, 0.0);
    /* 8 "a": both of its nodes, 2 x 4 on the 100 Gb/s NIC shares */
    int64_t all_a[2] = {8, 0};
    topo_group_counts(&cl, all_a, &g);
    CHECK_EQ_INT(g.n_nodes, 2);
    CHECK_EQ_INT(g.per_node, 4);
    CHECK_NEAR(g.inter_bw_bps, 12.5e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 5e-6, 1e-12, 0.0);
    /* more than the type has: its 8 */
    int64_t many_a[2] = {20, 0};
    dnp_comm_group g2;
    topo_group_counts(&cl, many_a, &g2);
    CHECK(memcmp(&g, &g2, sizeof g) == 0);
    /* 6 "a": 4 on node 0 and 2 on node 1, the emptier bounds: 3 x 2 */
    int64_t six_a[2] = {6, 0};
    topo_group_counts(&cl, six_a, &g);
    CHECK_EQ_INT(g.n_nodes, 3);
    CHECK_EQ_INT(g.per_node, 2);
    /* the 4 "p": the PCIe node alone, ring at 12.5 GB/s, 1 x 4 */
    int64_t all_p[2] = {0, 4};
    topo_group_counts(&cl, all_p, &g);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_EQ_INT(g.per_node, 4);
    CHECK_EQ_INT(g.intra_topo, DNP_TOPO_RING);
    CHECK_NEAR(g.intra_bw_bps, 12.5e9, 1e-12, 0.0);
    /* one device of each type, NICs of 100 and 50 Gb/s: 2 nodes x 1 on the
     * slower share, 6.25e9 B/s, and the larger latency, 10 us; a 1 MB
     * all-reduce is the ring's 2 (p-1) a + 2 (p-1)/p S / B = 2 x 10 us +
     * 1e6 / (6.25e9 x 0.96) = 20 + 166.667 = 186.667 us (docs/collectives.md,
     * Ring; the tree, 2 x 10 us + 2 S / B, is slower) */
    int64_t one_each[2] = {1, 1};
    topo_group_counts(&cl, one_each, &g);
    CHECK_EQ_INT(g.n_nodes, 2);
    CHECK_EQ_INT(g.per_node, 1);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 10e-6, 1e-12, 0.0);
    dnp_coll_cost c;
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &g, 1e6, &c);
    CHECK_NEAR(c.time_s, 20e-6 + 1e6 / (6.25e9 * 0.96), 1e-12, 0.0);
    CHECK_STR(c.algorithm, "ring");
    /* the whole cluster: 3 nodes x 4; the PCIe ring's 12.5 GB/s inside,
     * the slower NIC share between: dnp_cluster_comm_group is this group */
    topo_group_counts(&cl, cl.counts, &g);
    CHECK_EQ_INT(g.n_nodes, 3);
    CHECK_EQ_INT(g.per_node, 4);
    CHECK_EQ_INT(g.intra_topo, DNP_TOPO_RING);
    CHECK_NEAR(g.intra_bw_bps, 12.5e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    dnp_cluster_comm_group(&cl, &g2);
    CHECK(memcmp(&g, &g2, sizeof g) == 0);
    /* nothing: 1 x 1, free */
    int64_t none[2] = {0, 0};
    topo_group_counts(&cl, none, &g);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_EQ_INT(g.per_node, 1);
    /* a shape given by the caller, the figures of the devices drawn from */
    topo_group_members(&cl, cl.counts, 3, 2, &g);
    CHECK_EQ_INT(g.n_nodes, 3);
    CHECK_EQ_INT(g.per_node, 2);
    CHECK_NEAR(g.intra_bw_bps, 12.5e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    topo_group_members(&cl, all_a, 0, -1, &g);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_EQ_INT(g.per_node, 1);
}

/* The device tree: types first, then whole nodes, then the devices of a
 * node; the link between the halves of each group. */
TEST(topology_tree)
{
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse(TWO_KINDS, &cl, &err), DNP_OK);
    int64_t a[2], b[2];
    /* the root splits by type: 8 "a" | 4 "p" */
    topo_tree_split(&cl, cl.counts, a, b);
    CHECK_EQ_INT(a[0], 8);
    CHECK_EQ_INT(a[1], 0);
    CHECK_EQ_INT(b[0], 0);
    CHECK_EQ_INT(b[1], 4);
    /* 8 "a" on 2 nodes: by whole nodes, 4 | 4 */
    int64_t all_a[2] = {8, 0};
    topo_tree_split(&cl, all_a, a, b);
    CHECK_EQ_INT(a[0], 4);
    CHECK_EQ_INT(b[0], 4);
    /* 3 devices inside a node: the floor first, 1 | 2 */
    int64_t three_p[2] = {0, 3};
    topo_tree_split(&cl, three_p, a, b);
    CHECK_EQ_INT(a[1], 1);
    CHECK_EQ_INT(b[1], 2);
    /* 3 nodes of 4: whole nodes, 4 | 8 (never a split node) */
    dnp_cluster three;
    CHECK_EQ_INT(dnp_cluster_parse("12xcustom(name=a,tflops=100,net_gbps=100,node=na,per_node=4,"
                                   "topo=switch,intra_gbps=100)",
                                   &three, &err),
                 DNP_OK);
    topo_tree_split(&three, three.counts, a, b);
    CHECK_EQ_INT(a[0], 4);
    CHECK_EQ_INT(b[0], 8);

    /* the group at a depth along a branch: level 0 second half (the "p"
     * node), level 1 first half: 2 "p" */
    int64_t g_counts[2] = {-1, -1};
    CHECK_EQ_INT(topo_tree_group(&cl, 2, 1u, g_counts), 0);
    CHECK_EQ_INT(g_counts[0], 0);
    CHECK_EQ_INT(g_counts[1], 2);
    CHECK_EQ_INT(topo_tree_group(&cl, 0, 0u, g_counts), 0);
    CHECK_EQ_INT(g_counts[0], 8);
    CHECK_EQ_INT(g_counts[1], 4);
    /* "a" 8 -> 4 -> 2 -> 1 at depth 4; nothing below */
    CHECK_EQ_INT(topo_tree_group(&cl, 4, 0u, g_counts), 0);
    CHECK_EQ_INT(g_counts[0], 1);
    CHECK_EQ_INT(topo_tree_group(&cl, 5, 0u, g_counts), -1);

    /* links between the halves, and one 1 MB message over each (NCCL's
     * achieved fractions, 370/450 inside a node, 0.96 on the network) */
    dnp_comm_group g;
    dnp_coll_cost c;
    /* the root: "a" | "p" on different nodes, the slower NIC share and
     * latency: 10 us + 1e6 / (6.25e9 x 0.96) = 176.667 us */
    CHECK_EQ_INT(topo_tree_link(&cl, cl.counts, &g), 1);
    CHECK_EQ_INT(g.n_nodes, 2);
    CHECK_EQ_INT(g.per_node, 1);
    dnp_coll_estimate(DNP_COLL_P2P, &g, 1e6, &c);
    CHECK_NEAR(c.time_s, 10e-6 + 1e6 / (6.25e9 * 0.96), 1e-12, 0.0);
    /* "a"'s two nodes: its own NIC share, 5 us + 1e6 / (12.5e9 x 0.96) */
    CHECK_EQ_INT(topo_tree_link(&cl, all_a, &g), 1);
    dnp_coll_estimate(DNP_COLL_P2P, &g, 1e6, &c);
    CHECK_NEAR(c.time_s, 5e-6 + 1e6 / (12.5e9 * 0.96), 1e-12, 0.0);
    /* one "a" node: one switch port, 1e6 / (100e9 x 370/450) = 12.162 us */
    int64_t node_a[2] = {4, 0};
    CHECK_EQ_INT(topo_tree_link(&cl, node_a, &g), 0);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_EQ_INT(g.per_node, 2);
    dnp_coll_estimate(DNP_COLL_P2P, &g, 1e6, &c);
    CHECK_NEAR(c.time_s, 1e6 / (100e9 * 370.0 / 450.0), 1e-12, 0.0);
    /* the PCIe node: one of the ring's two links, 1e6 / (6.25e9 x 370/450) */
    int64_t node_p[2] = {0, 4};
    CHECK_EQ_INT(topo_tree_link(&cl, node_p, &g), 0);
    CHECK_EQ_INT(g.intra_topo, DNP_TOPO_RING);
    dnp_coll_estimate(DNP_COLL_P2P, &g, 1e6, &c);
    CHECK_NEAR(c.time_s, 1e6 / (6.25e9 * 370.0 / 450.0), 1e-12, 0.0);
    /* a single device does not split: 1 x 1 */
    int64_t one_a[2] = {1, 0};
    CHECK_EQ_INT(topo_tree_link(&cl, one_a, &g), 0);
    CHECK_EQ_INT(g.n_nodes * g.per_node, 1);
    CHECK_EQ_INT(topo_tree_link(&cl, one_a, NULL), 0);
    /* bare devices: every split crosses their 8 Gb/s = 1e9 B/s */
    dnp_cluster bare;
    CHECK_EQ_INT(dnp_cluster_parse("4xcustom(name=b,tflops=1,net_gbps=8)", &bare, &err), DNP_OK);
    int64_t two_b[1] = {2};
    CHECK_EQ_INT(topo_tree_link(&bare, two_b, &g), 1);
    CHECK_NEAR(g.inter_bw_bps, 1e9, 1e-12, 0.0);
}

/* Lattices of ranks (topo_group_grid), as PaSE's groups of the devices
 * that differ only in some dimensions of a configuration. */
TEST(topology_grid)
{
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("16xcustom(name=g,tflops=1,net_gbps=8,node=n8,per_node=8,"
                                   "topo=switch,intra_gbps=80)",
                                   &cl, &err),
                 DNP_OK);
    dnp_comm_group g, want;
    /* the batch dimension of a (5, 3) configuration: ranks 0, 3, 6, 9, 12;
     * node 0 holds 3 of them, node 1 holds 2: the 2 NIC shares of node 1
     * bound the ring, ceil(5 / 2) = 3 nodes x 2 (PaSE's closed form gave
     * 2 x 3, a third NIC share node 1 does not have) */
    const int64_t c5[1] = {5}, s3[1] = {3};
    CHECK_EQ_INT(topo_group_grid(&cl, 0, 1, c5, s3, &g), 0);
    CHECK_EQ_INT(g.n_nodes, 3);
    CHECK_EQ_INT(g.per_node, 2);
    /* the same ranks listed */
    int64_t r[5] = {0, 3, 6, 9, 12};
    CHECK_EQ_INT(topo_group(&cl, r, 5, &want), 0);
    CHECK(memcmp(&g, &want, sizeof g) == 0);
    /* (2, 2, 4) over its first and last dimensions: strides 8 and 1,
     * ranks 0-3 and 8-11, 2 nodes x 4 on the NIC shares of 1e9 B/s */
    const int64_t c24[2] = {2, 4}, s81[2] = {8, 1};
    CHECK_EQ_INT(topo_group_grid(&cl, 0, 2, c24, s81, &g), 0);
    CHECK_EQ_INT(g.n_nodes, 2);
    CHECK_EQ_INT(g.per_node, 4);
    CHECK_NEAR(g.inter_bw_bps, 1e9, 1e-12, 0.0);
    CHECK_NEAR(g.intra_bw_bps, 80e9, 1e-12, 0.0);
    /* 4 ranks 2 apart inside node 0: 1 x 4 on the switch */
    const int64_t c4[1] = {4}, s2[1] = {2};
    CHECK_EQ_INT(topo_group_grid(&cl, 0, 1, c4, s2, &g), 0);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_EQ_INT(g.per_node, 4);
    /* strides not decreasing: ranks 0, 8, 1, 9 sorted first, 2 x 2 */
    const int64_t c22[2] = {2, 2}, s18[2] = {1, 8};
    CHECK_EQ_INT(topo_group_grid(&cl, 0, 2, c22, s18, &g), 0);
    CHECK_EQ_INT(g.n_nodes, 2);
    CHECK_EQ_INT(g.per_node, 2);
    /* no dimension: the device alone */
    CHECK_EQ_INT(topo_group_grid(&cl, 5, 0, c4, s2, &g), 0);
    CHECK_EQ_INT(g.n_nodes * g.per_node, 1);
}

/* A contiguous run of ranks is taken node by node (acc_add_range): the
 * same group as listing its ranks, at every start and length. */
TEST(topology_runs_equal_lists)
{
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse(TWO_KINDS "+2xcustom(name=b,tflops=1,net_gbps=8)", &cl, &err),
                 DNP_OK);
    int64_t r[14];
    for (int64_t first = -1; first <= 14; first++)
        for (int64_t n = 0; n <= 15 - first; n++) {
            dnp_comm_group run, list;
            topo_group_strided(&cl, first, n, 1, &run);
            int m = 0;
            for (int64_t i = first; i < first + n; i++)
                if (i >= 0 && i < 14)
                    r[m++] = i;
            CHECK_EQ_INT(topo_group(&cl, r, m, &list), 0);
            CHECK(memcmp(&run, &list, sizeof run) == 0);
        }
}
