/*
 * sf_trace.c - the simulator's timeline as a Chrome trace (the JSON
 * "traceEvents" format of chrome://tracing and Perfetto).
 *
 * Tracks: 0 the C-Engine (MonoArch: the engine), 1 the F-Engine, 2 the
 * DRAM channel.  A span is one stage of one instance ("dbn-m#12 FF.F");
 * blocks of the same stage that follow each other without a gap merge
 * into one span, so the file grows with stages, not blocks.  The text is
 * the project's one trace writer's (sim/trace_events.h), streamed to the
 * file: times in microseconds with three decimals (deterministic text),
 * start and end rounded to the nanosecond, the duration their difference;
 * names escaped by jansson.
 */
#include "arch/synergyflow/synergyflow.h"
#include "sim/trace_events.h"

enum { N_TRACKS = 3 };

typedef struct {
    int open;
    double t0, t1;
    int64_t instance;
    int model, phase, engine, is_store;
} span;

struct sf_trace {
    trace_buf tb; /* the project's one trace writer, streaming to the file */
    const sf_workload *w;
    int64_t written, dropped, max_events;
    span pending[N_TRACKS];
    sf_sim_sink sink;
};

static void write_event(sf_trace *t, int track, const span *s)
{
    if (t->written >= t->max_events) {
        t->dropped++;
        return;
    }
    const char *model = (s->model >= 0 && s->model < t->w->n_models)
                            ? t->w->models[s->model].name
                            : "?";
    char name[256];
    if (track == 2)
        snprintf(name, sizeof name, "%s#%lld %s %s", model, (long long)s->instance,
                 sf_phase_name((sf_phase)s->phase), s->is_store ? "store" : "load");
    else
        snprintf(name, sizeof name, "%s#%lld %s", model, (long long)s->instance,
                 sf_phase_name((sf_phase)s->phase));
    /* trace_event rounds start and end to the nanosecond and writes their
     * difference, so spans that touch in the simulation touch in the file */
    trace_event(&t->tb, name,
                track == 2 ? (s->engine == 0 ? "C-Engine" : "F-Engine") : "compute", 1, track,
                s->t0, s->t1);
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
    t->w = w;
    t->max_events = max_events;
    t->sink.ctx = t;
    t->sink.compute = on_compute;
    t->sink.memory = on_memory;
    const char *names[N_TRACKS] = {mono ? "MonoArch" : "C-Engine", "F-Engine", "DRAM channel"};
    trace_begin_stream(&t->tb, f);
    trace_meta(&t->tb, "process_name", 1, 0, "SynergyFlow model");
    for (int k = 0; k < N_TRACKS; k++)
        if (!(mono && k == 1))
            trace_meta(&t->tb, "thread_name", 1, k, names[k]);
    return t;
}

const sf_sim_sink *sf_trace_sink(sf_trace *t) { return &t->sink; }

/* Flush pending spans in track order and close the document.  O(1). */
int sf_trace_finish(sf_trace *t)
{
    for (int k = 0; k < N_TRACKS; k++)
        if (t->pending[k].open) {
            write_event(t, k, &t->pending[k]);
            t->pending[k].open = 0;
        }
    return trace_end_stream(&t->tb, "spans_dropped", (long long)t->dropped);
}

int64_t sf_trace_dropped(const sf_trace *t) { return t->dropped; }

void sf_trace_free(sf_trace *t)
{
    if (t == NULL)
        return;
    trace_abandon(&t->tb);
    dnp_free(t);
}
