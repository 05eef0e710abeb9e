/*
 * iter_space.c - the container of a core graph's iteration spaces: its
 * nests and reads, appended by the rules (iter_rules.c) through the nest
 * builders (iter_nests.c), and freed here.
 */
#include "model/iter_build.h"
#include "core/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[ITER_KIND_COUNT] = {
    "Conv",    "FC",    "Pooling", "Elementwise", "Norm",    "ReduceMean",
    "Softmax", "SoftmaxCrossEntropy", "Einsum", "LSTM", "Concat",
    "Stack",   "Unstack", "Ravel", "Unravel", "Slice",
    "GroupConv",
};

const char *iter_kind_name(iter_kind k)
{
    return (k >= 0 && k < ITER_KIND_COUNT) ? kind_names[k] : "?";
}

const char *iter_space_name(const iter_space *s)
{
    return s != NULL && s->core != NULL ? dnp_graph_name(s->core) : "";
}

iter_space *iter_space_new(void)
{
    return dnp_calloc(1, sizeof(iter_space));
}

void iter_space_free(iter_space *s)
{
    if (s == NULL)
        return;
    dnp_free(s->nest);
    dnp_free(s->read);
    dnp_free(s->nest_start);
    dnp_free(s->carrier);
    dnp_free(s->carrier_mask);
    dnp_free(s->op_start);
    dnp_free(s->ops);
    dnp_graph_free(s->core_owned);
    dnp_free(s);
}

int iter_fail(iter_space *s, const char *fmt, ...)
{
    if (s->err[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->err, sizeof s->err, fmt, ap);
        va_end(ap);
        if (s->err[0] == '\0')
            snprintf(s->err, sizeof s->err, "iteration space rule failed");
    }
    return -1;
}

int iter_add_nest(iter_space *s, const iter_nest *v)
{
    if (s->err[0] != '\0')
        return -1;
    if (s->n_nest == s->cap_nest) {
        int cap = s->cap_nest ? 2 * s->cap_nest : 64;
        iter_nest *nv = dnp_realloc(s->nest, (size_t)cap * sizeof *nv);
        if (nv == NULL)
            return iter_fail(s, "out of memory adding op '%s'", v->name);
        s->nest = nv;
        s->cap_nest = cap;
    }
    s->nest[s->n_nest] = *v;
    s->nest[s->n_nest].op = -1; /* the rules name them (iter_rules.c) */
    s->nest[s->n_nest].owner = -1;
    return s->n_nest++;
}

int iter_add_read(iter_space *s, const iter_tensor *t, int dst, int dst_port,
                  const unsigned *dst_map)
{
    if (s->err[0] != '\0')
        return -1;
    if (t->nest < 0)
        return 0; /* a graph input: nothing to transfer from another op */
    if (t->nest >= s->n_nest || dst < 0 || dst >= s->n_nest)
        return iter_fail(s, "read %d -> %d names a missing nest", t->nest, dst);
    if (s->n_read == s->cap_read) {
        int cap = s->cap_read ? 2 * s->cap_read : 64;
        iter_read *ne = dnp_realloc(s->read, (size_t)cap * sizeof *ne);
        if (ne == NULL)
            return iter_fail(s, "out of memory adding a read into '%s'", s->nest[dst].name);
        s->read = ne;
        s->cap_read = cap;
    }
    iter_read *e = &s->read[s->n_read++];
    memset(e, 0, sizeof *e);
    e->src = t->nest;
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

iter_tensor iter_input(int rank, const int64_t *shape, const char *dims)
{
    iter_tensor t;
    memset(&t, 0, sizeof t);
    t.nest = -1;
    t.rank = rank < ITER_MAX_RANK ? rank : ITER_MAX_RANK;
    size_t nd = dims ? strlen(dims) : 0;
    for (int i = 0; i < t.rank; i++) {
        t.shape[i] = shape[i];
        t.dim[i][0] = (size_t)i < nd ? dims[i] : (char)('a' + i);
    }
    return t;
}
