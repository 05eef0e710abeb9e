/*
 * sf_zoo.c - the SynergyFlow paper's models that the core zoo lacks
 * (Table 6): its AlexNet, counted as the paper counts it, and DBN-M.  Its
 * VGG11 is the core zoo's torchvision "vgg11" (R_ctf 60.55 against the
 * paper's 60.08, docs/synergyflow.md).
 */
#include "model/zoo.h"

#include <stddef.h>

/*
 * AlexNet as Table 6 counts it.  Krizhevsky et al. (2012) split the net
 * over two GPUs ("towers"): conv1 3->48 11x11/4, conv2 48->128 5x5,
 * conv3 256->192 3x3 (reads both towers), conv4 192->192, conv5 192->128
 * per tower, then fc6 9216->4096 (reads both towers), fc7 4096->4096,
 * fc8 4096->1000.  Table 6's R_ctf = 5.68 is the CONV work of one tower
 * over the FC work of the whole net:  332,892,432 / 58,621,952 MACs =
 * 5.679 (the whole two-tower net gives 11.36; torchvision's single-tower
 * "alexnet" 11.18).  Table 7 agrees: 0.39 s x 188.52 GOPS over 100
 * instances matches 2 x 391.5 M MACs per instance within the same 0.93
 * factor the other rows show.  So the model is one tower followed by the
 * complete FC stack; where a layer reads both towers, the twin tower's
 * maps (same shape, no work of ours) appear as a concat of this tower's
 * maps with themselves.
 */
static int build_alexnet_2012(dnp_graph *g)
{
    int x = dnp_graph_input(g, "data", 3, 227, 227);
    x = dnp_graph_conv(g, "conv1", x, 48, 11, 4, 0, 1, 1);
    x = dnp_graph_unary(g, "relu1", DNP_OP_RELU, x);
    x = dnp_graph_unary(g, "norm1", DNP_OP_LRN, x);
    x = dnp_graph_pool(g, "pool1", DNP_OP_MAXPOOL, x, 3, 2, 0);
    x = dnp_graph_conv(g, "conv2", x, 128, 5, 1, 2, 1, 1);
    x = dnp_graph_unary(g, "relu2", DNP_OP_RELU, x);
    x = dnp_graph_unary(g, "norm2", DNP_OP_LRN, x);
    x = dnp_graph_pool(g, "pool2", DNP_OP_MAXPOOL, x, 3, 2, 0);
    const int both2[2] = {x, x};
    x = dnp_graph_concat(g, "pool2_towers", 2, both2);
    x = dnp_graph_conv(g, "conv3", x, 192, 3, 1, 1, 1, 1);
    x = dnp_graph_unary(g, "relu3", DNP_OP_RELU, x);
    x = dnp_graph_conv(g, "conv4", x, 192, 3, 1, 1, 1, 1);
    x = dnp_graph_unary(g, "relu4", DNP_OP_RELU, x);
    x = dnp_graph_conv(g, "conv5", x, 128, 3, 1, 1, 1, 1);
    x = dnp_graph_unary(g, "relu5", DNP_OP_RELU, x);
    x = dnp_graph_pool(g, "pool5", DNP_OP_MAXPOOL, x, 3, 2, 0);
    const int both5[2] = {x, x};
    x = dnp_graph_concat(g, "pool5_towers", 2, both5);
    x = dnp_graph_flatten(g, "flatten", x);
    x = dnp_graph_fc(g, "fc6", x, 4096, 1);
    x = dnp_graph_unary(g, "relu6", DNP_OP_RELU, x);
    x = dnp_graph_unary(g, "drop6", DNP_OP_DROPOUT, x);
    x = dnp_graph_fc(g, "fc7", x, 4096, 1);
    x = dnp_graph_unary(g, "relu7", DNP_OP_RELU, x);
    x = dnp_graph_unary(g, "drop7", DNP_OP_DROPOUT, x);
    return dnp_graph_fc(g, "fc8", x, 1000, 1);
}

/*
 * DBN-M: the deep belief net of Hinton et al. (2006) for MNIST, stacked
 * RBMs 784-500-500-2000 and a 10-way output (Table 6, 1.662 M MACs per
 * image).  Inference is a chain of FC layers; the sigmoid units carry no
 * CONV/FC work and are left out.
 */
static int build_dbn_m(dnp_graph *g)
{
    int x = dnp_graph_input(g, "data", 1, 28, 28);
    x = dnp_graph_flatten(g, "flatten", x);
    x = dnp_graph_fc(g, "rbm1", x, 500, 1);
    x = dnp_graph_fc(g, "rbm2", x, 500, 1);
    x = dnp_graph_fc(g, "rbm3", x, 2000, 1);
    x = dnp_graph_fc(g, "out", x, 10, 1);
    return dnp_graph_unary(g, "softmax", DNP_OP_SOFTMAX, x);
}

static const zoo_model sf_models[] = {
    {"alexnet-2012",
     "SynergyFlow Table 6 AlexNet: one tower of Krizhevsky 2012's two-GPU net (conv 48-128-192-"
     "192-128, conv3/fc6 read both towers) + whole FC 9216-4096-4096-1000, 3x227x227",
     build_alexnet_2012},
    {"dbn-m", "DBN-M (Hinton 2006) for MNIST: FC 784-500-500-2000-10, 1x28x28", build_dbn_m},
};

/* The module's zoo table (model/zoo.h): its first model, *count set.  O(1). */
const zoo_model *zoo_models_synergyflow(int *count)
{
    *count = (int)(sizeof sf_models / sizeof sf_models[0]);
    return sf_models;
}
