/*
 * sf_energy_gpu.c - SynergyFlow's Fig. 18 (energy and energy efficiency
 * against the K20M GPU, section 6.2.6) as far as published constants
 * allow.  Energy = power x time: the times are ours (Table 7, simulated)
 * and the GPU's (Table 7, measured by the paper); the power ratio is
 * derived from the paper's own quoted reductions, because neither the
 * FPGA design's nor the GPU's measured power is published.  So only our
 * time is computed; every saving is paper-derived (synergyflow.h, sf_fig18)
 * and the reproduction keeps no mean of them.  Cited
 * constants (K20 board power, Micron DDR3 IDD currents) give the absolute
 * cross-check.  Units: seconds, watts, joules per bit.
 */
#include "arch/synergyflow/synergyflow.h"

#include <string.h>

/* P_SF / P_GPU from one quoted energy reduction (percent) and the paper's
 * two times: 1 - s = (P_SF t_SF) / (P_GPU t_GPU). */
static double rho_from(double saving_pct, double t_sf_s, double t_gpu_s)
{
    return (1.0 - saving_pct / 100.0) * t_gpu_s / t_sf_s;
}

void sf_fig18_compute(const sf_repro *r, sf_fig18 *out)
{
    sf_fig18 f;
    memset(&f, 0, sizeof f);
    const sf_table6_row *alex = sf_table6_at(0), *vgg = sf_table6_at(1);
    f.rho_alexnet = rho_from(SF_PAPER_FIG18_ALEX_INF_PCT, alex->paper_inf_s, alex->paper_gpu_inf_s);
    f.rho_vgg11 = rho_from(SF_PAPER_FIG18_VGG_INF_PCT, vgg->paper_inf_s, vgg->paper_gpu_inf_s);
    f.rho = 0.5 * (f.rho_alexnet + f.rho_vgg11);
    /* Efficiency (op/J) ratio with equal operations = E_GPU / E_SF =
     * t_GPU / (rho t_SF), so rho = t_GPU / (eff t_SF). */
    f.rho_train_alexnet =
        alex->paper_gpu_train_s / (SF_PAPER_FIG18_EFF_TRAIN_ALEX * alex->paper_train_s);
    f.rho_train_vgg11 = vgg->paper_gpu_train_s / (SF_PAPER_FIG18_EFF_TRAIN_VGG * vgg->paper_train_s);
    int n = sf_table6_count();
    for (int i = 0; i < n; i++) {
        const sf_table6_row *t = sf_table6_at(i);
        const sf_repro_row *w = &r->row[i];
        f.inf_time_over_gpu[i] = w->inf_time_s / t->paper_gpu_inf_s;
        f.train_time_over_gpu[i] = w->train_time_s / t->paper_gpu_train_s;
        double ei = f.rho * f.inf_time_over_gpu[i]; /* E_SF / E_GPU */
        double et = f.rho * f.train_time_over_gpu[i];
        f.inf_saving_pct[i] = 100.0 * (1.0 - ei);
        f.train_saving_pct[i] = 100.0 * (1.0 - et);
        f.inf_eff[i] = 1.0 / ei;
        f.train_eff[i] = 1.0 / et;
    }
    f.sf_w_at_k20_board = f.rho * SF_K20_BOARD_W;
    /* Micron TN-41-01's method on the datasheet currents: background power
     * IDD3N x VDD per module; a burst read adds (IDD4R - IDD3N) x VDD while
     * the module streams its full bandwidth. */
    f.ddr3_background_w = SF_DDR3_MODULES * SF_DDR3_IDD3N_A * SF_DDR3_VDD_V;
    f.ddr3_read_j_per_bit =
        (SF_DDR3_IDD4R_A - SF_DDR3_IDD3N_A) * SF_DDR3_VDD_V / (8.0 * SF_DDR3_MODULE_BPS);
    sf_platform p;
    sf_platform_p395ab(&p);
    f.ddr3_w_at_full_bw = f.ddr3_background_w + 8.0 * p.bw_bps * f.ddr3_read_j_per_bit;
    *out = f;
}
