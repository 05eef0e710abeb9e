/*
 * plan_views.c - the public read-only views of a decided plan (dnnpar.h):
 * its summary (the simulated step, or the paper's accounting), its nodes,
 * and its tree level by level (types, ratios, groups).  Nothing here
 * decides or simulates.
 */
#include "search/plan_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const dnp_cluster *dnp_plan_cluster(const dnp_plan *p)
{
    return &p->cl;
}

void dnp_plan_get_summary(const dnp_plan *p, dnp_plan_summary *out)
{
    memset(out, 0, sizeof *out);
    for (int v = 0; v < p->lt.n_rows; v++) {
        out->step_time_s += p->root->ev->t_s[v];
        out->compute_s += p->root->ev->tc_s[v];
        out->comm_bytes += p->root->ev->recv_bytes[v];
    }
    out->comm_s = out->step_time_s - out->compute_s;
    out->mem_bytes_max = p->root->ev->mem_bytes;
    out->mem_capacity_bytes = p->root->ev->mem_cap_at_max;
    out->levels = p->levels;
    out->total_levels = p->total_levels;
    out->search_time_s = p->search_time_s;
    out->frontier_width = p->width;
    out->exact = p->width <= LEVEL_DP_MAX_FRONTIER + 1;
    out->cost_model = p->units.paper ? DNP_COST_ACCPAR_PAPER : DNP_COST_DEFAULT;
    out->precision = p->opt.precision;
    out->optimizer = p->opt.optimizer;
    out->chosen_scheme = p->chosen;
    out->ratio_level_only = p->ratio_level_only;
    out->ratio_est_solves = p->ratio_est_solves;
    out->time_limit_hit = p->time_limit_hit;
    out->time_limit_s = p->opt.time_limit_s;
    out->idle_devices = p->idle_devices;
    out->all_devices_step_s = p->all_devices_step_s;
    out->straggler_pace = 1.0;
    for (int k = 0; k < p->cl.n_types && !p->units.paper; k++)
        if (p->pace[k] > out->straggler_pace) {
            out->straggler_pace = p->pace[k];
            out->straggler_devices = p->cl.counts[k];
        }
    out->mem_fits = out->mem_capacity_bytes <= 0.0 || out->mem_bytes_max <= out->mem_capacity_bytes;
    out->exposed_comm_s = out->comm_s;
    out->comm_busy_s = out->comm_s;
    if (!p->has_sim && p->paper_sim.n_classes > 0) {
        /* The analytical sum replayed by the simulator: the same figure
         * (tests/unit/test_sim.c checks they are equal). */
        out->step_time_s = p->paper_sim.step_time_s;
        out->sim_tasks = p->paper_sim.sim.n_tasks;
        out->device_classes = 1;
    }
    if (p->has_sim) {
        const lower_result *r = &p->sim;
        out->step_time_s = r->step_time_s;
        out->compute_s = r->compute_s;
        out->comm_s = r->exposed_comm_s;
        out->exposed_comm_s = r->exposed_comm_s;
        out->comm_busy_s = r->comm_busy_s;
        out->wait_s = r->wait_s;
        out->host_wait_s = r->host_wait_s;
        out->comm_bytes = r->classes[r->crit_class].recv_bytes;
        out->mem_bytes_max = r->mem_peak_bytes;
        out->mem_capacity_bytes = r->mem_capacity_bytes;
        out->mem_fits = r->fits;
        out->sim_tasks = r->sim.n_tasks;
        out->device_classes = r->n_classes;
    }
}

int dnp_plan_n_nodes(const dnp_plan *p) { return p->lt.n_rows; }
const char *dnp_plan_node_name(const dnp_plan *p, int node) { return p->node_names[node]; }
int dnp_plan_node_weighted(const dnp_plan *p, int node) { return p->lt.row[node].weighted; }

/* Mark in rep[] the layers n's subtree leaves unsplit (R) at some split.
 * Shared children once. */
static void mark_replicated(const dnp_plan *p, const tnode *n, unsigned char *rep)
{
    if (n == NULL || n->types == NULL || n->n_dev <= 1)
        return;
    for (int v = 0; v < p->lt.n_rows; v++)
        if (p->lt.row[v].weighted && n->types[v] == (int)DNP_TYPE_R)
            rep[v] = 1;
    mark_replicated(p, n->child[0], rep);
    if (n->child[1] != n->child[0])
        mark_replicated(p, n->child[1], rep);
}

int dnp_plan_replicated_nodes(const dnp_plan *p)
{
    unsigned char *rep = dnp_calloc((size_t)(p->lt.n_rows > 0 ? p->lt.n_rows : 1), 1);
    if (rep == NULL)
        return -1;
    mark_replicated(p, p->root, rep);
    int n = 0;
    for (int v = 0; v < p->lt.n_rows; v++)
        n += rep[v];
    dnp_free(rep);
    return n;
}

static const tnode *walk(const dnp_plan *p, int level, unsigned branch_bits)
{
    const tnode *n = p->root;
    for (int k = 0; k < level && n != NULL && n->child[0] != NULL; k++)
        n = n->child[(branch_bits >> k) & 1u];
    return (n != NULL && n->child[0] != NULL) ? n : NULL;
}

int dnp_plan_type(const dnp_plan *p, int level, unsigned branch_bits, int node)
{
    const tnode *n = walk(p, level, branch_bits);
    return n ? n->types[node] : -1;
}

double dnp_plan_ratio(const dnp_plan *p, int level, unsigned branch_bits)
{
    const tnode *n = walk(p, level, branch_bits);
    return n ? n->alpha : NAN;
}

static void group_text(const dnp_cluster *cl, const int64_t *counts, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < cl->n_types && used < n; k++) {
        if (counts[k] == 0)
            continue;
        int w = snprintf(buf + used, n - used, "%s%lldx%s", used ? "+" : "",
                         (long long)counts[k], cl->types[k].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

void dnp_plan_level_groups(const dnp_plan *p, int level, unsigned branch_bits, char *buf,
                           size_t n)
{
    const tnode *t = walk(p, level, branch_bits);
    if (t == NULL) {
        snprintf(buf, n, "-");
        return;
    }
    char a[128], b[128];
    group_text(&p->cl, t->child[0]->counts, a, sizeof a);
    group_text(&p->cl, t->child[1]->counts, b, sizeof b);
    snprintf(buf, n, "%s | %s", a, b);
}

int dnp_plan_level_identical(const dnp_plan *p, int level, unsigned branch_bits)
{
    const tnode *n = walk(p, level, branch_bits);
    /* past a single device (a short branch of an uneven tree) there are no
     * halves to tell apart: as identical, so path listings do not branch */
    return n ? n->shared : 1;
}

void dnp_plan_node_times(const dnp_plan *p, int node, double *compute_s, double *comm_s)
{
    if (p->has_sim) {
        *compute_s = p->sim.node_compute_s[node];
        *comm_s = p->sim.node_comm_s[node];
        return;
    }
    *compute_s = p->root->ev->tc_s[node];
    *comm_s = p->root->ev->t_s[node] - p->root->ev->tc_s[node];
}
