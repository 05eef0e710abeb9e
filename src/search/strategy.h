/* strategy.h - the planner's view of a strategy file (see dnnpar.h). */
#ifndef DNNPAR_STRATEGY_H
#define DNNPAR_STRATEGY_H

#include "dnnpar.h"

#include <jansson.h>

/* The state (0..3) of `op` at tree level k on the branch `bits`, and that
 * level's ratio.  -1 if the strategy has no decision there, -2 if the
 * decision is not a valid type ("I", "II", "III", "R" = DNP_TYPE_R; joins
 * "batch", "channel", "replicated").  O(paths + ops). */
int strategy_decision(const dnp_strategy *s, int k, unsigned bits, const char *op, int weighted,
                      double *ratio);
/* 1 if some path of s reaches tree level k on the branch `bits` (a
 * version-2 path may stop above "levels": data parallel below).
 * O(paths). */
int strategy_has_level(const dnp_strategy *s, int k, unsigned bits);
/* The strategy of a parsed document (root: stolen, freed on failure too),
 * checked as dnp_strategy_read_buffer checks a file; `file` (already
 * quoted) names it in messages.  O(paths x levels). */
dnp_status strategy_from_json(json_t *root, const char *file, dnp_strategy **out, dnp_error *err);
/* The file the strategy came from, for messages. */
const char *strategy_file(const dnp_strategy *s);

#endif
