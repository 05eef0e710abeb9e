/*
 * lower.h - from a hierarchical plan to one simulated training step
 * (docs/time-model.md, "The default model").
 *
 * The plan's device tree is walked once; every distinct root-to-leaf path
 * (identical halves share one) is a *device class*: the devices that run
 * exactly the same work.  Each class gets three in-order streams: compute,
 * exchanges (the layout changes and partial sums a strategy implies, which
 * block the next layer), and gradient synchronisation (the data-parallel
 * all-reduce, bucketed and overlapped with the backward pass as PyTorch
 * DDP does).  Every op's forward, input-gradient and weight-gradient
 * kernels are timed by the device model (src/perf/device_model.h) at the
 * class's shares; every exchange by the collective model
 * (src/net/collective.c) on the link tier the split spans.
 */
#ifndef DNNPAR_LOWER_H
#define DNNPAR_LOWER_H

#include "search/plan_internal.h"

/* Lower plan p (its tree built and decided) for graph g and simulate one
 * step with the options' precision, optimizer and overlap.  The memory
 * limit is opt->memory_limit_bytes (> 0), else each device's capacity.
 * On success fills *out (free with lower_result_free).  The plan's
 * deadline (p->deadline_s, the command's one time limit; 0 = none) is read
 * once per op and pass: past it nothing is reported (DNP_ERR_INPUT, "time
 * limit of S s reached while simulating the step of MODEL (C device
 * classes, N ops)"; the plan's only other DNP_ERR_INPUT is a tree deeper
 * than LOWER_MAX_DEPTH).  O(classes x (ops + levels x edges)). */
dnp_status lower_simulate(const dnp_plan *p, const dnp_graph *g, const dnp_plan_options *opt,
                          lower_result *out, dnp_error *err);

/* The paper's accounting as a simulated step (docs/time-model.md): one
 * device class whose ops run one after the other, each op's communication
 * (t_v - compute_v at the root, Table 4/5 through Eq. 7) then its compute
 * (Eq. 8) on two streams.  With this input the simulator reproduces the
 * analytical step time exactly; it is how `dnnpar` checks its engine
 * against the paper's model.  Fills *out (lower_result_free).  O(nodes). */
dnp_status lower_paper(const dnp_plan *p, lower_result *out, dnp_error *err);

#endif
