/* test_network.c - network kinds as data (docs/cluster.md "Network kinds";
 * docs/collectives.md "Rail-optimised fat tree", "2-D torus groups"): the
 * spec keys and JSON that store them unread, dnp_cluster_check, the
 * rail-local and cross-rail groups of src/topo and the 2-D torus groups and
 * their all-reduce, hand-worked and by exhaustive enumeration. */
#include "test.h"

#include "dnnpar.h"
#include "net/collective_int.h"
#include "topo/topology.h"

#include <stdint.h>

/* 4 DGX A100 (8 GPUs, 200 Gb/s = 25e9 B/s NIC share per GPU, 14 us) on a
 * rail fabric with a 2:1 spine and 1 us of extra spine latency. */
#define RAIL4 "4xdgx-a100(net=rail,net.oversub=2,net.spine_lat_us=1)"

TEST(network_spec_round_trip)
{
    static const char *const specs[] = {
        RAIL4,
        "1xtpu-v3-32(net=torus,net.x=4,net.y=4)",
        "16xcustom(name=g,tflops=10,net_gbps=100,dtype=fp32,node=n,per_node=8,topo=switch,"
        "intra_gbps=100,"
        "net=rail)",
        "4xdgx-a100(net=fattree,net.nodes_per_leaf=2,net.oversub=4,net.spine_lat_us=0.5)",
        "8xa100(net=fattree,net.nodes_per_leaf=4)",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        dnp_cluster c, back, json_back;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_cluster_parse(specs[i], &c, &err), DNP_OK);
        CHECK_EQ_INT(dnp_cluster_check(&c, &err), DNP_OK);
        char *spec = dnp_cluster_spec(&c);
        CHECK(spec != NULL);
        if (spec == NULL)
            continue;
        CHECK_STR(spec, specs[i]);
        CHECK_EQ_INT(dnp_cluster_parse(spec, &back, &err), DNP_OK);
        CHECK(memcmp(&back.types[0].net, &c.types[0].net, sizeof c.types[0].net) == 0);
        char *json = dnp_cluster_to_json(&c);
        CHECK(json != NULL);
        if (json != NULL) {
            CHECK(strstr(json, "\"net\"") != NULL);
            CHECK_EQ_INT(dnp_cluster_read_json_buffer(json, strlen(json), "t.json", &json_back,
                                                      &err),
                         DNP_OK);
            CHECK(memcmp(&json_back.types[0].net, &c.types[0].net, sizeof c.types[0].net) == 0);
        }
        dnp_free(json);
        dnp_free(spec);
    }
    /* the parser stores names in lower case and numbers as written */
    dnp_cluster c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("2xdgx-a100(NET=Rail,Net.OverSub=4)", &c, &err), DNP_OK);
    CHECK_STR(c.types[0].net.kind, "rail");
    CHECK_EQ_INT(c.types[0].net.n_params, 1);
    CHECK_STR(c.types[0].net.param_name[0], "oversub");
    CHECK_NEAR(c.types[0].net.param_value[0], 4.0, 0.0, 0.0);
    /* hw stores what it does not know, and JSON carries it back: a kind
     * and a number no table has ('.' in its name) */
    CHECK_EQ_INT(dnp_cluster_parse("2xdgx-a100(net=future,net.a.b=0.25)", &c, &err), DNP_OK);
    char *text = dnp_cluster_to_json(&c);
    dnp_cluster back;
    CHECK(text != NULL);
    if (text != NULL) {
        CHECK_EQ_INT(dnp_cluster_read_json_buffer(text, strlen(text), "f.json", &back, &err),
                     DNP_OK);
        CHECK(memcmp(&back.types[0].net, &c.types[0].net, sizeof c.types[0].net) == 0);
    }
    dnp_free(text);
    CHECK_EQ_INT(dnp_cluster_check(&c, &err), DNP_ERR_INPUT);
    /* a cluster without net writes no "net" member (old files unchanged) */
    CHECK_EQ_INT(dnp_cluster_parse("2xdgx-a100", &c, &err), DNP_OK);
    char *json = dnp_cluster_to_json(&c);
    CHECK(json != NULL && strstr(json, "\"net\"") == NULL);
    dnp_free(json);
}

/* Syntax errors are the parser's, meaning errors dnp_cluster_check's: each
 * names what and where. */
TEST(network_errors)
{
    static const struct {
        const char *spec, *parse_msg, *check_msg;
    } cases[] = {
        {"2xdgx-a100(net.oversub=2)", "net.NAME keys need net=KIND", NULL},
        {"2xdgx-a100(net=rail,net.oversub=-1)", "invalid number '-1' for key 'net.oversub'", NULL},
        {"2xdgx-a100(net=rail,net.a=1,net.b=1,net.c=1,net.d=1,net.e=1)", "more than 4 net.NAME",
         NULL},
        {"2xdgx-a100(net=rail,net.oversub=1,net.OVERSUB=2)", "duplicate key 'net.OVERSUB'", NULL},
        {"2xdgx-a100(net=r@il)", "invalid network kind", NULL},
        {"2xdgx-a100(net=rail,net.kind=1)", "not 'kind'", NULL},
        {"2xdgx-a100(net=mesh)", NULL,
         "device type 1 (a100 in dgx-a100): unknown network kind 'mesh' (known: rail, torus, "
         "fattree)"},
        {"2xdgx-a100(net=rail,net.x=2)", NULL,
         "network 'rail' has no number 'net.x' (known: net.oversub, net.spine_lat_us)"},
        {"2xdgx-a100(net=rail,net.oversub=0.5)", NULL,
         "net.oversub=0.5 must be a number from 1 to 1024"},
        {"4xa100(net=rail)", NULL, "joins nodes of 2 to 256 devices"},
        {"tpu-v3-32(net=torus,net.x=4)", NULL, "network 'torus' needs net.y"},
        {"tpu-v3-32(net=torus,net.x=4,net.y=8)", NULL,
         "net.x x net.y = 4 x 8 must be the node's 16 devices"},
        {"tpu-v3-32(net=torus,net.x=2.5,net.y=8)", NULL, "net.x=2.5 must be an integer"},
        {"2xdgx-a100(net=torus,net.x=2,net.y=4)", NULL, "topo is torus2d, not switch"},
        {"4xdgx-a100(net=fattree,net.oversub=2)", NULL,
         "device type 1 (a100 in dgx-a100): network 'fattree' needs net.nodes_per_leaf"},
        {"4xdgx-a100(net=fattree,net.nodes_per_leaf=0)", NULL,
         "network 'fattree': net.nodes_per_leaf=0 must be an integer from 1 to 65536"},
        {"4xdgx-a100(net=fattree,net.nodes_per_leaf=1.5)", NULL,
         "net.nodes_per_leaf=1.5 must be an integer from 1 to 65536"},
        {"4xdgx-a100(net=fattree,net.nodes_per_leaf=70000)", NULL,
         "net.nodes_per_leaf=70000 must be an integer from 1 to 65536"},
        {"4xdgx-a100(net=fattree,net.nodes_per_leaf=2,net.oversub=0.5)", NULL,
         "network 'fattree': net.oversub=0.5 must be a number from 1 to 1024"},
        {"4xdgx-a100(net=fattree,net.nodes_per_leaf=2,net.x=4)", NULL,
         "network 'fattree' has no number 'net.x' (known: net.nodes_per_leaf, net.oversub, "
         "net.spine_lat_us)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dnp_cluster c;
        dnp_error err = {0};
        dnp_status st = dnp_cluster_parse(cases[i].spec, &c, &err);
        if (cases[i].parse_msg != NULL) {
            CHECK_EQ_INT(st, DNP_ERR_INPUT);
            if (strstr(err.msg, cases[i].parse_msg) == NULL)
                printf("  case %zu: %s\n", i, err.msg);
            CHECK(strstr(err.msg, cases[i].parse_msg) != NULL);
            continue;
        }
        CHECK_EQ_INT(st, DNP_OK);
        CHECK_EQ_INT(dnp_cluster_check(&c, &err), DNP_ERR_INPUT);
        if (strstr(err.msg, cases[i].check_msg) == NULL)
            printf("  case %zu: %s\n", i, err.msg);
        CHECK(strstr(err.msg, cases[i].check_msg) != NULL);
    }
    /* JSON: a "net" that is not {kind, numbers} */
    static const char *const bad_json =
        "{\"format\":\"dnnpar-cluster\",\"version\":1,\"devices\":[{\"name\":\"g\",\"count\":2,"
        "\"peak_flops\":1e12,\"mem_bytes\":0,\"mem_bw_bps\":0,\"net_bw_bps\":1e9,"
        "\"dtype\":\"fp32\",\"net\":{\"kind\":\"rail\",\"oversub\":\"two\"}}]}";
    dnp_cluster c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_read_json_buffer(bad_json, strlen(bad_json), "bad.json", &c, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "bad.json: devices[0] ('g'): \"net\" must be") != NULL);
}

/* docs/collectives.md, "Rail-optimised fat tree", worked by hand. */
TEST(network_rail_local_vs_cross)
{
    dnp_cluster c, flat;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse(RAIL4, &c, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("4xdgx-a100", &flat, &err), DNP_OK);
    dnp_comm_group g;
    dnp_coll_cost cost;
    /* GPU 0 of each node: rail 0, 4 x 1 at the NIC share 25e9 B/s, 14 us;
     * ring all-reduce of 1 GiB at 0.96 of it:
     * 6 x 14 us + 2 x 3/4 x 2^30 / 24e9 = 84 us + 67.108864 ms */
    topo_group_strided(&c, 0, 4, 8, &g);
    CHECK_EQ_INT(g.n_nodes, 4);
    CHECK_EQ_INT(g.per_node, 1);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 14e-6, 1e-12, 0.0);
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &g, 1073741824.0, &cost);
    CHECK_NEAR(cost.time_s, 84e-6 + 0.067108864, 1e-12, 0.0);
    CHECK_STR(cost.algorithm, "ring");
    /* GPU i of node i (ranks 0, 9, 18, 27): the same shape on four rails,
     * across the spine: 12.5e9 B/s, 15 us;
     * 6 x 15 us + 2 x 3/4 x 2^30 / 12e9 = 90 us + 134.217728 ms */
    topo_group_strided(&c, 0, 4, 9, &g);
    CHECK_EQ_INT(g.n_nodes, 4);
    CHECK_EQ_INT(g.per_node, 1);
    CHECK_NEAR(g.inter_bw_bps, 12.5e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 15e-6, 1e-12, 0.0);
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &g, 1073741824.0, &cost);
    CHECK_NEAR(cost.time_s, 90e-6 + 0.134217728, 1e-12, 0.0);
    /* the flat network (no kind) keeps today's figures for both */
    topo_group_strided(&flat, 0, 4, 9, &g);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 14e-6, 1e-12, 0.0);
    /* Megatron-LM's data-parallel group with tp = 2 (ranks 1, 17): rail 1 */
    topo_group_strided(&c, 1, 2, 16, &g);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    /* whole nodes: every rail on every node, rail-local, 4 x 8 */
    topo_group_strided(&c, 0, 32, 1, &g);
    CHECK_EQ_INT(g.n_nodes, 4);
    CHECK_EQ_INT(g.per_node, 8);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    dnp_cluster_comm_group(&c, &g);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    /* {0, 1} + {8, 9}: the same GPUs on both nodes; {0, 1} + {9, 10}: not */
    int64_t same[4] = {0, 1, 8, 9}, shifted[4] = {0, 1, 9, 10};
    CHECK_EQ_INT(topo_group(&c, same, 4, &g), 0);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    CHECK_EQ_INT(topo_group(&c, shifted, 4, &g), 0);
    CHECK_EQ_INT(g.n_nodes, 2);
    CHECK_EQ_INT(g.per_node, 2);
    CHECK_NEAR(g.inter_bw_bps, 12.5e9, 1e-12, 0.0);
    /* inside one node the rails do not matter */
    topo_group_strided(&c, 1, 3, 2, &g);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_NEAR(g.inter_lat_s, 14e-6, 1e-12, 0.0);
    /* point to point: GPU 3 to GPU 3 on rail 3, GPU 3 to GPU 4 across */
    topo_p2p(&c, 3, 11, &g);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 14e-6, 1e-12, 0.0);
    topo_p2p(&c, 3, 12, &g);
    CHECK_NEAR(g.inter_bw_bps, 12.5e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 15e-6, 1e-12, 0.0);
    /* the public strided group is topo's */
    dnp_comm_group pub;
    dnp_cluster_comm_group_strided(&c, 0, 4, 9, &pub);
    topo_group_strided(&c, 0, 4, 9, &g);
    g.intra_topo = DNP_TOPO_NONE;
    g.intra_bw_bps = g.intra_lat_s = 0.0;
    CHECK(memcmp(&pub, &g, sizeof g) == 0);
}

/* Every subset of 3 nodes of 4 on a rail fabric (4,095 groups): the shape
 * is the flat network's, and the figures are the spine's exactly when two
 * spanned nodes hold members at different local indices. */
TEST(network_rail_exhaustive)
{
#define NODE_KEYS "node=n,per_node=4,topo=switch,intra_gbps=10,inter_gbps=8,inter_lat_us=2"
    dnp_cluster c, flat;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("12xcustom(name=r,tflops=1,net_gbps=8," NODE_KEYS
                                   ",net=rail,net.oversub=4,net.spine_lat_us=3)",
                                   &c, &err),
                 DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("12xcustom(name=r,tflops=1,net_gbps=8," NODE_KEYS ")", &flat,
                                   &err),
                 DNP_OK);
#undef NODE_KEYS
    int64_t r[12];
    for (unsigned set = 1; set < (1u << 12); set++) {
        int n = 0;
        unsigned locals[3] = {0, 0, 0};
        for (int i = 0; i < 12; i++)
            if (set & (1u << i)) {
                r[n++] = i;
                locals[i / 4] |= 1u << (i % 4);
            }
        unsigned first = 0;
        int nodes = 0, cross = 0;
        for (int k = 0; k < 3; k++) {
            if (locals[k] == 0)
                continue;
            if (nodes++ == 0)
                first = locals[k];
            else
                cross |= locals[k] != first;
        }
        dnp_comm_group g, f;
        CHECK_EQ_INT(topo_group(&c, r, n, &g), 0);
        CHECK_EQ_INT(topo_group(&flat, r, n, &f), 0);
        CHECK_EQ_INT(g.n_nodes, f.n_nodes);
        CHECK_EQ_INT(g.per_node, f.per_node);
        double bw = nodes > 1 && cross ? 0.25e9 : 1e9, lat = nodes > 1 && cross ? 5e-6 : 2e-6;
        if (fabs(g.inter_bw_bps - bw) > 1e-3 || fabs(g.inter_lat_s - lat) > 1e-15) {
            printf("  set 0x%03x: %g B/s %g s, expected %g %g\n", set, g.inter_bw_bps,
                   g.inter_lat_s, bw, lat);
            CHECK(0);
        }
    }
    /* a run of ranks is the list of its ranks (the bulk path over whole
     * nodes), at every start and length */
    for (int64_t first = 0; first < 12; first++)
        for (int64_t n = 1; n <= 12 - first; n++) {
            dnp_comm_group run, list;
            for (int64_t i = 0; i < n; i++)
                r[i] = first + i;
            topo_group_strided(&c, first, n, 1, &run);
            CHECK_EQ_INT(topo_group(&c, r, n, &list), 0);
            CHECK(memcmp(&run, &list, sizeof run) == 0);
        }
}

/* A 4 x 4 torus (tpu-v3-32, local index l at column l mod 4, row l div 4):
 * the shapes of hand-picked groups, then every subset of its 16 chips. */
TEST(network_torus_groups)
{
    dnp_cluster c, plain;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("tpu-v3-32(net=torus,net.x=4,net.y=4)", &c, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("tpu-v3-32", &plain, &err), DNP_OK);
    dnp_comm_group g;
    topo_group_strided(&c, 0, 4, 1, &g); /* a row */
    CHECK_EQ_INT(g.shape[0], 4);
    CHECK_EQ_INT(g.shape[1], 1);
    CHECK_EQ_INT(g.intra_topo, DNP_TOPO_TORUS2D);
    topo_group_strided(&c, 1, 4, 4, &g); /* column 1 */
    CHECK_EQ_INT(g.shape[0], 1);
    CHECK_EQ_INT(g.shape[1], 4);
    topo_group_strided(&c, 0, 8, 1, &g); /* two rows */
    CHECK_EQ_INT(g.shape[0], 4);
    CHECK_EQ_INT(g.shape[1], 2);
    topo_group_strided(&c, 0, 16, 1, &g);
    CHECK_EQ_INT(g.shape[0], 4);
    CHECK_EQ_INT(g.shape[1], 4);
    int64_t square[4] = {0, 1, 4, 5}, spread[4] = {0, 2, 8, 10}, odd[3] = {0, 1, 4};
    CHECK_EQ_INT(topo_group(&c, square, 4, &g), 0);
    CHECK_EQ_INT(g.shape[0] * 10 + g.shape[1], 22);
    CHECK_EQ_INT(topo_group(&c, spread, 4, &g), 0);
    CHECK_EQ_INT(g.shape[0] * 10 + g.shape[1], 22);
    CHECK_EQ_INT(topo_group(&c, odd, 3, &g), 0);
    CHECK_EQ_INT(g.shape[0] + g.shape[1], 0); /* not a grid: unknown */
    topo_group_strided(&plain, 0, 4, 1, &g);  /* no network kind: unknown */
    CHECK_EQ_INT(g.shape[0] + g.shape[1], 0);
    int64_t r[16];
    for (unsigned set = 1; set < (1u << 16); set++) {
        int n = 0;
        unsigned xs = 0, ys = 0;
        for (int i = 0; i < 16; i++)
            if (set & (1u << i)) {
                r[n++] = i;
                xs |= 1u << (i % 4);
                ys |= 1u << (i / 4);
            }
        int nx = __builtin_popcount(xs), ny = __builtin_popcount(ys);
        int64_t want0 = nx * ny == n ? nx : 0, want1 = nx * ny == n ? ny : 0;
        CHECK_EQ_INT(topo_group(&c, r, n, &g), 0);
        if (g.shape[0] != want0 || g.shape[1] != want1) {
            printf("  set 0x%04x: %lld x %lld, expected %lld x %lld\n", set,
                   (long long)g.shape[0], (long long)g.shape[1], (long long)want0,
                   (long long)want1);
            CHECK(0);
        }
    }
}

/* docs/collectives.md, "2-D torus", worked by hand at the rates given
 * (B_i = 400 GB/s, a_i = 3.4 us, S = 64 MiB). */
TEST(network_torus_allreduce_by_hand)
{
    dnp_comm_group g = {1, 16, DNP_TOPO_TORUS2D, 4e11, 3.4e-6, 0.0, 0.0, {4, 4}};
    dnp_coll_cost cost;
    const double s = 67108864.0;
    /* phase1 = 3 x 3.4 + 3/4 x 2^25 / 2e11 s = 10.2 + 125.82912 us;
     * phase2 = 10.2 + 3/4 x 2^23 / 2e11 = 10.2 + 31.45728 us;
     * all-reduce = 2 (136.02912 + 41.65728) = 355.3728 us */
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &g, s, &cost);
    CHECK_NEAR(cost.time_s, 355.3728e-6, 1e-12, 0.0);
    CHECK_STR(cost.algorithm, "torus-2d");
    /* the flat ring on the torus's 2 links: 30 x 3.4 + 2 x 15/16 x 2^26 / 2e11 */
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_RING, &g, s),
               102e-6 + 629.1456e-6, 1e-12, 0.0);
    /* 2 x 8: phase1 = max(3.4 + 1/2 x 167.77216, 23.8 + 7/8 x 167.77216) = 170.60064 us,
     * phase2 = max(23.8 + 7/8 x 83.88608, 3.4 + 1/2 x 20.97152) = 97.20032 us */
    g.shape[0] = 2;
    g.shape[1] = 8;
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_TORUS2D, &g, s),
               2.0 * (170.60064e-6 + 97.20032e-6), 1e-12, 0.0);
    /* a shape that does not multiply to per_node is ignored: 4 x 4 again */
    g.shape[0] = 3;
    g.shape[1] = 5;
    CHECK_NEAR(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_TORUS2D, &g, s), 355.3728e-6,
               1e-12, 0.0);
    /* one row of 4 is the ring of 4 on the 2 links of its dimension (B_i/2):
     * 6 x 3.4 + 2 x 3/4 x 2^26 / 2e11 = 20.4 + 503.31648 us, the same as a
     * ring node of 2e11 B/s */
    dnp_comm_group row = {1, 4, DNP_TOPO_TORUS2D, 4e11, 3.4e-6, 0.0, 0.0, {4, 1}};
    dnp_comm_group ring = {1, 4, DNP_TOPO_RING, 2e11, 3.4e-6, 0.0, 0.0, {0, 0}};
    dnp_coll_cost c_row, c_ring;
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &row, s, &c_row);
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &ring, s, &c_ring);
    CHECK_NEAR(c_row.time_s, 523.71648e-6, 1e-12, 0.0);
    CHECK_STR(c_row.algorithm, "ring");
    CHECK_NEAR(c_row.time_s, c_ring.time_s, 1e-15, 0.0);
    CHECK_EQ_INT(coll_algo_time_s(DNP_COLL_ALLREDUCE, COLL_ALGO_TORUS2D, &row, s) < 0.0, 1);
    /* through src/topo: Megatron's tensor-parallel row of 4 on a 4 x 4 slice */
    dnp_cluster c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("tpu-v3-32(net=torus,net.x=4,net.y=4)", &c, &err), DNP_OK);
    dnp_comm_group tp;
    topo_group_strided(&c, 0, 4, 1, &tp);
    coll_estimate_at_rates(DNP_COLL_ALLREDUCE, &tp, s, &c_row);
    CHECK_NEAR(c_row.time_s, 523.71648e-6, 1e-12, 0.0);
}

/* dnp_cluster_override (dnnpar sweep --vary): net.NAME alone changes the
 * numbers of the type's own kind; net=KIND replaces the whole network. */
TEST(network_override)
{
    dnp_cluster c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse(RAIL4, &c, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_override(&c, NULL, "net.oversub=4", &err), DNP_OK);
    CHECK_STR(c.types[0].net.kind, "rail");
    CHECK_EQ_INT(c.types[0].net.n_params, 2);
    CHECK_NEAR(c.types[0].net.param_value[0], 4.0, 0.0, 0.0); /* oversub, replaced */
    CHECK_NEAR(c.types[0].net.param_value[1], 1.0, 0.0, 0.0); /* spine_lat_us, kept */
    dnp_comm_group g;
    topo_group_strided(&c, 0, 4, 9, &g);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    CHECK_EQ_INT(dnp_cluster_override(&c, NULL, "net=torus,net.x=2,net.y=4", &err), DNP_OK);
    CHECK_STR(c.types[0].net.kind, "torus");
    CHECK_EQ_INT(c.types[0].net.n_params, 2);
    CHECK_EQ_INT(dnp_cluster_check(&c, &err), DNP_ERR_INPUT); /* a switch node */
    dnp_error e2 = {0};
    CHECK_EQ_INT(dnp_cluster_parse("4xdgx-a100", &c, &e2), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_override(&c, NULL, "net.oversub=4", &e2), DNP_ERR_INPUT);
    CHECK(strstr(e2.msg, "type 'dgx-a100' has none") != NULL);
    CHECK_EQ_INT(c.types[0].net.kind[0], '\0'); /* unchanged */
}

/* 4 DGX A100 on a leaf-spine fat tree (docs/collectives.md, "Leaf-spine fat
 * tree"): every NIC of a node on its leaf, 2 nodes a leaf (nodes 0, 1 on
 * leaf 0; 2, 3 on leaf 1), leaf downlink : uplink rate O. */
#define FATTREE4(o) "4xdgx-a100(net=fattree,net.nodes_per_leaf=2,net.oversub=" o ")"

/* docs/collectives.md, "Leaf-spine fat tree", worked by hand: B_e = 25e9
 * B/s per GPU (24e9 achieved), a_e = 14 us, B_i = 300e9 (246.67e9
 * achieved), a_i = 3.4 us, S = 1 GiB.  A group whose nodes sit on m_j of
 * the group's nodes per leaf j, over several leaves, has
 * B_e' = B_e min over j of min(1, m_j / oversub). */
TEST(network_fattree_by_hand)
{
    const double s = 1073741824.0;
    dnp_cluster c2, c4, flat;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse(FATTREE4("2"), &c2, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse(FATTREE4("4"), &c4, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("4xdgx-a100", &flat, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_check(&c4, &err), DNP_OK);
    dnp_comm_group g;
    dnp_coll_cost cost;
    /* within one leaf (nodes 0, 1: ranks 0..15): the NIC rate at any
     * oversubscription.  Ring: 2 x 8 members, B = min(246.67e9, 8 x 24e9)
     * = 192e9; 2 ((16 - 2) 3.4 + (2 - 1) 14) us + 2 x 15/16 x 2^30 / 192e9
     * = 123.2 us + 10.48576 ms */
    topo_group_strided(&c4, 0, 16, 1, &g);
    CHECK_EQ_INT(g.n_nodes, 2);
    CHECK_EQ_INT(g.per_node, 8);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 14e-6, 1e-12, 0.0);
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &g, s, &cost);
    CHECK_STR(cost.algorithm, "ring");
    CHECK_NEAR(cost.time_s, 123.2e-6 + 10.48576e-3, 1e-12, 0.0);
    /* the whole cluster crosses the spine, 2 of its nodes on each leaf.
     * oversub 2: min(1, 2/2) = 1, the flat network's 25e9:
     * 2 (28 x 3.4 + 3 x 14) us + 2 x 31/32 x 2^30 / 192e9
     * = 274.4 us + 10.835285333 ms */
    dnp_cluster_comm_group(&c2, &g);
    CHECK_EQ_INT(g.n_nodes, 4);
    CHECK_EQ_INT(g.per_node, 8);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &g, s, &cost);
    CHECK_STR(cost.algorithm, "ring");
    CHECK_NEAR(cost.time_s, 274.4e-6 + 2080374784.0 / 192e9, 1e-12, 0.0);
    CHECK_NEAR(cost.time_s, 11.109685333e-3, 1e-9, 0.0);
    /* oversub 4: min(1, 2/4) = 1/2, 12.5e9 (12e9 achieved); the ring's
     * node rate 8 x 12e9 = 96e9 < 246.67e9:
     * 274.4 us + 2 x 31/32 x 2^30 / 96e9 = 274.4 us + 21.670570667 ms */
    dnp_cluster_comm_group(&c4, &g);
    CHECK_NEAR(g.inter_bw_bps, 12.5e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 14e-6, 1e-12, 0.0);
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &g, s, &cost);
    CHECK_STR(cost.algorithm, "ring");
    CHECK_NEAR(cost.time_s, 274.4e-6 + 2080374784.0 / 96e9, 1e-12, 0.0);
    CHECK_NEAR(cost.time_s, 21.944970667e-3, 1e-9, 0.0);
    /* GPU 0 of every node (Megatron's data-parallel group at tp 8): 4 x 1,
     * 2 nodes a leaf: 12.5e9 at oversub 4, where the rail network keeps it
     * on rail 0 at 25e9; 6 x 14 us + 2 x 3/4 x 2^30 / 12e9
     * = 84 us + 134.217728 ms */
    topo_group_strided(&c4, 0, 4, 8, &g);
    CHECK_EQ_INT(g.n_nodes, 4);
    CHECK_EQ_INT(g.per_node, 1);
    CHECK_NEAR(g.inter_bw_bps, 12.5e9, 1e-12, 0.0);
    dnp_coll_estimate(DNP_COLL_ALLREDUCE, &g, s, &cost);
    CHECK_NEAR(cost.time_s, 84e-6 + 0.134217728, 1e-12, 0.0);
    topo_group_strided(&c2, 0, 4, 8, &g);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    /* one node on each leaf (GPU 0 of nodes 0 and 2): min(1, 1/oversub) */
    int64_t spread[2] = {0, 16};
    CHECK_EQ_INT(topo_group(&c4, spread, 2, &g), 0);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    CHECK_EQ_INT(topo_group(&c2, spread, 2, &g), 0);
    CHECK_NEAR(g.inter_bw_bps, 12.5e9, 1e-12, 0.0);
    /* 3 nodes: 2 on leaf 0, 1 on leaf 1: the emptier leaf binds (1/4) */
    topo_group_strided(&c4, 0, 24, 1, &g);
    CHECK_EQ_INT(g.n_nodes, 3);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    /* point to point: within a leaf at the NIC rate, across at 1/oversub */
    topo_p2p(&c4, 3, 11, &g);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    topo_p2p(&c4, 11, 19, &g);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    topo_p2p(&c4, 19, 11, &g);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    /* inside one node the leaves do not matter */
    topo_group_strided(&c4, 0, 8, 1, &g);
    CHECK_EQ_INT(g.n_nodes, 1);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    /* the spine latency: on every inter-node step of a group across leaves */
    dnp_cluster lat;
    CHECK_EQ_INT(dnp_cluster_parse("4xdgx-a100(net=fattree,net.nodes_per_leaf=2,net.oversub=4,"
                                   "net.spine_lat_us=1)",
                                   &lat, &err),
                 DNP_OK);
    dnp_cluster_comm_group(&lat, &g);
    CHECK_NEAR(g.inter_lat_s, 15e-6, 1e-12, 0.0);
    topo_group_strided(&lat, 0, 16, 1, &g);
    CHECK_NEAR(g.inter_lat_s, 14e-6, 1e-12, 0.0);
    /* a mixed group: each type's NIC share at its own leaves' factor.  GPU 0
     * of the last DGX A100 (leaf 1, alone: 25e9 x 1/4) with GPU 0 of a
     * DGX-1 (flat, 4 x 100 Gb/s / 8 = 6.25e9): 6.25e9; at oversub 8 the
     * A100's 3.125e9 binds */
    dnp_cluster mix;
    CHECK_EQ_INT(dnp_cluster_parse(FATTREE4("4") "+2xdgx1", &mix, &err), DNP_OK);
    topo_p2p(&mix, 24, 32, &g);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    CHECK_EQ_INT(dnp_cluster_parse(FATTREE4("8") "+2xdgx1", &mix, &err), DNP_OK);
    topo_p2p(&mix, 24, 32, &g);
    CHECK_NEAR(g.inter_bw_bps, 3.125e9, 1e-12, 0.0);
    /* two flat types: no fat-tree leaf, the figures of before */
    dnp_cluster two;
    CHECK_EQ_INT(dnp_cluster_parse("4xdgx-a100+2xdgx1", &two, &err), DNP_OK);
    topo_p2p(&two, 24, 32, &g);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 14e-6, 1e-12, 0.0);
}

/* Every subset of 6 nodes of 2 devices (4,095 groups) on leaves of 2
 * nodes: the shape is the flat network's; the NIC share is the flat one
 * times min over spanned leaves of min(1, m / oversub) when the group spans
 * 2 or 3 leaves, the latency plus the spine's; at oversub 1 with no spine
 * latency the group is the flat network's, byte for byte.  Then runs of
 * ranks (the bulk path over whole nodes and whole leaves) against their
 * lists, on leaves of 3 nodes. */
TEST(network_fattree_exhaustive)
{
#define NODE_KEYS "node=n,per_node=2,topo=switch,intra_gbps=10,inter_gbps=8,inter_lat_us=2"
    dnp_cluster c, one, flat;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("12xcustom(name=f,tflops=1,net_gbps=8," NODE_KEYS
                                   ",net=fattree,net.nodes_per_leaf=2,net.oversub=3,"
                                   "net.spine_lat_us=3)",
                                   &c, &err),
                 DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("12xcustom(name=f,tflops=1,net_gbps=8," NODE_KEYS
                                   ",net=fattree,net.nodes_per_leaf=2)",
                                   &one, &err),
                 DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("12xcustom(name=f,tflops=1,net_gbps=8," NODE_KEYS ")", &flat,
                                   &err),
                 DNP_OK);
    int64_t r[40];
    for (unsigned set = 1; set < (1u << 12); set++) {
        int n = 0, per_leaf[3] = {0, 0, 0};
        unsigned nodes = 0;
        for (int i = 0; i < 12; i++)
            if (set & (1u << i)) {
                r[n++] = i;
                nodes |= 1u << (i / 2);
            }
        for (int k = 0; k < 6; k++)
            per_leaf[k / 2] += (nodes >> k) & 1u;
        int leaves = 0, least = 3;
        for (int j = 0; j < 3; j++)
            if (per_leaf[j] > 0) {
                leaves++;
                least = per_leaf[j] < least ? per_leaf[j] : least;
            }
        double factor = leaves > 1 ? least / 3.0 : 1.0; /* least <= 2 < oversub 3 */
        double lat = leaves > 1 ? 5e-6 : 2e-6;
        dnp_comm_group g, o, f;
        CHECK_EQ_INT(topo_group(&c, r, n, &g), 0);
        CHECK_EQ_INT(topo_group(&one, r, n, &o), 0);
        CHECK_EQ_INT(topo_group(&flat, r, n, &f), 0);
        CHECK_EQ_INT(g.n_nodes, f.n_nodes);
        CHECK_EQ_INT(g.per_node, f.per_node);
        CHECK(memcmp(&o, &f, sizeof o) == 0);
        if (f.n_nodes == 1) {
            factor = 1.0;
            lat = 2e-6;
        }
        if (fabs(g.inter_bw_bps - 1e9 * factor) > 1e-3 || fabs(g.inter_lat_s - lat) > 1e-15) {
            printf("  set 0x%03x: %g B/s %g s, expected %g %g\n", set, g.inter_bw_bps,
                   g.inter_lat_s, 1e9 * factor, lat);
            CHECK(0);
        }
    }
    /* 20 nodes of 2 on leaves of 3 (the last leaf holds 2): every run */
    dnp_cluster big;
    CHECK_EQ_INT(dnp_cluster_parse("40xcustom(name=f,tflops=1,net_gbps=8," NODE_KEYS
                                   ",net=fattree,net.nodes_per_leaf=3,net.oversub=2)",
                                   &big, &err),
                 DNP_OK);
#undef NODE_KEYS
    for (int64_t first = 0; first < 40; first++)
        for (int64_t n = 1; n <= 40 - first; n++) {
            dnp_comm_group run, list;
            for (int64_t i = 0; i < n; i++)
                r[i] = first + i;
            topo_group_strided(&big, first, n, 1, &run);
            CHECK_EQ_INT(topo_group(&big, r, n, &list), 0);
            if (memcmp(&run, &list, sizeof run) != 0) {
                printf("  run %lld+%lld: %g B/s, list %g B/s\n", (long long)first, (long long)n,
                       run.inter_bw_bps, list.inter_bw_bps);
                CHECK(0);
            }
        }
    /* by hand on the 40: ranks 0..39 span leaves {0,1,2} {3,4,5} ... {18,19}:
     * the last holds 2 nodes, min(1, 2/2) = 1; ranks 0..13 (nodes 0..6):
     * leaf 2 holds node 6 only, 1/2 */
    dnp_comm_group g;
    topo_group_strided(&big, 0, 40, 1, &g);
    CHECK_NEAR(g.inter_bw_bps, 1e9, 1e-12, 0.0);
    topo_group_strided(&big, 0, 14, 1, &g);
    CHECK_NEAR(g.inter_bw_bps, 0.5e9, 1e-12, 0.0);
    topo_group_strided(&big, 0, 12, 1, &g);
    CHECK_NEAR(g.inter_bw_bps, 1e9, 1e-12, 0.0);
}

/* docs/collectives.md, "The device tree's exchange": the link between the
 * halves of a device-tree group on a fat tree, from the counterparts that
 * sit under different leaves (not the group ring's 1/m_j), by hand. */
TEST(network_fattree_tree_link)
{
    dnp_cluster c;
    dnp_error err = {0};
    dnp_comm_group g;
    int64_t counts[DNP_MAX_DEVICE_TYPES] = {32};
    /* 4 nodes, 2 a leaf, 4:1: halves nodes {0, 1} | {2, 3}, every pair
     * (0-2, 1-3) on two leaves: 25e9 / 4, where the ring of the 4 nodes
     * gets 25e9 x 2/4 */
    CHECK_EQ_INT(dnp_cluster_parse(FATTREE4("4"), &c, &err), DNP_OK);
    CHECK_EQ_INT(topo_tree_link(&c, counts, &g), 1);
    CHECK_EQ_INT(g.n_nodes, 2);
    CHECK_EQ_INT(g.per_node, 1);
    CHECK_NEAR(g.inter_bw_bps, 6.25e9, 1e-12, 0.0);
    topo_group_counts(&c, counts, &g);
    CHECK_NEAR(g.inter_bw_bps, 12.5e9, 1e-12, 0.0);
    /* nodes {0} | {1}: one leaf, the NIC rate */
    counts[0] = 16;
    CHECK_EQ_INT(topo_tree_link(&c, counts, &g), 1);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    /* 6 nodes, 4 a leaf, 2:1: halves {0, 1, 2} | {3, 4, 5}; pairs 0-3 under
     * leaf 0, 1-4 and 2-5 across: leaf 0 sends 2 of its 4 nodes' traffic up,
     * min(1, 4 / (2 x 2)) = 1; leaf 1 both of its 2, 2 / (2 x 2) = 1/2 */
    CHECK_EQ_INT(dnp_cluster_parse("6xdgx-a100(net=fattree,net.nodes_per_leaf=4,net.oversub=2,"
                                   "net.spine_lat_us=1)",
                                   &c, &err),
                 DNP_OK);
    counts[0] = 48;
    CHECK_EQ_INT(topo_tree_link(&c, counts, &g), 1);
    CHECK_NEAR(g.inter_bw_bps, 12.5e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 15e-6, 1e-12, 0.0);
    /* halves {0, 1} | {2, 3} of its first 4 nodes: one leaf, no spine */
    counts[0] = 32;
    CHECK_EQ_INT(topo_tree_link(&c, counts, &g), 1);
    CHECK_NEAR(g.inter_bw_bps, 25e9, 1e-12, 0.0);
    CHECK_NEAR(g.inter_lat_s, 14e-6, 1e-12, 0.0);
    /* two types: the first type's half against the others, every pair
     * across: the A100s at 25e9 / 8, below the DGX-1's 6.25e9 */
    CHECK_EQ_INT(dnp_cluster_parse(FATTREE4("8") "+2xdgx1", &c, &err), DNP_OK);
    int64_t both[DNP_MAX_DEVICE_TYPES] = {32, 16};
    CHECK_EQ_INT(topo_tree_link(&c, both, &g), 1);
    CHECK_NEAR(g.inter_bw_bps, 3.125e9, 1e-12, 0.0);
    /* oversub 1: the flat network's link */
    dnp_cluster flat;
    dnp_comm_group f;
    CHECK_EQ_INT(dnp_cluster_parse(FATTREE4("1"), &c, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("4xdgx-a100", &flat, &err), DNP_OK);
    CHECK_EQ_INT(topo_tree_link(&c, counts, &g), 1);
    CHECK_EQ_INT(topo_tree_link(&flat, counts, &f), 1);
    CHECK(memcmp(&g, &f, sizeof g) == 0);
}
