/* graph_internal.h - graph.c internals the unit tests look at. */
#ifndef DNP_GRAPH_INTERNAL_H
#define DNP_GRAPH_INTERNAL_H

#include "dnnpar.h"

/* Hash-table slots examined by every name lookup on g so far (appends
 * and dnp_graph_find), so a test can check the lookup stays O(1)
 * amortised without timing it.  O(1). */
long graph_name_probes(const dnp_graph *g);

#endif
