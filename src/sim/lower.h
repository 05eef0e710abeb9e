/*
 * lower.h - from a decided strategy (plan/strategy.h, the one strategy
 * type: its device groups, whichever search decided them) to one simulated
 * training step (docs/time-model.md, "The default model").
 *
 * The strategy's device groups are walked once from the root; every
 * distinct root-to-leaf path (identical halves are one group) is a *device
 * class*: the devices that run exactly the same work.  Each class gets
 * three in-order streams: compute,
 * exchanges (the layout changes and partial sums a strategy implies, which
 * block the next layer), and gradient synchronisation (the data-parallel
 * all-reduce, bucketed and overlapped with the backward pass as PyTorch
 * DDP does).  Every op's forward, input-gradient and weight-gradient
 * kernels are timed by the device model (src/perf/device_model.h) at the
 * class's shares; every exchange by the collective model
 * (src/net/collective.c) on the link tier the split spans.
 *
 * This is sim/ (layer 6): it reads plan/'s strategy and the run context
 * below, and nothing of the search that decided them.
 */
#ifndef DNNPAR_LOWER_H
#define DNNPAR_LOWER_H

#include "plan/layer_table.h"
#include "plan/strategy.h"
#include "sim/lower_result.h"

/* What the lowering reads beside a strategy: the machine and the run, all
 * borrowed from the caller (search/plan.c: plan_lower_context). */
typedef struct {
    const char *model;          /* the model's name, for messages */
    const dnp_cluster *cl;      /* device types and link tiers the groups' counts index */
    const layer_table *lt;      /* the graph's layer table: row v is the strategy's ops[v] */
    char *const *node_names;    /* per row: its op's name (lower_device_comm's messages) */
    const double *pace;         /* [cl->n_types]: straggler factor of each type's kernel
                                 * times (perf_straggler_pace); 0 stands for 1 */
    double deadline_s;          /* core/clock.h deadline of the run (0 = none) */
    double time_limit_s;        /* the limit it came from, for the message */
} lower_context;

/* Lower strategy s (its device groups decided, ops[v] row v of m->lt;
 * everything borrowed) for graph g, the graph m->lt was built for, and
 * simulate one step of s->batch samples with the options' precision,
 * optimizer and overlap.  The memory limit is opt->memory_limit_bytes
 * (> 0), else each device's capacity.  On success fills *out (free with
 * lower_result_free; its classes' paths are indices of s's groups).  The
 * run's deadline (m->deadline_s, the command's one time limit; 0 = none)
 * is read once per op and pass: past it nothing is reported
 * (DNP_ERR_INPUT, "time limit of S s reached while simulating the step of
 * MODEL (C device classes, N ops)"; the other DNP_ERR_INPUTs are a tree
 * deeper than LOWER_MAX_DEPTH and a strategy without groups or whose ops
 * are not m->lt's rows).  O(classes x (ops + levels x edges)). */
dnp_status lower_simulate(const plan_strategy *s, const lower_context *m, const dnp_graph *g,
                          const dnp_plan_options *opt, lower_result *out, dnp_error *err);

/* The paper's accounting as a simulated step (docs/time-model.md): one
 * device class (all of s's root group) whose ops run one after the other,
 * each op's communication (t_s[v] - tc_s[v]: the search's time of op
 * s->ops[v] at the root, Table 4/5 through Eq. 7) then its compute
 * (tc_s[v], Eq. 8) on two streams; t_s and tc_s have s->n_ops entries
 * (borrowed).  With this input the simulator reproduces the analytical
 * step time exactly; it is how `dnnpar` checks its engine against the
 * paper's model.  Fills *out (lower_result_free).  DNP_ERR_INPUT for a
 * strategy without groups.  O(ops). */
dnp_status lower_paper(const plan_strategy *s, const double *t_s, const double *tc_s,
                       lower_result *out, dnp_error *err);

/* The executed accounting of strategy s (dnnpar.h, dnp_plan_device_comm,
 * whose contract this is: what s's devices send and receive, device by
 * device, at bytes_per_elem > 0) on graph g, with the context m as for
 * lower_simulate; `sim` (NULL: none) is s's simulated step (lower_simulate
 * of s or of a strategy with the same groups), whose classes give each
 * device's sim_received_bytes (NaN without).  On success *out (dnp_free)
 * holds *n_devices records.  DNP_ERR_INPUT for more than
 * DNP_DEVCOMM_MAX_DEVICES devices, a graph that is not s's, a tree deeper
 * than 32 levels or a shard the rules cannot cut.  O(ops x devices^2 x
 * A), A the pieces a device's shard is cut into. */
dnp_status lower_device_comm(const plan_strategy *s, const lower_context *m,
                             const lower_result *sim, const dnp_graph *g, int bytes_per_elem,
                             dnp_device_comm **out, int *n_devices, dnp_error *err);

/* A simulated step as Chrome trace events (dnnpar.h, dnp_plan_trace_json):
 * one process per device class of r (its devices' types in cl), one thread
 * per stream, and a memory counter per class (r->op_act_bytes; trace.c).
 * The text is the caller's (dnp_free); NULL when out of memory.
 * O(tasks x classes + classes x ops log ops). */
char *lower_trace_json(const lower_result *r, const dnp_cluster *cl);

#endif
