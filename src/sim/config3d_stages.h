/*
 * config3d_stages.h - where a Megatron-LM configuration puts each op: the
 * layers of each pipeline stage, the stage of each layer and op (the one
 * rule the simulator, config3d.c: c3_layers, and the exports share), and
 * the configuration as a plan/strategy.h strategy (c3_strategy_of).
 */
#ifndef DNNPAR_CONFIG3D_STAGES_H
#define DNNPAR_CONFIG3D_STAGES_H

#include "dnnpar.h"
#include "plan/strategy.h"

/* Transformer layers of each of cfg's pp stages into layers[pp] for a
 * model of L layers: cfg's own list (n_stage_layers > 0, copied as is:
 * c3_layers checks it), else L / pp each (Megatron-LM's even split; with
 * interleave v, v chunks of L / (pp v) layers per stage).  O(pp). */
void c3_stage_layers(const dnp_config3d *cfg, int L, int *layers);

/* The stage of transformer layer l (0-based) of L: by cfg's list, or
 * chunk l / (L / (pp v)) on stage chunk mod pp (Megatron-LM's interleaved
 * assignment, Narayanan et al. 2021 section 2.2; v = 1: consecutive
 * blocks).  l < 0 (the embedding) is on the first stage, l >= L (the
 * final norm and head) on the last, as Megatron-LM places them.  O(pp). */
int c3_stage_of_layer(const dnp_config3d *cfg, int L, int l);

/* Configuration cfg of transformer g (its layers and roles read by
 * dnp_graph_transformer_layout) on cluster cl as a strategy:
 * axes "data" (size dp) and "model" (size tp), even; pp stages of dp x tp
 * ranks each, Megatron-LM's order (tensor fastest, then data, then
 * pipeline), with their device types and layers; one op per op of g that
 * costs something (c3_tp_role_at is not C3_TP_SKIP), in graph order, with
 * its stage, "b" over data, and over model what tensor parallelism splits
 * (Shoeybi et al. 2019 section 3; Korthikanti et al. 2022 section 4.2.2):
 * column-parallel GEMMs "n" (the input gradient summed over model),
 * row-parallel ones "c" (the output a partial sum over model), attention
 * "heads", the MLP's point-wise ops "c", the embedding and tied logits
 * "vocab", with sequence parallelism the rest "seq"; every weight's
 * gradient summed over data.  Checks only what it reads (g a zoo
 * transformer, tp x pp x dp = the devices, pp <= DNP_CONFIG3D_MAX_STAGES):
 * DNP_ERR_INPUT naming it; dnp_config3d_check is the full check.  *out is
 * the caller's (plan_strategy_free).  O(ops + pp x types). */
dnp_status c3_strategy_of(const dnp_graph *g, const dnp_cluster *cl, const dnp_config3d *cfg,
                          int64_t batch, plan_strategy **out, dnp_error *err);

/* c3_strategy_of on g's layout lay already read (borrowed), without its
 * checks: the caller has checked cfg's degrees (c3_check_degrees: tp x pp
 * x dp the devices, pp <= DNP_CONFIG3D_MAX_STAGES).  The schedule
 * (s->schedule) holds everything else of cfg the 3D lowering reads.
 * DNP_ERR_NOMEM only.  O(ops + pp x types). */
dnp_status c3_strategy_from_layout(const dnp_graph *g, const dnp_transformer_layout *lay,
                                   const dnp_cluster *cl, const dnp_config3d *cfg,
                                   int64_t batch, plan_strategy **out, dnp_error *err);

/* The layer of op i in lay: -1 before the layers (the embedding), L after
 * them (the final norm, the head).  O(1). */
int c3_layer_of_op(const dnp_transformer_layout *lay, int i);

#endif
