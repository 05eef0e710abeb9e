/*
 * trace.c - a simulated step as Chrome trace events (lower.h,
 * lower_trace_json; the Trace Event Format read by chrome://tracing and
 * Perfetto; the text in trace_events.c): one process per device class with
 * one thread per stream, and a memory counter per class.  The paper's accounting has its own trace, written
 * by the search that keeps its figures (search/plan_lowered.c).
 */
#include "sim/lower.h"
#include "sim/trace_events.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const phase_names[PH_COUNT] = {"forward",  "backward",      "weight gradient",
                                                  "exchange", "exchange",      "gradient all-reduce",
                                                  "optimizer", "host"};

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

/* A change of a class's live activations: +bytes at an op's allocation,
 * -bytes at its release. */
typedef struct {
    double t_s, bytes;
} live_change;

static int cmp_change(const void *a, const void *b)
{
    const live_change *x = a, *y = b;
    if (x->t_s != y->t_s)
        return x->t_s < y->t_s ? -1 : 1;
    return (x->bytes > y->bytes) - (x->bytes < y->bytes); /* frees first */
}

/* Class c's memory counter (docs/reports.md, "Timelines"): per device of
 * the class, its weights, gradients, optimizer state and gradient buckets
 * (static_bytes + buffer_bytes) throughout, plus the activations of every
 * op (op_act_bytes) from its forward kernel's start to its backward
 * kernels' end, as lower.c accounts them, so the highest value is the
 * class's peak_bytes.  An op without a forward kernel on the class takes
 * the start of the next op's, one without backward kernels the end of the
 * next backward in program order (ops run backward in reverse order).
 * O(tasks + ops log ops); 0 or -1 (allocation failure). */
static int class_memory(trace_buf *b, const lower_result *r, const dnp_cluster *cl, int c)
{
    const int n = r->n_ops, stream = c * 3; /* the class's compute stream */
    double *fwd = dnp_malloc((size_t)(n + 1) * sizeof *fwd);
    double *bwd = dnp_malloc((size_t)(n + 1) * sizeof *bwd);
    live_change *ch = dnp_malloc((size_t)(2 * n + 1) * sizeof *ch);
    if (fwd == NULL || bwd == NULL || ch == NULL) {
        dnp_free(fwd);
        dnp_free(bwd);
        dnp_free(ch);
        return -1;
    }
    double fwd_end = 0.0, bwd_end = 0.0, end_s = 0.0;
    for (int i = 0; i < n; i++)
        fwd[i] = bwd[i] = -1.0;
    for (int t = 0; t < r->sim.n_tasks; t++) {
        const sim_task *tk = &r->sim.tasks[t];
        end_s = tk->end_s > end_s ? tk->end_s : end_s;
        if (tk->kind != SIM_COMPUTE || tk->n_streams < 1 || r->sim.refs[tk->first_stream] != stream ||
            tk->label < 0 || tk->label >= n)
            continue;
        if (tk->phase == PH_FWD) {
            if (fwd[tk->label] < 0.0)
                fwd[tk->label] = tk->start_s;
            fwd_end = tk->end_s > fwd_end ? tk->end_s : fwd_end;
        } else if (tk->phase == PH_BWD || tk->phase == PH_WGRAD) {
            bwd[tk->label] = tk->end_s > bwd[tk->label] ? tk->end_s : bwd[tk->label];
            bwd_end = tk->end_s > bwd_end ? tk->end_s : bwd_end;
        }
    }
    /* fill the gaps: forward from the next op's start, backward from the
     * end of the next backward run (the previous op's) */
    double next = fwd_end;
    for (int i = n - 1; i >= 0; i--)
        fwd[i] = fwd[i] >= 0.0 ? (next = fwd[i]) : next;
    next = bwd_end > 0.0 ? bwd_end : end_s;
    for (int i = 0; i < n; i++)
        bwd[i] = bwd[i] >= 0.0 ? (next = bwd[i]) : next;
    int n_ch = 0;
    for (int i = 0; i < n; i++) {
        double bytes = r->op_act_bytes[(size_t)c * (size_t)n + (size_t)i];
        if (!(bytes > 0.0))
            continue;
        ch[n_ch++] = (live_change){fwd[i], bytes};
        ch[n_ch++] = (live_change){bwd[i] > fwd[i] ? bwd[i] : fwd[i], -bytes};
    }
    qsort(ch, (size_t)n_ch, sizeof *ch, cmp_change);
    const lower_class *cls = &r->classes[c];
    const char *series[1] = {cl->types[cls->type].name};
    double v = cls->static_bytes + cls->buffer_bytes;
    static const char track[] = "memory per device (bytes)";
    if (n_ch == 0 || ch[0].t_s > 0.0)
        trace_counter(b, track, c + 1, 0.0, 1, series, &v);
    for (int k = 0; k < n_ch;) {
        double t_s = ch[k].t_s;
        for (; k < n_ch && ch[k].t_s == t_s; k++)
            v += ch[k].bytes;
        trace_counter(b, track, c + 1, t_s, 1, series, &v);
    }
    if (n_ch == 0 || end_s > ch[n_ch - 1].t_s)
        trace_counter(b, track, c + 1, end_s, 1, series, &v);
    dnp_free(fwd);
    dnp_free(bwd);
    dnp_free(ch);
    return 0;
}

char *lower_trace_json(const lower_result *r, const dnp_cluster *cl)
{
    trace_buf b;
    trace_begin(&b);
    sim_events(&b, r, cl);
    for (int c = 0; r->op_act_bytes != NULL && c < r->n_classes; c++)
        if (class_memory(&b, r, cl, c) != 0)
            b.oom = 1;
    return trace_end(&b);
}
