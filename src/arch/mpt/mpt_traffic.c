/*
 * mpt_traffic.c - per-worker communication per iteration against the
 * number of workers (the paper's Figs. 6 and 7, Sec. III-C formulas):
 * data parallelism versus MPT on Ng = Nc = sqrt(p) grids with F(2x2,3x3).
 */
#include "arch/mpt/mpt_model.h"

#include <math.h>
#include <string.h>

static const int fig_p[MPT_FIG6_POINTS] = {4, 16, 64, 256};

static int isqrt(int p) { return (int)lround(sqrt((double)p)); }

void mpt_fig6(const mpt_layer *l, double batch, int elem_bytes, mpt_traffic_curve *out)
{
    memset(out, 0, sizeof *out);
    mpt_sizes sz;
    mpt_layer_sizes(l, 4, 4, batch, elem_bytes, &sz);
    for (int k = 0; k < MPT_FIG6_POINTS; k++) {
        int p = fig_p[k], g = isqrt(p);
        out->p[k] = p;
        out->dp[k] = mpt_traffic_dp(sz.w_bytes, p);
        out->mpt_weights[k] = mpt_traffic_mpt_weights(sz.W_bytes, g, g);
        out->mpt_tiles[k] = mpt_traffic_mpt_tiles(sz.tiles_bytes, g, g);
    }
}

/* MPT traffic of layer l on ng x nc: weights plus tiles, where a joined
 * conv shares the output-side half of its tiles (gather of y, scatter of
 * dy) with the other convs of its join.  ng = 1 is data parallelism. */
static double mpt_layer_traffic(const mpt_layer *l, double batch, int eb, int ng, int nc)
{
    mpt_sizes sz;
    mpt_layer_sizes(l, 4, 4, batch, eb, &sz);
    if (ng == 1)
        return mpt_traffic_dp(sz.w_bytes, nc);
    double out_side = sz.tiles_bytes * l->out_c / (l->in_c + l->out_c);
    double tiles = sz.tiles_bytes - out_side + out_side / l->join_size;
    return mpt_traffic_mpt_weights(sz.W_bytes, ng, nc) + mpt_traffic_mpt_tiles(tiles, ng, nc);
}

/* 3x3 stride-1 dense convs: the layers F(2x2,3x3) serves. */
static int f23_layer(const mpt_layer *l)
{
    return l->wino && !l->fc && l->k_h == 3 && l->k_w == 3;
}

void mpt_fig7(const mpt_net *net, double batch, int elem_bytes, mpt_traffic_curve *out)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; k < MPT_FIG6_POINTS; k++) {
        int p = fig_p[k], g = isqrt(p);
        out->p[k] = p;
        for (int i = 0; i < net->n; i++) {
            const mpt_layer *l = &net->layers[i];
            mpt_sizes sz;
            mpt_layer_sizes(l, 4, 4, batch, elem_bytes, &sz);
            double dp = mpt_traffic_dp(sz.w_bytes, p);
            out->dp[k] += dp;
            if (!f23_layer(l)) { /* runs data parallel under every strategy */
                out->mpt_weights[k] += dp;
                out->mpt_dynamic[k] += dp;
                continue;
            }
            out->mpt_weights[k] += mpt_traffic_mpt_weights(sz.W_bytes, g, g);
            double tiles_out = sz.tiles_bytes * l->out_c / (l->in_c + l->out_c);
            out->mpt_tiles[k] += mpt_traffic_mpt_tiles(
                sz.tiles_bytes - tiles_out + tiles_out / l->join_size, g, g);
            /* footnote 9: the best power-of-two grid per layer (<= 16 groups) */
            double best = -1;
            for (int ng = 1; ng <= 16 && ng <= p; ng *= 2) {
                double t = mpt_layer_traffic(l, batch, elem_bytes, ng, p / ng);
                if (best < 0 || t < best)
                    best = t;
            }
            out->mpt_dynamic[k] += best;
        }
    }
}
