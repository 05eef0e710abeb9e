/* test_onnx_axes.c - named axes in the ONNX importer (issue 10;
 * docs/onnx.md, "Axes"): channel-last and sequence-first models give exact
 * per-sample MACs and shapes.  The files are written by
 * tests/data/make_axes_onnx.py (PyTorch 1.13), which prints the parameter
 * counts PyTorch gives. */
#include "test.h"

#include "dnnpar.h"

#include <string.h>

static dnp_graph *load(const char *file)
{
    char path[256];
    snprintf(path, sizeof path, "tests/data/%s", file);
    dnp_graph *g = NULL;
    dnp_error err = {0};
    if (dnp_load_onnx(path, NULL, &g, &err) != DNP_OK)
        printf("  %s: %s\n", file, err.msg);
    return g;
}

/* Sum of the per-sample MACs of the ops of one kind. */
static long long macs_of(const dnp_graph *g, dnp_op_kind kind)
{
    long long s = 0;
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind != kind)
            continue;
        dnp_op_cost c;
        dnp_op_cost_get(g, i, 1, &c);
        s += c.macs_per_sample;
    }
    return s;
}

/* convnext_mini: input 3 x H0 x W0 = 3 x 64 x 96, C = 32, stem 4x4 stride
 * 4 -> H x W = 16 x 24, two blocks, head to 10 classes.  Conv + matmul
 * multiply-accumulates per sample (output elements x inner dimension):
 *   stem      H W C (4 4 3)          = 16*24*32*48      =   589,824
 *   dwconv    H W C (7 7) per block  = 16*24*32*49      =   602,112
 *   pwconv1   H W (4C) C per block   = 16*24*128*32     = 1,572,864
 *   pwconv2   H W C (4C) per block   = 16*24*32*128     = 1,572,864
 *   head      10 C                   = 320
 *   total = 589,824 + 2 (602,112 + 2 x 1,572,864) + 320 = 8,085,824.
 * The NCHW reading counted the Linear layers as contracting over H:
 * 3,760,448 in all.  Parameters as PyTorch counts them: 22,058 (stem
 * 1,568; per block dwconv 1,600, norm 64, pwconv1 4,224, pwconv2 4,128,
 * layer scale 32; final norm 64; head 330). */
TEST(onnx_axes_convnext_channel_last_exact)
{
    static const char *const files[] = {"convnext_mini.onnx", "convnext_mini_b1.onnx"};
    for (size_t f = 0; f < 2; f++) {
        dnp_graph *g = load(files[f]);
        CHECK(g != NULL);
        if (g == NULL)
            continue;
        dnp_graph_totals t;
        dnp_graph_totals_get(g, 1, &t);
        CHECK_EQ_INT(t.macs_per_sample, 8085824LL);
        CHECK_EQ_INT(t.params, 22058LL);
        CHECK_EQ_INT(macs_of(g, DNP_OP_CONV), 589824LL + 2 * 602112LL);
        CHECK_EQ_INT(macs_of(g, DNP_OP_FC), 4 * 1572864LL + 320);
        /* the Linear layers: c = the contracted / produced channels, the
         * 16 x 24 positions, per-sample axes H, W, C without the batch */
        int n_fc = 0;
        for (int i = 0; i < dnp_graph_n_ops(g); i++) {
            const dnp_op *op = dnp_graph_op(g, i);
            if (op->kind != DNP_OP_FC || dnp_op_out_view(op).h == 1)
                continue;
            CHECK(op->keep_positions);
            CHECK_EQ_INT(dnp_op_in_view(g, i).c * dnp_op_out_view(op).c, 32 * 128);
            CHECK_EQ_INT(dnp_op_out_view(op).h * dnp_op_out_view(op).w, 16 * 24);
            CHECK_EQ_INT(op->out_rank, 3);
            CHECK_EQ_INT(op->out_dims[0], 16);
            CHECK_EQ_INT(op->out_dims[1], 24);
            n_fc++;
        }
        CHECK_EQ_INT(n_fc, 4);
        /* the depthwise convs read C x H x W = 32 x 16 x 24 */
        for (int i = 0; i < dnp_graph_n_ops(g); i++) {
            const dnp_op *op = dnp_graph_op(g, i);
            if (op->kind == DNP_OP_CONV && op->groups > 1) {
                const dnp_shape in = dnp_op_in_view(g, i);
                CHECK_EQ_INT(in.c, 32);
                CHECK_EQ_INT(in.h, 16);
                CHECK_EQ_INT(in.w, 24);
            }
        }
        dnp_graph_free(g);
    }
}

/* seqfirst_encoder: two TransformerEncoderLayers (batch_first=False),
 * sequence S = 12, width E = 64, 4 heads, feed-forward F = 256; the input
 * is (S, batch, E) with the batch on axis 1.  Per layer and sample:
 *   in_proj S E 3E, out_proj S E E, feed-forward 2 S E F (fc)
 *     = 12*64*(192 + 64 + 512) = 589,824
 *   scores + weighted sum 2 S S E (matmul)  = 2*12*12*64 = 18,432
 *   total 2 x 608,256 = 1,216,512.
 * Parameters (PyTorch): per layer in_proj 3E(E+1) = 12,480, out_proj
 * E(E+1) = 4,160, linear1 F(E+1) = 16,640, linear2 E(F+1) = 16,448, two
 * norms 256: 49,984; two layers 99,968. */
TEST(onnx_axes_sequence_first_transformer_exact)
{
    dnp_graph *g = load("seqfirst_encoder.onnx");
    CHECK(g != NULL);
    if (g == NULL)
        return;
    dnp_graph_totals t;
    dnp_graph_totals_get(g, 1, &t);
    CHECK_EQ_INT(t.macs_per_sample, 1216512LL);
    CHECK_EQ_INT(t.params, 99968LL);
    CHECK_EQ_INT(macs_of(g, DNP_OP_FC), 2 * 589824LL);
    CHECK_EQ_INT(macs_of(g, DNP_OP_MATMUL), 2 * 18432LL);
    /* per-sample shapes never hold the batch: (S, features) and
     * (heads, S, S) / (heads, S, E / heads) */
    int n_mm = 0;
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (op->kind == DNP_OP_FC || op->kind == DNP_OP_LAYERNORM) {
            CHECK_EQ_INT(op->out_rank, 2);
            CHECK_EQ_INT(op->out_dims[0], 12);
        }
        if (op->kind == DNP_OP_MATMUL) {
            CHECK_EQ_INT(op->out_rank, 3);
            CHECK_EQ_INT(op->out_dims[0], 4);
            CHECK_EQ_INT(op->out_dims[1], 12);
            CHECK_EQ_INT(op->out_dims[2], n_mm % 2 ? 16 : 12);
            CHECK_EQ_INT(op->contract, n_mm % 2 ? 12 : 16);
            n_mm++;
        }
    }
    CHECK_EQ_INT(n_mm, 4);
    /* the same totals at any batch: the batch is a query parameter */
    dnp_graph_totals_get(g, 8, &t);
    CHECK_EQ_INT(t.macs_per_sample, 1216512LL);
    dnp_graph_free(g);
}

/* A reshape that splits the batch over two axes is refused with the node
 * named, never counted. */
TEST(onnx_axes_batch_split_is_an_error)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_load_onnx("tests/data/reshape_splits_batch.onnx", NULL, &g, &err),
                 DNP_ERR_INPUT);
    CHECK(g == NULL);
    CHECK(strstr(err.msg, "'/Reshape'") != NULL && strstr(err.msg, "splits it") != NULL);
}

/* fc_on_heads: (batch, 12, 64) reshaped to (batch, 12, 4, 16), then
 * Linear(16, 8): MACs per sample = 12 x 4 positions x 16 x 8 = 6,144
 * (the C x H x W reading of the 4-D tensor gave 12 x 12 x 4 x 8 = 4,608);
 * parameters 16 x 8 + 8 = 136.  The reshape's output is viewed C x H x W,
 * so a free reshape op re-views it as c = 16 for the Linear. */
TEST(onnx_axes_fc_on_a_4d_tensor_is_reviewed)
{
    dnp_graph *g = load("fc_on_heads.onnx");
    CHECK(g != NULL);
    if (g == NULL)
        return;
    dnp_graph_totals t;
    dnp_graph_totals_get(g, 1, &t);
    CHECK_EQ_INT(t.macs_per_sample, 6144LL);
    CHECK_EQ_INT(t.params, 136LL);
    CHECK_EQ_INT(dnp_graph_n_ops(g), 5);
    const dnp_op *view = dnp_graph_op(g, 2), *fc = dnp_graph_op(g, 3);
    CHECK(view->kind == DNP_OP_RESHAPE && fc->kind == DNP_OP_FC);
    CHECK_EQ_INT(dnp_op_out_view(view).c, 16);
    CHECK_EQ_INT(dnp_op_out_view(view).h, 48);
    CHECK_EQ_INT(dnp_op_in_view(g, 3).c, 16);
    CHECK_EQ_INT(dnp_op_out_view(fc).c, 8);
    dnp_graph_free(g);
}
