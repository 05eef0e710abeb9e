/*
 * clock.h - the wall clock the searches time themselves with (search
 * times in reports, time limits): CLOCK_MONOTONIC in seconds.  Reports
 * print these only where marked as varying run to run (--timing).  O(1).
 *
 * A time limit is one deadline per command (docs/cli.md "Time limits"):
 * the limit in seconds and the clock reading it counts from
 * (dnp_plan_options.time_limit_s / time_limit_from_s, the same pair in
 * dnp_pase_run_options); every layer turns the pair into a deadline with
 * dnp_deadline_at and reads it with dnp_deadline_passed.
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

/* The deadline (a dnp_now_s() reading) of a limit of limit_s seconds
 * counted from the reading from_s (0: from now); 0 = none (limit_s not
 * above 0).  A limit too small to add to the clock still counts as
 * reached (the result is never 0 for a limit).  O(1). */
static inline double dnp_deadline_at(double from_s, double limit_s)
{
    if (!(limit_s > 0.0))
        return 0.0;
    double at_s = (from_s > 0.0 ? from_s : dnp_now_s()) + limit_s;
    return at_s > 0.0 ? at_s : 1e-300;
}

/* 1 once deadline_s (from dnp_deadline_at; 0 = none) has passed; the
 * clock is read only when there is a deadline.  O(1). */
static inline int dnp_deadline_passed(double deadline_s)
{
    return deadline_s > 0.0 && dnp_now_s() >= deadline_s;
}

#endif
