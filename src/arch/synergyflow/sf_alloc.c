/*
 * sf_alloc.c - the analytical core allocation of section 4.2.3.
 *
 * Eq. 7 gives the bandwidth the engines draw, in words per second:
 *     C_bw ~ freq N_c Tn^2 (S^2 / (Tn K^2) + 1 / (Tr Tc))
 *     F_bw ~ freq N_f Tn^2.
 * Eq. 8 asks for C_bw + F_bw <= BW / DW, N_c + N_f <= N and
 * F_time ~ C_time.  Eq. 9 is garbled in the text; we derive it from those
 * three constraints.  With every core doing Tn^2 MACs per cycle (Eq. 6),
 * C_time ~ C_op / (N_c Tn^2 freq) and F_time ~ F_op / (N_f Tn^2 freq), so
 * the time constraint is N_f = N_c / R_ctf (R_ctf = C_op / F_op, Eq. 10).
 * Substituting it into the other two:
 *     N_c <= (BW/DW) / (freq Tn^2 (1/(Tr Tc) + S^2/(Tn K^2) + 1/R_ctf))
 *     N_c <= R_ctf N / (1 + R_ctf)
 *     N_f <= (BW/DW) / (freq Tn^2 (R_ctf/(Tr Tc) + S^2 R_ctf/(Tn K^2) + 1))
 *     N_f <= N - N_c
 * which is the shape of the printed Eq. 9 (its S^2/(Tn^2 K) and
 * S^2 R_ctf/(Tc^2 K) are conversion damage of Eq. 7's S^2/(Tn K^2)).
 * The printed ceilings would break the "<=" of Eq. 8; we take floors, and
 * GB = 2^30 bytes.  That reproduces all six splits of Table 6; ceilings
 * break 5 of the 6 in either unit (AlexNet, VGG11, Batch1 and Batch3 get
 * ceil(R N / (1 + R)), one C-Engine core too many, and Batch2 its
 * bandwidth term rounded up; test synergy_alloc_rounding_and_units,
 * docs/synergyflow.md "Units and rounding").
 */
#include "arch/synergyflow/synergyflow.h"

#include <math.h>
#include <string.h>

/* floor(x) clamped to [0, cap]. */
static int floor_cap(double x, int cap)
{
    if (!(x > 0))
        return 0;
    if (x >= (double)cap)
        return cap;
    return (int)floor(x);
}

void sf_allocate(const sf_platform *p, double r_ctf, int k, int s, sf_alloc *out)
{
    sf_alloc a;
    memset(&a, 0, sizeof a);
    int n = p->cores;
    double tn = (double)p->tn;
    if (k < 1)
        k = 1;
    if (s < 1)
        s = 1;
    a.bw_words_per_s = p->bw_bps / (double)p->dw_bytes; /* BW / DW */
    a.core_words_per_s = p->freq_hz * tn * tn;          /* freq Tn^2 */
    /* Eq. 7: words per C-Engine core per cycle, in units of Tn^2. */
    a.c_words_per_core_cycle = (double)s * s / (tn * k * k) + 1.0 / ((double)p->tr * p->tc);
    double cores_of_bw = a.bw_words_per_s / a.core_words_per_s; /* (BW/DW) / (freq Tn^2) */
    int has_conv = r_ctf > 0, has_fc = !isinf(r_ctf);
    if (!has_conv) {
        a.nc = 0;
        a.nc_limit = "no CONV work";
        a.nf_bw_bound = cores_of_bw; /* R_ctf = 0 in Eq. 9 */
        a.nf_core_bound = n;
        a.nf = floor_cap(a.nf_bw_bound, n);
        a.nf_limit = a.nf_bw_bound < (double)n ? "bandwidth" : "cores";
    } else {
        double inv_r = has_fc ? 1.0 / r_ctf : 0.0;
        a.nc_bw_bound = cores_of_bw / (a.c_words_per_core_cycle + inv_r);
        a.nc_core_bound = has_fc ? r_ctf * n / (1.0 + r_ctf) : (double)n;
        int by_bw = floor_cap(a.nc_bw_bound, n), by_cores = floor_cap(a.nc_core_bound, n);
        a.nc = by_bw < by_cores ? by_bw : by_cores;
        a.nc_limit = by_bw < by_cores ? "bandwidth" : "cores";
        a.nf_core_bound = n - a.nc;
        if (has_fc) {
            a.nf_bw_bound = cores_of_bw / (r_ctf * a.c_words_per_core_cycle + 1.0);
            int f_bw = floor_cap(a.nf_bw_bound, n);
            a.nf = f_bw < a.nf_core_bound ? f_bw : a.nf_core_bound;
            a.nf_limit = f_bw < a.nf_core_bound ? "bandwidth" : "cores";
        } else {
            a.nf = 0;
            a.nf_limit = "no FC work";
        }
    }
    /* An engine with work needs at least one core; then the split must
     * still fit (with N = 1 and both kinds of work it cannot: N_f = 0). */
    if (has_conv && a.nc < 1) {
        a.nc = 1;
        a.clamped = 1;
    }
    if (has_fc && a.nf < 1) {
        a.nf = 1;
        a.clamped = 1;
    }
    if (a.nc + a.nf > n) {
        a.clamped = 1;
        if (a.nc > 1 && n - a.nf >= 1)
            a.nc = n - a.nf;
        else
            a.nf = n - a.nc > 0 ? n - a.nc : 0;
    }
    a.c_bw_bps = a.core_words_per_s * a.nc * a.c_words_per_core_cycle * p->dw_bytes;
    a.f_bw_bps = a.core_words_per_s * a.nf * p->dw_bytes;
    *out = a;
}
