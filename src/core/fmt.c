/* fmt.c - number formatting shared by the text reports (dnnpar.h, "Text
 * formatting"). */
#include "dnnpar.h"

/* SI prefixes (BIPM, The International System of Units, 9th ed., Table 7):
 * powers of 1000; 999.5 is where "%.3g" would round up to 1000. */
void dnp_fmt_si(double x, char *buf, size_t n)
{
    static const char *const prefix[] = {" ", " k", " M", " G", " T", " P", " E"};
    int k = 0;
    while (x >= 999.5 && k < 6) {
        x /= 1000.0;
        k++;
    }
    snprintf(buf, n, "%.3g%s", x, prefix[k]);
}

void dnp_fmt_time(double time_s, char *buf, size_t n)
{
    if (time_s >= 1.0)
        snprintf(buf, n, "%.3f s", time_s);
    else if (time_s >= 1e-3)
        snprintf(buf, n, "%.3f ms", time_s * 1e3);
    else
        snprintf(buf, n, "%.3f us", time_s * 1e6);
}

const char *dnp_time_unit(double max_s, double *per_s)
{
    if (max_s >= 1.0) {
        *per_s = 1.0;
        return "s";
    }
    if (max_s >= 1e-3) {
        *per_s = 1e3;
        return "ms";
    }
    *per_s = 1e6;
    return "us";
}
