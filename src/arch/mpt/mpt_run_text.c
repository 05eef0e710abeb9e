/*
 * mpt_run_text.c - the text report of one MPT evaluation (`dnnpar mpt`):
 * for a Table II layer the six configurations of Table IV with grid,
 * transform, times and traffic, where the time goes and the Sec. III-C
 * traffic formulas; for a model the totals, grids and every layer under
 * w_mp+*.  The model: docs/mpt.md.
 */
#include "arch/mpt/mpt_api.h"

/* One line naming the hardware when it is not the paper's. */
static void hw_text(const mpt_hw *h, rbuf *tb)
{
    if (mpt_hw_is_paper(h))
        return;
    rbuf_printf(tb, "hardware (user-set, not the paper's): %dx%d array split up to %dx%d, %g GHz, DRAM "
           "%g GB/s,\n  %d full links of %g GB/s, narrow links %g GB/s, buffers %g / %g KiB, hop "
           "%g ns\n",
           h->array_dim, h->array_dim, h->array_split, h->array_split, h->clock_hz / 1e9,
           h->dram_bps / 1e9, h->full_links, h->full_link_bps / 1e9, h->narrow_link_bps / 1e9,
           h->input_buffer_bytes / 1024, h->output_buffer_bytes / 1024, h->hop_s * 1e9);
}

static void config_table(const dnp_mpt_run *r, rbuf *tb)
{
    double base = r->t[MPT_W_DP].total_s;
    if (r->is_layer)
        rbuf_printf(tb, "%-7s %-8s %-11s %11s %11s %11s %8s %13s %13s\n", "config", "grid", "transform",
               "forward", "backward", "total", "vs w_dp", "weights/wkr", "tiles/wkr");
    else
        rbuf_printf(tb, "%-7s %11s %11s %11s %8s %9s %13s %13s\n", "config", "forward", "backward",
               "total", "vs w_dp", "vs 1 wkr", "weights/wkr", "tiles/wkr");
    for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
        const mpt_layer_time *t = &r->per[c][0];
        char grid[16], tf[32], f[24], b[24], tot[24], wb[24], tile_b[24];
        mpt_fmt_us(r->t[c].fwd_s, f, sizeof f);
        mpt_fmt_us(r->t[c].bwd_s, b, sizeof b);
        mpt_fmt_us(r->t[c].total_s, tot, sizeof tot);
        mpt_fmt_bytes(r->t[c].weight_bytes, wb, sizeof wb);
        mpt_fmt_bytes(r->t[c].tile_bytes, tile_b, sizeof tile_b);
        if (r->is_layer) {
            mpt_grid_text(t->ng, t->nc, grid, sizeof grid);
            mpt_tf_text(t, &r->net.layers[0], tf, sizeof tf);
            rbuf_printf(tb, "%-7s %-8s %-11s %11s %11s %11s %7.2fx %13s %13s\n",
                   mpt_config_name((mpt_config)c), grid, tf, f, b, tot,
                   base / r->t[c].total_s, wb, tile_b);
        } else {
            rbuf_printf(tb, "%-7s %11s %11s %11s %7.2fx %8.1fx %13s %13s\n",
                   mpt_config_name((mpt_config)c), f, b, tot, base / r->t[c].total_s,
                   r->single.total_s / r->t[c].total_s, wb, tile_b);
        }
    }
}

static void layer_text(const dnp_mpt_run *r, rbuf *tb)
{
    const dnp_mpt_run *o = r; /* the system the run was evaluated on */
    const mpt_layer *l = &r->net.layers[0];
    rbuf_printf(tb, "mpt %s (%s): %d -> %d channels, %dx%d, %dx%d kernel, batch %.0f, %d workers, "
           "%s %dx%d array\n\n",
           l->name, r->what, l->in_c, l->out_c, l->out_h, l->out_w, l->k_h, l->k_w,
           o->sys.batch, o->sys.workers, o->sys.hw.elem_bytes == 2 ? "FP16" : "FP32",
           o->sys.hw.array_dim, o->sys.hw.array_dim);
    hw_text(&o->sys.hw, tb);
    mpt_shares_text(&o->sys.cuts, tb);
    config_table(r, tb);
    rbuf_printf(tb, "\nwhere the time goes (per worker, us):\n");
    rbuf_printf(tb, "%-7s %10s %10s %10s %10s %10s\n", "config", "compute", "DRAM", "tiles",
           "all-reduce", "array use");
    for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
        const mpt_layer_time *t = &r->per[c][0];
        rbuf_printf(tb, "%-7s %10.1f %10.1f %10.1f %10.1f %9.0f%%\n", mpt_config_name((mpt_config)c),
               t->compute_s * 1e6, t->dram_s * 1e6, t->tile_s * 1e6, t->ring_s * 1e6,
               100 * t->array_use);
    }
    /* Sec. III-C on the fixed grid with F(2x2,3x3) (or the 5x5 transform) */
    mpt_sizes sz;
    int ng = o->sys.fixed_ng, nc = o->sys.workers / ng, t = l->k_h == 5 ? 6 : 4;
    if (o->sys.tile)
        t = o->sys.tile;
    mpt_layer_sizes(l, t, t, o->sys.batch, o->sys.hw.elem_bytes, &sz);
    char a[24], b[24], c[24], w[24], W[24];
    mpt_fmt_bytes(sz.w_bytes, w, sizeof w);
    mpt_fmt_bytes(sz.W_bytes, W, sizeof W);
    rbuf_printf(tb, "\nweights: spatial |w| = %s, Winograd-domain |W| = %s with %dx%d tiles (%.2fx)\n", w,
           W, t, t, sz.W_bytes / sz.w_bytes);
    mpt_fmt_bytes(mpt_traffic_dp(sz.w_bytes, o->sys.workers), a, sizeof a);
    mpt_fmt_bytes(mpt_traffic_mpt_weights(sz.W_bytes, ng, nc), b, sizeof b);
    mpt_fmt_bytes(mpt_traffic_mpt_tiles(sz.tiles_bytes, ng, nc), c, sizeof c);
    rbuf_printf(tb, "Sec. III-C per worker and iteration on %dx%d with %dx%d tiles: data parallel "
           "|w|(p-1)/p = %s;\n  MPT weights |W|/Ng (Nc-1)/Nc = %s, tiles |Tiles|/(Ng Nc) "
           "(Ng-1)/Ng = %s\n",
           ng, nc, t, t, a, b, c);
}

static void model_text(const dnp_mpt_run *r, rbuf *tb)
{
    const dnp_mpt_run *o = r; /* the system the run was evaluated on */
    int wino = 0, joins = 0;
    for (int i = 0; i < r->net.n; i++) {
        wino += r->net.layers[i].wino && !r->net.layers[i].fc;
        joins += r->net.layers[i].join_size > 1;
    }
    rbuf_printf(tb, "mpt %s: %d conv/FC layers, %d served by the Winograd layer (stride 1, 3x3 or 5x5),\n"
           "  %d in Winograd-domain joins; batch %.0f, %d workers, %s %dx%d array\n\n",
           r->net.name, r->net.n, wino, joins, o->sys.batch, o->sys.workers,
           o->sys.hw.elem_bytes == 2 ? "FP16" : "FP32", o->sys.hw.array_dim,
           o->sys.hw.array_dim);
    hw_text(&o->sys.hw, tb);
    mpt_shares_text(&o->sys.cuts, tb);
    config_table(r, tb);
    rbuf_printf(tb, "\nWinograd layers per grid:");
    for (int c = MPT_W_MP; c < MPT_CONFIG_COUNT; c++) {
        rbuf_printf(tb, "  %s", mpt_config_name((mpt_config)c));
        for (int k = 0; k < o->sys.n_choices; k++)
            if (r->t[c].grid_counts[k] > 0)
                rbuf_printf(tb, " %dx%d:%d", o->sys.choices[k], o->sys.workers / o->sys.choices[k],
                       r->t[c].grid_counts[k]);
    }
    rbuf_printf(tb, "\n\nper layer under w_mp+* (w_dp for comparison):\n");
    rbuf_printf(tb, "%-28s %-6s %-14s %-8s %-11s %11s %11s %11s\n", "layer", "kind", "shape", "grid",
           "transform", "forward", "backward", "w_dp total");
    for (int i = 0; i < r->net.n; i++) {
        const mpt_layer *l = &r->net.layers[i];
        const mpt_layer_time *t = &r->per[MPT_W_MP_PS][i], *d = &r->per[MPT_W_DP][i];
        char shape[32], grid[16], tf[32], f[24], b[24], dt[24];
        snprintf(shape, sizeof shape, "%dx%dx%d", l->out_c, l->out_h, l->out_w);
        mpt_grid_text(t->ng, t->nc, grid, sizeof grid);
        mpt_tf_text(t, l, tf, sizeof tf);
        mpt_fmt_us(t->fwd_s, f, sizeof f);
        mpt_fmt_us(t->bwd_s, b, sizeof b);
        mpt_fmt_us(d->fwd_s + d->bwd_s, dt, sizeof dt);
        rbuf_printf(tb, "%-28s %-6s %-14s %-8s %-11s %11s %11s %11s\n", l->name,
               l->fc ? "fc" : (l->join_size > 1 ? "conv+j" : "conv"), shape, grid, tf, f, b, dt);
    }
    rbuf_printf(tb, "(transform 'direct': a layer Winograd cannot serve, direct and data parallel in "
           "every configuration)\n");
}

void mpt_run_text(const dnp_mpt_run *r, rbuf *tb)
{
    if (r->is_layer)
        layer_text(r, tb);
    else
        model_text(r, tb);
}
