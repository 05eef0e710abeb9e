/*
 * lower_any.h - the one lowering: lower(graph, strategy, machine) whatever
 * the strategy holds (issue 34 item 3; docs/architecture.md, "The next
 * shape"; docs/time-model.md, "One lowering").  A strategy with device
 * groups (AccPar's tree, plan/tree.h) is lowered op by op by
 * lower_simulate (sim/lower.h); one with pipeline stages, a "data" x
 * "model" mesh and a schedule (a Megatron-LM configuration,
 * c3_strategy_of) by the 3D lowering (sim/lower3d.h).  Callers (the
 * planner, the 3D search, dnp_config3d_*) call this and never choose.
 *
 * sim/ (layer 6): it reads plan/'s strategy, nothing of the searches.
 */
#ifndef DNNPAR_LOWER_ANY_H
#define DNNPAR_LOWER_ANY_H

#include "dnnpar.h"
#include "plan/strategy.h"
#include "sim/lower.h"
#include "sim/lower_result.h"

/* Which lowering ran (sim_lowered.kind). */
enum { SIM_LOWERED_GROUPS = 1, SIM_LOWERED_PIPELINE = 2 };

/* Flags of sim_lower for a pipelined strategy (C3_LOWER_* of
 * sim/lower3d.h): 0 checks, sizes and simulates; SIM_LOWER_SIZE_ONLY
 * checks and sizes (no step time); SIM_LOWER_CHECKED only simulates (the
 * caller has checked the configuration's rules and memory: the 3D
 * search).  A tree strategy is always simulated. */
enum { SIM_LOWER_SIZE_ONLY = 1, SIM_LOWER_CHECKED = 2 };

/* A lowered strategy: `groups` for SIM_LOWERED_GROUPS (free with
 * sim_lowered_free), `pipeline` for SIM_LOWERED_PIPELINE; trace_json a
 * pipeline's Chrome trace when asked for (dnp_free; sim_lowered_free
 * frees it). */
typedef struct {
    int kind;
    lower_result groups;
    dnp_config3d_result pipeline;
    char *trace_json;
} sim_lowered;

/* Lower strategy s of graph g on the machine and run of m (m->cl the
 * cluster; lower_simulate reads the rest, the 3D lowering only the
 * cluster) with options opt, and simulate one step of s->batch samples:
 * device groups (s->n_groups > 0) by lower_simulate, stages with a
 * schedule (s->schedule.set) by c3_lower, as `flags` says; with trace
 * (pipelines) also the step's Chrome trace.  *out is zeroed first and
 * owns what it holds (sim_lowered_free).  DNP_ERR_INPUT naming what for
 * a strategy neither lowering takes, or their own refusals;
 * DNP_ERR_NOMEM.  O(the lowering's). */
dnp_status sim_lower(const dnp_graph *g, const plan_strategy *s, const lower_context *m,
                     const dnp_plan_options *opt, int flags, int trace, sim_lowered *out,
                     dnp_error *err);

/* Free what r holds (not r); zeroes it.  NULL is a no-op.  O(classes). */
void sim_lowered_free(sim_lowered *r);

#endif
