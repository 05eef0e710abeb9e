/*
 * checked.h - overflow-checked integer arithmetic for sizes, counts and
 * FLOP products computed from input files (issue 12, item 2).
 *
 * Each helper stores the exact result in *out and returns 0, or returns -1
 * (leaving *out unspecified) when the mathematically exact result does not
 * fit in int64_t.  They are thin wrappers over the GCC/Clang builtins
 * __builtin_mul_overflow / __builtin_add_overflow, so a loader can write
 *     if (dnp_mul_i64(h, w, &hw)) return error("... h*w overflows");
 * and never execute signed overflow (undefined behaviour in C11).  O(1).
 */
#ifndef DNP_CORE_CHECKED_H
#define DNP_CORE_CHECKED_H

#include <stdint.h>

static inline int dnp_mul_i64(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}

static inline int dnp_add_i64(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_add_overflow(a, b, out) ? -1 : 0;
}

static inline int dnp_sub_i64(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_sub_overflow(a, b, out) ? -1 : 0;
}

/* a * b * c, checked at each step. */
static inline int dnp_mul3_i64(int64_t a, int64_t b, int64_t c, int64_t *out)
{
    int64_t ab;
    return (dnp_mul_i64(a, b, &ab) || dnp_mul_i64(ab, c, out)) ? -1 : 0;
}

#endif
