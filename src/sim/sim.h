/*
 * sim.h - the step simulator's engine: tasks on in-order streams with
 * dependencies (docs/time-model.md, "The step simulator").
 *
 * A stream is a queue that runs its tasks one at a time in the order they
 * were issued, as a CUDA stream or an NCCL communicator does.  A task may
 * occupy several streams at once (a collective occupies the communication
 * stream of every device class taking part) and starts when every task it
 * depends on has ended and every stream it occupies is free.  Tasks are
 * issued in an order consistent with their dependencies (program order),
 * so one pass in issue order is an exact discrete-event simulation of this
 * machine: each task's start and end are its two events, and ties cannot
 * reorder anything because every stream is FIFO.
 */
#ifndef DNNPAR_SIM_H
#define DNNPAR_SIM_H

#include "dnnpar.h"

typedef enum {
    SIM_COMPUTE = 0, /* kernels on a device */
    SIM_COMM,        /* a collective or exchange on a link tier */
    SIM_KIND_COUNT
} sim_kind;

typedef struct {
    double dur_s;      /* duration once started */
    int kind;          /* sim_kind */
    int label;         /* caller's label (op index), -1 if none */
    int phase;         /* caller's phase tag (forward, backward, ...) */
    int first_stream;  /* streams occupied: streams[first_stream .. first_stream+n_streams) */
    int n_streams;
    int first_dep;     /* dependencies: deps[first_dep .. first_dep+n_deps) */
    int n_deps;
    double start_s, end_s; /* filled by sim_run */
    int crit_pred;     /* the task whose end set this task's start (-1: time 0) */
} sim_task;

typedef struct {
    int n_streams;
    int n_tasks, cap_tasks;
    sim_task *tasks;
    int n_refs, cap_refs;
    int *refs;         /* stream and dependency indices of all tasks */
    int oom;           /* an allocation failed; sim_run reports it */
} sim_graph;

/* Start an empty graph with n_streams streams.  Free with sim_free. */
void sim_init(sim_graph *g, int n_streams);
void sim_free(sim_graph *g);

/* Issue a task that occupies `n_streams` streams and waits for `n_deps`
 * earlier tasks (indices < the new task's, others are ignored).  Returns
 * its index, or -1 on allocation failure (also recorded in g->oom).
 * Amortised O(n_streams + n_deps). */
int sim_add(sim_graph *g, sim_kind kind, double dur_s, int label, int phase,
            const int *streams, int n_streams, const int *deps, int n_deps);

/* Run the step: fill start_s / end_s / crit_pred of every task.  Returns
 * the makespan in seconds.  O(tasks + references). */
double sim_run(sim_graph *g);

/* Busy time of stream s over the step: the sum of its tasks' durations
 * (tasks on one stream never overlap).  O(tasks). */
double sim_stream_busy_s(const sim_graph *g, int s);

/* sim_stream_busy_s of streams 0 .. n-1 at once into busy_s[0..n) (a task
 * on several of them counts once on each; streams >= n ignored).
 * O(tasks + references). */
void sim_streams_busy_s(const sim_graph *g, int n, double *busy_s);

/* Exposed communication of a device (docs/time-model.md "The simulator"):
 * the time during which some task on one of comm_streams is in flight and
 * no task runs on compute_stream.  Run sim_run first.  A union of spans is
 * no longer than the sum of their lengths, so the result is at most the
 * comm streams' busy time; it lies where the compute stream is idle, so it
 * is at most the makespan minus that stream's busy time.  An allocation
 * failure is recorded in g->oom (result 0).  O(tasks log tasks). */
double sim_exposed_s(sim_graph *g, int compute_stream, const int *comm_streams,
                     int n_comm_streams);

#endif
