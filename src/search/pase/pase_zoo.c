/*
 * pase_zoo.c - the zoo entries of the PaSE module: the PaSE prototype's
 * graphs that the core IR can express (AlexNet, Inception-v3, ResNet-101
 * exactly as the prototype builds them; pase_convert.c turns them into
 * the graphs of pase_models.c), and DenseNet-121, the dense graph the
 * paper names as its limitation (section V).  RNNLM and the Transformer
 * need ops the core IR lacks; they live in pase_models.c only.
 */
#include "model/zoo.h"

#include <stdio.h>

/* ---- AlexNet (the prototype's: 227x227, relu fused, fc8 of 1024) ------- */

static int build_pase_alexnet(dnp_graph *g)
{
    int x = dnp_graph_input(g, "data", 3, 227, 227);
    x = dnp_graph_conv(g, "conv1", x, 96, 11, 4, 0, 1, 1);
    x = dnp_graph_unary(g, "relu1", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "pool1", DNP_OP_MAXPOOL, x, 3, 2, 0);
    x = dnp_graph_conv(g, "conv2", x, 256, 5, 1, 2, 1, 1);
    x = dnp_graph_unary(g, "relu2", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "pool2", DNP_OP_MAXPOOL, x, 3, 2, 0);
    x = dnp_graph_conv(g, "conv3", x, 384, 3, 1, 1, 1, 1);
    x = dnp_graph_unary(g, "relu3", DNP_OP_RELU, x);
    x = dnp_graph_conv(g, "conv4", x, 384, 3, 1, 1, 1, 1);
    x = dnp_graph_unary(g, "relu4", DNP_OP_RELU, x);
    x = dnp_graph_conv(g, "conv5", x, 256, 3, 1, 1, 1, 1);
    x = dnp_graph_unary(g, "relu5", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "pool5", DNP_OP_MAXPOOL, x, 3, 2, 0);
    x = dnp_graph_flatten(g, "flatten", x);
    x = dnp_graph_fc(g, "fc6", x, 4096, 1);
    x = dnp_graph_unary(g, "relu6", DNP_OP_RELU, x);
    x = dnp_graph_fc(g, "fc7", x, 4096, 1);
    x = dnp_graph_unary(g, "relu7", DNP_OP_RELU, x);
    x = dnp_graph_fc(g, "fc8", x, 1024, 1);
    return dnp_graph_unary(g, "loss", DNP_OP_SOFTMAX, x);
}

/* ---- Inception-v3 (torchvision, no auxiliary logits) ---------------------- */

/* BasicConv2d: conv (no bias) + batch norm + relu. */
static int basic(zoo_builder *b, const char *p, int x, int64_t n, int kh, int kw, int stride, int ph,
                 int pw)
{
    x = dnp_graph_conv2(b->g, zoo_fmt(b->name, "%s.conv", p), x, n, kh, kw, stride, stride, ph, pw, 1, 0);
    x = dnp_graph_unary(b->g, zoo_fmt(b->name, "%s.bn", p), DNP_OP_BATCHNORM, x);
    return dnp_graph_unary(b->g, zoo_fmt(b->name, "%s.relu", p), DNP_OP_RELU, x);
}

static int inc_a(zoo_builder *b, const char *m, int x, int64_t pool_features)
{
    char p[48];
    int br[4];
    snprintf(p, sizeof p, "%s.branch1x1", m);
    br[0] = basic(b, p, x, 64, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch5x5_1", m);
    int t = basic(b, p, x, 48, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch5x5_2", m);
    br[1] = basic(b, p, t, 64, 5, 5, 1, 2, 2);
    snprintf(p, sizeof p, "%s.branch3x3dbl_1", m);
    t = basic(b, p, x, 64, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3dbl_2", m);
    t = basic(b, p, t, 96, 3, 3, 1, 1, 1);
    snprintf(p, sizeof p, "%s.branch3x3dbl_3", m);
    br[2] = basic(b, p, t, 96, 3, 3, 1, 1, 1);
    t = dnp_graph_pool(b->g, zoo_fmt(b->name, "%s.branch_pool.pool", m), DNP_OP_AVGPOOL, x, 3, 1, 1);
    snprintf(p, sizeof p, "%s.branch_pool", m);
    br[3] = basic(b, p, t, pool_features, 1, 1, 1, 0, 0);
    return dnp_graph_concat(b->g, zoo_fmt(b->name, "%s.concat", m), 4, br);
}

static int inc_b(zoo_builder *b, const char *m, int x)
{
    char p[48];
    int br[3];
    snprintf(p, sizeof p, "%s.branch3x3", m);
    br[0] = basic(b, p, x, 384, 3, 3, 2, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3dbl_1", m);
    int t = basic(b, p, x, 64, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3dbl_2", m);
    t = basic(b, p, t, 96, 3, 3, 1, 1, 1);
    snprintf(p, sizeof p, "%s.branch3x3dbl_3", m);
    br[1] = basic(b, p, t, 96, 3, 3, 2, 0, 0);
    br[2] = dnp_graph_pool(b->g, zoo_fmt(b->name, "%s.branch_pool", m), DNP_OP_MAXPOOL, x, 3, 2, 0);
    return dnp_graph_concat(b->g, zoo_fmt(b->name, "%s.concat", m), 3, br);
}

static int inc_c(zoo_builder *b, const char *m, int x, int64_t c7)
{
    char p[48];
    int br[4];
    snprintf(p, sizeof p, "%s.branch1x1", m);
    br[0] = basic(b, p, x, 192, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch7x7_1", m);
    int t = basic(b, p, x, c7, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch7x7_2", m);
    t = basic(b, p, t, c7, 1, 7, 1, 0, 3);
    snprintf(p, sizeof p, "%s.branch7x7_3", m);
    br[1] = basic(b, p, t, 192, 7, 1, 1, 3, 0);
    snprintf(p, sizeof p, "%s.branch7x7dbl_1", m);
    t = basic(b, p, x, c7, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch7x7dbl_2", m);
    t = basic(b, p, t, c7, 7, 1, 1, 3, 0);
    snprintf(p, sizeof p, "%s.branch7x7dbl_3", m);
    t = basic(b, p, t, c7, 1, 7, 1, 0, 3);
    snprintf(p, sizeof p, "%s.branch7x7dbl_4", m);
    t = basic(b, p, t, c7, 7, 1, 1, 3, 0);
    snprintf(p, sizeof p, "%s.branch7x7dbl_5", m);
    br[2] = basic(b, p, t, 192, 1, 7, 1, 0, 3);
    t = dnp_graph_pool(b->g, zoo_fmt(b->name, "%s.branch_pool.pool", m), DNP_OP_AVGPOOL, x, 3, 1, 1);
    snprintf(p, sizeof p, "%s.branch_pool", m);
    br[3] = basic(b, p, t, 192, 1, 1, 1, 0, 0);
    return dnp_graph_concat(b->g, zoo_fmt(b->name, "%s.concat", m), 4, br);
}

static int inc_d(zoo_builder *b, const char *m, int x)
{
    char p[48];
    int br[3];
    snprintf(p, sizeof p, "%s.branch3x3_1", m);
    int t = basic(b, p, x, 192, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3_2", m);
    br[0] = basic(b, p, t, 320, 3, 3, 2, 0, 0);
    snprintf(p, sizeof p, "%s.branch7x7x3_1", m);
    t = basic(b, p, x, 192, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch7x7x3_2", m);
    t = basic(b, p, t, 192, 1, 7, 1, 0, 3);
    snprintf(p, sizeof p, "%s.branch7x7x3_3", m);
    t = basic(b, p, t, 192, 7, 1, 1, 3, 0);
    snprintf(p, sizeof p, "%s.branch7x7x3_4", m);
    br[1] = basic(b, p, t, 192, 3, 3, 2, 0, 0);
    br[2] = dnp_graph_pool(b->g, zoo_fmt(b->name, "%s.branch_pool", m), DNP_OP_MAXPOOL, x, 3, 2, 0);
    return dnp_graph_concat(b->g, zoo_fmt(b->name, "%s.concat", m), 3, br);
}

static int inc_e(zoo_builder *b, const char *m, int x)
{
    char p[48];
    int br[4], two[2];
    snprintf(p, sizeof p, "%s.branch1x1", m);
    br[0] = basic(b, p, x, 320, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3_1", m);
    int t = basic(b, p, x, 384, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3_2a", m);
    two[0] = basic(b, p, t, 384, 1, 3, 1, 0, 1);
    snprintf(p, sizeof p, "%s.branch3x3_2b", m);
    two[1] = basic(b, p, t, 384, 3, 1, 1, 1, 0);
    br[1] = dnp_graph_concat(b->g, zoo_fmt(b->name, "%s.branch3x3.concat", m), 2, two);
    snprintf(p, sizeof p, "%s.branch3x3dbl_1", m);
    t = basic(b, p, x, 448, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3dbl_2", m);
    t = basic(b, p, t, 384, 3, 3, 1, 1, 1);
    snprintf(p, sizeof p, "%s.branch3x3dbl_3a", m);
    two[0] = basic(b, p, t, 384, 1, 3, 1, 0, 1);
    snprintf(p, sizeof p, "%s.branch3x3dbl_3b", m);
    two[1] = basic(b, p, t, 384, 3, 1, 1, 1, 0);
    br[2] = dnp_graph_concat(b->g, zoo_fmt(b->name, "%s.branch3x3dbl.concat", m), 2, two);
    t = dnp_graph_pool(b->g, zoo_fmt(b->name, "%s.branch_pool.pool", m), DNP_OP_AVGPOOL, x, 3, 1, 1);
    snprintf(p, sizeof p, "%s.branch_pool", m);
    br[3] = basic(b, p, t, 192, 1, 1, 1, 0, 0);
    return dnp_graph_concat(b->g, zoo_fmt(b->name, "%s.concat", m), 4, br);
}

static int build_pase_inception3(dnp_graph *g)
{
    zoo_builder b = {g, ""};
    int x = dnp_graph_input(g, "data", 3, 299, 299);
    x = basic(&b, "Conv2d_1a_3x3", x, 32, 3, 3, 2, 0, 0);
    x = basic(&b, "Conv2d_2a_3x3", x, 32, 3, 3, 1, 0, 0);
    x = basic(&b, "Conv2d_2b_3x3", x, 64, 3, 3, 1, 1, 1);
    x = dnp_graph_pool(g, "maxpool1", DNP_OP_MAXPOOL, x, 3, 2, 0);
    x = basic(&b, "Conv2d_3b_1x1", x, 80, 1, 1, 1, 0, 0);
    x = basic(&b, "Conv2d_4a_3x3", x, 192, 3, 3, 1, 0, 0);
    x = dnp_graph_pool(g, "maxpool2", DNP_OP_MAXPOOL, x, 3, 2, 0);
    x = inc_a(&b, "Mixed_5b", x, 32);
    x = inc_a(&b, "Mixed_5c", x, 64);
    x = inc_a(&b, "Mixed_5d", x, 64);
    x = inc_b(&b, "Mixed_6a", x);
    x = inc_c(&b, "Mixed_6b", x, 128);
    x = inc_c(&b, "Mixed_6c", x, 160);
    x = inc_c(&b, "Mixed_6d", x, 160);
    x = inc_c(&b, "Mixed_6e", x, 192);
    x = inc_d(&b, "Mixed_7a", x);
    x = inc_e(&b, "Mixed_7b", x);
    x = inc_e(&b, "Mixed_7c", x);
    x = dnp_graph_adaptive_avgpool(g, "avgpool", x, 1, 1);
    x = dnp_graph_flatten(g, "flatten", x);
    x = dnp_graph_fc(g, "fc", x, 1000, 1);
    return dnp_graph_unary(g, "loss", DNP_OP_SOFTMAX, x);
}

/* ---- ResNet-101 (bottleneck v1.5 on 227x227, as the prototype) ---------- */

static int conv_bn(zoo_builder *b, const char *p, const char *conv, const char *bn, int x, int64_t n,
                   int k, int stride, int pad)
{
    x = dnp_graph_conv(b->g, zoo_fmt(b->name, "%s.%s", p, conv), x, n, k, stride, pad, 1, 0);
    return dnp_graph_unary(b->g, zoo_fmt(b->name, "%s.%s", p, bn), DNP_OP_BATCHNORM, x);
}

static int build_pase_resnet101(dnp_graph *g)
{
    static const int blocks[4] = {3, 4, 23, 3};
    zoo_builder b = {g, ""};
    int x = dnp_graph_input(g, "data", 3, 227, 227);
    x = conv_bn(&b, "stem", "conv1", "bn1", x, 64, 7, 2, 3);
    x = dnp_graph_unary(g, "stem.relu", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "maxpool", DNP_OP_MAXPOOL, x, 3, 2, 1);
    int64_t inplanes = 64;
    for (int l = 0; l < 4; l++) {
        int64_t planes = (int64_t)64 << l;
        for (int k = 0; k < blocks[l]; k++) {
            char p[24];
            snprintf(p, sizeof p, "layer%d.%d", l + 1, k);
            int stride = (k == 0 && l > 0) ? 2 : 1;
            int t = conv_bn(&b, p, "conv1", "bn1", x, planes, 1, 1, 0);
            t = dnp_graph_unary(g, zoo_fmt(b.name, "%s.relu1", p), DNP_OP_RELU, t);
            t = conv_bn(&b, p, "conv2", "bn2", t, planes, 3, stride, 1);
            t = dnp_graph_unary(g, zoo_fmt(b.name, "%s.relu2", p), DNP_OP_RELU, t);
            t = conv_bn(&b, p, "conv3", "bn3", t, planes * 4, 1, 1, 0);
            int id = x;
            if (k == 0 && (stride != 1 || inplanes != planes * 4))
                id = conv_bn(&b, p, "downsample.0", "downsample.1", x, planes * 4, 1, stride, 0);
            x = dnp_graph_add(g, zoo_fmt(b.name, "%s.add", p), t, id);
            x = dnp_graph_unary(g, zoo_fmt(b.name, "%s.relu", p), DNP_OP_RELU, x);
            inplanes = planes * 4;
        }
    }
    x = dnp_graph_adaptive_avgpool(g, "avgpool", x, 1, 1);
    x = dnp_graph_flatten(g, "flatten", x);
    x = dnp_graph_fc(g, "fc", x, 1000, 1);
    return dnp_graph_unary(g, "loss", DNP_OP_SOFTMAX, x);
}

/* ---- DenseNet-121 (torchvision): every layer reads all earlier ones ---- */

static int build_pase_densenet121(dnp_graph *g)
{
    static const int blocks[4] = {6, 12, 24, 16};
    enum { GROWTH = 32, BN_SIZE = 4, MAX_LAYERS = 32 };
    zoo_builder b = {g, ""};
    int x = dnp_graph_input(g, "data", 3, 224, 224);
    x = dnp_graph_conv(g, "features.conv0", x, 64, 7, 2, 3, 1, 0);
    x = dnp_graph_unary(g, "features.norm0", DNP_OP_BATCHNORM, x);
    x = dnp_graph_unary(g, "features.relu0", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "features.pool0", DNP_OP_MAXPOOL, x, 3, 2, 1);
    int64_t ch = 64;
    for (int bl = 0; bl < 4; bl++) { /* bl < 4, l < 32: names fit */
        int feats[MAX_LAYERS + 1];
        int nf = 0;
        feats[nf++] = x;
        for (int l = 0; l < blocks[bl]; l++) {
            char p[48];
            snprintf(p, sizeof p, "features.denseblock%d.denselayer%d", (bl + 1) % 10,
                     (l + 1) % 100);
            int in = nf == 1 ? feats[0]
                             : dnp_graph_concat(g, zoo_fmt(b.name, "%s.cat", p), nf, feats);
            int t = dnp_graph_unary(g, zoo_fmt(b.name, "%s.norm1", p), DNP_OP_BATCHNORM, in);
            t = dnp_graph_unary(g, zoo_fmt(b.name, "%s.relu1", p), DNP_OP_RELU, t);
            t = dnp_graph_conv(g, zoo_fmt(b.name, "%s.conv1", p), t, BN_SIZE * GROWTH, 1, 1, 0, 1, 0);
            t = dnp_graph_unary(g, zoo_fmt(b.name, "%s.norm2", p), DNP_OP_BATCHNORM, t);
            t = dnp_graph_unary(g, zoo_fmt(b.name, "%s.relu2", p), DNP_OP_RELU, t);
            t = dnp_graph_conv(g, zoo_fmt(b.name, "%s.conv2", p), t, GROWTH, 3, 1, 1, 1, 0);
            feats[nf++] = t;
        }
        x = dnp_graph_concat(g, zoo_fmt(b.name, "features.denseblock%d.cat", bl + 1), nf, feats);
        ch += (int64_t)blocks[bl] * GROWTH;
        if (bl < 3) {
            x = dnp_graph_unary(g, zoo_fmt(b.name, "features.transition%d.norm", bl + 1),
                                DNP_OP_BATCHNORM, x);
            x = dnp_graph_unary(g, zoo_fmt(b.name, "features.transition%d.relu", bl + 1), DNP_OP_RELU, x);
            ch /= 2;
            x = dnp_graph_conv(g, zoo_fmt(b.name, "features.transition%d.conv", bl + 1), x, ch, 1, 1, 0, 1,
                               0);
            x = dnp_graph_pool(g, zoo_fmt(b.name, "features.transition%d.pool", bl + 1), DNP_OP_AVGPOOL,
                               x, 2, 2, 0);
        }
    }
    x = dnp_graph_unary(g, "features.norm5", DNP_OP_BATCHNORM, x);
    x = dnp_graph_unary(g, "features.relu5", DNP_OP_RELU, x);
    x = dnp_graph_adaptive_avgpool(g, "avgpool", x, 1, 1);
    x = dnp_graph_flatten(g, "flatten", x);
    return dnp_graph_fc(g, "classifier", x, 1000, 1);
}

static const zoo_model pase_zoo[] = {
    {"pase-alexnet", "AlexNet as the PaSE prototype builds it: 227x227, fc 4096-4096-1024, loss",
     build_pase_alexnet},
    {"pase-inception3",
     "Inception-v3 as the PaSE prototype builds it: 299x299, no aux logits, loss",
     build_pase_inception3},
    {"pase-resnet101", "ResNet-101 as the PaSE prototype builds it: 227x227, v1.5, loss",
     build_pase_resnet101},
    {"pase-densenet121",
     "DenseNet-121 (torchvision, 224x224): the dense graph PaSE cannot search (paper sec. V)",
     build_pase_densenet121},
};

const zoo_model *zoo_models_pase(int *count)
{
    *count = (int)(sizeof pase_zoo / sizeof pase_zoo[0]);
    return pase_zoo;
}
