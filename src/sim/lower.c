/*
 * lower.c - a decided strategy's device groups (plan/strategy.h) as one
 * simulated training step (lower.h, docs/time-model.md "The default
 * model").
 */
#include "sim/lower.h"

#include "core/clock.h"
#include "cost/accpar_cost.h"
#include "perf/device_model.h"
#include "topo/topology.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PyTorch DistributedDataParallel's default bucket_cap_mb = 25 (torch.nn.
 * parallel.DistributedDataParallel documentation): gradients are reduced in
 * buckets of about this size, in the order the backward pass produces them. */
#define DDP_BUCKET_BYTES (25.0 * 1024.0 * 1024.0)

enum { ST_COMPUTE = 0, ST_XCHG = 1, ST_GRAD = 2, ST_PER_CLASS = 3 };

void lower_result_free(lower_result *r)
{
    if (r == NULL)
        return;
    dnp_free(r->classes);
    sim_free(&r->sim);
    if (r->op_names != NULL)
        dnp_free(r->op_names[0]); /* one block holds every name */
    dnp_free(r->op_names);
    dnp_free(r->op_act_bytes);
    dnp_free(r->node_compute_s);
    dnp_free(r->node_comm_s);
    memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- */
/* Device classes                                                    */
/* ---------------------------------------------------------------- */

typedef struct {
    lower_class *v;
    int n, cap;
    int oom;
} class_list;

static void collect(class_list *cls, const plan_strategy *s, int n, int *path, int depth,
                    double devices)
{
    if (cls->oom || depth > LOWER_MAX_DEPTH)
        return;
    path[depth] = n;
    const plan_group *g = &s->group[n];
    if (g->child[0] < 0) {
        if (cls->n == cls->cap) {
            int cap = cls->cap ? cls->cap * 2 : 8;
            lower_class *p = dnp_realloc(cls->v, (size_t)cap * sizeof *p);
            if (p == NULL) {
                cls->oom = 1;
                return;
            }
            cls->v = p;
            cls->cap = cap;
        }
        lower_class *c = &cls->v[cls->n++];
        memset(c, 0, sizeof *c);
        for (int k = 0; k <= depth; k++)
            c->path[k] = path[k];
        c->depth = depth;
        c->devices = devices;
        return;
    }
    int first = cls->n;
    /* Identical halves share one sub-plan: one class stands for both. */
    collect(cls, s, g->child[0], path, depth + 1, g->shared ? 2.0 * devices : devices);
    if (!g->shared)
        collect(cls, s, g->child[1], path, depth + 1, devices);
    for (int c = first; c < cls->n; c++) {
        cls->v[c].lo[depth] = first;
        cls->v[c].hi[depth] = cls->n;
    }
}

static int leaf_type(const dnp_cluster *cl, const plan_group *leaf)
{
    for (int k = 0; k < cl->n_types; k++)
        if (leaf->counts[k] > 0)
            return k;
    return 0;
}

/* ---------------------------------------------------------------- */
/* Link tiers                                                        */
/* ---------------------------------------------------------------- */

/* The pair of counterparts across the split of group n: src/topo's link
 * between the halves (topo_tree_link: 2 x 1 on the network when they sit
 * on different nodes, else 1 x 2 inside the node; the slowest member
 * type's figures). */
static void pair_group(const dnp_cluster *cl, const plan_group *n, dnp_comm_group *g)
{
    topo_tree_link(cl, n->counts, g);
}

static double coll_s(dnp_coll_op op, const dnp_comm_group *g, double bytes)
{
    if (!(bytes > 0.0))
        return 0.0;
    dnp_coll_cost c;
    dnp_coll_estimate(op, g, bytes, &c);
    return c.time_s;
}

/* Elements of one sample of a tensor of shape s. */
static double shape_elems(dnp_shape s) { return (double)s.c * (double)s.h * (double)s.w; }

/* ---------------------------------------------------------------- */
/* Shares                                                            */
/* ---------------------------------------------------------------- */

/* The shares (fb, fi, fo) of graph op i's work held at tree node n:
 * planned ops their own; other ops act on their producer's output in the
 * producer's layout (batch share and output-channel share). */
static void op_shares(const layer_table *lt, const int *owner, const int *node_of_op,
                      const plan_group *n, int i, double *fb, double *fi, double *fo)
{
    int v = node_of_op[i];
    if (v >= 0) {
        *fb = n->fb[v];
        *fi = n->fi[v];
        *fo = n->fo[v];
        if (!lt->row[v].weighted)
            *fi = *fo;
        return;
    }
    int u = owner[i] >= 0 ? owner[i] : 0;
    *fb = n->fb[u];
    *fi = *fo = n->fo[u];
}

/* ---------------------------------------------------------------- */
/* Lowering                                                          */
/* ---------------------------------------------------------------- */

typedef struct {
    const plan_strategy *s;
    const layer_table *lt;
    const dnp_graph *g;
    const dnp_cluster *cl;
    lower_result *r;
    int n_ops;
    int *owner, *node_of_op;
    perf_rates rates[DNP_MAX_DEVICE_TYPES];
    int *last_compute;  /* per class: the last compute task issued */
    int *pending;       /* per class: the last exchange the next compute task waits for */
    double *host_s;     /* per class: when its host has issued every kernel so far */
    int *tmp_streams, *tmp_deps;
    double *dur;        /* per class scratch */
    double *kept;       /* per class and op: bytes of the op's output kept for backward */
    unsigned char *moves; /* per planned node: 0 if it and its producers split only the
                           * batch at every level of every class (nothing to exchange) */
    perf_op_time *op_time; /* per class and op: the forward pass's figures, reused backward */
    perf_op_mem *op_mem;
    int no_overlap;
    dnp_optimizer optimizer;
    double deadline_s;  /* the run's (lower_context; 0 = none) */
    int timed_out;      /* it passed: the lowering stopped, nothing to report */
} lowerer;

/* Group k of class c's path (k = 0: the root, cls->depth: its leaf). */
static const plan_group *path_group(const lowerer *L, const lower_class *cls, int k)
{
    return &L->s->group[cls->path[k]];
}

/* 1 once the plan's deadline has passed (then for good).  Read once per op
 * and pass: every loop of the lowering is O(classes x levels) or less per
 * op, and the passes after it are linear in the tasks. */
static int out_of_time(lowerer *L)
{
    if (!L->timed_out && dnp_deadline_passed(L->deadline_s))
        L->timed_out = 1;
    return L->timed_out;
}

/* A compute task of class c after the previous one and after any exchange
 * issued since (streams are FIFO, so the last one stands for all). */
static int add_compute(lowerer *L, int c, double dur_s, double host_add_s, int label, int phase)
{
    int s = c * ST_PER_CLASS + ST_COMPUTE;
    int deps[3] = {L->last_compute[c], L->pending[c], -1};
    /* Host dispatch (docs/device-model.md, "Host dispatch"): the host
     * issues the class's kernels one after another from the step's start,
     * host_kernel_s each, and a kernel cannot start before it is issued.
     * A task on no stream lasting the host's time so far stands for that
     * moment.  The device's in-order stream cannot start this task before
     * the compute issued so far has run, so while the host is ahead of that
     * the moment binds nothing and no task is added. */
    L->host_s[c] += host_add_s;
    if (L->host_s[c] > L->r->classes[c].compute_busy_s)
        deps[2] = sim_add(&L->r->sim, SIM_COMPUTE, L->host_s[c], -1, PH_HOST, NULL, 0, NULL, 0);
    int id = sim_add(&L->r->sim, SIM_COMPUTE, dur_s, label, phase, &s, 1, deps, 3);
    L->pending[c] = -1;
    L->last_compute[c] = id;
    L->r->classes[c].compute_busy_s += dur_s;
    return id;
}

/* A blocking exchange at level k over the classes under that level's group
 * containing class c0: each class's time is L->dur[c]; they start together
 * and the slowest sets the duration. */
static void add_exchange(lowerer *L, int c0, int k, int label, int phase)
{
    const lower_class *cls = L->r->classes;
    int lo = cls[c0].lo[k], hi = cls[c0].hi[k];
    double d = 0.0;
    int ns = 0;
    for (int c = lo; c < hi; c++) {
        d = L->dur[c] > d ? L->dur[c] : d;
        L->tmp_streams[ns] = c * ST_PER_CLASS + ST_XCHG;
        L->tmp_deps[ns] = L->last_compute[c];
        ns++;
    }
    if (!(d > 0.0))
        return;
    int id = sim_add(&L->r->sim, SIM_COMM, d, label, phase, L->tmp_streams, ns, L->tmp_deps, ns);
    for (int c = lo; c < hi; c++) {
        L->pending[c] = id;
        L->r->classes[c].xchg_busy_s += d;
    }
}

/* Per-device bytes of the forward (dir 0) or backward (dir 1) layout
 * change on edge e at level k of class c: AccPar Table 5's fraction of the
 * tensor at the group's shares, scaled to what one device of the half
 * holds of it (leaf shares over the half's shares). */
static double edge_bytes(const lowerer *L, int c, int k, int e, int dir)
{
    const lower_class *cls = &L->r->classes[c];
    const plan_group *n = path_group(L, cls, k), *ch = path_group(L, cls, k + 1),
                     *leaf = path_group(L, cls, cls->depth);
    const layer_table *lt = L->lt;
    const layer_xchg *pe = &lt->xchg[e];
    int u = pe->u, v = pe->v, side = (n->child[0] == cls->path[k + 1]) ? 0 : 1;
    int wu = lt->row[u].weighted, wv = lt->row[v].weighted;
    state_layouts su, sv;
    accpar_state_layouts(wu, plan_split_type(wu, n->split[u]), &su);
    accpar_state_layouts(wv, plan_split_type(wv, n->split[v]), &sv);
    double frac = dir == 0 ? accpar_convert_fraction(su.f_out_prov, sv.f_in_need, n->alpha, side)
                           : accpar_convert_fraction(sv.e_in_prov, su.e_out_need, n->alpha, side);
    double held_child = ch->fb[v] * ch->fi[v];
    if (frac == 0.0 || !(held_child > 0.0))
        return 0.0;
    double elems =
        frac * pe->elems * n->fb[v] * n->fi[v] * (leaf->fb[v] * leaf->fi[v]) / held_child;
    return elems * L->rates[cls->type].act_bytes;
}

/* Per-device bytes of node v's partial sums in state t, at the leaf's
 * shares (AccPar Table 4): Type-II sums F_l+1 in the forward pass (dir 0),
 * Type-III sums E_l in the backward pass (dir 1).  Type-I's sum of the
 * weight gradient is the gradient all-reduce, issued separately. */
static double intra_bytes(const lowerer *L, int c, int v, int t, int dir)
{
    const lower_class *cls = &L->r->classes[c];
    const plan_group *leaf = path_group(L, cls, cls->depth);
    const layer_row *pn = &L->lt->row[v];
    state_layouts sl;
    accpar_state_layouts(pn->weighted, t, &sl);
    double elems = 0.0;
    if (sl.intra == INTRA_FOUT && dir == 0)
        elems = pn->fout_elems * leaf->fb[v] * leaf->fo[v];
    else if (sl.intra == INTRA_FIN && dir == 1)
        elems = pn->fin_elems * leaf->fb[v] * leaf->fi[v];
    return elems * L->rates[cls->type].act_bytes;
}

/* The exchanges of planned node v at every level, forward (dir 0) or
 * backward (dir 1): with `edges`, the layout changes on its input edges
 * (before v's forward, after v's backward); otherwise its partial sums
 * (after its forward or its backward).  Each is a collective between the
 * two halves of a group, on the link tier that split spans. */
static void node_exchanges(lowerer *L, int v, int dir, int edges)
{
    lower_result *r = L->r;
    const layer_table *lt = L->lt;
    if ((edges && lt->in_start[v] == lt->in_start[v + 1]) || !L->moves[v])
        return;
    for (int k = 0; k < LOWER_MAX_DEPTH; k++) {
        int any = 0;
        for (int c0 = 0; c0 < r->n_classes;) {
            const lower_class *cl0 = &r->classes[c0];
            if (cl0->depth <= k) {
                c0++;
                continue;
            }
            any = 1;
            int hi = cl0->hi[k];
            for (int c = c0; c < hi; c++) {
                const lower_class *cls = &r->classes[c];
                L->dur[c] = 0.0;
                if (cls->depth <= k)
                    continue;
                const plan_group *n = path_group(L, cls, k);
                /* Batch-split everywhere (Type-I, batch joins): nothing moves
                 * here (Table 5: batch -> batch is free; Type-I's sum is the
                 * gradient all-reduce). */
                int all_batch = n->split[v] == PLAN_SPLIT_B;
                for (int e = lt->in_start[v]; all_batch && edges && e < lt->in_start[v + 1]; e++)
                    all_batch = n->split[lt->xchg[e].u] == PLAN_SPLIT_B;
                if (all_batch)
                    continue;
                double bytes = 0.0;
                if (edges)
                    for (int e = lt->in_start[v]; e < lt->in_start[v + 1]; e++)
                        bytes += edge_bytes(L, c, k, e, dir);
                else
                    bytes = intra_bytes(L, c, v, plan_split_type(lt->row[v].weighted, n->split[v]),
                                        dir);
                if (!(bytes > 0.0))
                    continue;
                dnp_comm_group grp;
                pair_group(L->cl, n, &grp);
                /* Layout change: each device fetches its missing part from its
                 * counterpart.  Partial sums: an all-reduce of the pair. */
                L->dur[c] = coll_s(edges ? DNP_COLL_P2P : DNP_COLL_ALLREDUCE, &grp, bytes);
                r->classes[c].recv_bytes += bytes;
            }
            add_exchange(L, c0, k, lt->row[v].op, dir == 0 ? PH_XCHG_FWD : PH_XCHG_BWD);
            c0 = hi;
        }
        if (!any)
            break;
    }
}

/* The data-parallel replica group of op i's parameters for class c: the
 * levels where the op's owner splits the batch (Type-I, or a batch-split
 * join) multiply the group by the group's devices over the half's, across
 * nodes where the split crosses them (topo_tree_link), inside one node
 * otherwise.  Its members are drawn from the topmost such group, whose
 * links src/topo gives (topo_group_members: the slowest member type's of
 * each tier, as for any group of devices).  Returns its size. */
static double replica_group(const lowerer *L, int c, int i, dnp_comm_group *grp)
{
    const lower_class *cls = &L->r->classes[c];
    int v = L->node_of_op[i] >= 0 ? L->node_of_op[i] : L->owner[i];
    double nn = 1.0, pn = 1.0;
    const plan_group *span = NULL;
    if (v >= 0) {
        for (int k = 0; k < cls->depth; k++) {
            const plan_group *n = path_group(L, cls, k);
            if (n->split[v] != PLAN_SPLIT_B) /* Type-I, or LAYOUT_BATCH for a join */
                continue;
            double f = (double)n->n_dev / (double)path_group(L, cls, k + 1)->n_dev;
            if (topo_tree_link(L->cl, n->counts, NULL))
                nn *= f;
            else
                pn *= f;
            if (span == NULL)
                span = n;
        }
    }
    if (span == NULL) { /* no batch split: the device alone */
        memset(grp, 0, sizeof *grp);
        grp->n_nodes = grp->per_node = 1;
        return 1.0;
    }
    topo_group_members(L->cl, span->counts, llround(nn < 1.0 ? 1.0 : nn),
                       llround(pn < 1.0 ? 1.0 : pn), grp);
    return (double)grp->n_nodes * (double)grp->per_node;
}

typedef struct {
    double bytes;
    dnp_comm_group grp;
    int open;
    int dep;          /* the latest weight-gradient task in the bucket */
} bucket;

static int same_group(const dnp_comm_group *a, const dnp_comm_group *b)
{
    return a->n_nodes == b->n_nodes && a->per_node == b->per_node &&
           a->inter_bw_bps == b->inter_bw_bps && a->intra_bw_bps == b->intra_bw_bps &&
           a->inter_lat_s == b->inter_lat_s && a->intra_lat_s == b->intra_lat_s;
}

/* Issue bucket b of class c: an all-reduce on the class's gradient stream
 * once its last gradient is ready (with no_overlap, after the whole
 * backward pass: the caller passes that task as the dependency). */
static void issue_bucket(lowerer *L, int c, const bucket *b, int dep)
{
    int s = c * ST_PER_CLASS + ST_GRAD;
    double d = coll_s(DNP_COLL_ALLREDUCE, &b->grp, b->bytes);
    sim_add(&L->r->sim, SIM_COMM, d, -1, PH_GRAD_SYNC, &s, 1, &dep, 1);
    lower_class *cls = &L->r->classes[c];
    double p = (double)(b->grp.n_nodes * b->grp.per_node);
    cls->grad_busy_s += d;
    /* A ring all-reduce receives 2 (p-1)/p of the buffer per member. */
    cls->recv_bytes += 2.0 * (p - 1.0) / p * b->bytes;
}

/* Op i's three passes and what it keeps, on one device of class c
 * (computed in the forward pass, kept for the backward pass). */
static void class_op(const lowerer *L, int c, int i, perf_op_time *t, perf_op_mem *m)
{
    size_t at = (size_t)c * (size_t)L->n_ops + (size_t)i;
    if (L->op_time[at].kernels < 0) {
        const lower_class *cls = &L->r->classes[c];
        double fb, fi, fo;
        op_shares(L->lt, L->owner, L->node_of_op, path_group(L, cls, cls->depth), i, &fb, &fi,
                  &fo);
        perf_op_time_get(L->g, i, L->s->batch, fb, fi, fo, &L->rates[cls->type],
                         &L->op_time[at]);
        perf_op_mem_get(L->g, i, L->s->batch, fb, fi, fo, &L->rates[cls->type],
                        &L->op_mem[at]);
    }
    *t = L->op_time[at];
    *m = L->op_mem[at];
}

/* Which planned nodes move anything: some level of some class splits the
 * node or one of its producers other than by batch. */
static void find_moves(lowerer *L)
{
    const layer_table *lt = L->lt;
    for (int v = 0; v < lt->n_rows && !out_of_time(L); v++) {
        L->moves[v] = 0;
        for (int c = 0; c < L->r->n_classes && !L->moves[v]; c++) {
            const lower_class *cls = &L->r->classes[c];
            for (int k = 0; k < cls->depth && !L->moves[v]; k++) {
                const plan_group *n = path_group(L, cls, k);
                L->moves[v] = n->split[v] != PLAN_SPLIT_B;
                for (int e = lt->in_start[v]; e < lt->in_start[v + 1]; e++)
                    L->moves[v] |= n->split[lt->xchg[e].u] != PLAN_SPLIT_B;
            }
        }
    }
}

/* Close bucket b of class c: issue its all-reduce now, or with no_overlap
 * keep it for after the backward pass. */
static void close_bucket(lowerer *L, int c, bucket *b, bucket *deferred, int *n_deferred)
{
    if (L->no_overlap)
        deferred[(*n_deferred)++] = *b;
    else
        issue_bucket(L, c, b, b->dep);
    b->open = 0;
}

static dnp_status lower_all(lowerer *L)
{
    lower_result *r = L->r;
    const int C = r->n_classes, n_ops = L->n_ops;
    bucket *bk = dnp_calloc((size_t)C, sizeof *bk);
    /* with no_overlap the closed buckets wait here for the end of backward */
    bucket *deferred = dnp_malloc((size_t)C * (size_t)(n_ops + 1) * sizeof *deferred);
    int *n_deferred = dnp_calloc((size_t)C, sizeof *n_deferred);
    if (bk == NULL || deferred == NULL || n_deferred == NULL) {
        dnp_free(bk);
        dnp_free(deferred);
        dnp_free(n_deferred);
        return DNP_ERR_NOMEM;
    }

    /* Forward, in topological order. */
    for (int i = 0; i < n_ops && !out_of_time(L); i++) {
        int v = L->node_of_op[i];
        if (v >= 0)
            node_exchanges(L, v, 0, 1);
        const dnp_op *op = dnp_graph_op(L->g, i);
        /* The saved inputs' bytes (all inputs, at one share: the device
         * model's count) are apportioned to each input by its size below:
         * attention's scores . V saves a large and a small tensor. */
        double in_elems = 0.0;
        for (int k = 0; k < op->n_inputs; k++)
            in_elems += shape_elems(dnp_op_out_view(dnp_graph_op(L->g, op->inputs[k])));
        for (int c = 0; c < C; c++) {
            lower_class *cls = &r->classes[c];
            perf_op_time t;
            perf_op_mem m;
            class_op(L, c, i, &t, &m);
            cls->param_elems += m.param_elems;
            /* Each tensor once (autograd stores a tensor saved by its
             * producer and its consumers once): the op's private buffers
             * now, its output and inputs as the largest any op keeps. */
            cls->act_bytes += m.saved_act_bytes - m.saved_input_bytes - m.saved_output_bytes;
            r->op_act_bytes[(size_t)c * (size_t)n_ops + (size_t)i] +=
                m.saved_act_bytes - m.saved_input_bytes - m.saved_output_bytes;
            double *kept = &L->kept[(size_t)c * (size_t)n_ops];
            kept[i] = m.saved_output_bytes > kept[i] ? m.saved_output_bytes : kept[i];
            for (int k = 0; k < op->n_inputs && m.saved_input_bytes > 0.0; k++) {
                const dnp_shape src = dnp_op_out_view(dnp_graph_op(L->g, op->inputs[k]));
                double share = in_elems > 0.0 ? m.saved_input_bytes * shape_elems(src) / in_elems
                                              : m.saved_input_bytes / op->n_inputs;
                int j = op->inputs[k];
                if (j >= 0 && j < n_ops && share > kept[j])
                    kept[j] = share;
            }
            if (t.fwd_s > 0.0)
                add_compute(L, c, t.fwd_s, t.fwd_host_s, i, PH_FWD);
        }
        if (v >= 0)
            node_exchanges(L, v, 0, 0);
    }
    for (int c = 0; c < C; c++)
        for (int i = 0; i < n_ops; i++) {
            size_t at = (size_t)c * (size_t)n_ops + (size_t)i;
            r->classes[c].act_bytes += L->kept[at];
            r->op_act_bytes[at] += L->kept[at];
        }
    /* Backward, in reverse order; gradients go to buckets as produced
     * (PyTorch DDP: buckets in reverse order of the parameters). */
    for (int i = n_ops - 1; i >= 0 && !out_of_time(L); i--) {
        int v = L->node_of_op[i];
        for (int c = 0; c < C; c++) {
            lower_class *cls = &r->classes[c];
            perf_op_time t;
            perf_op_mem m;
            class_op(L, c, i, &t, &m);
            int wg = -1;
            if (t.wgrad_s > 0.0)
                wg = add_compute(L, c, t.wgrad_s, t.wgrad_host_s, i, PH_WGRAD);
            if (t.bwd_s > 0.0)
                add_compute(L, c, t.bwd_s, t.bwd_host_s, i, PH_BWD);
            dnp_comm_group grp;
            if (!(m.param_elems > 0.0) || replica_group(L, c, i, &grp) <= 1.0)
                continue;
            double bytes = m.param_elems * L->rates[cls->type].grad_bytes;
            bucket *b = &bk[c];
            bucket *dq = &deferred[(size_t)c * (size_t)(n_ops + 1)];
            if (b->open && !same_group(&b->grp, &grp))
                close_bucket(L, c, b, dq, &n_deferred[c]);
            if (!b->open) {
                memset(b, 0, sizeof *b);
                b->open = 1;
                b->grp = grp;
            }
            b->bytes += bytes;
            b->dep = wg >= 0 ? wg : L->last_compute[c];
            cls->buffer_bytes += bytes;
            if (b->bytes >= DDP_BUCKET_BYTES)
                close_bucket(L, c, b, dq, &n_deferred[c]);
        }
        if (v >= 0) {
            node_exchanges(L, v, 1, 0);
            node_exchanges(L, v, 1, 1);
        }
    }
    for (int c = 0; c < C; c++) {
        bucket *b = &bk[c];
        if (b->open)
            close_bucket(L, c, b, &deferred[(size_t)c * (size_t)(n_ops + 1)], &n_deferred[c]);
        for (int j = 0; j < n_deferred[c]; j++)
            issue_bucket(L, c, &deferred[(size_t)c * (size_t)(n_ops + 1) + (size_t)j],
                         L->last_compute[c]);
    }
    /* The optimizer step after the class's last gradient all-reduce (the
     * gradient stream is FIFO: its last task stands for all); one pass over
     * the tasks finds every class's (O(tasks + classes), not their product:
     * issue 31, 10^6 devices of three types). */
    int *last_grad_of = dnp_malloc((size_t)C * sizeof *last_grad_of);
    if (last_grad_of == NULL) {
        dnp_free(bk);
        dnp_free(deferred);
        dnp_free(n_deferred);
        return DNP_ERR_NOMEM;
    }
    for (int c = 0; c < C; c++)
        last_grad_of[c] = -1;
    for (int t = 0; t < r->sim.n_tasks; t++) {
        const sim_task *tk = &r->sim.tasks[t];
        int ref = tk->n_streams == 1 ? r->sim.refs[tk->first_stream] : -1;
        if (tk->phase == PH_GRAD_SYNC && ref >= 0 && ref % ST_PER_CLASS == ST_GRAD)
            last_grad_of[ref / ST_PER_CLASS] = t;
    }
    for (int c = 0; c < C; c++) {
        lower_class *cls = &r->classes[c];
        int last_grad = last_grad_of[c];
        double opt_s =
            perf_optimizer_time_s(cls->param_elems, L->optimizer, &L->rates[cls->type]);
        int s = c * ST_PER_CLASS + ST_COMPUTE;
        int deps[3] = {L->last_compute[c], L->pending[c], last_grad};
        L->last_compute[c] = sim_add(&r->sim, SIM_COMPUTE, opt_s, -1, PH_OPTIM, &s, 1, deps, 3);
        L->pending[c] = -1;
        cls->compute_busy_s += opt_s;
    }
    dnp_free(last_grad_of);
    dnp_free(bk);
    dnp_free(deferred);
    dnp_free(n_deferred);
    return r->sim.oom ? DNP_ERR_NOMEM : DNP_OK;
}

/* Split the critical class's idle compute time (step time - compute) into
 * exposed communication (at most its communication busy time) and waiting
 * with none of its communication in flight (for other device classes'
 * work) or for its host to issue kernels (host_wait_of), so that compute +
 * exposed + host + wait = step time. */
static void split_idle(lower_result *r, double exposed_s, double host_wait_s)
{
    double idle_s = r->step_time_s - r->compute_s;
    if (idle_s < 0.0)
        idle_s = 0.0;
    if (exposed_s > r->comm_busy_s)
        exposed_s = r->comm_busy_s; /* floating-point rounding of the union */
    if (exposed_s > idle_s)
        exposed_s = idle_s;
    r->exposed_comm_s = exposed_s;
    /* the host's part of the rest (a wait for the host while some
     * communication is in flight is already exposed communication) */
    r->host_wait_s = host_wait_s < idle_s - exposed_s ? host_wait_s : idle_s - exposed_s;
    if (r->host_wait_s < 1e-9 || r->host_wait_s < 1e-9 * r->step_time_s)
        r->host_wait_s = 0.0;
    r->wait_s = idle_s - exposed_s - r->host_wait_s;
    /* A wait under 1 ns or 1e-9 of the step is rounding of the two sums
     * (the step less the compute durations, the spans' union): none.  The
     * three parts then add up to the step within that. */
    if (r->wait_s < 1e-9 || r->wait_s < 1e-9 * r->step_time_s)
        r->wait_s = 0.0;
}

/* How long the tasks of stream s start after their stream and their
 * other dependencies would let them, held back by the host's issue (a
 * PH_HOST dependency).  Run sim_run first.  O(tasks + references). */
static double host_wait_of(const sim_graph *g, int s)
{
    double wait_s = 0.0, prev_end_s = 0.0;
    for (int t = 0; t < g->n_tasks; t++) {
        const sim_task *tk = &g->tasks[t];
        if (tk->n_streams != 1 || g->refs[tk->first_stream] != s)
            continue;
        double natural_s = prev_end_s;
        int held = 0;
        for (int k = 0; k < tk->n_deps; k++) {
            const sim_task *d = &g->tasks[g->refs[tk->first_dep + k]];
            if (d->phase == PH_HOST && d->n_streams == 0)
                held = 1;
            else if (d->end_s > natural_s)
                natural_s = d->end_s;
        }
        if (held && tk->start_s > natural_s)
            wait_s += tk->start_s - natural_s;
        prev_end_s = tk->end_s;
    }
    return wait_s;
}

/* Step time, the critical class, exposed communication, the critical
 * path's split and memory per class. */
static void summarise(lowerer *L, const dnp_plan_options *opt)
{
    lower_result *r = L->r;
    r->step_time_s = sim_run(&r->sim);
    /* The class whose last compute task ends last (first such in class
     * order): one pass over the tasks, O(tasks + classes). */
    double *end_of = dnp_calloc((size_t)r->n_classes, sizeof *end_of);
    if (end_of == NULL) {
        r->sim.oom = 1;
        return;
    }
    for (int t = 0; t < r->sim.n_tasks; t++) {
        const sim_task *tk = &r->sim.tasks[t];
        if (tk->n_streams < 1)
            continue; /* the host's issue (PH_HOST) */
        int ref = r->sim.refs[tk->first_stream];
        if (tk->kind == SIM_COMPUTE && ref % ST_PER_CLASS == ST_COMPUTE &&
            tk->end_s > end_of[ref / ST_PER_CLASS])
            end_of[ref / ST_PER_CLASS] = tk->end_s;
    }
    double best_end = -1.0;
    for (int c = 0; c < r->n_classes; c++)
        if (end_of[c] > best_end) {
            best_end = end_of[c];
            r->crit_class = c;
        }
    dnp_free(end_of);
    const lower_class *cc = &r->classes[r->crit_class];
    r->compute_s = cc->compute_busy_s;
    r->comm_busy_s = cc->xchg_busy_s + cc->grad_busy_s;
    {
        /* Exposed: its compute idle while its exchange or gradient stream is busy. */
        int c = r->crit_class;
        int comm_streams[2] = {c * ST_PER_CLASS + ST_XCHG, c * ST_PER_CLASS + ST_GRAD};
        split_idle(r, sim_exposed_s(&r->sim, c * ST_PER_CLASS + ST_COMPUTE, comm_streams, 2),
                   host_wait_of(&r->sim, c * ST_PER_CLASS + ST_COMPUTE));
    }
    /* Critical path: back from the task that ends last. */
    int t = -1;
    for (int i = 0; i < r->sim.n_tasks; i++)
        if (t < 0 || r->sim.tasks[i].end_s > r->sim.tasks[t].end_s)
            t = i;
    while (t >= 0) {
        const sim_task *tk = &r->sim.tasks[t];
        if (tk->phase == PH_HOST)
            ; /* the host's issue since the step began: neither */
        else if (tk->kind == SIM_COMPUTE)
            r->crit_path_compute_s += tk->dur_s;
        else
            r->crit_path_comm_s += tk->dur_s;
        t = tk->crit_pred;
    }
    /* Per planned node: the critical class's compute and exchange time. */
    for (int i = 0; i < r->sim.n_tasks; i++) {
        const sim_task *tk = &r->sim.tasks[i];
        if (tk->label < 0)
            continue;
        int on_crit = 0;
        for (int k = 0; k < tk->n_streams; k++)
            if (r->sim.refs[tk->first_stream + k] / ST_PER_CLASS == r->crit_class)
                on_crit = 1;
        if (!on_crit)
            continue;
        int v = L->node_of_op[tk->label] >= 0 ? L->node_of_op[tk->label] : L->owner[tk->label];
        if (v < 0)
            continue;
        if (tk->kind == SIM_COMPUTE)
            r->node_compute_s[v] += tk->dur_s;
        else
            r->node_comm_s[v] += tk->dur_s;
    }
    /* Memory per device of each class (docs/time-model.md "Memory"). */
    r->fits = 1;
    for (int c = 0; c < r->n_classes; c++) {
        lower_class *cls = &r->classes[c];
        const dnp_device_type *d = &L->cl->types[cls->type];
        cls->static_bytes = cls->param_elems * perf_bytes_per_param(L->optimizer, &L->rates[cls->type]);
        cls->peak_bytes = cls->static_bytes + cls->act_bytes + cls->buffer_bytes;
        cls->capacity_bytes = d->mem_bytes;
        double limit = opt->memory_limit_bytes > 0.0 ? opt->memory_limit_bytes : d->mem_bytes;
        if (limit > 0.0 && cls->peak_bytes > limit)
            r->fits = 0;
        if (cls->peak_bytes > r->mem_peak_bytes) {
            r->mem_peak_bytes = cls->peak_bytes;
            r->mem_capacity_bytes =
                opt->memory_limit_bytes > 0.0 ? opt->memory_limit_bytes : d->mem_bytes;
        }
    }
}

dnp_status lower_simulate(const plan_strategy *s, const lower_context *m, const dnp_graph *g,
                          const dnp_plan_options *opt, lower_result *out, dnp_error *err)
{
    lowerer L;
    memset(&L, 0, sizeof L);
    lower_result r;
    memset(&r, 0, sizeof r);
    if (s->n_groups < 1 || s->n_ops != m->lt->n_rows) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "the strategy of %s has %d device groups and %d ops, its layer table %d "
                      "rows: no tree to lower",
                      m->model, s->n_groups, s->n_ops, m->lt->n_rows);
        return DNP_ERR_INPUT;
    }
    dnp_status st = DNP_ERR_NOMEM;
    class_list cls = {0};
    int path[LOWER_MAX_DEPTH + 1];
    collect(&cls, s, 0, path, 0, 1.0);
    r.classes = cls.v;
    r.n_classes = cls.n;
    if (cls.oom)
        goto done;
    if (r.n_classes == 0) {
        st = DNP_ERR_INTERNAL;
        dnp_error_set(err, st, "the plan has no device");
        goto done;
    }
    for (int c = 0; c < r.n_classes; c++) {
        if (r.classes[c].depth > LOWER_MAX_DEPTH) {
            st = DNP_ERR_INPUT;
            dnp_error_set(err, st, "the device tree is deeper than %d levels", LOWER_MAX_DEPTH);
            goto done;
        }
        r.classes[c].type = leaf_type(m->cl, &s->group[r.classes[c].path[r.classes[c].depth]]);
    }
    const int n_ops = dnp_graph_n_ops(g), C = r.n_classes;
    L.s = s;
    L.lt = m->lt;
    L.g = g;
    L.cl = m->cl;
    L.r = &r;
    L.n_ops = n_ops;
    L.no_overlap = opt->no_overlap;
    L.optimizer = opt->optimizer;
    L.deadline_s = m->deadline_s;
    for (int k = 0; k < m->cl->n_types; k++) {
        perf_rates_get(&m->cl->types[k], opt->precision, &L.rates[k]);
        L.rates[k].pace = m->pace[k] > 0.0 ? m->pace[k] : 1.0; /* set by the planner */
    }
    L.owner = dnp_malloc((size_t)(n_ops + 1) * sizeof *L.owner);
    L.node_of_op = dnp_malloc((size_t)(n_ops + 1) * sizeof *L.node_of_op);
    L.last_compute = dnp_malloc((size_t)C * sizeof *L.last_compute);
    L.pending = dnp_malloc((size_t)C * sizeof *L.pending);
    L.host_s = dnp_calloc((size_t)C, sizeof *L.host_s);
    L.tmp_streams = dnp_malloc((size_t)C * sizeof *L.tmp_streams);
    L.tmp_deps = dnp_malloc((size_t)C * sizeof *L.tmp_deps);
    L.dur = dnp_calloc((size_t)C, sizeof *L.dur);
    L.kept = dnp_calloc((size_t)C * (size_t)(n_ops + 1), sizeof *L.kept);
    L.moves = dnp_calloc((size_t)m->lt->n_rows + 1, 1);
    L.op_time = dnp_malloc((size_t)C * (size_t)(n_ops + 1) * sizeof *L.op_time);
    L.op_mem = dnp_malloc((size_t)C * (size_t)(n_ops + 1) * sizeof *L.op_mem);
    r.op_names = dnp_calloc((size_t)(n_ops + 1), sizeof *r.op_names);
    r.op_act_bytes = dnp_calloc((size_t)C * (size_t)(n_ops + 1), sizeof *r.op_act_bytes);
    r.node_compute_s = dnp_calloc((size_t)m->lt->n_rows + 1, sizeof *r.node_compute_s);
    r.node_comm_s = dnp_calloc((size_t)m->lt->n_rows + 1, sizeof *r.node_comm_s);
    if (!L.owner || !L.node_of_op || !L.last_compute || !L.pending || !L.host_s || !L.tmp_streams ||
        !L.tmp_deps || !L.dur || !L.kept || !L.moves || !L.op_time || !L.op_mem || !r.op_names ||
        !r.op_act_bytes || !r.node_compute_s || !r.node_comm_s)
        goto done;
    r.n_ops = n_ops;
    size_t names_bytes = 0;
    for (int i = 0; i < n_ops; i++)
        names_bytes += strlen(dnp_graph_op(g, i)->name) + 1;
    if ((r.op_names[0] = dnp_malloc(names_bytes)) == NULL)
        goto done;
    size_t at = 0;
    for (int i = 0; i < n_ops; i++) {
        size_t len = strlen(dnp_graph_op(g, i)->name) + 1;
        r.op_names[i] = r.op_names[0] + at;
        memcpy(r.op_names[i], dnp_graph_op(g, i)->name, len);
        at += len;
    }
    for (int i = 0; i < n_ops; i++) {
        L.owner[i] = layer_table_owner(m->lt, g, i);
        L.node_of_op[i] = m->lt->row_of_op[i];
    }
    for (size_t j = 0; j < (size_t)C * (size_t)(n_ops + 1); j++)
        L.op_time[j].kernels = -1; /* not computed yet */
    find_moves(&L);
    for (int c = 0; c < C; c++) {
        L.last_compute[c] = -1;
        L.pending[c] = -1;
    }
    sim_init(&r.sim, C * ST_PER_CLASS);
    if (!out_of_time(&L) && (st = lower_all(&L)) != DNP_OK)
        goto done;
    /* the simulation and the summary: linear in the tasks and classes */
    if (!out_of_time(&L))
        summarise(&L, opt);
    if (out_of_time(&L)) {
        st = DNP_ERR_INPUT;
        dnp_error_set(err, st,
                      "time limit of %g s reached while simulating the step of %s (%d device "
                      "class%s, %d ops): no result to report (a larger --time-limit would do)",
                      m->time_limit_s, m->model, C, C == 1 ? "" : "es", n_ops);
        goto done;
    }
    if (r.sim.oom) {
        st = DNP_ERR_NOMEM;
        goto done;
    }
    *out = r;
    memset(&r, 0, sizeof r);
    st = DNP_OK;
done:
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory simulating the step");
    lower_result_free(&r);
    dnp_free(L.owner);
    dnp_free(L.node_of_op);
    dnp_free(L.last_compute);
    dnp_free(L.host_s);
    dnp_free(L.pending);
    dnp_free(L.tmp_streams);
    dnp_free(L.tmp_deps);
    dnp_free(L.dur);
    dnp_free(L.kept);
    dnp_free(L.moves);
    dnp_free(L.op_time);
    dnp_free(L.op_mem);
    return st;
}

dnp_status lower_paper(const plan_strategy *s, const double *t_s, const double *tc_s,
                       lower_result *out, dnp_error *err)
{
    lower_result r;
    memset(&r, 0, sizeof r);
    if (s->n_groups < 1) {
        dnp_error_set(err, DNP_ERR_INPUT, "the strategy has no device group to lower");
        return DNP_ERR_INPUT;
    }
    r.classes = dnp_calloc(1, sizeof *r.classes);
    r.node_compute_s = dnp_calloc((size_t)s->n_ops + 1, sizeof *r.node_compute_s);
    r.node_comm_s = dnp_calloc((size_t)s->n_ops + 1, sizeof *r.node_comm_s);
    if (r.classes == NULL || r.node_compute_s == NULL || r.node_comm_s == NULL) {
        lower_result_free(&r);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory simulating the step");
        return DNP_ERR_NOMEM;
    }
    r.n_classes = 1;
    r.classes[0].path[0] = 0; /* the root group */
    r.classes[0].devices = (double)s->group[0].n_dev;
    sim_init(&r.sim, ST_PER_CLASS);
    int comm_stream = ST_XCHG, compute_stream = ST_COMPUTE, prev = -1;
    for (int v = 0; v < s->n_ops; v++) {
        double comm_s = t_s[v] - tc_s[v], compute_s = tc_s[v];
        int c = sim_add(&r.sim, SIM_COMM, comm_s, s->ops[v].op, PH_XCHG_FWD, &comm_stream, 1,
                        &prev, 1);
        prev = sim_add(&r.sim, SIM_COMPUTE, compute_s, s->ops[v].op, PH_FWD, &compute_stream, 1,
                       &c, 1);
        r.node_compute_s[v] = compute_s;
        r.node_comm_s[v] = comm_s;
        r.classes[0].compute_busy_s += compute_s;
        r.classes[0].xchg_busy_s += comm_s;
    }
    r.step_time_s = sim_run(&r.sim);
    r.compute_s = r.classes[0].compute_busy_s;
    r.comm_busy_s = r.classes[0].xchg_busy_s;
    {
        int comm_streams[2] = {ST_XCHG, ST_GRAD};
        split_idle(&r, sim_exposed_s(&r.sim, ST_COMPUTE, comm_streams, 2), 0.0);
    }
    r.fits = 1;
    if (r.sim.oom) {
        lower_result_free(&r);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory simulating the step");
        return DNP_ERR_NOMEM;
    }
    *out = r;
    return DNP_OK;
}
