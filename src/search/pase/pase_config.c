/*
 * pase_config.c - the configurations of a vertex (paper section II, C(v);
 * reference README "Configurations"): for each dimension the split counts
 * e dividing its extent d with d / e >= cutoff (just {1} if none), any
 * tuple whose product is at most p (idle devices allowed, splits not
 * restricted to powers of two unless the vertex says so: pow2), fixed
 * dimensions 1, and for the two halves of a reshape only contiguous
 * splits.
 *
 * Enumeration order (our tie-breaking rests on it, docs/pase.md):
 * lexicographic, first dimension slowest, each dimension's splits
 * ascending; so configuration 0 is always all ones.
 */
#include "search/pase/pase.h"

#include <stdlib.h>
#include <string.h>

/* Allowed splits of dimension d, ascending; returns the count (>= 1). */
static int allowed(const iter_nest *v, int d, int p, int cutoff, int32_t *out, int cap)
{
    int64_t x = v->dom[d];
    int n = 0;
    if (!(v->fixed & (1u << (unsigned)d)))
        for (int64_t e = 1; e <= x && e <= p && n < cap; e++)
            if (x % e == 0 && x / e >= cutoff && (!v->pow2 || (e & (e - 1)) == 0))
                out[n++] = (int32_t)e;
    if (n == 0)
        out[n++] = 1;
    return n;
}

/* Reshape halves: leading dims fully split, then one partial split, the
 * rest unsplit (the prototype's is_contiguous). */
static int contiguous(const iter_nest *v, const int32_t *c)
{
    int i = 0;
    while (i < v->rank && v->dom[i] == c[i])
        i++;
    for (i++; i < v->rank; i++)
        if (c[i] != 1)
            return 0;
    return 1;
}

typedef struct {
    const iter_nest *v;
    int p;
    int32_t *lists[ITER_MAX_RANK];
    int len[ITER_MAX_RANK];
    int32_t cur[ITER_MAX_RANK];
    double count;
    pase_configs *out; /* NULL: count only */
} walker;

static void walk(walker *w, int d, int64_t prod)
{
    const iter_nest *v = w->v;
    if (d == v->rank) {
        if (v->contiguous && !contiguous(v, w->cur))
            return;
        if (w->out != NULL)
            memcpy(w->out->c + (size_t)w->out->n++ * (size_t)v->rank, w->cur,
                   (size_t)v->rank * sizeof(int32_t));
        w->count += 1.0;
        return;
    }
    for (int i = 0; i < w->len[d]; i++) {
        int64_t q = prod * w->lists[d][i];
        if (q > w->p)
            break; /* lists ascend */
        w->cur[d] = w->lists[d][i];
        walk(w, d + 1, q);
    }
}

static dnp_status walker_init(walker *w, const iter_nest *v, int p, int cutoff)
{
    memset(w, 0, sizeof *w);
    w->v = v;
    w->p = p;
    int cap = p < 1 ? 1 : p;
    for (int d = 0; d < v->rank; d++) {
        w->lists[d] = dnp_malloc((size_t)cap * sizeof(int32_t));
        if (w->lists[d] == NULL)
            return DNP_ERR_NOMEM;
        w->len[d] = allowed(v, d, p, cutoff, w->lists[d], cap);
    }
    return DNP_OK;
}

static void walker_free(walker *w)
{
    for (int d = 0; d < ITER_MAX_RANK; d++)
        dnp_free(w->lists[d]);
}

double pase_config_count(const iter_nest *v, int p, int cutoff)
{
    walker w;
    double n = -1.0;
    memset(&w, 0, sizeof w);
    if (p >= 1 && walker_init(&w, v, p, cutoff) == DNP_OK) {
        walk(&w, 0, 1);
        n = w.count;
    }
    walker_free(&w);
    return n;
}

dnp_status pase_configs_build(const iter_nest *v, int p, int cutoff, pase_configs *out)
{
    memset(out, 0, sizeof *out);
    walker w;
    dnp_status st = walker_init(&w, v, p, cutoff);
    if (st == DNP_OK) {
        walk(&w, 0, 1); /* count, then fill */
        pase_configs c = {0, v->rank, NULL};
        c.c = dnp_malloc((size_t)(w.count > 0 ? w.count : 1) * (size_t)v->rank * sizeof(int32_t));
        if (c.c == NULL) {
            st = DNP_ERR_NOMEM;
        } else {
            w.out = &c;
            w.count = 0;
            walk(&w, 0, 1);
            *out = c;
        }
    }
    walker_free(&w);
    return st;
}

void pase_configs_free(pase_configs *c)
{
    if (c == NULL)
        return;
    dnp_free(c->c);
    c->c = NULL;
    c->n = 0;
}

int pase_configs_find(const pase_configs *c, const int32_t *cfg)
{
    for (int i = 0; i < c->n; i++)
        if (memcmp(c->c + (size_t)i * (size_t)c->rank, cfg, (size_t)c->rank * sizeof(int32_t)) ==
            0)
            return i;
    return -1;
}
