/*
 * trace.c - a simulated step as Chrome trace events (lower.h,
 * lower_trace_json; the Trace Event Format read by chrome://tracing and
 * Perfetto; the text in trace_events.c): one process per device class with
 * one thread per stream.  The paper's accounting has its own trace, written
 * by the search that keeps its figures (search/plan_lowered.c).
 */
#include "sim/lower.h"
#include "sim/trace_events.h"

#include <stdio.h>

static const char *const phase_names[PH_COUNT] = {"forward",  "backward",      "weight gradient",
                                                  "exchange", "exchange",      "gradient all-reduce",
                                                  "optimizer"};

static void sim_events(trace_buf *b, const lower_result *r, const dnp_cluster *cl)
{
    static const char *const streams[3] = {"compute", "exchanges", "gradient sync"};
    for (int c = 0; c < r->n_classes; c++) {
        const lower_class *cls = &r->classes[c];
        const dnp_device_type *d = &cl->types[cls->type];
        char name[160];
        snprintf(name, sizeof name, "class %d: %.0f x %s%s%s", c + 1, cls->devices, d->name,
                 d->node[0] ? " in " : "", d->node);
        trace_meta(b, "process_name", c + 1, 0, name);
        for (int s = 0; s < 3; s++)
            trace_meta(b, "thread_name", c + 1, s + 1, streams[s]);
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
            trace_event(b, name, tk->kind == SIM_COMPUTE ? "compute" : "comm", s / 3 + 1,
                  s % 3 + 1, tk->start_s, tk->end_s);
        }
    }
}

char *lower_trace_json(const lower_result *r, const dnp_cluster *cl)
{
    trace_buf b;
    trace_begin(&b);
    sim_events(&b, r, cl);
    return trace_end(&b);
}
