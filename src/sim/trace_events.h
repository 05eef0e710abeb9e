/*
 * trace_events.h - the one writer of Chrome trace events (the Trace Event
 * Format read by chrome://tracing and Perfetto), shared by the simulated
 * step's trace (trace.c), the paper accounting's (search/plan_lowered.c),
 * a Megatron-LM configuration's (config3d.c) and SynergyFlow's timeline
 * (arch/synergyflow/sf_trace.c).  The text grows in memory (trace_begin,
 * trace_end) or streams to a file in pieces (trace_begin_stream,
 * trace_end_stream) for traces too large to hold; strings are escaped by
 * jansson.
 *
 * Times are microseconds with three decimals.  Each event's end is
 * rounded, not its duration (dur = round(end) - round(start)), so events
 * that follow each other on a thread touch exactly.  The text is written
 * with fixed formats, so the same events give the same bytes.
 */
#ifndef DNNPAR_TRACE_EVENTS_H
#define DNNPAR_TRACE_EVENTS_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    char *s;
    size_t n, cap;
    int oom;   /* an allocation (or, streaming, a write) failed */
    int first; /* no event written yet */
    FILE *f;   /* streaming: the text goes to f in pieces; NULL: it is kept */
} trace_buf;

/* Start the document ({"displayTimeUnit":"ms","traceEvents":[).  O(1). */
void trace_begin(trace_buf *b);
/* A complete event ("ph":"X") named `name` in category `cat` on process
 * pid, thread tid, from start_s to end_s (seconds).  O(length). */
void trace_event(trace_buf *b, const char *name, const char *cat, int pid, int tid,
                 double start_s, double end_s);
/* A metadata event: `what` is "process_name" or "thread_name".  O(length). */
void trace_meta(trace_buf *b, const char *what, int pid, int tid, const char *name);
/* One end of a flow arrow (Trace Event Format, "Flow Events": "ph":"s"
 * starts flow `id` and binds to the slice enclosing ts on (pid, tid);
 * "ph":"f" with "bp":"e" ends it on the slice enclosing ts there; a start
 * and its end carry the same name, category and id).  start is 1 for
 * "s", 0 for "f"; ts_s in seconds.  O(length). */
void trace_flow(trace_buf *b, int start, long long id, const char *name, const char *cat,
                int pid, int tid, double ts_s);
/* A counter sample (Trace Event Format, "Counter Events", "ph":"C"): the
 * track `name` of process pid takes from ts_s on the values of n series,
 * series[i] = value[i].  O(length). */
void trace_counter(trace_buf *b, const char *name, int pid, double ts_s, int n,
                   const char *const *series, const double *value);
/* Close the document and hand over its text (NUL-terminated, the caller
 * frees it with dnp_free), or NULL if an allocation failed (the buffer is
 * then freed).  O(1). */
char *trace_end(trace_buf *b);

/* Start a document written to f (borrowed; never closed here) as it
 * grows: at most about 64 KiB are held before they are written.  The
 * events are trace_begin's.  O(1). */
void trace_begin_stream(trace_buf *b, FILE *f);
/* Close a streamed document with "otherData": {other_key: other_value}
 * (other_key NULL: none), write what is held and flush f.  Frees the
 * buffer.  Returns 0, or -1 if an allocation or a write failed at any
 * point.  O(held text). */
int trace_end_stream(trace_buf *b, const char *other_key, long long other_value);
/* Free what a document that is not ended holds (after an error).  O(1). */
void trace_abandon(trace_buf *b);

#endif
