/*
 * accpar_cost.h - the AccPar cost model (AccPar section 4).
 *
 * Two groups of accelerators, a (ratio alpha) and b (ratio beta = 1-alpha),
 * share one layer.  A layer in partition type t needs its input feature map
 * F_l and provides its output F_l+1 in a *layout*; the error tensors E flow
 * back in the matching layouts (section 3.2, Fig. 2):
 *
 *               F_l needed  F_l+1 provided  E_l+1 needed  E_l provided  intra (Table 4)
 *   Type-I      batch       batch           batch         batch         A(W)
 *   Type-II     channel     replicated      replicated    channel       A(F_l+1)
 *   Type-III    replicated  channel         channel       replicated    A(E_l) = A(F_l)
 *   R           replicated  replicated      replicated    replicated    none
 *
 * R (state 3, weighted layers only; DNP_TYPE_R) is not one of AccPar's
 * types: the layer is not split at that level, each half computes all of
 * it (what a PaSE configuration that leaves the level's devices idle
 * costs in time; docs/time-model.md "Replicated layers").  The searches
 * never choose it; strategies (PaSE's, files) may.
 *
 * The inter-layer cost between two layers (Table 5) is the data a group must
 * fetch to turn what the producer provides into what the consumer needs, for
 * F forward and for E backward.  Expressed this way the nine entries of
 * Table 5 come out exactly (tests/unit/test_cost.c checks each), and the
 * same rule covers joins (residual add, concat), whose states are plain
 * layouts.
 */
#ifndef DNNPAR_ACCPAR_COST_H
#define DNNPAR_ACCPAR_COST_H

typedef enum { LAYOUT_BATCH = 0, LAYOUT_CHANNEL = 1, LAYOUT_REPL = 2 } layout;

typedef enum { INTRA_NONE = 0, INTRA_W, INTRA_FOUT, INTRA_FIN } intra_tensor;

/* Layouts a node in state t (0..2; 3 = R for weighted nodes) needs and provides.  For weighted nodes
 * t is the partition type; for joins t is the layout itself. */
typedef struct {
    layout f_in_need, f_out_prov, e_out_need, e_in_prov;
    intra_tensor intra; /* tensor whose partial sums are exchanged (Table 4) */
} state_layouts;

void accpar_state_layouts(int weighted, int t, state_layouts *out);

/* Fraction of a tensor that group `side` (0: share alpha, 1: share
 * 1-alpha) must fetch from the other group to go from layout `from` to
 * layout `to` (both split with the same ratio).  Table 5's building block:
 *   batch->batch, channel->channel, repl->anything: 0
 *   batch<->channel: alpha*beta (a needs its column block of every row but
 *   holds only its rows); anything->repl: the other group's share. */
double accpar_convert_fraction(layout from, layout to, double alpha, int side);

/* Inter-layer elements group `side` fetches on an edge u -> v carrying a
 * tensor of `elems` elements (F forward and E backward have that size),
 * with u in state tu and v in state tv (Table 5). */
double accpar_inter_elems(int u_weighted, int tu, int v_weighted, int tv, double elems,
                          double alpha, int side);

/* Eq. 10's per-unit inter-layer volume of an edge (section 5.3 reads Table 5
 * as linear in the ratio, E_cm(alpha, p) = alpha E_cm(p), with E_cm(p) =
 * A(T) / b_i by Eq. 7): the edge's tensor of `elems` elements once for each
 * conversion (F forward, E backward) whose Table 5 entry is not zero.
 * The same for both groups. */
double accpar_inter_unit_elems(int u_weighted, int tu, int v_weighted, int tv, double elems);

/* Eq. 7: time to fetch `elems` elements of `bytes_per_elem` bytes at
 * `bw_bps` bytes/s. */
double accpar_comm_s(double elems, int bytes_per_elem, double bw_bps);

/* Eq. 8: time for a group of aggregate `flops` FLOP/s to do `share` of a
 * layer of `flop` FLOP. */
double accpar_compute_s(double share, double flop, double flops);

/* Eq. 10 as printed: alpha * E_a = beta * E_b with E_x group x's per-unit
 * cost (its cost for the whole of what the node holds, E_cp(p) + E_cm(p));
 * returns alpha = E_b / (E_a + E_b), or 1/2 when both are zero. */
double accpar_ratio_eq10(double e_a, double e_b);

#endif
