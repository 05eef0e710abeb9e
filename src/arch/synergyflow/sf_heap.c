/* sf_heap.c - binary min-heaps for the simulator (see sf_heap.h). */
#include "dnnpar.h"
#include "arch/synergyflow/sf_heap.h"

#include <stdlib.h>

static int before(const sf_event *a, const sf_event *b)
{
    return a->t_s < b->t_s || (a->t_s == b->t_s && a->seq < b->seq);
}

int sf_event_push(sf_event_heap *h, double t_s, int kind, int engine, int64_t gen)
{
    if (h->n == h->cap) {
        int64_t cap = h->cap ? 2 * h->cap : 16;
        sf_event *g = dnp_realloc(h->v, (size_t)cap * sizeof *g);
        if (g == NULL)
            return -1;
        h->v = g;
        h->cap = cap;
    }
    sf_event e = {t_s, h->next_seq++, kind, engine, gen};
    int64_t i = h->n++;
    while (i > 0) {
        int64_t up = (i - 1) / 2;
        if (!before(&e, &h->v[up]))
            break;
        h->v[i] = h->v[up];
        i = up;
    }
    h->v[i] = e;
    return 0;
}

int sf_event_pop(sf_event_heap *h, sf_event *out)
{
    if (h->n == 0)
        return 0;
    *out = h->v[0];
    sf_event last = h->v[--h->n];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && before(&h->v[c + 1], &h->v[c]))
            c++;
        if (!before(&h->v[c], &last))
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    h->v[i] = last;
    return 1;
}

void sf_event_heap_free(sf_event_heap *h)
{
    dnp_free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}

int sf_key_push(sf_key_heap *h, int64_t key)
{
    if (h->n == h->cap) {
        int64_t cap = h->cap ? 2 * h->cap : 16;
        int64_t *g = dnp_realloc(h->v, (size_t)cap * sizeof *g);
        if (g == NULL)
            return -1;
        h->v = g;
        h->cap = cap;
    }
    int64_t i = h->n++;
    while (i > 0 && h->v[(i - 1) / 2] > key) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = key;
    return 0;
}

int64_t sf_key_top(const sf_key_heap *h) { return h->n > 0 ? h->v[0] : -1; }

void sf_key_pop(sf_key_heap *h)
{
    if (h->n == 0)
        return;
    int64_t last = h->v[--h->n], i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1] < h->v[c])
            c++;
        if (h->v[c] >= last)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    h->v[i] = last;
}

void sf_key_heap_free(sf_key_heap *h)
{
    dnp_free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}
