/*
 * mpt_threads.c - a parallel-for over simulated workers on POSIX threads
 * (in glibc 2.34+ they need no -pthread; pthreads rather than C11
 * <threads.h> because ThreadSanitizer intercepts only the former).
 * Worker w always runs on thread w mod T and every worker writes only its
 * own state, so results do not depend on scheduling or on T.
 */
#include "arch/mpt/mpt_exec_int.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct {
    void *ctx;
    mpt_worker_fn fn;
    int first, n, stride;
} slice;

static void *run_slice(void *arg)
{
    const slice *s = arg;
    for (int w = s->first; w < s->n; w += s->stride)
        s->fn(s->ctx, w);
    return NULL;
}

dnp_status mpt_parallel_for(void *ctx, mpt_worker_fn fn, int n, int threads, dnp_error *err)
{
    if (threads > n)
        threads = n;
    if (threads <= 1) {
        for (int w = 0; w < n; w++)
            fn(ctx, w);
        return DNP_OK;
    }
    pthread_t *tid = dnp_malloc(sizeof *tid * (size_t)threads);
    slice *sl = dnp_malloc(sizeof *sl * (size_t)threads);
    if (tid == NULL || sl == NULL) {
        dnp_free(tid);
        dnp_free(sl);
        dnp_error_set(err, DNP_ERR_NOMEM, "MPT run: out of memory for %d threads", threads);
        return DNP_ERR_NOMEM;
    }
    int started = 0;
    dnp_status st = DNP_OK;
    for (int t = 0; t < threads; t++) {
        sl[t] = (slice){ctx, fn, t, n, threads};
        if (pthread_create(&tid[t], NULL, run_slice, &sl[t]) != 0) {
            dnp_error_set(err, DNP_ERR_INTERNAL, "MPT run: cannot start thread %d of %d", t,
                          threads);
            st = DNP_ERR_INTERNAL;
            break;
        }
        started++;
    }
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    dnp_free(tid);
    dnp_free(sl);
    return st;
}
