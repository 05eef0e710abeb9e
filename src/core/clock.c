/*
 * clock.c - dnp_clock_s (dnnpar.h): the clock a command's one deadline
 * counts from (core/clock.h).
 */
#include "core/clock.h"

#include "dnnpar/core.h"

double dnp_clock_s(void) { return dnp_now_s(); }
