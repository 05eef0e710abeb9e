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
