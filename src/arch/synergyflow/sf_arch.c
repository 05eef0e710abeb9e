/* sf_arch.c - the architectures compared in section 6: SynergyFlow,
 * MonoArch and the asymmetric tandem architectures ATA-1..5. */
#include "arch/synergyflow/synergyflow.h"

#include <string.h>
#include <strings.h>

static const char *const names[SF_N_ARCHS] = {"sf",   "mono", "ata1", "ata2",
                                              "ata3", "ata4", "ata5", "split"};

/* Section 6.1: "ATA-1(32,32), ATA-2(48,16), ATA-3(56,8), ATA-4(60,4),
 * ATA-5(63,1)" on the 64-core FPGA. */
static const int ata[5][2] = {{32, 32}, {48, 16}, {56, 8}, {60, 4}, {63, 1}};

const char *sf_arch_name(sf_arch a) { return (a >= 0 && a < SF_N_ARCHS) ? names[a] : "?"; }

int sf_arch_from_name(const char *s)
{
    for (int a = 0; a < SF_ARCH_SPLIT; a++)
        if (strcasecmp(s, names[a]) == 0)
            return a;
    return -1;
}

int sf_arch_ata_split(sf_arch a, int *nc, int *nf)
{
    if (a < SF_ARCH_ATA1 || a > SF_ARCH_ATA5)
        return 0;
    *nc = ata[a - SF_ARCH_ATA1][0];
    *nf = ata[a - SF_ARCH_ATA1][1];
    return 1;
}
