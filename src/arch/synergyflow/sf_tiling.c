/*
 * sf_tiling.c - sublayers under the loop tiling of Fig. 8 and their
 * memory instruction blocks (Table 3).
 *
 * A sublayer is one iteration of the loops outside the on-chip part of
 * Fig. 8: (row, col, to, ti) for CONV, (i, j) for FC.  Per sublayer the
 * paper's Eq. 4 loads an input tile B_in = Tn (S Tr + K - 1)(S Tc + K - 1)
 * and a weight tile B_wght = Tn Tn K^2, and moves the output tile
 * B_out = Tn Tr Tc once per (row, col, to) (alpha_out); Eq. 5 moves per FC
 * tile Tnn inputs and Tnn x Tnn weights, and M1 outputs in all.  We follow
 * them with two refinements: a map is cut into ceil(R / Tr) tiles of
 * nearly equal size (55 rows with Tr = 32 give 28 + 27, not 32 + 23; the
 * same for C / Tc and for M1, N1 / Tnn), and an input tile has
 * S (Tr - 1) + K rows, the rows it reads (equal to Eq. 4 for S = 1).
 * When Tr divides R the tiles are Eq. 4's.  The output tile is stored
 * after the last ti.  The paper
 * gives no loop nests for BP and GD; ours (docs/synergyflow.md):
 *   BP CONV (row, col, ti, to): load the output-error tile and weights,
 *           store the input-error tile after the last to;
 *   GD CONV (row, col, to, ti): load the input tile (and the error tile at
 *           the first ti), store the weight-gradient tile;
 *   BP FC   (j, i): load the weight tile and error vector, store the
 *           input-error vector after the last i;
 *   GD FC   (i, j): load the input vector (and the error vector at the
 *           first j), store the gradient tile (outer product, VVP).
 * One sublayer computes for Tr Tc K^2 cycles on one core (CONV, Eq. 6:
 * the Tn x Tn PE mesh does one (too, tii) pair per cycle) or
 * ceil(tm / Tn) ceil(tn / Tn) cycles (FC: one Tn x Tn sub-block per cycle).
 */
#include "arch/synergyflow/synergyflow.h"

#include <stdlib.h>
#include <string.h>

const char *sf_phase_name(sf_phase ph)
{
    static const char *const names[SF_N_PHASES] = {"FF.C", "FF.F", "BP.F", "GD.F", "BP.C", "GD.C"};
    return (ph >= 0 && ph < SF_N_PHASES) ? names[ph] : "?";
}

int sf_phase_is_conv(sf_phase ph) { return ph == SF_FF_C || ph == SF_BP_C || ph == SF_GD_C; }

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Tile `index` of ceil(extent / nominal) nearly equal tiles: its offset,
 * and its size in *size (the first extent % n tiles are one larger). */
static int64_t balanced_tile(int64_t extent, int64_t nominal, int64_t index, int64_t *size)
{
    int64_t n = cdiv(extent, nominal), base = extent / n, extra = extent % n;
    *size = base + (index < extra ? 1 : 0);
    return index * base + min64(index, extra);
}

/* Loop extents of a layer. */
typedef struct {
    int64_t nr, ncol, nto, nti; /* CONV: row tiles, column tiles, output / input map groups */
    int64_t ni, nj;             /* FC: tiles of M1 and of N1 */
} extents;

static extents layer_extents(const sf_layer *l, const sf_platform *p)
{
    extents e = {0, 0, 0, 0, 0, 0};
    if (l->kind == SF_CONV) {
        e.nr = cdiv(l->r, p->tr);
        e.ncol = cdiv(l->c, p->tc);
        e.nto = cdiv(l->m, p->tn);
        e.nti = cdiv(l->n, p->tn);
    } else {
        e.ni = cdiv(l->m, p->tnn);
        e.nj = cdiv(l->n, p->tnn);
    }
    return e;
}

int64_t sf_layer_n_sublayers(const sf_layer *l, sf_phase ph, const sf_platform *p)
{
    if ((l->kind == SF_CONV) != (sf_phase_is_conv(ph) != 0))
        return 0;
    extents e = layer_extents(l, p);
    return l->kind == SF_CONV ? e.nr * e.ncol * e.nto * e.nti : e.ni * e.nj;
}

/* One sublayer's position and tile sizes. */
typedef struct {
    int64_t row, col, to, ti; /* CONV loop indices */
    int64_t i, j;             /* FC loop indices */
    int64_t r0, c0;           /* CONV: first output row and column of the tile */
    int64_t i0, j0;           /* FC: first output and input of the tile */
    int64_t tr, tc;           /* output tile rows and columns */
    int64_t ih, iw;           /* input tile rows and columns */
    int64_t tm, tn;           /* output / input maps or FC tile sides */
    int first_in, last_in;    /* first / last iteration of the innermost loop */
} geom;

/* Decode sublayer s of phase ph (loop order of the phase, innermost fastest). */
static geom decode(const sf_layer *l, sf_phase ph, const sf_platform *p, const extents *e,
                   int64_t s)
{
    geom g;
    memset(&g, 0, sizeof g);
    if (l->kind == SF_CONV) {
        if (ph == SF_BP_C) { /* row, col, ti, to */
            g.to = s % e->nto, s /= e->nto;
            g.ti = s % e->nti, s /= e->nti;
            g.first_in = g.to == 0, g.last_in = g.to == e->nto - 1;
        } else { /* row, col, to, ti */
            g.ti = s % e->nti, s /= e->nti;
            g.to = s % e->nto, s /= e->nto;
            g.first_in = g.ti == 0, g.last_in = g.ti == e->nti - 1;
        }
        g.col = s % e->ncol;
        g.row = s / e->ncol;
        g.r0 = balanced_tile(l->r, p->tr, g.row, &g.tr);
        g.c0 = balanced_tile(l->c, p->tc, g.col, &g.tc);
        g.ih = (int64_t)l->sh * (g.tr - 1) + l->kh;
        g.iw = (int64_t)l->sw * (g.tc - 1) + l->kw;
        g.tm = min64(p->tn, l->m - g.to * p->tn);
        g.tn = min64(p->tn, l->n - g.ti * p->tn);
    } else {
        if (ph == SF_BP_F) { /* j, i */
            g.i = s % e->ni;
            g.j = s / e->ni;
            g.first_in = g.i == 0, g.last_in = g.i == e->ni - 1;
        } else { /* i, j */
            g.j = s % e->nj;
            g.i = s / e->nj;
            g.first_in = g.j == 0, g.last_in = g.j == e->nj - 1;
        }
        g.i0 = balanced_tile(l->m, p->tnn, g.i, &g.tm);
        g.j0 = balanced_tile(l->n, p->tnn, g.j, &g.tn);
    }
    return g;
}

/* Words, cycles and instruction counts of one sublayer (see the header
 * comment for the loop nests). */
static sf_sublayer_run values(const sf_layer *l, sf_phase ph, const sf_platform *p, const geom *g)
{
    sf_sublayer_run v;
    memset(&v, 0, sizeof v);
    v.count = 1;
    if (l->kind == SF_CONV) {
        int64_t kk = (int64_t)l->kh * l->kw;
        int64_t in_tile = g->tn * g->ih * g->iw, w_tile = g->tm * g->tn * kk;
        int64_t out_tile = g->tm * g->tr * g->tc;
        v.cycles = g->tr * g->tc * kk;
        v.macs = g->tm * g->tn * g->tr * g->tc * kk;
        if (ph == SF_FF_C) {
            v.load_words = in_tile + w_tile;
            v.load_instrs = (int)g->tn + 1;
            v.store_words = g->last_in ? out_tile : 0;
            v.store_instrs = g->last_in ? (int)g->tm : 0;
        } else if (ph == SF_BP_C) {
            v.load_words = out_tile + w_tile;
            v.load_instrs = (int)g->tm + 1;
            v.store_words = g->last_in ? in_tile : 0;
            v.store_instrs = g->last_in ? (int)g->tn : 0;
        } else { /* SF_GD_C */
            v.load_words = in_tile + (g->first_in ? out_tile : 0);
            v.load_instrs = (int)g->tn + (g->first_in ? (int)g->tm : 0);
            v.store_words = w_tile;
            v.store_instrs = 1;
        }
    } else {
        v.cycles = cdiv(g->tm, p->tn) * cdiv(g->tn, p->tn);
        v.macs = g->tm * g->tn;
        if (ph == SF_FF_F) {
            v.load_words = g->tm * g->tn + g->tn;
            v.load_instrs = 2;
            v.store_words = g->last_in ? g->tm : 0;
            v.store_instrs = g->last_in ? 1 : 0;
        } else if (ph == SF_BP_F) {
            v.load_words = g->tm * g->tn + g->tm;
            v.load_instrs = 2;
            v.store_words = g->last_in ? g->tn : 0;
            v.store_instrs = g->last_in ? 1 : 0;
        } else { /* SF_GD_F */
            v.load_words = g->tn + (g->first_in ? g->tm : 0);
            v.load_instrs = 1 + (g->first_in ? 1 : 0);
            v.store_words = g->tm * g->tn;
            v.store_instrs = 1;
        }
    }
    return v;
}

static int same_run(const sf_sublayer_run *a, const sf_sublayer_run *b)
{
    return a->load_words == b->load_words && a->store_words == b->store_words &&
           a->cycles == b->cycles && a->macs == b->macs && a->load_instrs == b->load_instrs &&
           a->store_instrs == b->store_instrs;
}

/* Extent of the innermost loop of phase ph, and the first index at which
 * its tile size changes (0 if it never does before the last index). */
static int64_t inner_loop(const sf_layer *l, sf_phase ph, const extents *e, int64_t *size_break)
{
    *size_break = 0;
    if (l->kind == SF_CONV)
        return ph == SF_BP_C ? e->nto : e->nti; /* Tn groups: only the last is short */
    int64_t n = ph == SF_BP_F ? e->ni : e->nj, extent = ph == SF_BP_F ? l->m : l->n;
    *size_break = extent % n; /* balanced tiles: the first extent % n are one larger */
    return n;
}

static int push_run(sf_sublayer_run **out, int *k, int *cap, const sf_sublayer_run *v)
{
    if (*k > 0 && same_run(&(*out)[*k - 1], v)) {
        (*out)[*k - 1].count += v->count;
        return 0;
    }
    if (*k == *cap) {
        sf_sublayer_run *grown = dnp_realloc(*out, (size_t)*cap * 2 * sizeof **out);
        if (grown == NULL)
            return -1;
        *out = grown;
        *cap *= 2;
    }
    (*out)[(*k)++] = *v;
    return 0;
}

/* Sublayers in loop order, run-length encoded.  Along the innermost loop
 * a sublayer depends only on whether it is the first or the last and on
 * which side of the size break it lies, so each outer iteration is at
 * most five segments of equal sublayers.  O(sublayers / inner extent). */
dnp_status sf_layer_sublayers(const sf_layer *l, sf_phase ph, const sf_platform *p,
                              sf_sublayer_run **runs, int *n_runs, dnp_error *err)
{
    int64_t n = sf_layer_n_sublayers(l, ph, p);
    if (n <= 0) {
        dnp_error_set(err, DNP_ERR_INTERNAL, "layer '%s' has no sublayers in phase %s", l->name,
                      sf_phase_name(ph));
        return DNP_ERR_INTERNAL;
    }
    extents e = layer_extents(l, p);
    int64_t brk = 0, inner = inner_loop(l, ph, &e, &brk);
    int64_t cuts[5] = {0, 1, brk, inner - 1, inner}, pts[5] = {0, 0, 0, 0, 0};
    int n_pts = 0;
    for (int i = 0; i < 5; i++) { /* sorted, unique, within [0, inner] */
        int64_t c = cuts[i] < 0 ? 0 : (cuts[i] > inner ? inner : cuts[i]);
        int at = n_pts;
        while (at > 0 && pts[at - 1] > c)
            at--;
        if (at > 0 && pts[at - 1] == c)
            continue;
        memmove(&pts[at + 1], &pts[at], (size_t)(n_pts - at) * sizeof pts[0]);
        pts[at] = c;
        n_pts++;
    }
    int cap = 16, k = 0;
    sf_sublayer_run *out = dnp_malloc((size_t)cap * sizeof *out);
    if (out == NULL)
        goto nomem;
    for (int64_t o = 0; o < n / inner; o++)
        for (int q = 0; q + 1 < n_pts; q++) {
            geom g = decode(l, ph, p, &e, o * inner + pts[q]);
            sf_sublayer_run v = values(l, ph, p, &g);
            v.count = pts[q + 1] - pts[q];
            if (push_run(&out, &k, &cap, &v) != 0)
                goto nomem;
        }
    *runs = out;
    *n_runs = k;
    return DNP_OK;
nomem:
    dnp_free(out);
    dnp_error_set(err, DNP_ERR_NOMEM, "out of memory tiling layer '%s'", l->name);
    return DNP_ERR_NOMEM;
}

/* Append one instruction if there is room; always counts it. */
static void emit(sf_mem_instr *out, int max, int *k, const char *mode, int64_t mem, int64_t ls,
                 int64_t length, int64_t stride, int64_t rep)
{
    if (*k < max) {
        sf_mem_instr *in = &out[*k];
        memcpy(in->mode, mode, 3);
        in->mem_addr = mem;
        in->ls_addr = ls;
        in->length = length;
        in->stride = stride;
        in->repetition = rep;
    }
    (*k)++;
}

/* Local-store bases as in Tables 3 and 4: input vector buffer VBi at 0,
 * matrix buffer MB at 4096, output vector buffer VBo at 20480. */
enum { LS_VBI = 0, LS_MB = 4096, LS_VBO = 20480 };

/*
 * The stride-access instructions of one CONV sublayer.  External layout
 * (words): input maps column-first at 0 (padded IH x IW each), weights
 * row-first [M][N][KH][KW] after them, output maps column-first (R x C)
 * after the weights.  Errors and gradients live where the values do.
 */
static int conv_instrs(const sf_layer *l, sf_phase ph, const sf_platform *p, const geom *g,
                       sf_mem_instr *out, int max)
{
    int k = 0;
    int64_t ihw = l->in_h * l->in_w, kk = (int64_t)l->kh * l->kw;
    int64_t base_w = l->n * ihw, base_out = base_w + l->m * l->n * kk;
    int64_t r0 = g->r0, c0 = g->c0, y0 = r0 * l->sh, x0 = c0 * l->sw;
    int64_t w_addr = base_w + (g->to * p->tn * l->n + g->ti * p->tn) * kk;
    int in_load = ph != SF_BP_C, out_load = ph == SF_BP_C || (ph == SF_GD_C && g->first_in);
    int64_t ls = LS_VBI;
    if (in_load)
        for (int64_t t = 0; t < g->tn; t++, ls += g->ih * g->iw)
            emit(out, max, &k, "LC", (g->ti * p->tn + t) * ihw + x0 * l->in_h + y0, ls, g->ih,
                 l->in_h, g->iw);
    if (out_load)
        for (int64_t t = 0; t < g->tm; t++, ls += g->tr * g->tc)
            emit(out, max, &k, "LC", base_out + (g->to * p->tn + t) * l->r * l->c + c0 * l->r + r0,
                 ls, g->tr, l->r, g->tc);
    if (ph != SF_GD_C)
        emit(out, max, &k, "LR", w_addr, LS_MB, g->tn * kk, l->n * kk, g->tm);
    /* stores */
    if (ph == SF_FF_C && g->last_in)
        for (int64_t t = 0; t < g->tm; t++)
            emit(out, max, &k, "SC", base_out + (g->to * p->tn + t) * l->r * l->c + c0 * l->r + r0,
                 LS_VBO + t * g->tr * g->tc, g->tr, l->r, g->tc);
    if (ph == SF_BP_C && g->last_in)
        for (int64_t t = 0; t < g->tn; t++)
            emit(out, max, &k, "SC", (g->ti * p->tn + t) * ihw + x0 * l->in_h + y0,
                 LS_VBO + t * g->ih * g->iw, g->ih, l->in_h, g->iw);
    if (ph == SF_GD_C)
        emit(out, max, &k, "SR", w_addr, LS_MB, g->tn * kk, l->n * kk, g->tm);
    return k;
}

/* FC layout: input vector at 0 (N1), weights row-first [M1][N1] at N1,
 * output vector after the weights. */
static int fc_instrs(const sf_layer *l, sf_phase ph, const geom *g, sf_mem_instr *out, int max)
{
    int k = 0;
    int64_t base_w = l->n, base_out = base_w + l->m * l->n;
    int64_t i0 = g->i0, j0 = g->j0, w_addr = base_w + i0 * l->n + j0;
    if (ph == SF_FF_F) {
        emit(out, max, &k, "LR", w_addr, LS_MB, g->tn, l->n, g->tm);
        emit(out, max, &k, "LR", j0, LS_VBI, g->tn, g->tn, 1);
        if (g->last_in)
            emit(out, max, &k, "SR", base_out + i0, LS_VBO, g->tm, g->tm, 1);
    } else if (ph == SF_BP_F) {
        emit(out, max, &k, "LR", w_addr, LS_MB, g->tn, l->n, g->tm);
        emit(out, max, &k, "LR", base_out + i0, LS_VBI, g->tm, g->tm, 1);
        if (g->last_in)
            emit(out, max, &k, "SR", j0, LS_VBO, g->tn, g->tn, 1);
    } else {
        emit(out, max, &k, "LR", j0, LS_VBI, g->tn, g->tn, 1);
        if (g->first_in)
            emit(out, max, &k, "LR", base_out + i0, LS_VBO, g->tm, g->tm, 1);
        emit(out, max, &k, "SR", w_addr, LS_MB, g->tn, l->n, g->tm);
    }
    return k;
}

int sf_sublayer_instrs(const sf_layer *l, sf_phase ph, const sf_platform *p, int64_t index,
                       sf_mem_instr *out, int max)
{
    int64_t n = sf_layer_n_sublayers(l, ph, p);
    if (index < 0 || index >= n)
        return -1;
    extents e = layer_extents(l, p);
    geom g = decode(l, ph, p, &e, index);
    return l->kind == SF_CONV ? conv_instrs(l, ph, p, &g, out, max)
                              : fc_instrs(l, ph, &g, out, max);
}
