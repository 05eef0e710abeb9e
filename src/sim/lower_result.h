/*
 * lower_result.h - the simulated step of a plan (see lower.h): device
 * classes, the task graph, and the figures reported.
 */
#ifndef DNNPAR_LOWER_RESULT_H
#define DNNPAR_LOWER_RESULT_H

#include "sim/sim.h"

#define LOWER_MAX_DEPTH 64

/* Task phases (sim_task.phase). */
enum {
    PH_FWD = 0,     /* forward kernels */
    PH_BWD,         /* input-gradient kernels */
    PH_WGRAD,       /* weight-gradient kernels */
    PH_XCHG_FWD,    /* forward exchange: layout change or partial sums */
    PH_XCHG_BWD,    /* backward exchange */
    PH_GRAD_SYNC,   /* gradient all-reduce of a bucket */
    PH_OPTIM,       /* optimizer update */
    PH_HOST,        /* the host's issue of kernels so far (a task on no stream) */
    PH_COUNT
};

/* One device class. */
typedef struct {
    int path[LOWER_MAX_DEPTH + 1]; /* root .. leaf: indices of the strategy's groups */
    int depth;                /* levels above the leaf */
    int lo[LOWER_MAX_DEPTH], hi[LOWER_MAX_DEPTH]; /* classes under path[k]: [lo, hi) */
    double devices;           /* how many devices run this class's work */
    int type;                 /* device type index in the cluster */
    /* results */
    double compute_busy_s, xchg_busy_s, grad_busy_s;
    double recv_bytes;        /* bytes received by one device of the class */
    double param_elems;       /* parameters held by one device */
    double static_bytes;      /* weights, gradients, optimizer state */
    double act_bytes;         /* activations kept for backward */
    double buffer_bytes;      /* gradient-bucket buffers */
    double peak_bytes;        /* static + activations + buffers */
    double capacity_bytes;
} lower_class;

/* The simulated step of a plan. */
typedef struct {
    int n_classes;
    lower_class *classes;
    sim_graph sim;
    int n_ops;
    char **op_names;          /* graph op names, for traces (all in the block op_names[0]) */
    double step_time_s;
    int crit_class;           /* the class whose work ends last */
    double compute_s;         /* that class's compute busy time */
    double exposed_comm_s;    /* time its compute stream idles while some of its
                               * communication is in flight (<= comm_busy_s) */
    double comm_busy_s;       /* that class's exchange + gradient-sync busy time */
    double wait_s;            /* time its compute idles with none of its communication
                               * in flight: waiting for other classes' work;
                               * compute_s + exposed_comm_s + host_wait_s + wait_s =
                               * step_time_s */
    double host_wait_s;       /* time its compute idles, none of its communication in
                               * flight, until its host has issued the next kernel
                               * (PH_HOST; docs/device-model.md "Host dispatch") */
    double crit_path_compute_s, crit_path_comm_s; /* along the critical path */
    double mem_peak_bytes;    /* largest peak over classes */
    double mem_capacity_bytes;/* capacity of that class's device */
    int fits;                 /* every class within its limit */
    double *op_act_bytes;     /* per class c and op i, at [c * n_ops + i]: the activation
                               * bytes op i's forward adds to the class's act_bytes (its
                               * private buffers and its output kept for backward; the sum
                               * over i is act_bytes); NULL under the paper's accounting */
    double *node_compute_s;   /* per search-graph node, critical class */
    double *node_comm_s;
} lower_result;

void lower_result_free(lower_result *r);

#endif
