/*
 * sim.c - the step simulator's engine (sim.h): in-order streams, tasks
 * with dependencies, one pass in issue order.
 */
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>

void sim_init(sim_graph *g, int n_streams)
{
    memset(g, 0, sizeof *g);
    g->n_streams = n_streams;
}

void sim_free(sim_graph *g)
{
    if (g == NULL)
        return;
    dnp_free(g->tasks);
    dnp_free(g->refs);
    memset(g, 0, sizeof *g);
}

/* Make room for `more` entries in a growable array; 0 on failure. */
static int grow(void **arr, int *cap, int used, int more, size_t elem)
{
    if (used + more <= *cap)
        return 1;
    int n = *cap ? *cap : 256;
    while (n < used + more) {
        if (n > (1 << 29))
            return 0;
        n *= 2;
    }
    void *p = dnp_realloc(*arr, (size_t)n * elem);
    if (p == NULL)
        return 0;
    *arr = p;
    *cap = n;
    return 1;
}

int sim_add(sim_graph *g, sim_kind kind, double dur_s, int label, int phase,
            const int *streams, int n_streams, const int *deps, int n_deps)
{
    if (g->oom)
        return -1;
    if (!grow((void **)&g->tasks, &g->cap_tasks, g->n_tasks, 1, sizeof *g->tasks) ||
        !grow((void **)&g->refs, &g->cap_refs, g->n_refs, n_streams + n_deps, sizeof *g->refs)) {
        g->oom = 1;
        return -1;
    }
    int id = g->n_tasks++;
    sim_task *t = &g->tasks[id];
    memset(t, 0, sizeof *t);
    t->dur_s = dur_s > 0.0 ? dur_s : 0.0;
    t->kind = kind;
    t->label = label;
    t->phase = phase;
    t->first_stream = g->n_refs;
    for (int i = 0; i < n_streams; i++)
        if (streams[i] >= 0 && streams[i] < g->n_streams)
            g->refs[g->n_refs++] = streams[i];
    t->n_streams = g->n_refs - t->first_stream;
    t->first_dep = g->n_refs;
    for (int i = 0; i < n_deps; i++)
        if (deps[i] >= 0 && deps[i] < id)
            g->refs[g->n_refs++] = deps[i];
    t->n_deps = g->n_refs - t->first_dep;
    t->crit_pred = -1;
    return id;
}

double sim_run(sim_graph *g)
{
    /* last[s]: the last task issued so far on stream s (FIFO order). */
    int *last = dnp_malloc((size_t)(g->n_streams > 0 ? g->n_streams : 1) * sizeof *last);
    if (last == NULL) {
        g->oom = 1;
        return 0.0;
    }
    for (int s = 0; s < g->n_streams; s++)
        last[s] = -1;
    double makespan_s = 0.0;
    for (int i = 0; i < g->n_tasks; i++) {
        sim_task *t = &g->tasks[i];
        double start_s = 0.0;
        int pred = -1;
        /* Ties keep the earliest-issued predecessor: deterministic. */
        for (int k = 0; k < t->n_deps; k++) {
            int d = g->refs[t->first_dep + k];
            if (g->tasks[d].end_s > start_s || (pred < 0 && g->tasks[d].end_s == start_s)) {
                start_s = g->tasks[d].end_s;
                pred = d;
            }
        }
        for (int k = 0; k < t->n_streams; k++) {
            int s = g->refs[t->first_stream + k];
            int prev = last[s];
            if (prev >= 0 && g->tasks[prev].end_s > start_s) {
                start_s = g->tasks[prev].end_s;
                pred = prev;
            }
            last[s] = i;
        }
        t->start_s = start_s;
        t->end_s = start_s + t->dur_s;
        t->crit_pred = pred;
        if (t->end_s > makespan_s)
            makespan_s = t->end_s;
    }
    dnp_free(last);
    return makespan_s;
}

double sim_stream_busy_s(const sim_graph *g, int s)
{
    double busy_s = 0.0;
    for (int i = 0; i < g->n_tasks; i++) {
        const sim_task *t = &g->tasks[i];
        for (int k = 0; k < t->n_streams; k++)
            if (g->refs[t->first_stream + k] == s) {
                busy_s += t->dur_s;
                break;
            }
    }
    return busy_s;
}

void sim_streams_busy_s(const sim_graph *g, int n, double *busy_s)
{
    for (int s = 0; s < n; s++)
        busy_s[s] = 0.0;
    for (int i = 0; i < g->n_tasks; i++) {
        const sim_task *t = &g->tasks[i];
        for (int k = 0; k < t->n_streams; k++) {
            int s = g->refs[t->first_stream + k];
            int dup = 0; /* a stream named twice by one task counts once */
            for (int j = 0; j < k && !dup; j++)
                dup = g->refs[t->first_stream + j] == s;
            if (s >= 0 && s < n && !dup)
                busy_s[s] += t->dur_s;
        }
    }
}

typedef struct {
    double a_s, b_s; /* [start, end) of a task */
} span;

static int cmp_span(const void *x, const void *y)
{
    const span *p = x, *q = y;
    if (p->a_s != q->a_s)
        return p->a_s < q->a_s ? -1 : 1;
    if (p->b_s != q->b_s)
        return p->b_s < q->b_s ? -1 : 1;
    return 0;
}

static int on_stream(const sim_graph *g, const sim_task *t, int s)
{
    for (int k = 0; k < t->n_streams; k++)
        if (g->refs[t->first_stream + k] == s)
            return 1;
    return 0;
}

/* The measure of (union of the spans of tasks on comm_streams) minus (the
 * spans of tasks on compute_stream): for each merged span [a, b) of the
 * union, its length less its overlap with the compute spans, which are
 * disjoint and in time order because the stream is FIFO. */
double sim_exposed_s(sim_graph *g, int compute_stream, const int *comm_streams,
                     int n_comm_streams)
{
    int n = g->n_tasks, n_comm = 0, n_comp = 0;
    span *comm = dnp_malloc((size_t)(n > 0 ? n : 1) * sizeof *comm);
    span *comp = dnp_malloc((size_t)(n > 0 ? n : 1) * sizeof *comp);
    if (comm == NULL || comp == NULL) {
        dnp_free(comm);
        dnp_free(comp);
        g->oom = 1;
        return 0.0;
    }
    for (int i = 0; i < n; i++) {
        const sim_task *t = &g->tasks[i];
        if (!(t->end_s > t->start_s))
            continue;
        span sp = {t->start_s, t->end_s};
        if (on_stream(g, t, compute_stream)) {
            comp[n_comp++] = sp;
            continue;
        }
        for (int k = 0; k < n_comm_streams; k++)
            if (on_stream(g, t, comm_streams[k])) {
                comm[n_comm++] = sp;
                break;
            }
    }
    qsort(comm, (size_t)n_comm, sizeof *comm, cmp_span);
    double exposed_s = 0.0;
    int j = 0; /* first compute span that may still overlap */
    for (int i = 0; i < n_comm;) {
        double a = comm[i].a_s, b = comm[i].b_s;
        for (i++; i < n_comm && comm[i].a_s <= b; i++)
            b = comm[i].b_s > b ? comm[i].b_s : b;
        while (j < n_comp && comp[j].b_s <= a)
            j++;
        double covered_s = 0.0;
        for (int k = j; k < n_comp && comp[k].a_s < b; k++) {
            double lo = comp[k].a_s > a ? comp[k].a_s : a, hi = comp[k].b_s < b ? comp[k].b_s : b;
            if (hi > lo)
                covered_s += hi - lo;
        }
        if (b - a > covered_s)
            exposed_s += (b - a) - covered_s;
    }
    dnp_free(comm);
    dnp_free(comp);
    return exposed_s;
}
