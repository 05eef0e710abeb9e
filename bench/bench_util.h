/* bench_util.h - what every benchmark needs: the library's monotonic clock
 * (core/clock.h), the process's CPU time and the median of a sample
 * (sorted in place). */
#ifndef DNNPAR_BENCH_UTIL_H
#define DNNPAR_BENCH_UTIL_H

#include "core/clock.h"

#include <stdlib.h>
#include <time.h>

static inline double bench_now_s(void)
{
    return dnp_now_s();
}

/* CPU time of this process in seconds (C's clock(): user and system time
 * on POSIX), the figure to compare on a shared machine where wall time
 * depends on the other jobs. */
static inline double bench_cpu_s(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
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
