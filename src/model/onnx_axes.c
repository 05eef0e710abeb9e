/* onnx_axes.c - named axes of the importer's activations (see onnx_axes.h
 * and docs/onnx.md, "Axes"). */
#include "model/onnx_axes.h"

#include <string.h>

void ax_input(ot_tensor *t, int bax, int is_int)
{
    memset(t->role, OT_ROLE_NONE, sizeof t->role);
    t->bax = bax;
    t->bstride = 1;
    int r = t->rank;
    if (bax >= 0)
        t->role[bax] = OT_ROLE_BATCH;
    if (r == 4 && bax == 0) {
        t->role[1] = OT_ROLE_CHANNEL;
        t->role[2] = t->role[3] = OT_ROLE_SPATIAL;
        return;
    }
    /* the axes other than the batch, in order */
    int other[OT_MAX_RANK], n = 0;
    for (int i = 0; i < r; i++)
        if (i != bax)
            other[n++] = i;
    if (is_int) { /* token ids: (batch, sequence) */
        for (int k = 0; k < n; k++)
            t->role[other[k]] = OT_ROLE_SEQUENCE;
        return;
    }
    if (n >= 1)
        t->role[other[n - 1]] = OT_ROLE_FEATURE;
    if (n == 2)
        t->role[other[0]] = OT_ROLE_SEQUENCE;
}

/* Is the batch alone on axis t->bax (not merged with another factor)? */
int ax_batch_alone(const ot_tensor *t, int64_t batch)
{
    return t->bax >= 0 && t->bstride == 1 && t->dims[t->bax] == batch;
}

int ax_per_sample(const ot_tensor *t, int64_t batch, int64_t *dims, signed char *roles)
{
    int r = 0;
    for (int i = 0; i < t->rank; i++) {
        if (i == t->bax && ax_batch_alone(t, batch))
            continue;
        dims[r] = (i == t->bax && batch > 0) ? t->dims[i] / batch : t->dims[i];
        roles[r++] = t->role[i];
    }
    return r;
}

int ax_channel_last(const ot_tensor *t, int64_t batch)
{
    return t->rank == 4 && t->bax == 0 && ax_batch_alone(t, batch) &&
           t->role[1] == OT_ROLE_SPATIAL && t->role[2] == OT_ROLE_SPATIAL &&
           (t->role[3] == OT_ROLE_CHANNEL || t->role[3] == OT_ROLE_FEATURE);
}

int ax_is_nchw(const ot_tensor *t, int64_t batch)
{
    return t->rank == 4 && t->bax == 0 && ax_batch_alone(t, batch) && !ax_channel_last(t, batch);
}

/* out->role = the first out->rank entries of role, the rest none. */
static void set_roles(ot_tensor *out, const signed char *role)
{
    for (int j = 0; j < OT_MAX_RANK; j++)
        out->role[j] = j < out->rank ? role[j] : (signed char)OT_ROLE_NONE;
}

int ax_remap(const ot_tensor *in, const int *src, ot_tensor *out)
{
    signed char role[OT_MAX_RANK] = {0};
    int bax = -1;
    for (int j = 0; j < out->rank; j++) {
        role[j] = src[j] >= 0 ? in->role[src[j]] : (signed char)OT_ROLE_NONE;
        if (src[j] >= 0 && src[j] == in->bax)
            bax = j;
    }
    set_roles(out, role);
    out->bax = bax;
    out->bstride = bax >= 0 ? in->bstride : 1;
    return (in->bax >= 0 && bax < 0) ? -1 : 0;
}

/* strides[i] = product of dims after axis i (row-major element stride). */
static void strides_of(const ot_tensor *t, int64_t *strides)
{
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        strides[i] = s;
        s *= t->dims[i];
    }
}

/* Role of output axis j of a reshape from the input axes it overlaps in
 * stride space (the batch digit excluded): one input axis copied whole
 * keeps its role; a feature axis split in two is (head, feature), in
 * three (channel, height, width) - the usual multi-head and unflatten
 * splits; other pieces keep the split axis's role; a merge of axes of one
 * role keeps it, of several roles is a feature axis (a flatten). */
static signed char reshape_role(const ot_tensor *in, const int64_t *U, const ot_tensor *out,
                                const int64_t *T, int j, int64_t batch)
{
    if (j == out->bax && out->bstride == 1 && out->dims[j] == batch)
        return OT_ROLE_BATCH;
    int64_t lo = T[j], hi = T[j] * out->dims[j];
    int first = -1, n = 0, mixed = 0;
    for (int i = 0; i < in->rank; i++) {
        if (in->dims[i] <= 1 || U[i] >= hi || U[i] * in->dims[i] <= lo)
            continue;
        if (i == in->bax && ax_batch_alone(in, batch))
            continue; /* the batch digit itself */
        if (first < 0)
            first = i;
        else if (in->role[i] != in->role[first])
            mixed = 1;
        n++;
    }
    if (n == 0)
        return (j == out->bax) ? OT_ROLE_BATCH : OT_ROLE_NONE;
    if (mixed)
        return OT_ROLE_FEATURE;
    int i = first;
    if (n > 1 || (U[i] == lo && in->dims[i] == out->dims[j]))
        return in->role[i];
    /* output j is a piece of input axis i: which piece of how many */
    int pieces = 0, at = 0;
    int64_t ilo = U[i], ihi = U[i] * in->dims[i];
    for (int k = 0; k < out->rank; k++) {
        if (out->dims[k] <= 1 || T[k] >= ihi || T[k] * out->dims[k] <= ilo)
            continue;
        if (k == out->bax && out->dims[k] == batch && out->bstride == 1)
            continue;
        if (k == j)
            at = pieces;
        pieces++;
    }
    if (in->role[i] == OT_ROLE_FEATURE && pieces == 2)
        return at == 0 ? OT_ROLE_HEAD : OT_ROLE_FEATURE;
    if (in->role[i] == OT_ROLE_FEATURE && pieces == 3)
        return at == 0 ? OT_ROLE_CHANNEL : OT_ROLE_SPATIAL;
    return in->role[i];
}

int ax_reshape(const ot_tensor *in, ot_tensor *out, int64_t batch)
{
    int64_t U[OT_MAX_RANK], T[OT_MAX_RANK];
    strides_of(in, U);
    strides_of(out, T);
    out->bax = -1;
    out->bstride = 1;
    /* an empty tensor has no element order to follow the batch by */
    if (in->bax >= 0 && (ot_numel(in) <= 0 || ot_numel(out) <= 0)) {
        memset(out->role, OT_ROLE_NONE, sizeof out->role);
        return batch > 1 ? -1 : 0;
    }
    if (in->bax >= 0) {
        /* the batch digit: stride S, extent `batch`, among the elements */
        int64_t S = in->bstride * U[in->bax];
        for (int j = 0; j < out->rank && out->bax < 0; j++) {
            int64_t top = T[j] * out->dims[j];
            if (batch > 1 && out->dims[j] > 1 && T[j] > 0 && T[j] <= S && S % T[j] == 0 &&
                S * batch <= top && top % (S * batch) == 0)
                out->bax = j, out->bstride = S / T[j];
        }
        if (batch <= 1) {
            /* a batch of 1 has no extent: prefer a unit axis at its stride,
             * else the axis its stride falls in */
            for (int j = 0; j < out->rank && out->bax < 0; j++)
                if (out->dims[j] == 1 && T[j] == S)
                    out->bax = j;
            for (int j = 0; j < out->rank && out->bax < 0; j++)
                if (T[j] > 0 && T[j] <= S && S < T[j] * out->dims[j] && S % T[j] == 0)
                    out->bax = j, out->bstride = S / T[j];
        } else if (out->bax < 0) {
            return -1;
        }
    }
    signed char role[OT_MAX_RANK] = {0};
    for (int j = 0; j < out->rank; j++)
        role[j] = reshape_role(in, U, out, T, j, batch);
    set_roles(out, role);
    return 0;
}

void ax_broadcast(const ot_tensor *a, const ot_tensor *b, ot_tensor *out)
{
    int r = out->rank;
    signed char role[OT_MAX_RANK] = {0};
    int bax = -1;
    int64_t bstride = 1;
    for (int j = 0; j < r; j++) {
        role[j] = OT_ROLE_NONE;
        for (int k = 0; k < 2; k++) {
            const ot_tensor *t = k == 0 ? a : b;
            int i = t->rank - r + j;
            if (t->kind != OT_ACT || i < 0)
                continue;
            if (role[j] == OT_ROLE_NONE && t->dims[i] == out->dims[j])
                role[j] = t->role[i];
            if (bax < 0 && i == t->bax)
                bax = j, bstride = t->bstride;
        }
    }
    set_roles(out, role);
    out->bax = bax;
    out->bstride = bstride;
}

const char *ax_role_name(int role)
{
    static const char *const names[] = {"?",       "batch",   "channel", "spatial",
                                        "sequence", "feature", "head"};
    return (role >= 0 && role <= OT_ROLE_HEAD) ? names[role] : "?";
}
