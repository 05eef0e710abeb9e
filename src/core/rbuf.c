/* rbuf.c - the reports' growing text buffer (rbuf.h). */
#include "core/rbuf.h"

#include <stdio.h>
#include <string.h>

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

void rbuf_putn(rbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void rbuf_puts(rbuf *b, const char *s)
{
    rbuf_putn(b, s, strlen(s));
}

void rbuf_fill(rbuf *b, const char *first, const char *rest, size_t width, const char *text)
{
    const char *prefix = first;
    size_t col = 0; /* bytes on the current line; 0: none yet */
    const char *p = text;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        size_t n = strcspn(p, " ");
        if (col > 0 && col + 1 + n > width) {
            rbuf_putn(b, "\n", 1);
            col = 0;
        }
        if (col == 0) {
            rbuf_puts(b, prefix);
            col = strlen(prefix);
            prefix = rest;
        } else {
            rbuf_putn(b, " ", 1);
            col++;
        }
        rbuf_putn(b, p, n);
        col += n;
        p += n;
    }
    if (col > 0)
        rbuf_putn(b, "\n", 1);
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
