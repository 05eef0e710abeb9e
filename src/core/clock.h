/*
 * clock.h - the wall clock the searches time themselves with (search
 * times in reports, time limits): CLOCK_MONOTONIC in seconds.  Reports
 * print these only where marked as varying run to run (--timing).  O(1).
 */
#ifndef DNP_CORE_CLOCK_H
#define DNP_CORE_CLOCK_H

#include <time.h>

static inline double dnp_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
