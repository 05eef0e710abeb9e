/* bench_util.h - what every benchmark needs: the library's monotonic clock
 * (core/clock.h) and the median of a sample (sorted in place). */
#ifndef DNNPAR_BENCH_UTIL_H
#define DNNPAR_BENCH_UTIL_H

#include "core/clock.h"

#include <stdlib.h>

static inline double bench_now_s(void)
{
    return dnp_now_s();
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return v[n / 2];
}

#endif
