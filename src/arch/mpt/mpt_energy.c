/*
 * mpt_energy.c - energy of one layer's iteration on one worker (the
 * paper's Fig. 15 energy panel, Sec. VII-B "Energy Consumption"), from the
 * timing model's counts.  Constants, each cited (docs/mpt.md, "Energy"):
 *   FP32 add 0.9 pJ, multiply 3.7 pJ: Horowitz, ISSCC 2014, as the paper's
 *     Sec. VII-A uses them; FP16 add 0.4 pJ, multiply 1.1 pJ: the same
 *     table (45 nm);
 *   HMC DRAM access 3.7 pJ/bit: attributed to Jeddeloh and Keeth, "Hybrid
 *     Memory Cube new DRAM architecture increases density and performance",
 *     VLSI 2012 (the DRAM layers; their logic layer is not counted).  NOT
 *     VERIFIED: we could not obtain that paper.  The nearest citable figure
 *     is whole-cube: Intel's IDF 2011 HMC prototype moved 128 GB/s at 8 W
 *     (reported by clubic.com, Sept. 2011), 62 mW per GB/s = 7.8 pJ/bit
 *     for DRAM, logic and I/O together, so 3.7 pJ/bit for the DRAM layers
 *     alone is the right magnitude but unconfirmed (docs/mpt.md, "Energy").
 * SerDes links: the paper uses a link model ([45]) whose per-bit energy it
 * does not state; a SerDes burns about the same power idle as busy (the
 * paper's Sec. VII-B; Ahn et al., DAC 2014), so link energy is
 * proportional to the link capacity switched on times the time it is on.
 * We report that capacity x time (bit/s x s = bits) and turn it into joules
 * only through e_L, a parameter (joules per bit of capacity on), so that
 * totals - what the paper's "up to 3.0x" compares - are shown as functions
 * of it.
 */
#include "arch/mpt/mpt_model.h"

#include <math.h>

void mpt_layer_energy(const mpt_layer_time *t, const mpt_hw *hw, mpt_energy *out)
{
    int fp16 = hw->elem_bytes == 2;
    double add_j = fp16 ? 0.4e-12 : 0.9e-12; /* Horowitz 2014 */
    double mul_j = fp16 ? 1.1e-12 : 3.7e-12; /* Horowitz 2014 */
    double dram_j_per_bit = 3.7e-12;         /* Jeddeloh and Keeth 2012, HMC DRAM; not
                                              * verified against the publication (above) */
    out->compute_j = t->mac_count * (add_j + mul_j);
    out->dram_j = t->dram_s * hw->dram_bps * 8 * dram_j_per_bit;
    /* Links on (the paper turns unused links off, Sec. VII-B): forward,
     * the butterfly's half of the I/O when tiles move; backward, every
     * full link (rings, or rings plus butterfly) when gradients move. */
    double io_bps = 8 * hw->full_links * hw->full_link_bps;
    out->link_bit_s = (t->tile_bytes > 0 ? t->fwd_s * io_bps / 2 : 0) +
                      (t->weight_bytes > 0 || t->tile_bytes > 0 ? t->bwd_s * io_bps : 0);
}

double mpt_energy_total_j(const mpt_energy *e, double e_link_j_per_bit)
{
    return e->compute_j + e->dram_j + e_link_j_per_bit * e->link_bit_s;
}

/* (CD_b + x L_b) / (CD_e + x L_e) >= cut, CD = compute + DRAM, L =
 * link_bit_s: x >= (cut CD_e - CD_b) / (L_b - cut L_e) when L_b > cut L_e. */
double mpt_energy_link_for_cut(const mpt_energy *base, const mpt_energy *e, double cut)
{
    double cd_b = base->compute_j + base->dram_j, cd_e = e->compute_j + e->dram_j;
    if (cd_b >= cut * cd_e)
        return 0.0;
    double room = base->link_bit_s - cut * e->link_bit_s;
    if (!(room > 0))
        return NAN;
    return (cut * cd_e - cd_b) / room;
}
