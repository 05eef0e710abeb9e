/* main.c - runs every registered unit test, or those named on the command line. */
#include "test.h"

#include <stdlib.h>

int test_failed_checks;

#define X(name) void test_##name(void);
#include "test_list.inc"
#undef X

static const struct {
    const char *name;
    void (*fn)(void);
} registry[] = {
#define X(name) {#name, test_##name},
#include "test_list.inc"
#undef X
};

const char *test_data_dir(void)
{
    const char *d = getenv("DNNPAR_DATA_DIR");
    return d && d[0] ? d : "data";
}

unsigned long long test_rand(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

double test_uniform(unsigned long long *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(test_rand(s) >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0;
    size_t n = sizeof registry / sizeof registry[0];
    for (size_t i = 0; i < n; i++) {
        if (argc > 1) {
            int want = 0;
            for (int a = 1; a < argc; a++)
                want |= strcmp(argv[a], registry[i].name) == 0;
            if (!want)
                continue;
        }
        test_failed_checks = 0;
        registry[i].fn();
        if (test_failed_checks == 0) {
            passed++;
        } else {
            failed++;
            printf("FAIL %s (%d checks)\n", registry[i].name, test_failed_checks);
        }
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
