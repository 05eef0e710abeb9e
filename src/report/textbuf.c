/* textbuf.c - quoting of untrusted names into a text buffer (report.h;
 * the buffer itself is core/rbuf.c). */
#include "report/report.h"

#include <stdio.h>
#include <string.h>

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
            rbuf_putn(b, mode == ESC_TOKEN ? "_" : "?", 1);
            p++;
            continue;
        }
        if (mode == ESC_TOKEN && (n > 1 || *p == ' ')) {
            rbuf_putn(b, "_", 1);
            p += n;
            continue;
        }
        if (n == 1) {
            char c = (char)*p;
            if (mode == ESC_GNUPLOT && c == '\'')
                rbuf_putn(b, "''", 2);
            else if ((mode == ESC_DOT || mode == ESC_PYTHON) && (c == '"' || c == '\\')) {
                char esc[2] = {'\\', c};
                rbuf_putn(b, esc, 2);
            } else {
                rbuf_putn(b, &c, 1);
            }
        } else {
            rbuf_putn(b, (const char *)p, (size_t)n);
        }
        p += n;
    }
}
