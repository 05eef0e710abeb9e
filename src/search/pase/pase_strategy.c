/*
 * pase_strategy.c - a PaSE strategy as a dnnpar strategy (docs/formats.md,
 * "Strategy"; docs/pase.md, "As a dnnpar strategy"), so that the step
 * simulator, the exports and the pictures take it like any plan.
 *
 * A PaSE configuration splits each loop dimension of an op over p
 * devices; a dnnpar strategy splits the device tree in two at each of its
 * levels and says, per level, which dimension each decided op splits
 * (AccPar's Type-I batch, Type-II input, Type-III output; "batch",
 * "channel" or "replicated" for joins).  A configuration whose splits are
 * powers of two over the batch, input and output dimensions is exactly
 * such a sequence of binary splits: log2 of each dimension's split levels
 * of its type, in the order of the op's dimensions (the first dimension
 * over the outermost levels, as PaSE's shared model numbers devices).  The
 * levels a configuration leaves unused (its devices idle) are R for a
 * layer and "replicated" for a join: not split there, each half computes
 * all of it, which takes the time of one half computing while the other
 * idles (docs/time-model.md "Replicated layers").  Those ops are counted
 * (the CLI warns).  Splits of other dimensions or that are not powers of
 * two are refused with the op named.
 *
 * On a cluster of several device types where the run chose the batch
 * split across the types (pase_hetero.c), the levels that separate device
 * types become Type-I / "batch" levels with ratio b_t / samples (the first
 * half's samples over the group's), and each type's group below them takes
 * its own PaSE plan (dnp_pase_run_type_config).  Where the simulator
 * refined that level (pase_cross.c), an op may split its input or output
 * (a join its channel) there instead, with the same ratio.  A type given no samples
 * is dropped: the strategy is written for the cluster without it.
 *
 * The run's decisions are gathered once (pase_walk_new) and walked twice
 * over the same device tree: into the file's paths (dnp_pase_run_strategy,
 * for --json) and into the one strategy type's device groups
 * (pase_walk_groups, plan/strategy.h), which PaSE's simulations lower
 * without writing or reading the file; the two say the same to the bit
 * (tests/unit/test_pase_walk.c).
 */
#include "dnnpar.h"
#include "core/einsum_eq.h"
#include "search/pase/pase_driver.h"
#include "search/strategy.h"
#include "search/plan_internal.h"
#include "cost/accpar_cost.h"
#include "topo/topology.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* log2(n) if n is a power of two >= 1, else -1. */
static int log2_exact(long n)
{
    int k = 0;
    if (n < 1)
        return -1;
    while (n > 1) {
        if (n & 1)
            return -1;
        n >>= 1;
        k++;
    }
    return k;
}

/* Next distinct arrangement of seq[0..n) in lexicographic order (the
 * classic next-permutation step); 0 once seq is the last one. */
static int next_arrangement(int *seq, int n)
{
    int i = n - 2;
    while (i >= 0 && seq[i] >= seq[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = n - 1;
    while (seq[j] <= seq[i])
        j--;
    int t = seq[i];
    seq[i] = seq[j];
    seq[j] = t;
    for (int a = i + 1, b = n - 1; a < b; a++, b--) {
        t = seq[a];
        seq[a] = seq[b];
        seq[b] = t;
    }
    return 1;
}

int pase_level_dims(const long *split, int nd, int order, int n_levels, int *dim_of_level)
{
    int used = 0;
    for (int d = 0; d < nd; d++) {
        if (split[d] == 1)
            continue;
        int k = log2_exact(split[d]);
        if (k < 0)
            return -1;
        if (used + k > n_levels)
            return -2;
        for (int i = 0; i < k; i++)
            dim_of_level[used++] = d;
    }
    for (int o = 0; o < order; o++)
        if (!next_arrangement(dim_of_level, used))
            return -3;
    for (int l = used; l < n_levels; l++)
        dim_of_level[l] = -1;
    return used;
}

int pase_level_orders(const long *split, int nd, int cap)
{
    int seq[PLAN_MAX_LEVELS], used = 0;
    for (int d = 0; d < nd; d++) {
        int k = split[d] == 1 ? 0 : log2_exact(split[d]);
        if (k < 0 || used + k > PLAN_MAX_LEVELS)
            return 1;
        for (int i = 0; i < k; i++)
            seq[used++] = d;
    }
    int n = 1;
    while (n < cap && next_arrangement(seq, used))
        n++;
    return n;
}

int pase_config_split(const pase_problem *pb, int v, int c, long *split)
{
    const pase_configs *cf = &pb->cfg[v];
    int nd = cf->rank < ITER_MAX_RANK ? cf->rank : ITER_MAX_RANK;
    for (int d = 0; d < nd; d++)
        split[d] = cf->c[(size_t)c * (size_t)cf->rank + (size_t)d];
    return nd;
}

int pase_config_text_split(const char *text, long *split)
{
    int nd = 0;
    for (const char *q = text != NULL ? text : ""; *q != '\0' && *q != ')' && nd < ITER_MAX_RANK;) {
        if (*q >= '0' && *q <= '9') {
            char *end;
            split[nd++] = strtol(q, &end, 10);
            q = end;
        } else {
            q++;
        }
    }
    return nd;
}

void pase_levels_text(const iter_nest *x, const long *split, int nd, int order, char *buf,
                      size_t n)
{
    int dims[PLAN_MAX_LEVELS];
    int used = order == 0 ? 0 : pase_level_dims(split, nd, order, PLAN_MAX_LEVELS, dims);
    for (int l = 0; l < used; l++) {
        size_t at = strlen(buf);
        if (at + 1 >= n)
            break;
        snprintf(buf + at, n - at, "%s%s", l == 0 ? " levels " : " ", x->dim[dims[l]]);
    }
}

void pase_run_fmt_config(const dnp_pase_run *r, int v, char *buf, size_t n)
{
    const pase_problem *pb = &r->pp->pb;
    pase_fmt_config(pb, v, r->cfg[v], buf, n);
    long split[ITER_MAX_RANK];
    int nd = pase_config_split(pb, v, r->cfg[v], split);
    pase_levels_text(&pb->g->nest[v], split, nd, r->order != NULL ? r->order[v] : 0, buf, n);
}

int pase_type_index(const char *t)
{
    static const char *const names[] = {"I", "II", "III", "R", "batch", "channel", "replicated"};
    static const int index[] = {DNP_TYPE_I, DNP_TYPE_II, DNP_TYPE_III, DNP_TYPE_R,
                                LAYOUT_BATCH, LAYOUT_CHANNEL, LAYOUT_REPL};
    for (size_t i = 0; t != NULL && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(t, names[i]) == 0)
            return index[i];
    return -1;
}

/* The last letter of named axes s, '\0' if none. */
static char last_letter(const char *s)
{
    size_t n = strlen(s);
    return n > 0 ? s[n - 1] : '\0';
}

/* The type of splitting dimension `dim` (PaSE's loop letter) of op `op`
 * of g in a strategy, or NULL when the strategy cannot say it.  Weighted
 * ops: the batch 'b' is Type-I, the dimension AccPar's D_in names Type-II
 * (its output a partial sum), D_out Type-III (section 3.2):
 *   conv, fc               c, n (iter_rules.c's names)
 *   fc on named axes       the input's last axis, the output's last axis
 *   embedding              the vocabulary v and the width d (a vocabulary
 *                          split is Megatron-LM's vocabulary-parallel
 *                          embedding: each device looks up its rows, the
 *                          partial outputs are summed); on named axes the
 *                          op's last loop letter and its last axis
 *   einsum with a weight   any contracted letter (in the input and the
 *                          weight), any letter of the weight the output
 *                          keeps (the exports shard the op's model axis
 *                          when it is one, else the first such letter)
 *   lstm                   the batch only (layer_table.c)
 * Joins: 'b' batch, the channel 'c' (the last axis on named axes)
 * "channel". */
const char *pase_strategy_type_of(const dnp_graph *g, const dnp_op *op, char dim)
{
    const int named = op->axes[0] != '\0';
    if (dnp_op_is_weighted(op)) {
        char din = 'c', dout = 'n';
        if (dim == 'b')
            return "I";
        if (op->kind == DNP_OP_FC && named) {
            din = last_letter(dnp_graph_op(g, op->inputs[0])->axes);
            dout = last_letter(op->axes);
        } else if (op->kind == DNP_OP_EMBEDDING) {
            din = named ? last_letter(op->loops) : 'v';
            dout = named ? last_letter(op->axes) : 'd';
        } else if (op->kind == DNP_OP_EINSUM) {
            char a[16], w[16], o[16];
            if (einsum_eq_split(op->equation, sizeof a - 1, 0, a, w, o) != 0 ||
                strchr(w, dim) == NULL)
                return NULL;
            /* any letter of D_in (contracted) or of D_out: the sizes
             * Tables 4-6 read are the same whichever letter is split */
            return strchr(a, dim) != NULL && strchr(o, dim) == NULL   ? "II"
                   : strchr(a, dim) == NULL && strchr(o, dim) != NULL ? "III"
                                                                       : NULL;
        } else if (op->kind == DNP_OP_LSTM) {
            return NULL;
        }
        return dim == din ? "II" : dim == dout ? "III" : NULL;
    }
    if (dim == 'b')
        return "batch";
    if (dim == (named ? last_letter(op->axes) : 'c'))
        return "channel";
    return NULL;
}

void pase_restrict_to_strategy(iter_space *pg)
{
    const dnp_graph *core = pg->core;
    for (int i = 0; i < pg->n_nest; i++) {
        iter_nest *v = &pg->nest[i];
        int gi = v->op;
        if (gi < 0)
            continue; /* a stage before an op's own nest (an FC's Ravel, ...) */
        const dnp_op *op = dnp_graph_op(core, gi);
        if (dnp_graph_decider(core, gi) != gi)
            continue; /* not decided: the simulator gives it its decider's layout */
        v->pow2 = 1;
        for (int d = 0; d < v->rank; d++)
            if (pase_strategy_type_of(core, op, v->dim[d][0]) == NULL)
                v->fixed |= 1u << (unsigned)d;
    }
}

#define MAX_LEVELS PLAN_MAX_LEVELS

/* The types a strategy gives an op at a level, by code: a weighted op's
 * I, II, III, R (codes 0..3, its dnp_ptype), a join's "batch", "channel",
 * "replicated" (JOIN_CODE + its layout); -1: no decision. */
static const char *const type_names[] = {"I", "II", "III", "R", "batch", "channel", "replicated"};
#define JOIN_CODE 4

/* The code of type name t, -1 if none. */
static int type_code(const char *t)
{
    for (int i = 0; t != NULL && i < (int)(sizeof type_names / sizeof type_names[0]); i++)
        if (strcmp(t, type_names[i]) == 0)
            return i;
    return -1;
}

/* One PaSE plan over a group of 2^n_levels devices as per-level types:
 * code[k][gi] the type code of graph op gi at the group's level k (-1:
 * the plan decides nothing for it); named[0..n_named) the ops it decides,
 * in the order the strategy file lists them (the first vertex naming
 * each); lv[k], made only for the file, the level's "types" object. */
typedef struct {
    int n_levels;
    int *code[MAX_LEVELS];
    int *block;  /* the block code[] points into */
    int *named;
    int n_named;
    json_t *lv[MAX_LEVELS];
} group_levels;

static void group_levels_free(group_levels *gl)
{
    for (int k = 0; k < gl->n_levels; k++)
        json_decref(gl->lv[k]);
    dnp_free(gl->block);
    dnp_free(gl->named);
    memset(gl, 0, sizeof *gl);
}

static dnp_status out_of_memory(dnp_error *err)
{
    dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the PaSE strategy");
    return DNP_ERR_NOMEM;
}

/* Set op gi's type code at level k of gl (the last vertex naming it wins,
 * the first places it in the file's order). */
static void set_code(group_levels *gl, int gi, int k, int code)
{
    if (k == 0 && gl->code[0][gi] < 0) {
        int seen = 0;
        for (int i = 0; i < gl->n_named && !seen; i++)
            seen = gl->named[i] == gi;
        if (!seen)
            gl->named[gl->n_named++] = gi;
    }
    gl->code[k][gi] = code;
}

/* The levels of the plan of group `grp` (-1: the run's own plan) over
 * 2^n_levels devices.  Counts in *idle_ops the ops given R / replicated
 * levels. */
static dnp_status plan_levels(const dnp_pase_run *r, int grp, const dnp_graph *g, int n_levels,
                              group_levels *gl, int *idle_ops, dnp_error *err)
{
    const int n_ops = dnp_graph_n_ops(g);
    gl->n_levels = n_levels;
    gl->block = dnp_malloc((size_t)(n_levels > 0 ? n_levels : 1) * (size_t)n_ops * sizeof(int));
    gl->named = dnp_malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof(int));
    if (gl->block == NULL || gl->named == NULL)
        return out_of_memory(err);
    for (size_t i = 0; i < (size_t)n_levels * (size_t)n_ops; i++)
        gl->block[i] = -1;
    for (int k = 0; k < n_levels; k++)
        gl->code[k] = gl->block + (size_t)k * (size_t)n_ops;
    /* the vertices and splits straight from the run (this runs once per
     * simulated candidate of the share searches: no text formatting) */
    const pase_problem *pb = &r->pp->pb;
    for (int v = 0; v < pb->n_v; v++) {
        const iter_nest *x = &pb->g->nest[v];
        int gi = dnp_graph_find(g, x->name);
        if (gi < 0)
            continue; /* the converter's own views (flatten.ravel, ...); the strategy reader
                       * names any decided op of g left without a type */
        const dnp_op *gop = dnp_graph_op(g, gi);
        if (dnp_graph_decider(g, gi) != gi)
            continue; /* the strategy decides weighted layers and joins only */
        /* the split of each dimension of x: the run's own configuration,
         * or the group's "(4,1,1,1,1,1,2)" */
        long split[ITER_MAX_RANK];
        const char *group_cfg = grp < 0 ? NULL : dnp_pase_run_type_config(r, grp, v);
        int nd = grp < 0 ? pase_config_split(pb, v, r->cfg[v], split)
                         : pase_config_text_split(group_cfg, split);
        nd = nd < x->rank ? nd : x->rank;
        for (int d = 0; d < nd; d++) {
            if (split[d] != 1 && (log2_exact(split[d]) < 0 ||
                                  pase_strategy_type_of(g, gop, x->dim[d][0]) == NULL)) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "op '%s' splits its dimension '%c' %ld ways: a dnnpar strategy "
                              "splits only the batch, input and output dimensions, in powers of "
                              "two",
                              x->name, x->dim[d][0], split[d]);
                return DNP_ERR_INPUT;
            }
        }
        /* the split dimensions over the levels: in order, or the
         * arrangement the refinement chose (pase_refine.c) */
        int dim_of_level[MAX_LEVELS];
        const int *order = grp < 0 ? r->order : r->het.grp[grp].order;
        int level = pase_level_dims(split, nd, order != NULL ? order[v] : 0, n_levels,
                                    dim_of_level);
        if (level == -3) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "op '%s': its configuration has no level arrangement %d", x->name,
                          order != NULL ? order[v] : 0);
            return DNP_ERR_INPUT;
        }
        if (level < 0) { /* -2: more levels than the group has (-1 ruled out above) */
            char cfg[96]; /* formatted for the message only */
            if (grp < 0)
                pase_fmt_config(pb, v, r->cfg[v], cfg, sizeof cfg);
            else
                snprintf(cfg, sizeof cfg, "%s", group_cfg != NULL ? group_cfg : "");
            dnp_error_set(err, DNP_ERR_INPUT,
                          "op '%s' (configuration %s) uses more than the group's %lld devices",
                          x->name, cfg, 1LL << n_levels);
            return DNP_ERR_INPUT;
        }
        for (int l = 0; l < level; l++)
            set_code(gl, gi, l,
                     type_code(pase_strategy_type_of(g, gop, x->dim[dim_of_level[l]][0])));
        if (level < n_levels) {
            /* devices the configuration leaves idle: R (a layer) or replicated
             * (a join) on the levels it does not use */
            (*idle_ops)++;
            while (level < n_levels)
                set_code(gl, gi, level++,
                         dnp_op_is_weighted(gop) ? DNP_TYPE_R : JOIN_CODE + LAYOUT_REPL);
        }
    }
    return DNP_OK;
}

/* gl's levels as the file's "types" objects (gl->lv), op names of g in
 * gl's order.  O(levels x ops). */
static dnp_status levels_json(group_levels *gl, const dnp_graph *g, dnp_error *err)
{
    for (int k = 0; k < gl->n_levels; k++) {
        gl->lv[k] = json_object();
        if (gl->lv[k] == NULL)
            return out_of_memory(err);
        for (int i = 0; i < gl->n_named; i++) {
            int gi = gl->named[i];
            json_object_set_new(gl->lv[k], dnp_graph_op(g, gi)->name,
                                json_string(type_names[gl->code[k][gi]]));
        }
    }
    return DNP_OK;
}

/* What both tree walks need: the run's decisions per device group. */
struct pase_walk {
    dnp_cluster used;                    /* the cluster the strategy is for (a type given no
                                          * samples has count 0) */
    dnp_cluster shown;                   /* the same without those types: the cluster the
                                          * strategy names (info->cluster) */
    int used_of[DNP_MAX_DEVICE_TYPES];   /* shown's type k is used's used_of[k] */
    const dnp_pase_run *r;
    const dnp_graph *g;
    int split;                           /* 1: the type split, 0: the run's own plan */
    int64_t type_batch[DNP_MAX_DEVICE_TYPES]; /* samples per used type (split) */
    int type_group[DNP_MAX_DEVICE_TYPES];     /* the run's group of each used type (split) */
    group_levels plans[DNP_MAX_DEVICE_TYPES + 1]; /* per used type (split), or [0] (own plan) */
    int *batch_code;                     /* [graph ops]: each decided op's type at the levels
                                          * separating device types (I / batch unless
                                          * refined), -1 for the others */
};

/* The JSON walk's state. */
typedef struct {
    const pase_walk *w;
    const dnp_cluster *c;                /* w->used */
    json_t *batch_types;                 /* w->batch_code as the file's "types" */
    json_t *paths;
    int max_depth;
} walk_ctx;

static int64_t count_sum(const dnp_cluster *c, const int64_t *counts)
{
    int64_t n = 0;
    for (int k = 0; k < c->n_types; k++)
        n += counts[k];
    return n;
}

/* The only type of a group (-1 if it has several). */
static int only_type(const dnp_cluster *c, const int64_t *counts)
{
    int t = -1;
    for (int k = 0; k < c->n_types; k++)
        if (counts[k] > 0) {
            if (t >= 0)
                return -1;
            t = k;
        }
    return t;
}

/* One split of the device tree (the planner's split rule,
 * topo_tree_split) of the group `counts` of cluster c (w->used or
 * w->shown; type k of c is used's map[k]) at `depth`: its halves *a and
 * *b, the share `ratio` of the first, and the group's type codes per
 * graph op (*codes; *gl and *k the plan level they come from, NULL at a
 * level separating device types).  *base is the depth at which the
 * group's PaSE plan starts (-1: not yet, the group has several types).
 * *differ: the halves differ (both are walked).  DNP_ERR_INPUT when the
 * plan has no binary-tree form there.  O(types). */
static dnp_status tree_level(const pase_walk *w, const dnp_cluster *c, const int *map,
                             const int64_t *counts, int depth, int *base, int64_t *a, int64_t *b,
                             double *ratio, const int **codes, const group_levels **gl, int *k,
                             int *differ, dnp_error *err)
{
    int64_t n = count_sum(c, counts);
    if (depth >= MAX_LEVELS) {
        dnp_error_set(err, DNP_ERR_INPUT, "the device tree is deeper than %d levels",
                      MAX_LEVELS);
        return DNP_ERR_INPUT;
    }
    topo_tree_split(c, counts, a, b);
    int64_t na = count_sum(c, a), nb = count_sum(c, b);
    int t = only_type(c, counts);
    *ratio = 0.5;
    *gl = NULL;
    *k = 0;
    if (w->split && t < 0) {
        /* a level separating device types: the batch split across them,
         * each half its types' samples (pase_hetero.c) */
        int64_t ba = 0, bt = 0;
        for (int j = 0; j < c->n_types; j++) {
            ba += a[j] > 0 ? w->type_batch[map[j]] : 0;
            bt += counts[j] > 0 ? w->type_batch[map[j]] : 0;
        }
        *ratio = (double)ba / (double)bt;
        *codes = w->batch_code;
        *differ = 1;
        return DNP_OK;
    }
    if (w->split && *base < 0)
        *base = depth;
    *gl = &w->plans[w->split ? map[t] : 0];
    *k = depth - (w->split ? *base : 0);
    if (na != nb || *k >= (*gl)->n_levels) {
        char *spec = dnp_cluster_spec(c);
        dnp_error_set(err, DNP_ERR_INPUT,
                      "the PaSE plan has no binary-tree form on %.300s: a group of %lld "
                      "devices splits %lld | %lld (a dnnpar strategy halves each group "
                      "of a plan's devices evenly)",
                      spec != NULL ? spec : "(out of memory)", (long long)n, (long long)na,
                      (long long)nb);
        dnp_free(spec);
        return DNP_ERR_INPUT;
    }
    *codes = (*gl)->code[*k];
    *differ = t < 0; /* own plan on a mixed cluster: the halves are other types */
    return DNP_OK;
}

static const int identity_map[DNP_MAX_DEVICE_TYPES] = {0, 1, 2, 3, 4, 5, 6, 7};

/* Walk the device tree from the group `counts` at `depth` on branch
 * `bits`; `prefix` holds the levels above (borrowed); `base` as
 * tree_level's.  Appends one path per distinct branch (version 2: a path
 * ends at its leaf). */
static dnp_status walk(walk_ctx *wc, const int64_t *counts, int depth, unsigned bits, int base,
                       json_t *prefix, dnp_error *err)
{
    if (count_sum(wc->c, counts) <= 1) {
        json_array_append_new(wc->paths, json_pack("{s:I,s:O}", "branch_bits", (json_int_t)bits,
                                                   "levels", prefix));
        if (depth > wc->max_depth)
            wc->max_depth = depth;
        return DNP_OK;
    }
    int64_t a[DNP_MAX_DEVICE_TYPES] = {0}, b[DNP_MAX_DEVICE_TYPES] = {0}; /* past n_types: 0 */
    double ratio;
    const int *codes;
    const group_levels *gl;
    int k, differ;
    dnp_status st = tree_level(wc->w, wc->c, identity_map, counts, depth, &base, a, b, &ratio,
                               &codes, &gl, &k, &differ, err);
    if (st != DNP_OK)
        return st;
    const json_t *types = gl != NULL ? gl->lv[k] : wc->batch_types;
    json_t *mine = json_copy(prefix);
    json_array_append_new(mine, json_pack("{s:i,s:f,s:O}", "level", depth, "ratio", ratio,
                                          "types", types));
    st = walk(wc, a, depth + 1, bits, base, mine, err);
    if (st == DNP_OK && differ)
        st = walk(wc, b, depth + 1, bits | (1u << depth), base, mine, err);
    json_decref(mine);
    return st;
}

void pase_walk_free(pase_walk *w)
{
    if (w == NULL)
        return;
    for (int k = 0; k <= DNP_MAX_DEVICE_TYPES; k++)
        group_levels_free(&w->plans[k]);
    dnp_free(w->batch_code);
    dnp_free(w);
}

dnp_status pase_walk_new(const dnp_pase_run *r, const dnp_graph *g, const dnp_cluster *c,
                         pase_walk **out, dnp_pase_strategy_info *info, dnp_error *err)
{
    *out = NULL;
    memset(info, 0, sizeof *info);
    pase_walk *w = dnp_calloc(1, sizeof *w);
    if (w == NULL)
        return out_of_memory(err);
    w->used = *c;
    w->r = r;
    w->g = g;
    dnp_cluster *used = &w->used;
    dnp_pase_type_split ts;
    dnp_error e = {0};
    dnp_status st = DNP_OK;
    if (dnp_pase_run_type_split(r, &ts, &e) == DNP_OK && ts.chosen) {
        w->split = 1;
        info->type_split = 1;
        for (int k = 0; k < used->n_types; k++)
            w->type_group[k] = -1;
        for (int gi = 0; gi < ts.n_groups; gi++)
            for (int k = 0; k < used->n_types; k++)
                if (used->counts[k] > 0 && strcmp(used->types[k].name, ts.group[gi].device) == 0) {
                    w->type_group[k] = gi;
                    w->type_batch[k] = ts.group[gi].batch;
                }
        for (int k = 0; k < used->n_types; k++) {
            if (used->counts[k] > 0 && w->type_batch[k] <= 0) {
                /* a type given no samples: dropped (warned by the caller) */
                size_t len = strlen(info->idle_types);
                snprintf(info->idle_types + len, sizeof info->idle_types - len, "%s%lldx%s",
                         len ? "+" : "", (long long)used->counts[k], used->types[k].name);
                used->counts[k] = 0;
            }
        }
        for (int k = 0; k < used->n_types && st == DNP_OK; k++) {
            if (used->counts[k] <= 0)
                continue;
            int lv = log2_exact((long)used->counts[k]);
            if (lv < 0 || lv >= MAX_LEVELS) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "a PaSE strategy becomes a dnnpar strategy only on a power-of-two "
                              "number of devices per type; the cluster has %lld %s",
                              (long long)used->counts[k], used->types[k].name);
                st = DNP_ERR_INPUT;
                break;
            }
            st = plan_levels(r, w->type_group[k], g, lv, &w->plans[k], &info->idle_ops, err);
        }
    } else {
        int64_t p = dnp_cluster_devices(c);
        int levels = log2_exact((long)p);
        if (levels < 1 || levels >= MAX_LEVELS) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "a PaSE strategy becomes a dnnpar strategy only on a power-of-two "
                          "number of devices (at least 2); the cluster has %lld",
                          (long long)p);
            pase_walk_free(w);
            return DNP_ERR_INPUT;
        }
        st = plan_levels(r, -1, g, levels, &w->plans[0], &info->idle_ops, err);
    }
    if (st == DNP_OK) {
        /* the levels separating types: the batch, or per op the dimension
         * the refinement chose (r->cross, pase_cross.c) */
        int n_ops = dnp_graph_n_ops(g);
        w->batch_code = dnp_malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof(int));
        if (w->batch_code == NULL)
            st = out_of_memory(err);
        for (int v = 0; st == DNP_OK && v < n_ops; v++) {
            const dnp_op *gop = dnp_graph_op(g, v);
            int ci = r->cross == NULL ? -1
                     : r->pp->core == g ? v
                                        : dnp_graph_find(r->pp->core, gop->name);
            int code = ci >= 0 ? r->cross[ci] : 0;
            w->batch_code[v] = dnp_op_is_weighted(gop) ? (code <= 2 ? code : 0)
                               : dnp_op_is_join(gop)   ? JOIN_CODE + (code <= 1 ? code : 0)
                                                       : -1;
        }
    }
    if (st == DNP_OK) {
        /* the spec of the devices that work (a dropped type's term goes) */
        w->shown = *used;
        w->shown.n_types = 0;
        for (int k = 0; k < used->n_types; k++)
            if (used->counts[k] > 0) {
                w->used_of[w->shown.n_types] = k;
                w->shown.types[w->shown.n_types] = used->types[k];
                w->shown.counts[w->shown.n_types++] = used->counts[k];
            }
        for (int k = w->shown.n_types; k < DNP_MAX_DEVICE_TYPES; k++)
            w->shown.counts[k] = 0;
        if (dnp_cluster_format(&w->shown, info->cluster, sizeof info->cluster) >=
            sizeof info->cluster) {
            st = DNP_ERR_INPUT;
            dnp_error_set(err, st, "the cluster spec runs past %d bytes", DNP_CLUSTER_SPEC_MAX);
        }
    }
    if (st != DNP_OK) {
        pase_walk_free(w);
        return st;
    }
    *out = w;
    return DNP_OK;
}

/* dnp_pase_run_strategy's document before it is written as text: *out
 * (owned by the caller) on success.  O(ops x levels). */
static dnp_status pase_run_strategy_doc(const dnp_pase_run *r, const dnp_graph *g,
                                        const char *model_source, const dnp_cluster *c,
                                        int64_t batch, json_t **out,
                                        dnp_pase_strategy_info *info, dnp_error *err)
{
    *out = NULL;
    pase_walk *w = NULL;
    dnp_status st = pase_walk_new(r, g, c, &w, info, err);
    if (st != DNP_OK)
        return st;
    walk_ctx wc;
    memset(&wc, 0, sizeof wc);
    wc.w = w;
    wc.c = &w->used;
    for (int k = 0; k <= DNP_MAX_DEVICE_TYPES && st == DNP_OK; k++)
        st = levels_json(&w->plans[k], g, err);
    if (st == DNP_OK) {
        wc.batch_types = json_object();
        for (int v = 0; wc.batch_types != NULL && v < dnp_graph_n_ops(g); v++)
            if (w->batch_code[v] >= 0)
                json_object_set_new(wc.batch_types, dnp_graph_op(g, v)->name,
                                    json_string(type_names[w->batch_code[v]]));
        wc.paths = json_array();
        json_t *root_prefix = json_array();
        st = wc.batch_types == NULL || wc.paths == NULL || root_prefix == NULL
                 ? out_of_memory(err)
                 : walk(&wc, w->used.counts, 0, 0u, -1, root_prefix, err);
        json_decref(root_prefix);
    }
    json_t *doc = NULL;
    if (st == DNP_OK) {
        doc = json_pack("{s:i,s:s,s:s,s:I,s:s,s:s,s:i,s:i,s:o}", "version", 2, "model",
                        dnp_graph_name(g), "model_source",
                        model_source != NULL ? model_source : dnp_graph_name(g), "batch",
                        (json_int_t)batch, "cluster", info->cluster, "search", "pase", "levels",
                        wc.max_depth, "total_levels", wc.max_depth, "paths", wc.paths);
        wc.paths = NULL;
        if (doc == NULL)
            st = out_of_memory(err);
        *out = doc;
    }
    pase_walk_free(w);
    json_decref(wc.batch_types);
    json_decref(wc.paths);
    return st;
}

dnp_status dnp_pase_run_strategy(const dnp_pase_run *r, const dnp_graph *g,
                                 const char *model_source, const dnp_cluster *c, int64_t batch,
                                 char **out, dnp_pase_strategy_info *info, dnp_error *err)
{
    json_t *doc = NULL;
    *out = NULL;
    dnp_status st = pase_run_strategy_doc(r, g, model_source, c, batch, &doc, info, err);
    if (st == DNP_OK) {
        *out = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (*out == NULL) {
            st = DNP_ERR_NOMEM;
            dnp_error_set(err, st, "out of memory writing the PaSE strategy");
        }
    }
    json_decref(doc);
    return st;
}

/* ------------------------------------------------------------------ */
/* The same walk building the strategy's device groups                  */
/* ------------------------------------------------------------------ */

/* The groups walk's state: s NULL counts the groups only. */
typedef struct {
    const pase_walk *w;
    const layer_table *lt;
    const dnp_graph *g;
    plan_strategy *s;
    int next;
} group_ctx;

/* Group `counts` of w->shown at `depth` and its subtree as groups of
 * gc->s from index gc->next on (depth-first, the first half first, a
 * shared half once: plan_strategy_from_tree's order); its index in *at.
 * Identical halves (same devices, share 1/2) are one group, as the
 * planner's tree makes them (search/plan.c).  Each row's split is the
 * level's type of its op, checked as the strategy reader checks a file
 * (search/plan.c, given_decisions). */
static dnp_status group_walk(group_ctx *gc, const int64_t *counts, int depth, int base, int *at,
                             dnp_error *err)
{
    const pase_walk *w = gc->w;
    const dnp_cluster *c = &w->shown;
    int i = gc->next++;
    *at = i;
    int64_t n = count_sum(c, counts);
    plan_group *grp = gc->s != NULL ? &gc->s->group[i] : NULL;
    if (grp != NULL) {
        for (int t = 0; t < c->n_types; t++) /* the others stay 0 */
            grp->counts[t] = counts[t];
        grp->n_dev = n;
        grp->depth = depth;
    }
    if (n <= 1)
        return DNP_OK;
    int64_t a[DNP_MAX_DEVICE_TYPES] = {0}, b[DNP_MAX_DEVICE_TYPES] = {0}; /* past n_types: 0 */
    double ratio;
    const int *codes;
    const group_levels *gl;
    int k, differ;
    dnp_status st = tree_level(w, c, w->used_of, counts, depth, &base, a, b, &ratio, &codes,
                               &gl, &k, &differ, err);
    if (st != DNP_OK)
        return st;
    int shared = ratio == 0.5;
    for (int t = 0; t < c->n_types; t++)
        shared = shared && a[t] == b[t];
    if (grp != NULL) {
        grp->alpha = ratio;
        grp->shared = shared;
        const layer_table *lt = gc->lt;
        for (int v = 0; v < lt->n_rows; v++) {
            const char *name = dnp_graph_op(gc->g, lt->row[v].op)->name;
            int weighted = lt->row[v].weighted, code = codes[lt->row[v].op];
            if (code < 0 || (weighted ? code >= JOIN_CODE : code < JOIN_CODE)) {
                dnp_error_set(err, DNP_ERR_INPUT, "pase: %s for op '%s' at level %d",
                              code < 0 ? "no decision" : "an invalid type", name, depth);
                return DNP_ERR_INPUT;
            }
            int t = weighted ? code : code - JOIN_CODE;
            if (t != DNP_TYPE_R && !((lt->row[v].types >> t) & 1u)) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "pase: op '%s' at level %d: type %s is not one it can take (an "
                              "LSTM splits its batch, I, or is replicated, R)",
                              name, depth, t == DNP_TYPE_II ? "II" : "III");
                return DNP_ERR_INPUT;
            }
            grp->split[v] = (unsigned char)plan_split_of_type(weighted, t);
        }
    }
    (void)gl;
    (void)differ;
    int ca = -1, cb = -1;
    st = group_walk(gc, a, depth + 1, base, &ca, err);
    if (st == DNP_OK)
        cb = ca;
    if (st == DNP_OK && !shared)
        st = group_walk(gc, b, depth + 1, base, &cb, err);
    if (grp != NULL) {
        grp->child[0] = ca;
        grp->child[1] = cb;
    }
    return st;
}

dnp_status pase_walk_groups(const pase_walk *w, const layer_table *lt, int64_t batch,
                            plan_strategy **out, dnp_error *err)
{
    *out = NULL;
    group_ctx gc = {.w = w, .lt = lt, .g = w->g, .s = NULL, .next = 0};
    int root = 0;
    dnp_status st = group_walk(&gc, w->shown.counts, 0, -1, &root, err);
    if (st != DNP_OK)
        return st;
    plan_strategy *s = plan_strategy_new(lt->n_rows, 1);
    if (s == NULL || plan_strategy_alloc_groups(s, gc.next) != 0) {
        plan_strategy_free(s);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building the strategy of PaSE's plan");
        return DNP_ERR_NOMEM;
    }
    s->batch = batch;
    s->stage[0].first_rank = 0;
    s->stage[0].n_ranks = count_sum(&w->shown, w->shown.counts);
    for (int k = 0; k < w->shown.n_types; k++)
        if (w->shown.counts[k] > 0)
            s->stage[0].types |= 1u << k;
    for (int v = 0; v < lt->n_rows; v++) {
        s->ops[v].op = lt->row[v].op;
        s->ops[v].weighted = lt->row[v].weighted;
    }
    gc.s = s;
    gc.next = 0;
    if ((st = group_walk(&gc, w->shown.counts, 0, -1, &root, err)) != DNP_OK) {
        plan_strategy_free(s);
        return st;
    }
    plan_strategy_derive_shares(s);
    plan_strategy_mesh_of_groups(s);
    *out = s;
    return DNP_OK;
}

/* ------------------------------------------------------------------ */
/* A PaSE configuration as the one strategy type (plan/strategy.h)      */
/* ------------------------------------------------------------------ */

/* 1 if core op `op` holds a weight its nest's GEMM reads (conv, FC,
 * embedding, an einsum against a weight). */
static int holds_weight(const dnp_op *op)
{
    return op->kind == DNP_OP_CONV || op->kind == DNP_OP_FC || op->kind == DNP_OP_EMBEDDING ||
           (op->kind == DNP_OP_EINSUM && op->n_inputs == 1);
}

/* The nest that is core op i's own iteration space (its last nest whose
 * op is i), -1 if it has none (a point-wise op fused into its producer,
 * an input). */
static int own_nest(const iter_space *sp, int i)
{
    int v = -1;
    for (int u = sp->nest_start[i]; u < sp->nest_start[i + 1]; u++)
        if (sp->nest[u].op == i)
            v = u;
    return v;
}

dnp_status pase_plan_strategy(const iter_space *sp, int p, const long *const *split,
                              plan_strategy **out, dnp_error *err)
{
    *out = NULL;
    const int levels = log2_exact(p);
    if (levels < 0 || levels > PLAN_MAX_AXES) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "%d devices: a strategy's mesh holds a power of two up to 2^%d", p,
                      PLAN_MAX_AXES);
        return DNP_ERR_INPUT;
    }
    int n = 0;
    for (int i = 0; i < sp->n_core; i++)
        n += own_nest(sp, i) >= 0;
    plan_strategy *s = plan_strategy_new(n, 1);
    if (s == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building the strategy of PaSE's plan");
        return DNP_ERR_NOMEM;
    }
    s->batch = sp->batch;
    s->stage[0].n_ranks = p;
    for (int k = 0; k < levels; k++) {
        char name[PLAN_AXIS_NAME];
        snprintf(name, sizeof name, "d%d", k);
        plan_strategy_add_axis(s, name, 2, 0.5);
    }
    int k = 0;
    for (int i = 0; i < sp->n_core; i++) {
        int v = own_nest(sp, i);
        if (v < 0)
            continue;
        const iter_nest *x = &sp->nest[v];
        const dnp_op *op = dnp_graph_op(sp->core, i);
        plan_op *o = &s->ops[k++];
        o->op = i;
        o->weighted = holds_weight(op);
        long one[ITER_MAX_RANK];
        for (int d = 0; d < ITER_MAX_RANK; d++)
            one[d] = 1;
        const long *sv = split != NULL && split[v] != NULL ? split[v] : one;
        int dim_of_level[PLAN_MAX_AXES + 1];
        int used = pase_level_dims(sv, x->rank, 0, levels, dim_of_level);
        if (used < 0) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "op '%s': PaSE's splits %s on %d devices (a strategy splits each "
                          "dimension over binary axes)",
                          op->name, used == -1 ? "are not powers of two" : "need more levels",
                          p);
            plan_strategy_free(s);
            return DNP_ERR_INPUT;
        }
        for (int a = 0; a < used; a++) {
            int d = dim_of_level[a];
            unsigned bit = 1u << d;
            if (plan_op_split(o, x->dim[d], a) != 0) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "op '%s' splits more than %d loop dimensions", op->name,
                              PLAN_MAX_SPLITS);
                plan_strategy_free(s);
                return DNP_ERR_INPUT;
            }
            /* a GEMM (M x K) . (K x N): a split of K leaves partial sums
             * of the output; with a weight (K x N), a split of M its
             * gradient, a split of N the input's gradient (AccPar's
             * Type-II, Type-I, Type-III) */
            if (x->gemm_k & bit)
                o->out_partial |= 1u << a;
            if (o->weighted && (x->gemm_m & bit))
                o->wgrad_partial |= 1u << a;
            if (o->weighted && (x->gemm_n & bit))
                o->igrad_partial |= 1u << a;
        }
    }
    *out = s;
    return DNP_OK;
}

dnp_status pase_plan_strategy_of(const pase_problem *pb, const int *cfg, plan_strategy **out,
                                 dnp_error *err)
{
    *out = NULL;
    long(*sp)[ITER_MAX_RANK] = dnp_calloc((size_t)(pb->n_v > 0 ? pb->n_v : 1), sizeof *sp);
    const long **rows = dnp_calloc((size_t)(pb->n_v > 0 ? pb->n_v : 1), sizeof *rows);
    if (sp == NULL || rows == NULL) {
        dnp_free(sp);
        dnp_free(rows);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building the strategy of PaSE's plan");
        return DNP_ERR_NOMEM;
    }
    for (int v = 0; v < pb->n_v; v++) {
        pase_config_split(pb, v, cfg[v], sp[v]);
        rows[v] = sp[v];
    }
    dnp_status st = pase_plan_strategy(pb->g, pb->par.p, rows, out, err);
    dnp_free(sp);
    dnp_free(rows);
    return st;
}
