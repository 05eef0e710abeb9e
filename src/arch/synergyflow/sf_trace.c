/*
 * sf_trace.c - the simulator's timeline as a Chrome trace (the JSON
 * "traceEvents" format of chrome://tracing and Perfetto).
 *
 * Tracks: 0 the C-Engine (MonoArch: the engine), 1 the F-Engine, 2 the
 * DRAM channel.  A span is one stage of one instance ("dbn-m#12 FF.F");
 * blocks of the same stage that follow each other without a gap merge
 * into one span, so the file grows with stages, not blocks.  Times are
 * microseconds with three decimals (deterministic text): start and end
 * rounded to the nanosecond, the duration their difference.
 */
#include "arch/synergyflow/synergyflow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N_TRACKS = 3 };

typedef struct {
    int open;
    double t0, t1;
    int64_t instance;
    int model, phase, engine, is_store;
} span;

struct sf_trace {
    FILE *f;
    const sf_workload *w;
    int64_t written, dropped, max_events;
    int failed;
    span pending[N_TRACKS];
    sf_sim_sink sink;
};

/* s as the inside of a JSON string (model names come from file names):
 * '"' and '\\' escaped, control characters as \\u00XX; cut to fit n. */
static const char *json_inside(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    for (; *s != '\0' && k + 7 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            buf[k++] = '\\';
            buf[k++] = (char)c;
        } else if (c < 0x20) {
            k += (size_t)snprintf(buf + k, n - k, "\\u%04x", c);
        } else {
            buf[k++] = (char)c;
        }
    }
    buf[k] = '\0';
    return buf;
}

static void write_event(sf_trace *t, int track, const span *s)
{
    if (t->written >= t->max_events) {
        t->dropped++;
        return;
    }
    char esc[160];
    const char *model = (s->model >= 0 && s->model < t->w->n_models)
                            ? json_inside(t->w->models[s->model].name, esc, sizeof esc)
                            : "?";
    /* Start and end are rounded to the nanosecond and the duration is their
     * difference, so spans that touch in the simulation touch in the file
     * (rounding start and duration apart made 1 ns overlaps). */
    long long t0_ns = llround(s->t0 * 1e9), t1_ns = llround(s->t1 * 1e9);
    long long d_ns = t1_ns - t0_ns;
    int n;
    if (track == 2)
        n = fprintf(t->f,
                    ",\n{\"name\":\"%s#%lld %s %s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%lld.%03lld,"
                    "\"dur\":%lld.%03lld,\"pid\":1,\"tid\":2}",
                    model, (long long)s->instance, sf_phase_name((sf_phase)s->phase),
                    s->is_store ? "store" : "load", s->engine == 0 ? "C-Engine" : "F-Engine",
                    t0_ns / 1000, t0_ns % 1000, d_ns / 1000, d_ns % 1000);
    else
        n = fprintf(t->f,
                    ",\n{\"name\":\"%s#%lld %s\",\"cat\":\"compute\",\"ph\":\"X\",\"ts\":%lld.%03lld,"
                    "\"dur\":%lld.%03lld,\"pid\":1,\"tid\":%d}",
                    model, (long long)s->instance, sf_phase_name((sf_phase)s->phase),
                    t0_ns / 1000, t0_ns % 1000, d_ns / 1000, d_ns % 1000, track);
    if (n < 0)
        t->failed = 1;
    t->written++;
}

/* Extend the pending span of `track` or replace it (writing the old one). */
static void add(sf_trace *t, int track, const span *s)
{
    span *p = &t->pending[track];
    if (p->open && p->instance == s->instance && p->model == s->model && p->phase == s->phase &&
        p->engine == s->engine && p->is_store == s->is_store && p->t1 == s->t0) {
        p->t1 = s->t1;
        return;
    }
    if (p->open)
        write_event(t, track, p);
    *p = *s;
    p->open = 1;
}

static void on_compute(void *ctx, int engine, double t0_s, double t1_s, int64_t instance, int model,
                       sf_phase ph)
{
    span s = {1, t0_s, t1_s, instance, model, (int)ph, engine, 0};
    add(ctx, engine, &s);
}

static void on_memory(void *ctx, int engine, int is_store, double t0_s, double t1_s, double bytes,
                      int64_t instance, int model, sf_phase ph)
{
    (void)bytes;
    span s = {1, t0_s, t1_s, instance, model, (int)ph, engine, is_store};
    add(ctx, 2, &s);
}

/* Open the JSON and name the tracks.  O(1). */
sf_trace *sf_trace_new(FILE *f, const sf_workload *w, int mono, int64_t max_events)
{
    sf_trace *t = dnp_calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->f = f;
    t->w = w;
    t->max_events = max_events;
    t->sink.ctx = t;
    t->sink.compute = on_compute;
    t->sink.memory = on_memory;
    const char *names[N_TRACKS] = {mono ? "MonoArch" : "C-Engine", "F-Engine", "DRAM channel"};
    if (fprintf(f, "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,"
                   "\"args\":{\"name\":\"SynergyFlow model\"}}") < 0)
        t->failed = 1;
    for (int k = 0; k < N_TRACKS; k++) {
        if (mono && k == 1)
            continue;
        if (fprintf(f,
                    ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
                    "\"args\":{\"name\":\"%s\"}}",
                    k, names[k]) < 0)
            t->failed = 1;
    }
    return t;
}

const sf_sim_sink *sf_trace_sink(sf_trace *t) { return &t->sink; }

/* Flush pending spans in track order and close the array.  O(1). */
int sf_trace_finish(sf_trace *t)
{
    for (int k = 0; k < N_TRACKS; k++)
        if (t->pending[k].open) {
            write_event(t, k, &t->pending[k]);
            t->pending[k].open = 0;
        }
    if (fprintf(t->f, "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"spans_dropped\":%lld}}\n",
                (long long)t->dropped) < 0)
        t->failed = 1;
    if (fflush(t->f) != 0 || ferror(t->f))
        t->failed = 1;
    return t->failed ? -1 : 0;
}

int64_t sf_trace_dropped(const sf_trace *t) { return t->dropped; }

void sf_trace_free(sf_trace *t) { dnp_free(t); }
