/*
 * pase_dp.c - the dynamic program over a vertex sequence on flat tables:
 * FindBestStrategy (paper Fig. 4, recurrence 4) for GenerateSeq's
 * sequence and the breadth-first DP (recurrence 2) for the BFS one.
 *
 * Processing v = v^(i) builds the table T_v over its dependent set D(v):
 *
 *   T_v[phi] = min over C in C(v) of  t_l(v, C)
 *                                   + sum over edges (v, u), u later:  t_x(v = C, u = phi(u))
 *                                   + sum over tables T_w consumed by v: T_w[phi + (v = C)]
 *
 * which is H of Eq. 3 plus the R of the connected subsets S(i) in
 * Eq. 4: each earlier table T_w is consumed by the first-processed
 * vertex of D(w) (that vertex is in X(w)'s boundary, and D(w) minus it
 * lies in its own dependent set).  A table's layout makes its consumer
 * the fastest-varying index, so the consumer reads K_v contiguous
 * entries per combination of the other variables.  The argmin tables are
 * kept for back-substitution (last vertex first).
 *
 * Work is hoisted: the variables of D(v) are looped in the order that
 * minimises the additions, and a term is added at the loop level of its
 * deepest variable.  The outermost loop is split among threads; every
 * entry is computed the same way whatever the thread count, so results
 * do not depend on it.
 *
 * Ties: the lowest configuration index of the vertex being minimised
 * wins (a strictly smaller sum replaces the running minimum), for every
 * combination of its dependent set (docs/pase.md).
 */
#include "search/pase/pase.h"
#include "core/clock.h"
#include "core/alloc.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One vertex's elimination, shared by its worker threads (read-only). */
typedef struct {
    int Kv;            /* configurations of v */
    int m;             /* loop levels = |D(v)| */
    int *K;            /* [1..m] configurations of the level's variable */
    int64_t *ostride;  /* [1..m] stride of the level's variable in T_v */
    int T;             /* terms */
    const double **base;
    int64_t *tstride;  /* [t * (m + 1) + j]: stride of level j's variable in term t */
    int *lv_start;     /* terms of level j: lv_term[lv_start[j] .. lv_start[j + 1]) */
    int *lv_term;
    const double *acc0; /* t_l plus the level-0 terms */
    double *cost;      /* T_v */
    int32_t *arg;      /* argmin */
    double deadline_s; /* dnp_now_s() past which the workers stop; 0 = none */
} dp_job;

typedef struct {
    const dp_job *J;
    int lo, hi;        /* range of the outermost variable */
    double *buf;       /* (m + 1) * Kv accumulators */
    int64_t *off;      /* (m + 1) * T term offsets */
    int timed_out;     /* stopped at the deadline: the table is incomplete */
} dp_worker;

/* The innermost level: sum the last terms into the running total and
 * keep the first minimum.  Four independent lanes (lane i sees c = i mod
 * 4, each keeps its first minimum; among equal lane minima the lowest
 * index wins) break the compare chain; the sum is fused into the scan. */
#define LANE(i, expr)                                                                        \
    do {                                                                                     \
        double x_ = (expr);                                                                  \
        int lt_ = x_ < b##i;                                                                 \
        b##i = lt_ ? x_ : b##i;                                                              \
        a##i = lt_ ? c + (i) : a##i;                                                         \
    } while (0)

#define SCAN(expr_at)                                                                        \
    do {                                                                                     \
        for (; c + 3 < Kv; c += 4) {                                                         \
            LANE(0, expr_at(c));                                                             \
            LANE(1, expr_at(c + 1));                                                         \
            LANE(2, expr_at(c + 2));                                                         \
            LANE(3, expr_at(c + 3));                                                         \
        }                                                                                    \
        for (; c < Kv; c++) {                                                                \
            double x_ = expr_at(c);                                                          \
            if (x_ < b0) { /* lane 0 keeps the tail: indices ascend */                     \
                b0 = x_;                                                                     \
                a0 = c;                                                                      \
            }                                                                                \
        }                                                                                    \
    } while (0)

static void leaf(const dp_job *J, const double *prev, const double *const *tp, int L, double *tmp,
                 int64_t out)
{
    int Kv = J->Kv;
    const double *t0 = L > 0 ? tp[0] : NULL, *t1 = L > 1 ? tp[1] : NULL;
    if (L > 2) { /* rare: pre-sum all but the first two terms */
        for (int k = 0; k < Kv; k++) {
            double s = prev[k];
            for (int t = 2; t < L; t++)
                s += tp[t][k];
            tmp[k] = s;
        }
        prev = tmp;
    }
    double b0 = INFINITY, b1 = INFINITY, b2 = INFINITY, b3 = INFINITY;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int c = 0;
#define AT0(k) (prev[k])
#define AT1(k) (prev[k] + t0[k])
#define AT2(k) (prev[k] + t0[k] + t1[k])
    if (L == 0)
        SCAN(AT0);
    else if (L == 1)
        SCAN(AT1);
    else
        SCAN(AT2);
#undef AT0
#undef AT1
#undef AT2
    /* lane 0 also holds the tail, whose indices exceed every other lane's */
    double best = b0;
    int32_t arg = a0;
    if (b1 < best || (b1 == best && a1 < arg))
        best = b1, arg = a1;
    if (b2 < best || (b2 == best && a2 < arg))
        best = b2, arg = a2;
    if (b3 < best || (b3 == best && a3 < arg))
        best = b3, arg = a3;
    J->cost[out] = best;
    J->arg[out] = arg;
}

static void run_level(dp_worker *w, int j, const double *prev, int64_t out, int lo, int hi)
{
    const dp_job *J = w->J;
    int T = J->T, Kv = J->Kv;
    const int64_t *par = w->off + (size_t)(j - 1) * (size_t)T;
    int64_t *cur = w->off + (size_t)j * (size_t)T;
    const double *tp[64];
    int first = J->lv_start[j], L = J->lv_start[j + 1] - first;
    double *acc = w->buf + (size_t)j * (size_t)Kv;
    for (int c = lo; c < hi && !w->timed_out; c++) {
        /* the deadline, read on the two outer levels only (a clock read
         * per row of the inner ones would cost more than the row) */
        if (j <= 2 && J->deadline_s > 0.0 && dnp_now_s() >= J->deadline_s) {
            w->timed_out = 1;
            return;
        }
        for (int t = 0; t < T; t++)
            cur[t] = par[t] + J->tstride[(size_t)t * (size_t)(J->m + 1) + (size_t)j] * c;
        int64_t o = out + J->ostride[j] * c;
        if (L <= 64)
            for (int i = 0; i < L; i++) {
                int t = J->lv_term[first + i];
                tp[i] = J->base[t] + cur[t];
            }
        if (j == J->m && L <= 64) {
            leaf(J, prev, tp, L, acc, o);
            continue;
        }
        memcpy(acc, prev, (size_t)Kv * sizeof(double));
        for (int i = 0; i < L; i++) {
            int t = J->lv_term[first + i];
            const double *x = J->base[t] + cur[t];
            for (int k = 0; k < Kv; k++)
                acc[k] += x[k];
        }
        if (j == J->m)
            leaf(J, acc, tp, 0, w->buf + (size_t)(J->m + 1) * (size_t)Kv, o);
        else
            run_level(w, j + 1, acc, o, 0, J->K[j + 1]);
    }
}

static void *worker_main(void *arg)
{
    dp_worker *w = arg;
    const dp_job *J = w->J;
    if (J->m == 0) {
        leaf(J, J->acc0, NULL, 0, w->buf, 0);
        return NULL;
    }
    memset(w->off, 0, (size_t)J->T * sizeof(int64_t));
    run_level(w, 1, J->acc0, 0, w->lo, w->hi);
    return NULL;
}

/* ---- loop order ---------------------------------------------------- */

/* Additions of loop order perm (outer to inner) for terms given as bit
 * masks over D's members: sum over levels of rows so far * Kv * terms
 * there, plus the final minimum. */
static double order_work(int m, const int *perm, const int *K, int T, const unsigned *scope,
                         double Kv)
{
    double w = 0.0, rows = 1.0;
    int pos_of[32];
    for (int j = 0; j < m; j++)
        pos_of[perm[j]] = j;
    double per_level[33] = {0};
    for (int t = 0; t < T; t++) {
        int lv = 0;
        for (int x = 0; x < m; x++)
            if ((scope[t] >> x) & 1u)
                lv = pos_of[x] + 1 > lv ? pos_of[x] + 1 : lv;
        per_level[lv] += 1.0;
    }
    for (int j = 0; j < m; j++) {
        rows *= K[perm[j]];
        w += rows * Kv * per_level[j + 1];
    }
    return w + rows * Kv;
}

/* Best loop order by trying every permutation (m <= 6), else the
 * variables in most terms outermost.  Ties: the first permutation in
 * lexicographic order. */
static void choose_order(int m, const int *K, int T, const unsigned *scope, double Kv,
                         int *best)
{
    for (int j = 0; j < m; j++)
        best[j] = j;
    if (m <= 1)
        return;
    if (m > 6) {
        int cnt[64] = {0};
        for (int x = 0; x < m && x < 64; x++)
            for (int t = 0; t < T; t++)
                cnt[x] += (int)((scope[t] >> x) & 1u);
        for (int a = 1; a < m; a++) { /* stable: more terms first */
            int x = best[a], b = a - 1;
            while (b >= 0 && cnt[best[b]] < cnt[x]) {
                best[b + 1] = best[b];
                b--;
            }
            best[b + 1] = x;
        }
        return;
    }
    int perm[6];
    for (int j = 0; j < m; j++)
        perm[j] = j;
    double bw = order_work(m, perm, K, T, scope, Kv);
    /* lexicographic enumeration of permutations */
    for (;;) {
        int i = m - 2;
        while (i >= 0 && perm[i] > perm[i + 1])
            i--;
        if (i < 0)
            break;
        int k = m - 1;
        while (perm[k] < perm[i])
            k--;
        int t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
        for (int a = i + 1, b = m - 1; a < b; a++, b--)
            t = perm[a], perm[a] = perm[b], perm[b] = t;
        double w = order_work(m, perm, K, T, scope, Kv);
        if (w < bw) {
            bw = w;
            memcpy(best, perm, (size_t)m * sizeof(int));
        }
    }
}

/* ---- the search ------------------------------------------------------ */

typedef struct {
    int m;
    int64_t rows;
    int64_t *stride;   /* layout stride of each member of D(v), in dep order */
    double *cost;      /* freed once consumed */
    int32_t *arg;
} vtab;

static int K_of(const pase_problem *pb, int v) { return pb->cfg[v].n; }

double pase_dp_estimate(const pase_problem *pb, const pase_seq *s, int threads, double *max_rows,
                        double *work)
{
    int n = s->n;
    double *release = dnp_calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    if (release == NULL)
        return INFINITY;
    double live = 0.0, args = 0.0, peak = 0.0, mr = 0.0, wk = 0.0;
    if (threads < 1)
        threads = 1;
    for (int i = 0; i < n; i++) {
        int v = s->order[i];
        double r = 1.0;
        for (int k = s->dep_start[i]; k < s->dep_start[i + 1]; k++)
            r *= K_of(pb, s->dep[k]);
        double Kv = K_of(pb, v), em = 0.0;
        for (int k = pb->nb_start[v]; k < pb->nb_start[v + 1]; k++)
            if (s->pos[pb->nb[k]] > i)
                em += (double)K_of(pb, pb->nb[k]) * Kv * 8.0;
        int m = s->dep_start[i + 1] - s->dep_start[i];
        double bufs = threads * (m + 2.0) * Kv * 8.0;
        double step = live + args + r * 12.0 + em + bufs;
        if (step > peak)
            peak = step;
        if (r > mr)
            mr = r;
        wk += r * Kv;
        live -= release[i]; /* tables consumed by v */
        if (m > 0)
            release[s->pos[s->dep[s->dep_start[i]]]] += r * 8.0;
        live += r * 8.0;
        args += r * 4.0;
    }
    dnp_free(release);
    if (max_rows)
        *max_rows = mr;
    if (work)
        *work = wk;
    return peak;
}

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > PASE_MAX_THREADS ? PASE_MAX_THREADS : (int)n);
}

/* Build the K_u x K_v matrix of all edges between v and a later u:
 * em[cu * Kv + cv] += t_x. */
static dnp_status edge_matrix(const pase_problem *pb, int v, int u, double *em)
{
    int Kv = K_of(pb, v), Ku = K_of(pb, u);
    memset(em, 0, (size_t)Ku * (size_t)Kv * sizeof(double));
    for (int i = pb->inc_start[v]; i < pb->inc_start[v + 1]; i++) {
        int k = pb->inc[i];
        const iter_read *e = &pb->g->read[pb->edge[k]];
        if (!((e->src == v && e->dst == u) || (e->src == u && e->dst == v)))
            continue;
        const pase_side *s = &pb->src[k], *d = &pb->dst[k];
        int r = e->rank;
        double *P = dnp_malloc((size_t)s->n_proj * (size_t)d->n_proj * sizeof(double));
        if (P == NULL)
            return DNP_ERR_NOMEM;
        for (int a = 0; a < s->n_proj; a++)
            for (int b = 0; b < d->n_proj; b++)
                P[(size_t)a * (size_t)d->n_proj + (size_t)b] = pase_problem_transfer(
                    pb, r, s->part + (size_t)a * (size_t)r, d->part + (size_t)b * (size_t)r,
                    s->procs[a], d->procs[b]);
        for (int cu = 0; cu < Ku; cu++) {
            double *row = em + (size_t)cu * (size_t)Kv;
            if (e->src == v) {
                const double *col = P + (size_t)d->proj_of[cu];
                for (int cv = 0; cv < Kv; cv++)
                    row[cv] += col[(size_t)s->proj_of[cv] * (size_t)d->n_proj];
            } else {
                const double *prow = P + (size_t)s->proj_of[cu] * (size_t)d->n_proj;
                for (int cv = 0; cv < Kv; cv++)
                    row[cv] += prow[d->proj_of[cv]];
            }
        }
        dnp_free(P);
    }
    return DNP_OK;
}

typedef struct {
    const pase_problem *pb;
    const pase_seq *s;
    vtab *tab;
    int *bucket_start, *bucket; /* tables consumed by each vertex */
    int *mark;                  /* scratch: loop level + 1 of a vertex in D(v), else 0 */
    int threads;
    double deadline_s;          /* 0 = none */
    int timed_out;              /* a vertex stopped at the deadline */
} dp_ctx;

/* Eliminate the i-th vertex of the sequence. */
static dnp_status eliminate(dp_ctx *X, int i, dnp_error *err)
{
    const pase_problem *pb = X->pb;
    const pase_seq *s = X->s;
    int v = s->order[i], Kv = K_of(pb, v);
    const int *D = s->dep + s->dep_start[i];
    int m = s->dep_start[i + 1] - s->dep_start[i];
    vtab *tv = &X->tab[v];
    dnp_status st = DNP_ERR_NOMEM;

    /* neighbours processed later than v get an edge term each */
    int n_em = 0;
    for (int k = pb->nb_start[v]; k < pb->nb_start[v + 1]; k++)
        n_em += s->pos[pb->nb[k]] > i;
    int nb_tab = X->bucket_start[v + 1] - X->bucket_start[v];
    int T = n_em + nb_tab;
    double **em = dnp_calloc((size_t)n_em + 1, sizeof(double *));
    int *em_u = dnp_malloc(((size_t)n_em + 1) * sizeof(int));
    const double **base = dnp_malloc(((size_t)T + 1) * sizeof(double *));
    unsigned *scope = dnp_calloc((size_t)T + 1, sizeof(unsigned));
    int64_t *tstride_d = dnp_calloc(((size_t)T + 1) * ((size_t)m + 1), sizeof(int64_t));
    int *perm = dnp_malloc(((size_t)m + 1) * sizeof(int));
    int *Kd = dnp_malloc(((size_t)m + 1) * sizeof(int));
    double *acc0 = dnp_malloc((size_t)Kv * sizeof(double));
    dp_job J;
    memset(&J, 0, sizeof J);
    J.K = dnp_malloc(((size_t)m + 2) * sizeof(int));
    J.ostride = dnp_malloc(((size_t)m + 2) * sizeof(int64_t));
    J.tstride = dnp_calloc(((size_t)T + 1) * ((size_t)m + 1), sizeof(int64_t));
    J.lv_start = dnp_calloc((size_t)m + 3, sizeof(int));
    J.lv_term = dnp_malloc(((size_t)T + 1) * sizeof(int));
    dp_worker *wk = NULL;
    pthread_t *tid = NULL;
    int nth = 1;
    if (!em || !em_u || !base || !scope || !tstride_d || !perm || !Kd || !acc0 || !J.K ||
        !J.ostride || !J.tstride || !J.lv_start || !J.lv_term)
        goto done;
    if (m > 32) {
        dnp_error_set(err, DNP_ERR_INPUT, "op '%s' has a dependent set of %d ops (at most 32)",
                      pb->g->nest[v].name, m);
        st = DNP_ERR_INPUT;
        goto done;
    }
    for (int j = 0; j < m; j++) {
        X->mark[D[j]] = j + 1;
        Kd[j] = K_of(pb, D[j]);
    }
    /* T_v's layout: D in sequence order, the first (its consumer) fastest */
    tv->m = m;
    tv->stride = dnp_malloc(((size_t)m + 1) * sizeof(int64_t));
    if (tv->stride == NULL)
        goto done;
    int64_t rows = 1;
    for (int j = 0; j < m; j++) {
        tv->stride[j] = rows;
        rows *= Kd[j];
    }
    tv->rows = rows;
    tv->cost = dnp_malloc((size_t)rows * sizeof(double));
    tv->arg = dnp_malloc((size_t)rows * sizeof(int32_t));
    if (tv->cost == NULL || tv->arg == NULL)
        goto done;

    /* terms: edge matrices, then the consumed tables */
    int t = 0;
    for (int k = pb->nb_start[v]; k < pb->nb_start[v + 1]; k++) {
        int u = pb->nb[k];
        if (s->pos[u] <= i)
            continue;
        if (X->mark[u] == 0) {
            dnp_error_set(err, DNP_ERR_INTERNAL, "op '%s': neighbour '%s' not in its dependent set",
                          pb->g->nest[v].name, pb->g->nest[u].name);
            st = DNP_ERR_INTERNAL;
            goto done;
        }
        em[t] = dnp_malloc((size_t)K_of(pb, u) * (size_t)Kv * sizeof(double));
        if (em[t] == NULL || edge_matrix(pb, v, u, em[t]) != DNP_OK)
            goto done;
        em_u[t] = u;
        base[t] = em[t];
        scope[t] = 1u << (unsigned)(X->mark[u] - 1);
        tstride_d[(size_t)t * ((size_t)m + 1) + (size_t)(X->mark[u] - 1)] = Kv;
        t++;
    }
    for (int b = X->bucket_start[v]; b < X->bucket_start[v + 1]; b++, t++) {
        int w = X->bucket[b];
        const vtab *tw = &X->tab[w];
        const int *Dw = s->dep + s->dep_start[s->pos[w]];
        base[t] = tw->cost;
        for (int j = 1; j < tw->m; j++) { /* Dw[0] == v has stride 1 */
            int x = Dw[j];
            if (X->mark[x] == 0) {
                dnp_error_set(err, DNP_ERR_INTERNAL,
                              "dependent set of '%s' is not within that of '%s'",
                              pb->g->nest[w].name, pb->g->nest[v].name);
                st = DNP_ERR_INTERNAL;
                goto done;
            }
            scope[t] |= 1u << (unsigned)(X->mark[x] - 1);
            tstride_d[(size_t)t * ((size_t)m + 1) + (size_t)(X->mark[x] - 1)] = tw->stride[j];
        }
    }

    /* loop order and levels */
    choose_order(m, Kd, T, scope, (double)Kv, perm);
    for (int j = 1; j <= m; j++) {
        J.K[j] = Kd[perm[j - 1]];
        J.ostride[j] = tv->stride[perm[j - 1]];
        for (int q = 0; q < T; q++)
            J.tstride[(size_t)q * ((size_t)m + 1) + (size_t)j] =
                tstride_d[(size_t)q * ((size_t)m + 1) + (size_t)perm[j - 1]];
    }
    int *lv = dnp_calloc((size_t)T + 1, sizeof(int));
    if (lv == NULL)
        goto done;
    for (int q = 0; q < T; q++) {
        for (int j = 1; j <= m; j++)
            if ((scope[q] >> (unsigned)perm[j - 1]) & 1u)
                lv[q] = j;
        J.lv_start[lv[q] + 1]++;
    }
    for (int j = 0; j <= m + 1; j++)
        J.lv_start[j + 1] += J.lv_start[j];
    int *fill = dnp_malloc(((size_t)m + 2) * sizeof(int));
    if (fill == NULL) {
        dnp_free(lv);
        goto done;
    }
    memcpy(fill, J.lv_start, ((size_t)m + 2) * sizeof(int));
    for (int q = 0; q < T; q++)
        J.lv_term[fill[lv[q]]++] = q;
    dnp_free(fill);
    dnp_free(lv);
    /* level 0: t_l plus the terms over v alone */
    memcpy(acc0, pb->tl[v], (size_t)Kv * sizeof(double));
    for (int q = J.lv_start[0]; q < J.lv_start[1]; q++)
        for (int c = 0; c < Kv; c++)
            acc0[c] += base[J.lv_term[q]][c];
    J.Kv = Kv;
    J.m = m;
    J.T = T;
    J.base = base;
    J.acc0 = acc0;
    J.cost = tv->cost;
    J.arg = tv->arg;
    J.deadline_s = X->deadline_s;

    /* run, splitting the outermost variable among threads */
    double work = (double)rows * Kv;
    if (m > 0 && X->threads > 1 && work >= 4e6)
        nth = X->threads < J.K[1] ? X->threads : J.K[1];
    wk = dnp_calloc((size_t)nth, sizeof *wk);
    tid = dnp_calloc((size_t)nth, sizeof *tid);
    if (wk == NULL || tid == NULL)
        goto done;
    int ok = 1;
    for (int q = 0; q < nth; q++) {
        wk[q].J = &J;
        wk[q].lo = m > 0 ? (int)((int64_t)J.K[1] * q / nth) : 0;
        wk[q].hi = m > 0 ? (int)((int64_t)J.K[1] * (q + 1) / nth) : 0;
        wk[q].buf = dnp_malloc(((size_t)m + 2) * (size_t)Kv * sizeof(double));
        wk[q].off = dnp_calloc(((size_t)m + 1) * ((size_t)T + 1), sizeof(int64_t));
        if (wk[q].buf == NULL || wk[q].off == NULL)
            ok = 0;
    }
    if (!ok)
        goto done;
    int started = 0;
    for (int q = 1; q < nth; q++) {
        if (pthread_create(&tid[q], NULL, worker_main, &wk[q]) != 0)
            break;
        started = q;
    }
    worker_main(&wk[0]);
    for (int q = started + 1; q < nth; q++) /* threads that did not start: run here */
        worker_main(&wk[q]);
    for (int q = 1; q <= started; q++)
        pthread_join(tid[q], NULL);
    for (int q = 0; q < nth; q++)
        X->timed_out |= wk[q].timed_out;
    st = DNP_OK;

done:
    for (int j = 0; j < m; j++)
        X->mark[D[j]] = 0;
    /* the consumed tables are no longer needed */
    if (st == DNP_OK)
        for (int b = X->bucket_start[v]; b < X->bucket_start[v + 1]; b++) {
            dnp_free(X->tab[X->bucket[b]].cost);
            X->tab[X->bucket[b]].cost = NULL;
        }
    for (int q = 0; em && q < n_em; q++)
        dnp_free(em[q]);
    for (int q = 0; wk && q < nth; q++) {
        dnp_free(wk[q].buf);
        dnp_free(wk[q].off);
    }
    dnp_free(wk), dnp_free(tid);
    dnp_free(em), dnp_free(em_u), dnp_free(base), dnp_free(scope), dnp_free(tstride_d), dnp_free(perm), dnp_free(Kd);
    dnp_free(acc0);
    dnp_free(J.K), dnp_free(J.ostride), dnp_free(J.tstride), dnp_free(J.lv_start), dnp_free(J.lv_term);
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory in the PaSE table of op '%s'", pb->g->nest[v].name);
    return st;
}

void pase_result_free(pase_result *r)
{
    if (r == NULL)
        return;
    dnp_free(r->cfg);
    r->cfg = NULL;
}

dnp_status pase_dp_run(const pase_problem *pb, const pase_seq *s, const pase_search_opts *o,
                       pase_result *res, dnp_error *err)
{
    double t0 = dnp_now_s();
    int n = s->n;
    int threads = o && o->threads > 0 ? o->threads : online_cpus();
    double max_rows = 0.0, work = 0.0;
    unsigned long fails0 = dnp_alloc_failures();
    double need = pase_dp_estimate(pb, s, threads, &max_rows, &work);
    if (dnp_alloc_failures() != fails0) { /* not the guard's refusal: no memory to estimate */
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory estimating the PaSE tables");
        return DNP_ERR_NOMEM;
    }
    int max_dep = 0, worst = 0;
    for (int i = 0; i < n; i++)
        if (s->dep_start[i + 1] - s->dep_start[i] > max_dep) {
            max_dep = s->dep_start[i + 1] - s->dep_start[i];
            worst = s->order[i];
        }
    if (!(need <= pb->par.max_bytes) || max_rows > 4e18) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "the PaSE tables would need %.4g MiB (largest %.4g rows, dependent sets of "
                      "up to %d ops, at '%s'), over --max-memory %.0f MiB",
                      need / 1048576.0, max_rows, max_dep, pb->g->nest[worst].name,
                      pb->par.max_bytes / 1048576.0);
        return DNP_ERR_INPUT;
    }
    dp_ctx X;
    memset(&X, 0, sizeof X);
    X.pb = pb;
    X.s = s;
    X.threads = threads;
    if (o != NULL)
        X.deadline_s = o->deadline_s > 0.0 ? o->deadline_s : dnp_deadline_at(t0, o->time_limit_s);
    X.tab = dnp_calloc((size_t)n, sizeof *X.tab);
    X.bucket_start = dnp_calloc((size_t)n + 2, sizeof(int));
    X.bucket = dnp_malloc(((size_t)n + 1) * sizeof(int));
    X.mark = dnp_calloc((size_t)n, sizeof(int));
    int *cfg = dnp_malloc((size_t)n * sizeof(int));
    dnp_status st = DNP_ERR_NOMEM;
    if (!X.tab || !X.bucket_start || !X.bucket || !X.mark || !cfg) {
        dnp_error_set(err, st, "out of memory starting the PaSE search");
        goto done;
    }
    /* consumer of T_w: the first of D(w) in the sequence */
    for (int i = 0; i < n; i++)
        if (s->dep_start[i + 1] > s->dep_start[i])
            X.bucket_start[s->dep[s->dep_start[i]] + 1]++;
    for (int v = 0; v < n; v++)
        X.bucket_start[v + 1] += X.bucket_start[v];
    {
        int *fill = dnp_malloc(((size_t)n + 1) * sizeof(int));
        if (fill == NULL) {
            dnp_error_set(err, st, "out of memory starting the PaSE search");
            goto done;
        }
        memcpy(fill, X.bucket_start, (size_t)n * sizeof(int));
        for (int i = 0; i < n; i++) /* in sequence order */
            if (s->dep_start[i + 1] > s->dep_start[i])
                X.bucket[fill[s->dep[s->dep_start[i]]]++] = s->order[i];
        dnp_free(fill);
    }
    double last = 0.0;
    int shown = 0;
    for (int i = 0; i < n; i++) {
        if ((st = eliminate(&X, i, err)) != DNP_OK)
            goto done;
        double el = dnp_now_s() - t0;
        if (X.timed_out || (i + 1 < n && dnp_deadline_passed(X.deadline_s))) {
            st = DNP_ERR_INPUT;
            dnp_error_set(err, st,
                          "time limit of %g s reached in the PaSE search after %d of %d vertices; "
                          "the DP has no partial strategy to return (a larger --time-limit, or "
                          "--search mcmc, which returns its best so far)",
                          o->time_limit_s, i + (X.timed_out ? 0 : 1), n);
            goto done;
        }
        if (o && o->progress && el >= 1.0 && el - last >= 0.25) {
            o->progress(o->progress_user, i + 1, n, el);
            last = el;
            shown = 1;
        }
    }
    if (shown)
        o->progress(o->progress_user, n, n, dnp_now_s() - t0);
    /* the total: the tables with an empty dependent set (one per component) */
    double total = 0.0;
    for (int i = 0; i < n; i++)
        if (s->dep_start[i + 1] == s->dep_start[i])
            total += X.tab[s->order[i]].cost[0];
    /* back-substitution, last vertex first */
    for (int i = n - 1; i >= 0; i--) {
        int v = s->order[i];
        const vtab *tv = &X.tab[v];
        int64_t idx = 0;
        for (int j = 0; j < tv->m; j++)
            idx += tv->stride[j] * cfg[s->dep[s->dep_start[i] + j]];
        cfg[v] = tv->arg[idx];
    }
    memset(res, 0, sizeof *res);
    res->cost = total;
    res->cfg = cfg;
    cfg = NULL;
    res->table_bytes = pase_dp_estimate(pb, s, 1, NULL, NULL); /* reported: thread-free */
    res->max_rows = max_rows;
    res->work = work;
    res->max_dep = max_dep;
    res->search_s = dnp_now_s() - t0;
    st = DNP_OK;
done:
    for (int v = 0; X.tab && v < n; v++) {
        dnp_free(X.tab[v].cost);
        dnp_free(X.tab[v].arg);
        dnp_free(X.tab[v].stride);
    }
    dnp_free(X.tab), dnp_free(X.bucket_start), dnp_free(X.bucket), dnp_free(X.mark), dnp_free(cfg);
    return st;
}

dnp_status pase_search(const pase_problem *pb, int bfs, const pase_search_opts *o,
                       pase_result *res, dnp_error *err)
{
    double t0 = dnp_now_s();
    pase_seq s;
    dnp_status st = bfs ? pase_bfs_seq(pb, &s, err) : pase_generate_seq(pb, &s, err);
    if (st != DNP_OK)
        return st;
    double max_rows = 0.0;
    if (!bfs && o != NULL && o->pin_over_guard &&
        !(pase_dp_estimate(pb, &s, PASE_MAX_THREADS, &max_rows, NULL) <=
              pb->par.max_bytes &&
          max_rows <= 4e18))
        st = pase_search_pinned(pb, &s, o, res, err); /* a dense graph (paper sec. V) */
    else
        st = pase_dp_run(pb, &s, o, res, err);
    pase_seq_free(&s);
    if (st == DNP_OK)
        res->search_s = dnp_now_s() - t0;
    return st;
}
