/* test_cost.c - AccPar Tables 4 and 5, Eqs. 7, 8 and 10 on hand-worked values. */
#include "cost/accpar_cost.h"
#include "test.h"

/* Table 5 as printed, for the group with ratio alpha (side 0): entries in
 * units of A, with A(F_l+1) = A(E_l+1) = 1. */
static double table5(int from, int to, double alpha)
{
    double beta = 1.0 - alpha;
    static const int zero[3][3] = {{1, 0, 0}, {0, 0, 1}, {0, 1, 0}};
    if (zero[from][to])
        return 0.0;
    if ((from == 0 && to == 1) || (from == 2 && to == 0))
        return alpha * beta + alpha * beta; /* (b), (g) */
    return beta;                            /* (c), (d), (e), (i) */
}

TEST(cost_table5_all_nine_transitions)
{
    const double alphas[] = {0.5, 0.25, 0.3, 0.9, 1.0 / 3.0};
    for (size_t k = 0; k < sizeof alphas / sizeof alphas[0]; k++) {
        double a = alphas[k];
        for (int tu = 0; tu < 3; tu++)
            for (int tv = 0; tv < 3; tv++) {
                /* side 0 holds alpha: Table 5 exactly */
                CHECK_NEAR(accpar_inter_elems(1, tu, 1, tv, 1.0, a, 0), table5(tu, tv, a), 1e-15,
                           1e-15);
                /* side 1 holds beta: the same table with alpha and beta swapped
                 * (section 4.1.2, "Reversely ... alpha A(F)/b_j") */
                CHECK_NEAR(accpar_inter_elems(1, tu, 1, tv, 1.0, a, 1), table5(tu, tv, 1.0 - a),
                           1e-15, 1e-15);
            }
    }
    /* A concrete tensor: I -> III with alpha 0.25 on 1000 elements: the
     * alpha-group fetches the other 750, the beta-group the other 250. */
    CHECK_NEAR(accpar_inter_elems(1, 0, 1, 2, 1000.0, 0.25, 0), 750.0, 0, 1e-12);
    CHECK_NEAR(accpar_inter_elems(1, 0, 1, 2, 1000.0, 0.25, 1), 250.0, 0, 1e-12);
}

TEST(cost_table4_partial_sum_tensors)
{
    state_layouts s;
    accpar_state_layouts(1, 0, &s);
    CHECK_EQ_INT(s.intra, INTRA_W); /* Type-I: A(W), Eq. 4 */
    accpar_state_layouts(1, 1, &s);
    CHECK_EQ_INT(s.intra, INTRA_FOUT); /* Type-II: A(F_l+1), Eq. 5 */
    accpar_state_layouts(1, 2, &s);
    CHECK_EQ_INT(s.intra, INTRA_FIN); /* Type-III: A(E_l), Eq. 6 */
    for (int t = 0; t < 3; t++) {
        accpar_state_layouts(0, t, &s);
        CHECK_EQ_INT(s.intra, INTRA_NONE); /* joins never hold partial sums */
    }
}

TEST(cost_type_r_replicated_layer)
{
    /* R (DNP_TYPE_R = 3): not split, every tensor whole in each half, no
     * partial sum (docs/time-model.md "Replicated layers"). */
    state_layouts s;
    accpar_state_layouts(1, 3, &s);
    CHECK_EQ_INT(s.intra, INTRA_NONE);
    CHECK_EQ_INT(s.f_in_need, LAYOUT_REPL);
    CHECK_EQ_INT(s.f_out_prov, LAYOUT_REPL);
    CHECK_EQ_INT(s.e_out_need, LAYOUT_REPL);
    CHECK_EQ_INT(s.e_in_prov, LAYOUT_REPL);
    /* Type-I -> R, alpha 0.25: forward, group 0 fetches the other 75 % of
     * F (batch -> replicated); backward R gives E whole: free. */
    CHECK_NEAR(accpar_inter_elems(1, 0, 1, 3, 1000.0, 0.25, 0), 750.0, 0, 1e-12);
    CHECK_NEAR(accpar_inter_elems(1, 0, 1, 3, 1000.0, 0.25, 1), 250.0, 0, 1e-12);
    /* R -> Type-II (or I): F whole -> channel free; E channel (batch) ->
     * replicated: the other group's share. */
    CHECK_NEAR(accpar_inter_elems(1, 3, 1, 1, 1000.0, 0.25, 0), 750.0, 0, 1e-12);
    CHECK_NEAR(accpar_inter_elems(1, 3, 1, 0, 1000.0, 0.25, 0), 750.0, 0, 1e-12);
    /* R -> R and R -> Type-III (needs F replicated, gives E replicated): free. */
    CHECK_NEAR(accpar_inter_elems(1, 3, 1, 3, 1000.0, 0.5, 0), 0.0, 0, 0);
    CHECK_NEAR(accpar_inter_elems(1, 3, 1, 2, 1000.0, 0.5, 1), 0.0, 0, 0);
}

TEST(cost_joins_convert_layouts)
{
    /* A residual add in batch layout fed by a Type-III conv: F channel ->
     * batch is alpha*beta, E batch -> channel is alpha*beta. */
    CHECK_NEAR(accpar_inter_elems(1, 2, 0, 0, 100.0, 0.5, 0), 50.0, 0, 1e-12);
    /* replicated join -> Type-I: F free, E batch -> replicated costs beta. */
    CHECK_NEAR(accpar_inter_elems(0, 2, 1, 0, 100.0, 0.2, 0), 80.0, 0, 1e-12);
    /* batch join -> batch join: free. */
    CHECK_NEAR(accpar_inter_elems(0, 0, 0, 0, 100.0, 0.2, 1), 0.0, 0, 0);
}

TEST(cost_eq7_eq8_eq10)
{
    /* Eq. 7: 1e9 bfloat16 elements over 16 Gb/s (2e9 B/s) take 1 s. */
    CHECK_NEAR(accpar_comm_s(1e9, 2, 2e9), 1.0, 1e-15, 0);
    /* Eq. 8: a quarter of 420 TFLOP on a 420 TFLOP/s group: 0.25 s. */
    CHECK_NEAR(accpar_compute_s(0.25, 420e12, 420e12), 0.25, 1e-15, 0);
    /* Eq. 10: alpha * 3 = (1 - alpha) * 1 -> alpha = 1/4, and it balances. */
    double a = accpar_ratio_eq10(3.0, 1.0);
    CHECK_NEAR(a, 0.25, 1e-15, 0);
    CHECK_NEAR(a * 3.0, (1.0 - a) * 1.0, 1e-15, 0);
    /* TPU-v2 vs TPU-v3 compute alone: 180 vs 420 TFLOP/s -> 0.3 / 0.7. */
    CHECK_NEAR(accpar_ratio_eq10(1.0 / 180e12, 1.0 / 420e12), 0.3, 1e-12, 0);
    CHECK_NEAR(accpar_ratio_eq10(0.0, 0.0), 0.5, 0, 0);
}
