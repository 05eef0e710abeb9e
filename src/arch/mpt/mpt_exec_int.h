/*
 * mpt_exec_int.h - the internals shared by the files of the parallel
 * execution (mpt_exec*.c, mpt_ring.c, mpt_msg.c, mpt_threads.c).
 */
#ifndef DNNPAR_MPT_EXEC_INT_H
#define DNNPAR_MPT_EXEC_INT_H

#include "arch/mpt/mpt_exec.h"

#include <stddef.h>

/* ---- messages ----------------------------------------------------------- */

/* One message buffer from a worker to another in its cluster.  Values are
 * appended and then read back in the same order. */
typedef struct {
    float *vals;          /* values sent */
    unsigned char *flags; /* one flag per entry: zero-skip bitmap or activity map */
    unsigned char *codes; /* quantized codes */
    size_t cap;           /* capacity of each array */
    size_t n_vals, n_flags, n_codes;     /* written */
    size_t r_vals, r_flags, r_codes;     /* read */
    int code_bits;        /* bits per code (for the byte count) */
} mpt_msg;

/* Allocate the three arrays with `cap` entries; 0 on failure. */
int mpt_msg_init(mpt_msg *m, size_t cap);
void mpt_msg_free(mpt_msg *m);
/* Empty the message (keep the storage). */
void mpt_msg_reset(mpt_msg *m);
/* Bytes on the wire: 4 per value, 1 bit per flag, code_bits per code. */
double mpt_msg_bytes(const mpt_msg *m);
/* Append a value; with `skip_zero`, a flag per value and only non-zero
 * values.  Returns 1 if the value was left out. */
int mpt_msg_put(mpt_msg *m, float v, int skip_zero);
/* Read the next value written by mpt_msg_put with the same skip_zero. */
float mpt_msg_get(mpt_msg *m, int skip_zero);
void mpt_msg_put_flag(mpt_msg *m, int flag);
int mpt_msg_get_flag(mpt_msg *m);
void mpt_msg_put_code(mpt_msg *m, unsigned code);
unsigned mpt_msg_get_code(mpt_msg *m);

/* ---- threads ------------------------------------------------------------ */

typedef void (*mpt_worker_fn)(void *ctx, int worker);

/* Run fn(ctx, w) for every worker w in [0, n) on `threads` OS threads
 * (worker w on thread w mod threads; inline when threads <= 1) and wait for
 * all: a barrier.  DNP_ERR_INTERNAL if a thread cannot be started (then no
 * worker of this phase ran on it and the caller must fail). */
dnp_status mpt_parallel_for(void *ctx, mpt_worker_fn fn, int n, int threads, dnp_error *err);

/* ---- the run ------------------------------------------------------------ */

typedef struct {
    int g, c;                  /* group, cluster */
    int e0, e1;                /* tile elements of the group */
    int n0, n1;                /* tiles of the cluster (global indices) */
    int h0, h1;                /* home tiles of this worker */
    float *X, *Y, *dY, *dX;    /* [e1-e0][n1-n0][I or J] */
    float *dW;                 /* [e1-e0][I][J]: partial, then reduced */
    float *ring_out;           /* the chunk sent on the ring this step */
    double sent_scatter, sent_gather, sent_ring;
    double sum, sum2;          /* partial sums for the quantizer's sigma */
    long long count;           /* values in sum */
    long long scatter_values, skipped_values;
    long long units, predicted, actual;
} mpt_worker;

typedef struct {
    const mpt_wshape *s;
    mpt_wgeom g;
    const mpt_exec_opts *o;
    const float *x, *W, *dz;
    float *z, *dx, *dW;        /* results (internal copies until success) */
    float *dy;                 /* ReLU-masked output gradient, written by homes */
    float *dxt;                /* [N][I][t_h t_w]: B dX B^T per tile, written by homes */
    unsigned char *active;     /* [N][J][m_w]: gather unit predicted active */
    mpt_worker *w;             /* [c * ng + g] */
    mpt_msg *msg;              /* [(c * ng + src) * ng + dst] */
    int one_d;                 /* groups own whole tile rows */
    int predict;               /* prediction in force (relu, predict, ng > 1) */
    mpt_quantizer q;           /* quantizer of this step's gather */
    int ring_step;             /* current step of the all-reduce */
} mpt_run;

/* Worker of group g in cluster c, and the message from src to dst group
 * within cluster c. */
mpt_worker *mpt_run_worker(mpt_run *r, int g, int c);
mpt_msg *mpt_run_msg(mpt_run *r, int c, int src, int dst);
/* Receive worker wi's tile elements from every group of its cluster into
 * dst, laid out [element][row][width] (width: channels per row), in the
 * order the senders put them.  O(rows x width x elements). */
void mpt_run_gather(mpt_run *r, int wi, float *dst, size_t width);

/* Forward phases (mpt_exec_fwd.c): scatter of input tiles, products, the
 * gather with or without prediction, the inverse transform at the home. */
void mpt_fwd_scatter(void *run, int worker);
void mpt_fwd_products(void *run, int worker);
void mpt_fwd_sigma(void *run, int worker);
void mpt_fwd_send_codes(void *run, int worker);
void mpt_fwd_predict(void *run, int worker);
void mpt_fwd_send_values(void *run, int worker);
void mpt_fwd_inverse(void *run, int worker);
/* Backward phases (mpt_exec_bwd.c). */
void mpt_bwd_scatter(void *run, int worker);
void mpt_bwd_products(void *run, int worker);
void mpt_bwd_send(void *run, int worker);
void mpt_bwd_receive(void *run, int worker);
void mpt_bwd_overlap_add(void *run, int worker);
/* Ring all-reduce (mpt_ring.c): one step of reduce-scatter or all-gather;
 * set r->ring_step first.  Each step is two phases: put then take. */
void mpt_ring_put(void *run, int worker);
void mpt_ring_take_reduce(void *run, int worker);
void mpt_ring_take_gather(void *run, int worker);
/* Chunk k of a group's weight slice of `len` floats over nc workers. */
void mpt_ring_chunk(size_t len, int nc, int k, size_t *begin, size_t *end);

#endif
