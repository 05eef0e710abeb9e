/* textbuf.c - the reports' text buffer, quoting of untrusted names and
 * atomic file output. */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void rbuf_init(rbuf *b)
{
    memset(b, 0, sizeof *b);
}

void rbuf_free(rbuf *b)
{
    dnp_free(b->s);
    rbuf_init(b);
}

/* Make room for `extra` more bytes plus the terminating NUL. */
static int reserve(rbuf *b, size_t extra)
{
    if (b->oom)
        return 0;
    if (b->len + extra + 1 <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        if (cap > ((size_t)-1) / 2) {
            b->oom = 1;
            return 0;
        }
        cap *= 2;
    }
    char *s = dnp_realloc(b->s, cap);
    if (s == NULL) {
        b->oom = 1;
        return 0;
    }
    b->s = s;
    b->cap = cap;
    return 1;
}

static void put_bytes(rbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void rbuf_puts(rbuf *b, const char *s)
{
    put_bytes(b, s, strlen(s));
}

void rbuf_vprintf(rbuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void rbuf_printf(rbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *rbuf_take(rbuf *b)
{
    char *s = NULL;
    if (!b->oom && reserve(b, 0)) {
        s = b->s;
        s[b->len] = '\0';
    } else
        dnp_free(b->s);
    rbuf_init(b);
    return s;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if it is not one
 * (overlong forms, surrogates and code points above U+10FFFF rejected). */
static int utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    int n;
    unsigned cp;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0u) != 0x80u)
            return 0; /* also stops at the NUL */
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

void rbuf_put_escaped(rbuf *b, const char *s, report_escape mode)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        int n = utf8_len(p);
        if (n == 0 || *p < 0x20 || *p == 0x7F) {
            put_bytes(b, mode == ESC_TOKEN ? "_" : "?", 1);
            p++;
            continue;
        }
        if (mode == ESC_TOKEN && (n > 1 || *p == ' ')) {
            put_bytes(b, "_", 1);
            p += n;
            continue;
        }
        if (n == 1) {
            char c = (char)*p;
            if (mode == ESC_GNUPLOT && c == '\'')
                put_bytes(b, "''", 2);
            else if ((mode == ESC_DOT || mode == ESC_PYTHON) && (c == '"' || c == '\\')) {
                char esc[2] = {'\\', c};
                put_bytes(b, esc, 2);
            } else {
                put_bytes(b, &c, 1);
            }
        } else {
            put_bytes(b, (const char *)p, (size_t)n);
        }
        p += n;
    }
}

/* ------------------------------------------------------------------ */
/* Atomic output                                                        */
/* ------------------------------------------------------------------ */

int report_temp_beside(const char *path, char **tmp)
{
    size_t n = strlen(path) + 48;
    char *name = dnp_malloc(n);
    if (name == NULL) {
        errno = ENOMEM;
        return -1;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long seed = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32);
    for (int attempt = 0; attempt < 100; attempt++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        snprintf(name, n, "%s.tmp%ld.%06llx", path, (long)getpid(), (seed >> 40) & 0xFFFFFFULL);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *tmp = name;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int saved = errno;
    dnp_free(name);
    errno = saved;
    return -1;
}

dnp_status report_write_file(const char *path, const char *text, size_t len, dnp_error *err)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
            dnp_error_set(err, DNP_ERR_IO, "cannot write to standard output: %s", strerror(errno));
            return DNP_ERR_IO;
        }
        return DNP_OK;
    }
    char *tmp = NULL;
    int fd = report_temp_beside(path, &tmp);
    if (fd < 0) {
        dnp_error_set(err, DNP_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
        return DNP_ERR_IO;
    }
    size_t done = 0;
    int saved = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            saved = w < 0 ? errno : EIO;
            break;
        }
        done += (size_t)w;
    }
    if (close(fd) != 0 && saved == 0)
        saved = errno;
    if (saved == 0 && rename(tmp, path) != 0)
        saved = errno;
    if (saved != 0) {
        unlink(tmp);
        dnp_free(tmp);
        dnp_error_set(err, DNP_ERR_IO, "cannot write '%s': %s", path, strerror(saved));
        return DNP_ERR_IO;
    }
    dnp_free(tmp);
    return DNP_OK;
}
