/*
 * nccl_tests.c - a collective as measured: the output of an nccl-tests run
 * (NVIDIA/nccl-tests, all_reduce_perf and its siblings) read into sizes and
 * times, and Hockney's alpha-beta line fitted to them, so a measurement can
 * be set beside the model (`dnnpar comm OP --measured FILE`; docs/
 * collectives.md, "Your own measurements").
 *
 * The format read is nccl-tests' table (src/common.cu of nccl-tests prints
 * it): comment lines start with '#', among them one "#  Rank  N ..." line
 * per rank and the column header; each data row is
 *   size count type redop [root] time algbw busbw #wrong time algbw busbw #wrong
 * with the out-of-place figures first and times in microseconds.  Older
 * releases print no root column (the header then names none).
 *
 * Ownership: dnp_nccl_tests_read returns a new array (dnp_free); nothing is
 * kept.  Units: bytes, seconds, bytes/s.
 */
#include "dnnpar.h"
#include "core/alloc.h"
#include "core/input.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NCCL_TESTS_MAX_ROWS 4096
#define NCCL_TESTS_MAX_BYTES (16u << 20)
#define MAX_TOKENS 8

/* Split line [s, e) into at most MAX_TOKENS whitespace-separated tokens
 * (start and length).  Returns the count (capped). */
static int tokens(const char *s, const char *e, const char **tok, size_t *len)
{
    int n = 0;
    while (s < e && n < MAX_TOKENS) {
        while (s < e && isspace((unsigned char)*s))
            s++;
        if (s >= e)
            break;
        const char *t = s;
        while (s < e && !isspace((unsigned char)*s))
            s++;
        tok[n] = t;
        len[n++] = (size_t)(s - t);
    }
    return n;
}

static int all_digits(const char *t, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)t[i]))
            return 0;
    return 1;
}

/* Token [t, t + n) as a finite number; 0 on success. */
static int number(const char *t, size_t n, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, t, n);
    buf[n] = '\0';
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (errno != 0 || end != buf + n || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* 1 if the comment line [s, e) is a "# Rank N" line of nccl-tests' header. */
static int rank_line(const char *s, const char *e)
{
    const char *tok[MAX_TOKENS];
    size_t len[MAX_TOKENS];
    int k = tokens(s + 1, e, tok, len);
    return k >= 2 && len[0] == 4 && strncmp(tok[0], "Rank", 4) == 0 && all_digits(tok[1], len[1]);
}

/* 1 if the comment line [s, e) is the column header naming a root column. */
static int root_header(const char *s, const char *e)
{
    for (const char *p = s; p + 4 <= e; p++)
        if (strncmp(p, "root", 4) == 0 && (p == s || isspace((unsigned char)p[-1])) &&
            (p + 4 == e || isspace((unsigned char)p[4])))
            return 1;
    return 0;
}

static dnp_status row_error(dnp_error *err, const char *file, int line, const char *what)
{
    dnp_error_set(err, DNP_ERR_INPUT, "%s:%d: %s", file, line, what);
    return DNP_ERR_INPUT;
}

dnp_status dnp_nccl_tests_read(const char *path, dnp_coll_sample **out, int *n, int *ranks,
                               dnp_error *err)
{
    char *data = NULL;
    size_t size = 0;
    dnp_status st = dnp_input_read(path, NCCL_TESTS_MAX_BYTES, &data, &size, err);
    if (st != DNP_OK)
        return st;
    const char *file = dnp_input_display(path);
    dnp_coll_sample *rows = dnp_malloc(NCCL_TESTS_MAX_ROWS * sizeof *rows);
    if (rows == NULL) {
        dnp_free(data);
        dnp_error_set(err, DNP_ERR_NOMEM, "%s: out of memory", file);
        return DNP_ERR_NOMEM;
    }
    int count = 0, rank_lines = 0, has_root = 0, line = 0;
    st = DNP_OK;
    for (const char *s = data, *end = data + size; s < end && st == DNP_OK;) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        if (e == NULL)
            e = end;
        line++;
        const char *p = s;
        while (p < e && isspace((unsigned char)*p))
            p++;
        if (p < e && *p == '#') {
            rank_lines += rank_line(p, e);
            has_root |= root_header(p, e);
        } else if (p < e && isdigit((unsigned char)*p)) {
            /* a data row: size count type redop [root] time ... */
            const char *tok[MAX_TOKENS];
            size_t len[MAX_TOKENS];
            int k = tokens(p, e, tok, len);
            int ti = has_root ? 5 : 4;
            double bytes = 0.0, time_us = 0.0;
            if (k <= ti || !all_digits(tok[0], len[0]) || !all_digits(tok[1], len[1]) ||
                !isalpha((unsigned char)tok[2][0]) || !isalpha((unsigned char)tok[3][0]) ||
                number(tok[0], len[0], &bytes) != 0 || number(tok[ti], len[ti], &time_us) != 0)
                st = row_error(err, file, line,
                               has_root ? "want an nccl-tests row: size count type redop root "
                                          "time(us) algbw busbw ..."
                                        : "want an nccl-tests row: size count type redop "
                                          "time(us) algbw busbw ... (no root column: the "
                                          "header names none)");
            else if (!(time_us > 0.0))
                st = row_error(err, file, line,
                               has_root ? "the time (us) must be positive"
                                        : "the time (us) must be positive (no header line "
                                          "names a root column, so column 5 is the time)");
            else if (count > 0 && !(bytes > rows[count - 1].bytes))
                st = row_error(err, file, line, "sizes must increase from row to row");
            else if (count >= NCCL_TESTS_MAX_ROWS)
                st = row_error(err, file, line, "more than 4096 rows");
            else
                rows[count++] = (dnp_coll_sample){bytes, time_us * 1e-6};
        }
        /* anything else (NCCL's own log lines, blank lines) is not nccl-tests' table */
        s = e + 1;
    }
    dnp_free(data);
    if (st == DNP_OK && count == 0)
        st = row_error(err, file, line, "no nccl-tests row (size count type redop ... time)");
    if (st != DNP_OK) {
        dnp_free(rows);
        return st;
    }
    *out = rows;
    *n = count;
    *ranks = rank_lines;
    return DNP_OK;
}

int dnp_coll_fit(const dnp_coll_sample *s, int n, double *alpha_s, double *rate_bps)
{
    if (s == NULL || n < 1)
        return -1;
    /* weighted least squares of t = a + b x with w = 1 / t^2 (relative
     * residuals): the normal equations of the weighted line */
    double sw = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
    for (int i = 0; i < n; i++) {
        if (!(s[i].time_s > 0.0) || !(s[i].bytes >= 0.0))
            return -1;
        double w = 1.0 / (s[i].time_s * s[i].time_s), x = s[i].bytes, y = s[i].time_s;
        sw += w;
        sx += w * x;
        sy += w * y;
        sxx += w * x * x;
        sxy += w * x * y;
    }
    double det = sw * sxx - sx * sx, a = 0.0, b = 0.0;
    if (det > 1e-12 * sw * sxx) {
        b = (sw * sxy - sx * sy) / det;
        a = (sy - b * sx) / sw;
    }
    if (!(det > 1e-12 * sw * sxx) || a < 0.0) {
        a = 0.0; /* the line through the origin */
        b = sxx > 0.0 ? sxy / sxx : 0.0;
    }
    if (!(b > 0.0) || !isfinite(b))
        return -1;
    *alpha_s = a;
    *rate_bps = 1.0 / b;
    return 0;
}
