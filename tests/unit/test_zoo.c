/* test_zoo.c - the model zoo against torchvision's figures, and the AccPar
 * text loader on the reference files and on malformed input. */
#include "test.h"

#include "dnnpar.h"
#include "model/graph_named.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers -------------------------------------------------------- */

static dnp_graph *zoo_get(const char *name)
{
    dnp_graph *g = NULL;
    dnp_error err;
    dnp_error_clear(&err);
    dnp_status st = dnp_zoo_build(name, &g, &err);
    if (st != DNP_OK)
        printf("  building %s: %s\n", name, err.msg);
    CHECK_EQ_INT(st, DNP_OK);
    return st == DNP_OK ? g : NULL;
}

static dnp_graph_totals totals_of(const dnp_graph *g)
{
    dnp_graph_totals t;
    dnp_graph_totals_get(g, 1, &t);
    return t;
}

/* Number of ops of `kind`. */
static int count_kind(const dnp_graph *g, dnp_op_kind kind)
{
    int n = 0;
    for (int i = 0; i < dnp_graph_n_ops(g); i++)
        n += dnp_graph_op(g, i)->kind == kind;
    return n;
}

/* Op `name` exists with output shape c x h x w; returns it (or NULL). */
static const dnp_op *check_shape(const dnp_graph *g, const char *name, int64_t c, int64_t h,
                                 int64_t w)
{
    int i = dnp_graph_find(g, name);
    if (i < 0) {
        printf("  op '%s' not found in %s\n", name, dnp_graph_name(g));
        CHECK(i >= 0);
        return NULL;
    }
    const dnp_op *op = dnp_graph_op(g, i);
    const dnp_shape o = dnp_op_out_view(op);
    if (o.c != c || o.h != h || o.w != w)
        printf("  op '%s' of %s: %lldx%lldx%lld, expected %lldx%lldx%lld\n", name,
               dnp_graph_name(g), (long long)o.c, (long long)o.h, (long long)o.w, (long long)c,
               (long long)h, (long long)w);
    CHECK(o.c == c && o.h == h && o.w == w);
    return op;
}

/* Elements per sample of op's first input (its view: an FC flattens it). */
static int64_t in_elems(const dnp_graph *g, const dnp_op *op)
{
    const dnp_shape in = dnp_op_in_view(g, dnp_graph_find(g, op->name));
    return in.c * in.h * in.w;
}

static void check_model(const char *name, int64_t params, int64_t macs, double macs_rel)
{
    dnp_graph *g = zoo_get(name);
    if (g == NULL)
        return;
    dnp_graph_totals t = totals_of(g);
    CHECK_EQ_INT(t.params, params);
    if (macs_rel == 0.0)
        CHECK_EQ_INT(t.macs_per_sample, macs);
    else
        CHECK_NEAR(t.macs_per_sample, macs, macs_rel, 0.0);
    dnp_graph_free(g);
}

/* Write `len` bytes to a new temporary file named /tmp/dnp_zoo_XXXXXX.txt;
 * the name goes to path (>= 64 bytes).  Returns 0 on success. */
static int write_temp(const char *data, size_t len, char *path)
{
    strcpy(path, "/tmp/dnp_zoo_XXXXXX.txt");
    int fd = mkstemps(path, 4);
    CHECK(fd >= 0);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    close(fd);
    CHECK(done == len);
    return done == len ? 0 : -1;
}

/* Load `text` from a temporary file; returns the status, the graph (if
 * any) in *g_out, the message in err and "<basename>:" in prefix. */
static dnp_status load_text(const char *text, size_t len, dnp_graph **g_out, dnp_error *err,
                            char *prefix, size_t prefix_n)
{
    char path[64];
    dnp_error_clear(err);
    *g_out = NULL;
    if (write_temp(text, len, path) != 0)
        return DNP_ERR_IO;
    dnp_status st = dnp_load_accpar_text(path, g_out, err);
    snprintf(prefix, prefix_n, "%s:", strrchr(path, '/') + 1);
    remove(path);
    return st;
}

/* `text` must fail with DNP_ERR_INPUT, "<file>:<line>:" and `what`. */
static void check_bad(const char *text, int line, const char *what)
{
    dnp_graph *g;
    dnp_error err;
    char prefix[64], want[96];
    dnp_status st = load_text(text, strlen(text), &g, &err, prefix, sizeof prefix);
    CHECK_EQ_INT(st, DNP_ERR_INPUT);
    snprintf(want, sizeof want, "%s%d: ", prefix, line);
    if (strncmp(err.msg, want, strlen(want)) != 0 || strstr(err.msg, what) == NULL)
        printf("  message \"%s\"\n  expected \"%s...%s...\"\n", err.msg, want, what);
    CHECK(strncmp(err.msg, want, strlen(want)) == 0);
    CHECK(strstr(err.msg, what) != NULL);
    if (st == DNP_OK)
        dnp_graph_free(g);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = dnp_malloc(1 << 16);
    size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* ---- zoo: torchvision figures -------------------------------------- */

TEST(zoo_figures_exact)
{
    check_model("lenet", 61706, 416520, 0.0);
    check_model("alexnet", 61100840, 714188480, 0.0);
    check_model("resnet50", 25557032, 4089184256LL, 0.0);
    check_model("resnet18", 11689512, 1814073344LL, 0.0);
    check_model("resnet34", 21797672, 3663761408LL, 0.0);
    check_model("vgg19", 143667240, 19632062464LL, 0.0);
    check_model("vgg16", 138357544, 15470264320LL, 0.0);
    check_model("vgg13", 133047848, 11308466176LL, 0.0);
    check_model("vgg11", 132863336, 7609090048LL, 0.0);
}

/* The rounded figures torchvision publishes (GFLOPS column = GMACs). */
TEST(zoo_figures_torchvision_published)
{
    check_model("vgg19", 143667240, 19630000000LL, 0.01);
    check_model("vgg16", 138357544, 15470000000LL, 0.01);
    check_model("vgg13", 133047848, 11310000000LL, 0.01);
    check_model("vgg11", 132863336, 7610000000LL, 0.01);
    check_model("resnet18", 11689512, 1814000000LL, 0.01);
    check_model("resnet34", 21797672, 3660000000LL, 0.01);
    check_model("resnet50", 25557032, 4090000000LL, 0.01);
    check_model("alexnet", 61100840, 714000000LL, 0.01);
}

TEST(zoo_every_name_builds)
{
    /* the nine core models first, then those other modules contribute */
    static const char *const core[9] = {"lenet",    "alexnet",  "vgg11",    "vgg13",   "vgg16",
                                        "vgg19",    "resnet18", "resnet34", "resnet50"};
    CHECK(dnp_zoo_count() >= 9);
    for (int i = 0; i < 9; i++)
        CHECK_STR(dnp_zoo_name(i) ? dnp_zoo_name(i) : "", core[i]);
    CHECK(dnp_zoo_name(-1) == NULL);
    CHECK(dnp_zoo_name(dnp_zoo_count()) == NULL);
    CHECK(dnp_zoo_description(dnp_zoo_count()) == NULL);
    for (int i = 0; i < dnp_zoo_count(); i++) {
        const char *name = dnp_zoo_name(i);
        CHECK(name != NULL && name[0] != '\0');
        CHECK(dnp_zoo_description(i) != NULL && strlen(dnp_zoo_description(i)) > 10);
        CHECK(strchr(dnp_zoo_description(i), '\n') == NULL);
        dnp_graph *g = zoo_get(name);
        if (g == NULL)
            continue;
        CHECK_STR(dnp_graph_name(g), name);
        CHECK_STR(dnp_graph_note(g), dnp_zoo_description(i));
        CHECK(dnp_graph_n_ops(g) > 4);
        CHECK_EQ_INT(dnp_graph_op(g, 0)->kind, DNP_OP_INPUT);
        /* one input, but the Transformer's ids and positional encodings of
         * the encoder and the decoder (named axes, as the PaSE prototype) */
        CHECK_EQ_INT(count_kind(g, DNP_OP_INPUT), strcmp(name, "pase-transformer") == 0 ? 4 : 1);
        /* Inputs precede their consumers; the last op has no consumer. */
        for (int k = 0; k < dnp_graph_n_ops(g); k++) {
            const dnp_op *op = dnp_graph_op(g, k);
            for (int j = 0; j < op->n_inputs; j++)
                CHECK(op->inputs[j] >= 0 && op->inputs[j] < k);
        }
        dnp_graph_free(g);
    }
}

TEST(zoo_descriptions)
{
    const char *alex = "torchvision AlexNet (Krizhevsky 2014 'one weird trick' single-tower "
                       "variant: 64-192-384-256-256 channels), 3x224x224";
    for (int i = 0; i < 9; i++) { /* the core models */
        const char *d = dnp_zoo_description(i);
        if (strcmp(dnp_zoo_name(i), "alexnet") == 0)
            CHECK_STR(d, alex);
        else if (strcmp(dnp_zoo_name(i), "lenet") == 0)
            CHECK(strstr(d, "1x28x28") != NULL);
        else
            CHECK(strstr(d, "3x224x224") != NULL);
    }
    dnp_graph *g = zoo_get("alexnet");
    if (g) {
        CHECK_STR(dnp_graph_note(g), alex);
        dnp_graph_free(g);
    }
}

/* ---- zoo: per-layer spot checks ------------------------------------ */

TEST(zoo_lenet_layers)
{
    dnp_graph *g = zoo_get("lenet");
    if (g == NULL)
        return;
    check_shape(g, "data", 1, 28, 28);
    check_shape(g, "conv1", 6, 28, 28);
    check_shape(g, "pool1", 6, 14, 14);
    check_shape(g, "conv2", 16, 10, 10);
    check_shape(g, "pool2", 16, 5, 5);
    check_shape(g, "fc1", 120, 1, 1);
    check_shape(g, "fc3", 10, 1, 1);
    CHECK_EQ_INT(dnp_graph_op(g, dnp_graph_n_ops(g) - 1)->kind, DNP_OP_SOFTMAX);
    CHECK_EQ_INT(count_kind(g, DNP_OP_CONV), 2);
    CHECK_EQ_INT(count_kind(g, DNP_OP_FC), 3);
    dnp_graph_free(g);
}

TEST(zoo_alexnet_layers)
{
    dnp_graph *g = zoo_get("alexnet");
    if (g == NULL)
        return;
    const dnp_op *op = check_shape(g, "conv1", 64, 55, 55);
    if (op) {
        CHECK_EQ_INT(op->kh, 11);
        CHECK_EQ_INT(op->sh, 4);
        CHECK_EQ_INT(op->ph, 2);
        CHECK_EQ_INT(op->bias, 1);
    }
    check_shape(g, "pool1", 64, 27, 27);
    check_shape(g, "conv2", 192, 27, 27);
    check_shape(g, "pool2", 192, 13, 13);
    check_shape(g, "conv3", 384, 13, 13);
    check_shape(g, "conv4", 256, 13, 13);
    check_shape(g, "conv5", 256, 13, 13);
    check_shape(g, "pool5", 256, 6, 6);
    check_shape(g, "avgpool", 256, 6, 6);
    op = check_shape(g, "fc6", 4096, 1, 1);
    if (op)
        CHECK_EQ_INT(in_elems(g, op), 9216);
    check_shape(g, "fc8", 1000, 1, 1);
    CHECK_EQ_INT(count_kind(g, DNP_OP_CONV), 5);
    CHECK_EQ_INT(count_kind(g, DNP_OP_FC), 3);
    CHECK_EQ_INT(count_kind(g, DNP_OP_DROPOUT), 2);
    dnp_graph_free(g);
}

TEST(zoo_vgg_layers)
{
    static const struct {
        const char *name;
        int convs;
    } v[] = {{"vgg11", 8}, {"vgg13", 10}, {"vgg16", 13}, {"vgg19", 16}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        dnp_graph *g = zoo_get(v[i].name);
        if (g == NULL)
            continue;
        CHECK_EQ_INT(count_kind(g, DNP_OP_CONV), v[i].convs);
        CHECK_EQ_INT(count_kind(g, DNP_OP_FC), 3);
        CHECK_EQ_INT(count_kind(g, DNP_OP_MAXPOOL), 5);
        CHECK_EQ_INT(count_kind(g, DNP_OP_BATCHNORM), 0);
        check_shape(g, "conv1_1", 64, 224, 224);
        check_shape(g, "pool5", 512, 7, 7);
        check_shape(g, "avgpool", 512, 7, 7);
        const dnp_op *op = check_shape(g, "fc6", 4096, 1, 1);
        if (op)
            CHECK_EQ_INT(in_elems(g, op), 25088);
        check_shape(g, "fc8", 1000, 1, 1);
        dnp_graph_free(g);
    }
    dnp_graph *g = zoo_get("vgg19");
    if (g) {
        check_shape(g, "conv3_4", 256, 56, 56);
        check_shape(g, "conv5_4", 512, 14, 14);
        dnp_graph_free(g);
    }
}

TEST(zoo_resnet_layers)
{
    dnp_graph *g = zoo_get("resnet50");
    if (g == NULL)
        return;
    check_shape(g, "conv1", 64, 112, 112);
    check_shape(g, "maxpool", 64, 56, 56);
    const dnp_op *op = check_shape(g, "layer1.0.downsample.0", 256, 56, 56);
    if (op)
        CHECK_EQ_INT(op->sh, 1);
    CHECK(dnp_graph_find(g, "layer1.1.downsample.0") < 0);
    op = check_shape(g, "layer2.0.downsample.0", 512, 28, 28);
    if (op) {
        CHECK_EQ_INT(op->kh, 1);
        CHECK_EQ_INT(op->sh, 2);
        CHECK_EQ_INT(op->bias, 0);
        CHECK_EQ_INT(dnp_op_in_view(g, dnp_graph_find(g, op->name)).c, 256);
    }
    /* v1.5: the stride sits on the 3x3 conv. */
    op = check_shape(g, "layer2.0.conv1", 128, 56, 56);
    if (op)
        CHECK_EQ_INT(op->sh, 1);
    op = check_shape(g, "layer2.0.conv2", 128, 28, 28);
    if (op)
        CHECK_EQ_INT(op->sh, 2);
    check_shape(g, "layer3.5.relu", 1024, 14, 14);
    check_shape(g, "layer4.2.add", 2048, 7, 7);
    check_shape(g, "avgpool", 2048, 1, 1);
    check_shape(g, "fc", 1000, 1, 1);
    CHECK_EQ_INT(count_kind(g, DNP_OP_CONV), 53); /* 1 + 16*3 + 4 projections */
    CHECK_EQ_INT(count_kind(g, DNP_OP_ADD), 16);
    CHECK_EQ_INT(count_kind(g, DNP_OP_BATCHNORM), 53);
    for (int i = 0; i < dnp_graph_n_ops(g); i++)
        if (dnp_graph_op(g, i)->kind == DNP_OP_CONV)
            CHECK_EQ_INT(dnp_graph_op(g, i)->bias, 0);
    dnp_graph_free(g);

    g = zoo_get("resnet18");
    if (g == NULL)
        return;
    CHECK(dnp_graph_find(g, "layer1.0.downsample.0") < 0);
    check_shape(g, "layer2.0.downsample.0", 128, 28, 28);
    check_shape(g, "layer4.1.relu", 512, 7, 7);
    CHECK_EQ_INT(count_kind(g, DNP_OP_CONV), 20); /* 1 + 8*2 + 3 projections */
    CHECK_EQ_INT(count_kind(g, DNP_OP_ADD), 8);
    op = dnp_graph_op(g, dnp_graph_find(g, "fc"));
    if (op)
        CHECK_EQ_INT(dnp_op_in_view(g, dnp_graph_find(g, op->name)).c, 512);
    dnp_graph_free(g);

    g = zoo_get("resnet34");
    if (g == NULL)
        return;
    CHECK_EQ_INT(count_kind(g, DNP_OP_CONV), 36); /* 1 + 16*2 + 3 projections */
    check_shape(g, "layer3.5.relu", 256, 14, 14);
    dnp_graph_free(g);
}

/* ---- model loading by name ------------------------------------------ */

TEST(zoo_model_load_names)
{
    dnp_graph *g = NULL;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_model_load("ResNet50", &g, &err), DNP_OK);
    if (g) {
        CHECK_STR(dnp_graph_name(g), "resnet50");
        dnp_graph_free(g);
    }

    g = NULL;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_model_load("foo", &g, &err), DNP_ERR_INPUT);
    CHECK(g == NULL);
    CHECK_EQ_INT(err.status, DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "unknown model 'foo'") != NULL);
    CHECK(strstr(err.msg, "lenet, alexnet") != NULL);
    CHECK(strstr(err.msg, "resnet50") != NULL);

    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_zoo_build("vgg99", &g, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "vgg99") != NULL);

    dnp_error_clear(&err);
    /* A missing input file is bad input (exit 2), with the reason. */
    CHECK_EQ_INT(dnp_model_load("/nonexistent/dir/net.txt", &g, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "cannot open /nonexistent/dir/net.txt: No such file or directory");
    CHECK(g == NULL);
}

/* ---- AccPar reference files ------------------------------------------ */

static dnp_graph *load_reference(const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/reference/accpar/%s", test_data_dir(), file);
    dnp_graph *g = NULL;
    dnp_error err;
    dnp_error_clear(&err);
    dnp_status st = dnp_model_load(path, &g, &err);
    if (st != DNP_OK)
        printf("  loading %s: %s\n", path, err.msg);
    CHECK_EQ_INT(st, DNP_OK);
    return st == DNP_OK ? g : NULL;
}

TEST(zoo_accpar_alexnet_reference)
{
    dnp_graph *g = load_reference("Alexnet.txt");
    if (g == NULL)
        return;
    CHECK_STR(dnp_graph_name(g), "alexnet");
    CHECK_STR(dnp_graph_note(g), "AccPar reference network file Alexnet.txt");
    CHECK_EQ_INT(dnp_graph_n_ops(g), 9);
    CHECK_EQ_INT(count_kind(g, DNP_OP_CONV) + count_kind(g, DNP_OP_FC), 8);
    check_shape(g, "data", 3, 224, 224);
    const dnp_op *op = check_shape(g, "conv1", 96, 55, 55);
    if (op)
        CHECK_EQ_INT(op->kh, 11);
    check_shape(g, "conv2", 256, 27, 27);
    check_shape(g, "conv3", 384, 13, 13);
    check_shape(g, "conv5", 256, 6, 6);
    op = check_shape(g, "fc1", 4096, 1, 1);
    if (op)
        CHECK_EQ_INT(in_elems(g, op), 9216);
    check_shape(g, "fc3", 1000, 1, 1);
    /* Chain: op i reads op i-1. */
    for (int i = 1; i < dnp_graph_n_ops(g); i++) {
        CHECK_EQ_INT(dnp_graph_op(g, i)->n_inputs, 1);
        CHECK_EQ_INT(dnp_graph_op(g, i)->inputs[0], i - 1);
        CHECK_EQ_INT(dnp_graph_op(g, i)->bias, 0);
    }
    /* Weights: 34848 + 614400 + 884736 + 1327104 + 884736 + 37748736 +
     * 16777216 + 4096000. */
    CHECK_EQ_INT(totals_of(g).params, 62367776);
    dnp_graph_free(g);
}

TEST(zoo_accpar_vgg11_reference)
{
    dnp_graph *g = load_reference("Vgg11.txt");
    if (g == NULL)
        return;
    CHECK_STR(dnp_graph_name(g), "vgg11");
    CHECK_EQ_INT(dnp_graph_n_ops(g), 12);
    CHECK_EQ_INT(count_kind(g, DNP_OP_CONV), 8);
    CHECK_EQ_INT(count_kind(g, DNP_OP_FC), 3);
    check_shape(g, "data", 3, 224, 224);
    check_shape(g, "conv1", 64, 112, 112);
    check_shape(g, "conv31", 256, 56, 56);
    check_shape(g, "conv52", 512, 7, 7);
    const dnp_op *op = check_shape(g, "fc1", 4096, 1, 1);
    if (op)
        CHECK_EQ_INT(in_elems(g, op), 25088);
    check_shape(g, "fc3", 1000, 1, 1);
    dnp_graph_free(g);
}

/* ---- AccPar text: accepted variations -------------------------------- */

static const char small_net[] = "num_layers 2\n"
                                "c1 CONV\n"
                                "in_ch 3\n"
                                "in_fmap_h 8\n"
                                "in_fmap_w 8\n"
                                "kernel 3\n"
                                "out_ch 4\n"
                                "out_fmap_h 4\n"
                                "out_fmap_w 4\n"
                                "pool 2\n"
                                "f1 FC\n"
                                "in_ch 64\n"
                                "out_ch 10\n";

TEST(zoo_accpar_text_variants)
{
    dnp_graph *g;
    dnp_error err;
    char prefix[64];
    /* As is. */
    CHECK_EQ_INT(load_text(small_net, strlen(small_net), &g, &err, prefix, sizeof prefix),
                 DNP_OK);
    if (g) {
        check_shape(g, "c1", 4, 4, 4);
        check_shape(g, "f1", 10, 1, 1);
        CHECK_EQ_INT(totals_of(g).params, 3 * 4 * 9 + 64 * 10);
        /* Name from the temporary file: dnp_zoo_XXXXXX, lower-cased. */
        CHECK(strncmp(dnp_graph_name(g), "dnp_zoo_", 8) == 0);
        dnp_graph_free(g);
    }
    /* CRLF, blank lines, extra blanks, no final newline. */
    const char crlf[] = "num_layers 1\r\n\r\n  f  FC \r\n\tin_ch 7\r\nout_ch   3";
    CHECK_EQ_INT(load_text(crlf, strlen(crlf), &g, &err, prefix, sizeof prefix), DNP_OK);
    if (g) {
        check_shape(g, "data", 7, 1, 1);
        check_shape(g, "f", 3, 1, 1);
        dnp_graph_free(g);
    }
}

/* ---- AccPar text: errors ---------------------------------------------- */

TEST(zoo_accpar_text_errors)
{
    check_bad("", 1, "empty file");
    check_bad("\n\n", 2, "empty file");
    check_bad("layers 2\n", 1, "expected 'num_layers <n>', found 'layers 2'");
    check_bad("num_layers 0\n", 1, "positive integer below 2^31, found '0'");
    check_bad("num_layers -3\n", 1, "found '-3'");
    check_bad("num_layers 2147483648\n", 1, "found '2147483648'");
    check_bad("num_layers 99999999999999999999999999999\n", 1, "positive integer");
    check_bad("num_layers 1x\n", 1, "found '1x'");
    check_bad("num_layers 1\nc1 CONV\nin_ch 3\nin_fmap_h 8\nin_fmap_w 8\nkernal 3\n", 6,
              "expected 'kernel <n>', found 'kernal 3'");
    check_bad("num_layers 1\nc1 CONV\nin_ch 3\nin_fmap_h 8\nin_fmap_w 8\nkernel 3 3\n", 6,
              "expected 'kernel <n>', found 'kernel 3 3'");
    check_bad("num_layers 1\nc1 CONV\nin_ch 3\nin_fmap_h 8\nin_fmap_w\n", 5,
              "expected 'in_fmap_w <n>'");
    check_bad("num_layers 1\nc1 CONV\nin_ch 3\nin_fmap_h 8\n", 4,
              "file ends inside layer 'c1': expected 'in_fmap_w <n>'");
    check_bad("num_layers 1\nc1 CONV\nin_ch 3\nin_fmap_h 8\nin_fmap_w 8\nkernel 3\n"
              "out_ch 4\nout_fmap_h 4\nout_fmap_w 4\n",
              9, "expected 'pool <n>'");
    check_bad("num_layers 1\nc1 POOL\n", 2, "expected '<name> CONV' or '<name> FC'");
    check_bad("num_layers 1\nCONV\n", 2, "found 'CONV'");
    check_bad("num_layers 1\nf FC extra\n", 2, "found 'f FC extra'");
    check_bad("num_layers 3\nf FC\nin_ch 4\nout_ch 4\ng FC\nin_ch 4\nout_ch 2\n", 7,
              "file ends after 2 layers, but num_layers is 3");
    check_bad("num_layers 1\nf FC\nin_ch 4\nout_ch 4\ng FC\nin_ch 4\nout_ch 2\n", 5,
              "num_layers is 1, but more follows");
    check_bad("num_layers 2147483647\nf FC\nin_ch 4\nout_ch 4\n", 4, "after 1 layer,");
    /* Consistency between layers. */
    check_bad("num_layers 2\nf FC\nin_ch 4\nout_ch 4\ng FC\nin_ch 5\nout_ch 2\n", 6,
              "layer 'g': in_ch 5 does not match the previous layer's output features 4");
    check_bad("num_layers 2\nc1 CONV\nin_ch 3\nin_fmap_h 8\nin_fmap_w 8\nkernel 3\n"
              "out_ch 4\nout_fmap_h 4\nout_fmap_w 4\npool 2\n"
              "c2 CONV\nin_ch 4\nin_fmap_h 8\n",
              13, "in_fmap_h 8 does not match the previous layer's output height 4");
    check_bad("num_layers 2\nc1 CONV\nin_ch 3\nin_fmap_h 8\nin_fmap_w 8\nkernel 3\n"
              "out_ch 4\nout_fmap_h 4\nout_fmap_w 4\npool 2\n"
              "c2 CONV\nin_ch 3\n",
              12, "in_ch 3 does not match the previous layer's output channels 4 ('c1' gives "
                  "4x4x4)");
    check_bad("num_layers 2\nf FC\nin_ch 4\nout_ch 4\nf FC\nin_ch 4\nout_ch 2\n", 5,
              "used twice");
    check_bad("num_layers 1\ndata FC\nin_ch 4\nout_ch 4\n", 2, "used twice");
    /* Sizes that would overflow later cost figures. */
    check_bad("num_layers 1\nc1 CONV\nin_ch 2147483647\nin_fmap_h 2147483647\n"
              "in_fmap_w 2147483647\nkernel 2147483647\nout_ch 2147483647\n"
              "out_fmap_h 2147483647\nout_fmap_w 2147483647\npool 2147483647\n",
              2, "too large");
    check_bad("num_layers 1\nf FC\nin_ch 2147483647\nout_ch 2147483647\n", 2, "too large");
    /* A name longer than 63 characters. */
    check_bad("num_layers 1\n"
              "a234567890123456789012345678901234567890123456789012345678901234 FC\n",
              2, "longer than 63 characters");
    /* Binary garbage. */
    static const char garbage[] = "num_layers 1\nf FC\nin_ch \x01\x02\xff\n";
    check_bad(garbage, 3, "unexpected byte 0x01 in column 7");
    dnp_graph *g;
    dnp_error err;
    char prefix[64];
    static const char nul[] = "num_\0ayers 1\n";
    CHECK_EQ_INT(load_text(nul, sizeof nul - 1, &g, &err, prefix, sizeof prefix),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, ":1: unexpected byte 0x00") != NULL);
}

TEST(zoo_accpar_text_io_errors)
{
    dnp_graph *g = NULL;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_load_accpar_text("/nonexistent/x.txt", &g, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "cannot open /nonexistent/x.txt: No such file or directory");
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_load_accpar_text("/tmp", &g, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "/tmp: is a directory");
    CHECK(g == NULL);
    /* An earlier error in the caller's record is kept, but the status
     * returned is this call's. */
    dnp_error_clear(&err);
    dnp_error_set(&err, DNP_ERR_INTERNAL, "earlier");
    CHECK_EQ_INT(dnp_load_accpar_text("/nonexistent/x.txt", &g, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "earlier");
}

/* Mutations of the reference AlexNet file (bytes replaced, lines cut):
 * every outcome is DNP_OK or DNP_ERR_INPUT with "file:line:" and nothing
 * crashes under the sanitizers. */
TEST(zoo_accpar_text_mutations)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/reference/accpar/Alexnet.txt", test_data_dir());
    size_t len = 0;
    char *orig = read_all(path, &len);
    CHECK(orig != NULL && len > 100);
    if (orig == NULL)
        return;
    char *buf = dnp_malloc(len + 1);
    if (buf == NULL) {
        dnp_free(orig);
        return;
    }
    static const char alphabet[] = "0123456789- \n\t\rxCONVFC_\0\xff";
    unsigned long long rng = 12345;
    int n_ok = 0, n_bad = 0;
    for (int iter = 0; iter < 400; iter++) {
        memcpy(buf, orig, len);
        size_t n = len;
        if (iter % 4 == 0) {
            n = (size_t)(test_rand(&rng) % len); /* truncate */
        } else {
            int edits = 1 + (int)(test_rand(&rng) % 3);
            for (int e = 0; e < edits; e++)
                buf[test_rand(&rng) % len] =
                    alphabet[test_rand(&rng) % (sizeof alphabet - 1)];
        }
        dnp_graph *g;
        dnp_error err;
        char prefix[64];
        dnp_status st = load_text(buf, n, &g, &err, prefix, sizeof prefix);
        if (st == DNP_OK) {
            n_ok++;
            dnp_graph_totals t;
            dnp_graph_totals_get(g, 512, &t); /* no overflow under UBSan */
            CHECK(t.params > 0);
            dnp_graph_free(g);
        } else {
            n_bad++;
            CHECK_EQ_INT(st, DNP_ERR_INPUT);
            CHECK(strncmp(err.msg, prefix, strlen(prefix)) == 0);
        }
    }
    CHECK(n_bad > 100);
    dnp_free(buf);
    dnp_free(orig);
}
