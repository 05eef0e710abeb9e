/*
 * wino_tile.c - the per-tile kernels of the Winograd layer: input transform
 * B^T d B, the inverse transform A^T Y A split into its row and column
 * passes (the split is where 1D predict cuts it, Sec. V-A), and their
 * adjoints for bprop (Eq. 1; Fig. 2).  Zero coefficients are skipped; the
 * order of every sum is fixed, so a tile computed on any worker gives the
 * same bits.
 */
#include "arch/mpt/wino.h"

void mpt_wgeom_get(const mpt_wshape *s, mpt_wgeom *g)
{
    g->out_h = s->in_h + 2 * s->pad_h - s->th->r + 1;
    g->out_w = s->in_w + 2 * s->pad_w - s->tw->r + 1;
    g->tiles_h = (g->out_h + s->th->m - 1) / s->th->m;
    g->tiles_w = (g->out_w + s->tw->m - 1) / s->tw->m;
    g->tiles = g->tiles_h * g->tiles_w;
    g->n = s->batch * g->tiles;
    g->elems = s->th->t * s->tw->t;
}

dnp_status mpt_wshape_check(const mpt_wshape *s, dnp_error *err)
{
    const char *bad = NULL;
    if (s->th == NULL || s->tw == NULL)
        bad = "transform";
    else if (s->batch < 1)
        bad = "batch";
    else if (s->in_c < 1)
        bad = "input channels";
    else if (s->out_c < 1)
        bad = "output channels";
    else if (s->in_h < 1 || s->in_w < 1)
        bad = "input size";
    else if (s->pad_h < 0 || s->pad_w < 0)
        bad = "padding";
    if (bad != NULL) {
        dnp_error_set(err, DNP_ERR_INPUT, "Winograd layer: bad %s", bad);
        return DNP_ERR_INPUT;
    }
    mpt_wgeom g;
    mpt_wgeom_get(s, &g);
    if (g.out_h < 1 || g.out_w < 1) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "Winograd layer: a %dx%d kernel does not fit a %dx%d input with padding "
                      "%d,%d",
                      s->th->r, s->tw->r, s->in_h, s->in_w, s->pad_h, s->pad_w);
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

/* Sample, tile row and tile column of tile n. */
static void tile_pos(const mpt_wshape *s, const mpt_wgeom *g, int n, int *b, int *ty, int *tx)
{
    *b = n / g->tiles;
    int rem = n % g->tiles;
    *ty = rem / g->tiles_w;
    *tx = rem % g->tiles_w;
    (void)s;
}

void mpt_tile_in(const mpt_wshape *s, const float *x, int n, int i, float *X, size_t stride)
{
    mpt_wgeom g;
    mpt_wgeom_get(s, &g);
    int b, ty, tx, th = s->th->t, tw = s->tw->t;
    tile_pos(s, &g, n, &b, &ty, &tx);
    int oy = ty * s->th->m - s->pad_h, ox = tx * s->tw->m - s->pad_w;
    const float *xc = x + ((size_t)b * s->in_c + (size_t)i) * (size_t)s->in_h * (size_t)s->in_w;
    float d[MPT_MAX_TILE * MPT_MAX_TILE], tmp[MPT_MAX_TILE * MPT_MAX_TILE];
    for (int p = 0; p < th; p++)
        for (int q = 0; q < tw; q++) {
            int yy = oy + p, xx = ox + q;
            d[p * tw + q] = (yy >= 0 && yy < s->in_h && xx >= 0 && xx < s->in_w)
                                ? xc[(size_t)yy * (size_t)s->in_w + (size_t)xx]
                                : 0.0f;
        }
    /* tmp = B_h^T d (t_h x t_w) */
    for (int u = 0; u < th; u++)
        for (int q = 0; q < tw; q++) {
            float acc = 0.0f;
            for (int p = 0; p < th; p++) {
                float c = s->th->bt_f[u * th + p];
                if (c != 0.0f)
                    acc += c * d[p * tw + q];
            }
            tmp[u * tw + q] = acc;
        }
    /* X = tmp B_w */
    for (int u = 0; u < th; u++)
        for (int v = 0; v < tw; v++) {
            float acc = 0.0f;
            for (int q = 0; q < tw; q++) {
                float c = s->tw->bt_f[v * tw + q];
                if (c != 0.0f)
                    acc += tmp[u * tw + q] * c;
            }
            X[(size_t)(u * tw + v) * stride] = acc;
        }
}

void mpt_tile_out_rows(const mpt_wshape *s, const float *Y, size_t stride, int u0, int u1,
                       float *tmp)
{
    int tw = s->tw->t, mw = s->tw->m;
    for (int u = u0; u < u1; u++)
        for (int k = 0; k < mw; k++) {
            float acc = 0.0f;
            for (int v = 0; v < tw; v++) {
                float c = s->tw->at_f[k * tw + v];
                if (c != 0.0f)
                    acc += Y[(size_t)(u * tw + v) * stride] * c;
            }
            tmp[u * mw + k] = acc;
        }
}

void mpt_tile_out_col(const mpt_wshape *s, const float *tmp, int n, int j, int k, float *y)
{
    mpt_wgeom g;
    mpt_wgeom_get(s, &g);
    int b, ty, tx, th = s->th->t, mh = s->th->m, mw = s->tw->m;
    tile_pos(s, &g, n, &b, &ty, &tx);
    int xx = tx * mw + k;
    if (xx >= g.out_w)
        return;
    float *yc = y + ((size_t)b * s->out_c + (size_t)j) * (size_t)g.out_h * (size_t)g.out_w;
    for (int a = 0; a < mh; a++) {
        int yy = ty * mh + a;
        if (yy >= g.out_h)
            break;
        float acc = 0.0f;
        for (int u = 0; u < th; u++) {
            float c = s->th->at_f[a * th + u];
            if (c != 0.0f)
                acc += c * tmp[u * mw + k];
        }
        yc[(size_t)yy * (size_t)g.out_w + (size_t)xx] = acc;
    }
}

void mpt_tile_dy(const mpt_wshape *s, const float *dy, int n, int j, float *dY, size_t stride)
{
    mpt_wgeom g;
    mpt_wgeom_get(s, &g);
    int b, ty, tx, th = s->th->t, tw = s->tw->t, mh = s->th->m, mw = s->tw->m;
    tile_pos(s, &g, n, &b, &ty, &tx);
    const float *dc =
        dy + ((size_t)b * s->out_c + (size_t)j) * (size_t)g.out_h * (size_t)g.out_w;
    float e[MPT_MAX_TILE * MPT_MAX_TILE], p[MPT_MAX_TILE * MPT_MAX_TILE];
    for (int a = 0; a < mh; a++)
        for (int k = 0; k < mw; k++) {
            int yy = ty * mh + a, xx = tx * mw + k;
            e[a * mw + k] = (yy < g.out_h && xx < g.out_w)
                                ? dc[(size_t)yy * (size_t)g.out_w + (size_t)xx]
                                : 0.0f;
        }
    /* p = e A_w^T (m_h x t_w) */
    for (int a = 0; a < mh; a++)
        for (int v = 0; v < tw; v++) {
            float acc = 0.0f;
            for (int k = 0; k < mw; k++) {
                float c = s->tw->at_f[k * tw + v];
                if (c != 0.0f)
                    acc += e[a * mw + k] * c;
            }
            p[a * tw + v] = acc;
        }
    /* dY = A_h p */
    for (int u = 0; u < th; u++)
        for (int v = 0; v < tw; v++) {
            float acc = 0.0f;
            for (int a = 0; a < mh; a++) {
                float c = s->th->at_f[a * th + u];
                if (c != 0.0f)
                    acc += c * p[a * tw + v];
            }
            dY[(size_t)(u * tw + v) * stride] = acc;
        }
}

void mpt_tile_dx(const mpt_wshape *s, const float *dX, size_t stride, float *dxt)
{
    int th = s->th->t, tw = s->tw->t;
    float q[MPT_MAX_TILE * MPT_MAX_TILE];
    /* q = dX B_w^T */
    for (int u = 0; u < th; u++)
        for (int c = 0; c < tw; c++) {
            float acc = 0.0f;
            for (int v = 0; v < tw; v++) {
                float k = s->tw->bt_f[v * tw + c];
                if (k != 0.0f)
                    acc += dX[(size_t)(u * tw + v) * stride] * k;
            }
            q[u * tw + c] = acc;
        }
    /* dxt = B_h q */
    for (int p = 0; p < th; p++)
        for (int c = 0; c < tw; c++) {
            float acc = 0.0f;
            for (int u = 0; u < th; u++) {
                float k = s->th->bt_f[u * th + p];
                if (k != 0.0f)
                    acc += k * q[u * tw + c];
            }
            dxt[p * tw + c] = acc;
        }
}

void mpt_tile_dx_add(const mpt_wshape *s, const float *dxt, int n, int i, float *dx)
{
    mpt_wgeom g;
    mpt_wgeom_get(s, &g);
    int b, ty, tx, th = s->th->t, tw = s->tw->t;
    tile_pos(s, &g, n, &b, &ty, &tx);
    int oy = ty * s->th->m - s->pad_h, ox = tx * s->tw->m - s->pad_w;
    float *xc = dx + ((size_t)b * s->in_c + (size_t)i) * (size_t)s->in_h * (size_t)s->in_w;
    for (int p = 0; p < th; p++) {
        int yy = oy + p;
        if (yy < 0 || yy >= s->in_h)
            continue;
        for (int q = 0; q < tw; q++) {
            int xx = ox + q;
            if (xx >= 0 && xx < s->in_w)
                xc[(size_t)yy * (size_t)s->in_w + (size_t)xx] += dxt[p * tw + q];
        }
    }
}
