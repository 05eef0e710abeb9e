/*
 * config3d_stages.c - the pipeline stage of every layer and op of a
 * Megatron-LM configuration, and the configuration as a strategy
 * (sim/config3d_stages.h; docs/config3d.md, docs/architecture.md "The
 * strategy type").
 *
 * Stages: Megatron-LM splits the transformer layers evenly over pp stages
 * (or by a custom layout, our layers= list); with v model chunks per
 * stage (the interleaved schedule, Narayanan et al. 2021 section 2.2)
 * chunk c of L / (pp v) layers is on stage c mod pp.  The embedding is on
 * the first stage, the final norm and output layer on the last
 * (megatron/model/gpt_model.py: pre_process / post_process).
 *
 * Splits: what tensor parallelism does to each op is the simulator's own
 * reading, c3_tp_role_at on the model's layout (config3d_int.h: Shoeybi et
 * al. 2019 section 3, Korthikanti et al. 2022 section 4.2.2); each op's
 * layer is the layout's too, so no op name is read.
 */
#include "sim/config3d_stages.h"
#include "sim/config3d_int.h"
#include "topo/topology.h"

#include <stdio.h>
#include <string.h>

void c3_stage_layers(const dnp_config3d *cfg, int L, int *layers)
{
    for (int s = 0; s < cfg->pp; s++)
        layers[s] = cfg->n_stage_layers > 0 ? cfg->stage_layers[s] : L / cfg->pp;
}

int c3_stage_of_layer(const dnp_config3d *cfg, int L, int l)
{
    if (l < 0)
        return 0;
    if (l >= L)
        return cfg->pp - 1;
    if (cfg->n_stage_layers > 0) {
        int acc = 0;
        for (int s = 0; s < cfg->n_stage_layers; s++) {
            acc += cfg->stage_layers[s];
            if (l < acc)
                return s;
        }
        return cfg->n_stage_layers - 1;
    }
    int v = cfg->interleave > 0 ? cfg->interleave : 1;
    int per_chunk = L / (cfg->pp * v);
    if (per_chunk < 1)
        per_chunk = 1;
    return (l / per_chunk) % cfg->pp;
}

int c3_layer_of_op(const dnp_transformer_layout *lay, int i)
{
    if (i < lay->first_op)
        return -1;
    if (i > lay->last_op)
        return lay->layers;
    return lay->layer[i] >= 0 ? lay->layer[i] : lay->layers;
}

/* The device types of ranks [first, first + n) of cl (bit k: type k):
 * ranks run over the types in the spec's order (topo_locate), so the
 * group holds every type from its first rank's to its last's that has
 * devices.  O(types). */
static unsigned group_types(const dnp_cluster *cl, int64_t first, int64_t n)
{
    int ta = 0, tb = 0;
    int64_t node;
    if (n <= 0 || topo_locate(cl, first, &ta, &node) != 0 ||
        topo_locate(cl, first + n - 1, &tb, &node) != 0)
        return 0u;
    unsigned bits = 0u;
    for (int k = ta; k <= tb; k++)
        if (cl->counts[k] > 0)
            bits |= 1u << k;
    return bits;
}

/* Op o's splits over axes data (0) and model (1) by its tensor-parallel
 * role (the file comment; sharding over data is the batch). */
static void apply_role(plan_op *o, c3_tp_role r)
{
    enum { DATA = 0, MODEL = 1 };
    plan_op_split(o, "b", DATA);
    if (o->weighted)
        o->wgrad_partial |= 1u << DATA;
    switch (r) {
    case C3_TP_COLUMN:
        plan_op_split(o, "n", MODEL);
        o->igrad_partial |= 1u << MODEL;
        break;
    case C3_TP_ROW:
        plan_op_split(o, "c", MODEL);
        o->out_partial |= 1u << MODEL;
        break;
    case C3_TP_HEADS:
        plan_op_split(o, "heads", MODEL);
        break;
    case C3_TP_FEATURES:
        plan_op_split(o, "c", MODEL);
        break;
    case C3_TP_VOCAB:
        plan_op_split(o, "vocab", MODEL);
        break;
    case C3_TP_SEQUENCE:
        plan_op_split(o, "seq", MODEL);
        break;
    default: /* replicated over model */
        break;
    }
}

dnp_status c3_strategy_of(const dnp_graph *g, const dnp_cluster *cl, const dnp_config3d *cfg,
                          int64_t batch, plan_strategy **out, dnp_error *err)
{
    *out = NULL;
    dnp_transformer_layout *lay = NULL;
    dnp_error serr = {0};
    dnp_status sst = dnp_graph_transformer_layout(g, &lay, &serr);
    if (sst == DNP_ERR_NOMEM) {
        dnp_error_set(err, sst, "%s", serr.msg);
        return sst;
    }
    if (sst != DNP_OK) {
        dnp_error_set(err, sst, "'%s' is not a transformer the Megatron-LM path plans (%s)",
                      dnp_graph_name(g), serr.msg);
        return sst;
    }
    const int64_t width = (int64_t)cfg->dp * cfg->tp;
    if (cfg->tp < 1 || cfg->dp < 1 || cfg->pp < 1 || cfg->pp > DNP_CONFIG3D_MAX_STAGES ||
        width * cfg->pp != dnp_cluster_devices(cl)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "config tp %d x pp %d x dp %d does not cover the cluster's %lld devices "
                      "(at most %d stages)",
                      cfg->tp, cfg->pp, cfg->dp, (long long)dnp_cluster_devices(cl),
                      DNP_CONFIG3D_MAX_STAGES);
        dnp_transformer_layout_free(lay);
        return DNP_ERR_INPUT;
    }
    dnp_status st = c3_strategy_from_layout(g, lay, cl, cfg, batch, out, err);
    dnp_transformer_layout_free(lay);
    return st;
}

dnp_status c3_strategy_from_layout(const dnp_graph *g, const dnp_transformer_layout *lay,
                                   const dnp_cluster *cl, const dnp_config3d *cfg,
                                   int64_t batch, plan_strategy **out, dnp_error *err)
{
    *out = NULL;
    const int64_t width = (int64_t)cfg->dp * cfg->tp;
    const int L = lay->layers, sp = cfg->seq_par != 0;
    int n = 0;
    for (int i = 0; i < dnp_graph_n_ops(g); i++)
        n += c3_tp_role_at(lay, g, i, sp) != C3_TP_SKIP;
    plan_strategy *s = plan_strategy_new(n, cfg->pp);
    if (s == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building the strategy of a configuration");
        return DNP_ERR_NOMEM;
    }
    s->batch = batch;
    plan_schedule *q = &s->schedule;
    q->set = 1;
    q->microbatch = cfg->microbatch;
    q->interleave = cfg->interleave;
    q->gpipe = cfg->gpipe;
    q->vp_group = cfg->vp_group;
    q->recompute = (int)cfg->recompute;
    q->zero = cfg->zero;
    q->grad_fp32 = cfg->grad_fp32;
    q->overlap_grad = cfg->overlap_grad;
    q->overlap_param = cfg->overlap_param;
    q->tp_overlap = cfg->tp_overlap;
    q->listed_stages = cfg->n_stage_layers;
    plan_strategy_add_axis(s, "data", cfg->dp, 1.0 / cfg->dp);
    plan_strategy_add_axis(s, "model", cfg->tp, 1.0 / cfg->tp);
    int layers[DNP_CONFIG3D_MAX_STAGES];
    c3_stage_layers(cfg, L, layers);
    for (int st = 0; st < cfg->pp; st++) {
        s->stage[st].first_rank = st * width;
        s->stage[st].n_ranks = width;
        s->stage[st].types = group_types(cl, st * width, width);
        s->stage[st].layers = layers[st];
    }
    int k = 0;
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        c3_tp_role r = c3_tp_role_at(lay, g, i, sp);
        if (r == C3_TP_SKIP)
            continue;
        plan_op *o = &s->ops[k++];
        o->op = i;
        o->stage = c3_stage_of_layer(cfg, L, c3_layer_of_op(lay, i));
        o->weighted = op->param_elems > 0 || op->kind == DNP_OP_FC ||
                      op->kind == DNP_OP_EMBEDDING;
        apply_role(o, r);
    }
    *out = s;
    return DNP_OK;
}
