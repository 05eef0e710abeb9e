/* astra.c - a plan as an ASTRA-sim 1.0 text workload.
 *
 * Format (ASTRA-sim 1.0, inputs/workload/ASTRA-sim-1.0/README.md of the
 * astra-sim repository): a first line with the parallelism ("DATA", or
 * "HYBRID_CUSTOMIZED" whose records end with a per-layer parallelism), a
 * line with the number of layers, then one record per layer:
 *
 *   name reserved(-1) fwd_compute fwd_comm_type fwd_comm_bytes
 *        ig_compute ig_comm_type ig_comm_bytes
 *        wg_compute wg_comm_type wg_comm_bytes wg_update [parallelism]
 *
 * Compute times are in ns (ASTRA-sim's cycles at 1 GHz), sizes in bytes.
 * Per layer: the compute of the device on the layer's critical path (the
 * plan's compute time for the layer), split into phases by the layer's
 * forward / input-gradient / weight-gradient FLOP; the collectives are
 * AccPar's intra-layer exchanges (Table 4) of every level on that device's
 * path, summed per phase.  The notes after the records (lines starting
 * with '#') are past the declared number of layers, which ASTRA-sim 1.0
 * does not read. */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PH_FWD = 0, PH_IG = 1, PH_WG = 2 };

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
    double comm_bytes[3];
    const char *parallelism;
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

/* ASTRA-sim's per-layer parallelism from the types along the path:
 * all Type-I (joins: batch layout) is DATA, none is MODEL, otherwise the
 * outermost level says which comes first. */
static const char *parallelism_of(const dnp_plan *p, int v, const leaf *l)
{
    int data = 0, model = 0;
    for (int k = 0; k < l->depth; k++) {
        int t = dnp_plan_type(p, k, l->bits, v);
        if (t == 0)
            data++;
        else
            model++;
    }
    if (model == 0)
        return "DATA";
    if (data == 0)
        return "MODEL";
    return dnp_plan_type(p, 0, l->bits, v) == 0 ? "HYBRID_DATA_MODEL" : "HYBRID_MODEL_DATA";
}

/* The per-level collectives of record r, as a note; also sums them. */
static void level_collectives(const dnp_plan *p, const dnp_op_cost *c, int bpe, record *r,
                              const leaf *l, rbuf *note)
{
    int v = r->node;
    int weighted = dnp_plan_node_weighted(p, v);
    for (int k = 0; k < l->depth; k++) {
        int t = dnp_plan_type(p, k, l->bits, v);
        rbuf_printf(note, "%sh%d %s", k ? "; " : "", k, report_state_name(weighted, t));
        if (!weighted) {
            rbuf_puts(note, " no collective");
            continue;
        }
        double fb, fi, fo;
        report_path_shares(p, l->bits, k, v, &fb, &fi, &fo);
        /* Table 4: the partial-sum tensor of the type, at the shares of
         * the group split at this level. */
        double bytes;
        int ph;
        if (t == DNP_TYPE_I) {
            bytes = (double)c->weight_elems * fi * fo * bpe;
            ph = PH_WG;
        } else if (t == DNP_TYPE_II) {
            bytes = (double)c->out_elems * fb * fo * bpe;
            ph = PH_FWD;
        } else {
            bytes = (double)c->in_elems * fb * fi * bpe;
            ph = PH_IG;
        }
        r->comm_bytes[ph] += bytes;
        rbuf_printf(note, " %s ALLREDUCE %.0f B", phase_names[ph], bytes);
    }
    if (l->depth == 0)
        rbuf_puts(note, "a single device, no collective");
}

static void put_record(rbuf *b, const dnp_graph *g, const record *r, int customized)
{
    const dnp_op *op = dnp_graph_op(g, r->op);
    rbuf_put_escaped(b, op->name[0] ? op->name : "layer", ESC_TOKEN);
    rbuf_puts(b, " -1");
    for (int ph = 0; ph < 3; ph++) {
        long long ns = llround(r->compute_s[ph] * 1e9);
        long long bytes = llround(r->comm_bytes[ph]);
        rbuf_printf(b, " %lld %s %lld", ns, bytes > 0 ? "ALLREDUCE" : "NONE", bytes);
    }
    rbuf_puts(b, " 0");
    if (customized)
        rbuf_printf(b, " %s", r->parallelism);
    rbuf_puts(b, "\n");
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
    int bpe = report_bytes_per_elem(cl);
    int n = 0, customized = 0, unmatched = 0;
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
        const leaf *l = &leaves[r->leaf];
        r->parallelism = parallelism_of(p, v, l);
        customized |= strcmp(r->parallelism, "DATA") != 0;
        rbuf_puts(&notes, "#   ");
        rbuf_put_escaped(&notes, op->name, ESC_TEXT);
        rbuf_puts(&notes, ": device ");
        rbuf_put_escaped(&notes, cl->types[l->type].name, ESC_TEXT);
        if (l->bits != 0) {
            rbuf_puts(&notes, " (second group at");
            for (int k = 0; k < l->depth; k++)
                if ((l->bits >> k) & 1u)
                    rbuf_printf(&notes, " h%d", k);
            rbuf_puts(&notes, ")");
        }
        if (!r->matched)
            rbuf_puts(&notes, " (busiest; the plan's critical path was not found)");
        rbuf_puts(&notes, "; ");
        level_collectives(p, &c, bpe, r, l, &notes);
        rbuf_puts(&notes, "\n");
    }

    rbuf_printf(b, "%s\n%d\n", customized ? "HYBRID_CUSTOMIZED" : "DATA", n);
    for (int i = 0; i < n; i++)
        put_record(b, g, &recs[i], customized);

    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    char spec[256];
    dnp_cluster_format(cl, spec, sizeof spec);
    rbuf_printf(b, "# dnnpar %s export: ASTRA-sim 1.0 text workload\n", DNP_VERSION);
    rbuf_puts(b, "# model ");
    rbuf_put_escaped(b, dnp_graph_name(g), ESC_TEXT);
    rbuf_printf(b,
                ", batch %lld, cluster %s, search %s, levels searched %d of %d; predicted "
                "step time %.6g s\n",
                (long long)opt->batch, spec, dnp_scheme_name(opt->scheme), s.levels, s.total_levels,
                s.step_time_s);
    if (s.straggler_pace > 1.0)
        rbuf_printf(b, "# compute times include the straggler factor x%.4f of %lld devices (%s)\n",
                    s.straggler_pace, (long long)s.straggler_devices, DNP_SPEED_CV_SOURCE);
    rbuf_printf(
        b,
        "# Records: name, reserved (-1), then for the forward, input-gradient and "
        "weight-gradient phases:\n"
        "#   compute time, collective, collective size; then the update time (0: the "
        "optimizer update is not\n"
        "#   modelled)%s.\n"
        "# ASTRA-sim 1.0 reads the declared number of records and ignores these notes; "
        "for tools that read\n"
        "#   every line (Chakra's text converter) drop them: grep -v '^#'.\n"
        "# Units: compute in ns (cycles at 1 GHz), collective sizes in bytes (%d bytes per "
        "element).\n"
        "# Compute: the layer's compute time in the plan (the device on its critical path), "
        "split by the\n"
        "#   layer's forward / input-gradient / weight-gradient FLOP.\n"
        "# Collectives: AccPar's intra-layer exchange (Table 4) at every level of that "
        "device's path, summed\n"
        "#   per phase: Type-I weight-gradient ALLREDUCE of A(W), Type-II forward ALLREDUCE of "
        "the output,\n"
        "#   Type-III input-gradient ALLREDUCE of the input, each at the shares of the group "
        "split at that\n"
        "#   level (dnnpar's model: each level a two-group exchange, docs/time-model.md).\n"
        "# Not in the records: the layout conversions between layers (AccPar Table 5) and "
        "ops other than\n"
        "#   conv, FC, embedding and products of activations.\n"
        "# Per layer, the device described and each level's type and collective:\n",
        customized ? ", and with HYBRID_CUSTOMIZED the layer's parallelism: DATA (Type-I at "
                     "every level),\n#   MODEL (none), HYBRID_DATA_MODEL / HYBRID_MODEL_DATA "
                     "(mixed; the outermost level's kind first)"
                   : "",
        bpe);
    if (unmatched > 0)
        rbuf_printf(b,
                    "# NOTE %d layers: no device's compute equals the plan's; the busiest "
                    "is described\n",
                    unmatched);
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
