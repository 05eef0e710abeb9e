/*
 * zoo.c - built-in models with the layer shapes torchvision builds
 * (LeNet-5, AlexNet, VGG-11/13/16/19, ResNet-18/34/50), and the model
 * loader that picks between the zoo and the AccPar text format.
 */
#include "model/zoo.h"
#include "model/zoo_transformer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Builder state: the graph under construction and a scratch buffer for
 * formatted op names (the graph copies each name). */


/* ---- LeNet-5 ------------------------------------------------------- */

static int build_lenet(dnp_graph *g)
{
    int x = dnp_graph_input(g, "data", 1, 28, 28);
    x = dnp_graph_conv(g, "conv1", x, 6, 5, 1, 2, 1, 1);
    x = dnp_graph_unary(g, "relu1", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "pool1", DNP_OP_MAXPOOL, x, 2, 2, 0);
    x = dnp_graph_conv(g, "conv2", x, 16, 5, 1, 0, 1, 1);
    x = dnp_graph_unary(g, "relu2", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "pool2", DNP_OP_MAXPOOL, x, 2, 2, 0);
    x = dnp_graph_flatten(g, "flatten", x);
    x = dnp_graph_fc(g, "fc1", x, 120, 1);
    x = dnp_graph_unary(g, "relu3", DNP_OP_RELU, x);
    x = dnp_graph_fc(g, "fc2", x, 84, 1);
    x = dnp_graph_unary(g, "relu4", DNP_OP_RELU, x);
    x = dnp_graph_fc(g, "fc3", x, 10, 1);
    return dnp_graph_unary(g, "softmax", DNP_OP_SOFTMAX, x);
}

/* ---- AlexNet (torchvision) ---------------------------------------- */

static int build_alexnet(dnp_graph *g)
{
    int x = dnp_graph_input(g, "data", 3, 224, 224);
    x = dnp_graph_conv(g, "conv1", x, 64, 11, 4, 2, 1, 1);
    x = dnp_graph_unary(g, "relu1", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "pool1", DNP_OP_MAXPOOL, x, 3, 2, 0);
    x = dnp_graph_conv(g, "conv2", x, 192, 5, 1, 2, 1, 1);
    x = dnp_graph_unary(g, "relu2", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "pool2", DNP_OP_MAXPOOL, x, 3, 2, 0);
    x = dnp_graph_conv(g, "conv3", x, 384, 3, 1, 1, 1, 1);
    x = dnp_graph_unary(g, "relu3", DNP_OP_RELU, x);
    x = dnp_graph_conv(g, "conv4", x, 256, 3, 1, 1, 1, 1);
    x = dnp_graph_unary(g, "relu4", DNP_OP_RELU, x);
    x = dnp_graph_conv(g, "conv5", x, 256, 3, 1, 1, 1, 1);
    x = dnp_graph_unary(g, "relu5", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "pool5", DNP_OP_MAXPOOL, x, 3, 2, 0);
    x = dnp_graph_adaptive_avgpool(g, "avgpool", x, 6, 6);
    x = dnp_graph_flatten(g, "flatten", x);
    x = dnp_graph_unary(g, "drop6", DNP_OP_DROPOUT, x);
    x = dnp_graph_fc(g, "fc6", x, 4096, 1);
    x = dnp_graph_unary(g, "relu6", DNP_OP_RELU, x);
    x = dnp_graph_unary(g, "drop7", DNP_OP_DROPOUT, x);
    x = dnp_graph_fc(g, "fc7", x, 4096, 1);
    x = dnp_graph_unary(g, "relu7", DNP_OP_RELU, x);
    return dnp_graph_fc(g, "fc8", x, 1000, 1);
}

/* ---- VGG (torchvision, no batch norm) ------------------------------ */

/* Convolutions per stage for configurations A, B, D, E; every stage ends
 * with a 2x2/2 max-pool; stage s has 64 << min(s, 3) channels. */
static int build_vgg(zoo_builder *b, const int convs_per_stage[5])
{
    dnp_graph *g = b->g;
    int x = dnp_graph_input(g, "data", 3, 224, 224);
    for (int s = 0; s < 5; s++) {
        int64_t ch = (int64_t)64 << (s < 3 ? s : 3);
        for (int i = 0; i < convs_per_stage[s]; i++) {
            x = dnp_graph_conv(g, zoo_fmt(b->name, "conv%d_%d", s + 1, i + 1), x, ch, 3, 1, 1, 1, 1);
            x = dnp_graph_unary(g, zoo_fmt(b->name, "relu%d_%d", s + 1, i + 1), DNP_OP_RELU, x);
        }
        x = dnp_graph_pool(g, zoo_fmt(b->name, "pool%d", s + 1), DNP_OP_MAXPOOL, x, 2, 2, 0);
    }
    x = dnp_graph_adaptive_avgpool(g, "avgpool", x, 7, 7);
    x = dnp_graph_flatten(g, "flatten", x);
    x = dnp_graph_fc(g, "fc6", x, 4096, 1);
    x = dnp_graph_unary(g, "relu6", DNP_OP_RELU, x);
    x = dnp_graph_unary(g, "drop6", DNP_OP_DROPOUT, x);
    x = dnp_graph_fc(g, "fc7", x, 4096, 1);
    x = dnp_graph_unary(g, "relu7", DNP_OP_RELU, x);
    x = dnp_graph_unary(g, "drop7", DNP_OP_DROPOUT, x);
    return dnp_graph_fc(g, "fc8", x, 1000, 1);
}

static int build_vgg11(dnp_graph *g)
{
    zoo_builder b = {g, ""};
    return build_vgg(&b, (const int[5]){1, 1, 2, 2, 2});
}
static int build_vgg13(dnp_graph *g)
{
    zoo_builder b = {g, ""};
    return build_vgg(&b, (const int[5]){2, 2, 2, 2, 2});
}
static int build_vgg16(dnp_graph *g)
{
    zoo_builder b = {g, ""};
    return build_vgg(&b, (const int[5]){2, 2, 3, 3, 3});
}
static int build_vgg19(dnp_graph *g)
{
    zoo_builder b = {g, ""};
    return build_vgg(&b, (const int[5]){2, 2, 4, 4, 4});
}

/* ---- ResNet (torchvision; v1.5 bottleneck) -------------------------- */

/* "<prefix>.<conv_name>" (no bias) followed by batch norm
 * "<prefix>.<bn_name>"; returns the batch norm's index. */
static int conv_bn(zoo_builder *b, const char *prefix, const char *conv_name,
                   const char *bn_name, int in, int64_t out_c, int k, int stride, int pad)
{
    int x = dnp_graph_conv(b->g, zoo_fmt(b->name, "%s.%s", prefix, conv_name), in, out_c, k, stride, pad,
                           1, 0);
    return dnp_graph_unary(b->g, zoo_fmt(b->name, "%s.%s", prefix, bn_name), DNP_OP_BATCHNORM, x);
}

/* One residual block `prefix` (e.g. "layer2.0") on input x with in_c
 * channels.  Basic: 3x3, 3x3; bottleneck: 1x1, 3x3 (strided), 1x1 x4.
 * A 1x1 projection (conv + bn) replaces the identity when the stride or
 * the channel count changes.  Returns the block's output (after relu). */
static int res_block(zoo_builder *b, const char *prefix, int x, int64_t in_c, int64_t planes,
                     int stride, int bottleneck)
{
    dnp_graph *g = b->g;
    int64_t out_c = bottleneck ? 4 * planes : planes;
    int y;
    if (bottleneck) {
        y = conv_bn(b, prefix, "conv1", "bn1", x, planes, 1, 1, 0);
        y = dnp_graph_unary(g, zoo_fmt(b->name, "%s.relu1", prefix), DNP_OP_RELU, y);
        y = conv_bn(b, prefix, "conv2", "bn2", y, planes, 3, stride, 1);
        y = dnp_graph_unary(g, zoo_fmt(b->name, "%s.relu2", prefix), DNP_OP_RELU, y);
        y = conv_bn(b, prefix, "conv3", "bn3", y, out_c, 1, 1, 0);
    } else {
        y = conv_bn(b, prefix, "conv1", "bn1", x, planes, 3, stride, 1);
        y = dnp_graph_unary(g, zoo_fmt(b->name, "%s.relu1", prefix), DNP_OP_RELU, y);
        y = conv_bn(b, prefix, "conv2", "bn2", y, planes, 3, 1, 1);
    }
    int shortcut = x;
    if (stride != 1 || in_c != out_c)
        shortcut = conv_bn(b, prefix, "downsample.0", "downsample.1", x, out_c, 1, stride, 0);
    y = dnp_graph_add(g, zoo_fmt(b->name, "%s.add", prefix), y, shortcut);
    return dnp_graph_unary(g, zoo_fmt(b->name, "%s.relu", prefix), DNP_OP_RELU, y);
}

static int build_resnet(zoo_builder *b, const int blocks[4], int bottleneck)
{
    dnp_graph *g = b->g;
    int x = dnp_graph_input(g, "data", 3, 224, 224);
    x = dnp_graph_conv(g, "conv1", x, 64, 7, 2, 3, 1, 0);
    x = dnp_graph_unary(g, "bn1", DNP_OP_BATCHNORM, x);
    x = dnp_graph_unary(g, "relu", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "maxpool", DNP_OP_MAXPOOL, x, 3, 2, 1);
    int64_t in_c = 64;
    for (int s = 0; s < 4; s++) {
        int64_t planes = (int64_t)64 << s;
        for (int i = 0; i < blocks[s]; i++) {
            char prefix[32];
            snprintf(prefix, sizeof prefix, "layer%d.%d", s + 1, i);
            int stride = (s > 0 && i == 0) ? 2 : 1;
            x = res_block(b, prefix, x, in_c, planes, stride, bottleneck);
            in_c = bottleneck ? 4 * planes : planes;
        }
    }
    x = dnp_graph_adaptive_avgpool(g, "avgpool", x, 1, 1);
    x = dnp_graph_flatten(g, "flatten", x);
    return dnp_graph_fc(g, "fc", x, 1000, 1);
}

static int build_resnet18(dnp_graph *g)
{
    zoo_builder b = {g, ""};
    return build_resnet(&b, (const int[4]){2, 2, 2, 2}, 0);
}
static int build_resnet34(dnp_graph *g)
{
    zoo_builder b = {g, ""};
    return build_resnet(&b, (const int[4]){3, 4, 6, 3}, 0);
}
static int build_resnet50(dnp_graph *g)
{
    zoo_builder b = {g, ""};
    return build_resnet(&b, (const int[4]){3, 4, 6, 3}, 1);
}

/* ---- the table ------------------------------------------------------ */

static const zoo_model core_models[] = {
    {"lenet", "LeNet-5 (ReLU, max-pool), 1x28x28 MNIST, 10 classes", build_lenet},
    {"alexnet",
     "torchvision AlexNet (Krizhevsky 2014 'one weird trick' single-tower variant: "
     "64-192-384-256-256 channels), 3x224x224",
     build_alexnet},
    {"vgg11", "torchvision VGG-11 (config A, no batch norm), 3x224x224", build_vgg11},
    {"vgg13", "torchvision VGG-13 (config B, no batch norm), 3x224x224", build_vgg13},
    {"vgg16", "torchvision VGG-16 (config D, no batch norm), 3x224x224", build_vgg16},
    {"vgg19", "torchvision VGG-19 (config E, no batch norm), 3x224x224", build_vgg19},
    {"resnet18", "torchvision ResNet-18 (BasicBlock, layers [2,2,2,2]), 3x224x224",
     build_resnet18},
    {"resnet34", "torchvision ResNet-34 (BasicBlock, layers [3,4,6,3]), 3x224x224",
     build_resnet34},
    {"resnet50",
     "torchvision ResNet-50 v1.5 (Bottleneck, layers [3,4,6,3], stride on the 3x3 conv), "
     "3x224x224",
     build_resnet50},
};

/* The zoo: the core models, then the tables other modules contribute. */
typedef const zoo_model *(*zoo_table_fn)(int *count);

static const zoo_model *core_table(int *count)
{
    *count = (int)(sizeof core_models / sizeof core_models[0]);
    return core_models;
}

static const zoo_table_fn zoo_tables[] = {core_table, zoo_models_transformer,
                                          zoo_models_synergyflow, zoo_models_mpt, zoo_models_pase};

const char *zoo_fmt(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, ZOO_NAME_LEN, fmt, ap);
    va_end(ap);
    return buf;
}

/* Model i of the concatenated tables, or NULL. */
static const zoo_model *zoo_at(int i)
{
    if (i < 0)
        return NULL;
    for (size_t t = 0; t < sizeof zoo_tables / sizeof zoo_tables[0]; t++) {
        int n = 0;
        const zoo_model *m = zoo_tables[t](&n);
        if (i < n)
            return &m[i];
        i -= n;
    }
    return NULL;
}

/* Number of built-in models.  O(modules). */
int dnp_zoo_count(void)
{
    int total = 0;
    for (size_t t = 0; t < sizeof zoo_tables / sizeof zoo_tables[0]; t++) {
        int n = 0;
        zoo_tables[t](&n);
        total += n;
    }
    return total;
}

/* Canonical lower-case name of model i, or NULL if i is out of range. */
const char *dnp_zoo_name(int i)
{
    const zoo_model *m = zoo_at(i);
    return m ? m->name : NULL;
}

/* One-line description of model i, or NULL if i is out of range. */
const char *dnp_zoo_description(int i)
{
    const zoo_model *m = zoo_at(i);
    return m ? m->description : NULL;
}

static int zoo_find(const char *name)
{
    if (name == NULL)
        return -1;
    for (int i = 0; i < dnp_zoo_count(); i++)
        if (strcasecmp(name, zoo_at(i)->name) == 0)
            return i;
    return -1;
}

/* "lenet, alexnet, ..." into buf (truncated to n). */
static void zoo_list(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < dnp_zoo_count() && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", zoo_at(i)->name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* Build zoo model `name` (case-insensitive).  On success *out owns a new
 * graph whose note is the model's description.  Errors: DNP_ERR_INPUT for
 * an unknown name, DNP_ERR_NOMEM, DNP_ERR_INTERNAL if a builder rejects a
 * layer (a bug in the builder).  O(number of ops). */
dnp_status dnp_zoo_build(const char *name, dnp_graph **out, dnp_error *err)
{
    int idx = zoo_find(name);
    if (idx < 0 && zoo_transformer_is_spec(name))
        return zoo_transformer_build_spec(name, out, err);
    if (idx < 0) {
        char known[512];
        zoo_list(known, sizeof known);
        dnp_error_set(err, DNP_ERR_INPUT, "unknown zoo model '%s' (known: %s)",
                      name ? name : "(null)", known);
        return DNP_ERR_INPUT;
    }
    const zoo_model *m = zoo_at(idx);
    dnp_graph *g = dnp_graph_new(m->name);
    if (g == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building model '%s'", m->name);
        return DNP_ERR_NOMEM;
    }
    dnp_graph_set_note(g, m->description);
    int last = m->build(g);
    if (last < 0 || dnp_graph_error(g)[0] != '\0') {
        /* A builder only fails for want of memory; anything else is a bug. */
        dnp_status st = strncmp(dnp_graph_error(g), "out of memory", 13) == 0 ? DNP_ERR_NOMEM
                                                                             : DNP_ERR_INTERNAL;
        dnp_error_set(err, st, "building model '%s': %s", m->name,
                      dnp_graph_error(g)[0] ? dnp_graph_error(g) : "builder failed");
        dnp_graph_free(g);
        return st;
    }
    *out = g;
    return DNP_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcasecmp(s + n - k, suffix) == 0;
}

/* What a model file holds, from its first bytes: JSON (the first
 * non-blank byte is '{'), ONNX (a protobuf: the first byte is a field tag,
 * not text) or text (the AccPar layer format); MODEL_EMPTY if it holds
 * only blanks; MODEL_NONE if it cannot be opened or read (the extension
 * decides).
 * O(leading blanks). */
typedef enum { MODEL_NONE, MODEL_EMPTY, MODEL_JSON, MODEL_ONNX, MODEL_TEXT } model_kind;

static model_kind sniff_model_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return MODEL_NONE;
    int c;
    while ((c = fgetc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r')
        ;
    int failed = ferror(f); /* a directory, or a read error: the loader says which */
    fclose(f);
    if (failed)
        return MODEL_NONE;
    if (c == EOF)
        return MODEL_EMPTY;
    if (c == '{')
        return MODEL_JSON;
    return (c < 0x20 || c >= 0x7f) ? MODEL_ONNX : MODEL_TEXT;
}

/* Load a model: a zoo name (case-insensitive), "-" (dnnpar model JSON on
 * standard input) or a model file, recognised by its content whatever its
 * name (sniff_model_file): dnnpar JSON, ONNX or AccPar layer text; an empty
 * file is an error naming it; only an unreadable file falls back to its
 * extension (.onnx, .json, .txt), whose loader names the problem.  A path (with a '/') that cannot
 * be opened is "cannot open"; any other unknown name is DNP_ERR_INPUT with
 * the nearest zoo name and the list of them.  On success *out owns a new
 * graph.  O(size of model). */
dnp_status dnp_model_load_opts(const char *name_or_path, const dnp_load_options *opt,
                               dnp_graph **out, dnp_error *err)
{
    if (name_or_path != NULL &&
        (zoo_find(name_or_path) >= 0 || zoo_transformer_is_spec(name_or_path)))
        return dnp_zoo_build(name_or_path, out, err);
    if (name_or_path != NULL && strcmp(name_or_path, "-") == 0)
        return dnp_model_read_json(name_or_path, out, err);
    /* A file is recognised by content; the extension decides only for text
     * that is not JSON and for files that cannot be read (the loader then
     * names the problem). */
    model_kind kind = name_or_path != NULL ? sniff_model_file(name_or_path) : MODEL_NONE;
    if (kind == MODEL_EMPTY) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "model file %s is empty (a model file holds ONNX, dnnpar JSON or AccPar "
                      "layer text)",
                      name_or_path);
        return DNP_ERR_INPUT;
    }
    if (kind == MODEL_JSON)
        return dnp_model_read_json(name_or_path, out, err);
    if (kind == MODEL_ONNX)
        return dnp_load_onnx(name_or_path, opt, out, err);
    if (name_or_path != NULL && ends_with(name_or_path, ".onnx"))
        return dnp_load_onnx(name_or_path, opt, out, err);
    if (name_or_path != NULL && ends_with(name_or_path, ".json"))
        return dnp_model_read_json(name_or_path, out, err);
    if (kind == MODEL_TEXT || (name_or_path != NULL && ends_with(name_or_path, ".txt")))
        return dnp_load_accpar_text(name_or_path, out, err);
    /* A file that cannot be read, or a path (it has a '/') that is not
     * there: say why, not "unknown model". */
    struct stat sb;
    if (name_or_path != NULL && kind == MODEL_NONE) {
        int exists = stat(name_or_path, &sb) == 0;
        if (exists && S_ISDIR(sb.st_mode)) {
            dnp_error_set(err, DNP_ERR_INPUT, "%s is a directory, not a model file",
                          name_or_path);
            return DNP_ERR_INPUT;
        }
        if (exists || strchr(name_or_path, '/') != NULL) {
            FILE *f = fopen(name_or_path, "rb");
            int e = errno;
            if (f != NULL)
                fclose(f);
            dnp_error_set(err, DNP_ERR_INPUT, "cannot read %s: %s", name_or_path,
                          f != NULL ? "read error" : strerror(e));
            return DNP_ERR_INPUT;
        }
    }
    char known[512], hint[96] = "";
    zoo_list(known, sizeof known);
    const char *names[64];
    int n = dnp_zoo_count() < 64 ? dnp_zoo_count() : 64;
    for (int i = 0; i < n; i++)
        names[i] = dnp_zoo_name(i);
    const char *near = name_or_path ? dnp_suggest(name_or_path, names, (size_t)n) : NULL;
    if (near != NULL)
        snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
    dnp_error_set(err, DNP_ERR_INPUT,
                  "unknown model '%s'%s (known: %s; or a model file: ONNX, dnnpar JSON or "
                  "AccPar .txt)",
                  name_or_path ? name_or_path : "(null)", hint, known);
    return DNP_ERR_INPUT;
}

dnp_status dnp_model_load(const char *name_or_path, dnp_graph **out, dnp_error *err)
{
    return dnp_model_load_opts(name_or_path, NULL, out, err);
}
