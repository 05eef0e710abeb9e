/*
 * pase_graph.c - the PaSE graph container: vertices with named iteration
 * spaces and edges carrying tensors mapped onto both endpoints' domains.
 */
#include "search/pase/pase.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[PASE_KIND_COUNT] = {
    "Conv",    "FC",    "Pooling", "Elementwise", "Norm",    "ReduceMean",
    "Softmax", "SoftmaxCrossEntropy", "Einsum", "LSTM", "Concat", "Split",
    "Stack",   "Unstack", "Ravel", "Unravel", "Transpose", "Slice",
    "GroupConv",
};

const char *pase_kind_name(pase_kind k)
{
    return (k >= 0 && k < PASE_KIND_COUNT) ? kind_names[k] : "?";
}

pase_graph *pase_graph_new(const char *name, int cutoff)
{
    pase_graph *g = dnp_calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    snprintf(g->name, sizeof g->name, "%s", name ? name : "");
    g->cutoff = cutoff;
    return g;
}

void pase_graph_free(pase_graph *g)
{
    if (g == NULL)
        return;
    dnp_free(g->v);
    dnp_free(g->e);
    dnp_free(g->carrier);
    dnp_free(g->carrier_mask);
    dnp_free(g->op_start);
    dnp_free(g->ops);
    dnp_free(g->saved_by_consumer);
    dnp_graph_free(g->core_owned);
    dnp_free(g);
}

int pase_graph_fail(pase_graph *g, const char *fmt, ...)
{
    if (g->err[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->err, sizeof g->err, fmt, ap);
        va_end(ap);
        if (g->err[0] == '\0')
            snprintf(g->err, sizeof g->err, "graph builder failed");
    }
    return -1;
}

int pase_graph_add_vertex(pase_graph *g, const pase_vertex *v)
{
    if (g->err[0] != '\0')
        return -1;
    if (g->n_v == g->cap_v) {
        int cap = g->cap_v ? 2 * g->cap_v : 64;
        pase_vertex *nv = dnp_realloc(g->v, (size_t)cap * sizeof *nv);
        if (nv == NULL)
            return pase_graph_fail(g, "out of memory adding op '%s'", v->name);
        g->v = nv;
        g->cap_v = cap;
    }
    g->v[g->n_v] = *v;
    g->v[g->n_v].op = -1; /* the converter names the core op (pase_from_graph) */
    return g->n_v++;
}

int pase_graph_add_edge(pase_graph *g, const pase_tensor *t, int dst, int dst_port,
                        const unsigned *dst_map)
{
    if (g->err[0] != '\0')
        return -1;
    if (t->vertex < 0)
        return 0; /* a graph input: nothing to transfer from another op */
    if (t->vertex >= g->n_v || dst < 0 || dst >= g->n_v)
        return pase_graph_fail(g, "edge %d -> %d names a missing op", t->vertex, dst);
    if (g->n_e == g->cap_e) {
        int cap = g->cap_e ? 2 * g->cap_e : 64;
        pase_edge *ne = dnp_realloc(g->e, (size_t)cap * sizeof *ne);
        if (ne == NULL)
            return pase_graph_fail(g, "out of memory adding an edge into '%s'", g->v[dst].name);
        g->e = ne;
        g->cap_e = cap;
    }
    pase_edge *e = &g->e[g->n_e++];
    memset(e, 0, sizeof *e);
    e->src = t->vertex;
    e->src_port = t->port;
    e->dst = dst;
    e->dst_port = dst_port;
    e->rank = t->rank;
    for (int i = 0; i < t->rank; i++) {
        e->shape[i] = t->shape[i];
        e->src_map[i] = t->map[i];
        e->dst_map[i] = dst_map[i];
    }
    return 0;
}

pase_tensor pase_input(int rank, const int64_t *shape, const char *dims)
{
    pase_tensor t;
    memset(&t, 0, sizeof t);
    t.vertex = -1;
    t.rank = rank < PASE_MAX_RANK ? rank : PASE_MAX_RANK;
    size_t nd = dims ? strlen(dims) : 0;
    for (int i = 0; i < t.rank; i++) {
        t.shape[i] = shape[i];
        t.dim[i][0] = (size_t)i < nd ? dims[i] : (char)('a' + i);
    }
    return t;
}
