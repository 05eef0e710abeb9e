/* dot.c - the model graph in Graphviz DOT, optionally coloured by a plan.
 *
 * Node IDs are generated ("n0", "n1", ...), so op names only ever appear
 * inside quoted labels, escaped; a name with quotes, backslashes, '/' or
 * ':' (common in ONNX) cannot break the file. */
#include "report/report.h"
#include "perf/device_model.h"
#include "search/plan_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fill and text colours of the states: Types I, II, III, joins B, C, and R
 * (a replicated join, or a layer of type R: not split at that level; the
 * palette of the plan map, docs/reports.md). */
static const char *const fill_colors[6] = {"#4e79a7", "#f28e2b", "#e15759",
                                           "#a0cbe8", "#ffbe7d", "#d4d4d4"};
static const char *const font_colors[6] = {"white", "black", "white", "black", "black", "black"};
static const char *const legend_text[6] = {"I: batch split",          "II: input dim split",
                                           "III: output dim split",   "B: join, batch layout",
                                           "C: join, channel layout", "R: replicated, not split"};

/* Per-sample shape text: the real axes when the op keeps them, else
 * c x h x w (just c for a vector). */
static void put_shape(rbuf *b, const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    if (dnp_op_has_axes(op)) {
        for (int d = 0; d < op->out_rank && d < DNP_MAX_RANK; d++)
            rbuf_printf(b, "%s%lld", d ? "x" : "", (long long)op->out_dims[d]);
        return;
    }
    if (ov.h == 1 && ov.w == 1)
        rbuf_printf(b, "%lld", (long long)ov.c);
    else
        rbuf_printf(b, "%lldx%lldx%lld", (long long)ov.c, (long long)ov.h, (long long)ov.w);
}

/* Elements per sample of op's output (put_shape's axes multiplied). */
static double shape_elems(const dnp_op *op)
{
    const dnp_shape ov = dnp_op_out_view(op);
    double n = 1.0;
    if (dnp_op_has_axes(op)) {
        for (int d = 0; d < op->out_rank && d < DNP_MAX_RANK; d++)
            n *= (double)op->out_dims[d];
        return n;
    }
    return (double)ov.c * (double)ov.h * (double)ov.w;
}

/* bytes in the unit that keeps 3 significant digits under 1000, decimal
 * prefixes (SI): "48 B", "802 kB", "12.6 MB", "3.21 GB". */
static void put_bytes(rbuf *b, double bytes)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int k = 0;
    double v = bytes;
    while (k < 5 && fabs(v) >= 999.5) {
        v /= 1000.0;
        k++;
    }
    if (k == 0)
        rbuf_printf(b, "%.0f B", v);
    else
        rbuf_printf(b, "%.3g %s", v, unit[k]);
}

/* The legend: one node holding a table of the six states, two a row (a
 * row of six boxes made a narrow model's picture twice as wide as its
 * graph), in the cluster cluster_legend with its title.  The cells use the
 * nodes' font (Helvetica) at DOT_LEGEND_FONTSIZE, the size of the node
 * labels, so the legend reads at the picture's scale. */
#define DOT_LEGEND_FONTSIZE 10
static void put_legend(rbuf *b)
{
    rbuf_printf(b,
                "  subgraph cluster_legend {\n"
                "    label=\"type at level h0 (fill)\";\n"
                "    fontsize=%d;\n"
                "    color=\"#999999\";\n"
                "    legend [shape=plain, style=\"\", fontsize=%d, label=<"
                "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"4\" CELLPADDING=\"5\">",
                DOT_LEGEND_FONTSIZE, DOT_LEGEND_FONTSIZE);
    for (int c = 0; c < 6; c++)
        rbuf_printf(b, "%s<TD BGCOLOR=\"%s\" ALIGN=\"LEFT\"><FONT COLOR=\"%s\">%s</FONT></TD>%s",
                    c % 2 == 0 ? "<TR>" : "", fill_colors[c], font_colors[c], legend_text[c],
                    c % 2 == 1 ? "</TR>" : "");
    rbuf_puts(b, "</TABLE>>];\n"
                 "  }\n");
}

/* Shape-preserving point-wise kinds that a drawing folds into their
 * producer (docs/reports.md, "DOT"). */
static int foldable_kind(const dnp_op *op)
{
    switch (op->kind) {
    case DNP_OP_RELU:
    case DNP_OP_BATCHNORM:
    case DNP_OP_DROPOUT:
    case DNP_OP_LRN:
    case DNP_OP_LAYERNORM:
        return 1;
    case DNP_OP_ELTWISE:
        return op->n_inputs == 1;
    default:
        return 0;
    }
}

/* head[i]: the node op i is drawn in.  An unplanned point-wise op with one
 * input whose producer feeds nothing else is folded into the producer's
 * node (a conv -> batch norm -> ReLU chain is one box); every other op is
 * its own node.  Folding never hides a branch or a planned op.  O(ops +
 * edges). */
static int fold_chains(const dnp_graph *g, const int *node_of_op, int *head)
{
    int n_ops = dnp_graph_n_ops(g);
    int *consumers = dnp_calloc((size_t)(n_ops > 0 ? n_ops : 1), sizeof *consumers);
    if (consumers == NULL)
        return -1;
    for (int i = 0; i < n_ops; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        for (int k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && op->inputs[k] < n_ops)
                consumers[op->inputs[k]]++;
    }
    for (int i = 0; i < n_ops; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        head[i] = i;
        if (op->n_inputs != 1 || node_of_op[i] >= 0 || !foldable_kind(op))
            continue;
        int src = op->inputs[0];
        if (src < 0 || src >= i || consumers[src] != 1 ||
            dnp_graph_op(g, src)->kind == DNP_OP_INPUT)
            continue;
        head[i] = head[src]; /* inputs precede their consumers */
    }
    dnp_free(consumers);
    return 0;
}

/* Ranks a column holds at most: a deep model is drawn in side-by-side
 * columns of this many ranks instead of one tall one (docs/reports.md,
 * "DOT"; issue 15: bert-base was 13,000 px tall). */
#define DOT_COLUMN_RANKS 24

/* rank[i] for every drawn node i (head[i] == i): its longest path from a
 * node without drawn inputs, counted in drawn edges; returns the number of
 * ranks (1 + the largest).  Inputs precede their consumers, so one pass in
 * op order suffices.  O(ops + edges). */
static int node_ranks(const dnp_graph *g, const int *head, int *rank)
{
    int n_ops = dnp_graph_n_ops(g), n_ranks = 1;
    for (int i = 0; i < n_ops; i++) {
        rank[i] = 0;
        if (head[i] != i)
            continue;
        const dnp_op *op = dnp_graph_op(g, i);
        for (int k = 0; k < op->n_inputs; k++) {
            int src = op->inputs[k];
            if (src >= 0 && src < i && rank[head[src]] + 1 > rank[i])
                rank[i] = rank[head[src]] + 1;
        }
        if (rank[i] + 1 > n_ranks)
            n_ranks = rank[i] + 1;
    }
    return n_ranks;
}

/* The columns: for n_ranks ranks, ceil(n_ranks / DOT_COLUMN_RANKS) columns
 * of equal height (the last may be shorter); *per_col ranks each.  One
 * column (no layout) for a model that fits.  O(1). */
static int column_count(int n_ranks, int *per_col)
{
    int n_cols = (n_ranks + DOT_COLUMN_RANKS - 1) / DOT_COLUMN_RANKS;
    if (n_cols < 1)
        n_cols = 1;
    *per_col = (n_ranks + n_cols - 1) / n_cols;
    return n_cols;
}

/* The invisible scaffold of a multi-column drawing: per column a chain of
 * per_col anchor points (a<col>_<rank>), the first anchors of all columns
 * on one rank and ordered left to right, and every drawn node on the rank
 * of its anchor (rank=same).  Edges between columns are then drawn without
 * constraining the ranks (put_edges).  O(ops + ranks). */
static void put_columns(rbuf *b, const dnp_graph *g, const int *head, const int *rank,
                        int n_ranks, int n_cols, int per_col)
{
    rbuf_puts(b, "  node [shape=point, width=0, height=0, style=invis, label=\"\"];\n");
    for (int c = 0; c < n_cols; c++) {
        int top = c * per_col, bottom = top + per_col < n_ranks ? top + per_col : n_ranks;
        rbuf_printf(b, "  a%d_%d", c, top);
        for (int r = top + 1; r < bottom; r++)
            rbuf_printf(b, " -> a%d_%d", c, r);
        rbuf_puts(b, bottom - top > 1 ? " [style=invis];\n" : ";\n");
    }
    rbuf_puts(b, "  { rank=same;");
    for (int c = 0; c < n_cols; c++)
        rbuf_printf(b, " a%d_%d;", c, c * per_col);
    rbuf_puts(b, " }\n ");
    for (int c = 0; c < n_cols; c++)
        rbuf_printf(b, "%s a%d_%d", c ? " ->" : "", c, c * per_col);
    rbuf_puts(b, " [style=invis, weight=0];\n");
    int n_ops = dnp_graph_n_ops(g);
    for (int i = 0; i < n_ops; i++)
        if (head[i] == i)
            rbuf_printf(b, "  { rank=same; a%d_%d; n%d; }\n", rank[i] / per_col, rank[i], i);
    /* each column an invisible cluster: its nodes stay side by side */
    for (int c = 0; c < n_cols; c++) {
        rbuf_printf(b, "  subgraph cluster_column%d { style=invis;", c);
        for (int i = 0; i < n_ops; i++)
            if (head[i] == i && rank[i] / per_col == c)
                rbuf_printf(b, " n%d;", i);
        rbuf_puts(b, " }\n");
    }
}

char *report_dot_text(const dnp_graph *g, const dnp_plan *p, int64_t batch, int bytes_per_elem)
{
    /* the edges' bytes: the plan's batch and activation element size (the
     * largest of its device types' at its precision), else 1 and 4 */
    if (batch <= 0)
        batch = p != NULL && p->opt.batch > 0 ? p->opt.batch : 1;
    if (bytes_per_elem <= 0) {
        bytes_per_elem = p != NULL ? 0 : 4;
        for (int k = 0; p != NULL && k < p->cl.n_types; k++) {
            perf_rates r;
            perf_rates_get(&p->cl.types[k], p->opt.precision, &r);
            bytes_per_elem = r.act_bytes > bytes_per_elem ? r.act_bytes : bytes_per_elem;
        }
        if (bytes_per_elem <= 0)
            bytes_per_elem = 4;
    }
    int n_ops = dnp_graph_n_ops(g);
    int *node_of_op = dnp_malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof *node_of_op);
    int *head = dnp_malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof *head);
    int *tail = dnp_malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof *tail);
    int *rank = dnp_malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof *rank);
    if (node_of_op == NULL || head == NULL || tail == NULL || rank == NULL) {
        dnp_free(node_of_op);
        dnp_free(head);
        dnp_free(tail);
        dnp_free(rank);
        return NULL;
    }
    for (int i = 0; i < n_ops; i++)
        node_of_op[i] = -1;
    int levels = 0, n_paths = 1;
    if (p != NULL) {
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        levels = s.levels > REPORT_MAX_DEPTH ? REPORT_MAX_DEPTH : s.levels;
        for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
            int op = dnp_graph_find(g, dnp_plan_node_name(p, v));
            if (op >= 0)
                node_of_op[op] = v;
        }
        unsigned paths[2];
        n_paths = report_plan_paths(p, levels, paths, 1);
    }
    if (fold_chains(g, node_of_op, head) != 0) {
        dnp_free(node_of_op);
        dnp_free(head);
        dnp_free(tail);
        dnp_free(rank);
        return NULL;
    }
    int per_col = 1, n_ranks = node_ranks(g, head, rank);
    int n_cols = column_count(n_ranks, &per_col);
    /* tail[h]: the last op folded into node h (its output leaves the node) */
    for (int i = 0; i < n_ops; i++)
        tail[i] = i;
    for (int i = 0; i < n_ops; i++)
        tail[head[i]] = i;

    rbuf b;
    rbuf_init(&b);
    rbuf_puts(&b, "digraph \"");
    rbuf_put_escaped(&b, dnp_graph_name(g), ESC_DOT);
    /* The title is one label in several quoted pieces joined by '+' (DOT's
     * string concatenation), one a line, so the file's lines stay short. */
    rbuf_puts(&b, "\" {\n  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=12, labelloc=t, "
                  "ranksep=0.25, nodesep=0.2,");
    if (n_cols > 1) /* ranks across the column clusters (put_columns) */
        rbuf_puts(&b, " newrank=true,");
    rbuf_puts(&b, "\n         label=\"");
    rbuf_put_escaped(&b, dnp_graph_name(g), ESC_DOT);
    rbuf_puts(&b, ": op name, kind (+ point-wise ops folded into it), output shape per sample\"\n"
                  "             + \"\\nedges: tensor shape per sample");
    rbuf_printf(&b, " and bytes per step at batch %lld\"\n             + \"\\n(%d-byte elements, "
                    "forward; its gradient moves as much back)",
                (long long)batch, bytes_per_elem);
    if (p != NULL) {
        rbuf_printf(&b, "\"\n             + \"\\nfill: partition type at level h0; last line: "
                        "type at h0..h%d",
                    levels - 1);
        if (n_paths > 1)
            rbuf_puts(&b, " on the first path\"\n             + \"\\n(the halves of a heterogeneous "
                          "level decide differently below it: see dnnpar plan)");
    }
    rbuf_puts(&b, "\"];\n"
                  "  node [shape=box, style=\"rounded,filled\", fillcolor=\"white\", "
                  "fontname=\"Helvetica\", fontsize=10];\n"
                  "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n");
    for (int i = 0; i < n_ops; i++) {
        if (head[i] != i)
            continue;
        const dnp_op *op = dnp_graph_op(g, i);
        rbuf_printf(&b, "  n%d [label=\"", i);
        rbuf_put_escaped(&b, op->name, ESC_DOT);
        for (int j = i; j <= tail[i]; j++) {
            const dnp_op *f = dnp_graph_op(g, j);
            if (head[j] != i)
                continue;
            rbuf_printf(&b, "%s%s", j == i ? "\\n" : " + ", dnp_op_kind_name(f->kind));
            if (f->src_type[0] != '\0') {
                rbuf_puts(&b, " (");
                rbuf_put_escaped(&b, f->src_type, ESC_DOT);
                rbuf_puts(&b, ")");
            }
        }
        rbuf_puts(&b, "\\n");
        put_shape(&b, dnp_graph_op(g, tail[i]));
        int v = node_of_op[i];
        if (v >= 0 && levels > 0) {
            int w = dnp_plan_node_weighted(p, v);
            rbuf_puts(&b, "\\n");
            for (int k = 0; k < levels; k++)
                rbuf_printf(&b, "%s%s", k ? " " : "",
                            report_state_name(w, dnp_plan_type(p, k, 0, v)));
            int t0 = dnp_plan_type(p, 0, 0, v);
            int c = t0 < 0 || (w && t0 == DNP_TYPE_R) ? 5 : (w ? t0 : 3 + t0);
            rbuf_printf(&b, "\", fillcolor=\"%s\", fontcolor=\"%s\"", fill_colors[c],
                        font_colors[c]);
        } else if (v >= 0 || dnp_op_is_weighted(op)) {
            rbuf_puts(&b, "\", color=\"black\", penwidth=1.5");
        } else {
            rbuf_puts(&b, "\", color=\"#888888\"");
        }
        rbuf_puts(&b, "];\n");
    }
    for (int i = 0; i < n_ops; i++) {
        if (head[i] != i)
            continue; /* edges into a folded op are inside its node */
        const dnp_op *op = dnp_graph_op(g, i);
        for (int k = 0; k < op->n_inputs; k++) {
            const dnp_op *src = dnp_graph_op(g, op->inputs[k]);
            if (src == NULL)
                continue;
            int from = head[op->inputs[k]];
            rbuf_printf(&b, "  n%d -> n%d [label=\"", from, i);
            put_shape(&b, src);
            rbuf_puts(&b, "\\n");
            put_bytes(&b, shape_elems(src) * (double)batch * bytes_per_elem);
            /* an edge between columns does not pull the ranks (put_columns) */
            rbuf_puts(&b, n_cols > 1 && rank[from] / per_col != rank[i] / per_col
                              ? "\", constraint=false];\n"
                              : "\"];\n");
        }
    }
    if (p != NULL && levels > 0)
        put_legend(&b);
    if (n_cols > 1)
        put_columns(&b, g, head, rank, n_ranks, n_cols, per_col);
    rbuf_puts(&b, "}\n");
    dnp_free(node_of_op);
    dnp_free(head);
    dnp_free(tail);
    dnp_free(rank);
    return rbuf_take(&b);
}

dnp_status report_dot_write(const char *path, const dnp_graph *g, const dnp_plan *p,
                            int64_t batch, int bytes_per_elem, dnp_error *err)
{
    char *text = report_dot_text(g, p, batch, bytes_per_elem);
    if (text == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the DOT graph");
        return DNP_ERR_NOMEM;
    }
    dnp_status st;
    int fmt = report_plot_format(path);
    if (fmt >= 0) {
        /* a picture: Graphviz's dot renders the text into it */
        char *argv[] = {"dot", fmt == DNP_PLOT_SVG ? "-Tsvg" : "-Tpng", NULL};
        st = report_render_child(path, argv, text, "draw", "graphviz", DNP_ERR_INPUT, err);
    } else {
        st = dnp_write_file(path, text, strlen(text), err);
    }
    dnp_free(text);
    return st;
}
