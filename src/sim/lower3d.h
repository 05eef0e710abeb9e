/*
 * lower3d.h - the 3D lowering: a pipelined mesh strategy (plan/strategy.h:
 * axes "data" and "model", pipeline stages, per op its splits, and the
 * schedule) simulated by the layer-granular Megatron-LM model of
 * config3d.c (docs/config3d.md, "The 3D lowering").
 *
 * Every decision comes from the strategy: the tensor- and data-parallel
 * degrees from the sizes of the "model" and "data" axes, the pipeline
 * degree and each stage's layers and ranks from its stages, each op's
 * tensor-parallel role from its splits over "model" (the inverse of
 * c3_strategy_of: "n" column-parallel, "c" with the output a partial sum
 * row-parallel, "c" alone the MLP's features, "heads", "vocab", "seq";
 * none replicated; an op the strategy omits costs nothing), sequence
 * parallelism from the ops split over "seq", and the micro-batch,
 * interleave, recompute, ZeRO, gradient dtype, overlaps and GPipe vs
 * 1F1B from strategy->schedule.  The graph gives only the layers' shape
 * and what each op computes.  A strategy this model cannot simulate is
 * refused (DNP_ERR_INPUT naming what): another axis, an uneven axis,
 * stages not on Megatron-LM's rank order or not holding their ranks'
 * device types, an op split otherwise than
 * Megatron-LM's tensor parallelism does (c3_tp_role_at), an op off its
 * layer's stage.
 *
 * sim/ (layer 6): it reads plan/'s strategy, nothing of the searches.
 */
#ifndef DNNPAR_LOWER3D_H
#define DNNPAR_LOWER3D_H

#include "dnnpar.h"
#include "plan/strategy.h"

/* What c3_lower does: check and size only (memory figures, no step time,
 * as dnp_config3d_check), check, size and simulate (as
 * dnp_config3d_simulate), or only simulate a strategy whose configuration
 * the caller has checked against Megatron-LM's rules and the memory (the
 * 3D search: its candidates are checked as they are enumerated). */
enum { C3_LOWER_CHECK = 0, C3_LOWER_SIMULATE = 1, C3_LOWER_STEP = 2 };

/* Lower pipelined strategy s of transformer g on cluster cl, s->batch
 * samples, options opt (precision, optimizer, memory limit, rules, time
 * limit) as `mode` says (C3_LOWER_*) into *out; with trace_json (NULL:
 * none) and a simulation, also the step as Chrome trace events (a new
 * text the caller frees with dnp_free).  Everything borrowed.
 * DNP_ERR_INPUT: a strategy the lowering refuses (above) or one its
 * configuration's checks refuse (dnp_config3d_check's messages);
 * DNP_ERR_NOMEM.  O(ops x types + pp x micro-batches x interleave). */
dnp_status c3_lower(const dnp_graph *g, const plan_strategy *s, const dnp_cluster *cl,
                    const dnp_plan_options *opt, int mode, dnp_config3d_result *out,
                    char **trace_json, dnp_error *err);

/* c3_lower with g's layout lay (dnp_graph_transformer_layout of g) already
 * read, borrowed.  O(as c3_lower). */
dnp_status c3_lower_layout(const dnp_graph *g, const dnp_transformer_layout *lay,
                           const plan_strategy *s, const dnp_cluster *cl,
                           const dnp_plan_options *opt, int mode, dnp_config3d_result *out,
                           char **trace_json, dnp_error *err);

/* The tensor-parallel role (config3d_int.h: c3_tp_role) strategy op o's
 * splits over axis mask `model` give, or -1 when o splits over it more
 * than one loop dimension or one the 3D model does not know.  O(splits). */
int c3_role_of_splits(const plan_op *o, unsigned model);

#endif
