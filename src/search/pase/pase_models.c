/*
 * pase_models.c - the five graphs of the authors' prototype, built op by
 * op in the order it adds them (so vertex ids equal its node ids; README
 * "The built-in models"): AlexNet, Inception-v3, RNNLM, Transformer and
 * ResNet-101.  RNNLM and the Transformer need einsum, embedding, LSTM,
 * stack and unstack, which the core IR does not have; AlexNet,
 * Inception-v3 and ResNet-101 also exist in the zoo (pase_zoo.c), and the
 * converter turns those into these same graphs.
 */
#include "search/pase/pase.h"
#include "core/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Builder state: the graph and a scratch name. */
typedef struct {
    pase_graph *g;
    char name[PASE_NAME_LEN];
} mb;

static const char *nm(mb *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static const char *nm(mb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->name, sizeof b->name, fmt, ap);
    va_end(ap);
    return b->name;
}

/* ---- AlexNet ----------------------------------------------------------- */

static pase_graph *alexnet(int64_t batch)
{
    pase_graph *g = pase_graph_new("pase-alexnet", 4);
    if (g == NULL)
        return NULL;
    const int64_t in[4] = {batch, 3, 227, 227};
    pase_tensor x = pase_input(4, in, "bchw"), y;
    pase_conv(g, "conv1", &x, 96, 11, 11, 4, 4, 0, 0, 1, &y);
    pase_pool(g, "pool1", &y, 3, 3, 2, 2, 0, 0, &x);
    pase_conv(g, "conv2", &x, 256, 5, 5, 1, 1, 2, 2, 1, &y);
    pase_pool(g, "pool2", &y, 3, 3, 2, 2, 0, 0, &x);
    pase_conv(g, "conv3", &x, 384, 3, 3, 1, 1, 1, 1, 1, &y);
    pase_conv(g, "conv4", &y, 384, 3, 3, 1, 1, 1, 1, 1, &x);
    pase_conv(g, "conv5", &x, 256, 3, 3, 1, 1, 1, 1, 1, &y);
    pase_pool(g, "pool5", &y, 3, 3, 2, 2, 0, 0, &x);
    pase_ravel(g, "flatten.ravel", &x, &y);
    const int64_t flat[2] = {batch, 256 * 6 * 6};
    pase_unravel(g, "flatten.unravel", &y, 2, flat, "bc", &x);
    pase_fc(g, "fc6", &x, 4096, 1, &y);
    pase_fc(g, "fc7", &y, 4096, 1, &x);
    pase_fc(g, "fc8", &x, 1024, 0, &y);
    pase_sce(g, "loss", &y, &x);
    return g;
}

/* ---- Inception-v3 ------------------------------------------------------ */

/* The prototype's AddBasicConv: conv (pw 0) + batch norm. */
static pase_tensor basic(mb *b, const char *prefix, const pase_tensor *x, int64_t n, int r, int s,
                         int stride, int pad_h, int pad_w)
{
    pase_tensor c, o;
    memset(&o, 0, sizeof o);
    if (pase_conv(b->g, nm(b, "%s.conv", prefix), x, n, r, s, stride, stride, pad_h, pad_w, 0,
                  &c) >= 0)
        pase_norm(b->g, nm(b, "%s.bn", prefix), &c, 0, &o);
    return o;
}

static pase_tensor pool(mb *b, const char *name, const pase_tensor *x, int stride, int pad)
{
    pase_tensor o;
    memset(&o, 0, sizeof o);
    pase_pool(b->g, name, x, 3, 3, stride, stride, pad, pad, &o);
    return o;
}

static pase_tensor concat(mb *b, const char *name, int n, const pase_tensor *xs)
{
    const pase_tensor *in[4];
    for (int i = 0; i < n; i++)
        in[i] = &xs[i];
    pase_tensor o;
    memset(&o, 0, sizeof o);
    pase_concat(b->g, name, n, in, 1, &o);
    return o;
}

static pase_tensor inception_a(mb *b, const char *m, const pase_tensor *x, int64_t pool_features)
{
    char p[40];
    pase_tensor br[4], t;
    snprintf(p, sizeof p, "%s.branch1x1", m);
    br[0] = basic(b, p, x, 64, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch5x5_1", m);
    t = basic(b, p, x, 48, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch5x5_2", m);
    br[1] = basic(b, p, &t, 64, 5, 5, 1, 2, 2);
    snprintf(p, sizeof p, "%s.branch3x3dbl_1", m);
    t = basic(b, p, x, 64, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3dbl_2", m);
    t = basic(b, p, &t, 96, 3, 3, 1, 1, 1);
    snprintf(p, sizeof p, "%s.branch3x3dbl_3", m);
    br[2] = basic(b, p, &t, 96, 3, 3, 1, 1, 1);
    t = pool(b, nm(b, "%s.branch_pool.pool", m), x, 1, 1);
    snprintf(p, sizeof p, "%s.branch_pool", m);
    br[3] = basic(b, p, &t, pool_features, 1, 1, 1, 0, 0);
    return concat(b, nm(b, "%s.concat", m), 4, br);
}

static pase_tensor inception_b(mb *b, const char *m, const pase_tensor *x)
{
    char p[40];
    pase_tensor br[3], t;
    snprintf(p, sizeof p, "%s.branch3x3", m);
    br[0] = basic(b, p, x, 384, 3, 3, 2, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3dbl_1", m);
    t = basic(b, p, x, 64, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3dbl_2", m);
    t = basic(b, p, &t, 96, 3, 3, 1, 1, 1);
    snprintf(p, sizeof p, "%s.branch3x3dbl_3", m);
    br[1] = basic(b, p, &t, 96, 3, 3, 2, 0, 0);
    br[2] = pool(b, nm(b, "%s.branch_pool", m), x, 2, 0);
    return concat(b, nm(b, "%s.concat", m), 3, br);
}

static pase_tensor inception_c(mb *b, const char *m, const pase_tensor *x, int64_t c7)
{
    char p[40];
    pase_tensor br[4], t;
    snprintf(p, sizeof p, "%s.branch1x1", m);
    br[0] = basic(b, p, x, 192, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch7x7_1", m);
    t = basic(b, p, x, c7, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch7x7_2", m);
    t = basic(b, p, &t, c7, 1, 7, 1, 0, 3);
    snprintf(p, sizeof p, "%s.branch7x7_3", m);
    br[1] = basic(b, p, &t, 192, 7, 1, 1, 3, 0);
    snprintf(p, sizeof p, "%s.branch7x7dbl_1", m);
    t = basic(b, p, x, c7, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch7x7dbl_2", m);
    t = basic(b, p, &t, c7, 7, 1, 1, 3, 0);
    snprintf(p, sizeof p, "%s.branch7x7dbl_3", m);
    t = basic(b, p, &t, c7, 1, 7, 1, 0, 3);
    snprintf(p, sizeof p, "%s.branch7x7dbl_4", m);
    t = basic(b, p, &t, c7, 7, 1, 1, 3, 0);
    snprintf(p, sizeof p, "%s.branch7x7dbl_5", m);
    br[2] = basic(b, p, &t, 192, 1, 7, 1, 0, 3);
    t = pool(b, nm(b, "%s.branch_pool.pool", m), x, 1, 1);
    snprintf(p, sizeof p, "%s.branch_pool", m);
    br[3] = basic(b, p, &t, 192, 1, 1, 1, 0, 0);
    return concat(b, nm(b, "%s.concat", m), 4, br);
}

static pase_tensor inception_d(mb *b, const char *m, const pase_tensor *x)
{
    char p[40];
    pase_tensor br[3], t;
    snprintf(p, sizeof p, "%s.branch3x3_1", m);
    t = basic(b, p, x, 192, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3_2", m);
    br[0] = basic(b, p, &t, 320, 3, 3, 2, 0, 0);
    snprintf(p, sizeof p, "%s.branch7x7x3_1", m);
    t = basic(b, p, x, 192, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch7x7x3_2", m);
    t = basic(b, p, &t, 192, 1, 7, 1, 0, 3);
    snprintf(p, sizeof p, "%s.branch7x7x3_3", m);
    t = basic(b, p, &t, 192, 7, 1, 1, 3, 0);
    snprintf(p, sizeof p, "%s.branch7x7x3_4", m);
    br[1] = basic(b, p, &t, 192, 3, 3, 2, 0, 0);
    br[2] = pool(b, nm(b, "%s.branch_pool", m), x, 2, 0);
    return concat(b, nm(b, "%s.concat", m), 3, br);
}

static pase_tensor inception_e(mb *b, const char *m, const pase_tensor *x)
{
    char p[40];
    pase_tensor br[4], t, two[2];
    snprintf(p, sizeof p, "%s.branch1x1", m);
    br[0] = basic(b, p, x, 320, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3_1", m);
    t = basic(b, p, x, 384, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3_2a", m);
    two[0] = basic(b, p, &t, 384, 1, 3, 1, 0, 1);
    snprintf(p, sizeof p, "%s.branch3x3_2b", m);
    two[1] = basic(b, p, &t, 384, 3, 1, 1, 1, 0);
    br[1] = concat(b, nm(b, "%s.branch3x3.concat", m), 2, two);
    snprintf(p, sizeof p, "%s.branch3x3dbl_1", m);
    t = basic(b, p, x, 448, 1, 1, 1, 0, 0);
    snprintf(p, sizeof p, "%s.branch3x3dbl_2", m);
    t = basic(b, p, &t, 384, 3, 3, 1, 1, 1);
    snprintf(p, sizeof p, "%s.branch3x3dbl_3a", m);
    two[0] = basic(b, p, &t, 384, 1, 3, 1, 0, 1);
    snprintf(p, sizeof p, "%s.branch3x3dbl_3b", m);
    two[1] = basic(b, p, &t, 384, 3, 1, 1, 1, 0);
    br[2] = concat(b, nm(b, "%s.branch3x3dbl.concat", m), 2, two);
    t = pool(b, nm(b, "%s.branch_pool.pool", m), x, 1, 1);
    snprintf(p, sizeof p, "%s.branch_pool", m);
    br[3] = basic(b, p, &t, 192, 1, 1, 1, 0, 0);
    return concat(b, nm(b, "%s.concat", m), 4, br);
}

static pase_graph *inception3(int64_t batch)
{
    mb b = {pase_graph_new("pase-inception3", 4), ""};
    if (b.g == NULL)
        return NULL;
    const int64_t in[4] = {batch, 3, 299, 299};
    pase_tensor x = pase_input(4, in, "bchw"), y;
    x = basic(&b, "Conv2d_1a_3x3", &x, 32, 3, 3, 2, 0, 0);
    x = basic(&b, "Conv2d_2a_3x3", &x, 32, 3, 3, 1, 0, 0);
    x = basic(&b, "Conv2d_2b_3x3", &x, 64, 3, 3, 1, 1, 1);
    x = pool(&b, "maxpool1", &x, 2, 0);
    x = basic(&b, "Conv2d_3b_1x1", &x, 80, 1, 1, 1, 0, 0);
    x = basic(&b, "Conv2d_4a_3x3", &x, 192, 3, 3, 1, 0, 0);
    x = pool(&b, "maxpool2", &x, 2, 0);
    x = inception_a(&b, "Mixed_5b", &x, 32);
    x = inception_a(&b, "Mixed_5c", &x, 64);
    x = inception_a(&b, "Mixed_5d", &x, 64);
    x = inception_b(&b, "Mixed_6a", &x);
    x = inception_c(&b, "Mixed_6b", &x, 128);
    x = inception_c(&b, "Mixed_6c", &x, 160);
    x = inception_c(&b, "Mixed_6d", &x, 160);
    x = inception_c(&b, "Mixed_6e", &x, 192);
    x = inception_d(&b, "Mixed_7a", &x);
    x = inception_e(&b, "Mixed_7b", &x);
    x = inception_e(&b, "Mixed_7c", &x);
    pase_reduce_mean(b.g, "avgpool", &x, (1u << 2) | (1u << 3), 0, &y);
    pase_fc(b.g, "fc", &y, 1000, 0, &x);
    pase_sce(b.g, "loss", &x, &y);
    return b.g;
}

/* ---- RNNLM ----------------------------------------------------------------- */

static pase_graph *rnnlm(int64_t batch)
{
    pase_graph *g = pase_graph_new("pase-rnnlm", 1);
    if (g == NULL)
        return NULL;
    const int64_t ids_shape[2] = {batch, 256};
    pase_tensor ids = pase_input(2, ids_shape, "bs"), x, y;
    pase_embedding(g, "embedding", &ids, 100000, 2048, 'v', 'd', &x);
    pase_lstm(g, "lstm", &x, 2048, 2, &y);
    int fc = pase_fc(g, "fc", &y, 100000, 0, &x);
    if (fc >= 0) { /* name the projection's dims as the paper's Table II */
        snprintf(g->v[fc].dim[2], 4, "v");
        snprintf(g->v[fc].dim[3], 4, "d");
    }
    int loss = pase_sce(g, "loss", &x, &y);
    if (loss >= 0)
        snprintf(g->v[loss].dim[2], 4, "v");
    return g;
}

/* ---- Transformer ------------------------------------------------------------ */

enum { TF_SEQ = 256, TF_MODEL = 512, TF_HEADS = 8, TF_DK = 64, TF_FF = 2048, TF_VOCAB = 50000 };

/* Multi-head attention: QKV on a stacked weight, scores, softmax, values,
 * output projection.  Self attention uses 'ble,shek->sbhlk' on x; cross
 * attention stacks (query, key, value) and uses 'sble,shek->sbhlk'. */
static pase_tensor attention(mb *b, const char *p, const pase_tensor *x, int stacked)
{
    pase_graph *g = b->g;
    const int64_t wqkv_shape[4] = {3, TF_HEADS, TF_MODEL, TF_DK};
    const int64_t wo_shape[3] = {TF_HEADS, TF_MODEL, TF_DK};
    pase_tensor wqkv = pase_input(4, wqkv_shape, "shek"), wo = pase_input(3, wo_shape, "hek");
    pase_tensor qkv, parts[3], logits, weights, scores, out;
    memset(&out, 0, sizeof out);
    pase_einsum(g, nm(b, "%s.qkv", p), stacked ? "sble,shek->sbhlk" : "ble,shek->sbhlk", x, &wqkv,
                0, &qkv);
    int u = pase_unstack(g, nm(b, "%s.unstack", p), &qkv, 0, parts);
    if (u < 0)
        return out;
    g->v[u].model_dim = 2; /* h */
    pase_einsum(g, nm(b, "%s.logits", p), "bhlk,bhmk->bhlm", &parts[0], &parts[1], 0, &logits);
    int s = pase_softmax(g, nm(b, "%s.softmax", p), &logits, 3, &weights);
    if (s >= 0)
        g->v[s].model_dim = 1; /* h */
    pase_einsum(g, nm(b, "%s.scores", p), "bhlm,bhmk->bhlk", &weights, &parts[2], 0, &scores);
    pase_einsum(g, nm(b, "%s.out", p), "bhlk,hek->ble", &scores, &wo, 0, &out);
    return out;
}

static pase_tensor add(mb *b, const char *name, const pase_tensor *x, const pase_tensor *y)
{
    const pase_tensor *in[2] = {x, y};
    pase_tensor o;
    memset(&o, 0, sizeof o);
    pase_elementwise(b->g, name, 2, in, 0, &o);
    return o;
}

static pase_tensor layer_norm(mb *b, const char *name, const pase_tensor *x)
{
    pase_tensor o;
    memset(&o, 0, sizeof o);
    pase_norm(b->g, name, x, -1, &o);
    return o;
}

static pase_tensor feed_forward(mb *b, const char *p, const pase_tensor *x)
{
    const int64_t w1_shape[2] = {TF_MODEL, TF_FF}, w2_shape[2] = {TF_FF, TF_MODEL};
    pase_tensor w1 = pase_input(2, w1_shape, "ef"), w2 = pase_input(2, w2_shape, "fe"), h, o;
    memset(&o, 0, sizeof o);
    pase_einsum(b->g, nm(b, "%s.ff1", p), "ble,ef->blf", x, &w1, 2, &h);
    pase_einsum(b->g, nm(b, "%s.ff2", p), "blf,fe->ble", &h, &w2, 0, &o);
    return o;
}

/* Embedding of a (b, l) id tensor plus the positional encoding. */
static pase_tensor embed(mb *b, const char *p, int64_t batch)
{
    const int64_t ids_shape[2] = {batch, TF_SEQ}, pe_shape[3] = {batch, TF_SEQ, TF_MODEL};
    pase_tensor ids = pase_input(2, ids_shape, "bl"), pe = pase_input(3, pe_shape, "ble"), e;
    pase_embedding(b->g, nm(b, "%s.embedding", p), &ids, TF_VOCAB, TF_MODEL, 'v', 'e', &e);
    return add(b, nm(b, "%s.posenc", p), &e, &pe);
}

pase_graph *pase_build_transformer(int64_t batch, int layers)
{
    mb b = {pase_graph_new("pase-transformer", 1), ""};
    if (b.g == NULL)
        return NULL;
    char p[24];
    pase_tensor x = embed(&b, "enc", batch), t, y;
    for (int l = 0; l < layers; l++) { /* post-norm encoder layers */
        snprintf(p, sizeof p, "enc%d", l);
        t = attention(&b, p, &x, 0);
        x = add(&b, nm(&b, "%s.add1", p), &x, &t);
        x = layer_norm(&b, nm(&b, "%s.norm1", p), &x);
        t = feed_forward(&b, p, &x);
        x = add(&b, nm(&b, "%s.add2", p), &x, &t);
        x = layer_norm(&b, nm(&b, "%s.norm2", p), &x);
    }
    pase_tensor enc = x;
    x = embed(&b, "dec", batch);
    for (int l = 0; l < layers; l++) {
        snprintf(p, sizeof p, "dec%d", l);
        t = attention(&b, p, &x, 0);
        x = add(&b, nm(&b, "%s.add1", p), &x, &t);
        x = layer_norm(&b, nm(&b, "%s.norm1", p), &x);
        const pase_tensor *qkv[3] = {&x, &enc, &enc};
        char xp[32];
        snprintf(xp, sizeof xp, "%s.x", p);
        if (pase_stack(b.g, nm(&b, "%s.stack", xp), 3, qkv, 0, &y) < 0)
            break;
        t = attention(&b, xp, &y, 1);
        x = add(&b, nm(&b, "%s.add2", p), &x, &t);
        x = layer_norm(&b, nm(&b, "%s.norm2", p), &x);
        t = feed_forward(&b, p, &x);
        x = add(&b, nm(&b, "%s.add3", p), &x, &t);
        x = layer_norm(&b, nm(&b, "%s.norm3", p), &x);
    }
    const int64_t w_shape[2] = {TF_MODEL, TF_VOCAB};
    pase_tensor w = pase_input(2, w_shape, "ev");
    pase_einsum(b.g, "logits", "ble,ev->blv", &x, &w, 0, &y);
    pase_sce(b.g, "loss", &y, &x);
    return b.g;
}

static pase_graph *transformer(int64_t batch) { return pase_build_transformer(batch, 6); }

/* ---- ResNet-101 -------------------------------------------------------------- */

static pase_tensor conv_bn(mb *b, const char *p, const char *conv, const char *bn,
                           const pase_tensor *x, int64_t n, int k, int stride, int pad)
{
    pase_tensor c, o;
    memset(&o, 0, sizeof o);
    if (pase_conv(b->g, nm(b, "%s.%s", p, conv), x, n, k, k, stride, stride, pad, pad, 0, &c) >= 0)
        pase_norm(b->g, nm(b, "%s.%s", p, bn), &c, 0, &o);
    return o;
}

pase_graph *pase_build_resnet(int64_t batch, const int blocks[4])
{
    mb b = {pase_graph_new("pase-resnet", 4), ""};
    if (b.g == NULL)
        return NULL;
    const int64_t in[4] = {batch, 3, 227, 227};
    pase_tensor x = pase_input(4, in, "bchw"), y;
    x = conv_bn(&b, "stem", "conv1", "bn1", &x, 64, 7, 2, 3);
    pase_pool(b.g, "maxpool", &x, 3, 3, 2, 2, 1, 1, &y);
    x = y;
    int64_t inplanes = 64;
    for (int l = 0; l < 4; l++) {
        int64_t planes = (int64_t)64 << l;
        for (int k = 0; k < blocks[l]; k++) {
            char p[24];
            snprintf(p, sizeof p, "layer%d.%d", l + 1, k);
            int stride = (k == 0 && l > 0) ? 2 : 1;
            pase_tensor t = conv_bn(&b, p, "conv1", "bn1", &x, planes, 1, 1, 0);
            t = conv_bn(&b, p, "conv2", "bn2", &t, planes, 3, stride, 1);
            t = conv_bn(&b, p, "conv3", "bn3", &t, planes * 4, 1, 1, 0);
            pase_tensor id = x;
            if (k == 0 && (stride != 1 || inplanes != planes * 4))
                id = conv_bn(&b, p, "downsample.0", "downsample.1", &x, planes * 4, 1, stride, 0);
            const pase_tensor *in2[2] = {&t, &id};
            pase_elementwise(b.g, nm(&b, "%s.add", p), 2, in2, 1, &x);
            inplanes = planes * 4;
        }
    }
    pase_reduce_mean(b.g, "avgpool", &x, (1u << 2) | (1u << 3), 0, &y);
    pase_fc(b.g, "fc", &y, 1000, 0, &x);
    pase_sce(b.g, "loss", &x, &y);
    return b.g;
}

static pase_graph *resnet101(int64_t batch)
{
    static const int blocks[4] = {3, 4, 23, 3};
    pase_graph *g = pase_build_resnet(batch, blocks);
    if (g != NULL)
        snprintf(g->name, sizeof g->name, "pase-resnet101");
    return g;
}

/* ---- the table ---------------------------------------------------------------- */

typedef struct {
    const char *name;
    const char *description;
    int64_t batch;
    pase_graph *(*build)(int64_t batch);
} pase_model;

static const pase_model models[] = {
    {"pase-alexnet", "AlexNet of the PaSE prototype: 227x227, fc 4096-4096-1024, 14 ops", 128,
     alexnet},
    {"pase-inception3", "Inception-v3 of the PaSE prototype (torchvision, no aux logits), 219 ops",
     128, inception3},
    {"pase-rnnlm", "RNNLM of the PaSE prototype: embedding 100000x2048, 2-layer LSTM, 4 ops", 64,
     rnnlm},
    {"pase-transformer",
     "Transformer of the PaSE prototype: 6+6 layers, d_model 512, 8 heads, 204 ops", 64,
     transformer},
    {"pase-resnet101", "ResNet-101 of the PaSE prototype: 227x227, bottleneck v1.5, 245 ops", 128,
     resnet101},
};

int pase_model_count(void) { return (int)(sizeof models / sizeof models[0]); }

const char *pase_model_name(int i)
{
    return i >= 0 && i < pase_model_count() ? models[i].name : NULL;
}

const char *pase_model_description(int i)
{
    return i >= 0 && i < pase_model_count() ? models[i].description : NULL;
}

int64_t pase_model_default_batch(int i)
{
    return i >= 0 && i < pase_model_count() ? models[i].batch : 0;
}

int pase_model_find(const char *name)
{
    for (int i = 0; name && i < pase_model_count(); i++)
        if (strcasecmp(name, models[i].name) == 0)
            return i;
    return -1;
}

dnp_status pase_model_build(const char *name, int64_t batch, pase_graph **out, dnp_error *err)
{
    int i = pase_model_find(name);
    if (i < 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "unknown PaSE model '%s'", name ? name : "");
        return DNP_ERR_INPUT;
    }
    if (batch < 1) {
        dnp_error_set(err, DNP_ERR_INPUT, "batch must be positive, got %lld", (long long)batch);
        return DNP_ERR_INPUT;
    }
    unsigned long fails0 = dnp_alloc_failures();
    pase_graph *g = models[i].build(batch);
    if (g != NULL && g->err[0] != '\0' && dnp_alloc_failures() != fails0) {
        /* the builders record a failed allocation as text: report it as such */
        pase_graph_free(g);
        g = NULL;
    }
    if (g == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building '%s'", name);
        return DNP_ERR_NOMEM;
    }
    if (g->err[0] != '\0') {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: %s", models[i].name, g->err);
        pase_graph_free(g);
        return DNP_ERR_INPUT;
    }
    *out = g;
    return DNP_OK;
}
