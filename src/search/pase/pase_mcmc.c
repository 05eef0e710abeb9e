/*
 * pase_mcmc.c - a FlexFlow-style search (Jia et al. [7], section 5):
 * Metropolis-Hastings over strategies.  A proposal changes one random
 * vertex to a random configuration; it is accepted with probability
 * min(1, exp(-beta * dF / F_start)), dF being the change of Eq. 1 (only
 * the vertex's t_l and its edges' t_x change).  As in the paper's
 * evaluation (section IV-A) the search starts from the expert strategy
 * and stops after a budget of iterations, or once the best strategy has
 * not improved during the last half of the iterations run.
 *
 * Under the shared model with a memory limit L (ours; docs/pase.md
 * "Memory"), a configuration whose own bytes exceed L is never proposed,
 * the walk's objective adds a penalty of PASE_MCMC_MEM_PENALTY x F_start
 * per L of footprint over L (so moves towards fitting are taken), and the
 * best strategy is the cheapest that fits, or the least penalised if none
 * was met.
 */
#include "search/pase/pase.h"
#include "search/pase/pase_perf.h"
#include "core/clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: a small deterministic generator (state in the caller). */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *s) { return (double)(next_u64(s) >> 11) / 9007199254740992.0; }

/* t_l of v plus t_x of its edges with v in configuration c. */
static double local_cost(const pase_problem *pb, const int *cfg, int v, int c)
{
    double f = pb->tl[v][c];
    for (int i = pb->inc_start[v]; i < pb->inc_start[v + 1]; i++) {
        int k = pb->inc[i];
        const iter_read *e = &pb->g->read[pb->edge[k]];
        int cs = e->src == v ? c : cfg[e->src], cd = e->dst == v ? c : cfg[e->dst];
        f += pase_problem_edge_cost(pb, k, cs, cd);
    }
    return f;
}

/* Penalty per memory limit of footprint over the limit, in units of the
 * start's F: large, so that any fitting strategy the walk meets beats
 * staying over the limit. */
#define PASE_MCMC_MEM_PENALTY 100.0

void pase_mcmc_defaults(pase_mcmc_opts *o)
{
    o->max_iters = 250000;
    o->min_iters = 20000;
    o->beta = 200.0;
    o->seed = 1;
    o->time_limit_s = 0.0;
    o->time_limit_hit = NULL;
    o->deadline_s = 0.0;
}

dnp_status pase_mcmc(const pase_problem *pb, const int *start, const pase_mcmc_opts *o, int *best,
                     long *iters, double *cost_flop, dnp_error *err)
{
    int n = pb->n_v;
    int *cur = dnp_malloc((size_t)n * sizeof(int));
    if (cur == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory starting the MCMC search");
        return DNP_ERR_NOMEM;
    }
    memcpy(cur, start, (size_t)n * sizeof(int));
    memcpy(best, start, (size_t)n * sizeof(int));
    double f0 = pase_objective(pb, cur), f = f0, fbest = f0;
    double scale = f0 > 0.0 ? o->beta / f0 : 0.0;
    /* memory (shared model with a limit): the footprint m, kept as the walk
     * moves, and the penalty over the limit */
    const double limit = pb->mem != NULL && pb->perf != NULL ? pb->perf->mem_limit_bytes : 0.0;
    const double pen_per_byte = limit > 0.0 ? PASE_MCMC_MEM_PENALTY * f0 / limit : 0.0;
    double m = limit > 0.0 ? pase_footprint(pb, cur) : 0.0;
#define OVER(mm) (limit > 0.0 && (mm) > limit ? ((mm) - limit) * pen_per_byte : 0.0)
    int best_fits = !(limit > 0.0 && m > limit);
    double gbest = f + OVER(m);
    uint64_t rng = o->seed;
    long it = 0, last_improve = 0;
    /* The clock is read every 1024 iterations, and only under a limit. */
    double deadline_s = o->deadline_s > 0.0 ? o->deadline_s : dnp_deadline_at(0.0, o->time_limit_s);
    int hit = 0;
    while (it < o->max_iters) {
        if (it >= o->min_iters && it - last_improve > it / 2)
            break;
        if (deadline_s > 0.0 && (it & 1023) == 0 && dnp_now_s() >= deadline_s) {
            hit = 1;
            break;
        }
        it++;
        int v = (int)(next_u64(&rng) % (uint64_t)n);
        int kv = pb->cfg[v].n;
        if (kv < 2)
            continue;
        int c = (int)(next_u64(&rng) % (uint64_t)kv);
        if (c == cur[v] || (limit > 0.0 && pb->mem[v][c] > limit))
            continue;
        double d = local_cost(pb, cur, v, c) - local_cost(pb, cur, v, cur[v]);
        double m2 = limit > 0.0 ? m + pb->mem[v][c] - pb->mem[v][cur[v]] : 0.0;
        double dg = d + OVER(m2) - OVER(m);
        if (dg <= 0.0 || uniform01(&rng) < exp(-scale * dg)) {
            cur[v] = c;
            f += d;
            m = m2;
            int fits = !(limit > 0.0 && m > limit);
            double g = f + OVER(m);
            if ((fits && (!best_fits || f < fbest)) || (!fits && !best_fits && g < gbest)) {
                fbest = f;
                gbest = g;
                best_fits = fits;
                memcpy(best, cur, (size_t)n * sizeof(int));
                last_improve = it;
            }
        }
    }
#undef OVER
    dnp_free(cur);
    if (o->time_limit_hit)
        *o->time_limit_hit = hit;
    if (iters)
        *iters = it;
    if (cost_flop)
        *cost_flop = pase_objective(pb, best); /* exact, free of the running sum's drift */
    return DNP_OK;
}
