/*
 * mpt_comm.c - the communication model of Sec. III-C (bytes per worker and
 * iteration) and the time of the two collective patterns on the
 * memory-centric network (Sec. IV, VII-A): ring all-reduce of weight
 * gradients on full links, all-to-all tile transfer on the flattened
 * butterfly of narrow links.
 */
#include "arch/mpt/mpt_model.h"

#include <math.h>

void mpt_layer_sizes(const mpt_layer *l, int th, int tw, double batch, int elem_bytes,
                     mpt_sizes *out)
{
    double IJ = (double)l->in_c * (double)l->out_c, eb = elem_bytes;
    out->w_bytes = IJ * l->k_h * l->k_w * eb;
    out->W_bytes = IJ * th * tw * eb;
    int mh = th - l->k_h + 1, mw = tw - l->k_w + 1;
    double tiles = 0;
    if (mh > 0 && mw > 0)
        tiles = ceil((double)l->out_h / mh) * ceil((double)l->out_w / mw);
    /* fprop scatters input tiles and gathers output tiles; bprop scatters
     * output-gradient tiles and gathers input-gradient tiles (Sec. III-C,
     * "bprop has similar computation and data sets", Sec. II-B). */
    out->tiles_bytes = 2.0 * batch * tiles * (l->in_c + l->out_c) * th * tw * eb;
}

/* Sec. III-C: "the communication amount per worker is |W|(p-1)/p". */
double mpt_traffic_dp(double w_bytes, int p) { return w_bytes * (p - 1) / p; }

/* Sec. III-C: "|W|/Ng (Nc-1)/Nc". */
double mpt_traffic_mpt_weights(double W_bytes, int ng, int nc)
{
    return W_bytes / ng * (nc - 1) / nc;
}

/* Sec. III-C: "|Tiles|/(Ng Nc) (Ng-1)/Ng" (the equation is garbled in the
 * text; derived from "each worker holds |Tiles|/(Ng Nc) tile data, and
 * transfers (Ng-1)/Ng portion of the tile data"). */
double mpt_traffic_mpt_tiles(double tiles_bytes, int ng, int nc)
{
    return tiles_bytes / ((double)ng * nc) * (ng - 1) / ng;
}

double mpt_ring_time_s(const mpt_hw *hw, double bytes, int len, int rings)
{
    if (len <= 1 || bytes <= 0)
        return 0.0;
    /* 2 (len-1) steps, each moving bytes / (len rings) per link, chunks
     * pipelined [9]; each step also pays one hop and one chunk's
     * serialisation. */
    double per_link = bytes / rings;
    double steps = 2.0 * (len - 1);
    return steps / len * per_link / hw->full_link_bps +
           steps * (hw->hop_s + hw->chunk_bytes / hw->full_link_bps);
}

/* The cluster's ng workers as an a x b flattened butterfly: one row of up
 * to fbfly_row fully connected workers (Fig. 9: Ng = 4 is "four fully
 * connected workers"), else rows of fbfly_row (Ng = 16 is 4 x 4), else the
 * squarest factorisation. */
static void fbfly_shape(const mpt_hw *hw, int ng, int *a, int *b)
{
    int row = hw->fbfly_row > 0 ? hw->fbfly_row : 4;
    *a = 1;
    *b = ng;
    if (ng <= row)
        return;
    if (ng % row == 0) {
        *a = ng / row;
        *b = row;
        return;
    }
    for (int d = (int)sqrt((double)ng); d >= 2; d--)
        if (ng % d == 0) {
            *a = d;
            *b = ng / d;
            return;
        }
}

double mpt_fbfly_time_s(const mpt_hw *hw, double bytes, int ng)
{
    if (ng <= 1 || bytes <= 0)
        return 0.0;
    int a, b;
    fbfly_shape(hw, ng, &a, &b);
    int links = (a - 1) + (b - 1), max_hops = (a > 1 && b > 1) ? 2 : 1;
    /* destinations in the worker's row or column take one hop, the rest two */
    double hops = ((double)(a - 1) + (b - 1) + 2.0 * (a - 1) * (b - 1)) / (ng - 1);
    double bw = links * hw->narrow_link_bps;
    double half_io = hw->full_links * hw->full_link_bps / 2; /* Sec. VII-B: half the I/O */
    if (bw > half_io)
        bw = half_io;
    return bytes * hops / bw +
           max_hops * (hw->hop_s + hw->packet_bytes / hw->narrow_link_bps);
}
