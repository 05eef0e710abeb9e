/* sf_platform.c - the SynergyFlow platform (Table 2) and its P395-AB preset. */
#include "arch/synergyflow/synergyflow.h"

#include <math.h>

/* Section 6.1: "a 64-core system (N = 64), each core contains a 4x4 PE
 * array (Tn = 4) ... 100MHz ... BW = 34.2GB/s ... DW = 16bits".  The paper
 * does not give Tr, Tc or Tnn: Tr = Tc = 32 is the tile of Table 3's
 * column-first example (length 32, stride 224, repetition 32: a 32x32
 * tile of a 224-high map); Tnn = 128 keeps a 128x128 weight tile (32 KB)
 * per core buffer.  O(1). */
void sf_platform_p395ab(sf_platform *p)
{
    p->cores = 64;
    p->tn = 4;
    p->bw_bps = 34.2 * SF_GB_BYTES;
    p->freq_hz = 100e6;
    p->dw_bytes = 2;
    p->tr = 32;
    p->tc = 32;
    p->tnn = 128;
}

/* Validate every field (positive, finite, small enough that products of
 * tile sizes stay far inside int64).  O(1). */
dnp_status sf_platform_check(const sf_platform *p, dnp_error *err)
{
    const struct {
        const char *what;
        long long v, max;
    } ints[] = {
        {"number of cores N", p->cores, 1 << 16},
        {"core size Tn", p->tn, 1024},
        {"data width DW (bytes)", p->dw_bytes, 64},
        {"tile Tr", p->tr, 1 << 16},
        {"tile Tc", p->tc, 1 << 16},
        {"tile Tnn", p->tnn, 1 << 20},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ints[i].v <= 0 || ints[i].v > ints[i].max) {
            dnp_error_set(err, DNP_ERR_INPUT, "%s must be between 1 and %lld, got %lld",
                          ints[i].what, ints[i].max, ints[i].v);
            return DNP_ERR_INPUT;
        }
    if (!(p->bw_bps > 0) || !isfinite(p->bw_bps)) {
        dnp_error_set(err, DNP_ERR_INPUT, "bandwidth BW must be positive, got %g bytes/s",
                      p->bw_bps);
        return DNP_ERR_INPUT;
    }
    if (!(p->freq_hz > 0) || !isfinite(p->freq_hz)) {
        dnp_error_set(err, DNP_ERR_INPUT, "frequency must be positive, got %g Hz", p->freq_hz);
        return DNP_ERR_INPUT;
    }
    if (p->tnn % p->tn != 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "tile Tnn (%d) must be a multiple of Tn (%d)", p->tnn,
                      p->tn);
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

/* Each core's Tn x Tn PEs do one multiply-accumulate each per cycle
 * ("one clock cycle computation", Fig. 8), two operations.  O(1). */
double sf_peak_ops_per_s(const sf_platform *p, int cores)
{
    return 2.0 * (double)cores * (double)p->tn * (double)p->tn * p->freq_hz;
}
