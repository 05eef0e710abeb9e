/*
 * mpt_layers.c - the five convolution layers of the paper's Table II, and a
 * single layer as a one-layer network.
 */
#include "arch/mpt/mpt_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Table II: abbreviation, source, I = J, map size.  Note: Table II gives
 * 128 channels at 56x56 for "ResNet-34 conv2_x", whose torchvision shape is
 * 64 channels; we follow the table. */
static const struct {
    const char *name, *what;
    int channels, size;
} table2[] = {
    {"early", "ResNet-34 conv2_x", 128, 56}, {"mid-1", "ResNet-34 conv4_x", 256, 14},
    {"late-1", "ResNet-34 conv5_x", 512, 7}, {"mid-2", "WRN-40-10 conv3", 320, 16},
    {"late-2", "WRN-40-10 conv4", 640, 8},
};

int mpt_table2_count(void) { return (int)(sizeof table2 / sizeof table2[0]); }

int mpt_table2_find(const char *name)
{
    for (int i = 0; name != NULL && i < mpt_table2_count(); i++)
        if (strcasecmp(name, table2[i].name) == 0)
            return i;
    return -1;
}

int mpt_table2_layer(int i, int kernel, mpt_layer *out, const char **what)
{
    if (i < 0 || i >= mpt_table2_count())
        return 0;
    mpt_layer l;
    memset(&l, 0, sizeof l);
    snprintf(l.name, sizeof l.name, "%s", table2[i].name);
    l.in_c = l.out_c = table2[i].channels;
    l.in_h = l.in_w = l.out_h = l.out_w = table2[i].size;
    l.k_h = l.k_w = kernel;
    l.stride = 1;
    l.pad_h = l.pad_w = kernel / 2;
    l.groups = 1;
    l.wino = kernel == 3 || kernel == 5;
    l.relu_after = 1;
    l.join_id = -1;
    l.join_size = 1;
    *out = l;
    if (what != NULL)
        *what = table2[i].what;
    return 1;
}

dnp_status mpt_net_single(const mpt_layer *l, mpt_net *out, dnp_error *err)
{
    mpt_net n;
    memset(&n, 0, sizeof n);
    snprintf(n.name, sizeof n.name, "%s", l->name);
    n.layers = dnp_malloc(sizeof *n.layers);
    if (n.layers == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory for layer '%s'", l->name);
        return DNP_ERR_NOMEM;
    }
    n.layers[0] = *l;
    n.n = 1;
    *out = n;
    return DNP_OK;
}

void mpt_net_free(mpt_net *n)
{
    if (n == NULL)
        return;
    dnp_free(n->layers);
    n->layers = NULL;
    n->n = 0;
}
