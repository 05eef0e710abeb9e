/*
 * pase_cost.c - the PaSE cost model (paper Eq. 1): the layer cost t_l of
 * every op kind and the transfer cost t_x of an edge, in FLOP-equivalents,
 * exactly as the reference README states them ("Layer costs", "Transfer
 * cost t_x").  Every quantity is per device and real-valued; the order of
 * the floating-point operations follows the prototype's so that the
 * reference tables match to rounding.
 */
#include "search/pase/pase.h"

#define BIT(d) (1u << (unsigned)(d))

/* README "Layer costs": AR(w, q) = r_w * (w / q) * 2 * (q - 1), zero when
 * q = 1 (a ring all-reduce of w words over q devices). */
static double all_reduce(double words, double procs, double r_w)
{
    double chunks = words / procs;
    double steps = 2.0 * (procs - 1.0);
    return r_w * (chunks * steps);
}

/* README "Layer costs", GEMM: t = nb * [3mnk + 3 pw mn + AR(mn, c_K) +
 * AR(mk, c_N) + AR(nk, c_M)]. */
static double gemm(double nb, double M, double N, double K, double cm, double cn, double ck,
                   int pw, double r_w)
{
    double m = M / cm, n = N / cn, k = K / ck;
    double comp = m * n * k * 3.0;
    if (pw > 0)
        comp += (3.0 * pw) * (m * n);
    double comm = all_reduce(m * n, ck, r_w);
    comm += all_reduce(m * k, cn, r_w);
    comm += all_reduce(n * k, cm, r_w);
    return nb * (comp + comm);
}

/* A GEMM-like op from its dimension roles: batch dims each divide, the
 * M, N, K extents are products of their dims. */
static double gemm_roles(const iter_nest *v, const int32_t *c, double r_w)
{
    double nb = 1.0, M = 1, N = 1, K = 1, cm = 1, cn = 1, ck = 1;
    for (int d = 0; d < v->rank; d++) {
        unsigned b = BIT(d);
        if (v->gemm_b & b)
            nb *= (double)v->dom[d] / c[d];
        else if (v->gemm_m & b)
            M *= (double)v->dom[d], cm *= c[d];
        else if (v->gemm_n & b)
            N *= (double)v->dom[d], cn *= c[d];
        else if (v->gemm_k & b)
            K *= (double)v->dom[d], ck *= c[d];
    }
    return gemm(nb, M, N, K, cm, cn, ck, v->pw, r_w);
}

/* E = prod(dom / config), the per-device volume of the domain. */
static double volume(const iter_nest *v, const int32_t *c)
{
    double e = 1.0;
    for (int d = 0; d < v->rank; d++)
        e *= (double)v->dom[d] / c[d];
    return e;
}

/* The words a device needs of a target block that it does not hold of a
 * source block (README "Transfer cost": need, without the factor 2). */
double pase_need_words(int rank, const double *a_src, const double *a_dst, double p_src,
                         double p_dst)
{
    double area = 1.0, inter = 1.0;
    for (int i = 0; i < rank; i++) {
        area *= a_dst[i];
        inter *= a_dst[i] < a_src[i] ? a_dst[i] : a_src[i];
    }
    if (p_dst > p_src)
        inter = 0.0; /* some target device holds no source data */
    double need = area - inter;
    return need > 0.0 ? need : 0.0;
}

/* README "Layer costs", LSTM: GEMM on (L, S*B, 4N, 2K) with pw = 3, plus
 * L * S * r_w * need from a (B/c_B, N/c_N) block to a (B/c_B, K/c_K) one. */
static double lstm(const iter_nest *v, const int32_t *c, double r_w)
{
    double L = (double)v->dom[0], S = (double)v->dom[1], B = (double)v->dom[2];
    double N = (double)v->dom[3], K = (double)v->dom[4];
    double t = gemm(L / c[0], S * B, 4.0 * N, 2.0 * K, (double)c[1] * c[2], c[3], c[4], 3, r_w);
    double a_out[2] = {B / c[2], N / c[3]}, a_in[2] = {B / c[2], K / c[4]};
    double words = pase_need_words(2, a_out, a_in, (double)c[2] * c[3], (double)c[2] * c[4]);
    return t + (L * S) * (r_w * words);
}

/* README "Layer costs", pooling: E + r_w * ghost, the halo of a window
 * R x S on the input (h, w) when h or w is split. */
static double pooling(const iter_nest *v, const int32_t *c, double r_w)
{
    double h = (double)v->in_h / c[2], w = (double)v->in_w / c[3];
    double hg = h + (c[2] > 1 ? v->win_r : 0), wg = w + (c[3] > 1 ? v->win_s : 0);
    double ghost = hg * wg - h * w;
    ghost *= (double)v->dom[0] / c[0];
    ghost *= (double)v->dom[1] / c[1];
    return volume(v, c) + r_w * ghost;
}

/* README "Layer costs", norm over axis a: 16E + 4 AR(E / (dom_a / c_a), c_a)
 * + 4 AR(dom_a / c_a, prod_{i != a} c_i). */
static double norm(const iter_nest *v, const int32_t *c, double r_w)
{
    int a = v->axis;
    double e = volume(v, c), per_a = (double)v->dom[a] / c[a], others = 1.0;
    for (int d = 0; d < v->rank; d++)
        if (d != a)
            others *= c[d];
    double t = (2 * 8.0) * e;
    t += 4.0 * all_reduce(e / per_a, c[a], r_w);
    t += 4.0 * all_reduce(per_a, others, r_w);
    return t;
}

/* README "Layer costs", softmax over axis a: 4E + E dom_a + AR(e, c_a) +
 * AR(e dom_a, c_a) + AR(e, c_a) with e = E / (dom_a / c_a). */
static double softmax(const iter_nest *v, const int32_t *c, double r_w)
{
    int a = v->axis;
    double e = volume(v, c), rows = 1.0;
    for (int d = 0; d < v->rank; d++)
        if (d != a)
            rows *= (double)v->dom[d] / c[d];
    double t = (3.0 + 1.0) * e;
    t += e * (double)v->dom[a];
    t += all_reduce(rows, c[a], r_w);
    t += all_reduce(rows * (double)v->dom[a], c[a], r_w);
    t += all_reduce(rows, c[a], r_w);
    return t;
}

/* README "Layer costs", softmax cross-entropy: 4E + 2 beta + [c_last > 1]
 * 2 beta r_w, beta = prod(dom[:-1] / config[:-1]). */
static double sce(const iter_nest *v, const int32_t *c, double r_w)
{
    int last = v->rank - 1;
    double beta = 1.0;
    for (int d = 0; d < last; d++)
        beta *= (double)v->dom[d] / c[d];
    double t = (3.0 + 1.0) * volume(v, c);
    t += beta;
    t += beta;
    if (c[last] > 1)
        t += r_w * (2.0 * beta);
    return t;
}

double pase_layer_cost(const iter_nest *v, const int32_t *c, double r_w)
{
    switch (v->kind) {
    case ITER_CONV:
    case ITER_GROUP_CONV: /* g a GEMM batch dim (iter_nests.c, docs/pase.md) */
    case ITER_FC:
    case ITER_EINSUM:
        return gemm_roles(v, c, r_w);
    case ITER_LSTM:
        return lstm(v, c, r_w);
    case ITER_POOL:
        return pooling(v, c, r_w);
    case ITER_ELEMWISE: /* (1 + pw) E */
        return (1.0 + v->pw) * volume(v, c);
    case ITER_NORM:
        return norm(v, c, r_w);
    case ITER_REDUCE_MEAN: { /* AR(E, prod over the axes of c) */
        double procs = 1.0;
        for (int d = 0; d < v->rank; d++)
            if (v->axes & BIT(d))
                procs *= c[d];
        return all_reduce(volume(v, c), procs, r_w);
    }
    case ITER_SOFTMAX:
        return softmax(v, c, r_w);
    case ITER_SCE:
        return sce(v, c, r_w);
    case ITER_CONCAT:
    case ITER_STACK:
    case ITER_UNSTACK:
    case ITER_RAVEL:
    case ITER_UNRAVEL:
    case ITER_SLICE:
    case ITER_KIND_COUNT:
        break; /* they only map configurations onto tensors */
    }
    return 0.0;
}

void pase_project(const iter_read *e, int dst_side, const int32_t *cfg, int32_t *split)
{
    const unsigned *map = dst_side ? e->dst_map : e->src_map;
    for (int t = 0; t < e->rank; t++) {
        int32_t s = 1;
        for (unsigned m = map[t], d = 0; m != 0; m >>= 1, d++)
            if (m & 1u)
                s *= cfg[d];
        split[t] = s;
    }
}

double pase_transfer_parts(int rank, const double *a_src, const double *a_dst, double p_src,
                           double p_dst, double r_w)
{
    return r_w * (pase_need_words(rank, a_src, a_dst, p_src, p_dst) * 2.0);
}

double pase_transfer_cost(int rank, const int64_t *shape, const int32_t *src_split,
                          const int32_t *dst_split, double r_w)
{
    double a_s[ITER_MAX_RANK], a_g[ITER_MAX_RANK], p_s = 1.0, p_g = 1.0;
    for (int i = 0; i < rank; i++) {
        a_s[i] = (double)shape[i] / src_split[i];
        a_g[i] = (double)shape[i] / dst_split[i];
        p_s *= src_split[i];
        p_g *= dst_split[i];
    }
    return r_w * (pase_need_words(rank, a_s, a_g, p_s, p_g) * 2.0);
}
