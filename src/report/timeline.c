/* timeline.c - a picture of a simulated step from its Chrome trace (the
 * text dnp_plan_trace_json and dnp_config3d_trace write): one row per
 * (process, thread) of the trace, in the trace's order of processes and
 * threads, one box per complete event from its start to its end, coloured
 * by what it is (docs/reports.md, "Timelines").
 *
 * The trace is read back rather than the simulator's tasks so that the
 * picture shows exactly what the trace file holds and the simulator needs
 * no second writer.  As in plot.c, the script carries its data inline and
 * quotes every name, the terminal is `noenhanced`, and nothing in it
 * depends on the time or the machine. */
#include "report/report.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a box is, from its event's name and category: the categories of
 * docs/reports.md's legend, in its order. */
enum { TL_FWD = 0, TL_BWD, TL_SEND, TL_SYNC, TL_OPT, TL_COMPUTE, TL_COMM, TL_KINDS };
static const char *const kind_title[TL_KINDS] = {
    "forward",           "backward",  "pipeline send", "gradient all-reduce",
    "optimizer",         "compute",   "communication"};
/* the plot.c palette (Tableau 10) */
static const unsigned kind_rgb[TL_KINDS] = {0x4e79a7, 0xf28e2b, 0xbab0ac, 0x59a14f,
                                            0xb07aa1, 0x76b7b2, 0xedc948};

static int kind_of(const char *name, const char *cat)
{
    if (strstr(name, "forward") != NULL)
        return TL_FWD;
    if (strstr(name, "backward") != NULL)
        return TL_BWD;
    if (strstr(name, "all-reduce") != NULL)
        return TL_SYNC;
    if (strstr(name, "optimizer") != NULL)
        return TL_OPT;
    if (strstr(name, "activations") != NULL || strstr(name, "gradients") != NULL)
        return TL_SEND;
    return cat != NULL && strcmp(cat, "comm") == 0 ? TL_COMM : TL_COMPUTE;
}

typedef struct {
    long long pid, tid;
    int row;
} row_key;

typedef struct {
    int row, kind;
    double start_us, end_us;
} box;

static int cmp_key(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The name a metadata event gives process pid (tid < 0) or thread
 * (pid, tid), or "". */
static const char *meta_name(const json_t *events, const char *what, long long pid, long long tid)
{
    size_t i;
    const json_t *e;
    json_array_foreach(events, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *nm = json_string_value(json_object_get(e, "name"));
        if (ph == NULL || strcmp(ph, "M") != 0 || nm == NULL || strcmp(nm, what) != 0)
            continue;
        if (json_integer_value(json_object_get(e, "pid")) != pid)
            continue;
        if (tid >= 0 && json_integer_value(json_object_get(e, "tid")) != tid)
            continue;
        const char *v = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
        return v != NULL ? v : "";
    }
    return "";
}

static void put_sq(rbuf *b, const char *s)
{
    rbuf_puts(b, "'");
    rbuf_put_escaped(b, s, ESC_GNUPLOT);
    rbuf_puts(b, "'");
}

char *report_timeline_script(const char *trace_json, const char *title, int *width_px,
                             int *height_px, char *why, size_t why_n)
{
    why[0] = '\0';
    json_error_t jerr;
    json_t *root = json_loads(trace_json != NULL ? trace_json : "", 0, &jerr);
    const json_t *events = root != NULL ? json_object_get(root, "traceEvents") : NULL;
    if (!json_is_array(events)) {
        snprintf(why, why_n, "not a Chrome trace (no traceEvents array)");
        json_decref(root);
        return NULL;
    }
    size_t n_ev = json_array_size(events);
    if (n_ev > REPORT_TIMELINE_MAX_EVENTS) {
        snprintf(why, why_n,
                 "the trace has %zu events; a timeline picture draws at most %d (open the trace "
                 "in chrome://tracing or Perfetto)",
                 n_ev, REPORT_TIMELINE_MAX_EVENTS);
        json_decref(root);
        return NULL;
    }
    box *boxes = dnp_malloc((n_ev > 0 ? n_ev : 1) * sizeof *boxes);
    row_key *keys = dnp_malloc((n_ev > 0 ? n_ev : 1) * sizeof *keys);
    if (boxes == NULL || keys == NULL) {
        dnp_free(boxes);
        dnp_free(keys);
        json_decref(root);
        return NULL;
    }
    /* the rows: distinct (pid, tid) of the complete events, sorted */
    int n_keys = 0, n_boxes = 0;
    size_t i;
    const json_t *e;
    json_array_foreach(events, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph == NULL || strcmp(ph, "X") != 0)
            continue;
        keys[n_keys].pid = json_integer_value(json_object_get(e, "pid"));
        keys[n_keys].tid = json_integer_value(json_object_get(e, "tid"));
        n_keys++;
    }
    qsort(keys, (size_t)n_keys, sizeof *keys, cmp_key);
    int n_rows = 0;
    for (int k = 0; k < n_keys; k++)
        if (n_rows == 0 || cmp_key(&keys[n_rows - 1], &keys[k]) != 0)
            keys[n_rows++] = keys[k];
    if (n_rows > REPORT_TIMELINE_MAX_ROWS) {
        snprintf(why, why_n,
                 "the trace has %d streams; a timeline picture draws at most %d (open the trace "
                 "in chrome://tracing or Perfetto)",
                 n_rows, REPORT_TIMELINE_MAX_ROWS);
        dnp_free(boxes);
        dnp_free(keys);
        json_decref(root);
        return NULL;
    }
    double end_us = 0.0;
    int present[TL_KINDS] = {0};
    json_array_foreach(events, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph == NULL || strcmp(ph, "X") != 0)
            continue;
        row_key k = {json_integer_value(json_object_get(e, "pid")),
                     json_integer_value(json_object_get(e, "tid")), 0};
        const row_key *hit = bsearch(&k, keys, (size_t)n_rows, sizeof *keys, cmp_key);
        double ts = json_number_value(json_object_get(e, "ts"));
        double dur = json_number_value(json_object_get(e, "dur"));
        if (hit == NULL || !isfinite(ts) || !isfinite(dur) || dur < 0.0)
            continue;
        const char *nm = json_string_value(json_object_get(e, "name"));
        box *bx = &boxes[n_boxes++];
        bx->row = (int)(hit - keys);
        bx->kind = kind_of(nm != NULL ? nm : "", json_string_value(json_object_get(e, "cat")));
        bx->start_us = ts;
        bx->end_us = ts + dur;
        present[bx->kind] = 1;
        if (bx->end_us > end_us)
            end_us = bx->end_us;
    }
    /* time in the unit the step reads best in */
    double scale = end_us >= 1e6 ? 1e-6 : end_us >= 1e3 ? 1e-3 : 1.0;
    const char *unit = end_us >= 1e6 ? "s" : end_us >= 1e3 ? "ms" : "us";

    rbuf b;
    rbuf_init(&b);
    *width_px = 1200;
    *height_px = 140 + 24 * (n_rows > 0 ? n_rows : 1);
    rbuf_puts(&b, "set title ");
    put_sq(&b, title != NULL ? title : "");
    rbuf_printf(&b, "\nset xlabel 'time (%s)'\n", unit);
    rbuf_printf(&b, "set yrange [%d.5:-0.5]\nset xrange [0:%.9g]\n", n_rows > 0 ? n_rows - 1 : 0,
                end_us > 0.0 ? end_us * scale * 1.002 : 1.0);
    rbuf_puts(&b, "set ytics nomirror scale 0 (");
    for (int r = 0; r < n_rows; r++) {
        /* "stage 1, compute": the process name up to its first ':' (its
         * details stay in the trace) and the thread's */
        char label[200];
        const char *pn = meta_name(events, "process_name", keys[r].pid, -1);
        const char *tn = meta_name(events, "thread_name", keys[r].pid, keys[r].tid);
        int pl = (int)strcspn(pn, ":");
        snprintf(label, sizeof label, "%.*s%s%.40s", pl < 48 ? pl : 48, pn,
                 pn[0] && tn[0] ? ", " : "", tn);
        if (!label[0])
            snprintf(label, sizeof label, "process %lld thread %lld", keys[r].pid, keys[r].tid);
        rbuf_puts(&b, r ? ", " : "");
        put_sq(&b, label);
        rbuf_printf(&b, " %d", r);
    }
    rbuf_puts(&b, ")\nset grid xtics\nset key outside top center horizontal samplen 1.5 width -4 maxrows 1\n"
                  "set style fill solid 1.0 border rgb 'white'\n$boxes << EOD\n");
    for (int k = 0; k < n_boxes; k++) {
        const box *bx = &boxes[k];
        double x0 = bx->start_us * scale, x1 = bx->end_us * scale;
        rbuf_printf(&b, "%.9g %d %.9g 0.38 %u\n", 0.5 * (x0 + x1), bx->row, 0.5 * (x1 - x0),
                    kind_rgb[bx->kind]);
    }
    rbuf_puts(&b, "EOD\nplot $boxes using 1:2:3:4:5 with boxxyerror lc rgb variable notitle");
    for (int k = 0; k < TL_KINDS; k++)
        if (present[k]) {
            rbuf_printf(&b, ", NaN with boxes lc rgb '#%06x' title ", kind_rgb[k]);
            put_sq(&b, kind_title[k]);
        }
    rbuf_puts(&b, "\n");
    dnp_free(boxes);
    dnp_free(keys);
    json_decref(root);
    return rbuf_take(&b);
}

dnp_status report_plot_timeline(const char *path, const char *trace_json, const char *title,
                                dnp_error *err)
{
    if (report_plot_format(path) < 0)
        return report_gnuplot_render(path, "", 0, 0, err); /* the format error */
    int w = 0, h = 0;
    char why[200];
    char *script = report_timeline_script(trace_json, title, &w, &h, why, sizeof why);
    if (script == NULL) {
        dnp_status st = why[0] ? DNP_ERR_INPUT : DNP_ERR_NOMEM;
        dnp_error_set(err, st, "%s", why[0] ? why : "out of memory writing the timeline script");
        return st;
    }
    dnp_status st = report_gnuplot_render(path, script, w, h, err);
    dnp_free(script);
    return st;
}
