/* test_report_plot.c - pictures: the gnuplot scripts, real renders by
 * gnuplot (PNG and SVG), error paths, and DOT rendered by `dot -Tpng`. */
#include "report/report.h"
#include "test.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const schemes[4] = {"dp", "owt", "hypar", "acc'par"};
static const double step_s[4] = {0.12, 0.1, 0.08, 0.0123};
static const double speedup[4] = {1.0, 1.2, 1.5, 9.756};

/* A scratch directory, removed (with its files) by scratch_done. */
static void scratch_new(char *dir)
{
    strcpy(dir, "/tmp/dnnpar-plot-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
}

static int scratch_count(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (d == NULL)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void scratch_done(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

/* The whole file, NUL-terminated (caller frees); *n its size. */
static char *slurp(const char *path, long *n)
{
    FILE *f = fopen(path, "rb");
    *n = 0;
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = dnp_malloc((size_t)len + 1);
    if (s != NULL && fread(s, 1, (size_t)len, f) == (size_t)len) {
        s[len] = '\0';
        *n = len;
    } else {
        dnp_free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

/* A PNG of plausible size: the 8-byte signature and at least min bytes. */
static void check_png(const char *path, long min)
{
    long n;
    char *s = slurp(path, &n);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    CHECK(n >= min);
    CHECK(n >= 8 && memcmp(s, "\x89PNG\r\n\x1a\n", 8) == 0);
    dnp_free(s);
}

/* An SVG: an XML declaration or <svg> start, a closing </svg>, balanced
 * enough that every '<' has its '>'; returns the text (caller frees). */
static char *check_svg(const char *path)
{
    long n;
    char *s = slurp(path, &n);
    CHECK(s != NULL);
    if (s == NULL)
        return NULL;
    CHECK(strncmp(s, "<?xml", 5) == 0 || strncmp(s, "<svg", 4) == 0);
    CHECK(strstr(s, "<svg") != NULL);
    CHECK(strstr(s, "</svg>") != NULL);
    int open = 0, bad = 0;
    for (const char *q = s; *q; q++) {
        if (*q == '<')
            bad |= open++ != 0;
        else if (*q == '>')
            bad |= --open != 0;
    }
    CHECK(!bad && open == 0);
    return s;
}

static dnp_plan *hetero_plan(dnp_graph **g)
{
    dnp_error err = {0};
    dnp_cluster cl;
    *g = NULL;
    if (dnp_zoo_build("resnet18", g, &err) != DNP_OK ||
        dnp_cluster_parse("2xtpu-v2+2xtpu-v3", &cl, &err) != DNP_OK) {
        CHECK(0);
        return NULL;
    }
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 64, .levels = 0, .reference_mode = 0};
    dnp_plan *p = NULL;
    CHECK_EQ_INT(dnp_plan_run(*g, &cl, &opt, &p, &err), DNP_OK);
    return p;
}

TEST(report_compare_script_text)
{
    int w = 0, h = 0;
    char *a = report_compare_script("vgg19", "128xtpu-v2+128xtpu-v3", 4, schemes, step_s,
                                    speedup, NULL, &w, &h);
    char *b = report_compare_script("vgg19", "128xtpu-v2+128xtpu-v3", 4, schemes, step_s,
                                    speedup, NULL, &w, &h);
    CHECK(a != NULL && b != NULL);
    if (a != NULL && b != NULL) {
        CHECK_STR(a, b); /* deterministic */
        CHECK(strstr(a, "set xtics ('dp' 0, 'owt' 1, 'hypar' 2, 'acc''par' 3)") != NULL);
        CHECK(strstr(a, "\"9.76x\\n12.300 ms\"") != NULL);
        CHECK(strstr(a, "set terminal") == NULL && strstr(a, "set output") == NULL);
        CHECK(w >= 640 && h > 0);
    }
    dnp_free(a);
    dnp_free(b);
    /* a plan over the memory limit: grey, and says so under its figures */
    const int fits[4] = {1, 0, 1, 1};
    char *c = report_compare_script("vgg19", "c", 4, schemes, step_s, speedup, fits, &w, &h);
    CHECK(c != NULL);
    if (c != NULL) {
        CHECK(strstr(c, "\"1.20x\\n100.000 ms\\ndoes not fit\"") != NULL);
        CHECK(strstr(c, "with boxes fs transparent pattern 4") != NULL);
        CHECK(strstr(c, "\"9.76x\\n12.300 ms\"") != NULL);
        CHECK(strstr(c, "\n1 1.200000 15263976 0\n") != NULL); /* 0xe8e8e8 */
        CHECK(strstr(c, "\n0 1.000000 12234924 1\n") != NULL); /* dp keeps its colour */
    }
    dnp_free(c);
}

TEST(report_plot_compare_renders)
{
    char dir[64], path[128];
    scratch_new(dir);
    dnp_error err = {0};
    snprintf(path, sizeof path, "%s/cmp.png", dir);
    dnp_status st =
        report_plot_compare(path, "vgg19", "4xtpu-v3", 4, schemes, step_s, speedup, NULL, &err);
    if (st != DNP_OK)
        printf("  %s\n", err.msg);
    CHECK_EQ_INT(st, DNP_OK);
    check_png(path, 2000);
    snprintf(path, sizeof path, "%s/cmp.svg", dir);
    CHECK_EQ_INT(report_plot_compare(path, "vgg19", "4xtpu-v3", 4, schemes, step_s, speedup, NULL,
                                     &err),
                 DNP_OK);
    char *svg = check_svg(path);
    if (svg != NULL) {
        CHECK(strstr(svg, ">dp<") != NULL);
        CHECK(strstr(svg, ">owt<") != NULL);
        CHECK(strstr(svg, ">hypar<") != NULL);
        CHECK(strstr(svg, "acc'par") != NULL);
        CHECK(strstr(svg, "4xtpu-v3") != NULL);
    }
    dnp_free(svg);
    CHECK_EQ_INT(scratch_count(dir), 2); /* no temporary left */
    scratch_done(dir);
}

TEST(report_plot_errors)
{
    char dir[64], path[160];
    scratch_new(dir);
    dnp_error err = {0};
    /* Not .png/.svg: an input error, nothing written, gnuplot not run. */
    snprintf(path, sizeof path, "%s/cmp.pdf", dir);
    CHECK_EQ_INT(report_plot_compare(path, "m", "c", 4, schemes, step_s, speedup, NULL, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, ".png or .svg") != NULL);
    /* A directory that does not exist: an I/O error. */
    dnp_error_clear(&err);
    snprintf(path, sizeof path, "%s/no/such/cmp.png", dir);
    CHECK_EQ_INT(report_plot_compare(path, "m", "c", 4, schemes, step_s, speedup, NULL, &err),
                 DNP_ERR_IO);
    CHECK(strstr(err.msg, "no/such/cmp.png") != NULL);
    /* A script gnuplot rejects: its message, no partial file. */
    dnp_error_clear(&err);
    snprintf(path, sizeof path, "%s/bad.png", dir);
    CHECK_EQ_INT(report_gnuplot_render(path, "plot undefined_thing_xyz\n", 300, 200, &err),
                 DNP_ERR_IO);
    CHECK(strstr(err.msg, "gnuplot failed") != NULL);
    CHECK(strstr(err.msg, "undefined") != NULL);
    /* gnuplot missing from PATH. */
    const char *old = getenv("PATH");
    char *saved = old ? dnp_strdup(old) : NULL;
    setenv("PATH", "/nonexistent-dnnpar-dir", 1);
    dnp_error_clear(&err);
    snprintf(path, sizeof path, "%s/nognuplot.svg", dir);
    CHECK_EQ_INT(report_plot_compare(path, "m", "c", 4, schemes, step_s, speedup, NULL, &err),
                 DNP_ERR_IO);
    CHECK(strstr(err.msg, "gnuplot not found") != NULL);
    if (saved != NULL)
        setenv("PATH", saved, 1);
    else
        unsetenv("PATH");
    dnp_free(saved);
    CHECK_EQ_INT(scratch_count(dir), 0);
    scratch_done(dir);
}

TEST(report_plot_plan_renders)
{
    dnp_graph *g;
    dnp_plan *p = hetero_plan(&g);
    char dir[64], path[128];
    scratch_new(dir);
    if (p != NULL) {
        int w, h;
        char *s = report_plan_script(p, "resnet18", "2xtpu-v2+2xtpu-v3", "accpar", 64, &w, &h);
        CHECK(s != NULL);
        if (s != NULL) {
            /* Two distinct paths: two panels, the ratio of h0 labelled. */
            CHECK(strstr(s, "set multiplot layout 2,1") != NULL);
            CHECK(strstr(s, "$path2 << EOD") != NULL);
            char want[32];
            snprintf(want, sizeof want, "'h0  r=%.4f' 0", dnp_plan_ratio(p, 0, 0));
            CHECK(strstr(s, want) != NULL);
            /* the second path takes the second group: 1 - r of the work */
            char title[96];
            snprintf(title, sizeof title, "'path 2: takes 2xtpu-v3 at h0 (%.3g%% of the work)'",
                     100.0 * (1.0 - dnp_plan_ratio(p, 0, 0)));
            CHECK(strstr(s, title) != NULL);
        }
        dnp_free(s);
        dnp_error err = {0};
        snprintf(path, sizeof path, "%s/plan.png", dir);
        dnp_status st =
            report_plot_plan(path, p, "resnet18", "2xtpu-v2+2xtpu-v3", "accpar", 64, &err);
        if (st != DNP_OK)
            printf("  %s\n", err.msg);
        CHECK_EQ_INT(st, DNP_OK);
        check_png(path, 5000);
        snprintf(path, sizeof path, "%s/plan.svg", dir);
        CHECK_EQ_INT(report_plot_plan(path, p, "resnet18", "2xtpu-v2+2xtpu-v3", "accpar", 64, &err),
                     DNP_OK);
        char *svg = check_svg(path);
        if (svg != NULL) {
            CHECK(strstr(svg, "layer4.1.conv2") != NULL);
            CHECK(strstr(svg, "path 2") != NULL);
        }
        dnp_free(svg);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
    scratch_done(dir);
}

TEST(report_plot_plan_single_device)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_zoo_build("lenet", &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("1xtpu-v3", &cl, &err), DNP_OK);
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 8, .levels = 0, .reference_mode = 0};
    dnp_plan *p = NULL;
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_OK);
    char dir[64], path[128];
    scratch_new(dir);
    snprintf(path, sizeof path, "%s/one.svg", dir);
    if (p != NULL) {
        CHECK_EQ_INT(report_plot_plan(path, p, "lenet", "1xtpu-v3", "accpar", 8, &err), DNP_OK);
        char *svg = check_svg(path);
        if (svg != NULL)
            CHECK(strstr(svg, "a single device") != NULL);
        dnp_free(svg);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
    scratch_done(dir);
}

/* Render a DOT file with Graphviz; returns dot's exit status. */
static int render_dot(const char *dot_path, const char *png_path)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "dot -Tpng '%s' -o '%s' 2>/dev/null", dot_path, png_path);
    return system(cmd);
}

TEST(report_dot_renders)
{
    char dir[64], path[128], png[128];
    scratch_new(dir);
    dnp_error err = {0};
    dnp_graph *g;
    dnp_plan *p = hetero_plan(&g);
    if (p != NULL) {
        snprintf(path, sizeof path, "%s/plan.dot", dir);
        snprintf(png, sizeof png, "%s/plan.png", dir);
        CHECK_EQ_INT(report_dot_write(path, g, p, 0, 0, &err), DNP_OK);
        CHECK_EQ_INT(render_dot(path, png), 0);
        check_png(png, 10000);
        long n;
        char *s = slurp(path, &n);
        if (s != NULL) {
            /* Every op a node except the point-wise ops folded into their
             * producer (one input, shape-preserving, unplanned, the
             * producer feeding nothing else: docs/reports.md); every
             * input an edge except the one into a folded op; a legend. */
            CHECK(strstr(s, "cluster_legend") != NULL);
            CHECK(strstr(s, "label=\"conv1\\nconv + batchnorm + relu\\n64x112x112\\nI I\"") !=
                  NULL);
            int nodes = 0, edges = 0, want_edges = 0, folded = 0;
            int n_ops = dnp_graph_n_ops(g);
            for (int i = 0; i < n_ops; i++) {
                const dnp_op *op = dnp_graph_op(g, i);
                want_edges += op->n_inputs;
                int planned = 0;
                for (int v = 0; v < dnp_plan_n_nodes(p); v++)
                    planned |= strcmp(dnp_plan_node_name(p, v), op->name) == 0;
                int pointwise = op->kind == DNP_OP_RELU || op->kind == DNP_OP_BATCHNORM ||
                                op->kind == DNP_OP_DROPOUT;
                if (op->n_inputs != 1 || planned || !pointwise ||
                    dnp_graph_op(g, op->inputs[0])->kind == DNP_OP_INPUT)
                    continue;
                int consumers = 0;
                for (int j = 0; j < n_ops; j++)
                    for (int k = 0; k < dnp_graph_op(g, j)->n_inputs; k++)
                        consumers += dnp_graph_op(g, j)->inputs[k] == op->inputs[0];
                folded += consumers == 1;
            }
            /* resnet18: per basic block (8) the bn and relu after conv1, the
             * bn after conv2 and the relu after the add fold, plus the stem's
             * bn and relu and the bn of each of the 3 downsample convs */
            CHECK_EQ_INT(folded, 4 * 8 + 2 + 3);
            char *save = NULL;
            for (char *line = strtok_r(s, "\n", &save); line != NULL;
                 line = strtok_r(NULL, "\n", &save)) {
                if (strncmp(line, "  n", 3) != 0 || line[3] < '0' || line[3] > '9')
                    continue;
                if (strstr(line, " -> n") != NULL)
                    edges++;
                else
                    nodes++;
            }
            CHECK_EQ_INT(nodes, n_ops - folded);
            CHECK_EQ_INT(edges, want_edges - folded);
        }
        dnp_free(s);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
    /* A model with hostile names and no plan. */
    g = dnp_graph_new("q\"uote\\d");
    int x = dnp_graph_input(g, "in:0", 3, 8, 8);
    x = dnp_graph_conv(g, "/a/Conv \"x\"\\", x, 4, 3, 1, 1, 1, 1);
    int r = dnp_graph_unary(g, "nl\nname", DNP_OP_RELU, x);
    dnp_graph_fc(g, "bad\xff utf8", r, 10, 1);
    dnp_graph_fc(g, "second reader", x, 10, 1); /* keeps the ReLU its own node */
    snprintf(path, sizeof path, "%s/odd.dot", dir);
    snprintf(png, sizeof png, "%s/odd.png", dir);
    CHECK_EQ_INT(report_dot_write(path, g, NULL, 0, 0, &err), DNP_OK);
    CHECK_EQ_INT(render_dot(path, png), 0);
    check_png(png, 1000);
    long n;
    char *s = slurp(path, &n);
    if (s != NULL) {
        CHECK(strstr(s, "label=\"/a/Conv \\\"x\\\"\\\\\\nconv\\n4x8x8\"") != NULL);
        CHECK(strstr(s, "nl?name") != NULL);
        CHECK(strstr(s, "bad? utf8") != NULL);
        CHECK(strstr(s, "cluster_legend") == NULL);
    }
    dnp_free(s);
    dnp_graph_free(g);
    scratch_done(dir);
}

TEST(report_plot_plan_many_paths)
{
    /* 10 + 10 devices: the halves differ at h0, then 5 devices split 2 | 3
     * and 3 split 1 | 2, so there are 6 distinct paths; 4 are drawn. */
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_zoo_build("lenet", &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("10xtpu-v2+10xtpu-v3", &cl, &err), DNP_OK);
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 64, .levels = 0, .reference_mode = 0};
    dnp_plan *p = NULL;
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_OK);
    if (p != NULL) {
        unsigned bits[REPORT_MAX_PATHS];
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        int np = report_plan_paths(p, s.levels, bits, REPORT_MAX_PATHS);
        int w, h;
        char *script = report_plan_script(p, "lenet", "10xtpu-v2+10xtpu-v3", "accpar", 64, &w, &h);
        CHECK(script != NULL);
        if (script != NULL && np > REPORT_PLOT_MAX_PANELS) {
            char want[64];
            snprintf(want, sizeof want, "'%d more distinct paths not drawn",
                     np - REPORT_PLOT_MAX_PANELS);
            CHECK(strstr(script, want) != NULL);
            CHECK(strstr(script, "set multiplot layout 4,1") != NULL);
            CHECK(strstr(script, "$path5") == NULL);
        } else {
            printf("  %d paths: the note is not exercised\n", np);
            CHECK(np > REPORT_PLOT_MAX_PANELS);
        }
        dnp_free(script);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* Width and height in pixels of a PNG (its IHDR chunk); 0 if unreadable. */
static void png_size(const char *path, long *w, long *h)
{
    long n;
    unsigned char *s = (unsigned char *)slurp(path, &n);
    *w = *h = 0;
    if (s != NULL && n >= 24) {
        *w = (long)s[16] << 24 | (long)s[17] << 16 | (long)s[18] << 8 | s[19];
        *h = (long)s[20] << 24 | (long)s[21] << 16 | (long)s[22] << 8 | s[23];
    }
    dnp_free(s);
}

/* Deep models are drawn in columns of at most 24 ranks (docs/reports.md,
 * "DOT"; issue 15: bert-base was 877 x 12,863 px).  The DOT text's node
 * ranks (its "{ rank=same; aC_R; nI; }" lines) are checked against ranks
 * computed here independently, by relaxing longest paths over the drawn
 * edges until nothing changes: every node on its rank, every column at
 * most 24 ranks and all of equal height, edges inside a column going
 * down, edges between columns not constraining the layout; the render is
 * wider than tall.  A model of at most 24 ranks has no columns. */
TEST(report_dot_columns)
{
    dnp_error err = {0};
    dnp_graph *g = NULL;
    CHECK_EQ_INT(dnp_model_load("bert-base", &g, &err), DNP_OK);
    if (g == NULL)
        return;
    char *s = report_dot_text(g, NULL, 0, 0);
    CHECK(s != NULL);
    int n_ops = dnp_graph_n_ops(g);
    int *want = dnp_calloc((size_t)n_ops, sizeof *want);
    int *got = dnp_calloc((size_t)n_ops, sizeof *got);
    int *col = dnp_calloc((size_t)n_ops, sizeof *col);
    int *drawn = dnp_calloc((size_t)n_ops, sizeof *drawn);
    int *from = dnp_calloc((size_t)n_ops * 4, sizeof *from);
    int *to = dnp_calloc((size_t)n_ops * 4, sizeof *to);
    int *free_edge = dnp_calloc((size_t)n_ops * 4, sizeof *free_edge);
    if (s == NULL || want == NULL || got == NULL || col == NULL || drawn == NULL ||
        from == NULL || to == NULL || free_edge == NULL)
        goto done;
    int n_edges = 0, max_col = 0, placed = 0, n_drawn = 0;
    char *save = NULL;
    for (char *line = strtok_r(s, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        int a, b, c, r;
        if (sscanf(line, "  n%d -> n%d", &a, &b) == 2 && a >= 0 && a < n_ops && b >= 0 &&
            b < n_ops && n_edges < 4 * n_ops) {
            from[n_edges] = a;
            to[n_edges] = b;
            free_edge[n_edges++] = strstr(line, "constraint=false") != NULL;
        } else if (sscanf(line, "  n%d [label=", &a) == 1 && a >= 0 && a < n_ops) {
            drawn[a] = 1;
            n_drawn++;
        } else if (sscanf(line, "  { rank=same; a%d_%d; n%d; }", &c, &r, &a) == 3 && a >= 0 &&
                   a < n_ops) {
            got[a] = r;
            col[a] = c;
            max_col = c > max_col ? c : max_col;
            placed++;
        }
    }
    /* independent ranks: longest paths by relaxation to a fixed point */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int e = 0; e < n_edges; e++)
            if (want[to[e]] < want[from[e]] + 1) {
                want[to[e]] = want[from[e]] + 1;
                changed = 1;
            }
    }
    int n_ranks = 0;
    for (int i = 0; i < n_ops; i++)
        if (drawn[i] && want[i] + 1 > n_ranks)
            n_ranks = want[i] + 1;
    int n_cols = (n_ranks + 23) / 24, per_col = (n_ranks + n_cols - 1) / n_cols;
    CHECK(n_ranks > 100); /* 12 encoder layers: a deep drawing */
    CHECK_EQ_INT(placed, n_drawn);
    CHECK_EQ_INT(max_col + 1, n_cols);
    CHECK(per_col <= 24);
    int bad_rank = 0, bad_col = 0, bad_edge = 0;
    for (int i = 0; i < n_ops; i++)
        if (drawn[i]) {
            bad_rank += got[i] != want[i];
            bad_col += col[i] != want[i] / per_col;
        }
    for (int e = 0; e < n_edges; e++) {
        int same = col[from[e]] == col[to[e]];
        bad_edge += same ? free_edge[e] || got[to[e]] <= got[from[e]] : !free_edge[e];
    }
    CHECK_EQ_INT(bad_rank, 0);
    CHECK_EQ_INT(bad_col, 0);
    CHECK_EQ_INT(bad_edge, 0);
    /* rendered: columns side by side, not one tall column */
    char dir[64], path[128], png[128];
    scratch_new(dir);
    snprintf(path, sizeof path, "%s/bert.dot", dir);
    snprintf(png, sizeof png, "%s/bert.png", dir);
    CHECK_EQ_INT(report_dot_write(path, g, NULL, 0, 0, &err), DNP_OK);
    CHECK_EQ_INT(render_dot(path, png), 0);
    long w, h;
    png_size(png, &w, &h);
    CHECK(h > 0 && h < 3000 && w > h);
    /* LeNet: 12 ranks, one column, no scaffold */
    dnp_graph *lenet = NULL;
    CHECK_EQ_INT(dnp_model_load("lenet", &lenet, &err), DNP_OK);
    char *t = lenet != NULL ? report_dot_text(lenet, NULL, 0, 0) : NULL;
    CHECK(t != NULL && strstr(t, "rank=same") == NULL && strstr(t, "constraint=false") == NULL);
    dnp_free(t);
    dnp_graph_free(lenet);
    scratch_done(dir);
done:
    dnp_free(want);
    dnp_free(got);
    dnp_free(col);
    dnp_free(drawn);
    dnp_free(from);
    dnp_free(to);
    dnp_free(free_edge);
    dnp_free(s);
    dnp_graph_free(g);
}

/* Pictures read at a glance (issue 15, "Pictures"; each looked at as PNG):
 * the plan map's legend names what the types mean, its cells are wide
 * enough for "III" in their 9-point letters; the scaling plot's key sits
 * below the axes (inside, the efficiency line ran through it) and its
 * throughput ticks carry an SI prefix; the DOT legend is one compact table
 * of the six states, two a row, in the node labels' 10-point font, and the
 * long title line of a heterogeneous plan is broken. */
TEST(report_pictures_legible)
{
    dnp_graph *g;
    dnp_plan *p = hetero_plan(&g);
    if (p != NULL) {
        int w = 0, h = 0;
        char *s = report_plan_script(p, "resnet18", "2xtpu-v2+2xtpu-v3", "accpar", 64, &w, &h);
        CHECK(s != NULL);
        if (s != NULL) {
            CHECK(strstr(s, "set cbtics ('I: batch' 0, 'II: input dim' 1, 'III: output dim' 2, "
                            "'B: join, batch' 3, 'C: join, channel' 4, 'R: replicated' 5)") !=
                  NULL);
            CHECK(strstr(s, "with labels font ',9'") != NULL);
            int want = 320 + REPORT_PLAN_CELL_PX * dnp_plan_n_nodes(p);
            CHECK_EQ_INT(w, want < 880 ? 880 : want);
            CHECK_EQ_INT(REPORT_PLAN_CELL_PX, 18);
        }
        dnp_free(s);
        char *d = report_dot_text(g, p, 0, 0);
        CHECK(d != NULL);
        if (d != NULL) {
            CHECK(strstr(d, "  subgraph cluster_legend {\n    label=\"type at level h0 (fill)\";\n"
                            "    fontsize=10;\n") != NULL);
            CHECK(strstr(d, "    legend [shape=plain, style=\"\", fontsize=10, label=<<TABLE ") !=
                  NULL);
            CHECK(strstr(d, "<TR><TD BGCOLOR=\"#4e79a7\" ALIGN=\"LEFT\"><FONT COLOR=\"white\">"
                            "I: batch split</FONT></TD><TD BGCOLOR=\"#f28e2b\" ALIGN=\"LEFT\">"
                            "<FONT COLOR=\"black\">II: input dim split</FONT></TD></TR>") != NULL);
            CHECK(strstr(d, ">R: replicated, not split</FONT></TD></TR></TABLE>>];") != NULL);
            int rows = 0;
            for (const char *q = d; (q = strstr(q, "<TR>")) != NULL; q++)
                rows++;
            CHECK_EQ_INT(rows, 3);
            CHECK(strstr(d, "node [shape=box, style=\"rounded,filled\", fillcolor=\"white\", "
                            "fontname=\"Helvetica\", fontsize=10];") != NULL);
            CHECK(strstr(d, "+ \"\\n(the halves of a heterogeneous level decide differently") !=
                  NULL);
        }
        dnp_free(d);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
    const double dev[3] = {8, 16, 32}, thr[3] = {6.5e4, 1.3e5, 2.6e5}, eff[3] = {1, 0.99, 0.98};
    char *sc = report_scale_script("resnet18", "dgx-a100", 3, dev, thr, eff);
    CHECK(sc != NULL);
    if (sc != NULL) {
        CHECK(strstr(sc, "set key outside below center horizontal\nset bmargin 6\n") != NULL);
        CHECK(strstr(sc, "set key left top") == NULL);
        CHECK(strstr(sc, "set format y '%.0s%c'\n") != NULL);
        CHECK(strstr(sc, "title 'throughput'") != NULL);
        CHECK(strstr(sc, "title 'scaling efficiency'") != NULL);
        /* the ideal column: 65,000 x 32 / 8 */
        CHECK(strstr(sc, "\n32 260000 98 260000\nEOD\n") != NULL);
        CHECK(strstr(sc, "\n16 130000 99 130000\n") != NULL);
        CHECK(strstr(sc, "title 'linear from the smallest size'") != NULL);
    }
    dnp_free(sc);
}

/* The timeline of a hand-made trace: two stages' compute threads, one send
 * and one all-reduce, times in microseconds.  Rows sorted by (process,
 * thread), labelled by the process name up to ':' and the thread's; boxes
 * centred at (start + end) / 2 with half their length, in milliseconds
 * (the step ends at 2,500 us); the legend lists only the kinds present. */
TEST(report_timeline_script_by_hand)
{
    const char *trace =
        "{\"displayTimeUnit\":\"ms\",\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"tid\":0,"
        "\"args\":{\"name\":\"stage 2: 6 layers\"}},"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,"
        "\"args\":{\"name\":\"stage 1: 6 layers\"}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"compute\"}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"sends\"}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2,\"tid\":1,\"args\":{\"name\":\"compute\"}},"
        "{\"ph\":\"X\",\"name\":\"micro-batch 1 forward, layers 7-12\",\"cat\":\"compute\","
        "\"pid\":2,\"tid\":1,\"ts\":1000.000,\"dur\":500.000},"
        "{\"ph\":\"X\",\"name\":\"micro-batch 1 forward, layers 1-6\",\"cat\":\"compute\","
        "\"pid\":1,\"tid\":1,\"ts\":0.000,\"dur\":1000.000},"
        "{\"ph\":\"X\",\"name\":\"micro-batch 1 activations\",\"cat\":\"comm\","
        "\"pid\":1,\"tid\":2,\"ts\":1000.000,\"dur\":10.000},"
        "{\"ph\":\"X\",\"name\":\"gradient all-reduce\",\"cat\":\"comm\","
        "\"pid\":2,\"tid\":1,\"ts\":2000.000,\"dur\":500.000}]}";
    int w = 0, h = 0;
    char why[200];
    char *s = report_timeline_script(trace, "t'itle", &w, &h, why, sizeof why);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    CHECK_EQ_INT(w, 1200);
    CHECK_EQ_INT(h, 140 + 24 * 3);
    CHECK(strstr(s, "set title 't''itle'") != NULL);
    CHECK(strstr(s, "set xlabel 'time (ms)'") != NULL);
    CHECK(strstr(s, "set yrange [2.5:-0.5]") != NULL);
    CHECK(strstr(s, "('stage 1, compute' 0, 'stage 1, sends' 1, 'stage 2, compute' 2)") != NULL);
    /* forward on stage 1: 0-1 ms; the send 1-1.01 ms; stage 2's forward
     * 1-1.5 ms and all-reduce 2-2.5 ms */
    CHECK(strstr(s, "0.5 0 0.5 0.38 5142951\n") != NULL);
    CHECK(strstr(s, "1.005 1 0.005 0.38 12234924\n") != NULL);
    CHECK(strstr(s, "1.25 2 0.25 0.38 5142951\n") != NULL);
    CHECK(strstr(s, "2.25 2 0.25 0.38 5873999\n") != NULL);
    CHECK(strstr(s, "title 'forward'") != NULL && strstr(s, "title 'backward'") == NULL);
    CHECK(strstr(s, "title 'pipeline send'") != NULL);
    CHECK(strstr(s, "title 'gradient all-reduce'") != NULL);
    dnp_free(s);
    /* not a trace */
    CHECK(report_timeline_script("{\"x\":1}", "", &w, &h, why, sizeof why) == NULL);
    CHECK(strstr(why, "not a Chrome trace") != NULL);
    CHECK(report_timeline_script("", "", &w, &h, why, sizeof why) == NULL);
    CHECK(why[0] != '\0');
}

/* DOT edges carry the bytes per step of the tensor they move: LeNet's
 * input 1x28x28 at batch 64 in fp32 is 784 x 64 x 4 = 200,704 B ("201
 * kB"), conv1's 6x28x28 output 1,204,224 B ("1.2 MB"), fc3's 10 outputs
 * 2,560 B ("2.56 kB"); at batch 1, 3,136 B ("3.14 kB") and fc3's 40 B.
 * A .svg or .png name gets Graphviz's picture, not the text. */
TEST(report_dot_edge_bytes)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load("lenet", &g, &err), DNP_OK);
    if (g == NULL)
        return;
    char *t = report_dot_text(g, NULL, 64, 4);
    CHECK(t != NULL);
    if (t != NULL) {
        CHECK(strstr(t, "n0 -> n1 [label=\"1x28x28\\n201 kB\"]") != NULL);
        CHECK(strstr(t, "n1 -> n3 [label=\"6x28x28\\n1.2 MB\"]") != NULL);
        CHECK(strstr(t, "n12 -> n13 [label=\"10\\n2.56 kB\"]") != NULL);
        CHECK(strstr(t, "bytes per step at batch 64\"\n             + \"\\n(4-byte elements") !=
              NULL);
    }
    dnp_free(t);
    t = report_dot_text(g, NULL, 0, 0); /* no plan: batch 1, 4 bytes */
    CHECK(t != NULL && strstr(t, "[label=\"1x28x28\\n3.14 kB\"]") != NULL);
    CHECK(t != NULL && strstr(t, "[label=\"10\\n40 B\"]") != NULL);
    dnp_free(t);
    char dir[64], path[128];
    scratch_new(dir);
    snprintf(path, sizeof path, "%s/g.svg", dir);
    CHECK_EQ_INT(report_dot_write(path, g, NULL, 8, 2, &err), DNP_OK);
    FILE *f = fopen(path, "r");
    char head[64] = "";
    CHECK(f != NULL);
    if (f != NULL) {
        size_t n = fread(head, 1, sizeof head - 1, f);
        head[n] = '\0';
        fclose(f);
    }
    CHECK(strstr(head, "<?xml") != NULL || strstr(head, "<svg") != NULL);
    remove(path);
    scratch_done(dir);
    dnp_graph_free(g);
}

/* The timeline's flows and memory panel, by hand: stage 1's forward 0-1 ms
 * and its send 1-1.01 ms, stage 2's forward from 1.1 ms; flow 7 starts in
 * the send and ends in stage 2's forward, so its arrow runs from the
 * send's end (1.01 ms, row 1) to the forward's start (1.1 ms, row 2).
 * Counters: stage 1's a100 1 GB at 0 and 2 GB at 1 ms, stage 2's v100
 * 0.5 GB at 1.01 ms, one step line each in GB below the rows. */
TEST(report_timeline_flows_memory_by_hand)
{
    const char *trace =
        "{\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,"
        "\"args\":{\"name\":\"stage 1: 6 layers\"}},"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"tid\":0,"
        "\"args\":{\"name\":\"stage 2: 6 layers\"}},"
        "{\"ph\":\"X\",\"name\":\"micro-batch 1 forward, layers 1-6\",\"cat\":\"compute\","
        "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},"
        "{\"ph\":\"X\",\"name\":\"micro-batch 1 activations\",\"cat\":\"comm\","
        "\"pid\":1,\"tid\":2,\"ts\":1000,\"dur\":10},"
        "{\"ph\":\"X\",\"name\":\"micro-batch 1 forward, layers 7-12\",\"cat\":\"compute\","
        "\"pid\":2,\"tid\":1,\"ts\":1100,\"dur\":400},"
        "{\"ph\":\"X\",\"name\":\"micro-batch 1 tensor-parallel fwd\",\"cat\":\"comm\","
        "\"pid\":2,\"tid\":5,\"ts\":1500,\"dur\":100},"
        "{\"ph\":\"f\",\"bp\":\"e\",\"id\":7,\"name\":\"m\",\"cat\":\"pipeline\","
        "\"pid\":2,\"tid\":1,\"ts\":1300},"
        "{\"ph\":\"s\",\"id\":7,\"name\":\"m\",\"cat\":\"pipeline\",\"pid\":1,\"tid\":2,"
        "\"ts\":1005},"
        "{\"ph\":\"C\",\"name\":\"memory\",\"pid\":1,\"ts\":0,\"args\":{\"a100\":1e9}},"
        "{\"ph\":\"C\",\"name\":\"memory\",\"pid\":1,\"ts\":1000,\"args\":{\"a100\":2e9}},"
        "{\"ph\":\"C\",\"name\":\"memory\",\"pid\":2,\"ts\":1010,\"args\":{\"v100\":5e8}}]}";
    int w = 0, h = 0;
    char why[200];
    char *s = report_timeline_script(trace, "t", &w, &h, why, sizeof why);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    /* rows: (1,1), (1,2), (2,1), (2,5); the memory panel 240 px */
    CHECK_EQ_INT(h, 140 + 24 * 4 + 240);
    CHECK(strstr(s, "set multiplot\n") != NULL && strstr(s, "unset multiplot\n") != NULL);
    CHECK(strstr(s, "$flows << EOD\n1.01 1 0.09 1\nEOD\n") != NULL);
    CHECK(strstr(s, "title 'pipeline message'") != NULL);
    CHECK(strstr(s, "title 'tensor-parallel collectives'") != NULL);
    CHECK(strstr(s, "1.55 3 0.05 0.38 14767961\n") != NULL); /* #e15759 */
    CHECK(strstr(s, "$mem0 << EOD\n0 1\n1 2\nEOD\n") != NULL);
    CHECK(strstr(s, "$mem1 << EOD\n1.01 0.5\nEOD\n") != NULL);
    CHECK(strstr(s, "title 'stage 1, a100'") != NULL);
    CHECK(strstr(s, "title 'stage 2, v100'") != NULL);
    CHECK(strstr(s, "set ylabel 'memory per device (GB)'") != NULL);
    dnp_free(s);
}
