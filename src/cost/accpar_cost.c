/* accpar_cost.c - AccPar Tables 4 and 5, Eqs. 7, 8 and 10. */
#include "cost/accpar_cost.h"

void accpar_state_layouts(int weighted, int t, state_layouts *out)
{
    if (!weighted) {
        /* A join (add, concat) computes element-wise in whatever layout it
         * is given: needs and provides the same layout, no partial sums. */
        layout l = (layout)t;
        *out = (state_layouts){l, l, l, l, INTRA_NONE};
        return;
    }
    switch (t) {
    case 0: /* Type-I, section 3.2.1: split B; dW is a partial sum (Eq. 4). */
        *out = (state_layouts){LAYOUT_BATCH, LAYOUT_BATCH, LAYOUT_BATCH, LAYOUT_BATCH, INTRA_W};
        break;
    case 1: /* Type-II, 3.2.2: split D_i; F_l+1 is a partial sum (Eq. 5),
             * E_l+1 is replicated, E_l comes out split by channel. */
        *out = (state_layouts){LAYOUT_CHANNEL, LAYOUT_REPL, LAYOUT_REPL, LAYOUT_CHANNEL,
                               INTRA_FOUT};
        break;
    case 2: /* Type-III, 3.2.3: split D_o; F_l replicated, E_l is a partial sum (Eq. 6). */
        *out = (state_layouts){LAYOUT_REPL, LAYOUT_CHANNEL, LAYOUT_CHANNEL, LAYOUT_REPL,
                               INTRA_FIN};
        break;
    default: /* R (DNP_TYPE_R, docs/time-model.md "Replicated layers"): not split at this
              * level; each half holds W and computes the whole layer on whole tensors, so
              * it needs F_l and E_l+1 replicated, provides F_l+1 and E_l replicated and
              * exchanges no partial sum (its dW is complete in each half: no all-reduce). */
        *out = (state_layouts){LAYOUT_REPL, LAYOUT_REPL, LAYOUT_REPL, LAYOUT_REPL, INTRA_NONE};
        break;
    }
}

double accpar_convert_fraction(layout from, layout to, double alpha, int side)
{
    double mine = side == 0 ? alpha : 1.0 - alpha;
    double other = 1.0 - mine;
    if (from == LAYOUT_REPL || from == to)
        return 0.0;
    if (to == LAYOUT_REPL)
        return other; /* Table 5 (c), (e), (i): beta * A */
    /* batch <-> channel: needs `mine` of the tensor, holds mine*mine of it;
     * Table 5 (b), (g): alpha * beta * A. */
    return mine * other;
}

double accpar_inter_elems(int u_weighted, int tu, int v_weighted, int tv, double elems,
                          double alpha, int side)
{
    state_layouts su, sv;
    accpar_state_layouts(u_weighted, tu, &su);
    accpar_state_layouts(v_weighted, tv, &sv);
    /* Forward: F_l+1 as u provides it -> as v needs it.
     * Backward: E_l+1 as v provides it -> as u needs it. */
    double f = accpar_convert_fraction(su.f_out_prov, sv.f_in_need, alpha, side);
    double e = accpar_convert_fraction(sv.e_in_prov, su.e_out_need, alpha, side);
    return f * elems + e * elems;
}

double accpar_inter_unit_elems(int u_weighted, int tu, int v_weighted, int tv, double elems)
{
    state_layouts su, sv;
    accpar_state_layouts(u_weighted, tu, &su);
    accpar_state_layouts(v_weighted, tv, &sv);
    /* Section 5.3: E_cm(alpha, p) = alpha E_cm(p); E_cm(p) = A(T) / b_i (Eq. 7) for each
     * tensor T that Table 5 makes a group access (a fraction > 0 at any inner ratio). */
    int f = accpar_convert_fraction(su.f_out_prov, sv.f_in_need, 0.5, 0) > 0.0;
    int e = accpar_convert_fraction(sv.e_in_prov, su.e_out_need, 0.5, 0) > 0.0;
    return (double)(f + e) * elems;
}

double accpar_comm_s(double elems, int bytes_per_elem, double bw_bps)
{
    /* Eq. 7: E_cm = A(T) / b_i, with A(T) in bytes. */
    return elems * (double)bytes_per_elem / bw_bps;
}

double accpar_compute_s(double share, double flop, double flops)
{
    /* Eq. 8: E_cp = alpha * C(T1 x T2) / c_i. */
    return share * flop / flops;
}

double accpar_ratio_eq10(double e_a, double e_b)
{
    /* Eq. 10: alpha * E_a = (1 - alpha) * E_b. */
    double s = e_a + e_b;
    return s > 0.0 ? e_b / s : 0.5;
}
