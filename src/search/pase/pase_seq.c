/*
 * pase_seq.c - vertex sequences and their dependent sets.
 *
 * GenerateSeq (paper Fig. 3) is min-degree elimination: d[v] starts as
 * the undirected neighbours; repeatedly the unsequenced vertex with the
 * smallest |d[v]| is taken (ties to the smallest id, as the prototype's
 * argmin over its node table), then d[u] = (d[u] u d[v]) - {u, v} for
 * every u in d[v].  By Theorem 2 the d[v] at the time v is taken is its
 * dependent set D(i) of recurrence (4).
 *
 * The breadth-first sequence of section III-A has the dependent sets
 * D_B(i) = N(V<=i) n V>i of recurrence (2): the vertices discovered and
 * not yet processed, i.e. the BFS queue.
 */
#include "search/pase/pase.h"

#include <stdlib.h>
#include <string.h>

void pase_seq_free(pase_seq *s)
{
    if (s == NULL)
        return;
    dnp_free(s->order);
    dnp_free(s->pos);
    dnp_free(s->dep_start);
    dnp_free(s->dep);
    memset(s, 0, sizeof *s);
}

static int seq_alloc(pase_seq *s, int n)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->order = dnp_malloc((size_t)n * sizeof(int));
    s->pos = dnp_malloc((size_t)n * sizeof(int));
    s->dep_start = dnp_calloc((size_t)n + 1, sizeof(int));
    return s->order && s->pos && s->dep_start ? 0 : -1;
}

/* Sort each dependent set by position in the sequence (insertion sort:
 * the sets are small). */
static void sort_deps(pase_seq *s)
{
    for (int i = 0; i < s->n; i++) {
        int *d = s->dep + s->dep_start[i];
        int m = s->dep_start[i + 1] - s->dep_start[i];
        for (int a = 1; a < m; a++) {
            int x = d[a], b = a - 1;
            while (b >= 0 && s->pos[d[b]] > s->pos[x]) {
                d[b + 1] = d[b];
                b--;
            }
            d[b + 1] = x;
        }
    }
}

static int ctz64(uint64_t x)
{
    int n = 0;
    while (!(x & 1u)) {
        x >>= 1;
        n++;
    }
    return n;
}

static int popcount64(uint64_t x)
{
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}

dnp_status pase_generate_seq(const pase_problem *pb, pase_seq *s, dnp_error *err)
{
    int n = pb->n_v;
    size_t W = ((size_t)n + 63) / 64;
    uint64_t *d = dnp_calloc((size_t)n * W, sizeof(uint64_t));
    int *cnt = dnp_malloc((size_t)n * sizeof(int));
    char *done = dnp_calloc((size_t)n, 1);
    int *tmp = dnp_malloc((size_t)n * sizeof(int));
    size_t cap = (size_t)n + 16, used = 0;
    int *dep = dnp_malloc(cap * sizeof(int));
    if (seq_alloc(s, n) < 0 || !d || !cnt || !done || !tmp || !dep) {
        dnp_free(d), dnp_free(cnt), dnp_free(done), dnp_free(tmp), dnp_free(dep);
        pase_seq_free(s);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory sequencing %d ops", n);
        return DNP_ERR_NOMEM;
    }
    for (int v = 0; v < n; v++) {
        for (int i = pb->nb_start[v]; i < pb->nb_start[v + 1]; i++) {
            int u = pb->nb[i];
            d[(size_t)v * W + (size_t)u / 64] |= 1ULL << (u % 64);
        }
        cnt[v] = pb->nb_start[v + 1] - pb->nb_start[v];
    }
    for (int i = 0; i < n; i++) {
        int v = -1;
        for (int u = 0; u < n; u++) /* smallest |d|, ties to the smallest id */
            if (!done[u] && (v < 0 || cnt[u] < cnt[v]))
                v = u;
        done[v] = 1;
        s->order[i] = v;
        s->pos[v] = i;
        uint64_t *dv = d + (size_t)v * W;
        int m = 0;
        for (size_t w = 0; w < W; w++)
            for (uint64_t x = dv[w]; x; x &= x - 1)
                tmp[m++] = (int)(w * 64) + ctz64(x);
        if (used + (size_t)m > cap) {
            while (used + (size_t)m > cap)
                cap *= 2;
            int *nd = dnp_realloc(dep, cap * sizeof(int));
            if (nd == NULL) {
                dnp_free(d), dnp_free(cnt), dnp_free(done), dnp_free(tmp), dnp_free(dep);
                pase_seq_free(s);
                dnp_error_set(err, DNP_ERR_NOMEM, "out of memory sequencing %d ops", n);
                return DNP_ERR_NOMEM;
            }
            dep = nd;
        }
        memcpy(dep + used, tmp, (size_t)m * sizeof(int));
        s->dep_start[i] = (int)used;
        used += (size_t)m;
        for (int j = 0; j < m; j++) { /* d[u] = d[u] u d[v] - {u, v} */
            int u = tmp[j];
            uint64_t *du = d + (size_t)u * W;
            int c = 0;
            for (size_t w = 0; w < W; w++) {
                du[w] |= dv[w];
                if (w == (size_t)u / 64)
                    du[w] &= ~(1ULL << (u % 64));
                if (w == (size_t)v / 64)
                    du[w] &= ~(1ULL << (v % 64));
                c += popcount64(du[w]);
            }
            cnt[u] = c;
        }
    }
    s->dep_start[n] = (int)used;
    s->dep = dep;
    dnp_free(d), dnp_free(cnt), dnp_free(done), dnp_free(tmp);
    sort_deps(s);
    return DNP_OK;
}

dnp_status pase_bfs_seq(const pase_problem *pb, pase_seq *s, dnp_error *err)
{
    int n = pb->n_v;
    char *seen = dnp_calloc((size_t)n, 1);
    int *queue = dnp_malloc((size_t)n * sizeof(int));
    size_t cap = (size_t)n + 16, used = 0;
    int *dep = dnp_malloc(cap * sizeof(int));
    if (seq_alloc(s, n) < 0 || !seen || !queue || !dep) {
        dnp_free(seen), dnp_free(queue), dnp_free(dep);
        pase_seq_free(s);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory sequencing %d ops", n);
        return DNP_ERR_NOMEM;
    }
    int head = 0, tail = 0, next_start = 0;
    for (int i = 0; i < n; i++) {
        if (head == tail) { /* a new component at its smallest vertex */
            while (seen[next_start])
                next_start++;
            seen[next_start] = 1;
            queue[tail++] = next_start;
        }
        int v = queue[head++];
        s->order[i] = v;
        s->pos[v] = i;
        for (int k = pb->nb_start[v]; k < pb->nb_start[v + 1]; k++)
            if (!seen[pb->nb[k]]) {
                seen[pb->nb[k]] = 1;
                queue[tail++] = pb->nb[k];
            }
        size_t m = (size_t)(tail - head); /* D_B(i): discovered, not processed */
        if (used + m > cap) {
            while (used + m > cap)
                cap *= 2;
            int *nd = dnp_realloc(dep, cap * sizeof(int));
            if (nd == NULL) {
                dnp_free(seen), dnp_free(queue), dnp_free(dep);
                pase_seq_free(s);
                dnp_error_set(err, DNP_ERR_NOMEM, "out of memory sequencing %d ops", n);
                return DNP_ERR_NOMEM;
            }
            dep = nd;
        }
        memcpy(dep + used, queue + head, m * sizeof(int));
        s->dep_start[i] = (int)used;
        used += m;
    }
    s->dep_start[n] = (int)used;
    s->dep = dep;
    dnp_free(seen), dnp_free(queue);
    /* positions of queued vertices are assigned later, in queue order,
     * which is already the sorted order */
    return DNP_OK;
}
