/* astra.c - a plan as an ASTRA-sim 1.0 text workload.
 *
 * Format: the parser of ASTRA-sim 1.0 (astra-sim branch ASTRA-sim-1.0,
 * astra-sim/workload/Workload.cc, Workload::initialize_workload; docs/astra.md
 * gives the commit).  A first token with the parallelism policy, the number
 * of layers, then one record per layer read token by token:
 *
 *   name reserved(-1) fwd_compute fwd_comm_type fwd_comm_bytes
 *        ig_compute ig_comm_type ig_comm_bytes
 *        wg_compute wg_comm_type wg_comm_bytes update_delay [policy]
 *
 * The parser reads exactly the declared number of records and closes the
 * file, so the notes after them (lines starting with '#') are never read.
 *
 * Units (the parser's Tick, 1 per ns: Common.hh CLOCK_PERIOD 1, the
 * analytical backend's event queue in ns): compute and delays in ns, sizes
 * in bytes per NPU.  The update delay is scheduled after every collective
 * of the layer (Layer::call); the backend's event queue asserts a strictly
 * later time stamp (EventQueue.cc), so it is 1, never 0.
 *
 * Collectives (docs/astra.md): one per phase and layer, at the described
 * device's own shares (its leaf of the plan's tree), over the levels of the
 * type that needs it (AccPar Table 4: Type-I the weight gradient A(W),
 * Type-II the output F, Type-III the input error E).  A data-parallel layer
 * over L levels is one weight-gradient all-reduce of its weights over the
 * 2^L replicas, not L of them.  The group is the layer's policy: ASTRA-sim
 * runs the forward and input-gradient collectives over the policy's "model"
 * network dimensions and the weight gradient over its "data" ones
 * (Workload::decode_involved_dimensions), with the network laid out one
 * dimension per plan level, innermost level first. */
#include "report/report.h"
#include "topo/topology.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PH_FWD = 0, PH_IG = 1, PH_WG = 2 };

/* ASTRA-sim 1.0's per-layer policies (Workload::decode_parallelsim), in
 * the order ties are broken. */
enum { POL_DATA = 0, POL_MODEL, POL_DATA_MODEL, POL_MODEL_DATA, POL_COUNT };
static const char *const policy_names[POL_COUNT] = {"DATA", "MODEL", "HYBRID_DATA_MODEL",
                                                    "HYBRID_MODEL_DATA"};

/* One leaf of the device tree: its path and the peak FLOP/s of its device. */
typedef struct {
    unsigned bits;
    int depth;
    int type;
    double peak_flops;
} leaf;

/* One layer of the workload. */
typedef struct {
    int node, op;
    int leaf;    /* index into the leaves: the device it describes */
    int matched; /* that device is the plan's critical-path one */
    double compute_s[3];
    double comm_bytes[3];  /* per device, one collective per phase */
    unsigned need_mask[3]; /* levels the plan's collective spans, per phase */
    int policy;
} record;

static const char *const phase_names[3] = {"forward", "input-gradient", "weight-gradient"};

/* The leaves of the distinct paths and their devices. */
static dnp_status find_leaves(const dnp_plan *p, const dnp_cluster *cl, leaf *lv, int *n_out,
                              dnp_error *err)
{
    unsigned paths[REPORT_MAX_PATHS];
    int n = report_plan_paths(p, REPORT_MAX_DEPTH, paths, REPORT_MAX_PATHS);
    if (n > REPORT_MAX_PATHS)
        n = REPORT_MAX_PATHS;
    for (int i = 0; i < n; i++) {
        leaf *l = &lv[i];
        l->bits = paths[i];
        l->depth = report_path_depth(p, paths[i]);
        l->type = -1;
        if (l->depth == 0) {
            for (int k = 0; k < cl->n_types; k++)
                if (cl->counts[k] > 0 && l->type < 0)
                    l->type = k;
        } else {
            int64_t nd[2];
            int one[2];
            if (report_level_split(p, cl, l->depth - 1, l->bits, nd, one) == 0)
                l->type = one[(l->bits >> (l->depth - 1)) & 1u];
        }
        if (l->type < 0) {
            dnp_error_set(err, DNP_ERR_INTERNAL,
                          "cannot tell the device at the end of a plan path from cluster %s",
                          cl->n_types > 0 ? cl->types[0].name : "(empty)");
            return DNP_ERR_INTERNAL;
        }
        l->peak_flops = cl->types[l->type].peak_flops;
    }
    *n_out = n;
    return DNP_OK;
}

/* FLOP of plan node v held by the device at the end of leaf l, as the
 * planner counts it (docs/time-model.md: Eq. 8 at a leaf). */
static double leaf_flop(const dnp_plan *p, int v, const leaf *l, double flop)
{
    double fb, fi, fo;
    report_path_shares(p, l->bits, l->depth, v, &fb, &fi, &fo);
    if (!dnp_plan_node_weighted(p, v))
        return flop * fb * fo;
    return flop * fb * fi * fo;
}

/* Levels (bit k = level hk) over which ASTRA-sim runs the weight-gradient
 * collective of a layer with `policy` in a network of `levels` dimensions,
 * dimension i being level h(levels-1-i) (Workload.cc,
 * decode_involved_dimensions: DATA all dimensions, MODEL none,
 * HYBRID_DATA_MODEL dimensions 1.. (levels h0 .. h(L-2)), HYBRID_MODEL_DATA
 * dimension 0 (level h(L-1))).  The forward and input-gradient
 * collectives run over the other levels. */
static unsigned policy_data_levels(int policy, int levels)
{
    unsigned all = levels > 0 ? (levels >= 32 ? ~0u : (1u << levels) - 1u) : 0u;
    unsigned inner = levels > 0 ? 1u << (levels - 1) : 0u;
    switch (policy) {
    case POL_DATA:
        return all;
    case POL_DATA_MODEL:
        return all & ~inner;
    case POL_MODEL_DATA:
        return inner;
    default:
        return 0u;
    }
}

static int popcount_u(unsigned x)
{
    int n = 0;
    for (; x != 0u; x &= x - 1u)
        n++;
    return n;
}

/* The policy whose data levels differ from the layer's Type-I levels at
 * the fewest levels, among those that give every collective the layer has
 * at least one network dimension (ties: DATA, MODEL, HYBRID_DATA_MODEL,
 * HYBRID_MODEL_DATA); -1 if the layer has no collective (any policy
 * runs it).  O(1). */
static int choose_policy(const record *r, int levels, int depth)
{
    unsigned all = levels > 0 ? (levels >= 32 ? ~0u : (1u << levels) - 1u) : 0u;
    /* Levels below a shallower leaf do not exist for its device. */
    unsigned own = depth > 0 ? (depth >= 32 ? ~0u : (1u << depth) - 1u) : 0u;
    unsigned data = r->need_mask[PH_WG];
    unsigned model = r->need_mask[PH_FWD] | r->need_mask[PH_IG];
    if (data == 0u && model == 0u)
        return -1;
    int best = -1, best_miss = 1 << 30;
    for (int pol = 0; pol < POL_COUNT; pol++) {
        unsigned d = policy_data_levels(pol, levels);
        unsigned m = all & ~d;
        if ((data != 0u && d == 0u) || (model != 0u && m == 0u))
            continue;
        if ((data != 0u && (d & own) == 0u) || (model != 0u && (m & own) == 0u))
            continue;
        int miss = popcount_u((d ^ data) & own);
        if (miss < best_miss) {
            best_miss = miss;
            best = pol;
        }
    }
    return best;
}

/* The per-device collectives of record r (one per phase) at leaf l's
 * shares, and the levels each spans.  O(depth). */
static void layer_collectives(const dnp_plan *p, const dnp_op_cost *c, int bpe, record *r,
                              const leaf *l)
{
    int v = r->node;
    if (!dnp_plan_node_weighted(p, v))
        return; /* joins: layout changes only (not in the records) */
    for (int k = 0; k < l->depth; k++) {
        int t = dnp_plan_type(p, k, l->bits, v);
        if (t == DNP_TYPE_R || t < 0)
            continue; /* R: each half computes the whole layer, nothing to sum */
        /* Table 4: Type-I exchanges the weight gradient, Type-II the output
         * partial sums (forward), Type-III the input-error partial sums. */
        int ph = t == DNP_TYPE_I ? PH_WG : t == DNP_TYPE_II ? PH_FWD : PH_IG;
        r->need_mask[ph] |= 1u << k;
    }
    double fb, fi, fo;
    report_path_shares(p, l->bits, l->depth, v, &fb, &fi, &fo);
    /* What the device holds of each tensor (Table 4's sizes at its shares):
     * its weight block A(W) fi fo, its output block F fb fo, its input
     * error block E fb fi.  One all-reduce of that block over the levels of
     * the type sums the partial results of every group they split. */
    double held_bytes[3];
    held_bytes[PH_WG] = (double)c->weight_elems * fi * fo * bpe;
    held_bytes[PH_FWD] = (double)c->out_elems * fb * fo * bpe;
    held_bytes[PH_IG] = (double)c->in_elems * fb * fi * bpe;
    for (int ph = 0; ph < 3; ph++)
        if (r->need_mask[ph] != 0u)
            r->comm_bytes[ph] = held_bytes[ph];
}

/* Append " over hA hB ..." for the levels in mask. */
static void put_levels(rbuf *b, unsigned mask)
{
    rbuf_puts(b, " over");
    for (int k = 0; k < 32; k++)
        if ((mask >> k) & 1u)
            rbuf_printf(b, " h%d", k);
}

/* Append the note of each collective of r: bytes, the plan's levels and,
 * if ASTRA-sim's policy runs it over other levels, which.  Returns 1 if
 * any collective is approximated. */
static int put_collective_notes(rbuf *b, const record *r, int levels, int depth)
{
    unsigned all = levels > 0 ? (levels >= 32 ? ~0u : (1u << levels) - 1u) : 0u;
    unsigned own = depth > 0 ? (depth >= 32 ? ~0u : (1u << depth) - 1u) : 0u;
    unsigned data = policy_data_levels(r->policy, levels);
    unsigned runs[3] = {all & ~data & own, all & ~data & own, data & own};
    int approx = 0, any = 0;
    for (int ph = 0; ph < 3; ph++) {
        long long bytes = llround(r->comm_bytes[ph]);
        if (bytes <= 0)
            continue;
        rbuf_printf(b, "; %s ALLREDUCE %lld B", phase_names[ph], bytes);
        put_levels(b, r->need_mask[ph]);
        if (runs[ph] != r->need_mask[ph]) {
            rbuf_puts(b, " (APPROXIMATED: ASTRA-sim runs it");
            put_levels(b, runs[ph]);
            rbuf_puts(b, ")");
            approx = 1;
        }
        any = 1;
    }
    if (!any)
        rbuf_puts(b, "; no collective");
    return approx;
}

/* The note line of record r: the device described, its type per level,
 * the policy and each collective.  Returns 1 if a collective is
 * approximated. */
static int put_layer_note(rbuf *b, const dnp_plan *p, const dnp_graph *g, const dnp_cluster *cl,
                          const record *r, const leaf *l, int levels)
{
    const dnp_op *op = dnp_graph_op(g, r->op);
    int weighted = dnp_plan_node_weighted(p, r->node);
    rbuf_puts(b, "#   ");
    rbuf_put_escaped(b, op->name, ESC_TEXT);
    rbuf_puts(b, ": device ");
    rbuf_put_escaped(b, cl->types[l->type].name, ESC_TEXT);
    if (l->bits != 0) {
        rbuf_puts(b, " (second group at");
        for (int k = 0; k < l->depth; k++)
            if ((l->bits >> k) & 1u)
                rbuf_printf(b, " h%d", k);
        rbuf_puts(b, ")");
    }
    if (!r->matched)
        rbuf_puts(b, " (busiest; the plan's critical path was not found)");
    rbuf_puts(b, "; types");
    for (int k = 0; k < l->depth; k++)
        rbuf_printf(b, " %s", report_state_name(weighted, dnp_plan_type(p, k, l->bits, r->node)));
    if (l->depth == 0)
        rbuf_puts(b, " - (a single device)");
    rbuf_printf(b, "; %s", policy_names[r->policy]);
    int approx = put_collective_notes(b, r, levels, l->depth);
    rbuf_puts(b, "\n");
    return approx;
}

static void put_record(rbuf *b, const dnp_graph *g, const record *r, int customized)
{
    const dnp_op *op = dnp_graph_op(g, r->op);
    rbuf_put_escaped(b, op->name[0] ? op->name : "layer", ESC_TOKEN);
    rbuf_puts(b, " -1");
    for (int ph = 0; ph < 3; ph++) {
        long long ns = llround(r->compute_s[ph] * 1e9);
        long long bytes = llround(r->comm_bytes[ph]);
        rbuf_printf(b, " %lld %s %lld", ns, bytes > 0 ? "ALLREDUCE" : "NONE", bytes > 0 ? bytes : 0);
    }
    /* The update delay: 1 ns, the least the analytical backend's event
     * queue accepts (a delay of 0 fails its assertion). */
    rbuf_puts(b, " 1");
    if (customized)
        rbuf_printf(b, " %s", policy_names[r->policy]);
    rbuf_puts(b, "\n");
}

/* Link bandwidth (bytes/s, one direction, per device) of level k's
 * dimension: ASTRA-sim gives a dimension one bandwidth, so the slowest of
 * the links the level's groups split across (those of the leaves below
 * level k), each src/topo's link between the halves of a device-tree group
 * (topo_tree_link: the network when the halves sit on different nodes,
 * else the node's intra tier; the slowest member type's figures). */
static double level_link_bps(const dnp_cluster *cl, const leaf *lv, int n_leaves, int k)
{
    double bw = INFINITY;
    for (int j = 0; j < n_leaves; j++) {
        int64_t counts[DNP_MAX_DEVICE_TYPES];
        dnp_comm_group link;
        if (lv[j].depth <= k || topo_tree_group(cl, k, lv[j].bits, counts) != 0)
            continue;
        double tier = topo_tree_link(cl, counts, &link) ? link.inter_bw_bps : link.intra_bw_bps;
        if (tier < bw)
            bw = tier;
    }
    return isfinite(bw) ? bw : 0.0;
}

/* The notes on the network the records assume: one dimension per level
 * (innermost first), 2 units each, and each level's link bandwidth; and
 * a NOTE for every level that does not split its group into two equal
 * halves (ASTRA-sim's dimensions multiply: such a tree has no exact
 * layout).  Returns the number of uneven levels. */
static int put_network_notes(rbuf *b, const dnp_plan *p, const dnp_cluster *cl, const leaf *lv,
                             int n_leaves, int levels)
{
    int uneven = 0;
    int64_t total = 0;
    for (int t = 0; t < cl->n_types; t++)
        total += cl->counts[t] > 0 ? cl->counts[t] : 0;
    if (levels == 0) {
        rbuf_puts(b, "# ASTRA-sim network the records assume: one NPU (dimensions-count 1, "
                     "units-count 1)\n");
        return 0;
    }
    rbuf_printf(b,
                "# ASTRA-sim network the groups assume: one dimension per level, innermost "
                "first (dimension i is\n#   level h%d-i): dimensions-count %d, units-count",
                levels - 1, levels);
    for (int i = 0; i < levels; i++)
        rbuf_puts(b, " 2");
    rbuf_puts(b, ", link-bandwidth (GiB/s)");
    for (int i = 0; i < levels; i++) {
        int k = levels - 1 - i;
        double bw_bps = level_link_bps(cl, lv, n_leaves, k);
        /* ASTRA-sim's analytical backend reads GiB/s (main.cc: x 2^30 / 1e9
         * to B/ns). */
        rbuf_printf(b, " %.6g", bw_bps / 1073741824.0);
    }
    rbuf_printf(b, " (%lld NPUs)\n", 1LL << levels);
    for (int i = 0; i < n_leaves; i++) {
        const leaf *l = &lv[i];
        for (int k = 0; k < l->depth; k++) {
            /* The group split at level k is named by the path's first k
             * branches: report it for the first leaf under it only. */
            unsigned prefix = l->bits & ((1u << k) - 1u);
            int seen = 0;
            for (int j = 0; j < i && !seen; j++)
                seen = lv[j].depth > k && (lv[j].bits & ((1u << k) - 1u)) == prefix;
            if (seen)
                continue;
            int64_t nd[2];
            int one[2];
            if (report_level_split(p, cl, k, l->bits, nd, one) != 0 || nd[0] != nd[1]) {
                if (uneven == 0)
                    rbuf_printf(b, "# NOTE APPROXIMATED: the plan's %lld devices are no "
                                   "power-of-two hierarchy of equal halves;\n",
                                (long long)total);
                char text[600];
                dnp_plan_level_groups(p, k, l->bits, text, sizeof text);
                rbuf_printf(b, "#   level h%d splits ", k);
                rbuf_put_escaped(b, text, ESC_TEXT);
                rbuf_puts(b, "; ASTRA-sim gives it 2 units\n");
                uneven++;
            }
        }
        if (l->depth != levels) {
            if (uneven == 0)
                rbuf_printf(b, "# NOTE APPROXIMATED: the plan's %lld devices are no "
                               "power-of-two hierarchy of equal halves;\n",
                            (long long)total);
            rbuf_printf(b, "#   a device is reached after %d levels, not %d\n", l->depth, levels);
            uneven++;
        }
    }
    return uneven;
}

dnp_status report_astra_text(const dnp_graph *g, const dnp_cluster *cl, const dnp_plan_options *opt,
                             const dnp_plan *p, rbuf *b, dnp_error *err)
{
    int V = dnp_plan_n_nodes(p);
    leaf *leaves = dnp_malloc(REPORT_MAX_PATHS * sizeof *leaves);
    record *recs = dnp_calloc((size_t)(V > 0 ? V : 1), sizeof *recs);
    rbuf notes;
    rbuf_init(&notes);
    dnp_status st = DNP_ERR_NOMEM;
    if (leaves == NULL || recs == NULL) {
        dnp_error_set(err, st, "out of memory writing the ASTRA-sim workload");
        goto done;
    }
    int n_leaves = 0;
    if ((st = find_leaves(p, cl, leaves, &n_leaves, err)) != DNP_OK)
        goto done;
    int levels = 0;
    for (int i = 0; i < n_leaves; i++)
        if (leaves[i].depth > levels)
            levels = leaves[i].depth;
    int bpe = report_bytes_per_elem(cl);
    int n = 0, unmatched = 0, approximated = 0, hetero = 0;
    for (int v = 0; v < V; v++) {
        int opi = dnp_graph_find(g, dnp_plan_node_name(p, v));
        if (opi < 0) {
            st = DNP_ERR_INTERNAL;
            dnp_error_set(err, st, "plan op '%s' is not in model '%s'", dnp_plan_node_name(p, v),
                          dnp_graph_name(g));
            goto done;
        }
        const dnp_op *op = dnp_graph_op(g, opi);
        int weighted = dnp_plan_node_weighted(p, v);
        if (!weighted && op->kind != DNP_OP_MATMUL)
            continue; /* joins without products do no costed work */
        dnp_op_cost c;
        dnp_op_cost_get(g, opi, opt->batch, &c);
        double flop = c.fwd_flop + c.bwd_flop + c.grad_flop;
        double cs, ms;
        dnp_plan_node_times(p, v, &cs, &ms);
        /* The device whose compute is the plan's: the first leaf that
         * matches, else the busiest. */
        int best = -1, busiest = 0;
        double best_t = 0.0, busiest_t = -1.0;
        for (int i = 0; i < n_leaves; i++) {
            double t = leaf_flop(p, v, &leaves[i], flop) / leaves[i].peak_flops;
            if (best < 0 && fabs(t - cs) <= 1e-9 * fabs(cs) + 1e-18) {
                best = i;
                best_t = t;
            }
            if (t > busiest_t) {
                busiest_t = t;
                busiest = i;
            }
        }
        record *r = &recs[n++];
        r->node = v;
        r->op = opi;
        r->matched = best >= 0;
        unmatched += best < 0;
        r->leaf = best >= 0 ? best : busiest;
        double t = best >= 0 ? best_t : busiest_t;
        if (flop > 0.0) {
            r->compute_s[PH_FWD] = t * (c.fwd_flop / flop);
            r->compute_s[PH_IG] = t * (c.bwd_flop / flop);
            r->compute_s[PH_WG] = t * (c.grad_flop / flop);
        }
        layer_collectives(p, &c, bpe, r, &leaves[r->leaf]);
        r->policy = choose_policy(r, levels, leaves[r->leaf].depth);
    }
    /* Layers without a collective take the first policy of a layer with
     * one (any policy runs them the same), so that a uniform plan keeps one
     * policy for the whole file. */
    int file_policy = POL_DATA;
    for (int i = n - 1; i >= 0; i--)
        if (recs[i].policy >= 0)
            file_policy = recs[i].policy;
    int customized = 0;
    for (int i = 0; i < n; i++) {
        if (recs[i].policy < 0)
            recs[i].policy = file_policy;
        customized |= recs[i].policy != file_policy;
        approximated += put_layer_note(&notes, p, g, cl, &recs[i], &leaves[recs[i].leaf], levels);
    }
    for (int i = 1; i < n_leaves; i++)
        hetero |= leaves[i].type != leaves[0].type;

    /* One policy for the whole file when every layer has the same (the
     * file then also suits tools that know no HYBRID_CUSTOMIZED). */
    rbuf_printf(b, "%s\n%d\n", customized ? "HYBRID_CUSTOMIZED" : policy_names[file_policy], n);
    for (int i = 0; i < n; i++)
        put_record(b, g, &recs[i], customized);

    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    char *spec = dnp_cluster_spec(cl);
    if (spec == NULL)
        b->oom = 1; /* the text is refused as out of memory at its end */
    rbuf_printf(b, "# dnnpar %s export: ASTRA-sim 1.0 text workload (docs/astra.md)\n",
                DNP_VERSION);
    rbuf_puts(b, "# model ");
    rbuf_put_escaped(b, dnp_graph_name(g), ESC_TEXT);
    const char *search =
        opt->search_name != NULL ? opt->search_name : dnp_scheme_name(opt->scheme);
    rbuf_printf(b,
                ", batch %lld, cluster %s, search %s, levels searched %d of %d; predicted "
                "step time %.6g s\n",
                (long long)opt->batch, spec != NULL ? spec : "", search, s.levels, s.total_levels,
                s.step_time_s);
    dnp_free(spec);
    if (s.straggler_pace > 1.0)
        rbuf_printf(b, "# compute times include the straggler factor x%.4f of %lld devices (%s)\n",
                    s.straggler_pace, (long long)s.straggler_devices, DNP_SPEED_CV_SOURCE);
    rbuf_printf(
        b,
        "# Records: name, reserved (-1), then for the forward, input-gradient and "
        "weight-gradient phases:\n"
        "#   compute time, collective, collective size; then the update delay (1 ns after "
        "each collective:\n"
        "#   the optimizer update is not modelled, and ASTRA-sim's event queue rejects 0)%s\n"
        "# ASTRA-sim 1.0 reads the declared number of records and ignores these notes; "
        "for tools that read\n"
        "#   every line, drop them: grep -v '^#'.\n"
        "# Units: compute in ns (ASTRA-sim's ticks), collective sizes in bytes per device "
        "(%d bytes per element).\n"
        "# Compute: the layer's compute time in the plan (the device on its critical path), "
        "split by the\n"
        "#   layer's forward / input-gradient / weight-gradient FLOP.\n"
        "# Collectives: one ALLREDUCE per phase of what that device holds, over the levels "
        "whose type needs\n"
        "#   it (AccPar Table 4): the weight-gradient block over the Type-I levels (its "
        "replicas), the\n"
        "#   forward output block over the Type-II levels, the input-gradient block over the "
        "Type-III levels.\n"
        "#   ASTRA-sim runs the forward and input-gradient collectives over the policy's "
        "model dimensions\n"
        "#   and the weight gradient over its data dimensions: DATA all levels, MODEL none, "
        "HYBRID_DATA_MODEL\n"
        "#   all but the innermost, HYBRID_MODEL_DATA the innermost.\n"
        "# Not in the records: the layout conversions between layers (AccPar Table 5) and "
        "ops other than\n"
        "#   conv, FC, embedding and products of activations.\n",
        customized ? ";\n#   with HYBRID_CUSTOMIZED, the layer's policy." : ".", bpe);
    put_network_notes(b, p, cl, leaves, n_leaves, levels);
    if (hetero)
        rbuf_puts(b, "# NOTE APPROXIMATED: mixed devices; ASTRA-sim runs one workload on "
                     "every NPU, each record the\n#   device on the layer's critical path\n");
    if (approximated > 0)
        rbuf_printf(b,
                    "# NOTE APPROXIMATED: %d layers have a collective ASTRA-sim's policies "
                    "cannot place on the plan's\n#   levels exactly (marked below)\n",
                    approximated);
    if (unmatched > 0)
        rbuf_printf(b,
                    "# NOTE %d layers: no device's compute equals the plan's; the busiest "
                    "is described\n",
                    unmatched);
    rbuf_puts(b, "# Per layer, the device described, its type per level, the policy and each "
                 "collective:\n");
    if (notes.oom) {
        st = DNP_ERR_NOMEM;
        dnp_error_set(err, st, "out of memory writing the ASTRA-sim workload");
        goto done;
    }
    rbuf_puts(b, notes.s ? notes.s : "");
    st = DNP_OK;
done:
    rbuf_free(&notes);
    dnp_free(leaves);
    dnp_free(recs);
    return st;
}
