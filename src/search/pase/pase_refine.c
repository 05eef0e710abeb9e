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
 * join) at a time to each of its other configurations, in each
 * arrangement of its split dimensions over the binary levels
 * (pase_level_dims), keeping every strictly faster move, in rounds until
 * one keeps none (at most PASE_REFINE_ROUNDS).  Only configurations a
 * dnnpar strategy can say are tried, and plans over the memory limit are
 * never kept.  The optimum's plan is made once; a move re-decides one row
 * of it and simulates again (plan_try_row).  The result is a local optimum
 * of the simulated step (every single move no faster), never slower than
 * PaSE's optimum; it is no longer the objective's optimum, and the report
 * says so.
 */
#include "search/pase/pase_driver.h"
#include "search/plan_internal.h"

#include <math.h>
#include <string.h>

#define PASE_REFINE_ROUNDS 4
/* Work budget: plans simulated x the model's core ops, so that what is
 * refined does not depend on the machine (about half a second here, a
 * move costing 0.15 to 0.2 us per op on the prepared plan: ResNet-50's
 * whole refinement on 8xa100 takes 0.8e6, BERT-Large's on 8xv100 stops at
 * the budget). */
#define PASE_REFINE_BUDGET 3e6

/* 1 if vertex v carries a decided op of the core graph: one the strategy
 * names (weighted layers and joins; the others follow their owner). */
static int decided(const dnp_pase_run *r, int v)
{
    const iter_space *g = r->pp->pb.g;
    const iter_nest *x = &g->nest[v];
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
    const iter_nest *x = &pb->g->nest[v];
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

/* The row's type at each of the plan's n_levels levels for configuration
 * c of vertex v in arrangement `order` (pase_level_dims; the strategy
 * document says the same, pase_strategy.c).  0, or -1 if a level is idle
 * or a type unknown (not a candidate). */
static int level_types(const dnp_pase_run *r, int v, int c, int order, int n_levels, int *types)
{
    const pase_problem *pb = &r->pp->pb;
    const iter_nest *x = &pb->g->nest[v];
    const dnp_op *op = dnp_graph_op(pb->g->core, x->op);
    long split[ITER_MAX_RANK];
    int nd = pase_config_split(pb, v, c, split), dims[PLAN_MAX_LEVELS];
    if (n_levels > PLAN_MAX_LEVELS || pase_level_dims(split, nd, order, n_levels, dims) != n_levels)
        return -1;
    for (int l = 0; l < n_levels; l++)
        if ((types[l] = pase_type_index(
                 pase_strategy_type_of(pb->g->core, op, x->dim[dims[l]][0]))) < 0)
            return -1;
    return 0;
}

/* Tree levels of the plan: how many halvings take the root to a device. */
static int tree_levels(const dnp_plan *plan)
{
    int n = 0;
    while (n < PLAN_MAX_LEVELS && plan_row_type(plan, 0, n) >= 0)
        n++;
    return n;
}

dnp_status pase_refine_plan(dnp_pase_run *r, dnp_error *err)
{
    const dnp_pase_problem *pp = r->pp;
    const pase_problem *pb = &pp->pb;
    /* the optimum's plan, made once: each move re-decides one row of it
     * and simulates again (plan_try_row), instead of a strategy document
     * and a new plan per move */
    dnp_plan *plan = NULL;
    dnp_error e = {0};
    dnp_status st = dnp_pase_run_plan(r, pp->core, &pp->hw.cluster, &plan, NULL, &e);
    double best;
    if (st != DNP_OK) {
        dnp_plan_free(plan);
        if (st == DNP_ERR_NOMEM)
            *err = e;
        return st == DNP_ERR_NOMEM ? st : DNP_OK; /* nothing the simulator can run */
    }
    dnp_plan_summary sum;
    dnp_plan_get_summary(plan, &sum);
    best = sum.mem_fits ? sum.step_time_s : INFINITY;
    if (!isfinite(best)) {
        dnp_plan_free(plan);
        return DNP_OK;
    }
    r->refined_from_s = best;
    r->refined_from_cost = r->cost;
    r->refine_judged = 1;
    const int n_levels = tree_levels(plan);
    const double per_plan = (double)dnp_graph_n_ops(pb->g->core);
    int moved = 1;
    for (int round = 0; round < PASE_REFINE_ROUNDS && moved && st == DNP_OK; round++) {
        moved = 0;
        for (int v = 0; v < pb->n_v && !r->refine_stopped && st == DNP_OK; v++) {
            if (!decided(r, v))
                continue;
            const int row = plan->lt.row_of_op[pb->g->nest[v].op];
            for (int c = 0; c < pb->cfg[v].n && st == DNP_OK && !r->refine_stopped; c++) {
                if (!candidate(r, v, c))
                    continue;
                if (pb->mem != NULL && pp->perf.mem_limit_bytes > 0.0 &&
                    pb->mem[v][c] > pp->perf.mem_limit_bytes)
                    continue; /* pruned by the search: no fitting plan holds it */
                long split[ITER_MAX_RANK];
                int n_orders = pase_level_orders(split, pase_config_split(pb, v, c, split),
                                                 PASE_LEVEL_ORDERS_MAX);
                for (int o = 0; o < n_orders; o++) {
                    int was = r->cfg[v], was_order = r->order != NULL ? r->order[v] : 0;
                    int types[PLAN_MAX_LEVELS], kept = 0;
                    if ((c == was && o == was_order) ||
                        level_types(r, v, c, o, n_levels, types) != 0)
                        continue;
                    if (r->refine_judged * per_plan > PASE_REFINE_BUDGET) {
                        r->refine_stopped = 1;
                        break;
                    }
                    if (o != 0 && r->order == NULL &&
                        (r->order = dnp_calloc((size_t)pb->n_v, sizeof *r->order)) == NULL) {
                        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory refining the plan");
                        st = DNP_ERR_NOMEM;
                        break;
                    }
                    st = plan_try_row(plan, pp->core, row, types, n_levels, &best, &kept, err);
                    if (st != DNP_OK)
                        break;
                    r->refine_judged++;
                    if (kept) {
                        r->cfg[v] = c;
                        if (r->order != NULL)
                            r->order[v] = o;
                        moved = 1;
                    }
                }
            }
        }
    }
    dnp_plan_free(plan);
    if (st != DNP_OK)
        return st;
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
