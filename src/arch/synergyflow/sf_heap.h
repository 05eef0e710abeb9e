/*
 * sf_heap.h - the simulator's two priority queues: timed events ordered by
 * (time, sequence number), so events at equal times run in the order they
 * were scheduled (deterministic, as libuv's timer heap), and ready tasks
 * ordered by an integer key (oldest instance, then program order).
 */
#ifndef DNNPAR_SF_HEAP_H
#define DNNPAR_SF_HEAP_H

#include <stdint.h>

typedef struct {
    double t_s;   /* when */
    uint64_t seq; /* tie-break: scheduling order */
    int kind;     /* caller's event type */
    int engine;   /* caller's payload */
    int64_t gen;  /* caller's payload (e.g. a generation to detect stale events) */
} sf_event;

typedef struct {
    sf_event *v;
    int64_t n, cap;
    uint64_t next_seq;
} sf_event_heap;

/* Schedule an event (seq assigned here).  Returns 0, or -1 on allocation
 * failure.  O(log n). */
int sf_event_push(sf_event_heap *h, double t_s, int kind, int engine, int64_t gen);
/* Remove the earliest event into *e; 0 if the heap was empty.  O(log n). */
int sf_event_pop(sf_event_heap *h, sf_event *e);
/* Free the storage and empty the heap. */
void sf_event_heap_free(sf_event_heap *h);

typedef struct {
    int64_t *v;
    int64_t n, cap;
} sf_key_heap;

/* Insert a key; 0, or -1 on allocation failure.  O(log n). */
int sf_key_push(sf_key_heap *h, int64_t key);
/* Smallest key, or -1 if empty (keys are non-negative).  O(1). */
int64_t sf_key_top(const sf_key_heap *h);
/* Remove the smallest key.  O(log n). */
void sf_key_pop(sf_key_heap *h);
/* Free the storage and empty the heap. */
void sf_key_heap_free(sf_key_heap *h);

#endif
