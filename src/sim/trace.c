/*
 * trace.c - a plan's step as Chrome trace events (the Trace Event Format
 * read by chrome://tracing and Perfetto; the text in trace_events.c):
 * under the default model one process per device class with one thread
 * per stream; under the paper's accounting one process with the critical
 * path of every op.
 */
#include "search/plan_internal.h"
#include "sim/lower.h"
#include "sim/trace_events.h"

#include <stdio.h>

static const char *const phase_names[PH_COUNT] = {"forward",  "backward",      "weight gradient",
                                                  "exchange", "exchange",      "gradient all-reduce",
                                                  "optimizer"};

static void sim_events(trace_buf *b, const dnp_plan *p)
{
    const lower_result *r = &p->sim;
    static const char *const streams[3] = {"compute", "exchanges", "gradient sync"};
    for (int c = 0; c < r->n_classes; c++) {
        const lower_class *cls = &r->classes[c];
        const dnp_device_type *d = &p->cl.types[cls->type];
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

/* The paper's accounting: every op's communication then its compute, one
 * after the other, on two threads. */
static void paper_events(trace_buf *b, const dnp_plan *p)
{
    trace_meta(b, "process_name", 1, 0, "critical path (paper accounting)");
    trace_meta(b, "thread_name", 1, 1, "communication");
    trace_meta(b, "thread_name", 1, 2, "compute");
    double t_s = 0.0;
    for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
        double cs, ms;
        dnp_plan_node_times(p, v, &cs, &ms);
        const char *name = dnp_plan_node_name(p, v);
        if (ms > 0.0)
            trace_event(b, name, "comm", 1, 1, t_s, t_s + ms);
        t_s += ms;
        if (cs > 0.0)
            trace_event(b, name, "compute", 1, 2, t_s, t_s + cs);
        t_s += cs;
    }
}

char *dnp_plan_trace_json(const dnp_plan *p)
{
    trace_buf b;
    trace_begin(&b);
    if (p->has_sim)
        sim_events(&b, p);
    else
        paper_events(&b, p);
    return trace_end(&b);
}
