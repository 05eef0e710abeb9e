/* plot.c - gnuplot scripts for `compare --plot` (speedup bars) and
 * `plan --plot` (a map of layers x levels coloured by partition type).
 *
 * The scripts carry their data inline (datablocks) and name every label
 * through quoted strings, so gnuplot reads nothing else; text from the
 * model (op names) is quoted with rbuf_put_escaped and the terminal is
 * `noenhanced`, so no character in a name is markup.  Nothing in a script
 * depends on the time or the machine. */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fill colours: Types I, II, III, then the join layouts B, C, R in a
 * lighter palette.  Shared with dot.c through docs/reports.md. */
static const char *const state_colors[6] = {"#4e79a7", "#f28e2b", "#e15759",
                                            "#a0cbe8", "#ffbe7d", "#d4d4d4"};
static const unsigned scheme_colors[6] = {0xbab0ac, 0xedc948, 0x59a14f,
                                          0x4e79a7, 0xb07aa1, 0x76b7b2};
/* a bar whose plan does not fit in memory: light grey whatever its scheme */
#define OVER_MEMORY_RGB 0xe8e8e8u

/* Time with a unit, as the text reports print it. */
static void fmt_time(double s, char *buf, size_t n)
{
    if (s >= 1.0)
        snprintf(buf, n, "%.3f s", s);
    else if (s >= 1e-3)
        snprintf(buf, n, "%.3f ms", s * 1e3);
    else
        snprintf(buf, n, "%.3f us", s * 1e6);
}

/* A gnuplot single-quoted string. */
static void put_sq(rbuf *b, const char *s)
{
    rbuf_puts(b, "'");
    rbuf_put_escaped(b, s, ESC_GNUPLOT);
    rbuf_puts(b, "'");
}

char *report_compare_script(const char *model, const char *cluster, int n, const char *const *names,
                            const double *step_time_s, const double *speedup, const int *fits,
                            int *width_px, int *height_px)
{
    rbuf b;
    rbuf_init(&b);
    double ymax = 0.0;
    for (int i = 0; i < n; i++)
        if (isfinite(speedup[i]) && speedup[i] > ymax)
            ymax = speedup[i];
    if (ymax <= 0.0)
        ymax = 1.0;
    *width_px = 160 + 110 * n < 640 ? 640 : 160 + 110 * n;
    *height_px = 480;

    rbuf_puts(&b, "set title ");
    put_sq(&b, "Speedup per scheme: ");
    rbuf_puts(&b, " . ");
    put_sq(&b, model);
    rbuf_puts(&b, " . ");
    put_sq(&b, " on ");
    rbuf_puts(&b, " . ");
    put_sq(&b, cluster);
    rbuf_puts(&b, "\n");
    rbuf_puts(&b, "set ylabel 'speedup over ");
    rbuf_put_escaped(&b, names[0], ESC_GNUPLOT);
    rbuf_puts(&b, " (step time ratio)'\n");
    rbuf_puts(&b, "set style fill solid 0.9 border rgb 'black'\n"
                  "set boxwidth 0.6\n"
                  "set grid ytics\n"
                  "set key off\n"
                  "set tics nomirror\n");
    rbuf_printf(&b, "set xrange [-0.6:%.1f]\n", n - 0.4);
    rbuf_printf(&b, "set yrange [0:%.6g]\n", ymax * 1.3);
    rbuf_puts(&b, "set xtics (");
    for (int i = 0; i < n; i++) {
        rbuf_puts(&b, i ? ", " : "");
        put_sq(&b, names[i]);
        rbuf_printf(&b, " %d", i);
    }
    rbuf_puts(&b, ")\n");
    /* Bar labels: speedup and step time, numbers only (no names). */
    rbuf_printf(&b, "array L[%d] = [", n);
    for (int i = 0; i < n; i++) {
        char t[32];
        fmt_time(step_time_s[i], t, sizeof t);
        rbuf_printf(&b, "%s\"%.2fx\\n%s%s\"", i ? ", " : "",
                    isfinite(speedup[i]) ? speedup[i] : 0.0, t,
                    fits != NULL && !fits[i] ? "\\ndoes not fit" : "");
    }
    rbuf_puts(&b, "]\n$bars << EOD\n");
    for (int i = 0; i < n; i++)
        rbuf_printf(&b, "%d %.6f %u %d\n", i, isfinite(speedup[i]) ? speedup[i] : 0.0,
                    fits != NULL && !fits[i] ? OVER_MEMORY_RGB : scheme_colors[i % 6],
                    fits == NULL || fits[i]);
    rbuf_puts(&b, "EOD\n"
                  "plot $bars using 1:2:3 with boxes lc rgb variable, \\\n"
                  /* the plans over memory also hatched, so that the bar reads
                   * as infeasible in print and to colour-blind readers */
                  "     $bars using 1:(int($4) ? NaN : $2) with boxes fs transparent pattern 4 "
                  "lc rgb '#888888' notitle, \\\n"
                  /* two-line labels of plans that fit, three-line ones above
                   * the plans over memory (column 4 says which) */
                  "     $bars using 1:(int($4) ? $2 : NaN):(L[int($1)+1]) with labels center "
                  "offset 0,1.6, \\\n"
                  "     $bars using 1:(int($4) ? NaN : $2):(L[int($1)+1]) with labels center "
                  "offset 0,2.8\n");
    return rbuf_take(&b);
}

/* The text of one side of the groups split at `level` on path `bits`. */
static void group_side(const dnp_plan *p, int level, unsigned bits, int side, char *buf, size_t n)
{
    char text[600];
    dnp_plan_level_groups(p, level, bits, text, sizeof text);
    const char *bar = strstr(text, " | ");
    if (bar == NULL) {
        snprintf(buf, n, "%s", text);
        return;
    }
    if (side == 0)
        snprintf(buf, n, "%.*s", (int)(bar - text), text);
    else
        snprintf(buf, n, "%s", bar + 3);
}

/* Title of one panel: the groups a path takes where the halves differ. */
static void panel_title(rbuf *b, const dnp_plan *p, int levels, unsigned bits, int index)
{
    rbuf_printf(b, "path %d", index + 1);
    int any = 0;
    for (int k = 0; k < levels; k++) {
        if (dnp_plan_level_identical(p, k, bits))
            continue;
        char side[600];
        group_side(p, k, bits, (bits >> k) & 1u, side, sizeof side);
        /* the share of the work this side takes there: ratio r is the
         * first group's (dnp_plan_ratio) */
        double r = dnp_plan_ratio(p, k, bits);
        double share = ((bits >> k) & 1u) ? 1.0 - r : r;
        rbuf_printf(b, "%s%s at h%d (%.3g%% of the work)", any ? ", " : ": takes ", side, k,
                    100.0 * share);
        any = 1;
    }
    if (!any)
        rbuf_puts(b, ": identical halves at every level");
}

/* The picture's title as a gnuplot string expression: "MODEL, batch B,
 * CLUSTER, search S" (batch left out when 0). */
static void put_plan_title(rbuf *b, const char *model, const char *cluster, const char *scheme,
                           int64_t batch)
{
    put_sq(b, model);
    if (batch > 0)
        rbuf_printf(b, " . ', batch %lld'", (long long)batch);
    rbuf_puts(b, " . ', ' . ");
    put_sq(b, cluster);
    rbuf_puts(b, " . ', search ' . ");
    put_sq(b, scheme);
}

/* The script for a plan without levels (a single device). */
static char *empty_plan_script(rbuf *b, int *width_px, int *height_px)
{
    *width_px = 640;
    *height_px = 240;
    rbuf_puts(b, "unset border\nunset tics\nunset key\n"
                 "set label 1 'a single device: no level splits anything' at graph 0.5,0.5 "
                 "center\n"
                 "plot [0:1] [0:1] NaN notitle\n");
    return rbuf_take(b);
}

char *report_plan_script(const dnp_plan *p, const char *model, const char *cluster,
                         const char *scheme, int64_t batch, int *width_px, int *height_px)
{
    rbuf b;
    rbuf_init(&b);
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    int L = s.levels > REPORT_MAX_DEPTH ? REPORT_MAX_DEPTH : s.levels;
    int V = dnp_plan_n_nodes(p);
    rbuf_puts(&b, "set title ");
    put_plan_title(&b, model, cluster, scheme, batch);
    rbuf_puts(&b, "\n");
    if (L <= 0 || V <= 0)
        return empty_plan_script(&b, width_px, height_px);

    unsigned paths[REPORT_MAX_PATHS];
    int np = report_plan_paths(p, L, paths, REPORT_MAX_PATHS);
    int panels = np > REPORT_PLOT_MAX_PANELS ? REPORT_PLOT_MAX_PANELS : np;
    size_t longest = 0;
    for (int v = 0; v < V; v++) {
        size_t len = strlen(dnp_plan_node_name(p, v));
        longest = len > longest ? len : longest;
    }
    if (longest > 40)
        longest = 40;
    int label_px = 12 + 6 * (int)longest;
    int rows_px = 34 * L < 150 ? 150 : 34 * L; /* room for the six colour-box labels */
    int panel_px = 60 + rows_px + label_px;
    int w = 320 + REPORT_PLAN_CELL_PX * V;
    *width_px = w < 880 ? 880 : (w > 12000 ? 12000 : w);
    *height_px = 70 + panels * panel_px + (np > panels ? 16 : 0);

    /* One datablock per panel: x (node), y (level), state code 0..5. */
    for (int i = 0; i < panels; i++) {
        rbuf_printf(&b, "$path%d << EOD\n", i + 1);
        for (int k = 0; k < L; k++)
            for (int v = 0; v < V; v++) {
                int t = dnp_plan_type(p, k, paths[i], v);
                int wt = dnp_plan_node_weighted(p, v);
                /* a layer of type R shares the replicated join's code */
                int code = t < 0 || (wt && t == DNP_TYPE_R) ? 5 : (wt ? t : 3 + t);
                rbuf_printf(&b, "%d %d %d\n", v, k, code);
            }
        rbuf_puts(&b, "EOD\n");
    }
    rbuf_puts(&b, "array T[6] = [\"I\", \"II\", \"III\", \"B\", \"C\", \"R\"]\n");
    rbuf_puts(&b, "set palette defined (");
    for (int c = 0; c < 6; c++)
        rbuf_printf(&b, "%s%d '%s'", c ? ", " : "", c, state_colors[c]);
    rbuf_puts(&b, ")\n"
                  "set palette maxcolors 6\n"
                  "set cbrange [-0.5:5.5]\n"
                  /* What the types mean, as docs/reports.md's table says. */
                  "set cbtics ('I: batch' 0, 'II: input dim' 1, 'III: output dim' 2, "
                  "'B: join, batch' 3, 'C: join, channel' 4, 'R: replicated' 5)\n"
                  "set rmargin 24\n" /* room for the colour box's longer labels */
                  "set style fill solid 1.0 border rgb 'white'\n"
                  "set tics scale 0\n"
                  "unset key\n");
    rbuf_printf(&b, "set xrange [-0.5:%d.5]\n", V - 1);
    rbuf_printf(&b, "set yrange [%d.5:-0.5]\n", L - 1);
    int every = V > 120 ? (V + 119) / 120 : 1;
    rbuf_puts(&b, "set xtics rotate by 90 right font ',8' (");
    int first = 1;
    for (int v = 0; v < V; v += every) {
        rbuf_puts(&b, first ? "" : ", ");
        put_sq(&b, dnp_plan_node_name(p, v));
        rbuf_printf(&b, " %d", v);
        first = 0;
    }
    rbuf_puts(&b, ")\n");
    rbuf_printf(&b, "set multiplot layout %d,1 title ", panels);
    put_plan_title(&b, model, cluster, scheme, batch);
    rbuf_puts(&b, " . \"\\n\" . 'type of each layer at each level of the device tree");
    if (s.levels < s.total_levels)
        rbuf_printf(&b, " (levels below h%d: data parallel)", s.levels - 1);
    rbuf_puts(&b, "'");
    if (np > panels)
        rbuf_printf(&b,
                    " . \"\\n\" . '%s%d more distinct paths not drawn (dnnpar plan lists "
                    "them)'",
                    np > REPORT_MAX_PATHS ? "over " : "",
                    (np > REPORT_MAX_PATHS ? REPORT_MAX_PATHS : np) - panels);
    rbuf_puts(&b, "\n");
    for (int i = 0; i < panels; i++) {
        rbuf t;
        rbuf_init(&t);
        panel_title(&t, p, L, paths[i], i);
        char *txt = rbuf_take(&t);
        b.oom |= txt == NULL;
        rbuf_puts(&b, "set title ");
        put_sq(&b, txt ? txt : "");
        dnp_free(txt);
        rbuf_puts(&b, "\nset ytics (");
        for (int k = 0; k < L; k++)
            rbuf_printf(&b, "%s'h%d  r=%.4f' %d", k ? ", " : "", k, dnp_plan_ratio(p, k, paths[i]),
                        k);
        rbuf_puts(&b, ")\n");
        rbuf_printf(&b, "plot $path%d using 1:2:(0.5):(0.5):3 with boxxyerror lc palette", i + 1);
        if (V <= 80)
            rbuf_printf(&b,
                        ", \\\n     $path%d using 1:2:(T[int($3)+1]) with labels "
                        "font ',9'",
                        i + 1);
        rbuf_puts(&b, "\n");
    }
    rbuf_puts(&b, "unset multiplot\n");
    return rbuf_take(&b);
}

dnp_status report_plot_compare(const char *path, const char *model, const char *cluster, int n,
                               const char *const *names, const double *step_time_s,
                               const double *speedup, const int *fits, dnp_error *err)
{
    if (report_plot_format(path) < 0)
        return report_gnuplot_render(path, "", 0, 0, err); /* the format error */
    if (n < 1 || n > 64 || names == NULL || step_time_s == NULL || speedup == NULL) {
        dnp_error_set(err, DNP_ERR_INPUT, "a speedup plot needs 1 to 64 schemes (got %d)", n);
        return DNP_ERR_INPUT;
    }
    int w, h;
    char *script = report_compare_script(model ? model : "", cluster ? cluster : "", n, names,
                                         step_time_s, speedup, fits, &w, &h);
    if (script == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the plot script");
        return DNP_ERR_NOMEM;
    }
    dnp_status st = report_gnuplot_render(path, script, w, h, err);
    dnp_free(script);
    return st;
}

dnp_status report_plot_plan(const char *path, const dnp_plan *p, const char *model,
                            const char *cluster, const char *scheme, int64_t batch, dnp_error *err)
{
    if (report_plot_format(path) < 0)
        return report_gnuplot_render(path, "", 0, 0, err); /* the format error */
    int w, h;
    char *script = report_plan_script(p, model ? model : "", cluster ? cluster : "",
                                      scheme ? scheme : "", batch, &w, &h);
    if (script == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the plot script");
        return DNP_ERR_NOMEM;
    }
    dnp_status st = report_gnuplot_render(path, script, w, h, err);
    dnp_free(script);
    return st;
}

char *report_scale_script(const char *model, const char *node, int n, const double *devices,
                          const double *throughput_per_s, const double *efficiency)
{
    rbuf b;
    rbuf_init(&b);
    rbuf_puts(&b, "set title ");
    put_sq(&b, "Scaling: ");
    rbuf_puts(&b, " . ");
    put_sq(&b, model);
    rbuf_puts(&b, " . ");
    put_sq(&b, " on ");
    rbuf_puts(&b, " . ");
    put_sq(&b, node);
    rbuf_puts(&b, " . ");
    put_sq(&b, " nodes"); /* a bare word here was a gnuplot syntax error */
    rbuf_puts(&b, "\n");
    rbuf_puts(&b, "set xlabel 'devices'\nset ylabel 'throughput (samples/s)'\n"
                  "set y2label 'scaling efficiency (%)'\n"
                  "set logscale x 2\nset logscale y 2\nset y2range [0:110]\n"
                  "set ytics nomirror\nset y2tics 0,10,100\nset grid\n"
                  /* throughput ticks with an SI prefix (524k, not 524288); the key
                   * below the axes, where no line can run through it (inside, the
                   * efficiency line near 100% crossed it) */
                  "set format y '%.0s%c'\n"
                  "set key outside below center horizontal\nset bmargin 6\n$d << EOD\n");
    /* the fourth column: ideal (linear) throughput from the smallest size,
     * throughput_0 x devices / devices_0, against which the efficiency is read */
    for (int i = 0; i < n; i++)
        rbuf_printf(&b, "%.17g %.17g %.17g %.17g\n", devices[i], throughput_per_s[i],
                    100.0 * efficiency[i],
                    devices[0] > 0.0 ? throughput_per_s[0] * devices[i] / devices[0] : NAN);
    rbuf_puts(&b, "EOD\n"
                  "plot $d using 1:2 with linespoints lw 2 pt 7 title 'throughput', \\\n"
                  "     $d using 1:4 with lines lw 1 dt 3 lc rgb '#7f7f7f' "
                  "title 'linear from the smallest size', \\\n"
                  "     $d using 1:3 axes x1y2 with linespoints lw 2 pt 5 dt 2 "
                  "title 'scaling efficiency'\n");
    return rbuf_take(&b);
}

dnp_status report_plot_scale(const char *path, const char *model, const char *node, int n,
                             const double *devices, const double *throughput_per_s,
                             const double *efficiency, dnp_error *err)
{
    if (report_plot_format(path) < 0)
        return report_gnuplot_render(path, "", 0, 0, err); /* the format error */
    if (n < 1 || n > 256) {
        dnp_error_set(err, DNP_ERR_INPUT, "a scaling plot needs 1 to 256 sizes (got %d)", n);
        return DNP_ERR_INPUT;
    }
    char *script = report_scale_script(model, node, n, devices, throughput_per_s, efficiency);
    if (script == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the plot script");
        return DNP_ERR_NOMEM;
    }
    dnp_status st = report_gnuplot_render(path, script, 800, 500, err);
    dnp_free(script);
    return st;
}
