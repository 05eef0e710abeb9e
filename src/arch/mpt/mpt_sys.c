/*
 * mpt_sys.c - the evaluated system (Sec. VI, VII-A, Tables III and IV):
 * worker and link parameters, the configurations, and the transform rule.
 */
#include "arch/mpt/mpt_model.h"

#include "arch/mpt/wino.h"

mpt_hw mpt_hw_paper(int fp16)
{
    mpt_hw hw;
    hw.array_dim = fp16 ? 96 : 64; /* Sec. VI-B; footnote 16 for the whole CNNs */
    hw.array_split = 4;            /* ours: fission into up to 4x4 sub-arrays (docs/mpt.md) */
    hw.clock_hz = 1e9;             /* Table III */
    hw.dram_bps = 320e9;           /* Table III, HMC */
    hw.elem_bytes = fp16 ? 2 : 4;
    hw.full_link_bps = 16 * 15e9 / 8;   /* Table III: 16 lanes x 15 Gb/s */
    hw.narrow_link_bps = 8 * 10e9 / 8;  /* Table III: 8 lanes x 10 Gb/s */
    hw.full_links = 4;             /* Sec. VII-B: four full links, 240 GB/s */
    hw.fbfly_row = 4;              /* Fig. 9a: 4x4 flattened butterfly per cluster */
    hw.hop_s = 5e-9;               /* Sec. VII-A: SerDes 2.5 + 2.5 ns per hop */
    hw.chunk_bytes = 256;          /* Sec. VII-A */
    hw.packet_bytes = 64;
    hw.input_buffer_bytes = 512 * 1024; /* Sec. VI-B */
    hw.output_buffer_bytes = 128 * 1024;
    return hw;
}

mpt_cuts mpt_cuts_paper(void)
{
    mpt_cuts c;
    c.gather_2d = 0.340; /* Sec. V-B: 2D predict saves 34.0% net of its 6-bit codes */
    c.gather_1d = 0.781; /* Sec. V-B: 1D predict, 78.1% net of 5-bit codes */
    c.gather_bwd_2d = c.gather_2d; /* not measured by the paper: extrapolated */
    c.gather_bwd_1d = c.gather_1d;
    c.scatter_2d = 0.393; /* Sec. V-B: zero-skipping, 39.3% */
    c.scatter_1d = 0.647; /* Sec. V-B: 64.7% */
    c.from_paper = 1;
    return c;
}

mpt_sys mpt_sys_paper_with(const mpt_cuts *cuts)
{
    mpt_sys s;
    s.batch = MPT_PAPER_BATCH;
    s.workers = MPT_PAPER_WORKERS;
    s.fixed_ng = 16;
    s.n_choices = 3;
    s.choices[0] = 1;
    s.choices[1] = 4;
    s.choices[2] = 16;
    for (int k = 3; k < MPT_MAX_CHOICES; k++)
        s.choices[k] = 0;
    s.tile = 0;
    s.dyn_by_comm = 0;
    s.hw = mpt_hw_paper(0);
    s.cuts = *cuts;
    return s;
}

dnp_status mpt_sys_paper(mpt_sys *out, dnp_error *err)
{
    mpt_cuts ours;
    dnp_status st = mpt_cuts_ours(&ours, err);
    if (st == DNP_OK)
        *out = mpt_sys_paper_with(&ours);
    return st;
}

mpt_sys mpt_sys_paper_shares(void)
{
    mpt_cuts paper = mpt_cuts_paper(); /* input from the paper's measured result */
    return mpt_sys_paper_with(&paper);
}

const char *mpt_config_name(mpt_config c)
{
    static const char *const names[MPT_CONFIG_COUNT] = {"d_dp",  "w_dp",  "w_mp",
                                                        "w_mp+", "w_mp*", "w_mp+*"};
    return (c >= 0 && c < MPT_CONFIG_COUNT) ? names[c] : "?";
}

dnp_status mpt_sys_check(const mpt_sys *sys, dnp_error *err)
{
    if (sys->workers < 1 || !(sys->batch >= 1)) {
        dnp_error_set(err, DNP_ERR_INPUT, "MPT system: need at least one worker and sample");
        return DNP_ERR_INPUT;
    }
    if (sys->fixed_ng < 1 || sys->workers % sys->fixed_ng != 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "%d groups do not divide %d workers", sys->fixed_ng,
                      sys->workers);
        return DNP_ERR_INPUT;
    }
    if (sys->n_choices < 1 || sys->n_choices > MPT_MAX_CHOICES) {
        dnp_error_set(err, DNP_ERR_INPUT, "dynamic clustering needs 1 to %d group counts",
                      MPT_MAX_CHOICES);
        return DNP_ERR_INPUT;
    }
    for (int k = 0; k < sys->n_choices; k++)
        if (sys->choices[k] < 1 || sys->workers % sys->choices[k] != 0) {
            dnp_error_set(err, DNP_ERR_INPUT, "%d groups do not divide %d workers",
                          sys->choices[k], sys->workers);
            return DNP_ERR_INPUT;
        }
    return DNP_OK;
}

/* Tile along one dimension with r taps. */
static dnp_status dim_tile(int r, int forced, int ng, int *t, dnp_error *err)
{
    int tile = r == 1 ? 1 : forced ? forced : mpt_default_tile(r, ng == 1);
    mpt_transform tf;
    dnp_status st = mpt_transform_lookup(tile, r, &tf, err);
    if (st == DNP_OK)
        *t = tile;
    return st;
}

dnp_status mpt_layer_tiles(const mpt_layer *l, const mpt_sys *sys, int ng, int *th, int *tw,
                           dnp_error *err)
{
    dnp_status st = dim_tile(l->k_h, sys->tile, ng, th, err);
    if (st == DNP_OK)
        st = dim_tile(l->k_w, sys->tile, ng, tw, err);
    return st;
}
