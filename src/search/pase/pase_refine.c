/*
 * pase_refine.c - PaSE's plan on one device type, refined in the step
 * simulator (docs/pase.md "The plan, refined in the step simulator").
 *
 * Eq. 1's objective is a sum: it charges every all-reduce in full, while
 * the step simulator overlaps the weight gradients' all-reduce with the
 * rest of the backward pass (docs/time-model.md).  So the DP's optimum
 * leans away from splits whose cost is mostly hidden, and can simulate
 * slower than a neighbour (ResNet-50 on 8xa100: slower than plain data
 * parallelism).  Starting from the optimum, a coordinate descent on the
 * simulated step moves one decided op (a conv, FC or other weighted op, a
 * join) at a time to each of its other configurations, keeping every
 * strictly faster move, in rounds until one keeps none (at most
 * PASE_REFINE_ROUNDS).  Configurations a dnnpar strategy cannot say (and
 * plans over the memory limit) simulate as INFINITY and are never kept.
 * The result is a local optimum of the simulated step (every single move
 * no faster), never slower than PaSE's optimum; it is no longer the
 * objective's optimum, and the report says so.
 */
#include "search/pase/pase_driver.h"

#include <math.h>
#include <string.h>

#define PASE_REFINE_ROUNDS 4
/* Work budget: plans simulated x the model's core ops, so that what is
 * refined does not depend on the machine (about a second here: ResNet-50's
 * whole refinement takes 2e5, Inception-v3's 5e5; Llama 2 7B's stops after
 * about 1,700 plans). */
#define PASE_REFINE_BUDGET 1e6

/* 1 if vertex v carries a decided op of the core graph: one the strategy
 * names (weighted layers and joins; the others follow their owner). */
static int decided(const dnp_pase_run *r, int v)
{
    const pase_graph *g = r->pp->pb.g;
    const pase_vertex *x = &g->v[v];
    if (x->op < 0 || g->core == NULL)
        return 0;
    return dnp_graph_decider(g->core, x->op) == x->op;
}

/* 1 if configuration c of decided vertex v is worth simulating: a
 * dnnpar strategy can say it (each split dimension has a type, each split
 * a power of two) and it uses all p devices (a plan that leaves some idle
 * is not faster than one that splits more). */
static int candidate(const dnp_pase_run *r, int v, int c)
{
    const pase_problem *pb = &r->pp->pb;
    const pase_vertex *x = &pb->g->v[v];
    const dnp_op *op = dnp_graph_op(pb->g->core, x->op);
    const int32_t *split = &pb->cfg[v].c[(size_t)c * (size_t)pb->cfg[v].rank];
    long q = 1;
    for (int d = 0; d < x->rank; d++) {
        if (split[d] == 1)
            continue;
        if ((split[d] & (split[d] - 1)) != 0 ||
            pase_strategy_type_of(pb->g->core, op, x->dim[d][0]) == NULL)
            return 0;
        q *= split[d];
    }
    return q == pb->par.p;
}

dnp_status pase_refine_plan(dnp_pase_run *r, dnp_error *err)
{
    const dnp_pase_problem *pp = r->pp;
    const pase_problem *pb = &pp->pb;
    double best;
    dnp_status st = pase_run_simulated_s(r, &best, err);
    if (st != DNP_OK || !isfinite(best))
        return st; /* nothing the simulator can run to start from */
    r->refined_from_s = best;
    r->refined_from_cost = r->cost;
    r->refine_judged = 1;
    const double per_plan = (double)dnp_graph_n_ops(pb->g->core);
    int moved = 1;
    for (int round = 0; round < PASE_REFINE_ROUNDS && moved; round++) {
        moved = 0;
        for (int v = 0; v < pb->n_v && !r->refine_stopped; v++) {
            if (!decided(r, v))
                continue;
            for (int c = 0; c < pb->cfg[v].n; c++) {
                int was = r->cfg[v];
                if (c == was || !candidate(r, v, c))
                    continue;
                if (r->refine_judged * per_plan > PASE_REFINE_BUDGET) {
                    r->refine_stopped = 1;
                    break;
                }
                if (pb->mem != NULL && pp->perf.mem_limit_bytes > 0.0 &&
                    pb->mem[v][c] > pp->perf.mem_limit_bytes)
                    continue; /* pruned by the search: no fitting plan holds it */
                r->cfg[v] = c;
                double s;
                if ((st = pase_run_simulated_s(r, &s, err)) != DNP_OK)
                    return st;
                r->refine_judged++;
                if (s < best) {
                    best = s;
                    moved = 1;
                } else {
                    r->cfg[v] = was;
                }
            }
        }
    }
    r->refine_stopped |= moved; /* the rounds ran out while moves were still kept */
    r->refined_s = best;
    if (best < r->refined_from_s) {
        r->cost = pase_objective(pb, r->cfg);
        r->used = pase_devices_used(pb, r->cfg);
        if (r->have_fit)
            r->mem_bytes = pase_footprint(pb, r->cfg);
    }
    return DNP_OK;
}
