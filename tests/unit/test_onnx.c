/* test_onnx.c - ONNX import of the real models in data/onnx, the
 * JSON formats' round trips, and located errors for malformed files. */
#include "onnx.pb-c.h"
#include "test.h"

#include "dnnpar.h"
#include "model/graph_named.h"

#include <stdlib.h>
#include <unistd.h>

/* data/onnx/README.md: conv + matmul MACs per sample, params. */
static const struct {
    const char *file;
    long long macs;   /* per sample */
    long long params; /* -1: the export folded batch norm, see below */
} models[] = {
    {"alexnet.onnx", 714188480LL, 61100840LL},
    {"vgg19.onnx", 19632062464LL, 143667240LL},
    {"resnet50.onnx", 4089184256LL, -1},
    {"inception_v3.onnx", 5713216096LL, -1},
    {"squeezenet1_1_with_weights.onnx", 349151936LL, 1235496LL},
    {"bert_encoder4.onnx", 53799813120LL / 8, 75263802LL}, /* figure is for 8 sequences */
    /* torchvision's vision transformers at tiny sizes (data/onnx/export_vision.py): MACs
     * from torch.profiler's FLOP counter, parameters as the file holds them (README) */
    {"vit_tiny.onnx", 414144LL, 24202LL},
    {"swin_tiny.onnx", 966976LL, 38426LL},
    {"maxvit_tiny.onnx", 1482560LL, 47748LL},
};

static void onnx_path(char *buf, size_t n, const char *file)
{
    snprintf(buf, n, "%s/onnx/%s", test_data_dir(), file);
}

TEST(onnx_real_models_flops_and_params)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char path[512];
        onnx_path(path, sizeof path, models[i].file);
        dnp_graph *g = NULL;
        dnp_error err = {0};
        CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_OK);
        if (g == NULL) {
            printf("  %s: %s\n", models[i].file, err.msg);
            continue;
        }
        dnp_graph_totals t;
        dnp_graph_totals_get(g, 1, &t);
        /* the issue allows 0.5%; the importer is exact */
        CHECK_EQ_INT(t.macs_per_sample, models[i].macs);
        if (models[i].params >= 0)
            CHECK_EQ_INT(t.params, models[i].params);
        dnp_graph_free(g);
    }
}

/* ResNet-50 and Inception-v3 were exported in eval mode: batch norm is
 * folded into the convs, whose biases replace the norms' scale and shift.
 * torchvision's 25,557,032 counts 2C per norm; the file has C per conv. */
TEST(onnx_folded_batchnorm_params)
{
    char path[512];
    onnx_path(path, sizeof path, "resnet50.onnx");
    dnp_graph *g = NULL, *z = NULL;
    dnp_error err = {0};
    CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_OK);
    CHECK(dnp_zoo_build("resnet50", &z, &err) == DNP_OK);
    if (g && z) {
        dnp_graph_totals tg, tz;
        dnp_graph_totals_get(g, 1, &tg);
        dnp_graph_totals_get(z, 1, &tz);
        long long bn = 0, conv_out = 0;
        for (int i = 0; i < dnp_graph_n_ops(z); i++) {
            const dnp_op *op = dnp_graph_op(z, i);
            if (op->kind == DNP_OP_BATCHNORM)
                bn += 2 * dnp_op_out_view(op).c;
            if (op->kind == DNP_OP_CONV)
                conv_out += dnp_op_out_view(op).c;
        }
        CHECK_EQ_INT(tg.params, tz.params - bn + conv_out);
    }
    dnp_graph_free(g);
    dnp_graph_free(z);
}

/* A record that already holds an error (the caller forgot dnp_error_clear
 * after a failure) makes the import fail with that error, and the graph is
 * not handed out (it leaked before: LeakSanitizer checks), while a cleared
 * record loads the same file. */
TEST(onnx_load_with_error_already_set)
{
    char path[512];
    onnx_path(path, sizeof path, "alexnet.onnx");
    dnp_graph *g = NULL;
    dnp_error err = {0};
    dnp_error_set(&err, DNP_ERR_INPUT, "an earlier failure");
    CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_ERR_INPUT);
    CHECK(g == NULL);
    CHECK_STR(err.msg, "an earlier failure");
    dnp_error_clear(&err);
    CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_OK);
    CHECK(g != NULL);
    dnp_graph_free(g);
}

/* Every file plans under every scheme. */
TEST(onnx_real_models_plan)
{
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK(dnp_cluster_parse("2xtpu-v2+2xtpu-v3", &cl, &err) == DNP_OK);
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char path[512];
        onnx_path(path, sizeof path, models[i].file);
        dnp_graph *g = NULL;
        if (dnp_load_onnx(path, NULL, &g, &err) != DNP_OK)
            continue;
        for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
            dnp_plan_options opt = {.scheme = (dnp_scheme)s, .batch = 16, .levels = 0, .reference_mode = 0};
            dnp_plan *p = NULL;
            CHECK(dnp_plan_run(g, &cl, &opt, &p, &err) == DNP_OK);
            if (p != NULL) {
                dnp_plan_summary sum;
                dnp_plan_get_summary(p, &sum);
                CHECK(sum.step_time_s > 0.0 && sum.compute_s > 0.0);
            }
            dnp_plan_free(p);
        }
        dnp_graph_free(g);
    }
}

/* BERT's shapes: embedding 30522 x 768, attention scores 12 heads of
 * 128 x 128 per sequence, the head back to the vocabulary. */
TEST(onnx_bert_shapes)
{
    char path[512];
    onnx_path(path, sizeof path, "bert_encoder4.onnx");
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_OK);
    if (g == NULL)
        return;
    int emb = 0, mm = 0, fc = 0;
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind == DNP_OP_EMBEDDING) {
            emb++;
            CHECK_EQ_INT(op->param_elems, 30522LL * 768);
            CHECK_EQ_INT(dnp_op_out_view(op).c, 768);
            CHECK_EQ_INT(dnp_op_out_view(op).h, 128);
        }
        if (op->kind == DNP_OP_MATMUL) {
            mm++;
            CHECK_EQ_INT(op->contract, mm % 2 ? 64 : 128);
        }
        fc += op->kind == DNP_OP_FC;
    }
    CHECK_EQ_INT(emb, 1);
    CHECK_EQ_INT(mm, 8);      /* scores and weighted sum in 4 layers */
    CHECK_EQ_INT(fc, 4 * 4 + 1); /* in_proj, out_proj, linear1, linear2; head */
    dnp_graph_free(g);
}

/* Write a one-node model (op `op_type` on an input of shape dims) to a
 * temp file. */
static int write_model_dims(char *path, const char *op_type, const int64_t *dims)
{
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    Onnx__GraphProto gp = ONNX__GRAPH_PROTO__INIT;
    Onnx__NodeProto node = ONNX__NODE_PROTO__INIT;
    Onnx__ValueInfoProto in = ONNX__VALUE_INFO_PROTO__INIT;
    Onnx__TypeProto tp = ONNX__TYPE_PROTO__INIT;
    Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
    Onnx__TensorShapeProto shape = ONNX__TENSOR_SHAPE_PROTO__INIT;
    Onnx__TensorShapeProto__Dimension d[4];
    Onnx__TensorShapeProto__Dimension *dp[4];
    for (int i = 0; i < 4; i++) {
        onnx__tensor_shape_proto__dimension__init(&d[i]);
        d[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d[i].dim_value = dims[i];
        dp[i] = &d[i];
    }
    shape.n_dim = 4;
    shape.dim = dp;
    tt.has_elem_type = 1;
    tt.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    tt.shape = &shape;
    tp.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp.tensor_type = &tt;
    in.name = (char *)"x";
    in.type = &tp;
    Onnx__ValueInfoProto *ins[1] = {&in};
    char *node_in[1] = {(char *)"x"}, *node_out[1] = {(char *)"y"};
    node.name = (char *)"strange_node";
    node.op_type = (char *)op_type;
    node.n_input = 1;
    node.input = node_in;
    node.n_output = 1;
    node.output = node_out;
    Onnx__NodeProto *nodes[1] = {&node};
    gp.n_node = 1;
    gp.node = nodes;
    gp.n_input = 1;
    gp.input = ins;
    m.graph = &gp;
    size_t len = onnx__model_proto__get_packed_size(&m);
    uint8_t *buf = dnp_malloc(len);
    onnx__model_proto__pack(&m, buf);
    strcpy(path, "/tmp/dnnpar_test_XXXXXX.onnx");
    int fd = mkstemps(path, 5);
    int ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len;
    if (fd >= 0)
        close(fd);
    dnp_free(buf);
    return ok ? 0 : -1;
}

/* ... on a 1x3x8x8 input */
static int write_tiny_model(char *path, const char *op_type)
{
    static const int64_t dims[4] = {1, 3, 8, 8};
    return write_model_dims(path, op_type, dims);
}

/* Shapes whose element count overflows int64 are refused before any
 * product is taken (issue 31: a [1, 2^40, 2^40, 8] input overflowed the
 * per-sample view); a dimension over 2^40 likewise. */
TEST(onnx_huge_input_shapes_refused)
{
    char path[64];
    dnp_graph *g = NULL;
    dnp_error err = {0};
    const int64_t big[4] = {1, INT64_C(1) << 40, INT64_C(1) << 40, 8};
    CHECK(write_model_dims(path, "Relu", big) == 0);
    CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "more than 2^62 elements") != NULL);
    CHECK(g == NULL);
    unlink(path);
    dnp_error_clear(&err);
    const int64_t wide[4] = {1, 3, INT64_C(1) << 41, 1};
    CHECK(write_model_dims(path, "Relu", wide) == 0);
    CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "dimension over 2^40") != NULL);
    CHECK(g == NULL);
    unlink(path);
}

/* More nodes than a model may have (DNP_MAX_MODEL_OPS, as model JSON):
 * refused before importing any (issue 31: 1.3 M Relu nodes took 60 s and
 * 6.3 GB before the graph's own limit refused them). */
TEST(onnx_node_cap)
{
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    Onnx__GraphProto gp = ONNX__GRAPH_PROTO__INIT;
    Onnx__NodeProto node = ONNX__NODE_PROTO__INIT;
    char *node_in[1] = {(char *)"x"}, *node_out[1] = {(char *)"x"};
    node.op_type = (char *)"Relu";
    node.n_input = node.n_output = 1;
    node.input = node_in;
    node.output = node_out;
    size_t n = (size_t)DNP_MAX_MODEL_OPS + 1;
    Onnx__NodeProto **nodes = dnp_malloc(n * sizeof *nodes);
    CHECK(nodes != NULL);
    if (nodes == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        nodes[i] = &node;
    gp.n_node = n;
    gp.node = nodes;
    m.graph = &gp;
    size_t len = onnx__model_proto__get_packed_size(&m);
    uint8_t *buf = dnp_malloc(len);
    CHECK(buf != NULL);
    if (buf != NULL) {
        onnx__model_proto__pack(&m, buf);
        dnp_graph *g = NULL;
        dnp_error err = {0};
        CHECK(dnp_load_onnx_buffer(buf, len, "many.onnx", NULL, &g, &err) == DNP_ERR_INPUT);
        CHECK(strstr(err.msg, "1000001 nodes (at most 1000000)") != NULL);
        CHECK(g == NULL);
    }
    dnp_free(buf);
    dnp_free(nodes);
}

TEST(onnx_errors_are_located)
{
    char path[64];
    dnp_graph *g = NULL;
    dnp_error err = {0};
    /* an unknown operator: named with its node */
    CHECK(write_tiny_model(path, "FooBar") == 0);
    CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "strange_node") != NULL && strstr(err.msg, "FooBar") != NULL);
    CHECK(g == NULL);
    /* --skip-unknown: a free element-wise op, but no layer to plan */
    dnp_error_clear(&err);
    dnp_load_options opt = {1};
    CHECK(dnp_load_onnx(path, &opt, &g, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "no conv") != NULL);
    unlink(path);
    /* a malformed Conv: no weight */
    dnp_error_clear(&err);
    CHECK(write_tiny_model(path, "Conv") == 0);
    CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "strange_node") != NULL && strstr(err.msg, "input 1") != NULL);
    unlink(path);
    /* not protobuf at all */
    dnp_error_clear(&err);
    strcpy(path, "/tmp/dnnpar_test_XXXXXX.onnx");
    int fd = mkstemps(path, 5);
    CHECK(fd >= 0 && write(fd, "\xff\xff\xff\xff garbage", 12) == 12);
    close(fd);
    CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "not an ONNX model") != NULL);
    unlink(path);
    /* every truncation of a real model: an error or a model, never a crash */
    char real[512];
    onnx_path(real, sizeof real, "alexnet.onnx");
    FILE *f = fopen(real, "rb");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    static unsigned char buf[8192];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    for (size_t cut = 1; cut < n; cut += 97) {
        strcpy(path, "/tmp/dnnpar_test_XXXXXX.onnx");
        fd = mkstemps(path, 5);
        CHECK(fd >= 0 && write(fd, buf, cut) == (ssize_t)cut);
        close(fd);
        dnp_error_clear(&err);
        dnp_status st = dnp_load_onnx(path, NULL, &g, &err);
        CHECK(st == DNP_OK || (st == DNP_ERR_INPUT && strstr(err.msg, ".onnx") != NULL));
        dnp_graph_free(g);
        g = NULL;
        unlink(path);
    }
}

static int write_text(char *path, const char *text)
{
    strcpy(path, "/tmp/dnnpar_test_XXXXXX.json");
    int fd = mkstemps(path, 5);
    size_t n = strlen(text);
    int ok = fd >= 0 && write(fd, text, n) == (ssize_t)n;
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

/* Every zoo model and every ONNX file: write, read, write again: the same
 * text, and the same plan. */
TEST(json_model_round_trip)
{
    dnp_error err = {0};
    dnp_cluster cl;
    CHECK(dnp_cluster_parse("4xtpu-v3", &cl, &err) == DNP_OK);
    int n = dnp_zoo_count() + (int)(sizeof models / sizeof models[0]);
    for (int i = 0; i < n; i++) {
        dnp_graph *g = NULL, *h = NULL;
        if (i < dnp_zoo_count()) {
            CHECK(dnp_zoo_build(dnp_zoo_name(i), &g, &err) == DNP_OK);
        } else {
            char path[512];
            onnx_path(path, sizeof path, models[i - dnp_zoo_count()].file);
            CHECK(dnp_load_onnx(path, NULL, &g, &err) == DNP_OK);
        }
        if (g == NULL)
            continue;
        char *a = dnp_model_to_json(g), path[64];
        CHECK(a != NULL && write_text(path, a) == 0);
        CHECK(dnp_model_read_json(path, &h, &err) == DNP_OK);
        unlink(path);
        if (h != NULL) {
            char *b = dnp_model_to_json(h);
            CHECK(b != NULL && strcmp(a, b) == 0);
            dnp_free(b);
            if (graph_named_refuse(g, "", &err) != DNP_OK) { /* test_graph_named.c */
                dnp_error_clear(&err);
                CHECK(graph_named_refuse(h, "", &err) == DNP_ERR_INPUT);
                dnp_error_clear(&err);
                dnp_free(a);
                dnp_graph_free(g);
                dnp_graph_free(h);
                continue;
            }
            /* the large transformers do not fit 4 TPUs: plans over memory
             * are kept (flagged) so that every model is compared */
            dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 32, .levels = 0,
                                    .reference_mode = 0, .keep_over_memory = 1};
            dnp_plan *p = NULL, *q = NULL;
            CHECK(dnp_plan_run(g, &cl, &opt, &p, &err) == DNP_OK);
            CHECK(dnp_plan_run(h, &cl, &opt, &q, &err) == DNP_OK);
            if (p && q) {
                dnp_plan_summary sp, sq;
                dnp_plan_get_summary(p, &sp);
                dnp_plan_get_summary(q, &sq);
                CHECK(sp.step_time_s == sq.step_time_s);
            }
            dnp_plan_free(p);
            dnp_plan_free(q);
        }
        dnp_free(a);
        dnp_graph_free(g);
        dnp_graph_free(h);
    }
}

TEST(json_cluster_round_trip)
{
    dnp_error err = {0};
    const char *specs[] = {"128xtpu-v2+128xtpu-v3", "8xa100", "3xv100+5x1080ti",
                           "4xcustom(name=g,tflops=123.456,mem_gb=7,membw_gbps=0.3,net_gbps="
                           "0.1,dtype=fp16)"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        dnp_cluster c, d;
        CHECK(dnp_cluster_parse(specs[i], &c, &err) == DNP_OK);
        char *text = dnp_cluster_to_json(&c), path[64];
        CHECK(text != NULL && write_text(path, text) == 0);
        memset(&d, 0xab, sizeof d);
        CHECK(dnp_cluster_read_json(path, &d, &err) == DNP_OK);
        unlink(path);
        CHECK_EQ_INT(d.n_types, c.n_types);
        for (int k = 0; k < c.n_types; k++) {
            CHECK_STR(d.types[k].name, c.types[k].name);
            CHECK(d.types[k].peak_flops == c.types[k].peak_flops);
            CHECK(d.types[k].mem_bytes == c.types[k].mem_bytes);
            CHECK(d.types[k].mem_bw_bps == c.types[k].mem_bw_bps);
            CHECK(d.types[k].net_bw_bps == c.types[k].net_bw_bps);
            CHECK_EQ_INT(d.types[k].bytes_per_elem, c.types[k].bytes_per_elem);
            CHECK_EQ_INT(d.counts[k], c.counts[k]);
        }
        dnp_free(text);
    }
}

TEST(json_errors_are_located)
{
    dnp_error err = {0};
    dnp_graph *g = NULL;
    dnp_cluster c;
    char path[64];
    /* syntax: line and column */
    CHECK(write_text(path, "{\n  \"format\": \"dnnpar-model\",\n  \"ops\": [ }\n") == 0);
    CHECK(dnp_model_read_json(path, &g, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, ":3:") != NULL);
    unlink(path);
    /* semantics: the op's index and name */
    dnp_error_clear(&err);
    CHECK(write_text(path, "{\"format\": \"dnnpar-model\", \"version\": 1, \"ops\": ["
                           "{\"name\": \"x\", \"kind\": \"input\", \"inputs\": [], \"out\": [3,8,8]},"
                           "{\"name\": \"c\", \"kind\": \"conv\", \"inputs\": [\"y\"], "
                           "\"out\": [4,8,8]}]}") == 0);
    CHECK(dnp_model_read_json(path, &g, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "ops[1] ('c')") != NULL && strstr(err.msg, "'y'") != NULL);
    unlink(path);
    dnp_error_clear(&err);
    CHECK(write_text(path, "{\"format\": \"dnnpar-cluster\", \"version\": 1, \"devices\": ["
                           "{\"name\": \"a\", \"count\": 2, \"peak_flops\": -1, "
                           "\"net_bw_bps\": 1, \"dtype\": \"fp32\"}]}") == 0);
    CHECK(dnp_cluster_read_json(path, &c, &err) == DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "devices[0] ('a')") != NULL);
    unlink(path);
    CHECK(g == NULL);
}

/* The AccPar text format survives a trip through the model JSON. */
TEST(json_model_and_reference_text_agree)
{
    char path[512];
    snprintf(path, sizeof path, "%s/reference/accpar/Vgg11.txt", test_data_dir());
    dnp_graph *g = NULL, *h = NULL;
    dnp_error err = {0};
    CHECK(dnp_model_load(path, &g, &err) == DNP_OK);
    if (g == NULL)
        return;
    char *a = dnp_model_to_json(g), tmp[64];
    CHECK(write_text(tmp, a) == 0);
    CHECK(dnp_model_load(tmp, &h, &err) == DNP_OK);
    if (h != NULL) {
        dnp_graph_totals ta, tb;
        dnp_graph_totals_get(g, 512, &ta);
        dnp_graph_totals_get(h, 512, &tb);
        CHECK(ta.training_flop == tb.training_flop);
        CHECK_EQ_INT(ta.params, tb.params);
    }
    unlink(tmp);
    dnp_free(a);
    dnp_graph_free(g);
    dnp_graph_free(h);
}
