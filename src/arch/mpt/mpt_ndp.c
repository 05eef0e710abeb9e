/*
 * mpt_ndp.c - execution time of one layer on the near-data-processing
 * workers (Sec. VI): the systolic array, DRAM traffic at the HMC's
 * bandwidth, tile transfer on the flattened butterfly and the weight
 * all-reduce on rings, forward and backward.  Modelling decisions the paper
 * leaves open are listed in docs/mpt.md, "The timing model".
 */
#include "arch/mpt/mpt_model.h"

#include <math.h>
#include <string.h>

/* Weight-stationary S x S array (Sec. VI-B): the stationary operand is cut
 * into S x S blocks; each block streams max(rows, S) vectors (loading the
 * next block's weights takes S cycles and hides behind a stream of at least
 * S); 2 S cycles of fill and drain once.  Either operand may be stationary;
 * the cheaper is used. */
double mpt_systolic_cycles(double m, double k, double n, int s)
{
    if (m <= 0 || k <= 0 || n <= 0)
        return 0.0;
    double a = ceil(k / s) * ceil(n / s) * fmax(m, s);
    double b = ceil(k / s) * ceil(m / s) * fmax(n, s);
    return fmin(a, b) + 2.0 * s;
}

/* One orientation on sub-arrays of side sub, d^2 of them (docs/mpt.md,
 * "Mapping onto the array"). */
static double packed_orient(double count, double rows, double k, double n, int sub, int d)
{
    double subs = (double)d * d, blocks = ceil(k / sub) * ceil(n / sub);
    return ceil(count * blocks / subs) * fmax(rows, sub) + ceil(count / subs) * 2.0 * sub;
}

double mpt_systolic_cycles_packed(double count, double m, double k, double n, int s, int split)
{
    if (count <= 0 || m <= 0 || k <= 0 || n <= 0)
        return 0.0;
    double best = -1.0;
    for (int d = 1; d <= (split > 1 ? split : 1) && s % d == 0; d *= 2) {
        int sub = s / d;
        double a = packed_orient(count, m, k, n, sub, d); /* weights K x N stationary */
        double b = packed_orient(count, n, k, m, sub, d); /* data K x M stationary */
        double c = fmin(a, b);
        if (best < 0 || c < best)
            best = c;
    }
    return best;
}

/* DRAM elements of a worker's weights read in one phase (Sec. VI-B):
 * weights that all fit one 512 KiB input buffer stay on chip for the whole
 * iteration (read once, in fprop: `first` = 1); otherwise each product's
 * weights (`per_product` elements) are read once per phase if they fit, or
 * once per pass of as many rows as the 128 KiB output buffer holds for an
 * S-wide block. */
static double weight_reads(const mpt_hw *hw, double total, double per_product, double rows,
                           int first)
{
    if (total * hw->elem_bytes <= hw->input_buffer_bytes)
        return first ? total : 0.0;
    if (per_product * hw->elem_bytes <= hw->input_buffer_bytes)
        return total;
    double rows_per_pass = floor(hw->output_buffer_bytes / (hw->array_dim * hw->elem_bytes));
    return total * ceil(rows / rows_per_pass);
}

/* Direct convolution (or FC) with data parallelism over all P workers:
 * im2col products (K = I kh kw / groups), compulsory DRAM traffic, and the
 * all-reduce of |w| (Table IV: d_dp; and every layer Winograd cannot serve). */
static void time_direct(const mpt_layer *l, const mpt_sys *sys, int rings, mpt_layer_time *o)
{
    const mpt_hw *hw = &sys->hw;
    int P = sys->workers, S = hw->array_dim, gr = l->groups > 0 ? l->groups : 1;
    double bw = ceil(sys->batch / P), eb = hw->elem_bytes, f = hw->clock_hz;
    double M = bw * l->out_h * l->out_w, K = (double)l->in_c / gr * l->k_h * l->k_w;
    double N = (double)l->out_c / gr;
    int sp = hw->array_split;
    double fwd = mpt_systolic_cycles_packed(gr, M, K, N, S, sp);
    double bprop = mpt_systolic_cycles_packed(gr, M, N, K, S, sp); /* dy w^T, then col2im */
    double wgrad = mpt_systolic_cycles_packed(gr, K, M, N, S, sp);
    double x = bw * l->in_c * l->in_h * l->in_w, y = bw * l->out_c * l->out_h * l->out_w;
    double w = K * l->out_c;
    double ring = mpt_ring_time_s(hw, w * eb, P, rings);
    o->ng = 1;
    o->nc = P;
    o->th = o->tw = 0;
    double dram_f = (x + gr * weight_reads(hw, w / gr, w / gr, M, 1) + y) * eb / hw->dram_bps;
    double dram_b = (y + gr * weight_reads(hw, w / gr, w / gr, M, 0) + x) * eb / hw->dram_bps;
    double dram_w = (x + y + 3 * w) * eb / hw->dram_bps; /* dw, and its reduce read + write */
    o->fwd_s = fmax(fwd / f, dram_f);
    o->bwd_s = fmax(bprop / f, dram_b) + fmax(fmax(wgrad / f, dram_w), ring);
    o->compute_s = (fwd + bprop + wgrad) / f;
    o->dram_s = dram_f + dram_b + dram_w;
    o->ring_s = ring;
    o->weight_bytes = P > 1 ? 2.0 * (P - 1) / P * w * eb : 0.0;
    o->mac_count = gr * (M * K * N) * 3;
    o->array_use = o->mac_count / ((fwd + bprop + wgrad) * (double)S * S);
}

dnp_status mpt_layer_time_grid(const mpt_layer *l, const mpt_sys *sys, int ng, int direct,
                               int predict, int rings, mpt_layer_time *out, dnp_error *err)
{
    mpt_layer_time o;
    memset(&o, 0, sizeof o);
    int P = sys->workers;
    if (ng < 1 || P % ng != 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "%d groups do not divide %d workers", ng, P);
        return DNP_ERR_INPUT;
    }
    if (direct || l->fc || !l->wino) {
        time_direct(l, sys, rings, &o);
        *out = o;
        return DNP_OK;
    }
    int th, tw;
    dnp_status st = mpt_layer_tiles(l, sys, ng, &th, &tw, err);
    if (st != DNP_OK)
        return st;
    int E = th * tw, nc = P / ng;
    if (ng > E) {
        dnp_error_set(err, DNP_ERR_INPUT, "%d groups exceed the %d elements of a %dx%d tile", ng,
                      E, th, tw);
        return DNP_ERR_INPUT;
    }
    const mpt_hw *hw = &sys->hw;
    int S = hw->array_dim, mh = th - l->k_h + 1, mw = tw - l->k_w + 1;
    double f = hw->clock_hz, eb = hw->elem_bytes, I = l->in_c, J = l->out_c;
    double tau = ceil((double)l->out_h / mh) * ceil((double)l->out_w / mw);
    double eg = ceil((double)E / ng), bc = ceil(sys->batch / nc), nct = bc * tau;
    o.ng = ng;
    o.nc = nc;
    o.th = th;
    o.tw = tw;
    o.one_d = ng > 1 && E % ng == 0 && (E / ng) % tw == 0;
    /* Eq. 2 per element: [tiles x I] [I x J]; bprop [tiles x J] [J x I];
     * updateGrad [I x tiles] [tiles x J] (Fig. 3b). */
    int sp = hw->array_split;
    double fwd = mpt_systolic_cycles_packed(eg, nct, I, J, S, sp);
    double bprop = mpt_systolic_cycles_packed(eg, nct, J, I, S, sp);
    double wgrad = mpt_systolic_cycles_packed(eg, I, nct, J, S, sp);
    o.mac_count = 3 * eg * nct * I * J;
    o.array_use = o.mac_count / ((fwd + bprop + wgrad) * (double)S * S);
    /* DRAM per worker: its share of the spatial maps, its elements' tiles
     * written after the scatter and read by the array (and the reverse for
     * outputs), and its weights; Winograd data do not fit the buffers.
     * Spatial weights (a single group) stay spatial in DRAM and are
     * transformed block by block on chip (docs/mpt.md), so they cost |w|;
     * a group's slice of W costs E_g I J. */
    double xs = bc * I * l->in_h * l->in_w / ng, ys = bc * J * l->out_h * l->out_w / ng;
    double xl = eg * nct * I, yl = eg * nct * J, wl = eg * I * J;
    double w_sp = I * J * l->k_h * l->k_w, wd = ng == 1 ? w_sp : wl;
    double wf = weight_reads(hw, wd, wd / eg, nct, 1), wb = weight_reads(hw, wd, wd / eg, nct, 0);
    double dram_f = (xs + 2 * xl + wf + 2 * yl + ys) * eb / hw->dram_bps;
    double dram_b = (ys + 2 * yl + wb + 2 * xl + xs) * eb / hw->dram_bps;
    double dram_w = (xl + yl + 3 * wd) * eb / hw->dram_bps; /* dW, reduce read + write */
    /* Tile transfer (Sec. III-C): each worker holds 1/ng of its cluster's
     * tiles and sends (ng-1)/ng of them; 1D transfer sends t_h x m_w
     * values per tile instead of t_h x t_w (Sec. IV). */
    double share = (double)(ng - 1) / ng / ng * nct * E * eb;
    double scat_f = share * I, gath_f = share * J * (o.one_d ? (double)mw / tw : 1.0);
    double scat_b = share * J, gath_b = share * I;
    if (l->join_size > 1) { /* Fig. 14: one gather (and gradient scatter) per join */
        gath_f /= l->join_size;
        scat_b /= l->join_size;
    }
    if (predict && ng > 1) {
        double cs = o.one_d ? sys->cuts.scatter_1d : sys->cuts.scatter_2d;
        double cg = o.one_d ? sys->cuts.gather_1d : sys->cuts.gather_2d;
        double cb = o.one_d ? sys->cuts.gather_bwd_1d : sys->cuts.gather_bwd_2d;
        scat_f *= 1 - cs;
        scat_b *= 1 - cs;
        if (l->relu_after)
            gath_f *= 1 - cg;
        gath_b *= 1 - cb; /* input units inactive in fprop get no gradient */
    }
    double tile_f = mpt_fbfly_time_s(hw, scat_f + gath_f, ng);
    double tile_b = mpt_fbfly_time_s(hw, scat_b + gath_b, ng);
    /* A single group keeps spatial weights (docs/mpt.md): the ring carries
     * |w|; otherwise the group's slice of W. */
    double slice = (ng == 1 ? w_sp : wl) * eb;
    double ring = mpt_ring_time_s(hw, slice, nc, rings);
    o.fwd_s = fmax(fmax(fwd / f, dram_f), tile_f);
    o.bwd_s = fmax(fmax(bprop / f, dram_b), tile_b) + fmax(fmax(wgrad / f, dram_w), ring);
    o.compute_s = (fwd + bprop + wgrad) / f;
    o.dram_s = dram_f + dram_b + dram_w;
    o.tile_s = tile_f + tile_b;
    o.ring_s = ring;
    o.weight_bytes = nc > 1 ? 2.0 * (nc - 1) / nc * slice : 0.0;
    o.tile_bytes = scat_f + gath_f + scat_b + gath_b;
    *out = o;
    return DNP_OK;
}
