/*
 * mpt_exec.h - MPT really run: one training step of a Winograd layer on a
 * grid of Ng groups x Nc clusters of simulated workers (the paper's
 * Sec. III-B, Fig. 5b), executed by OS threads.  Internal to src/arch/mpt.
 *
 * Data placement
 *   - Cluster c holds samples [B c / Nc, B (c+1) / Nc); within the cluster
 *     the tiles of those samples are split into Ng contiguous "home" ranges,
 *     one per worker: the home transforms its tiles (source of the scatter)
 *     and inverse-transforms them (destination of the gather).
 *   - Group g owns tile elements [E g / Ng, E (g+1) / Ng) and the matching
 *     slice of the Winograd-domain weights; it computes those elements'
 *     products (Eq. 2) for its cluster's tiles.
 *   - When every group owns whole tile rows, the group applies the first
 *     inverse pass itself and sends t_h x m_w values per tile instead of
 *     t_h x t_w (Sec. IV, "1D Winograd transform before transferring"), and
 *     prediction is 1D; otherwise 2D.
 * Messages are real buffers: zero-skipped values are left out and
 * refilled with zeros by the receiver; values of units predicted inactive
 * are never sent.  Weight gradients are reduced within each group by a
 * ring all-reduce (reduce-scatter then all-gather) over its Nc workers.
 */
#ifndef DNNPAR_MPT_EXEC_H
#define DNNPAR_MPT_EXEC_H

#include "arch/mpt/mpt_predict.h"

typedef struct {
    int ng, nc;                    /* groups x clusters */
    int threads;                   /* OS threads running the ng * nc workers (>= 1) */
    int relu;                      /* the layer output is ReLU(y); bprop masks by y > 0 */
    int predict;                   /* activation prediction on the fprop gather (needs relu) */
    int zero_skip;                 /* leave zero values out of scatters */
    mpt_quant_params quant2d;      /* quantizer of 2D predict */
    mpt_quant_params quant1d;      /* quantizer of 1D predict */
} mpt_exec_opts;

/* Defaults: 1 thread, ReLU, no prediction, no zero-skipping, the paper's
 * quantizers. */
mpt_exec_opts mpt_exec_default(int ng, int nc);

typedef struct {
    int one_d;                     /* 1D predict / 1D transfer mode */
    /* bytes each worker sent (values 4 bytes, codes and maps by their bits),
     * the busiest worker's and the sum over workers */
    double scatter_bytes_max, scatter_bytes_total; /* X in fprop, dY in bprop */
    double gather_bytes_max, gather_bytes_total;   /* Y (or 1D lines), codes, maps; dX */
    double ring_bytes_max, ring_bytes_total;       /* weight-gradient all-reduce */
    long long scatter_values, skipped_values;      /* scattered values and zeros left out */
    long long gather_units, predicted_inactive, actual_inactive; /* fprop tiles or lines */
} mpt_exec_stats;

/*
 * One training step on the grid: forward z = f(y), y the Winograd layer of
 * x with Winograd-domain weights W ([E][I][J]); backward from dz (the
 * gradient of z) to dx and the all-reduced weight gradient dW ([E][I][J]).
 * f is ReLU when o->relu, else the identity.  Results equal the single
 * worker's: z and dx bit for bit (the same per-tile arithmetic in the same
 * order); dW bit for bit when Nc = 1, and otherwise equal to the ring sum
 * of the clusters' partial gradients, chunk k summed in cluster order
 * k, k+1, ..., k-1 (mod Nc) - within the reassociation bound of the single
 * worker's sum.  Deterministic for any thread count.  Errors:
 * DNP_ERR_INPUT for a bad shape or grid (ng < 1, nc < 1, ng > E, predict
 * without relu), DNP_ERR_NOMEM, DNP_ERR_INTERNAL if a thread cannot start.
 * Outputs are written only on success; *st may be NULL.
 * O(B tiles E I J / P) per worker plus the transforms.
 */
dnp_status mpt_exec_step(const mpt_wshape *s, const float *x, const float *W, const float *dz,
                         const mpt_exec_opts *o, float *z, float *dx, float *dW,
                         mpt_exec_stats *st, dnp_error *err);

/* A self-check of the run (shown by `dnnpar reproduce mpt`): one step of a
 * 16 -> 16 channel, 8x8, batch 8 F(2x2,3x3) layer with ReLU on an ng x nc
 * grid (4 threads) against the single worker, and the traffic against the
 * Sec. III-C formula. */
typedef struct {
    int equal;               /* z and dx bit for bit, dW within the reassociation bound */
    mpt_exec_stats stats;
    double formula_scatter;  /* |X|/(Ng Nc) (Ng-1)/Ng + the same for dY, bytes per worker */
    double formula_gather;   /* the same for Y (1D: m_w/t_w of it) and dX */
} mpt_selfcheck;

/* Run the self-check; DNP_ERR_NOMEM or the run's errors.  O(layer). */
dnp_status mpt_selfcheck_run(int ng, int nc, int predict, mpt_selfcheck *out, dnp_error *err);

#endif
