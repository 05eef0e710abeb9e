/*
 * clock.c - dnp_clock_s (dnnpar.h): the clock a command's one deadline
 * counts from (core/clock.h).
 */
#include "core/clock.h"

#include "dnnpar.h" /* dnp_clock_s is declared in dnnpar/plan.h */

double dnp_clock_s(void) { return dnp_now_s(); }
