/* onnx_tensors.c - the importer's tensor table (see onnx_tensors.h). */
#include "dnnpar/model.h"
#include "model/onnx_tensors.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

int ot_init(ot_table *tab, int expected)
{
    memset(tab, 0, sizeof *tab);
    int slots = 64;
    while (slots < 4 * (expected > 0 ? expected : 1) && slots < (1 << 28))
        slots *= 2;
    tab->slots = dnp_malloc((size_t)slots * sizeof *tab->slots);
    tab->cap = slots / 2;
    tab->t = dnp_calloc((size_t)tab->cap, sizeof *tab->t);
    if (tab->slots == NULL || tab->t == NULL) {
        ot_free(tab);
        return -1;
    }
    tab->n_slots = slots;
    for (int i = 0; i < slots; i++)
        tab->slots[i] = -1;
    return 0;
}

void ot_free(ot_table *tab)
{
    dnp_free(tab->t);
    dnp_free(tab->slots);
    memset(tab, 0, sizeof *tab);
}

static int *slot_of(ot_table *tab, const char *name)
{
    size_t mask = (size_t)tab->n_slots - 1, i = (size_t)hash_name(name) & mask;
    while (tab->slots[i] >= 0 && strcmp(tab->t[tab->slots[i]].name, name) != 0)
        i = (i + 1) & mask;
    return &tab->slots[i];
}

ot_tensor *ot_find(ot_table *tab, const char *name)
{
    if (name == NULL)
        return NULL;
    int idx = *slot_of(tab, name);
    return idx >= 0 ? &tab->t[idx] : NULL;
}

static int grow(ot_table *tab)
{
    ot_table bigger;
    if (ot_init(&bigger, tab->cap * 2) != 0)
        return -1;
    for (int i = 0; i < tab->n; i++) {
        bigger.t[i] = tab->t[i];
        *slot_of(&bigger, tab->t[i].name) = i;
    }
    bigger.n = tab->n;
    ot_free(tab);
    *tab = bigger;
    return 0;
}

ot_tensor *ot_get(ot_table *tab, const char *name)
{
    ot_tensor *t = ot_find(tab, name);
    if (t != NULL)
        return t;
    if (tab->n == tab->cap && grow(tab) != 0)
        return NULL;
    t = &tab->t[tab->n];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->rank = -1;
    t->op = -1;
    *slot_of(tab, name) = tab->n++;
    return t;
}

int64_t ot_numel(const ot_tensor *t)
{
    if (t->rank < 0)
        return -1;
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) {
        if (t->dims[i] < 0 || (t->dims[i] > 0 && n > ((int64_t)1 << 62) / t->dims[i]))
            return -1;
        n *= t->dims[i];
    }
    return n;
}

int ot_broadcast(const ot_tensor *a, const ot_tensor *b, int64_t *dims)
{
    if (a->rank < 0 || b->rank < 0)
        return -1;
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = a->rank - r + i, ib = b->rank - r + i;
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return -1;
        dims[i] = da == 1 ? db : da;
    }
    return r;
}

int ot_axis(int64_t axis, int rank)
{
    if (axis < 0)
        axis += rank;
    return (axis >= 0 && axis < rank) ? (int)axis : -1;
}
