/* test_limits.c - resource limits (issue 12, item 5): structural checks
 * that the builders and searches stay within their size bounds, counted
 * in probes and solver calls rather than timed. */
#include "dnnpar.h"
#include "model/graph_internal.h"
#include "test.h"

#include <stdio.h>

/* A 32,768-op chain: every append looks its name up once and inserts it
 * once; with the table at most half full a linear probe sequence averages
 * under 2.5 slots (Knuth, TAOCP vol. 3, 6.4, unsuccessful search at load
 * 1/2), plus the rehashes (at most 2n re-insertions in all).  A linear
 * scan would need n^2/2 = 5.4e8 comparisons. */
TEST(graph_name_lookup_is_constant_amortised)
{
    enum { N = 32768 };
    dnp_graph *g = dnp_graph_new("chain");
    CHECK(g != NULL);
    char name[32];
    int last = dnp_graph_input(g, "x", 3, 8, 8);
    CHECK_EQ_INT(last, 0);
    for (int i = 1; i < N; i++) {
        snprintf(name, sizeof name, "relu_%d", i);
        last = dnp_graph_unary(g, name, DNP_OP_RELU, last);
        if (last != i)
            break;
    }
    CHECK_EQ_INT(last, N - 1);
    CHECK_EQ_INT(dnp_graph_n_ops(g), N);
    long build_probes = graph_name_probes(g);
    CHECK(build_probes <= 8L * N);
    /* Every name is found at its index, and absent names are not. */
    int found = 0;
    for (int i = 1; i < N; i++) {
        snprintf(name, sizeof name, "relu_%d", i);
        found += dnp_graph_find(g, name) == i;
    }
    CHECK_EQ_INT(found, N - 1);
    CHECK_EQ_INT(dnp_graph_find(g, "x"), 0);
    CHECK_EQ_INT(dnp_graph_find(g, "relu_0"), -1);
    CHECK_EQ_INT(dnp_graph_find(g, "relu_32768"), -1);
    CHECK(graph_name_probes(g) - build_probes <= 4L * N);
    /* A rejected op leaves its name free; the name is then usable. */
    int a = dnp_graph_input(g, "y", 4, 8, 8);
    CHECK_EQ_INT(dnp_graph_add(g, "bad", 0, a), -1); /* 3 vs 4 channels */
    CHECK_EQ_INT(dnp_graph_find(g, "bad"), -1);
    CHECK_EQ_INT(dnp_graph_unary(g, "bad", DNP_OP_RELU, a), N + 1);
    CHECK_EQ_INT(dnp_graph_find(g, "bad"), N + 1);
    CHECK_EQ_INT(dnp_graph_unary(g, "bad", DNP_OP_RELU, a), -1); /* used twice */
    dnp_graph_free(g);
}
