/*
 * trace.c - a plan's step as Chrome trace events (the Trace Event Format
 * read by chrome://tracing and Perfetto): under the default model one
 * process per device class with one thread per stream; under the paper's
 * accounting one process with the critical path of every op.
 *
 * Times are microseconds with three decimals.  Each event's end is
 * rounded, not its duration (dur = round(end) - round(start)), so events
 * that follow each other on a stream touch exactly.  The text is written
 * by hand with fixed formats, so the same plan gives the same bytes.
 */
#include "search/plan_internal.h"
#include "sim/lower.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *s;
    size_t n, cap;
    int oom;
} sbuf;

static void put(sbuf *b, const char *fmt, ...)
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
static void put_str(sbuf *b, const char *s)
{
    json_t *j = json_string(s);
    char *t = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    put(b, "%s", t ? t : "\"?\"");
    dnp_free(t);
    json_decref(j);
}

static double us3(double s) { return round(s * 1e9) / 1e3; }

static void event(sbuf *b, int *first, const char *name, const char *cat, int pid, int tid,
                  double start_s, double end_s)
{
    double ts = us3(start_s), te = us3(end_s);
    put(b, "%s\n{\"name\":", *first ? "" : ",");
    put_str(b, name);
    put(b, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}", cat,
        pid, tid, ts, te - ts);
    *first = 0;
}

static void meta(sbuf *b, int *first, const char *what, int pid, int tid, const char *name)
{
    put(b, "%s\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", *first ? "" : ",",
        what, pid, tid);
    put_str(b, name);
    put(b, "}}");
    *first = 0;
}

static const char *const phase_names[PH_COUNT] = {"forward",  "backward",      "weight gradient",
                                                  "exchange", "exchange",      "gradient all-reduce",
                                                  "optimizer"};

static void sim_events(sbuf *b, int *first, const dnp_plan *p)
{
    const lower_result *r = &p->sim;
    static const char *const streams[3] = {"compute", "exchanges", "gradient sync"};
    for (int c = 0; c < r->n_classes; c++) {
        const lower_class *cls = &r->classes[c];
        const dnp_device_type *d = &p->cl.types[cls->type];
        char name[160];
        snprintf(name, sizeof name, "class %d: %.0f x %s%s%s", c + 1, cls->devices, d->name,
                 d->node[0] ? " in " : "", d->node);
        meta(b, first, "process_name", c + 1, 0, name);
        for (int s = 0; s < 3; s++)
            meta(b, first, "thread_name", c + 1, s + 1, streams[s]);
    }
    for (int t = 0; t < r->sim.n_tasks; t++) {
        const sim_task *tk = &r->sim.tasks[t];
        if (!(tk->dur_s > 0.0))
            continue;
        char name[200];
        const char *ph = tk->phase >= 0 && tk->phase < PH_COUNT ? phase_names[tk->phase] : "?";
        if (tk->label >= 0 && tk->label < r->n_ops)
            snprintf(name, sizeof name, "%s %s", r->op_names[tk->label], ph);
        else
            snprintf(name, sizeof name, "%s", ph);
        for (int k = 0; k < tk->n_streams; k++) {
            int s = r->sim.refs[tk->first_stream + k];
            event(b, first, name, tk->kind == SIM_COMPUTE ? "compute" : "comm", s / 3 + 1,
                  s % 3 + 1, tk->start_s, tk->end_s);
        }
    }
}

/* The paper's accounting: every op's communication then its compute, one
 * after the other, on two threads. */
static void paper_events(sbuf *b, int *first, const dnp_plan *p)
{
    meta(b, first, "process_name", 1, 0, "critical path (paper accounting)");
    meta(b, first, "thread_name", 1, 1, "communication");
    meta(b, first, "thread_name", 1, 2, "compute");
    double t_s = 0.0;
    for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
        double cs, ms;
        dnp_plan_node_times(p, v, &cs, &ms);
        const char *name = dnp_plan_node_name(p, v);
        if (ms > 0.0)
            event(b, first, name, "comm", 1, 1, t_s, t_s + ms);
        t_s += ms;
        if (cs > 0.0)
            event(b, first, name, "compute", 1, 2, t_s, t_s + cs);
        t_s += cs;
    }
}

char *dnp_plan_trace_json(const dnp_plan *p)
{
    sbuf b = {0};
    int first = 1;
    put(&b, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
    if (p->has_sim)
        sim_events(&b, &first, p);
    else
        paper_events(&b, &first, p);
    put(&b, "\n]}\n");
    if (b.oom) {
        dnp_free(b.s);
        return NULL;
    }
    return b.s;
}
