/* textbuf.c - the reports' text buffer and quoting of untrusted names. */
#include "report/report.h"

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
            put_bytes(b, "\n", 1);
            col = 0;
        }
        if (col == 0) {
            rbuf_puts(b, prefix);
            col = strlen(prefix);
            prefix = rest;
        } else {
            put_bytes(b, " ", 1);
            col++;
        }
        put_bytes(b, p, n);
        col += n;
        p += n;
    }
    if (col > 0)
        put_bytes(b, "\n", 1);
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
