/*
 * zoo_pase.c - the zoo entries of the PaSE module (src/search/pase): the
 * five graphs of the
 * PaSE prototype (AlexNet, Inception-v3, ResNet-101, RNNLM, Transformer;
 * reference README "The built-in models"), built op for op in the order
 * the prototype adds them so that their iteration spaces (iter_rules.c)
 * are exactly the prototype's graphs (nest ids equal its node ids), and DenseNet-121,
 * the dense graph the paper names as its limitation (section V).  RNNLM
 * and the Transformer use the ops on named axes (src/model/graph_named.h).
 * Their iteration spaces (pase_model_*) and the benchmark variants
 * (pase_build_transformer, pase_build_resnet) are search/pase/pase_zoo.c's,
 * which builds them with zoo_models_pase, zoo_pase_transformer and
 * zoo_pase_resnet.
 */
#include "model/zoo.h"
#include "model/graph_named.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

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

int zoo_pase_resnet(dnp_graph *g, const int blocks[4])
{
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

static int build_pase_resnet101(dnp_graph *g)
{
    static const int blocks[4] = {3, 4, 23, 3};
    return zoo_pase_resnet(g, blocks);
}

/* ---- RNNLM (embedding 100000 x 2048, 2-layer LSTM, projection, loss) --- */

static int build_pase_rnnlm(dnp_graph *g)
{
    const int64_t seq[1] = {256};
    int x = graph_named_input(g, "ids", "bs", seq);
    x = graph_named_embedding(g, "embedding", x, 100000, 2048, 'v', 'd');
    x = graph_named_lstm(g, "lstm", x, 2048, 2);
    /* the projection's and the loss's dims named as the paper's Table II */
    x = graph_named_fc(g, "fc", x, 100000, 'v', 0);
    x = graph_named_like(g, "loss", DNP_OP_SOFTMAX, 1, &x, 0);
    return graph_named_annotate(g, x, "bsv", 0);
}

/* ---- Transformer (6 + 6 layers, d_model 512, 8 heads, vocabulary 50000) -- */

enum { TF_SEQ = 256, TF_MODEL = 512, TF_HEADS = 8, TF_DK = 64, TF_FF = 2048, TF_VOCAB = 50000 };

/* Multi-head attention: Q, K, V from one stacked weight (s = 3), split by
 * three selects (one unstack vertex in PaSE's graph), scores, softmax over
 * the keys, values, output projection.  Self attention: 'ble,shek->sbhlk'
 * on x; cross attention: 'sble,shek->sbhlk' on stacked (query, key, value).
 * The heads h are what expert strategies split (the prototype's model dim). */
static int attention(zoo_builder *b, const char *p, int x, int stacked)
{
    dnp_graph *g = b->g;
    static const int64_t shk[3] = {3, TF_HEADS, TF_DK};
    int qkv = graph_named_einsum(g, zoo_fmt(b->name, "%s.qkv", p),
                                 stacked ? "sble,shek->sbhlk" : "ble,shek->sbhlk", x, -1, "shk",
                                 shk);
    int part[3];
    for (int k = 0; k < 3; k++) {
        part[k] = graph_named_select(g, zoo_fmt(b->name, "%s.unstack.%d", p, k), qkv, 0, k);
        graph_named_annotate(g, part[k], NULL, 'h');
    }
    int logits = graph_named_einsum(g, zoo_fmt(b->name, "%s.logits", p), "bhlk,bhmk->bhlm",
                                    part[0], part[1], NULL, NULL);
    int w = graph_named_like(g, zoo_fmt(b->name, "%s.softmax", p), DNP_OP_SOFTMAX, 1, &logits, 0);
    graph_named_annotate(g, w, NULL, 'h');
    int sc = graph_named_einsum(g, zoo_fmt(b->name, "%s.scores", p), "bhlm,bhmk->bhlk", w,
                                part[2], NULL, NULL);
    static const int64_t e[1] = {TF_MODEL};
    return graph_named_einsum(g, zoo_fmt(b->name, "%s.out", p), "bhlk,hek->ble", sc, -1, "e", e);
}

static int tf_add(zoo_builder *b, const char *name, int x, int y)
{
    const int in[2] = {x, y};
    return graph_named_like(b->g, name, DNP_OP_ADD, 2, in, 0);
}

static int tf_norm(zoo_builder *b, const char *name, int x)
{
    return graph_named_like(b->g, name, DNP_OP_LAYERNORM, 1, &x, 2 * TF_MODEL);
}

/* Position-wise feed-forward: ff1 with its bias and ReLU (the prototype's
 * two fused point-wise ops), ff2. */
static int feed_forward(zoo_builder *b, const char *p, int x)
{
    static const int64_t f[1] = {TF_FF}, e[1] = {TF_MODEL};
    dnp_graph *g = b->g;
    int h = graph_named_einsum(g, zoo_fmt(b->name, "%s.ff1", p), "ble,ef->blf", x, -1, "f", f);
    h = graph_named_like(g, zoo_fmt(b->name, "%s.ff1.bias", p), DNP_OP_ELTWISE, 1, &h, TF_FF);
    h = graph_named_like(g, zoo_fmt(b->name, "%s.ff1.relu", p), DNP_OP_RELU, 1, &h, 0);
    return graph_named_einsum(g, zoo_fmt(b->name, "%s.ff2", p), "blf,fe->ble", h, -1, "e", e);
}

/* Token embedding of (b, l) ids plus a (b, l, e) positional encoding, both
 * graph inputs as in the prototype. */
static int embed(zoo_builder *b, const char *p)
{
    static const int64_t l[1] = {TF_SEQ}, le[2] = {TF_SEQ, TF_MODEL};
    dnp_graph *g = b->g;
    int ids = graph_named_input(g, zoo_fmt(b->name, "%s.ids", p), "bl", l);
    int pe = graph_named_input(g, zoo_fmt(b->name, "%s.pe", p), "ble", le);
    int e = graph_named_embedding(g, zoo_fmt(b->name, "%s.embedding", p), ids, TF_VOCAB,
                                  TF_MODEL, 'v', 'e');
    return tf_add(b, zoo_fmt(b->name, "%s.posenc", p), e, pe);
}

/* Post-norm encoder and decoder of `layers` layers each. */
int zoo_pase_transformer(dnp_graph *g, int layers)
{
    zoo_builder b = {g, ""};
    char p[24], q[48];
    int x = embed(&b, "enc"), t;
    for (int l = 0; l < layers; l++) {
        snprintf(p, sizeof p, "enc%d", l % 10000);
        t = attention(&b, p, x, 0);
        x = tf_add(&b, zoo_fmt(b.name, "%s.add1", p), x, t);
        x = tf_norm(&b, zoo_fmt(b.name, "%s.norm1", p), x);
        t = feed_forward(&b, p, x);
        x = tf_add(&b, zoo_fmt(b.name, "%s.add2", p), x, t);
        x = tf_norm(&b, zoo_fmt(b.name, "%s.norm2", p), x);
    }
    int enc = x;
    x = embed(&b, "dec");
    for (int l = 0; l < layers; l++) {
        snprintf(p, sizeof p, "dec%d", l % 10000);
        t = attention(&b, p, x, 0);
        x = tf_add(&b, zoo_fmt(b.name, "%s.add1", p), x, t);
        x = tf_norm(&b, zoo_fmt(b.name, "%s.norm1", p), x);
        snprintf(q, sizeof q, "%s.x", p);
        const int qkv[3] = {x, enc, enc};
        int y = graph_named_stack(g, zoo_fmt(b.name, "%s.stack", q), 3, qkv, 0, 's');
        t = attention(&b, q, y, 1);
        x = tf_add(&b, zoo_fmt(b.name, "%s.add2", p), x, t);
        x = tf_norm(&b, zoo_fmt(b.name, "%s.norm2", p), x);
        t = feed_forward(&b, p, x);
        x = tf_add(&b, zoo_fmt(b.name, "%s.add3", p), x, t);
        x = tf_norm(&b, zoo_fmt(b.name, "%s.norm3", p), x);
    }
    static const int64_t v[1] = {TF_VOCAB};
    x = graph_named_einsum(g, "logits", "ble,ev->blv", x, -1, "v", v);
    return graph_named_like(g, "loss", DNP_OP_SOFTMAX, 1, &x, 0);
}

static int build_pase_transformer(dnp_graph *g) { return zoo_pase_transformer(g, 6); }

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
    {"pase-rnnlm",
     "RNNLM of the PaSE prototype: ids of 256, embedding 100000x2048, 2-layer LSTM, loss",
     build_pase_rnnlm},
    {"pase-transformer",
     "Transformer of the PaSE prototype: 6+6 layers, d_model 512, 8 heads, vocabulary 50000",
     build_pase_transformer},
    {"pase-densenet121",
     "DenseNet-121 (torchvision, 224x224): the dense graph PaSE cannot search (paper sec. V)",
     build_pase_densenet121},
};

const zoo_model *zoo_models_pase(int *count)
{
    *count = (int)(sizeof pase_zoo / sizeof pase_zoo[0]);
    return pase_zoo;
}
