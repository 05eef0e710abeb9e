/* test_onnx_densenet.c - torchvision's DenseNet-121 (tests/data/
 * densenet121_train.onnx, made by tests/data/make_densenet121.py) loads
 * with its exact multiply-accumulates and trainable parameters. */
#include "test.h"

#include "dnnpar.h"

/* DenseNet-121 (Huang et al., CVPR 2017, Table 1; torchvision's
 * densenet121: growth k = 32, bottleneck 4k = 128, blocks of 6, 12, 24, 16
 * layers, 64 initial features), at 224 x 224, by hand:
 *   conv0 7x7/2, 3 -> 64 at 112x112:            112^2 x 64 x 3 x 49
 *   dense layer j of a block entered with c0 channels at H x H:
 *     1x1 conv (c0 + 32 j) -> 128:              H^2 x 128 x (c0 + 32 j)
 *     3x3 conv 128 -> 32:                       H^2 x 32 x 128 x 9
 *   transition after blocks 1-3 (c -> c / 2, 1x1, then 2x2 average pool):
 *                                                H^2 x (c / 2) x c
 *   blocks at H = 56, 28, 14, 7 entered with 64, 128, 256, 512 channels
 *   (each block adds 32 L: 256, 512, 1024, 1024); classifier 1024 -> 1000.
 * Sum: 2,834,161,664 MACs per sample.  Parameters: convolutions 6,870,208
 * (no biases), batch norms 2 per channel of each of the 121 norms' inputs
 * = 83,648, classifier 1,025,000: 7,978,856, which is also what
 * sum(p.numel() for p in model.parameters()) prints for torchvision 0.14. */
static long long densenet121_macs(void)
{
    long long macs = 112LL * 112 * 64 * 3 * 49;
    static const int layers[4] = {6, 12, 24, 16};
    long long c = 64, h = 56;
    for (int b = 0; b < 4; b++) {
        for (int j = 0; j < layers[b]; j++)
            macs += h * h * 128 * (c + 32LL * j) + h * h * 32 * 128 * 9;
        c += 32LL * layers[b];
        if (b < 3) {
            macs += h * h * (c / 2) * c;
            c /= 2;
            h /= 2;
        }
    }
    return macs + 1000 * c;
}

TEST(onnx_densenet121_exact)
{
    CHECK_EQ_INT(densenet121_macs(), 2834161664LL);
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_load_onnx("tests/data/densenet121_train.onnx", NULL, &g, &err), DNP_OK);
    if (g == NULL) {
        printf("  %s\n", err.msg);
        return;
    }
    dnp_graph_totals t;
    dnp_graph_totals_get(g, 1, &t);
    CHECK_EQ_INT(t.macs_per_sample, densenet121_macs());
    CHECK_EQ_INT(t.params, 7978856LL);
    int bn = 0, conv = 0, concat = 0;
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        dnp_op_kind k = dnp_graph_op(g, i)->kind;
        bn += k == DNP_OP_BATCHNORM;
        conv += k == DNP_OP_CONV;
        concat += k == DNP_OP_CONCAT;
    }
    CHECK_EQ_INT(conv, 120);   /* 1 + 2 x 58 dense layers + 3 transitions */
    CHECK_EQ_INT(bn, 121);     /* one before every conv but the first, and norm0, norm5 */
    /* torchvision concatenates the features before each of the 58 dense
     * layers (the first of a block: a concat of one tensor) and at each of
     * the 4 blocks' ends */
    CHECK_EQ_INT(concat, 62);
    dnp_graph_free(g);
}
