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
enum { TL_FWD = 0, TL_BWD, TL_SEND, TL_SYNC, TL_OPT, TL_COMPUTE, TL_COMM, TL_TP, TL_KINDS };
static const char *const kind_title[TL_KINDS] = {
    "forward",   "backward", "pipeline send", "gradient all-reduce",
    "optimizer", "compute",  "communication", "tensor-parallel collectives"};
/* the plot.c palette (Tableau 10) */
static const unsigned kind_rgb[TL_KINDS] = {0x4e79a7, 0xf28e2b, 0xbab0ac, 0x59a14f,
                                            0xb07aa1, 0x76b7b2, 0xedc948, 0xe15759};

static int kind_of(const char *name, const char *cat)
{
    if (strstr(name, "tensor-parallel") != NULL) /* before "forward": "... tensor-parallel fwd" */
        return TL_TP;
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

/* One end of a flow (Trace Event Format "Flow Events": "s" starts flow
 * id, "f" ends it) on row `row` at ts_us. */
typedef struct {
    long long id;
    int start, row;
    double ts_us;
} flow_end;

static int cmp_flow(const void *a, const void *b)
{
    const flow_end *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return y->start - x->start; /* the start first */
}

/* One sample of a counter series ("ph":"C", one series per args key). */
typedef struct {
    int series, seq;
    double ts_us, value;
} sample;

static int cmp_sample(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    if (x->series != y->series)
        return x->series - y->series;
    if (x->ts_us != y->ts_us)
        return x->ts_us < y->ts_us ? -1 : 1;
    return x->seq - y->seq;
}

/* Boxes ordered by (row, start, end), for binding flow ends to slices. */
static int cmp_box(const void *a, const void *b)
{
    const box *x = a, *y = b;
    if (x->row != y->row)
        return x->row - y->row;
    if (x->start_us != y->start_us)
        return x->start_us < y->start_us ? -1 : 1;
    return x->end_us < y->end_us ? -1 : x->end_us > y->end_us;
}

/* The box on `row` enclosing ts_us (the last one starting at or before
 * it), or NULL: the slice a flow end binds to.  O(log boxes). */
static const box *box_at(const box *sorted, int n, int row, double ts_us)
{
    int lo = 0, hi = n; /* first index past (row, ts) */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        const box *m = &sorted[mid];
        if (m->row < row || (m->row == row && m->start_us <= ts_us))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const box *bx = &sorted[lo - 1];
    return bx->row == row && bx->end_us >= ts_us ? bx : NULL;
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
    /* flows: both ends on drawn rows, paired by id, each bound to the box
     * enclosing it; an arrow from the end of the start's box to the start
     * of the end's box */
    flow_end *fl = dnp_malloc((n_ev > 0 ? n_ev : 1) * sizeof *fl);
    sample *smp = dnp_malloc((n_ev > 0 ? n_ev : 1) * sizeof *smp);
    box *sorted = dnp_malloc((size_t)(n_boxes > 0 ? n_boxes : 1) * sizeof *sorted);
    /* counter series: (pid, args key), keys borrowed from the document */
    enum { TL_MAX_SERIES = 64 };
    long long ser_pid[TL_MAX_SERIES];
    const char *ser_key[TL_MAX_SERIES];
    int n_fl = 0, n_smp = 0, n_ser = 0;
    if (fl == NULL || smp == NULL || sorted == NULL) {
        dnp_free(fl);
        dnp_free(smp);
        dnp_free(sorted);
        dnp_free(boxes);
        dnp_free(keys);
        json_decref(root);
        return NULL;
    }
    memcpy(sorted, boxes, (size_t)n_boxes * sizeof *sorted);
    qsort(sorted, (size_t)n_boxes, sizeof *sorted, cmp_box);
    json_array_foreach(events, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        double ts = json_number_value(json_object_get(e, "ts"));
        if (ph == NULL || !isfinite(ts))
            continue;
        long long pid = json_integer_value(json_object_get(e, "pid"));
        if ((strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0) &&
            json_is_integer(json_object_get(e, "id"))) {
            row_key k = {pid, json_integer_value(json_object_get(e, "tid")), 0};
            const row_key *hit = bsearch(&k, keys, (size_t)n_rows, sizeof *keys, cmp_key);
            if (hit == NULL)
                continue;
            fl[n_fl].id = json_integer_value(json_object_get(e, "id"));
            fl[n_fl].start = ph[0] == 's';
            fl[n_fl].row = (int)(hit - keys);
            fl[n_fl++].ts_us = ts;
        } else if (strcmp(ph, "C") == 0) {
            const char *key;
            const json_t *val;
            json_object_foreach((json_t *)json_object_get(e, "args"), key, val) {
                double v = json_number_value(val);
                if (!json_is_number(val) || !isfinite(v))
                    continue;
                int sr = 0;
                while (sr < n_ser && (ser_pid[sr] != pid || strcmp(ser_key[sr], key) != 0))
                    sr++;
                if (sr == n_ser) {
                    if (n_ser == TL_MAX_SERIES)
                        continue; /* more series than a legend can hold: left out */
                    ser_pid[n_ser] = pid;
                    ser_key[n_ser++] = key;
                }
                smp[n_smp].series = sr;
                smp[n_smp].seq = n_smp;
                smp[n_smp].ts_us = ts;
                smp[n_smp++].value = v;
                if (ts > end_us)
                    end_us = ts;
            }
        }
    }
    qsort(fl, (size_t)n_fl, sizeof *fl, cmp_flow);
    qsort(smp, (size_t)n_smp, sizeof *smp, cmp_sample);

    /* time in the unit the step reads best in */
    double scale = end_us >= 1e6 ? 1e-6 : end_us >= 1e3 ? 1e-3 : 1.0;
    const char *unit = end_us >= 1e6 ? "s" : end_us >= 1e3 ? "ms" : "us";

    rbuf b;
    rbuf_init(&b);
    /* with counters, a memory panel of TL_MEM_PX below the rows, both
     * panels with the same left margin (the longest row label) so that
     * their time axes line up */
    enum { TL_MEM_PX = 240 };
    const int rows_px = 140 + 24 * (n_rows > 0 ? n_rows : 1);
    *width_px = 1200;
    *height_px = rows_px + (n_ser > 0 ? TL_MEM_PX : 0);
    int label_cols = 0;
    char(*labels)[200] = dnp_malloc((size_t)(n_rows > 0 ? n_rows : 1) * sizeof *labels);
    if (labels == NULL) {
        dnp_free(fl);
        dnp_free(smp);
        dnp_free(sorted);
        dnp_free(boxes);
        dnp_free(keys);
        json_decref(root);
        return NULL;
    }
    for (int r = 0; r < n_rows; r++) {
        /* "stage 1, compute": the process name up to its first ':' (its
         * details stay in the trace) and the thread's */
        const char *pn = meta_name(events, "process_name", keys[r].pid, -1);
        const char *tn = meta_name(events, "thread_name", keys[r].pid, keys[r].tid);
        int pl = (int)strcspn(pn, ":");
        snprintf(labels[r], sizeof labels[r], "%.*s%s%.40s", pl < 48 ? pl : 48, pn,
                 pn[0] && tn[0] ? ", " : "", tn);
        if (!labels[r][0])
            snprintf(labels[r], sizeof labels[r], "process %lld thread %lld", keys[r].pid,
                     keys[r].tid);
        int len = (int)strlen(labels[r]);
        label_cols = len > label_cols ? len : label_cols;
    }
    if (n_ser > 0)
        rbuf_printf(&b, "set multiplot\nset lmargin %d\nset rmargin 4\nset origin 0,%.6g\n"
                        "set size 1,%.6g\n",
                    label_cols + 2, (double)TL_MEM_PX / *height_px,
                    (double)rows_px / *height_px);
    rbuf_puts(&b, "set title ");
    put_sq(&b, title != NULL ? title : "");
    rbuf_printf(&b, "\nset xlabel 'time (%s)'\n", unit);
    rbuf_printf(&b, "set yrange [%d.5:-0.5]\nset xrange [0:%.9g]\n", n_rows > 0 ? n_rows - 1 : 0,
                end_us > 0.0 ? end_us * scale * 1.002 : 1.0);
    rbuf_puts(&b, "set ytics nomirror scale 0 (");
    for (int r = 0; r < n_rows; r++) {
        rbuf_puts(&b, r ? ", " : "");
        put_sq(&b, labels[r]);
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
    rbuf_puts(&b, "EOD\n");
    int n_arrows = 0;
    for (int k = 0; k + 1 < n_fl; k++) {
        if (fl[k].id != fl[k + 1].id || !fl[k].start || fl[k + 1].start)
            continue;
        const box *from = box_at(sorted, n_boxes, fl[k].row, fl[k].ts_us);
        const box *to = box_at(sorted, n_boxes, fl[k + 1].row, fl[k + 1].ts_us);
        if (from == NULL || to == NULL)
            continue;
        if (n_arrows++ == 0)
            rbuf_puts(&b, "$flows << EOD\n");
        double x0 = from->end_us * scale, x1 = to->start_us * scale;
        rbuf_printf(&b, "%.9g %d %.9g %d\n", x0, from->row, x1 - x0, to->row - from->row);
        k++;
    }
    if (n_arrows > 0)
        rbuf_puts(&b, "EOD\n");
    rbuf_puts(&b, "plot $boxes using 1:2:3:4:5 with boxxyerror lc rgb variable notitle");
    if (n_arrows > 0)
        rbuf_puts(&b, ", $flows using 1:2:3:4 with vectors head filled size screen 0.004,25 "
                      "lc rgb '#404040' lw 0.7 title 'pipeline message'");
    for (int k = 0; k < TL_KINDS; k++)
        if (present[k]) {
            rbuf_printf(&b, ", NaN with boxes lc rgb '#%06x' title ", kind_rgb[k]);
            put_sq(&b, kind_title[k]);
        }
    rbuf_puts(&b, "\n");
    if (n_ser > 0) {
        /* the memory panel: each series a step line in GB */
        for (int sr = 0, k = 0; sr < n_ser; sr++) {
            rbuf_printf(&b, "$mem%d << EOD\n", sr);
            for (; k < n_smp && smp[k].series == sr; k++)
                rbuf_printf(&b, "%.9g %.9g\n", smp[k].ts_us * scale, smp[k].value * 1e-9);
            rbuf_puts(&b, "EOD\n");
        }
        rbuf_printf(&b, "set origin 0,0\nset size 1,%.6g\nunset title\nset yrange [0:*]\n"
                        "set ytics autofreq nomirror scale 1\nset format y '%%g'\n"
                        "set grid xtics ytics\nset ylabel 'memory per device (GB)'\n"
                        "set key below horizontal samplen 2 width 3\nplot ",
                    (double)TL_MEM_PX / *height_px);
        for (int sr = 0; sr < n_ser; sr++) {
            const char *pn = meta_name(events, "process_name", ser_pid[sr], -1);
            int pl = (int)strcspn(pn, ":");
            char t[160];
            snprintf(t, sizeof t, "%.*s%s%.40s", pl < 48 ? pl : 48, pn, pn[0] ? ", " : "",
                     ser_key[sr]);
            rbuf_printf(&b, "%s$mem%d using 1:2 with steps lw 1.5 title ", sr ? ", " : "", sr);
            put_sq(&b, t);
        }
        rbuf_puts(&b, "\nunset multiplot\n");
    }
    dnp_free(labels);
    dnp_free(fl);
    dnp_free(smp);
    dnp_free(sorted);
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
