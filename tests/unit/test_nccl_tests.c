/* test_nccl_tests.c - reading nccl-tests output and fitting the alpha-beta
 * line to it (src/net/nccl_tests.c), every expected value worked by hand. */
#include "test.h"

#include "dnnpar.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_temp(char *path, size_t n, const char *text)
{
    snprintf(path, n, "/tmp/dnnpar_nccltests_XXXXXX");
    int fd = mkstemp(path);
    size_t len = strlen(text);
    int ok = fd >= 0 && write(fd, text, len) == (ssize_t)len;
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

/* Read text as a file; *err gets the error.  Returns the status. */
static dnp_status read_text(const char *text, dnp_coll_sample **s, int *n, int *ranks,
                            dnp_error *err)
{
    char path[64];
    if (write_temp(path, sizeof path, text) != 0)
        return DNP_ERR_INTERNAL;
    dnp_status st = dnp_nccl_tests_read(path, s, n, ranks, err);
    unlink(path);
    return st;
}

/* Points on t = 10 us + S / (100 GB/s) give back alpha and the rate exactly;
 * a line whose intercept would be negative is refitted through the origin. */
TEST(coll_fit_by_hand)
{
    dnp_coll_sample s[3] = {{1e6, 10e-6 + 1e6 / 1e11}, {1e7, 10e-6 + 1e7 / 1e11},
                            {1e8, 10e-6 + 1e8 / 1e11}};
    double a = -1.0, r = -1.0;
    CHECK_EQ_INT(dnp_coll_fit(s, 3, &a, &r), 0);
    CHECK_NEAR(a, 10e-6, 1e-9, 1e-15);
    CHECK_NEAR(r, 1e11, 1e-9, 0.0);
    /* (1e6 B, 5 us) and (1e7 B, 95 us): the free line has intercept -5 us;
     * through the origin with weights 1/t^2, 1/b = sum (x/t)^2 / sum x/t
     * = (4e22 + (1e7/95e-6)^2) / (2e11 + 1e7/95e-6) = 1.6733212e11 B/s */
    dnp_coll_sample o[2] = {{1e6, 5e-6}, {1e7, 95e-6}};
    CHECK_EQ_INT(dnp_coll_fit(o, 2, &a, &r), 0);
    CHECK_NEAR(a, 0.0, 0.0, 0.0);
    CHECK_NEAR(r, 1.6733212341197818e11, 1e-9, 0.0);
    /* one sample: the line through the origin and it */
    CHECK_EQ_INT(dnp_coll_fit(o, 1, &a, &r), 0);
    CHECK_NEAR(r, 2e11, 1e-12, 0.0);
    /* nothing to fit */
    CHECK_EQ_INT(dnp_coll_fit(o, 0, &a, &r), -1);
    dnp_coll_sample bad[1] = {{1e6, 0.0}};
    CHECK_EQ_INT(dnp_coll_fit(bad, 1, &a, &r), -1);
}

/* nccl-tests 2.13's table (a root column), its "# Rank" lines and NCCL's
 * log lines among them; an older table without a root column. */
TEST(nccl_tests_read_formats)
{
    static const char *const current =
        "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor)\n"
        "#  Rank  0 Group  0 Pid   1001 on  node1 device  0 [0x07] NVIDIA A100-SXM4-80GB\n"
        "#  Rank  1 Group  0 Pid   1002 on  node1 device  1 [0x0b] NVIDIA A100-SXM4-80GB\n"
        "node1:1001:1001 [0] NCCL INFO Channel 00/24 : 0 1\n"
        "#       size   count  type  redop  root    time  algbw  busbw #wrong    time  algbw  busbw #wrong\n"
        "#        (B) (elements)                    (us) (GB/s) (GB/s)           (us) (GB/s) (GB/s)\n"
        "     1048576  262144 float    sum    -1   44.21  23.72  23.72      0   45.10  23.25  23.25      0\n"
        "     2097152  524288 float    sum    -1   53.43  39.25  39.25      0   51.13  41.01  41.01      0\n"
        "     4194304 1048576 float    sum    -1   61.18  68.55  68.55      0   60.26  69.61  69.61      0\n"
        "# Out of bounds values : 0 OK\n"
        "# Avg bus bandwidth    : 43.84\n";
    dnp_coll_sample *s = NULL;
    int n = 0, ranks = -1;
    dnp_error err = {0};
    CHECK_EQ_INT(read_text(current, &s, &n, &ranks, &err), DNP_OK);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(ranks, 2);
    if (n == 3) {
        CHECK_NEAR(s[0].bytes, 1048576.0, 0.0, 0.0);
        CHECK_NEAR(s[0].time_s, 44.21e-6, 1e-12, 0.0); /* the out-of-place time */
        CHECK_NEAR(s[2].bytes, 4194304.0, 0.0, 0.0);
        CHECK_NEAR(s[2].time_s, 61.18e-6, 1e-12, 0.0);
    }
    dnp_free(s);
    s = NULL;
    static const char *const older =
        "#       size   count  type  redop    time  algbw  busbw  error    time  algbw  busbw  error\n"
        "        8192    2048 float    sum   20.50   0.40   0.70  0e+00   20.10   0.41   0.71  0e+00\n"
        "       65536   16384 float    sum   25.00   2.62   4.59  0e+00   24.90   2.63   4.61  0e+00\n";
    CHECK_EQ_INT(read_text(older, &s, &n, &ranks, &err), DNP_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(ranks, 0);
    if (n == 2)
        CHECK_NEAR(s[1].time_s, 25.0e-6, 1e-12, 0.0);
    dnp_free(s);
}

/* Bad tables: one message naming the file and line, nothing returned. */
TEST(nccl_tests_read_errors)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"# size count type redop root time\n 1024 256 float sum -1 5.0\n 1024 256 float sum -1 6.0\n",
         ":3: sizes must increase"},
        {"# size count type redop root time\n 1024 256 float sum -1 fast\n", ":2: want an nccl-tests row"},
        {"# size count type redop time\n 1024 256 float sum 0\n", ":2: the time (us) must be positive"},
        {"# nothing measured\n", "no nccl-tests row"},
        {"", "no nccl-tests row"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dnp_coll_sample *s = NULL;
        int n = 0, ranks = 0;
        dnp_error err = {0};
        CHECK_EQ_INT(read_text(cases[i].text, &s, &n, &ranks, &err), DNP_ERR_INPUT);
        CHECK(s == NULL);
        if (strstr(err.msg, cases[i].want) == NULL)
            printf("  case %zu: message '%s' lacks '%s'\n", i, err.msg, cases[i].want);
        CHECK(strstr(err.msg, cases[i].want) != NULL);
        CHECK(strstr(err.msg, "/tmp/dnnpar_nccltests_") != NULL);
    }
    dnp_coll_sample *s = NULL;
    int n = 0, ranks = 0;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_nccl_tests_read("/nonexistent/ar.txt", &s, &n, &ranks, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "/nonexistent/ar.txt") != NULL);
}
