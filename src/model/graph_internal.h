/* graph_internal.h - graph.c internals the unit tests look at. */
#ifndef DNP_GRAPH_INTERNAL_H
#define DNP_GRAPH_INTERNAL_H

#include "dnnpar/model.h"

/* Hash-table slots examined by every name lookup on g so far (appends
 * and dnp_graph_find), so a test can check the lookup stays O(1)
 * amortised without timing it.  O(1). */
long graph_name_probes(const dnp_graph *g);

/* Record msg as g's builder error if it has none yet; returns -1.  For
 * the builders of other files (graph_named.c).  O(1). */
int graph_fail(dnp_graph *g, const char *msg);
/* Op i of g, writable (builders annotating the op they just appended);
 * NULL out of range.  Valid until the graph grows.  O(1). */
dnp_op *graph_op_mut(dnp_graph *g, int i);
/* dnp_op_in_view for an op of g given by pointer: the view of its first
 * input's output, {0, 0, 0} without inputs.  O(1). */
dnp_shape graph_in_view(const dnp_graph *g, const dnp_op *op);

#endif
