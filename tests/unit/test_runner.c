/*
 * test_runner.c - tests of the unit-test runner itself (main.c).  With
 * DNNPAR_TEST_RUNNER_SELF=1 each of these misbehaves on purpose (an abort, a
 * double free, a leak, a hang, an exit, failed checks); tests/unit/runner.sh
 * runs them so and checks that each is reported as that test failing, with
 * its reason, and that the tests around them still run.  Without the
 * variable they do nothing wrong and pass.
 */
#include "test.h"

#include "dnnpar.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static int misbehave(void)
{
    const char *s = getenv("DNNPAR_TEST_RUNNER_SELF");
    return s != NULL && strcmp(s, "1") == 0;
}

TEST(runner_self_abort)
{
    if (misbehave())
        abort();
    CHECK(!misbehave());
}

TEST(runner_self_double_free)
{
    char *p = dnp_malloc(16);
    CHECK(p != NULL);
    dnp_free(p);
    if (misbehave())
        dnp_free(p);
}

/* The block's only pointer lives in this frame, gone when it returns. */
static __attribute__((noinline)) void drop_allocation(void)
{
    char *volatile p = dnp_malloc(48);
    CHECK(p != NULL);
    if (!misbehave())
        dnp_free(p);
}

TEST(runner_self_leak)
{
    drop_allocation();
}

TEST(runner_self_hang)
{
    while (misbehave())
        pause();
    CHECK(!misbehave());
}

TEST(runner_self_exit)
{
    if (misbehave())
        exit(0);
    CHECK(!misbehave());
}

TEST(runner_self_checks)
{
    CHECK_EQ_INT(misbehave() ? 2 : 1, 1);
    CHECK_STR(misbehave() ? "yes" : "no", "no");
}
