/*
 * plan_lowered.c - the public views of a plan that go through the
 * simulator (dnnpar.h): its devices, its executed accounting
 * (sim/devcomm.c, lower_device_comm) and its trace (sim/trace.c,
 * lower_trace_json).  The simulator reads the plan's decided tree as
 * the one strategy type (plan_strategy_from_tree) and its simulated step;
 * the paper's accounting, whose figures only the search keeps, is traced
 * here.
 */
#include "search/plan_internal.h"
#include "sim/lower.h"
#include "sim/trace_events.h"

int dnp_plan_n_devices(const dnp_plan *p)
{
    return p != NULL && p->root != NULL ? (int)p->root->n_dev : 0;
}

dnp_status dnp_plan_device_comm(const dnp_plan *p, const dnp_graph *g, int bytes_per_elem,
                                dnp_device_comm **out, int *n_devices, dnp_error *err)
{
    if (p == NULL) {
        *out = NULL;
        *n_devices = 0;
        dnp_error_set(err, DNP_ERR_INPUT, "device communication: no plan, graph or element size");
        return DNP_ERR_INPUT;
    }
    plan_tree t = plan_tree_of(p);
    plan_strategy *s = NULL;
    dnp_status st = plan_strategy_from_tree(&t, &s, err);
    if (st != DNP_OK) {
        *out = NULL;
        *n_devices = 0;
        return st;
    }
    lower_context m = plan_lower_context(p);
    st = lower_device_comm(s, &m, p->has_sim ? &p->sim : NULL, g, bytes_per_elem, out, n_devices,
                           err);
    plan_strategy_free(s);
    return st;
}

/* The paper's accounting: every op's communication then its compute, one
 * after the other, on two threads. */
static void paper_events(trace_buf *b, const dnp_plan *p)
{
    trace_meta(b, "process_name", 1, 0, "critical path (paper accounting)");
    trace_meta(b, "thread_name", 1, 1, "communication");
    trace_meta(b, "thread_name", 1, 2, "compute");
    double t_s = 0.0;
    for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
        double cs, ms;
        dnp_plan_node_times(p, v, &cs, &ms);
        const char *name = dnp_plan_node_name(p, v);
        if (ms > 0.0)
            trace_event(b, name, "comm", 1, 1, t_s, t_s + ms);
        t_s += ms;
        if (cs > 0.0)
            trace_event(b, name, "compute", 1, 2, t_s, t_s + cs);
        t_s += cs;
    }
}

char *dnp_plan_trace_json(const dnp_plan *p)
{
    if (p->has_sim)
        return lower_trace_json(&p->sim, &p->cl);
    trace_buf b;
    trace_begin(&b);
    paper_events(&b, p);
    return trace_end(&b);
}
