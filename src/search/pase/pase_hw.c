/*
 * pase_hw.c - PaSE's hardware: p devices of one peak FLOP/s and one link,
 * and Eq. 1's r (FLOP per word moved).  A mixed cluster counts as its
 * weakest device and link (paper section V); its types are kept for the
 * shared model (pase_setup.c) and the type split (pase_run.c).
 */
#include "search/pase/pase_driver.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The largest device count PaSE's configurations are enumerated for. */
#define PASE_MAX_DEVICES 65536

dnp_status dnp_pase_hw_uniform(int p, double peak_flops, double link_bps, dnp_pase_hw *out,
                               dnp_error *err)
{
    if (p < 1 || p > PASE_MAX_DEVICES) {
        dnp_error_set(err, DNP_ERR_INPUT, "PaSE needs 1 to %d devices, got %d", PASE_MAX_DEVICES,
                      p);
        return DNP_ERR_INPUT;
    }
    if (!(peak_flops > 0.0) || !(link_bps > 0.0) || !isfinite(peak_flops) ||
        !isfinite(link_bps)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "PaSE needs a positive peak FLOP/s and link bandwidth, got %g and %g",
                      peak_flops, link_bps);
        return DNP_ERR_INPUT;
    }
    dnp_pase_hw hw;
    memset(&hw, 0, sizeof hw); /* no cluster: device_types 0 */
    hw.p = p;
    hw.peak_flops = peak_flops;
    hw.link_bps = link_bps;
    hw.word_bytes = 8; /* the prototype's float64 words */
    snprintf(hw.description, sizeof hw.description,
             "%d devices of %g TFLOP/s, links of %g GB/s, 8-byte words", p, peak_flops / 1e12,
             link_bps / 1e9);
    *out = hw;
    return DNP_OK;
}

dnp_status dnp_pase_hw_from_cluster(const dnp_cluster *c, dnp_pase_hw *out, dnp_error *err)
{
    int64_t n = dnp_cluster_devices(c);
    if (n < 1 || n > PASE_MAX_DEVICES) {
        char *spec = dnp_cluster_spec(c);
        dnp_error_set(err, DNP_ERR_INPUT, "cluster '%.300s' has %lld devices (1 to %d)",
                      spec != NULL ? spec : "(out of memory)", (long long)n, PASE_MAX_DEVICES);
        dnp_free(spec);
        return DNP_ERR_INPUT;
    }
    dnp_pase_hw hw;
    memset(&hw, 0, sizeof hw);
    hw.p = (int)n;
    hw.peak_flops = INFINITY;
    hw.link_bps = INFINITY;
    hw.word_bytes = 1;
    int kinds = 0;
    for (int t = 0; t < c->n_types; t++) {
        if (c->counts[t] < 1)
            continue;
        kinds++;
        const dnp_device_type *d = &c->types[t];
        hw.peak_flops = d->peak_flops < hw.peak_flops ? d->peak_flops : hw.peak_flops;
        hw.link_bps = d->net_bw_bps < hw.link_bps ? d->net_bw_bps : hw.link_bps;
        hw.word_bytes = d->bytes_per_elem > hw.word_bytes ? d->bytes_per_elem : hw.word_bytes;
    }
    if (!(hw.peak_flops > 0.0) || !(hw.link_bps > 0.0) || !isfinite(hw.peak_flops) ||
        !isfinite(hw.link_bps)) {
        char *spec = dnp_cluster_spec(c);
        dnp_error_set(err, DNP_ERR_INPUT, "cluster '%.300s' needs a positive peak and network "
                      "bandwidth", spec != NULL ? spec : "(out of memory)");
        dnp_free(spec);
        return DNP_ERR_INPUT;
    }
    /* the spec when the line holds it whole, else the device count: never cut */
    char *spec = dnp_cluster_spec(c);
    if (spec == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory describing the cluster");
        return DNP_ERR_NOMEM;
    }
    int w = snprintf(hw.description, sizeof hw.description,
                     "%s: %g TFLOP/s, links of %g GB/s, %d-byte words%s", spec,
                     hw.peak_flops / 1e12, hw.link_bps / 1e9, hw.word_bytes,
                     kinds > 1 ? " (the weakest device and link, paper section V)" : "");
    if (w < 0 || (size_t)w >= sizeof hw.description)
        snprintf(hw.description, sizeof hw.description,
                 "%lld devices of %d types: %g TFLOP/s, links of %g GB/s, %d-byte words%s",
                 (long long)n, c->n_types, hw.peak_flops / 1e12, hw.link_bps / 1e9,
                 hw.word_bytes,
                 kinds > 1 ? " (the weakest device and link, paper section V)" : "");
    dnp_free(spec);
    hw.device_types = kinds;
    hw.cluster = *c; /* the default cost model's devices and links */
    *out = hw;
    return DNP_OK;
}

/* Eq. 1's r = peak FLOP/s / (link bytes/s / word bytes): the FLOP a
 * device could have done in the time one word crosses its link. */
double dnp_pase_hw_r_flop_per_word(const dnp_pase_hw *hw)
{
    return hw->peak_flops * hw->word_bytes / hw->link_bps;
}
