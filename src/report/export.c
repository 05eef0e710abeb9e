/* export.c - a plan as per-tensor sharding on a named device mesh: JAX
 * PartitionSpecs or PyTorch DTensor placements (both as Python source),
 * each spec through report_put_spec (sharding_spec.c), the one spec
 * writer this shares with a configuration's export (sharding3d.c).
 *
 * The mesh has one axis per level of the device tree along the first path,
 * "h0" for the outermost split (the strategy's axes).  At each level an op's type shards one
 * role of its tensors over that axis (AccPar section 3.2):
 *
 *   Type-I   (batch)      input and output on N; weight replicated, its
 *                         gradient a partial sum reduced over the axis
 *   Type-II  (input dim)  input on its feature/channel dim, weight on its
 *                         input dim; output a partial sum reduced over it
 *   Type-III (output dim) weight on its output dim, output on its
 *                         feature/channel dim; input replicated, its
 *                         gradient a partial sum reduced over it
 *   joins                 B: N, C: the channel dim, R: nothing
 *
 * The splits are read from the tree's strategy (plan/strategy.h:
 * plan_strategy_from_tree): per op, the loop dimension (b, c, n) each
 * axis splits and the partial sums.  What these notations cannot say
 * (uneven ratios, halves that decide differently, unequal halves) is read
 * from the plan and written as NOTE comments; the dispatcher
 * report_export() is at the end, astra.c has the workload. */
#include "report/report.h"
#include "core/einsum_eq.h"
#include "model/graph_named.h"
#include "plan/strategy.h"
#include "search/plan_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROLE_BATCH = 0, ROLE_IN = 1, ROLE_OUT = 2 };
#define TMAX_RANK (DNP_MAX_RANK + 2)
#define MAX_BRANCH_LINES 40

/* One tensor of an op: its rank, which dim plays each role (-1: none),
 * the mesh axes sharding each dim and the axes it is a partial sum over. */
typedef struct {
    const char *what; /* "input", "weight", "output" */
    int rank;
    int role_dim[3];
    unsigned axes[TMAX_RANK];
    unsigned partial;      /* output of Type-II before its reduction */
    unsigned grad_partial; /* gradient reduced over these axes (weight: I, input: III) */
    int no_grad;           /* token ids: no gradient flows into them */
} tensor;

/* What both sharding exports need to know about the plan. */
typedef struct {
    const dnp_graph *g;
    const dnp_cluster *cl;
    const dnp_plan_options *opt;
    const dnp_plan *p;
    const plan_strategy *st; /* the tree's strategy: axes h0.. and one op per plan node */
    int torch;       /* 1: DTensor (PyTorch weight layouts), 0: JAX */
    int depth;       /* mesh axes: levels on the first path */
    unsigned uneven; /* bit k: ratio of level k on the first path is not 1/2 */
    int regular;     /* every split in the tree halves the devices */
} ectx;

static void set_tensor(tensor *t, const char *what, int rank, int batch, int in, int out)
{
    memset(t, 0, sizeof *t);
    t->what = what;
    t->rank = rank;
    t->role_dim[ROLE_BATCH] = batch;
    t->role_dim[ROLE_IN] = in;
    t->role_dim[ROLE_OUT] = out;
}

/* Rank of an activation: N plus the real per-sample axes, or N C H W, or
 * N C for a vector. */
static int act_rank(const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    if (dnp_op_has_axes(op))
        return 1 + op->out_rank;
    return (ov.h == 1 && ov.w == 1) ? 2 : 4;
}

/* Position of letter c in named axes `axes`, -1 if absent. */
static int axis_of(const char *axes, char c)
{
    const char *p = c != '\0' ? strchr(axes, c) : NULL;
    return p != NULL ? (int)(p - axes) : -1;
}

/* First letter of `from` that is in `in` (or not, want_in = 0) and in
 * `also` (or not, also_in = 0); '\0' if none. */
static char pick_letter(const char *from, const char *in, int want_in, const char *also,
                        int also_in)
{
    for (const char *c = from; *c != '\0'; c++)
        if ((strchr(in, *c) != NULL) == want_in && (strchr(also, *c) != NULL) == also_in)
            return *c;
    return '\0';
}

/* Per-sample extent of letter c in op's output or its first input, 0 if
 * neither has it (the batch 'b' counts 0: it is never a weight letter). */
static int64_t letter_extent(const dnp_graph *g, const dnp_op *op, char c)
{
    const dnp_op *t[2] = {op, op->n_inputs > 0 ? dnp_graph_op(g, op->inputs[0]) : NULL};
    for (int i = 0; i < 2; i++) {
        char axes[DNP_MAX_RANK + 2];
        int64_t ext[DNP_MAX_RANK + 2];
        if (t[i] == NULL || t[i]->axes[0] == '\0')
            continue;
        int r = graph_named_shape(t[i], 0, axes, ext), d = axis_of(axes, c);
        if (d >= 0 && d < r)
            return ext[d];
    }
    return 0;
}

/* The weight letter of an einsum that Type-II (want_in 1, o_in 0) or
 * Type-III (0, 1) shards: the op's model axis when it is one (the heads
 * of an attention projection), else the first whose extent the mesh's
 * devices divide (the heads rather than a 3-way q/k/v selector), else
 * the first; '\0' if the weight has none. */
static char shard_letter(const ectx *e, const dnp_op *op, const char *w, const char *a,
                         int want_in, const char *o, int o_in)
{
    char m[2] = {op->model_axis, '\0'};
    char c = pick_letter(m, a, want_in, o, o_in);
    if (c != '\0' && strchr(w, c) != NULL)
        return c;
    const int64_t devices = (int64_t)1 << e->depth;
    for (const char *x = w; *x != '\0'; x++) {
        char one[2] = {*x, '\0'};
        if (pick_letter(one, a, want_in, o, o_in) != '\0' &&
            letter_extent(e->g, op, *x) % devices == 0)
            return *x;
    }
    return pick_letter(w, a, want_in, o, o_in);
}

/* Tensors of an op on named axes (docs/model.md, "Named axes"), in their
 * real axis order with N where 'b' is.  A weighted einsum ("A,B->O", B
 * the weight): Type-II shards a contracted letter (in A and B, not O),
 * Type-III a letter of B that O keeps and A lacks (shard_letter); an
 * LSTM only batch-splits (its weights are not listed); an embedding's and
 * a per-position FC's output dim, and a join's channel, is the last
 * axis.  Returns the count, 0 if the op is not on named axes. */
static int named_tensors(const ectx *e, const dnp_op *op, tensor *ts)
{
    if (op->axes[0] == '\0')
        return 0;
    const char *oa = op->axes;
    int r_out = (int)strlen(oa), ob = axis_of(oa, 'b');
    const char *ia = op->n_inputs > 0 ? dnp_graph_op(e->g, op->inputs[0])->axes : "";
    int r_in = (int)strlen(ia), ib = axis_of(ia, 'b');
    if (op->kind == DNP_OP_EINSUM && op->n_inputs == 1) {
        char a[DNP_MAX_RANK + 3], w[DNP_MAX_RANK + 3], o[DNP_MAX_RANK + 3];
        if (einsum_eq_split(op->equation, DNP_MAX_RANK + 2, 0, a, w, o) != 0)
            return 0;
        char din = shard_letter(e, op, w, a, 1, o, 0), dout = shard_letter(e, op, w, a, 0, o, 1);
        set_tensor(&ts[0], "input", (int)strlen(a), axis_of(a, 'b'), axis_of(a, din), -1);
        set_tensor(&ts[1], "weight", (int)strlen(w), -1, axis_of(w, din), axis_of(w, dout));
        set_tensor(&ts[2], "output", (int)strlen(o), axis_of(o, 'b'), -1, axis_of(o, dout));
        return 3;
    }
    switch (op->kind) {
    case DNP_OP_LSTM:
        set_tensor(&ts[0], "input", r_in, ib, -1, -1);
        set_tensor(&ts[1], "output", r_out, ob, -1, -1);
        return 2;
    case DNP_OP_EMBEDDING:
        set_tensor(&ts[0], "input", r_in, ib, -1, -1); /* token ids */
        ts[0].no_grad = 1;
        set_tensor(&ts[1], "weight", 2, -1, 0, 1); /* (vocab, dim) */
        set_tensor(&ts[2], "output", r_out, ob, -1, r_out - 1);
        return 3;
    case DNP_OP_FC:
        set_tensor(&ts[0], "input", r_in, ib, r_in - 1, -1);
        if (e->torch)
            set_tensor(&ts[1], "weight", 2, -1, 1, 0); /* nn.Linear (out, in) */
        else
            set_tensor(&ts[1], "weight", 2, -1, 0, 1); /* Dense kernel (in, out) */
        set_tensor(&ts[2], "output", r_out, ob, -1, r_out - 1);
        return 3;
    default:
        set_tensor(&ts[0], "output", r_out, ob, r_out - 1, r_out - 1);
        return 1;
    }
}

/* 1 if some op of g has named axes.  O(ops). */
static int has_named_axes(const dnp_graph *g)
{
    for (int i = 0; i < dnp_graph_n_ops(g); i++)
        if (dnp_graph_op(g, i)->axes[0] != '\0')
            return 1;
    return 0;
}

/* The tensors of op `op` (input, weight, output) and how many; joins have
 * only an output whose channel dim plays both channel roles. */
static int op_tensors(const ectx *e, const dnp_op *op, tensor *ts)
{
    int named = named_tensors(e, op, ts);
    if (named > 0)
        return named;
    int r_out = act_rank(op);
    switch (op->kind) {
    case DNP_OP_CONV:
        set_tensor(&ts[0], "input", 4, 0, 1, -1);
        set_tensor(&ts[1], "weight", 4, -1, 1, 0); /* (out, in/groups, kh, kw) */
        set_tensor(&ts[2], "output", 4, 0, -1, 1);
        return 3;
    case DNP_OP_FC: {
        /* (N, in) flattened, or (N, positions..., features) */
        int r = op->keep_positions ? (dnp_op_has_axes(op) ? r_out : 3) : 2;
        set_tensor(&ts[0], "input", r, 0, r - 1, -1);
        if (e->torch)
            set_tensor(&ts[1], "weight", 2, -1, 1, 0); /* nn.Linear (out, in) */
        else
            set_tensor(&ts[1], "weight", 2, -1, 0, 1); /* Dense kernel (in, out) */
        set_tensor(&ts[2], "output", r, 0, -1, r - 1);
        return 3;
    }
    case DNP_OP_EMBEDDING: {
        int r = dnp_op_has_axes(op) ? r_out : 3;          /* (N, S..., D) */
        set_tensor(&ts[0], "input", r - 1, 0, -1, -1); /* token ids */
        ts[0].no_grad = 1;
        set_tensor(&ts[1], "weight", 2, -1, 0, 1); /* (vocab, dim) */
        set_tensor(&ts[2], "output", r, 0, -1, r - 1);
        return 3;
    }
    default: {
        /* The channel axis: C of an image, else the last (feature) axis. */
        int ch = (!dnp_op_has_axes(op) && r_out == 4) ? 1 : r_out - 1;
        set_tensor(&ts[0], "output", r_out, 0, ch, ch);
        return 1;
    }
    }
}

/* The role the split of axis k plays in strategy op o (ROLE_BATCH for b,
 * ROLE_IN for c, ROLE_OUT for n), -1 if k splits nothing of it. */
static int split_role(const plan_op *o, int k)
{
    static const char *const dims[3] = {"b", "c", "n"};
    for (int role = 0; role < 3; role++)
        if ((plan_op_axes(o, dims[role]) >> k) & 1u)
            return role;
    return -1;
}

/* AccPar's state of o at axis k, from its split: Type I / II / III / R
 * (weighted), layout B / C / R (joins); report_state_name's numbering. */
static int split_state(const plan_op *o, int k)
{
    int role = split_role(o, k);
    return role >= 0 ? role : o->weighted ? (int)DNP_TYPE_R : 2;
}

/* Apply every axis of strategy op o to the op's tensors. */
static void shard_tensors(const ectx *e, const plan_op *o, tensor *ts, int n)
{
    for (int k = 0; k < e->depth; k++) {
        int role = split_role(o, k);
        unsigned bit = 1u << k;
        if (role < 0)
            continue; /* replicated join, or a layer not split at this level (R) */
        for (int i = 0; i < n; i++) {
            tensor *x = &ts[i];
            int d = x->role_dim[role];
            if (d >= 0 && d < x->rank)
                x->axes[d] |= bit;
            else if ((o->out_partial & bit) && strcmp(x->what, "output") == 0)
                x->partial |= bit;
            if ((o->wgrad_partial & bit) && strcmp(x->what, "weight") == 0)
                x->grad_partial |= bit;
            if ((o->igrad_partial & bit) && strcmp(x->what, "input") == 0 && !x->no_grad)
                x->grad_partial |= bit;
        }
    }
}

/* "h0, h2": the names of the strategy's axes in `axes`. */
static void put_axes_text(rbuf *b, const ectx *e, unsigned axes)
{
    int first = 1;
    for (int k = 0; k < e->depth; k++)
        if ((axes >> k) & 1u) {
            rbuf_puts(b, first ? "" : ", ");
            rbuf_put_escaped(b, e->st->axis[k].name, ESC_TEXT);
            first = 0;
        }
}

/* The notes on one tensor (reductions and uneven axes), one clause a line
 * ("...\n") into `nb`; put_tensor_line lays them out as comments. */
static void put_tensor_notes(rbuf *nb, const ectx *e, const tensor *x)
{
    unsigned sharded = 0;
    for (int d = 0; d < x->rank; d++)
        sharded |= x->axes[d];
    unsigned uneven = sharded & e->uneven;
    if (x->partial) {
        if (e->torch)
            rbuf_puts(nb, "Partial() until all-reduced over ");
        else
            rbuf_puts(nb, "partial sums: psum over ");
        put_axes_text(nb, e, x->partial);
        rbuf_puts(nb, e->torch ? ", then Replicate()\n" : "; the spec is after the psum\n");
    }
    if (x->grad_partial) {
        rbuf_puts(nb, e->torch ? "gradient Partial() over " : "gradient psum over ");
        put_axes_text(nb, e, x->grad_partial);
        rbuf_puts(nb, "\n");
    }
    if (uneven) {
        rbuf_puts(nb, "uneven split over ");
        put_axes_text(nb, e, uneven);
        rbuf_puts(nb, " (see NOTE)\n");
    }
}

/* Lines of the generated Python are at most this wide (issue 15). */
#define EXPORT_MAX_COLS 119

/* The clauses of `notes` (one a line) as a comment after the code line that
 * started at offset `line_start` of b, joined by "; "; a clause that would
 * make the line wider than EXPORT_MAX_COLS starts a comment line of its own
 * ("        # ..."; inside the dict literal, so the Python stays valid).
 * O(length of the notes). */
static void put_notes_comment(rbuf *b, size_t line_start, const char *notes)
{
    size_t col = b->len - line_start;
    const char *sep = "  # ";
    for (const char *c = notes; *c != '\0';) {
        const char *end = strchr(c, '\n');
        size_t n = end != NULL ? (size_t)(end - c) : strlen(c);
        if (col + strlen(sep) + n > EXPORT_MAX_COLS && strcmp(sep, "; ") == 0) {
            rbuf_puts(b, ";\n        #");
            col = 9;
            sep = " ";
        }
        rbuf_printf(b, "%s%.*s", sep, (int)n, c);
        col += strlen(sep) + n;
        sep = "; ";
        c += n + (end != NULL ? 1 : 0);
    }
}

static void put_tensor_line(rbuf *b, const ectx *e, const tensor *x)
{
    size_t line_start = b->len;
    rbuf_printf(b, "        \"%s\": ", x->what);
    report_put_spec(b, e->st, e->torch, x->rank, x->axes, x->partial);
    rbuf_puts(b, ",");
    rbuf nb;
    rbuf_init(&nb);
    put_tensor_notes(&nb, e, x);
    if (nb.oom)
        b->oom = 1; /* sticky, as for b's own appends */
    char *notes = rbuf_take(&nb);
    if (notes != NULL)
        put_notes_comment(b, line_start, notes);
    dnp_free(notes);
    rbuf_puts(b, "\n");
}

/* Per-sample output shape, "64x55x55". */
static void put_shape(rbuf *b, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    if (dnp_op_has_axes(op)) {
        for (int d = 0; d < op->out_rank && d < DNP_MAX_RANK; d++)
            rbuf_printf(b, "%s%lld", d ? "x" : "", (long long)op->out_dims[d]);
    } else if (ov.h == 1 && ov.w == 1) {
        rbuf_printf(b, "%lld", (long long)ov.c);
    } else {
        rbuf_printf(b, "%lldx%lldx%lld", (long long)ov.c, (long long)ov.h, (long long)ov.w);
    }
}

/* Walk the whole tree: is every split an equal halving of the devices,
 * with every leaf at the same depth? */
static int tree_is_regular(const ectx *e)
{
    unsigned paths[REPORT_MAX_PATHS];
    int n = report_plan_paths(e->p, REPORT_MAX_DEPTH, paths, REPORT_MAX_PATHS);
    if (n > REPORT_MAX_PATHS)
        return 0;
    for (int i = 0; i < n; i++) {
        int d = report_path_depth(e->p, paths[i]);
        if (d != e->depth)
            return 0;
        for (int k = 0; k < d; k++) {
            int64_t nd[2];
            int one[2];
            if (report_level_split(e->p, e->cl, k, paths[i], nd, one) != 0 || nd[0] != nd[1])
                return 0;
        }
    }
    return 1;
}

/* The NOTE lines for the levels where the two halves decide differently:
 * compare the first path with the one taking the second group at level k. */
static void put_branch_notes(rbuf *b, const ectx *e)
{
    const dnp_plan *p = e->p;
    int V = dnp_plan_n_nodes(p);
    for (int k = 0; k < e->depth; k++) {
        if (dnp_plan_level_identical(p, k, 0))
            continue;
        unsigned other = 1u << k;
        int d_other = report_path_depth(p, other);
        int lim = d_other < e->depth ? d_other : e->depth;
        int lines = 0, more = 0;
        char groups[600];
        dnp_plan_level_groups(p, k, 0, groups, sizeof groups);
        rbuf_printf(b,
                    "# NOTE h%d: its two groups differ (%s) and are planned separately below "
                    "it;\n"
                    "#   where they decide differently (heterogeneous branches) one SPMD "
                    "program cannot express\n"
                    "#   the plan. This file follows the first group at every level; with the "
                    "second group at h%d:\n",
                    k, groups, k);
        if (d_other != e->depth)
            rbuf_printf(b, "#   %d levels below h%d down to single devices (the first group: %d)\n",
                        d_other - k - 1, k, e->depth - k - 1);
        for (int j = k + 1; j < lim; j++) {
            double r0 = dnp_plan_ratio(p, j, 0), r1 = dnp_plan_ratio(p, j, other);
            if (fabs(r0 - r1) > 1e-12) {
                if (lines < MAX_BRANCH_LINES)
                    rbuf_printf(b, "#   h%d ratio %.4f (here %.4f)\n", j, r1, r0);
                else
                    more++;
                lines++;
            }
            for (int v = 0; v < V; v++) {
                int t0 = dnp_plan_type(p, j, 0, v), t1 = dnp_plan_type(p, j, other, v);
                if (t0 == t1)
                    continue;
                if (lines < MAX_BRANCH_LINES) {
                    int w = dnp_plan_node_weighted(p, v);
                    rbuf_printf(b, "#   h%d ", j);
                    rbuf_put_escaped(b, dnp_plan_node_name(p, v), ESC_TEXT);
                    rbuf_printf(b, ": %s (here %s)\n", report_state_name(w, t1),
                                report_state_name(w, t0));
                } else {
                    more++;
                }
                lines++;
            }
        }
        if (lines == 0)
            rbuf_puts(b, "#   no type or ratio differs on the levels both groups have\n");
        if (more > 0)
            rbuf_printf(b, "#   ... and %d more differences (dnnpar plan lists them all)\n", more);
    }
}

/* One half of a tree level: "2xa100+1xv100", the devices of each type in
 * the cluster spec's order (dnp_plan_level_groups' form). */
static void put_half(rbuf *b, const dnp_cluster *cl, const int64_t *counts)
{
    int first = 1;
    for (int t = 0; t < cl->n_types && t < DNP_MAX_DEVICE_TYPES; t++)
        if (counts[t] != 0) {
            rbuf_printf(b, "%s%lldx", first ? "" : "+", (long long)counts[t]);
            rbuf_put_escaped(b, cl->types[t].name, ESC_TEXT);
            first = 0;
        }
}

/* The header: what, mesh, notes, conventions. */
static void put_header(rbuf *b, const ectx *e)
{
    const dnp_plan *p = e->p;
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    char *spec = dnp_cluster_spec(e->cl);
    if (spec == NULL) {
        b->oom = 1;
        return;
    }
    rbuf_printf(b, "# dnnpar %s export: %s\n", DNP_VERSION,
                e->torch ? "PyTorch DTensor placements of every tensor of every partitioned op"
                         : "JAX PartitionSpec of every tensor of every partitioned op");
    /* The APIs the names below come from: torch.distributed.tensor became
     * public (Shard, Replicate, Partial at that path) in PyTorch 2.4 (its
     * release notes; before, torch.distributed._tensor), init_device_mesh
     * exists since 2.2; jax.sharding.Mesh and PartitionSpec since JAX 0.4.1. */
    rbuf_puts(b, e->torch
                     ? "# Target: PyTorch >= 2.4 (torch.distributed.tensor: Shard, Replicate, "
                       "Partial; init_device_mesh).\n"
                       "# Shard(d) splits a dimension into equal chunks (torch.chunk), so an "
                       "uneven ratio cannot be\n"
                       "# expressed: the notes below name every level where the plan's "
                       "shares differ from it.\n"
                     : "# Target: JAX >= 0.4.1 (jax.sharding.Mesh, PartitionSpec; use with "
                       "NamedSharding or pjit).\n"
                       "# A mesh axis splits a dimension into equal blocks, so an uneven ratio "
                       "cannot be expressed:\n"
                       "# the notes below name every level where the plan's shares differ "
                       "from it.\n");
    rbuf_puts(b, "# model ");
    rbuf_put_escaped(b, dnp_graph_name(e->g), ESC_TEXT);
    const char *search =
        e->opt->search_name != NULL ? e->opt->search_name : dnp_scheme_name(e->opt->scheme);
    rbuf_printf(b, ", batch %lld, cluster %s, search %s, levels searched %d of %d\n",
                (long long)e->opt->batch, spec, search, s.levels,
                s.total_levels);
    dnp_free(spec);
    rbuf_puts(b, "#\n# Mesh: one axis per level of the device tree (docs/time-model.md), the "
                 "outermost split first;\n# each level splits a group of devices into two.\n");
    for (int k = 0; k < e->depth; k++) {
        const plan_axis *ax = &e->st->axis[k];
        int64_t nd[2] = {0, 0};
        for (int h = 0; h < 2; h++)
            for (int t = 0; t < e->cl->n_types && t < DNP_MAX_DEVICE_TYPES; t++)
                nd[h] += ax->half_counts[h][t];
        rbuf_puts(b, "#   \"");
        rbuf_put_escaped(b, ax->name, ESC_TEXT);
        rbuf_puts(b, "\"  ");
        if (nd[0] == nd[1])
            rbuf_puts(b, "size 2  ");
        else
            rbuf_printf(b, "groups of %lld and %lld devices (unequal halves)  ", (long long)nd[0],
                        (long long)nd[1]);
        put_half(b, e->cl, ax->half_counts[0]);
        rbuf_puts(b, " | ");
        put_half(b, e->cl, ax->half_counts[1]);
        rbuf_printf(b, "  ratio %.4f%s%s\n", ax->share,
                    ((e->uneven >> k) & 1u) ? " (uneven)" : "",
                    k >= s.levels ? "  data parallel (below the searched levels)" : "");
    }
    if (e->depth == 0)
        rbuf_puts(b, "#   (none: a single device)\n");
    rbuf_puts(b, "# Mesh position (b0, b1, ...) is the device reached by taking group b_k "
                 "(0 first, 1 second)\n# at level h_k; groups hold the cluster spec's device "
                 "types in order.\n");
    if (!e->regular)
        rbuf_puts(b, "# NOTE the device tree is not a regular 2 x 2 x ... mesh (some level "
                     "splits its devices\n#   unequally or the tree is uneven): a named mesh "
                     "cannot hold it; MESH_SHAPE is None\n#   and the specs describe the first "
                     "path only.\n");
    for (int k = 0; k < e->depth; k++)
        if ((e->uneven >> k) & 1u) {
            double r = e->st->axis[k].share;
            rbuf_printf(b,
                        "# NOTE h%d: ratio %.4f is not 1/2 (an uneven split): the first group "
                        "takes %.2f%%\n"
                        "#   of every dim sharded over h%d. %s shard evenly, so this cannot "
                        "be expressed\n"
                        "#   here; the specs below say which dims are split, not how much.\n",
                        k, r, 100.0 * r, k, e->torch ? "DTensor placements" : "PartitionSpecs");
        }
    put_branch_notes(b, e);
    rbuf_puts(b, "#\n# Tensor layouts (the dims each spec lists):\n");
    if (e->torch) {
        rbuf_puts(b, "#   conv:   input and output (N, C, H, W); weight (out, in/groups, kh, "
                     "kw) as nn.Conv2d\n"
                     "#   fc:     input (N, in) (the flattened input), weight (out, in) as "
                     "nn.Linear, output (N, out);\n"
                     "#           at every position: input (N, ..., in), output (N, ..., "
                     "out)\n"
                     "#   embedding: input ids (N, S), weight (vocab, dim) as nn.Embedding, "
                     "output (N, S, dim)\n");
    } else {
        rbuf_puts(b, "#   conv:   input and output NCHW (N, C, H, W); weight OIHW (out, "
                     "in/groups, kh, kw), the default\n"
                     "#           dimension numbers of jax.lax.conv_general_dilated\n"
                     "#   dense:  input (N, in) (the flattened input), kernel (in, out) as "
                     "flax.linen.Dense, output (N, out);\n"
                     "#           at every position: input (N, ..., in), output (N, ..., "
                     "out)\n"
                     "#   embedding: input ids (N, S), table (vocab, dim), output (N, S, "
                     "dim)\n");
    }
    rbuf_puts(b, "#   joins (add, concat, ...): output only, (N, C, H, W) or (N, ..., C)\n");
    if (has_named_axes(e->g))
        rbuf_puts(b, "#   ops on named axes (the model's \"axes\"): every tensor in its axis order, "
                     "N where 'b' is;\n"
                     "#           an einsum's weight in its equation's order, Type-II sharding a "
                     "contracted letter,\n"
                     "#           Type-III an output letter (the op's model axis, else the "
                     "first the mesh divides);\n"
                     "#           an LSTM lists only input and output\n");
    rbuf_puts(b, "# Types per level (AccPar section 3.2):\n"
                 "#   I   batch: input and output sharded on N; weight replicated, its "
                 "gradient summed over the axis\n"
                 "#   II  input dim: input and weight sharded on the input channels; the "
                 "output is a partial sum\n"
                 "#       reduced (all-reduce) over the axis\n"
                 "#   III output dim: weight and output sharded on the output channels; input "
                 "replicated, its\n"
                 "#       gradient summed over the axis\n"
                 "#   joins: B sharded on N, C on the channels, R replicated\n"
                 "# A grouped conv's input-channel split is per group; sharding C splits whole "
                 "groups instead.\n"
                 "# Layers in different layouts need a resharding between them (AccPar Table "
                 "5); the framework\n# inserts it from these specs.\n#\n");
}

/* The Python mesh lines. */
static void put_mesh(rbuf *b, const ectx *e)
{
    rbuf_puts(b, e->torch ? "MESH_DIM_NAMES = (" : "MESH_AXES = (");
    for (int k = 0; k < e->depth; k++) {
        rbuf_puts(b, k ? ", \"" : "\"");
        rbuf_put_escaped(b, e->st->axis[k].name, ESC_PYTHON);
        rbuf_puts(b, "\"");
    }
    rbuf_puts(b, e->depth == 1 ? ",)\n" : ")\n");
    if (e->regular) {
        rbuf_puts(b, "MESH_SHAPE = (");
        for (int k = 0; k < e->depth; k++)
            rbuf_printf(b, "%s%d", k ? ", " : "", e->st->axis[k].size);
        rbuf_puts(b, e->depth == 1 ? ",)\n" : ")\n");
    } else {
        rbuf_puts(b, "MESH_SHAPE = None  # not a regular mesh: see the NOTE above\n");
    }
    if (e->torch)
        rbuf_puts(b, "# mesh = torch.distributed.device_mesh.init_device_mesh(\"cuda\", "
                     "MESH_SHAPE, mesh_dim_names=MESH_DIM_NAMES)\n\n"
                     "PLACEMENTS = {\n");
    else
        rbuf_puts(b, "# mesh = jax.sharding.Mesh(numpy.array(jax.devices()).reshape(MESH_SHAPE), "
                     "MESH_AXES)\n\n"
                     "SPECS = {\n");
}

static dnp_status sharding_text(ectx *e, rbuf *b, dnp_error *err)
{
    const dnp_plan *p = e->p;
    put_header(b, e);
    rbuf_puts(b, e->torch ? "from torch.distributed.tensor import Partial, Replicate, Shard\n\n"
                          : "from jax.sharding import PartitionSpec as P\n\n");
    put_mesh(b, e);
    for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
        int opi = dnp_graph_find(e->g, dnp_plan_node_name(p, v));
        if (opi < 0) {
            dnp_error_set(err, DNP_ERR_INTERNAL, "plan op '%s' is not in model '%s'",
                          dnp_plan_node_name(p, v), dnp_graph_name(e->g));
            return DNP_ERR_INTERNAL;
        }
        const dnp_op *op = dnp_graph_op(e->g, opi);
        const plan_op *o = &e->st->ops[v];
        if (o->op != opi) {
            dnp_error_set(err, DNP_ERR_INTERNAL, "plan op '%s' is not its strategy's op %d",
                          dnp_plan_node_name(p, v), v);
            return DNP_ERR_INTERNAL;
        }
        tensor ts[3];
        int n = op_tensors(e, op, ts);
        shard_tensors(e, o, ts, n);
        int w = o->weighted;
        rbuf_puts(b, "    \"");
        rbuf_put_escaped(b, op->name, ESC_PYTHON);
        rbuf_printf(b, "\": {  # %s%s, out ", w ? "" : "join ", dnp_op_kind_name(op->kind));
        put_shape(b, op);
        if (op->kind == DNP_OP_CONV && op->groups > 1)
            rbuf_printf(b, ", %d groups", op->groups);
        rbuf_puts(b, "; types");
        for (int k = 0; k < e->depth; k++)
            rbuf_printf(b, " %s", report_state_name(w, split_state(o, k)));
        rbuf_puts(b, "\n");
        for (int i = 0; i < n; i++)
            put_tensor_line(b, e, &ts[i]);
        rbuf_puts(b, "    },\n");
    }
    rbuf_puts(b, "}\n");
    return DNP_OK;
}

const char *report_export_name(dnp_export_format f)
{
    static const char *const names[DNP_EXPORT_COUNT] = {"jax", "dtensor", "astra"};
    return (f >= 0 && f < DNP_EXPORT_COUNT) ? names[f] : "?";
}

int report_export_from_name(const char *s)
{
    for (int f = 0; f < DNP_EXPORT_COUNT && s != NULL; f++)
        if (strcmp(s, report_export_name((dnp_export_format)f)) == 0)
            return f;
    return -1;
}

dnp_status report_export(dnp_export_format f, const dnp_graph *g, const dnp_cluster *cl,
                         const dnp_plan_options *opt, const dnp_plan *p, char **out, dnp_error *err)
{
    if (f < 0 || f >= DNP_EXPORT_COUNT) {
        dnp_error_set(err, DNP_ERR_INPUT, "unknown export format %d", (int)f);
        return DNP_ERR_INPUT;
    }
    int depth = report_path_depth(p, 0);
    if (depth > REPORT_MAX_DEPTH) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "the device tree is deeper than %d levels; exports cannot describe it",
                      REPORT_MAX_DEPTH);
        return DNP_ERR_INPUT;
    }
    rbuf b;
    rbuf_init(&b);
    dnp_status st;
    if (f == DNP_EXPORT_ASTRA) {
        st = report_astra_text(g, cl, opt, p, &b, err);
    } else {
        plan_tree tree = plan_tree_of(p);
        plan_strategy *strat = NULL;
        if (depth > PLAN_MAX_AXES) {
            /* the strategy's mesh view has an axis per level, at most
             * PLAN_MAX_AXES */
            dnp_error_set(err, DNP_ERR_INPUT,
                          "the device tree of '%s' has %d levels; a strategy holds at most %d axes",
                          tree.model != NULL ? tree.model : "?", depth, PLAN_MAX_AXES);
            st = DNP_ERR_INPUT;
        } else {
            st = plan_strategy_from_tree(&tree, &strat, err);
        }
        if (st == DNP_OK && (strat->n_axes != depth || strat->n_ops != dnp_plan_n_nodes(p))) {
            dnp_error_set(err, DNP_ERR_INTERNAL,
                          "the strategy of the plan has %d axes and %d ops, the plan %d levels "
                          "and %d nodes",
                          strat->n_axes, strat->n_ops, depth, dnp_plan_n_nodes(p));
            st = DNP_ERR_INTERNAL;
        }
        if (st == DNP_OK) {
            ectx e = {g, cl, opt, p, strat, f == DNP_EXPORT_DTENSOR, depth, 0u, 1};
            for (int k = 0; k < depth; k++)
                if (fabs(strat->axis[k].share - 0.5) > 1e-9)
                    e.uneven |= 1u << k;
            e.regular = tree_is_regular(&e);
            st = sharding_text(&e, &b, err);
        }
        plan_strategy_free(strat);
    }
    if (st != DNP_OK) {
        rbuf_free(&b);
        return st;
    }
    char *text = rbuf_take(&b);
    if (text == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the %s export",
                      report_export_name(f));
        return DNP_ERR_NOMEM;
    }
    *out = text;
    return DNP_OK;
}
