/* strategy.h - the planner's view of a strategy file (see dnnpar.h). */
#ifndef DNNPAR_STRATEGY_H
#define DNNPAR_STRATEGY_H

#include "dnnpar.h"

/* The state (0..2) of `op` at tree level k on the branch `bits`, and that
 * level's ratio.  -1 if the strategy has no decision there, -2 if the
 * decision is not a valid type ("I", "II", "III"; joins "batch",
 * "channel", "replicated").  O(paths + ops). */
int strategy_decision(const dnp_strategy *s, int k, unsigned bits, const char *op, int weighted,
                      double *ratio);
/* The file the strategy came from, for messages. */
const char *strategy_file(const dnp_strategy *s);

#endif
