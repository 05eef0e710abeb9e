/*
 * trace_events.c - Chrome trace event text (trace_events.h), kept in
 * memory or streamed to a file.
 */
#include "sim/trace_events.h"

#include "dnnpar.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* What a streamed document holds before it writes it out. */
#define TRACE_STREAM_CHUNK ((size_t)64 << 10)

/* Streaming: write what is held to b->f and empty the buffer. */
static void flush(trace_buf *b)
{
    if (b->n > 0 && fwrite(b->s, 1, b->n, b->f) != b->n)
        b->oom = 1;
    b->n = 0;
    if (b->s != NULL)
        b->s[0] = '\0';
}

static void put(trace_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(trace_buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)w < b->cap - b->n) {
            b->n += (size_t)w;
            if (b->f != NULL && b->n >= TRACE_STREAM_CHUNK)
                flush(b);
            return;
        }
        size_t cap = b->cap * 2 + (size_t)w + 64;
        char *p = dnp_realloc(b->s, cap);
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
}

/* A JSON string literal of s (quotes and escapes by jansson). */
static void put_str(trace_buf *b, const char *s)
{
    json_t *j = json_string(s);
    char *t = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    put(b, "%s", t ? t : "\"?\"");
    dnp_free(t);
    json_decref(j);
}

static double us3(double s) { return round(s * 1e9) / 1e3; }

void trace_begin(trace_buf *b)
{
    b->s = NULL;
    b->n = b->cap = 0;
    b->oom = 0;
    b->first = 1;
    b->f = NULL;
    put(b, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
}

void trace_begin_stream(trace_buf *b, FILE *f)
{
    trace_begin(b);
    b->f = f;
}

void trace_event(trace_buf *b, const char *name, const char *cat, int pid, int tid,
                 double start_s, double end_s)
{
    double ts = us3(start_s), te = us3(end_s);
    put(b, "%s\n{\"name\":", b->first ? "" : ",");
    put_str(b, name);
    put(b, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}", cat,
        pid, tid, ts, te - ts);
    b->first = 0;
}

void trace_meta(trace_buf *b, const char *what, int pid, int tid, const char *name)
{
    put(b, "%s\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
        b->first ? "" : ",", what, pid, tid);
    put_str(b, name);
    put(b, "}}");
    b->first = 0;
}

void trace_flow(trace_buf *b, int start, long long id, const char *name, const char *cat,
                int pid, int tid, double ts_s)
{
    put(b, "%s\n{\"name\":", b->first ? "" : ",");
    put_str(b, name);
    put(b, ",\"cat\":\"%s\",\"ph\":\"%s\",\"id\":%lld,\"pid\":%d,\"tid\":%d,\"ts\":%.3f}",
        cat, start ? "s" : "f\",\"bp\":\"e", id, pid, tid, us3(ts_s));
    b->first = 0;
}

void trace_counter(trace_buf *b, const char *name, int pid, double ts_s, int n,
                   const char *const *series, const double *value)
{
    put(b, "%s\n{\"name\":", b->first ? "" : ",");
    put_str(b, name);
    put(b, ",\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,\"args\":{", pid, us3(ts_s));
    for (int i = 0; i < n; i++) {
        put(b, "%s", i ? "," : "");
        put_str(b, series[i]);
        put(b, ":%.0f", value[i]);
    }
    put(b, "}}");
    b->first = 0;
}

char *trace_end(trace_buf *b)
{
    put(b, "\n]}\n");
    if (b->oom) {
        dnp_free(b->s);
        b->s = NULL;
        return NULL;
    }
    char *s = b->s;
    b->s = NULL;
    return s;
}

int trace_end_stream(trace_buf *b, const char *other_key, long long other_value)
{
    put(b, "\n]");
    if (other_key != NULL) {
        put(b, ",\"otherData\":{");
        put_str(b, other_key);
        put(b, ":%lld}", other_value);
    }
    put(b, "}\n");
    if (b->f != NULL) {
        flush(b);
        if (fflush(b->f) != 0 || ferror(b->f))
            b->oom = 1;
    }
    int failed = b->oom || b->f == NULL;
    trace_abandon(b);
    return failed ? -1 : 0;
}

void trace_abandon(trace_buf *b)
{
    dnp_free(b->s);
    b->s = NULL;
    b->n = b->cap = 0;
}
