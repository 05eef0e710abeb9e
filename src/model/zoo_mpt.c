/*
 * mpt_zoo.c - the whole networks of the MPT paper's Table I that the core
 * zoo lacks: WRN-40-10 and FractalNet with the modified join of Fig. 14.
 * (ResNet-34 is the core zoo's "resnet34".)
 */
#include "model/zoo.h"

#include <stdio.h>

/* Builder state: the graph and scratch for formatted names. */
typedef struct {
    dnp_graph *g;
    char name[64];
    int n; /* running number for unique names */
} mz_builder;


/* ---- WRN-40-10 (Zagoruyko and Komodakis 2016, CIFAR) ------------------ */

/* Pre-activation basic block: bn-relu-conv3x3(stride)-bn-relu-conv3x3, plus
 * the input, or a 1x1 conv (stride) of the pre-activated input when the
 * shape changes (the authors' code). */
static int wrn_block(mz_builder *b, const char *p, int x, int64_t in_c, int64_t out_c,
                     int stride)
{
    dnp_graph *g = b->g;
    int a = dnp_graph_unary(g, zoo_fmt(b->name, "%s.bn1", p), DNP_OP_BATCHNORM, x);
    a = dnp_graph_unary(g, zoo_fmt(b->name, "%s.relu1", p), DNP_OP_RELU, a);
    int y = dnp_graph_conv(g, zoo_fmt(b->name, "%s.conv1", p), a, out_c, 3, stride, 1, 1, 0);
    y = dnp_graph_unary(g, zoo_fmt(b->name, "%s.bn2", p), DNP_OP_BATCHNORM, y);
    y = dnp_graph_unary(g, zoo_fmt(b->name, "%s.relu2", p), DNP_OP_RELU, y);
    y = dnp_graph_conv(g, zoo_fmt(b->name, "%s.conv2", p), y, out_c, 3, 1, 1, 1, 0);
    int s = x;
    if (in_c != out_c || stride != 1)
        s = dnp_graph_conv(g, zoo_fmt(b->name, "%s.shortcut", p), a, out_c, 1, stride, 0, 1, 0);
    return dnp_graph_add(g, zoo_fmt(b->name, "%s.add", p), y, s);
}

/* Depth 40 = 6 n + 4 with n = 6 blocks per group; width 10: 160, 320, 640. */
static int build_wrn_40_10(dnp_graph *g)
{
    mz_builder b = {g, "", 0};
    int x = dnp_graph_input(g, "data", 3, 32, 32);
    x = dnp_graph_conv(g, "conv1", x, 16, 3, 1, 1, 1, 0);
    int64_t in_c = 16;
    for (int s = 0; s < 3; s++) {
        int64_t w = (int64_t)160 << s;
        for (int i = 0; i < 6; i++) {
            char p[32];
            snprintf(p, sizeof p, "group%d.%d", s + 1, i);
            x = wrn_block(&b, p, x, in_c, w, (s > 0 && i == 0) ? 2 : 1);
            in_c = w;
        }
    }
    x = dnp_graph_unary(g, "bn", DNP_OP_BATCHNORM, x);
    x = dnp_graph_unary(g, "relu", DNP_OP_RELU, x);
    x = dnp_graph_adaptive_avgpool(g, "avgpool", x, 1, 1);
    x = dnp_graph_flatten(g, "flatten", x);
    return dnp_graph_fc(g, "fc", x, 10, 1);
}

/* ---- FractalNet (Larsson, Maire and Shakhnarovich 2017, ImageNet) ----- */

#define MAX_JOIN 8

/* conv3x3 + batch norm; the ReLU comes after the join (Fig. 14a). */
static int fr_conv(mz_builder *b, const char *blk, int x, int64_t out_c)
{
    int k = ++b->n;
    int y = dnp_graph_conv(b->g, zoo_fmt(b->name, "%s.conv%d", blk, k), x, out_c, 3, 1, 1, 1, 0);
    return dnp_graph_unary(b->g, zoo_fmt(b->name, "%s.bn%d", blk, k), DNP_OP_BATCHNORM, y);
}

/* Join: the mean of the inputs (a chain of adds; the 1/n scale is free)
 * followed by the ReLU; a single input only gets its ReLU. */
static int fr_join(mz_builder *b, const char *blk, const int *in, int n)
{
    int k = ++b->n, x = in[0];
    for (int i = 1; i < n; i++)
        x = dnp_graph_add(b->g, zoo_fmt(b->name, "%s.join%d.add%d", blk, k, i), x, in[i]);
    return dnp_graph_unary(b->g, zoo_fmt(b->name, "%s.relu%d", blk, k), DNP_OP_RELU, x);
}

/* The fractal f_C (Larsson et al., Eq. 1): f_1(z) = conv(z),
 * f_C(z) = join(f_{C-1}(f_{C-1}(z)), conv(z)); joins that meet are merged
 * into one, so this returns the inputs of the pending join. */
static int fractal(mz_builder *b, const char *blk, int z, int64_t c, int cols, int *out)
{
    if (cols == 1) {
        out[0] = fr_conv(b, blk, z, c);
        return 1;
    }
    int inner[MAX_JOIN];
    int n = fractal(b, blk, z, c, cols - 1, inner);
    int a = fr_join(b, blk, inner, n);
    n = fractal(b, blk, a, c, cols - 1, out);
    out[n] = fr_conv(b, blk, z, c);
    return n + 1;
}

/* ResNet-34's stem and head (Larsson et al., Sec. 4.2) around 4 blocks of
 * 4 columns; 128-256-512-1024 channels give Table I's 163M parameters in
 * 3x3 convolutions (164M in all); 2x2 max-pools between blocks. */
static int build_fractalnet(dnp_graph *g)
{
    mz_builder b = {g, "", 0};
    int x = dnp_graph_input(g, "data", 3, 224, 224);
    x = dnp_graph_conv(g, "conv1", x, 64, 7, 2, 3, 1, 0);
    x = dnp_graph_unary(g, "bn1", DNP_OP_BATCHNORM, x);
    x = dnp_graph_unary(g, "relu1", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "maxpool", DNP_OP_MAXPOOL, x, 3, 2, 1);
    for (int k = 0; k < 4; k++) {
        char blk[24];
        snprintf(blk, sizeof blk, "block%d", k + 1);
        int in[MAX_JOIN];
        b.n = 0;
        int n = fractal(&b, blk, x, (int64_t)128 << k, 4, in);
        x = fr_join(&b, blk, in, n);
        if (k < 3)
            x = dnp_graph_pool(g, zoo_fmt(b.name, "pool%d", k + 1), DNP_OP_MAXPOOL, x, 2, 2, 0);
    }
    x = dnp_graph_adaptive_avgpool(g, "avgpool", x, 1, 1);
    x = dnp_graph_flatten(g, "flatten", x);
    return dnp_graph_fc(g, "fc", x, 1000, 1);
}

static const zoo_model mpt_models[] = {
    {"wrn-40-10",
     "WRN-40-10 (Zagoruyko and Komodakis, pre-activation, 1x1 projection shortcuts), "
     "3x32x32 CIFAR, 10 classes (MPT Table I)",
     build_wrn_40_10},
    {"fractalnet",
     "FractalNet (Larsson et al.) 4 blocks x 4 columns, 128-1024 channels, ResNet-34 stem, "
     "join = mean before ReLU (MPT Fig. 14), 3x224x224 (MPT Table I)",
     build_fractalnet},
};

const zoo_model *zoo_models_mpt(int *count)
{
    *count = (int)(sizeof mpt_models / sizeof mpt_models[0]);
    return mpt_models;
}
