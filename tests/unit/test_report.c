/* test_report.c - the reports' building blocks (text buffer, quoting,
 * atomic writes, plan walking) and the exports (JAX, DTensor, ASTRA-sim). */
#include "report/report.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A plan of zoo model `model` on cluster `spec`; NULL (and a failed
 * check) if anything fails.  *g and *cl receive the model and cluster. */
static dnp_plan *make_plan(const char *model, const char *spec, dnp_scheme scheme, int64_t batch,
                           dnp_graph **g, dnp_cluster *cl, dnp_plan_options *opt)
{
    dnp_error err = {0};
    *g = NULL;
    if (dnp_zoo_build(model, g, &err) != DNP_OK || dnp_cluster_parse(spec, cl, &err) != DNP_OK) {
        printf("  setup: %s\n", err.msg);
        CHECK(0);
        return NULL;
    }
    /* The exports carry the paper model's per-layer compute (docs/reports.md). */
    *opt = (dnp_plan_options){.scheme = scheme, .batch = batch,
                              .cost_model = DNP_COST_ACCPAR_PAPER};
    dnp_plan *p = NULL;
    if (dnp_plan_run(*g, cl, opt, &p, &err) != DNP_OK) {
        printf("  plan: %s\n", err.msg);
        CHECK(0);
        return NULL;
    }
    return p;
}

static char *export_text(dnp_export_format f, const dnp_graph *g, const dnp_cluster *cl,
                         const dnp_plan_options *opt, const dnp_plan *p)
{
    char *text = NULL;
    dnp_error err = {0};
    dnp_status st = report_export(f, g, cl, opt, p, &text, &err);
    if (st != DNP_OK)
        printf("  export: %s\n", err.msg);
    CHECK_EQ_INT(st, DNP_OK);
    return text;
}

static int count_substr(const char *s, const char *sub)
{
    int n = 0;
    for (const char *q = s; (q = strstr(q, sub)) != NULL; q += strlen(sub))
        n++;
    return n;
}

/* Files in directory d (excluding . and ..). */
TEST(report_rbuf_escape)
{
    rbuf b;
    rbuf_init(&b);
    rbuf_printf(&b, "%d-%s", 42, "x");
    rbuf_put_escaped(&b, "a'b", ESC_GNUPLOT);
    rbuf_puts(&b, "|");
    rbuf_put_escaped(&b, "q\"\\/:", ESC_DOT);
    rbuf_puts(&b, "|");
    rbuf_put_escaped(&b, "q\"\\", ESC_PYTHON);
    rbuf_puts(&b, "|");
    rbuf_put_escaped(&b, "a b\tc\xc3\xa9", ESC_TOKEN);
    rbuf_puts(&b, "|");
    rbuf_put_escaped(&b, "new\nline\xff\xc3\xa9", ESC_TEXT);
    char *s = rbuf_take(&b);
    CHECK(s != NULL);
    if (s != NULL)
        CHECK_STR(s, "42-xa''b|q\\\"\\\\/:|q\\\"\\\\|a_b_c_|new?line?\xc3\xa9");
    dnp_free(s);
    /* A large append grows the buffer. */
    rbuf_init(&b);
    for (int i = 0; i < 1000; i++)
        rbuf_puts(&b, "0123456789");
    s = rbuf_take(&b);
    CHECK(s != NULL && strlen(s) == 10000);
    dnp_free(s);
    rbuf_init(&b);
    s = rbuf_take(&b);
    CHECK(s != NULL && s[0] == '\0');
    dnp_free(s);
}

/* Filling: words joined by single spaces into lines of at most `width`
 * bytes, prefixes counted; a word longer than a line stands alone; empty
 * text appends nothing. */
TEST(report_rbuf_fill)
{
    rbuf b;
    rbuf_init(&b);
    rbuf_fill(&b, "  - ", "    ", 14, "aa bb  cc dddd eeeeeeeeeeeeeeee f");
    rbuf_fill(&b, "x", "y", 10, "   ");
    rbuf_fill(&b, "> ", "> ", 7, "ab cd");
    char *s = rbuf_take(&b);
    CHECK(s != NULL);
    if (s != NULL)
        CHECK_STR(s, "  - aa bb cc\n    dddd\n    eeeeeeeeeeeeeeee\n    f\n> ab cd\n");
    dnp_free(s);
}

TEST(report_plot_format_names)
{
    CHECK_EQ_INT(report_plot_format("a.png"), DNP_PLOT_PNG);
    CHECK_EQ_INT(report_plot_format("dir/a.SVG"), DNP_PLOT_SVG);
    CHECK_EQ_INT(report_plot_format("a.pdf"), -1);
    CHECK_EQ_INT(report_plot_format(".png"), -1);
    CHECK_EQ_INT(report_plot_format("png"), -1);
    CHECK_EQ_INT(report_plot_format(NULL), -1);
    CHECK_EQ_INT(report_export_from_name("jax"), DNP_EXPORT_JAX);
    CHECK_EQ_INT(report_export_from_name("dtensor"), DNP_EXPORT_DTENSOR);
    CHECK_EQ_INT(report_export_from_name("astra"), DNP_EXPORT_ASTRA);
    CHECK_EQ_INT(report_export_from_name("onnx"), -1);
}

TEST(report_planwalk_paths)
{
    dnp_graph *g;
    dnp_cluster cl;
    dnp_plan_options opt;
    unsigned bits[8];
    int64_t nd[2];
    int one[2];
    /* Homogeneous: one path, halves of equal size down to single devices. */
    dnp_plan *p = make_plan("alexnet", "8xtpu-v3", DNP_SCHEME_ACCPAR, 128, &g, &cl, &opt);
    if (p != NULL) {
        CHECK_EQ_INT(report_plan_paths(p, 3, bits, 8), 1);
        CHECK_EQ_INT(report_path_depth(p, 0), 3);
        CHECK_EQ_INT(report_level_split(p, &cl, 0, 0, nd, one), 0);
        CHECK_EQ_INT(nd[0], 4);
        CHECK_EQ_INT(nd[1], 4);
        CHECK_EQ_INT(one[0], -1);
        CHECK_EQ_INT(report_level_split(p, &cl, 2, 0, nd, one), 0);
        CHECK_EQ_INT(one[0], 0);
        double fb, fi, fo;
        report_path_shares(p, 0, 3, 0, &fb, &fi, &fo);
        CHECK_NEAR(fb * fi * fo, 0.125, 1e-12, 0);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
    /* Heterogeneous: the two types split at h0 and decide separately. */
    p = make_plan("resnet18", "2xtpu-v2+2xtpu-v3", DNP_SCHEME_ACCPAR, 64, &g, &cl, &opt);
    if (p != NULL) {
        CHECK_EQ_INT(report_plan_paths(p, 2, bits, 8), 2);
        CHECK_EQ_INT(bits[1], 1);
        CHECK_EQ_INT(report_plan_paths(p, 2, bits, 1), 2); /* more than max: max + 1 */
        CHECK_EQ_INT(report_level_split(p, &cl, 1, 1, nd, one), 0);
        CHECK_EQ_INT(one[0], 1); /* the TPU-v3 half splits into single TPU-v3 */
        /* A weighted layer's work is split, never replicated: the shares
         * of its four devices add up to 1. */
        for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
            if (!dnp_plan_node_weighted(p, v))
                continue;
            double sum = 0.0;
            for (unsigned b = 0; b < 4; b++) {
                double fb, fi, fo;
                report_path_shares(p, b, 2, v, &fb, &fi, &fo);
                sum += fb * fi * fo;
            }
            CHECK_NEAR(sum, 1.0, 1e-12, 0);
        }
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
    /* Unequal halves: 3 devices split 1 | 2, so the first path is shorter. */
    p = make_plan("lenet", "3xtpu-v3", DNP_SCHEME_ACCPAR, 64, &g, &cl, &opt);
    if (p != NULL) {
        CHECK_EQ_INT(report_path_depth(p, 0), 1);
        CHECK_EQ_INT(report_path_depth(p, 1), 2);
        CHECK_EQ_INT(report_level_split(p, &cl, 0, 0, nd, one), 0);
        CHECK_EQ_INT(nd[0], 1);
        CHECK_EQ_INT(nd[1], 2);
        CHECK_EQ_INT(report_plan_paths(p, REPORT_MAX_DEPTH, bits, 8), 2);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
}

TEST(report_export_jax_data_parallel)
{
    dnp_graph *g;
    dnp_cluster cl;
    dnp_plan_options opt;
    dnp_plan *p = make_plan("alexnet", "4xtpu-v3", DNP_SCHEME_DP, 512, &g, &cl, &opt);
    char *t = p ? export_text(DNP_EXPORT_JAX, g, &cl, &opt, p) : NULL;
    if (t != NULL) {
        /* Every layer shards its activations' batch over both axes. */
        CHECK_EQ_INT(count_substr(t, "\"input\": P((\"h0\", \"h1\"), None, None, None),"), 5);
        CHECK_EQ_INT(count_substr(t, "\"input\": P((\"h0\", \"h1\"), None),"), 3);
        CHECK_EQ_INT(count_substr(t, "\"weight\": P(None, None),  # gradient psum over h0, h1"), 3);
        CHECK(strstr(t, "MESH_AXES = (\"h0\", \"h1\")\nMESH_SHAPE = (2, 2)\n") != NULL);
        CHECK(strstr(t, "NOTE") == NULL); /* nothing to warn about */
        CHECK_EQ_INT(count_substr(t, "\": {  #"), dnp_plan_n_nodes(p));
    }
    dnp_free(t);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

TEST(report_export_types_roles)
{
    dnp_graph *g;
    dnp_cluster cl;
    dnp_plan_options opt;
    /* AccPar on AlexNet over 4 TPU-v3 splits the FC layers with Types II
     * and III: check each role against the convention. */
    dnp_plan *p = make_plan("alexnet", "4xtpu-v3", DNP_SCHEME_ACCPAR, 512, &g, &cl, &opt);
    char *jax = p ? export_text(DNP_EXPORT_JAX, g, &cl, &opt, p) : NULL;
    char *dt = p ? export_text(DNP_EXPORT_DTENSOR, g, &cl, &opt, p) : NULL;
    if (jax != NULL && dt != NULL) {
        int v6 = -1;
        for (int v = 0; v < dnp_plan_n_nodes(p); v++)
            if (strcmp(dnp_plan_node_name(p, v), "fc6") == 0)
                v6 = v;
        CHECK(v6 >= 0);
        int t0 = dnp_plan_type(p, 0, 0, v6), t1 = dnp_plan_type(p, 1, 0, v6);
        if (t0 == DNP_TYPE_II && t1 == DNP_TYPE_III) {
            /* II at h0: input features and kernel rows; III at h1: kernel
             * columns and output features; output partial over h0. */
            CHECK(strstr(jax, "\"fc6\": {  # fc, out 4096; types II III\n"
                              "        \"input\": P(None, \"h0\"),  # gradient psum over h1\n"
                              "        \"weight\": P(\"h0\", \"h1\"),\n"
                              "        \"output\": P(None, \"h1\"),  # partial sums: psum "
                              "over h0") != NULL);
            /* PyTorch's Linear weight is (out, in). */
            CHECK(strstr(dt, "\"fc6\": {  # fc, out 4096; types II III\n"
                             "        \"input\": (Shard(1), Replicate()),  # gradient "
                             "Partial() over h1\n"
                             "        \"weight\": (Shard(1), Shard(0)),\n"
                             "        \"output\": (Partial(), Shard(1)),  # Partial() until "
                             "all-reduced over h0") != NULL);
        } else {
            printf("  fc6 types changed (%d %d): role check skipped\n", t0, t1);
        }
        CHECK(strstr(dt, "from torch.distributed.tensor import Partial, Replicate, Shard") != NULL);
    }
    dnp_free(jax);
    dnp_free(dt);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

TEST(report_export_hetero_notes)
{
    dnp_graph *g;
    dnp_cluster cl;
    dnp_plan_options opt;
    dnp_plan *p = make_plan("resnet18", "2xtpu-v2+2xtpu-v3", DNP_SCHEME_ACCPAR, 64, &g, &cl, &opt);
    for (int f = DNP_EXPORT_JAX; p != NULL && f <= DNP_EXPORT_DTENSOR; f++) {
        char *t = export_text((dnp_export_format)f, g, &cl, &opt, p);
        if (t == NULL)
            continue;
        double r = dnp_plan_ratio(p, 0, 0);
        if (fabs(r - 0.5) > 1e-9) {
            char want[64];
            snprintf(want, sizeof want, "# NOTE h0: ratio %.4f is not 1/2", r);
            CHECK(strstr(t, want) != NULL);
            CHECK(strstr(t, "uneven split over h0 (see NOTE)") != NULL);
        }
        CHECK(strstr(t, "# NOTE h0: its two groups differ") != NULL);
        /* Every op listed in the branch note really differs. */
        int listed = count_substr(t, " (here ");
        int differ = 0;
        for (int v = 0; v < dnp_plan_n_nodes(p); v++)
            differ += dnp_plan_type(p, 1, 0, v) != dnp_plan_type(p, 1, 1, v);
        differ += fabs(dnp_plan_ratio(p, 1, 0) - dnp_plan_ratio(p, 1, 1)) > 1e-12;
        CHECK_EQ_INT(listed, differ > 40 ? 40 : differ);
        dnp_free(t);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
}

TEST(report_export_irregular_mesh)
{
    dnp_graph *g;
    dnp_cluster cl;
    dnp_plan_options opt;
    dnp_plan *p = make_plan("lenet", "3xtpu-v3", DNP_SCHEME_ACCPAR, 64, &g, &cl, &opt);
    char *t = p ? export_text(DNP_EXPORT_DTENSOR, g, &cl, &opt, p) : NULL;
    if (t != NULL) {
        CHECK(strstr(t, "groups of 1 and 2 devices (unequal halves)") != NULL);
        CHECK(strstr(t, "MESH_SHAPE = None") != NULL);
        CHECK(strstr(t, "MESH_DIM_NAMES = (\"h0\",)\n") != NULL);
    }
    dnp_free(t);
    dnp_plan_free(p);
    dnp_graph_free(g);
    /* A single device: no mesh axes at all. */
    p = make_plan("lenet", "1xtpu-v3", DNP_SCHEME_ACCPAR, 64, &g, &cl, &opt);
    t = p ? export_text(DNP_EXPORT_JAX, g, &cl, &opt, p) : NULL;
    if (t != NULL) {
        CHECK(strstr(t, "MESH_AXES = ()\nMESH_SHAPE = ()\n") != NULL);
        CHECK(strstr(t, "\"input\": P(None, None, None, None),") != NULL);
    }
    dnp_free(t);
    char *a = p ? export_text(DNP_EXPORT_ASTRA, g, &cl, &opt, p) : NULL;
    if (a != NULL)
        CHECK(strncmp(a, "DATA\n", 5) == 0);
    dnp_free(a);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* Parse the ASTRA-sim records of `text`; checks the record count and the
 * field count, returns the records' total compute (ns) per phase. */
static void astra_totals(const char *text, int n_expect, double *compute_ns, double *bytes)
{
    char *copy = dnp_strdup(text);
    char *save = NULL;
    char *line = strtok_r(copy, "\n", &save);
    int customized = line != NULL && strcmp(line, "HYBRID_CUSTOMIZED") == 0;
    CHECK(line != NULL && (customized || strcmp(line, "DATA") == 0));
    line = strtok_r(NULL, "\n", &save);
    CHECK(line != NULL && atoi(line) == n_expect);
    int records = 0;
    for (int ph = 0; ph < 3; ph++)
        compute_ns[ph] = bytes[ph] = 0.0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL && line[0] != '#') {
        char name[128], ty[3][32], par[32] = "";
        long long reserved, c[3], sz[3], upd;
        int got = sscanf(line, "%127s %lld %lld %31s %lld %lld %31s %lld %lld %31s %lld %lld %31s",
                         name, &reserved, &c[0], ty[0], &sz[0], &c[1], ty[1], &sz[1], &c[2], ty[2],
                         &sz[2], &upd, par);
        CHECK_EQ_INT(got, customized ? 13 : 12);
        CHECK_EQ_INT(reserved, -1);
        /* ASTRA-sim's event queue rejects a delay of 0 (EventQueue.cc). */
        CHECK_EQ_INT(upd, 1);
        if (customized)
            CHECK(strcmp(par, "DATA") == 0 || strcmp(par, "MODEL") == 0 ||
                  strcmp(par, "HYBRID_DATA_MODEL") == 0 || strcmp(par, "HYBRID_MODEL_DATA") == 0);
        for (int ph = 0; ph < 3; ph++) {
            CHECK(strcmp(ty[ph], sz[ph] > 0 ? "ALLREDUCE" : "NONE") == 0);
            compute_ns[ph] += (double)c[ph];
            bytes[ph] += (double)sz[ph];
        }
        records++;
    }
    CHECK_EQ_INT(records, n_expect);
    /* The rest are notes. */
    while (line != NULL) {
        CHECK(line[0] == '#');
        line = strtok_r(NULL, "\n", &save);
    }
    dnp_free(copy);
}

TEST(report_export_astra)
{
    dnp_graph *g;
    dnp_cluster cl;
    dnp_plan_options opt;
    /* Data parallel on 4 and 8 devices (2 and 3 levels): each layer's
     * weight gradient is one all-reduce of A(W) over all replicas, whatever
     * the number of levels; compute matches the plan. */
    static const char *const dp_specs[2] = {"4xtpu-v3", "8xtpu-v3"};
    for (int s = 0; s < 2; s++) {
        dnp_plan *q = make_plan("alexnet", dp_specs[s], DNP_SCHEME_DP, 512, &g, &cl, &opt);
        char *u = q ? export_text(DNP_EXPORT_ASTRA, g, &cl, &opt, q) : NULL;
        if (u != NULL) {
            double c[3], b[3];
            astra_totals(u, 8, c, b);
            double wbytes = 0.0;
            for (int i = 0; i < dnp_graph_n_ops(g); i++) {
                dnp_op_cost oc;
                dnp_op_cost_get(g, i, 512, &oc);
                wbytes += (double)oc.weight_elems * 2 /* bfloat16 */;
            }
            CHECK_NEAR(b[2], wbytes, 1e-12, 8);
            CHECK_EQ_INT(b[0] + b[1], 0);
            /* conv1: A(W) = 64 x 3 x 11 x 11 weights (Table 4 counts no biases), bfloat16. */
            CHECK(strstr(u, "\nconv1 -1 ") != NULL &&
                  strstr(strstr(u, "\nconv1 -1 "), " ALLREDUCE 46464 1\n") != NULL);
        }
        dnp_free(u);
        dnp_plan_free(q);
        dnp_graph_free(g);
    }
    dnp_plan *p = make_plan("alexnet", "4xtpu-v3", DNP_SCHEME_DP, 512, &g, &cl, &opt);
    char *t = p ? export_text(DNP_EXPORT_ASTRA, g, &cl, &opt, p) : NULL;
    if (t != NULL) {
        double c[3], b[3];
        astra_totals(t, 8, c, b);
        double wbytes = 0.0, plan_ns = 0.0;
        for (int i = 0; i < dnp_graph_n_ops(g); i++) {
            dnp_op_cost oc;
            dnp_op_cost_get(g, i, 512, &oc);
            wbytes += (double)oc.weight_elems * 2 /* bfloat16 */;
        }
        for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
            double cs, ms;
            dnp_plan_node_times(p, v, &cs, &ms);
            plan_ns += cs * 1e9;
        }
        CHECK_NEAR(b[2], wbytes, 1e-12, 8);
        CHECK_EQ_INT(b[0] + b[1], 0);
        CHECK_NEAR(c[0] + c[1] + c[2], plan_ns, 0, 3 * 8 + 1);
        CHECK(strncmp(t, "DATA\n8\nconv1 -1 ", 16) == 0);
        CHECK(strstr(t, "busiest") == NULL);
    }
    dnp_free(t);
    dnp_plan_free(p);
    dnp_graph_free(g);
    /* Heterogeneous AccPar: records for every weighted layer, each on the
     * device whose compute is the plan's. */
    p = make_plan("resnet18", "2xtpu-v2+2xtpu-v3", DNP_SCHEME_ACCPAR, 64, &g, &cl, &opt);
    t = p ? export_text(DNP_EXPORT_ASTRA, g, &cl, &opt, p) : NULL;
    if (t != NULL) {
        int weighted = 0;
        double plan_ns = 0.0;
        for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
            double cs, ms;
            dnp_plan_node_times(p, v, &cs, &ms);
            weighted += dnp_plan_node_weighted(p, v);
            plan_ns += cs * 1e9;
        }
        double c[3], b[3];
        astra_totals(t, weighted, c, b);
        CHECK_NEAR(c[0] + c[1] + c[2], plan_ns, 0, 3 * weighted + 1);
        CHECK(strstr(t, "busiest") == NULL);
        CHECK(strncmp(t, "HYBRID_CUSTOMIZED\n", 18) == 0);
        /* Eq. 10's ratio (the TPU-v2 half a third, its links half as fast: docs/time-model.md
         * "The ratio") leaves the TPU-v2 half on every layer's critical path. */
        CHECK(strstr(t, ": device tpu-v2;") != NULL);
        CHECK(strstr(t, ": device tpu-v3;") == NULL);
    }
    dnp_free(t);
    dnp_plan_free(p);
    dnp_graph_free(g);
    /* AccPar on 4 devices, fc6 (9216 -> 4096, batch 512) Type-II at h0 and
     * Type-III at h1, worked by hand: each device holds half the inputs
     * (h0) and half the outputs (h1).  Forward: the output partial sums
     * 512 x 4096 x 1/2 x 2 B = 2,097,152 B; input gradient: the input-error
     * partial sums 512 x 9216 x 1/2 x 2 B = 4,718,592 B; no weight
     * gradient all-reduce (no Type-I level), so the policy is MODEL. */
    p = make_plan("alexnet", "4xtpu-v3", DNP_SCHEME_ACCPAR, 512, &g, &cl, &opt);
    t = p ? export_text(DNP_EXPORT_ASTRA, g, &cl, &opt, p) : NULL;
    if (t != NULL) {
        int v = -1;
        for (int i = 0; i < dnp_plan_n_nodes(p); i++)
            if (strcmp(dnp_plan_node_name(p, i), "fc6") == 0)
                v = i;
        CHECK(v >= 0);
        if (v >= 0) {
            CHECK_EQ_INT(dnp_plan_type(p, 0, 0, v), DNP_TYPE_II);
            CHECK_EQ_INT(dnp_plan_type(p, 1, 0, v), DNP_TYPE_III);
        }
        const char *fc6 = strstr(t, "\nfc6 -1 ");
        CHECK(fc6 != NULL);
        if (fc6 != NULL) {
            long long c[3], sz[3], upd;
            char ty[3][32], par[32];
            CHECK_EQ_INT(sscanf(fc6, " fc6 -1 %lld %31s %lld %lld %31s %lld %lld %31s %lld %lld %31s",
                                &c[0], ty[0], &sz[0], &c[1], ty[1], &sz[1], &c[2], ty[2], &sz[2],
                                &upd, par),
                         11);
            CHECK_EQ_INT(sz[0], 2097152);
            CHECK_EQ_INT(sz[1], 4718592);
            CHECK_EQ_INT(sz[2], 0);
            CHECK(strcmp(par, "MODEL") == 0);
        }
        /* Types II and III on different levels: ASTRA-sim's MODEL runs both
         * over every level, which the notes flag. */
        CHECK(strstr(t, "forward ALLREDUCE 2097152 B over h0 (APPROXIMATED: ASTRA-sim runs it "
                        "over h0 h1)") != NULL);
    }
    dnp_free(t);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* Names that need quoting everywhere: quotes, backslashes, '/', ':',
 * spaces and a newline, as ONNX files have them. */
static dnp_graph *odd_names_graph(void)
{
    dnp_graph *g = dnp_graph_new("odd \"model\"");
    int x = dnp_graph_input(g, "input:0", 3, 8, 8);
    x = dnp_graph_conv(g, "/features/0/Conv \"a\"", x, 4, 3, 1, 1, 1, 1);
    x = dnp_graph_unary(g, "relu\\1", DNP_OP_RELU, x);
    int y = dnp_graph_conv(g, "branch\nb", x, 4, 1, 1, 0, 1, 0);
    x = dnp_graph_add(g, "add'1", x, y);
    dnp_graph_fc(g, "fc: out", x, 10, 1);
    return g;
}

TEST(report_export_odd_names)
{
    dnp_graph *g = odd_names_graph();
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("2xtpu-v3", &cl, &err), DNP_OK);
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 8, .levels = 0, .reference_mode = 0};
    dnp_plan *p = NULL;
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_OK);
    char *jax = p ? export_text(DNP_EXPORT_JAX, g, &cl, &opt, p) : NULL;
    char *astra = p ? export_text(DNP_EXPORT_ASTRA, g, &cl, &opt, p) : NULL;
    if (jax != NULL) {
        CHECK(strstr(jax, "\"/features/0/Conv \\\"a\\\"\": {") != NULL);
        CHECK(strstr(jax, "\"branch?b\": {") != NULL);
        CHECK(strstr(jax, "\"fc: out\": {") != NULL);
        CHECK(strstr(jax, "# model odd \"model\",") != NULL);
    }
    if (astra != NULL) {
        CHECK(strstr(astra, "\n/features/0/Conv_\"a\" -1 ") != NULL);
        CHECK(strstr(astra, "\nbranch_b -1 ") != NULL);
        CHECK(strstr(astra, "\nfc:_out -1 ") != NULL);
    }
    /* When python3 is on the machine, the exports must parse as Python. */
    if (jax != NULL && system("command -v python3 >/dev/null 2>&1") == 0) {
        char dir[] = "/tmp/dnnpar-report-XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        char path[256], cmd[512];
        snprintf(path, sizeof path, "%s/specs.py", dir);
        CHECK_EQ_INT(dnp_write_file(path, jax, strlen(jax), &err), DNP_OK);
        snprintf(cmd, sizeof cmd,
                 "python3 -c \"import ast,sys; ast.parse(open(sys.argv[1]).read())\" %s", path);
        CHECK_EQ_INT(system(cmd), 0);
        char *dt = export_text(DNP_EXPORT_DTENSOR, g, &cl, &opt, p);
        if (dt != NULL) {
            CHECK_EQ_INT(dnp_write_file(path, dt, strlen(dt), &err), DNP_OK);
            CHECK_EQ_INT(system(cmd), 0);
        }
        dnp_free(dt);
        unlink(path);
        rmdir(dir);
    }
    dnp_free(jax);
    dnp_free(astra);
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* Every shared ONNX model exports in every format on a heterogeneous
 * cluster: the ASTRA records describe the plan's own critical-path device,
 * the Python parses, and token ids never get a gradient note. */
TEST(report_export_onnx_models)
{
    static const char *const files[] = {"alexnet.onnx", "bert_encoder4.onnx", "resnet50.onnx",
                                        "squeezenet1_1_with_weights.onnx"};
    int n_py = 0;
    char dir[] = "/tmp/dnnpar-report-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/onnx/%s", test_data_dir(), files[i]);
        if (access(path, R_OK) != 0) {
            printf("  %s not found: skipped\n", path);
            continue;
        }
        dnp_error err = {0};
        dnp_graph *g = NULL;
        dnp_cluster cl;
        CHECK_EQ_INT(dnp_model_load(path, &g, &err), DNP_OK);
        CHECK_EQ_INT(dnp_cluster_parse("4xtpu-v2+4xtpu-v3", &cl, &err), DNP_OK);
        dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 8,
                                .cost_model = DNP_COST_ACCPAR_PAPER};
        dnp_plan *p = NULL;
        if (g != NULL)
            CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_OK);
        for (int f = 0; p != NULL && f < DNP_EXPORT_COUNT; f++) {
            char *t = export_text((dnp_export_format)f, g, &cl, &opt, p);
            if (t == NULL)
                continue;
            if (f == DNP_EXPORT_ASTRA) {
                CHECK(strstr(t, "busiest") == NULL);
            } else {
                for (const char *q = t; (q = strstr(q, "# embedding")) != NULL; q++) {
                    const char *nl = strchr(q, '\n');
                    CHECK(nl != NULL && strncmp(nl + 1, "        \"input\": ", 17) == 0);
                    const char *end = nl ? strchr(nl + 1, '\n') : NULL;
                    const char *note = nl ? strstr(nl + 1, "gradient") : NULL;
                    CHECK(note == NULL || (end != NULL && note > end));
                }
                char py[256];
                snprintf(py, sizeof py, "%s/%zu_%d.py", dir, i, f);
                CHECK_EQ_INT(dnp_write_file(py, t, strlen(t), &err), DNP_OK);
                n_py++;
            }
            dnp_free(t);
        }
        dnp_plan_free(p);
        dnp_graph_free(g);
    }
    /* One Python run parses them all (when python3 is on the machine). */
    char cmd[600];
    snprintf(cmd, sizeof cmd,
             "command -v python3 >/dev/null 2>&1 || exit 0; python3 -c \"import ast,glob,sys; "
             "[ast.parse(open(f).read()) for f in glob.glob(sys.argv[1] + '/*.py')]\" %s",
             dir);
    CHECK(n_py > 0);
    CHECK_EQ_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -f %s/*.py", dir);
    CHECK_EQ_INT(system(cmd), 0);
    rmdir(dir);
}

/* dnp_config3d_export_text (src/report/sharding3d.c): Megatron-LM's
 * tensor parallelism (Shoeybi et al. section 3) on ("data", "model"), by
 * hand for a two-layer GPT at tp 2, pp 2, dp 2 with sequence parallelism:
 * the qkv kernel (in, out) split on its output, the attention output's
 * on its input, heads split in the scores, the norm's output split over
 * the sequence, the vocabulary-parallel table; layer 1 on stage 1; DTensor's
 * nn.Linear weight (out, in) the other way round. */
TEST(report_config3d_sharding_by_hand)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_zoo_build("gpt(hidden=64,heads=4,layers=2,seq=16,vocab=128)", &g, &err),
                 DNP_OK);
    dnp_cluster cl;
    CHECK_EQ_INT(dnp_cluster_parse("8xa100", &cl, &err), DNP_OK);
    dnp_config3d cfg;
    CHECK_EQ_INT(dnp_config3d_parse("tp=2,pp=2,dp=2,microbatch=2,seq_par=1", &cfg, &err), DNP_OK);
    char *jax = NULL, *dt = NULL;
    CHECK_EQ_INT(dnp_config3d_export_text(DNP_EXPORT_JAX, g, &cl, 16, DNP_PREC_DEFAULT, &cfg,
                                          &jax, &err),
                 DNP_OK);
    CHECK_EQ_INT(dnp_config3d_export_text(DNP_EXPORT_DTENSOR, g, &cl, 16, DNP_PREC_DEFAULT, &cfg,
                                          &dt, &err),
                 DNP_OK);
    static const char *const want_jax[] = {
        "MESH_SHAPE = (2, 2)",
        "\"layer0.attn.qkv\": {  # fc, column-parallel: output features over model; stage 0\n"
        "        \"input\": P(\"data\", None, None),\n"
        "        \"weight\": P(None, \"model\"),\n"
        "        \"output\": P(\"data\", None, \"model\"),",
        "\"layer0.attn.out\": {  # fc, row-parallel: input features over model, output reduced; "
        "stage 0\n"
        "        \"input\": P(\"data\", None, \"model\"),\n"
        "        \"weight\": P(\"model\", None),\n"
        "        \"output\": P(\"data\", \"model\", None),",
        "\"layer0.attn.scores\": {  # matmul, heads over model; stage 0\n"
        "        \"output\": P(\"data\", \"model\", None, None),",
        "\"layer1.ln1\": {  # layernorm, sequence over model (sequence parallelism); stage 1\n"
        "        \"weight\": P(None),\n"
        "        \"output\": P(\"data\", \"model\", None),",
        "\"embed.tokens\": {  # embedding, vocabulary over model; stage 0\n"
        "        \"input\": P(\"data\", None),\n"
        "        \"weight\": P(\"model\", None),"};
    for (size_t i = 0; jax != NULL && i < sizeof want_jax / sizeof want_jax[0]; i++) {
        if (strstr(jax, want_jax[i]) == NULL)
            printf("  missing: %s\n", want_jax[i]);
        CHECK(strstr(jax, want_jax[i]) != NULL);
    }
    CHECK(dt != NULL && strstr(dt, "\"layer0.attn.qkv\": {  # fc, column-parallel: output "
                                   "features over model; stage 0\n"
                                   "        \"input\": (Shard(0), Replicate()),\n"
                                   "        \"weight\": (Replicate(), Shard(0)),") != NULL);
    /* a format a configuration does not export as */
    char *none = NULL;
    CHECK_EQ_INT(dnp_config3d_export_text(DNP_EXPORT_ASTRA, g, &cl, 16, DNP_PREC_DEFAULT, &cfg,
                                          &none, &err),
                 DNP_ERR_INPUT);
    dnp_free(jax);
    dnp_free(dt);
    dnp_graph_free(g);
}
