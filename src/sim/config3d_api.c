/*
 * config3d_api.c - dnp_config3d_check, _simulate and _trace (dnnpar/
 * config3d.h): a configuration becomes a strategy (c3_strategy_of's
 * c3_strategy_from_layout) and goes through the one lowering
 * (sim/lower_any.h), which for a pipelined strategy is the 3D lowering
 * (sim/lower3d.h; docs/config3d.md, "The 3D lowering").
 */
#include "dnnpar.h"
#include "sim/config3d_int.h"
#include "sim/config3d_stages.h"
#include "sim/lower_any.h"

#include <string.h>

/* Check cfg and, with simulate, simulate it: the configuration as a
 * strategy (c3_strategy_from_layout) lowered by the one lowering
 * (sim/lower_any.h: here the 3D lowering, sim/lower3d.h), which reads
 * every decision from the strategy.  The one
 * path of dnp_config3d_check, _simulate and _trace, so that they refuse
 * the same configurations with the same messages; the model and the
 * degrees are checked first, as c3_prepare does, since the strategy needs
 * them. */
static dnp_status checked_eval(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                               const dnp_plan_options *opt, const dnp_config3d *cfg,
                               int simulate, dnp_config3d_result *out, char **trace_json,
                               dnp_error *err)
{
    memset(out, 0, sizeof *out);
    dnp_transformer_layout *lay = NULL;
    c3_shape sh;
    plan_strategy *s = NULL;
    dnp_status st = c3_read_model(g, &lay, &sh, err);
    if (st == DNP_OK)
        st = c3_check_degrees(cfg, c, err);
    if (st == DNP_OK)
        st = c3_strategy_from_layout(g, lay, c, cfg, batch, &s, err);
    dnp_transformer_layout_free(lay);
    if (st == DNP_OK) { /* the one lowering (sim/lower_any.h) */
        lower_context m = {.model = dnp_graph_name(g), .cl = c};
        sim_lowered r;
        st = sim_lower(g, s, &m, opt, simulate ? 0 : SIM_LOWER_SIZE_ONLY, trace_json != NULL,
                       &r, err);
        *out = r.pipeline;
        if (trace_json != NULL) {
            *trace_json = r.trace_json;
            r.trace_json = NULL;
        }
        sim_lowered_free(&r);
    }
    plan_strategy_free(s);
    return st;
}

dnp_status dnp_config3d_check(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                              const dnp_plan_options *opt, const dnp_config3d *cfg,
                              dnp_config3d_result *out, dnp_error *err)
{
    return checked_eval(g, c, batch, opt, cfg, 0, out, NULL, err);
}

dnp_status dnp_config3d_simulate(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                                 const dnp_plan_options *opt, const dnp_config3d *cfg,
                                 dnp_config3d_result *out, dnp_error *err)
{
    return checked_eval(g, c, batch, opt, cfg, 1, out, NULL, err);
}

dnp_status dnp_config3d_trace(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                              const dnp_plan_options *opt, const dnp_config3d *cfg, char **out,
                              dnp_error *err)
{
    *out = NULL;
    dnp_config3d_result res;
    return checked_eval(g, c, batch, opt, cfg, 1, &res, out, err);
}
