/*
 * lower3d.c - the 3D lowering (sim/lower3d.h; docs/config3d.md, "The 3D
 * lowering"): a pipelined mesh strategy read back into the decisions the
 * layer-granular Megatron-LM model (config3d.c) simulates, each checked
 * against what that model can represent, then prepared, sized and
 * simulated by it.
 */
#include "sim/lower3d.h"
#include "core/alloc.h"
#include "sim/config3d_int.h"
#include "sim/config3d_stages.h"
#include "topo/topology.h"

#include <string.h>

/* The names of c3_tp_role's values, for messages. */
static const char *role_name(int r)
{
    static const char *const names[] = {"nothing (a view)", "replicated", "column-parallel (n)",
                                        "row-parallel (c, partial output)", "heads",
                                        "features (c)", "vocab", "seq"};
    return r >= 0 && r <= C3_TP_SEQUENCE ? names[r] : "an unknown split";
}

int c3_role_of_splits(const plan_op *o, unsigned model)
{
    int role = C3_TP_NONE, n = 0;
    for (int k = 0; k < o->n_splits; k++) {
        const plan_split *sp = &o->split[k];
        if ((sp->axes & model) == 0u)
            continue;
        n++;
        if (strcmp(sp->dim, "n") == 0)
            role = C3_TP_COLUMN;
        else if (strcmp(sp->dim, "c") == 0)
            role = (o->out_partial & model) ? C3_TP_ROW : C3_TP_FEATURES;
        else if (strcmp(sp->dim, "heads") == 0)
            role = C3_TP_HEADS;
        else if (strcmp(sp->dim, "vocab") == 0)
            role = C3_TP_VOCAB;
        else if (strcmp(sp->dim, "seq") == 0)
            role = C3_TP_SEQUENCE;
        else
            return -1;
    }
    return n <= 1 ? role : -1;
}

/* The mesh of s as (tp, dp) with the masks of its "model" and "data"
 * axes: a missing axis has size 1; another axis or an uneven one is
 * refused. */
static dnp_status read_mesh(const plan_strategy *s, int *tp, int *dp, unsigned *model,
                            unsigned *data, dnp_error *err)
{
    *tp = *dp = 1;
    *model = *data = 0u;
    for (int a = 0; a < s->n_axes; a++) {
        const plan_axis *ax = &s->axis[a];
        const int is_model = strcmp(ax->name, "model") == 0;
        if (!is_model && strcmp(ax->name, "data") != 0) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "3D lowering: mesh axis %d '%s' is neither \"data\" nor \"model\"", a,
                          ax->name);
            return DNP_ERR_INPUT;
        }
        /* an even axis: position 0's share 1 / size, as c3_strategy_of writes it */
        if (ax->size < 1 || ax->share != 1.0 / ax->size || (is_model ? *model : *data) != 0u) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "3D lowering: mesh axis '%s' (size %d, share %g) must be one even axis",
                          ax->name, ax->size, ax->share);
            return DNP_ERR_INPUT;
        }
        *(is_model ? tp : dp) = ax->size;
        *(is_model ? model : data) = 1u << a;
    }
    return DNP_OK;
}

/* The degrees s decides into cfg (tp, dp from the mesh, pp the stages),
 * checked before the stages are walked (c3_check_degrees). */
static dnp_status read_degrees(const plan_strategy *s, int tp, int dp, dnp_config3d *cfg,
                               dnp_error *err)
{
    if (!s->schedule.set || s->n_stages < 1 || s->n_groups > 0) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "3D lowering: the strategy has %s (it needs pipeline stages and a "
                      "schedule: micro-batch, interleave, recompute ...)",
                      s->n_groups > 0      ? "device groups (a tree strategy: lower_simulate's)"
                      : !s->schedule.set ? "no schedule"
                                           : "no pipeline stage");
        return DNP_ERR_INPUT;
    }
    dnp_config3d_defaults(cfg);
    cfg->tp = tp;
    cfg->dp = dp;
    cfg->pp = s->n_stages;
    return DNP_OK;
}

/* The rest of the configuration s decides, into *cfg (read_degrees
 * first): the stages checked against Megatron-LM's rank order and their
 * ranks' device types, the schedule, the stages' layers when they were
 * chosen. */
static dnp_status read_config(const plan_strategy *s, const dnp_cluster *cl, int tp, int dp,
                              dnp_config3d *cfg, dnp_error *err)
{
    const plan_schedule *q = &s->schedule;
    const int64_t width = (int64_t)tp * dp;
    for (int st = 0; st < s->n_stages; st++)
        if (s->stage[st].first_rank != st * width || s->stage[st].n_ranks != width) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "3D lowering: stage %d holds ranks [%lld, %lld); Megatron-LM's order "
                          "puts it on [%lld, %lld) (tp %d x dp %d ranks a stage)",
                          st, (long long)s->stage[st].first_rank,
                          (long long)(s->stage[st].first_rank + s->stage[st].n_ranks),
                          (long long)(st * width), (long long)((st + 1) * width), tp, dp);
            return DNP_ERR_INPUT;
        }
    /* the device types each stage says it holds are its ranks' (the costs
     * are the ranks' types, src/topo/topology.h) */
    for (int st = 0; st < s->n_stages; st++) {
        const unsigned have = topo_types_strided(cl, st * width, width, 1);
        if (s->stage[st].types != have) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "3D lowering: stage %d says it holds device types 0x%x; its ranks "
                          "hold 0x%x",
                          st, s->stage[st].types, have);
            return DNP_ERR_INPUT;
        }
    }
    cfg->microbatch = q->microbatch;
    cfg->interleave = q->interleave;
    cfg->gpipe = q->gpipe;
    cfg->vp_group = q->vp_group;
    cfg->recompute = (dnp_recompute)q->recompute;
    cfg->zero = q->zero;
    cfg->grad_fp32 = q->grad_fp32;
    cfg->overlap_grad = q->overlap_grad;
    cfg->overlap_param = q->overlap_param;
    cfg->tp_overlap = q->tp_overlap;
    cfg->n_stage_layers = q->listed_stages;
    for (int st = 0; st < s->n_stages && st < DNP_CONFIG3D_MAX_STAGES; st++)
        cfg->stage_layers[st] = s->stage[st].layers;
    return DNP_OK;
}

/* Each op's role from its splits into role[op] (C3_TP_SKIP for the ops s
 * omits) and *seq_par; refuses splits the model does not simulate and
 * roles other than Megatron-LM's (c3_tp_role_at). */
static dnp_status read_roles(const dnp_graph *g, const dnp_transformer_layout *lay,
                             const plan_strategy *s, unsigned model, unsigned data,
                             unsigned char *role, int *seq_par, dnp_error *err)
{
    const int n = dnp_graph_n_ops(g);
    memset(role, C3_TP_SKIP, (size_t)n);
    *seq_par = 0;
    for (int k = 0; k < s->n_ops; k++) {
        const plan_op *o = &s->ops[k];
        const dnp_op *op = o->op >= 0 && o->op < n ? dnp_graph_op(g, o->op) : NULL;
        int r = c3_role_of_splits(o, model);
        unsigned b = plan_op_axes(o, "b");
        if (op == NULL || (k > 0 && o->op <= s->ops[k - 1].op) || r < 0 || b != data ||
            (plan_op_all_axes(o) & ~(model | data)) != 0u ||
            (plan_op_all_axes(o) & data) != (b & data)) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "3D lowering: strategy op %d (graph op %d%s%s) %s", k, o->op,
                          op != NULL ? ", " : "", op != NULL ? op->name : "",
                          op == NULL || (k > 0 && o->op <= s->ops[k - 1].op)
                              ? "is not an op of the graph in graph order"
                              : "must split \"b\" over \"data\" and at most one of n, c, "
                                "heads, vocab, seq over \"model\"");
            return DNP_ERR_INPUT;
        }
        role[o->op] = (unsigned char)r;
        *seq_par |= r == C3_TP_SEQUENCE;
    }
    for (int i = 0; i < n; i++) {
        const int want = (int)c3_tp_role_at(lay, g, i, *seq_par);
        if (role[i] != want) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "3D lowering: op %d '%s' is split as %s; the Megatron-LM model "
                          "simulates it %s (tensor parallelism%s)",
                          i, dnp_graph_op(g, i)->name, role_name(role[i]), role_name(want),
                          *seq_par ? " with sequence parallelism" : "");
            return DNP_ERR_INPUT;
        }
    }
    return DNP_OK;
}

/* Every op of s on the stage its layer is on (c3_stage_of_layer of cfg,
 * whose layers per stage are s's), and the stages' layers those cfg
 * gives (layers[], c3_layers). */
static dnp_status check_stages(const dnp_transformer_layout *lay, const plan_strategy *s,
                               const dnp_config3d *cfg, const int *layers, dnp_error *err)
{
    for (int st = 0; st < s->n_stages; st++)
        if (s->stage[st].layers != layers[st]) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "3D lowering: stage %d holds %d layers; an even split of %d layers "
                          "gives it %d",
                          st, s->stage[st].layers, lay->layers, layers[st]);
            return DNP_ERR_INPUT;
        }
    for (int k = 0; k < s->n_ops; k++) {
        const plan_op *o = &s->ops[k];
        const int l = c3_layer_of_op(lay, o->op);
        const int want = c3_stage_of_layer(cfg, lay->layers, l);
        if (o->stage != want) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "3D lowering: graph op %d is on stage %d, its layer (%d) on stage %d: "
                          "the model places whole layers",
                          o->op, o->stage, l, want);
            return DNP_ERR_INPUT;
        }
    }
    return DNP_OK;
}

dnp_status c3_lower_layout(const dnp_graph *g, const dnp_transformer_layout *lay,
                           const plan_strategy *s, const dnp_cluster *cl,
                           const dnp_plan_options *opt, int mode, dnp_config3d_result *out,
                           char **trace_json, dnp_error *err)
{
    memset(out, 0, sizeof *out);
    if (trace_json != NULL)
        *trace_json = NULL;
    c3_shape sh;
    if (!c3_shape_from_layout(g, lay, &sh)) {
        dnp_error_set(err, DNP_ERR_INPUT, "3D lowering: '%s' is not a transformer",
                      dnp_graph_name(g));
        return DNP_ERR_INPUT;
    }
    int tp, dp, seq_par;
    unsigned model, data;
    dnp_config3d cfg;
    dnp_status st = read_mesh(s, &tp, &dp, &model, &data, err);
    if (st == DNP_OK)
        st = read_degrees(s, tp, dp, &cfg, err);
    if (st == DNP_OK)
        st = c3_check_degrees(&cfg, cl, err);
    if (st == DNP_OK)
        st = read_config(s, cl, tp, dp, &cfg, err);
    if (st != DNP_OK)
        return st;
    const int n = dnp_graph_n_ops(g);
    unsigned char *role = dnp_malloc((size_t)(n > 0 ? n : 1));
    c3_ctx *x = dnp_malloc(sizeof *x);
    if (role == NULL || x == NULL) {
        dnp_free(role);
        dnp_free(x);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory lowering a 3D strategy");
        return DNP_ERR_NOMEM;
    }
    st = read_roles(g, lay, s, model, data, role, &seq_par, err);
    cfg.seq_par = seq_par;
    int layers[DNP_CONFIG3D_MAX_STAGES];
    double bound;
    if (st == DNP_OK)
        st = c3_prepare_roles(g, lay, &sh, role, cl, s->batch, opt, &cfg, x, err);
    if (st == DNP_OK)
        st = c3_layers(x, layers, err);
    if (st == DNP_OK)
        st = check_stages(lay, s, &cfg, layers, err);
    if (st == DNP_OK && mode != C3_LOWER_STEP)
        st = c3_check_rules(x, opt, err);
    /* memory first (it needs no simulation), then the step */
    if (st == DNP_OK && mode != C3_LOWER_STEP)
        st = c3_eval(x, layers, 0, &bound, out, NULL, err);
    if (st == DNP_OK && mode != C3_LOWER_STEP)
        st = c3_check_memory(x, opt, out, err);
    if (st == DNP_OK && mode != C3_LOWER_CHECK)
        st = c3_eval(x, layers, 1, &bound, out, trace_json, err);
    dnp_free(x);
    dnp_free(role);
    return st;
}

dnp_status c3_lower(const dnp_graph *g, const plan_strategy *s, const dnp_cluster *cl,
                    const dnp_plan_options *opt, int mode, dnp_config3d_result *out,
                    char **trace_json, dnp_error *err)
{
    memset(out, 0, sizeof *out);
    if (trace_json != NULL)
        *trace_json = NULL;
    dnp_transformer_layout *lay = NULL;
    c3_shape sh;
    dnp_status st = c3_read_model(g, &lay, &sh, err);
    if (st != DNP_OK)
        return st;
    st = c3_lower_layout(g, lay, s, cl, opt, mode, out, trace_json, err);
    dnp_transformer_layout_free(lay);
    return st;
}
