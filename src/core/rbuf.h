/*
 * rbuf.h - a growing text buffer (rbuf) for the library's text reports:
 * report/ writes its tables and exports with it, and the searches' own
 * reports (search/pase) too, so it lives in core/ below both.
 */
#ifndef DNP_CORE_RBUF_H
#define DNP_CORE_RBUF_H

#include "dnnpar/core.h"

#include <stdarg.h>
#include <stddef.h>

/* A growing text buffer.  Allocation failure is sticky: later appends do
 * nothing and rbuf_take returns NULL. */
typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} rbuf;

/* An empty buffer (no allocation yet). */
void rbuf_init(rbuf *b);
/* Release the buffer's memory; the buffer is empty again. */
void rbuf_free(rbuf *b);
/* Append printf-style text. */
void rbuf_printf(rbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The same with a va_list (which it consumes). */
void rbuf_vprintf(rbuf *b, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;
/* Append a string. */
void rbuf_puts(rbuf *b, const char *s);
/* Append text filled into lines of at most `width` bytes: words (runs of
 * non-space bytes, which it never splits) joined by single spaces, the first
 * line after `first`, the others after `rest`, each line ended by '\n'.  A
 * word longer than a line gets a line of its own.  O(length). */
void rbuf_fill(rbuf *b, const char *first, const char *rest, size_t width, const char *text);
/* The text, owned by the caller (dnp_free()); NULL after an allocation
 * failure.  The buffer is empty afterwards. */
char *rbuf_take(rbuf *b);
/* Append the n bytes at s.  O(n) amortised. */
void rbuf_putn(rbuf *b, const char *s, size_t n);

#endif
