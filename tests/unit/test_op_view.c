/*
 * test_op_view.c - one shape system: an op stores its output's axes once
 * (out_rank, out_dims, view) and the c x h x w views are derived
 * (dnp_op_out_view, dnp_op_in_view; docs/model.md "Shapes").
 */
#include "test.h"

#include "dnnpar.h"
#include "model/graph_named.h"

#include <stdint.h>

/* FNV-1a (64-bit) over the eight bytes of v, low byte first. */
static uint64_t mix(uint64_t h, int64_t v)
{
    for (int b = 0; b < 8; b++)
        h = (h ^ (uint64_t)(((uint64_t)v >> (8 * b)) & 0xffu)) * UINT64_C(1099511628211);
    return h;
}

/* Every op's output and first-input views and its given axes (rank, then
 * dims; rank 0 without), hashed in op order. */
static uint64_t views_hash(const dnp_graph *g)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        const dnp_shape o = dnp_op_out_view(op), in = dnp_op_in_view(g, i);
        const int rank = dnp_op_has_axes(op) ? op->out_rank : 0;
        h = mix(mix(mix(h, o.c), o.h), o.w);
        h = mix(mix(mix(h, in.c), in.h), in.w);
        h = mix(h, rank);
        for (int k = 0; k < rank; k++)
            h = mix(h, op->out_dims[k]);
    }
    return h;
}

/* views_hash of every zoo model as the graph stored them before the views
 * were derived (the dnp_op fields `in` and `out` and out_rank > 0 for given
 * axes, at commit 478566f), with the op counts. */
static const struct {
    const char *name;
    int n_ops;
    uint64_t hash;
} stored[] = {
    {"lenet", 14, UINT64_C(0xb35b9ef7df33d2df)},
    {"alexnet", 23, UINT64_C(0x84224ed514d8197c)},
    {"vgg11", 31, UINT64_C(0xbe43ff7af8e69b3c)},
    {"vgg13", 35, UINT64_C(0x42e53a5f053e34bc)},
    {"vgg16", 41, UINT64_C(0x78e90fd555c5907c)},
    {"vgg19", 47, UINT64_C(0x5ea91426b625b23c)},
    {"resnet18", 70, UINT64_C(0x030c6e8a0f418df2)},
    {"resnet34", 126, UINT64_C(0x637a81e71967f6f2)},
    {"resnet50", 176, UINT64_C(0x2402d50a06267b54)},
    {"bert-base", 237, UINT64_C(0xbab83569169f696c)},
    {"bert-large", 465, UINT64_C(0xc6cbb47c7c5f79c1)},
    {"gpt2", 234, UINT64_C(0x2a1036586c341855)},
    {"gpt2-medium", 462, UINT64_C(0xc37b4e039c61d075)},
    {"gpt2-large", 690, UINT64_C(0x739c2179d36fcee5)},
    {"gpt2-xl", 918, UINT64_C(0xefdd8280aa0d8ac5)},
    {"gpt3-175b", 1830, UINT64_C(0x8bbcfc15048bc2b1)},
    {"llama2-7b", 580, UINT64_C(0x532262e17706c3db)},
    {"llama2-13b", 724, UINT64_C(0x9c57f463bb598243)},
    {"llama2-70b", 1444, UINT64_C(0x3e58c0c75d07635b)},
    {"llama3-8b", 580, UINT64_C(0xe4c482c8b9cb52aa)},
    {"llama3-70b", 1444, UINT64_C(0xa2513f0e88365b2a)},
    {"alexnet-2012", 26, UINT64_C(0x8d3555071b77cb9c)},
    {"dbn-m", 7, UINT64_C(0xc0c135171b673c93)},
    {"wrn-40-10", 136, UINT64_C(0x48fce3004c0f8e35)},
    {"fractalnet", 191, UINT64_C(0x949af75656572210)},
    {"pase-alexnet", 21, UINT64_C(0xb51ec51f8811ee39)},
    {"pase-inception3", 315, UINT64_C(0x8a563f3266468639)},
    {"pase-resnet101", 347, UINT64_C(0x1c38be574af3c034)},
    {"pase-rnnlm", 5, UINT64_C(0x61e6f17fbe69bada)},
    {"pase-transformer", 268, UINT64_C(0x94ba5949b1d5e622)},
    {"pase-densenet121", 428, UINT64_C(0x488f8bcd315a9fcc)},
};

TEST(op_view_zoo_as_stored)
{
    int n = (int)(sizeof stored / sizeof stored[0]);
    CHECK_EQ_INT(n, dnp_zoo_count());
    for (int k = 0; k < n && k < dnp_zoo_count(); k++) {
        CHECK_STR(dnp_zoo_name(k), stored[k].name);
        dnp_graph *g = NULL;
        dnp_error err;
        CHECK_EQ_INT(dnp_zoo_build(stored[k].name, &g, &err), DNP_OK);
        if (g == NULL)
            continue;
        CHECK_EQ_INT(dnp_graph_n_ops(g), stored[k].n_ops);
        uint64_t h = views_hash(g);
        if (h != stored[k].hash)
            printf("  %s: views hash 0x%016llx, stored 0x%016llx\n", stored[k].name,
                   (unsigned long long)h, (unsigned long long)stored[k].hash);
        CHECK(h == stored[k].hash);
        /* every op: out_rank >= 1, the view's elements are the axes' */
        for (int i = 0; i < dnp_graph_n_ops(g); i++) {
            const dnp_op *op = dnp_graph_op(g, i);
            const dnp_shape o = dnp_op_out_view(op);
            int64_t axes = 1;
            CHECK(op->out_rank >= 1 && op->out_rank <= DNP_MAX_RANK);
            for (int d = 0; d < op->out_rank; d++)
                axes *= op->out_dims[d];
            CHECK_EQ_INT(o.c * o.h * o.w, axes);
        }
        dnp_graph_free(g);
    }
}

static void check_shape3(dnp_shape s, int64_t c, int64_t h, int64_t w)
{
    CHECK_EQ_INT(s.c, c);
    CHECK_EQ_INT(s.h, h);
    CHECK_EQ_INT(s.w, w);
}

/* Hand-worked views of zoo ops: a conv, an FC (after a flatten), an
 * embedding and an einsum on named axes. */
TEST(op_view_zoo_examples)
{
    dnp_graph *g = NULL;
    dnp_error err;
    CHECK_EQ_INT(dnp_zoo_build("alexnet", &g, &err), DNP_OK);
    if (g != NULL) {
        /* conv1: 3x224x224, kernel 11, stride 4, pad 2: (224 + 4 - 11) / 4 + 1 = 55 */
        int i = dnp_graph_find(g, "conv1");
        CHECK(i >= 0);
        if (i >= 0) {
            const dnp_op *op = dnp_graph_op(g, i);
            check_shape3(dnp_op_out_view(op), 64, 55, 55);
            check_shape3(dnp_op_in_view(g, i), 3, 224, 224);
            CHECK_EQ_INT(op->view, DNP_VIEW_CHW);
            CHECK_EQ_INT(dnp_op_has_axes(op), 0);
            CHECK_EQ_INT(op->out_rank, 3);
            CHECK_EQ_INT(op->out_dims[0] * 10000 + op->out_dims[1] * 100 + op->out_dims[2],
                         645555);
        }
        /* fc6 reads the flatten of pool5's 256 x 6 x 6: 9216 features */
        i = dnp_graph_find(g, "fc6");
        CHECK(i >= 0);
        if (i >= 0) {
            check_shape3(dnp_op_out_view(dnp_graph_op(g, i)), 4096, 1, 1);
            check_shape3(dnp_op_in_view(g, i), 9216, 1, 1);
        }
        /* a graph input reads nothing */
        check_shape3(dnp_op_in_view(g, 0), 0, 0, 0);
        check_shape3(dnp_op_in_view(g, -1), 0, 0, 0);
        check_shape3(dnp_op_in_view(g, dnp_graph_n_ops(g)), 0, 0, 0);
        dnp_graph_free(g);
    }
    g = NULL;
    CHECK_EQ_INT(dnp_zoo_build("pase-transformer", &g, &err), DNP_OK);
    if (g != NULL) {
        /* the embedding "ble": 256 positions x 512 features -> c 512, h 256;
         * its input, the ids "bl": 256 -> c 256, h 1 (no other axes) */
        int i = dnp_graph_find(g, "enc.embedding");
        CHECK(i >= 0);
        if (i >= 0) {
            const dnp_op *op = dnp_graph_op(g, i);
            CHECK_EQ_INT(op->view, DNP_VIEW_LAST);
            CHECK_EQ_INT(op->out_rank, 2);
            check_shape3(dnp_op_out_view(op), 512, 256, 1);
            check_shape3(dnp_op_in_view(g, i), 256, 1, 1);
        }
        /* the einsum "ble,shek->sbhlk": dims 3, 8, 256, 64 -> c 64,
         * h 3 x 8 x 256 = 6144; its input the 512 x 256 sum */
        i = dnp_graph_find(g, "enc0.qkv");
        CHECK(i >= 0);
        if (i >= 0) {
            const dnp_op *op = dnp_graph_op(g, i);
            CHECK_STR(op->axes, "sbhlk");
            CHECK_EQ_INT(op->out_rank, 4);
            CHECK_EQ_INT(dnp_op_has_axes(op), 1);
            check_shape3(dnp_op_out_view(op), 64, 6144, 1);
            check_shape3(dnp_op_in_view(g, i), 512, 256, 1);
        }
        dnp_graph_free(g);
    }
}

/* An fc flattening its c x h x w input (no zoo model has one: their fcs
 * read a flatten): 16 x 4 x 4 = 256 features into 10. */
TEST(op_view_fc_flattens)
{
    dnp_graph *g = dnp_graph_new("t");
    int x = dnp_graph_input(g, "x", 16, 4, 4);
    int f = dnp_graph_fc(g, "f", x, 10, 0);
    CHECK(f == 1);
    if (f == 1) {
        check_shape3(dnp_op_in_view(g, f), 16, 4, 4);
        check_shape3(dnp_op_out_view(dnp_graph_op(g, f)), 10, 1, 1);
        dnp_dim d[DNP_MAX_DIMS];
        CHECK_EQ_INT(dnp_op_dims(g, f, 1, d), 3);
        CHECK_STR(d[1].name, "c");
        CHECK_EQ_INT(d[1].size, 256);
        dnp_op_cost c;
        dnp_op_cost_get(g, f, 2, &c);
        CHECK_EQ_INT(c.weight_elems, 2560);
        CHECK_EQ_INT(c.in_elems, 2 * 256);
        CHECK_EQ_INT(c.out_elems, 2 * 10);
    }
    dnp_graph_free(g);
}

/* dnp_graph_append: given axes must give the view; an image's C x H x W
 * is kept as such, axes "b" alone are the view 1 x 1 x 1. */
TEST(op_view_append_axes)
{
    dnp_graph *g = dnp_graph_new("t");
    int x = dnp_graph_input(g, "x", 8, 4, 4);
    dnp_op_attrs a = {0};
    a.out_rank = 3;
    a.out_dims[0] = 8, a.out_dims[1] = 4, a.out_dims[2] = 4;
    int img = dnp_graph_append(g, "img", DNP_OP_RELU, 1, &x, (dnp_shape){8, 4, 4}, &a);
    CHECK(img == 1);
    if (img == 1) {
        CHECK_EQ_INT(dnp_graph_op(g, img)->view, DNP_VIEW_IMAGE);
        check_shape3(dnp_op_out_view(dnp_graph_op(g, img)), 8, 4, 4);
    }
    /* (4, 4, 8) read c = 8 last, h = 16 */
    a.out_dims[0] = 4, a.out_dims[2] = 8;
    int seq = dnp_graph_append(g, "seq", DNP_OP_RESHAPE, 1, &x, (dnp_shape){8, 16, 1}, &a);
    CHECK(seq == 2);
    if (seq == 2)
        CHECK_EQ_INT(dnp_graph_op(g, seq)->view, DNP_VIEW_LAST);
    /* 2 x 3 cannot be viewed as 5 x 1 x 1: refused, the op not added */
    a.out_rank = 2;
    a.out_dims[0] = 2, a.out_dims[1] = 3;
    CHECK_EQ_INT(dnp_graph_append(g, "bad", DNP_OP_RESHAPE, 1, &x, (dnp_shape){5, 1, 1}, &a),
                 -1);
    CHECK_STR(dnp_graph_error(g), "op 'bad': output axes 2x3 do not give its shape 5x1x1 (an "
                                  "image's C x H x W, or c = the last axis, h = the others)");
    CHECK_EQ_INT(dnp_graph_n_ops(g), 3);
    CHECK_EQ_INT(dnp_graph_find(g, "bad"), -1);
    /* a named tensor with the batch alone: no per-sample axes */
    int s = graph_named_input(g, "s", "b", NULL);
    CHECK(s == 3);
    if (s == 3) {
        const dnp_op *op = dnp_graph_op(g, s);
        CHECK_EQ_INT(dnp_op_has_axes(op), 0);
        CHECK_STR(op->axes, "b");
        check_shape3(dnp_op_out_view(op), 1, 1, 1);
    }
    dnp_graph_free(g);
}

/* An ONNX tensor with more per-sample axes than an op holds: x [2, 1, 2, 3,
 * 2, 2, 2, 4] (batch 2) reshaped to itself, a Relu, a MatMul with a 4 x 5
 * weight (written with tests/fuzz/make_onnx_seeds.py's helpers).  The
 * seven per-sample axes 1, 2, 3, 2, 2, 2, 4 keep their view (c 4, h 48) with
 * the leading two folded: 2, 3, 2, 2, 2, 4. */
static const unsigned char rank8_onnx[] = {
    0x08, 0x07, 0x12, 0x0b, 0x64, 0x6e, 0x6e, 0x70, 0x61, 0x72, 0x2d, 0x73, 0x65, 0x65, 0x64, 0x3a,
    0xe7, 0x01, 0x0a, 0x31, 0x12, 0x01, 0x74, 0x1a, 0x01, 0x74, 0x22, 0x08, 0x43, 0x6f, 0x6e, 0x73,
    0x74, 0x61, 0x6e, 0x74, 0x2a, 0x1f, 0x0a, 0x0a, 0x76, 0x61, 0x6c, 0x75, 0x65, 0x5f, 0x69, 0x6e,
    0x74, 0x73, 0x40, 0x02, 0x40, 0x01, 0x40, 0x02, 0x40, 0x03, 0x40, 0x02, 0x40, 0x02, 0x40, 0x02,
    0x40, 0x04, 0xa0, 0x01, 0x07, 0x0a, 0x15, 0x0a, 0x01, 0x78, 0x0a, 0x01, 0x74, 0x12, 0x01, 0x72,
    0x1a, 0x01, 0x72, 0x22, 0x07, 0x52, 0x65, 0x73, 0x68, 0x61, 0x70, 0x65, 0x0a, 0x11, 0x0a, 0x01,
    0x72, 0x12, 0x02, 0x72, 0x32, 0x1a, 0x02, 0x72, 0x32, 0x22, 0x04, 0x52, 0x65, 0x6c, 0x75, 0x0a,
    0x15, 0x0a, 0x02, 0x72, 0x32, 0x0a, 0x01, 0x77, 0x12, 0x01, 0x79, 0x1a, 0x01, 0x79, 0x22, 0x06,
    0x4d, 0x61, 0x74, 0x4d, 0x75, 0x6c, 0x12, 0x02, 0x72, 0x38, 0x5a, 0x2b, 0x0a, 0x01, 0x78, 0x12,
    0x26, 0x0a, 0x24, 0x08, 0x01, 0x12, 0x20, 0x0a, 0x02, 0x08, 0x02, 0x0a, 0x02, 0x08, 0x01, 0x0a,
    0x02, 0x08, 0x02, 0x0a, 0x02, 0x08, 0x03, 0x0a, 0x02, 0x08, 0x02, 0x0a, 0x02, 0x08, 0x02, 0x0a,
    0x02, 0x08, 0x02, 0x0a, 0x02, 0x08, 0x04, 0x5a, 0x13, 0x0a, 0x01, 0x77, 0x12, 0x0e, 0x0a, 0x0c,
    0x08, 0x01, 0x12, 0x08, 0x0a, 0x02, 0x08, 0x04, 0x0a, 0x02, 0x08, 0x05, 0x62, 0x2b, 0x0a, 0x01,
    0x79, 0x12, 0x26, 0x0a, 0x24, 0x08, 0x01, 0x12, 0x20, 0x0a, 0x02, 0x08, 0x02, 0x0a, 0x02, 0x08,
    0x01, 0x0a, 0x02, 0x08, 0x02, 0x0a, 0x02, 0x08, 0x03, 0x0a, 0x02, 0x08, 0x02, 0x0a, 0x02, 0x08,
    0x02, 0x0a, 0x02, 0x08, 0x02, 0x0a, 0x02, 0x08, 0x05, 0x42, 0x04, 0x0a, 0x00, 0x10, 0x0d,
};

TEST(op_view_onnx_rank_folded)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_load_onnx_buffer(rank8_onnx, sizeof rank8_onnx, "rank8.onnx", NULL, &g, &err),
                 DNP_OK);
    if (g == NULL) {
        printf("  %s\n", err.msg);
        return;
    }
    int y = dnp_graph_find(g, "y");
    CHECK(y >= 0);
    if (y >= 0) {
        const dnp_op *op = dnp_graph_op(g, y);
        static const int64_t want[6] = {2, 3, 2, 2, 2, 5};
        CHECK_EQ_INT(op->out_rank, 6);
        for (int d = 0; d < 6; d++)
            CHECK_EQ_INT(op->out_dims[d], want[d]);
        check_shape3(dnp_op_out_view(op), 5, 48, 1);
        check_shape3(dnp_op_in_view(g, y), 4, 48, 1);
    }
    dnp_graph_free(g);
}

/* Model JSON whose "dims" do not give "out": refused, the op named; for
 * named axes with graph_named's reason, as before the views were derived. */
TEST(op_view_json_dims_refused)
{
    static const char plain[] =
        "{\"format\": \"dnnpar-model\", \"version\": 1, \"name\": \"t\", \"ops\": ["
        "{\"name\": \"x\", \"kind\": \"input\", \"inputs\": [], \"out\": [6, 1, 1]},"
        "{\"name\": \"r\", \"kind\": \"reshape\", \"inputs\": [\"x\"], \"out\": [5, 1, 1],"
        " \"dims\": [2, 3]}]}";
    static const char named[] =
        "{\"format\": \"dnnpar-model\", \"version\": 1, \"name\": \"t\", \"ops\": ["
        "{\"name\": \"x\", \"kind\": \"input\", \"inputs\": [], \"out\": [3, 2, 1],"
        " \"dims\": [2, 3], \"axes\": \"bsd\"},"
        "{\"name\": \"r\", \"kind\": \"relu\", \"inputs\": [\"x\"], \"out\": [3, 2, 1],"
        " \"dims\": [3, 2], \"axes\": \"bsd\"}]}";
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_read_json_buffer(plain, sizeof plain - 1, "p.json", &g, &err),
                 DNP_ERR_INPUT);
    CHECK(g == NULL);
    CHECK_STR(err.msg, "p.json: ops[1] ('r'): op 'r': output axes 2x3 do not give its shape "
                       "5x1x1 (an image's C x H x W, or c = the last axis, h = the others)");
    dnp_error err2 = {0}; /* an error record keeps its first message */
    CHECK_EQ_INT(dnp_model_read_json_buffer(named, sizeof named - 1, "n.json", &g, &err2),
                 DNP_ERR_INPUT);
    CHECK(g == NULL);
    CHECK_STR(err2.msg, "n.json: ops[1] ('r'): \"axes\" 'bsd' and \"dims\" imply \"out\" [2, 3, 1]");
    dnp_graph_free(g);
}
