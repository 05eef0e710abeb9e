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

/* ---------------------------------------------------------------- */
/* ONNX Concat with any number of inputs (issue 12, item 6)           */
/* ---------------------------------------------------------------- */

#include "onnx.pb-c.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

enum { WIDE = 40 };

static void set_shape(Onnx__ValueInfoProto *v, Onnx__TypeProto *tp, Onnx__TypeProto__Tensor *tt,
                      Onnx__TensorShapeProto *sh, Onnx__TensorShapeProto__Dimension *d,
                      Onnx__TensorShapeProto__Dimension **dp, const char *name,
                      const int64_t *dims)
{
    for (int i = 0; i < 4; i++) {
        onnx__tensor_shape_proto__dimension__init(&d[i]);
        d[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d[i].dim_value = dims[i];
        dp[i] = &d[i];
    }
    sh->n_dim = 4;
    sh->dim = dp;
    tt->has_elem_type = 1;
    tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    tt->shape = sh;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    v->name = (char *)name;
    v->type = tp;
}

/* x (1x3x8x8) -> WIDE Relu branches -> Concat (WIDE x 3 channels) ->
 * Conv 1x1 to 16 channels (weight W as a shape-only graph input). */
static int write_wide_concat(char *path)
{
    static Onnx__NodeProto relu[WIDE], cat, conv;
    static Onnx__NodeProto *nodes[WIDE + 2];
    static char names[WIDE][16], *relu_in[1] = {(char *)"x"}, *relu_out[WIDE][1];
    static char *cat_in[WIDE], *cat_out[1] = {(char *)"c"};
    static char *conv_in[2] = {(char *)"c", (char *)"W"}, *conv_out[1] = {(char *)"y"};
    for (int i = 0; i < WIDE; i++) {
        onnx__node_proto__init(&relu[i]);
        snprintf(names[i], sizeof names[i], "r%d", i);
        relu_out[i][0] = names[i];
        relu[i].name = names[i];
        relu[i].op_type = (char *)"Relu";
        relu[i].n_input = 1;
        relu[i].input = relu_in;
        relu[i].n_output = 1;
        relu[i].output = relu_out[i];
        cat_in[i] = names[i];
        nodes[i] = &relu[i];
    }
    onnx__node_proto__init(&cat);
    cat.name = (char *)"cat";
    cat.op_type = (char *)"Concat";
    cat.n_input = WIDE;
    cat.input = cat_in;
    cat.n_output = 1;
    cat.output = cat_out;
    Onnx__AttributeProto axis = ONNX__ATTRIBUTE_PROTO__INIT, *attrs[1] = {&axis};
    axis.name = (char *)"axis";
    axis.has_type = 1;
    axis.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    axis.has_i = 1;
    axis.i = 1;
    cat.n_attribute = 1;
    cat.attribute = attrs;
    onnx__node_proto__init(&conv);
    conv.name = (char *)"conv";
    conv.op_type = (char *)"Conv";
    conv.n_input = 2;
    conv.input = conv_in;
    conv.n_output = 1;
    conv.output = conv_out;
    nodes[WIDE] = &cat;
    nodes[WIDE + 1] = &conv;

    Onnx__ValueInfoProto in[2] = {ONNX__VALUE_INFO_PROTO__INIT, ONNX__VALUE_INFO_PROTO__INIT};
    Onnx__TypeProto tp[2] = {ONNX__TYPE_PROTO__INIT, ONNX__TYPE_PROTO__INIT};
    Onnx__TypeProto__Tensor tt[2] = {ONNX__TYPE_PROTO__TENSOR__INIT,
                                     ONNX__TYPE_PROTO__TENSOR__INIT};
    Onnx__TensorShapeProto sh[2] = {ONNX__TENSOR_SHAPE_PROTO__INIT,
                                    ONNX__TENSOR_SHAPE_PROTO__INIT};
    Onnx__TensorShapeProto__Dimension d[2][4], *dp[2][4];
    const int64_t xd[4] = {1, 3, 8, 8}, wd[4] = {16, 3 * WIDE, 1, 1};
    set_shape(&in[0], &tp[0], &tt[0], &sh[0], d[0], dp[0], "x", xd);
    set_shape(&in[1], &tp[1], &tt[1], &sh[1], d[1], dp[1], "W", wd);
    Onnx__ValueInfoProto *ins[2] = {&in[0], &in[1]};
    Onnx__GraphProto gp = ONNX__GRAPH_PROTO__INIT;
    gp.n_node = WIDE + 2;
    gp.node = nodes;
    gp.n_input = 2;
    gp.input = ins;
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    m.graph = &gp;
    size_t len = onnx__model_proto__get_packed_size(&m);
    uint8_t *buf = dnp_malloc(len);
    if (buf == NULL)
        return -1;
    onnx__model_proto__pack(&m, buf);
    snprintf(path, 64, "/tmp/dnnpar_concat_XXXXXX.onnx");
    int fd = mkstemps(path, 5);
    int ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len;
    if (fd >= 0)
        close(fd);
    dnp_free(buf);
    return ok ? 0 : -1;
}

TEST(onnx_concat_any_number_of_inputs)
{
    char path[64];
    CHECK(write_wide_concat(path) == 0);
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_OK);
    unlink(path);
    if (g == NULL) {
        printf("  %s\n", err.msg);
        return;
    }
    int cat = dnp_graph_find(g, "cat"), conv = dnp_graph_find(g, "conv");
    CHECK(cat >= 0 && conv >= 0);
    if (cat >= 0 && conv >= 0) {
        const dnp_op *c = dnp_graph_op(g, cat);
        CHECK_EQ_INT(c->kind, DNP_OP_CONCAT);
        CHECK_EQ_INT(c->n_inputs, WIDE);
        CHECK_EQ_INT(dnp_op_out_view(c).c, 3 * WIDE);
        CHECK_EQ_INT(dnp_op_out_view(c).h, 8);
        /* the conv reads all 120 channels: 16 x 120 weights */
        CHECK_EQ_INT(dnp_op_in_view(g, conv).c, 3 * WIDE);
    }
    dnp_graph_free(g);
}
