/*
 * pase_problem.c - an iteration space bound to p devices and the hardware ratio
 * r: every vertex's configurations with their layer costs t_l, every
 * active edge's endpoint projections (so that t_x of any pair of
 * configurations is a few operations), the adjacency the searches walk,
 * and the objective F of Eq. 1.
 */
#include "search/pase/pase.h"
#include "core/clock.h"
#include "search/pase/pase_perf.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Deduplicate the projections of one endpoint's configurations onto the
 * edge's tensor (open addressing on the split tuples). */
static dnp_status build_side(const iter_read *e, int dst_side, const pase_configs *cf,
                             pase_side *s)
{
    memset(s, 0, sizeof *s);
    int r = e->rank, n = cf->n;
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap *= 2;
    int32_t *keys = dnp_malloc((size_t)n * (size_t)r * sizeof(int32_t));
    int *slot = dnp_malloc(cap * sizeof(int));
    s->proj_of = dnp_malloc((size_t)n * sizeof(int32_t));
    if (keys == NULL || slot == NULL || s->proj_of == NULL) {
        dnp_free(keys);
        dnp_free(slot);
        dnp_free(s->proj_of);
        s->proj_of = NULL;
        return DNP_ERR_NOMEM;
    }
    for (size_t i = 0; i < cap; i++)
        slot[i] = -1;
    for (int c = 0; c < n; c++) {
        int32_t split[ITER_MAX_RANK];
        pase_project(e, dst_side, cf->c + (size_t)c * (size_t)cf->rank, split);
        uint64_t h = 1469598103934665603ULL;
        for (int t = 0; t < r; t++)
            h = (h ^ (uint64_t)(uint32_t)split[t]) * 1099511628211ULL;
        size_t i = (size_t)h & (cap - 1);
        for (;; i = (i + 1) & (cap - 1)) {
            if (slot[i] < 0) {
                slot[i] = s->n_proj;
                memcpy(keys + (size_t)s->n_proj * (size_t)r, split, (size_t)r * sizeof(int32_t));
                s->proj_of[c] = s->n_proj++;
                break;
            }
            if (memcmp(keys + (size_t)slot[i] * (size_t)r, split, (size_t)r * sizeof(int32_t)) ==
                0) {
                s->proj_of[c] = slot[i];
                break;
            }
        }
    }
    dnp_free(slot);
    s->part = dnp_malloc((size_t)s->n_proj * (size_t)(r > 0 ? r : 1) * sizeof(double));
    s->procs = dnp_malloc((size_t)s->n_proj * sizeof(double));
    if (s->part == NULL || s->procs == NULL) {
        dnp_free(keys);
        return DNP_ERR_NOMEM;
    }
    for (int j = 0; j < s->n_proj; j++) {
        double procs = 1.0;
        for (int t = 0; t < r; t++) {
            int32_t sp = keys[(size_t)j * (size_t)r + (size_t)t];
            s->part[(size_t)j * (size_t)r + (size_t)t] = (double)e->shape[t] / sp;
            procs *= sp;
        }
        s->procs[j] = procs;
    }
    dnp_free(keys);
    return DNP_OK;
}

static void free_side(pase_side *s)
{
    dnp_free(s->proj_of);
    dnp_free(s->part);
    dnp_free(s->procs);
}

void pase_problem_free(pase_problem *pb)
{
    if (pb == NULL)
        return;
    for (int v = 0; v < pb->n_v; v++) {
        if (pb->cfg)
            pase_configs_free(&pb->cfg[v]);
        if (pb->tl)
            dnp_free(pb->tl[v]);
        if (pb->mem)
            dnp_free(pb->mem[v]);
    }
    for (int k = 0; k < pb->n_e; k++) {
        if (pb->src)
            free_side(&pb->src[k]);
        if (pb->dst)
            free_side(&pb->dst[k]);
    }
    dnp_free(pb->cfg);
    dnp_free(pb->tl);
    dnp_free(pb->mem);
    dnp_free(pb->edge);
    dnp_free(pb->src);
    dnp_free(pb->dst);
    dnp_free(pb->inc_start);
    dnp_free(pb->inc);
    dnp_free(pb->nb_start);
    dnp_free(pb->nb);
    memset(pb, 0, sizeof *pb);
}

/* Active edges: all, or (prototype_edges) only the last of each
 * (src, dst) pair, as a simple digraph keeps them. */
static int select_edges(const iter_space *g, int prototype_edges, int *edge)
{
    int n = 0;
    for (int i = 0; i < g->n_read; i++) {
        int keep = 1;
        for (int j = i + 1; prototype_edges && j < g->n_read && keep; j++)
            if (g->read[j].src == g->read[i].src && g->read[j].dst == g->read[i].dst)
                keep = 0;
        if (keep)
            edge[n++] = i;
    }
    return n;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static dnp_status build_adjacency(pase_problem *pb)
{
    const iter_space *g = pb->g;
    int V = pb->n_v;
    pb->inc_start = dnp_calloc((size_t)V + 1, sizeof(int));
    pb->nb_start = dnp_calloc((size_t)V + 1, sizeof(int));
    pb->inc = dnp_malloc((size_t)(2 * pb->n_e + 1) * sizeof(int));
    pb->nb = dnp_malloc((size_t)(2 * pb->n_e + 1) * sizeof(int));
    if (!pb->inc_start || !pb->nb_start || !pb->inc || !pb->nb)
        return DNP_ERR_NOMEM;
    for (int k = 0; k < pb->n_e; k++) {
        const iter_read *e = &g->read[pb->edge[k]];
        pb->inc_start[e->src + 1]++;
        pb->inc_start[e->dst + 1]++;
    }
    for (int v = 0; v < V; v++)
        pb->inc_start[v + 1] += pb->inc_start[v];
    int *fill = dnp_malloc((size_t)(V > 0 ? V : 1) * sizeof(int));
    if (fill == NULL)
        return DNP_ERR_NOMEM;
    memcpy(fill, pb->inc_start, (size_t)V * sizeof(int));
    for (int k = 0; k < pb->n_e; k++) {
        const iter_read *e = &g->read[pb->edge[k]];
        pb->inc[fill[e->src]++] = k;
        pb->inc[fill[e->dst]++] = k;
    }
    dnp_free(fill);
    /* distinct neighbours, ascending */
    int n = 0;
    for (int v = 0; v < V; v++) {
        pb->nb_start[v] = n;
        int first = n;
        for (int i = pb->inc_start[v]; i < pb->inc_start[v + 1]; i++) {
            const iter_read *e = &g->read[pb->edge[pb->inc[i]]];
            pb->nb[n++] = e->src == v ? e->dst : e->src;
        }
        qsort(pb->nb + first, (size_t)(n - first), sizeof(int), cmp_int);
        int w = first;
        for (int i = first; i < n; i++)
            if (i == first || pb->nb[i] != pb->nb[w - 1])
                pb->nb[w++] = pb->nb[i];
        n = w;
    }
    pb->nb_start[V] = n;
    return DNP_OK;
}

dnp_status pase_problem_build(const iter_space *g, const pase_params *par, pase_problem *out,
                              dnp_error *err)
{
    return pase_problem_build_perf(g, par, NULL, out, err);
}

dnp_status pase_problem_build_perf(const iter_space *g, const pase_params *par,
                                   const pase_perf *perf, pase_problem *out, dnp_error *err)
{
    double t0 = dnp_now_s();
    pase_problem pb;
    memset(&pb, 0, sizeof pb);
    memset(out, 0, sizeof *out);
    if (par->p < 1) {
        dnp_error_set(err, DNP_ERR_INPUT, "the device count p must be at least 1, got %d",
                      par->p);
        return DNP_ERR_INPUT;
    }
    if (perf == NULL && (!(par->r_w > 0.0) || !isfinite(par->r_w))) {
        dnp_error_set(err, DNP_ERR_INPUT, "the FLOP-per-word ratio r must be positive");
        return DNP_ERR_INPUT;
    }
    if (g->n_nest < 1) {
        dnp_error_set(err, DNP_ERR_INPUT, "graph '%s' has no ops to partition", iter_space_name(g));
        return DNP_ERR_INPUT;
    }
    /* Estimate the configuration tables before building them. */
    double bytes = 0.0, kmax = 0.0;
    int worst = 0;
    for (int v = 0; v < g->n_nest; v++) {
        double k = pase_config_count(&g->nest[v], par->p, pase_params_cutoff(par));
        if (k > kmax)
            kmax = k, worst = v;
        bytes += k * (g->nest[v].rank * 4.0 + 8.0 + 8.0 * 4);
    }
    if (kmax > INT_MAX / 4 || (par->max_bytes > 0 && bytes > par->max_bytes)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "the configurations need %.0f MiB (op '%s' alone has %.0f) for p = %d, "
                      "over the memory limit of %.0f MiB",
                      bytes / 1048576.0, g->nest[worst].name, kmax, par->p,
                      par->max_bytes / 1048576.0);
        return DNP_ERR_INPUT;
    }
    pb.g = g;
    pb.par = *par;
    pb.perf = perf;
    pb.n_v = g->n_nest;
    dnp_status st = DNP_ERR_NOMEM;
    unsigned char *saved = NULL; /* per core op: a consumer saves its output */
    pb.cfg = dnp_calloc((size_t)g->n_nest, sizeof *pb.cfg);
    pb.tl = dnp_calloc((size_t)g->n_nest, sizeof *pb.tl);
    pb.edge = dnp_malloc((size_t)(g->n_read + 1) * sizeof(int));
    if (pb.cfg == NULL || pb.tl == NULL || pb.edge == NULL)
        goto fail;
    if (perf != NULL && ((pb.mem = dnp_calloc((size_t)g->n_nest, sizeof *pb.mem)) == NULL ||
                         (saved = pase_perf_saved_by_consumer(g)) == NULL))
        goto fail;
    for (int v = 0; v < g->n_nest; v++) {
        if (pase_configs_build(&g->nest[v], par->p, pase_params_cutoff(par), &pb.cfg[v]) != DNP_OK)
            goto fail;
        pb.tl[v] = dnp_malloc((size_t)pb.cfg[v].n * sizeof(double));
        if (pb.tl[v] == NULL)
            goto fail;
        if (perf != NULL) { /* the shared model (pase_perf.c): seconds, bytes */
            pb.mem[v] = dnp_malloc((size_t)pb.cfg[v].n * sizeof(double));
            if (pb.mem[v] == NULL)
                goto fail;
            for (int c = 0; c < pb.cfg[v].n; c++) {
                const int32_t *cc = pb.cfg[v].c + (size_t)c * (size_t)g->nest[v].rank;
                pb.tl[v][c] = pase_perf_layer_s(perf, g, v, cc);
                pb.mem[v][c] = pase_perf_mem_bytes(perf, g, saved, v, cc);
            }
            continue;
        }
        for (int c = 0; c < pb.cfg[v].n; c++)
            pb.tl[v][c] =
                pase_layer_cost(&g->nest[v], pb.cfg[v].c + (size_t)c * (size_t)g->nest[v].rank,
                                par->r_w);
    }
    pb.n_e = select_edges(g, par->prototype_edges, pb.edge);
    pb.src = dnp_calloc((size_t)pb.n_e + 1, sizeof *pb.src);
    pb.dst = dnp_calloc((size_t)pb.n_e + 1, sizeof *pb.dst);
    if (pb.src == NULL || pb.dst == NULL)
        goto fail;
    for (int k = 0; k < pb.n_e; k++) {
        const iter_read *e = &g->read[pb.edge[k]];
        if (build_side(e, 0, &pb.cfg[e->src], &pb.src[k]) != DNP_OK ||
            build_side(e, 1, &pb.cfg[e->dst], &pb.dst[k]) != DNP_OK)
            goto fail;
    }
    if (build_adjacency(&pb) != DNP_OK)
        goto fail;
    dnp_free(saved);
    pb.build_s = dnp_now_s() - t0;
    *out = pb;
    return DNP_OK;
fail:
    dnp_free(saved);
    pase_problem_free(&pb);
    dnp_error_set(err, st, "out of memory building the PaSE tables of '%s'", iter_space_name(g));
    return st;
}

int pase_params_cutoff(const pase_params *par)
{
    return par->cutoff > 0 ? par->cutoff : 4; /* README "Configurations" */
}

double pase_problem_transfer(const pase_problem *pb, int rank, const double *a_src,
                             const double *a_dst, double p_src, double p_dst)
{
    if (pb->perf != NULL)
        return pase_perf_transfer_s(pb->perf, rank, a_src, a_dst, p_src, p_dst);
    return pase_transfer_parts(rank, a_src, a_dst, p_src, p_dst, pb->par.r_w);
}

double pase_problem_edge_cost(const pase_problem *pb, int k, int cu, int cv)
{
    const pase_side *s = &pb->src[k], *d = &pb->dst[k];
    int r = pb->g->read[pb->edge[k]].rank;
    int ps = s->proj_of[cu], pd = d->proj_of[cv];
    return pase_problem_transfer(pb, r, s->part + (size_t)ps * (size_t)r,
                                 d->part + (size_t)pd * (size_t)r, s->procs[ps], d->procs[pd]);
}

double pase_objective(const pase_problem *pb, const int *cfg)
{
    double f = 0.0;
    for (int v = 0; v < pb->n_v; v++)
        f += pb->tl[v][cfg[v]];
    for (int k = 0; k < pb->n_e; k++) {
        const iter_read *e = &pb->g->read[pb->edge[k]];
        f += pase_problem_edge_cost(pb, k, cfg[e->src], cfg[e->dst]);
    }
    return f;
}
