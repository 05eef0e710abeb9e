/*
 * test.h - the unit-test harness.  A test is `TEST(name) { ... }` in any C
 * file under tests/unit/; the Makefile collects the names into a registry.
 * Checks print both values and the location, and mark the test failed.
 */
#ifndef DNNPAR_TEST_H
#define DNNPAR_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

extern int test_failed_checks;

/* The failing allocator of test_alloc_fail.c, for any test: the hook to
 * give dnp_set_allocator, failing allocation call `fail_at` (1-based,
 * 0: none) from now on, and the blocks it has handed out and not yet seen
 * released.  The only code besides src/core/alloc.c that calls the C
 * library's allocator (tests/run.sh, "allocator hook"). */
#include "dnnpar/core.h"
const dnp_allocator *test_fail_allocator(long fail_at);
long test_fail_live(void);

#define TEST(name) void test_##name(void); void test_##name(void)

/*
 * Sweeps.  TEST_SWEEP(name) is a TEST that checks a property over many cases
 * (every zoo model, every cluster shape): minutes under the sanitizers.  The
 * sanitizer build (make test's unit_tests) runs each over a subset that still
 * reaches every kind of case: test_sweep_full() is 0 there.  Its release twin
 * (build/unit_sweeps, tests/run.sh's suite "sweeps": -O2, no sanitizers) runs
 * every TEST_SWEEP over every case; so does the sanitizer build with
 * DNNPAR_TEST_FULL_SWEEP=1.
 */
#define TEST_SWEEP(name) TEST(name)
int test_sweep_full(void);
/* Whether a sweep over the zoo checks model `name`: every model in a full
 * sweep, else those of a subset with every kind of op and join (a CNN with
 * and without batch norm and residual adds, concats, mean joins, towers with
 * LRN, an FC-only net, GPT and Llama blocks, models over memory). */
int test_sweep_zoo(const char *name);
/* How many zoo models the subset holds. */
int test_sweep_zoo_subset_size(void);

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);         \
            test_failed_checks++;                                                     \
        }                                                                             \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                            \
    do {                                                                              \
        long long va_ = (long long)(a), vb_ = (long long)(b);                         \
        if (va_ != vb_) {                                                             \
            printf("  %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__,  \
                   #a, va_, #b, vb_);                                                 \
            test_failed_checks++;                                                     \
        }                                                                             \
    } while (0)

/* |a - b| <= rel * max(|a|, |b|) + abs_tol */
#define CHECK_NEAR(a, b, rel, abs_tol)                                                \
    do {                                                                              \
        double va_ = (double)(a), vb_ = (double)(b);                                  \
        double m_ = fabs(va_) > fabs(vb_) ? fabs(va_) : fabs(vb_);                    \
        if (!(fabs(va_ - vb_) <= (rel) * m_ + (abs_tol))) {                           \
            printf("  %s:%d: %s = %.17g, expected %s = %.17g\n", __FILE__, __LINE__,  \
                   #a, va_, #b, vb_);                                                 \
            test_failed_checks++;                                                     \
        }                                                                             \
    } while (0)

#define CHECK_STR(a, b)                                                               \
    do {                                                                              \
        const char *sa_ = (a), *sb_ = (b);                                            \
        if (strcmp(sa_, sb_) != 0) {                                                  \
            printf("  %s:%d: %s = \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a,  \
                   sa_, sb_);                                                         \
            test_failed_checks++;                                                     \
        }                                                                             \
    } while (0)

/* Directory of the copied test data (data/ of the repository, the tests run
 * from its root; or $DNNPAR_DATA_DIR): onnx/, reference/accpar/, reference/pase/. */
const char *test_data_dir(void);

/* Deterministic pseudo-random numbers for tests (xorshift64*). */
unsigned long long test_rand(unsigned long long *state);
double test_uniform(unsigned long long *state, double lo, double hi);

#endif
