/*
 * lower_any.c - the one lowering (sim/lower_any.h): dispatch by what the
 * strategy holds.
 */
#include "sim/lower_any.h"
#include "core/alloc.h"
#include "sim/lower3d.h"

#include <string.h>

dnp_status sim_lower(const dnp_graph *g, const plan_strategy *s, const lower_context *m,
                     const dnp_plan_options *opt, int flags, int trace, sim_lowered *out,
                     dnp_error *err)
{
    memset(out, 0, sizeof *out);
    if (s->n_groups > 0) {
        out->kind = SIM_LOWERED_GROUPS;
        return lower_simulate(s, m, g, opt, &out->groups, err);
    }
    if (s->schedule.set && s->n_stages > 0) {
        out->kind = SIM_LOWERED_PIPELINE;
        const int mode = (flags & SIM_LOWER_CHECKED)     ? C3_LOWER_STEP
                         : (flags & SIM_LOWER_SIZE_ONLY) ? C3_LOWER_CHECK
                                                         : C3_LOWER_SIMULATE;
        return c3_lower(g, s, m->cl, opt, mode, &out->pipeline,
                        trace ? &out->trace_json : NULL, err);
    }
    dnp_error_set(err, DNP_ERR_INPUT,
                  "lowering: the strategy of %s has neither device groups (a tree) nor "
                  "pipeline stages with a schedule (a Megatron-LM configuration)",
                  dnp_graph_name(g));
    return DNP_ERR_INPUT;
}

void sim_lowered_free(sim_lowered *r)
{
    if (r == NULL)
        return;
    if (r->kind == SIM_LOWERED_GROUPS)
        lower_result_free(&r->groups);
    dnp_free(r->trace_json);
    memset(r, 0, sizeof *r);
}
