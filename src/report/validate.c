/*
 * validate.c - predicted against measured step times (docs/validation.md).
 *
 * A validation CSV holds published measured runs.  Rows marked `calibrate`
 * fit one documented parameter per software stack, device type and
 * precision: the achieved fraction of peak on conv / matmul kernels
 * (dnp_device_type.compute_eff, docs/device-model.md).  Rows marked
 * `validate` are then predicted with that fit and never influence it.
 */
#include "dnnpar.h"
#include "perf/device_model.h"
#include "report/calibrate.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/input.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A measured step must lie in [MEASURED_MIN_S, MEASURED_MAX_S]: a training
 * step shorter than a nanosecond or longer than 31 years is no measurement,
 * and the bounds keep the error's arithmetic finite (docs/validation.md). */
#define MEASURED_MIN_S 1e-9
#define MEASURED_MAX_S 1e9
/* Largest global batch (sequences or samples per step): 2^40. */
#define MAX_BATCH (1LL << 40)

static void free_row(dnp_validation_row *r)
{
    dnp_free(r->id);
    dnp_free(r->stack);
    dnp_free(r->role);
    dnp_free(r->model);
    dnp_free(r->cluster);
    dnp_free(r->precision);
    dnp_free(r->search);
    dnp_free(r->config);
}

void dnp_validation_free(dnp_validation *v)
{
    if (v == NULL)
        return;
    for (int i = 0; v->rows != NULL && i < v->n_rows; i++)
        free_row(&v->rows[i]);
    for (int i = 0; v->unread_columns != NULL && i < v->n_unread_columns; i++)
        dnp_free(v->unread_columns[i]);
    dnp_free(v->unread_columns);
    dnp_free(v->rows);
    dnp_free(v->fits);
    dnp_free(v);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = dnp_malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

/* ---------------------------------------------------------------- */
/* CSV (RFC 4180: quoted fields, doubled quotes; one record per line)  */
/* ---------------------------------------------------------------- */

/* Split `line` in place into fields (at most max, which the caller sizes
 * as its commas + 1, so it is never reached by a well-formed line); returns
 * the count or -1 on a bad quote. */
static int split_csv(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *r = line, *w = line;
    for (;;) {
        if (n == max)
            return -1;
        fields[n++] = w;
        if (*r == '"') {
            r++;
            for (;;) {
                if (*r == '\0')
                    return -1;
                if (*r == '"' && r[1] == '"') {
                    *w++ = '"';
                    r += 2;
                } else if (*r == '"') {
                    r++;
                    break;
                } else {
                    *w++ = *r++;
                }
            }
            if (*r != ',' && *r != '\0')
                return -1;
        } else {
            while (*r != ',' && *r != '\0')
                *w++ = *r++;
        }
        if (*r == '\0') {
            *w = '\0';
            return n > (size_t)INT32_MAX ? -1 : (int)n;
        }
        *w++ = '\0';
        r++;
    }
}

enum { C_ID, C_STACK, C_ROLE, C_MODEL, C_CLUSTER, C_BATCH, C_PREC, C_SEARCH, C_MEASURED, C_N };
static const char *const k_cols[C_N] = {"id",      "stack",     "role",
                                        "model",   "cluster",   "batch",
                                        "precision", "search",  "measured_step_s"};
/* The configuration columns of search "config" rows, each passed to
 * dnp_config3d_parse as KEY=VALUE under its own name (docs/validation.md). */
#define N_CFG_COLS 15
static const char *const k_cfg_cols[N_CFG_COLS] = {
    "tp",         "pp",         "dp",     "microbatch", "interleave",
    "recompute",  "seq_par",    "layers", "zero",       "schedule",
    "grad_dtype", "overlap_grad", "overlap_param", "tp_overlap", "vp_group"};
/* Columns documented as context: read by people, not by validate. */
static const char *const k_context_cols[] = {"source", "note"};

/* Largest validation CSV read (bytes). */
#define MAX_CSV_BYTES ((size_t)64 << 20)

/* A line of the file, copied out to be split in place, and its fields;
 * both buffers grow to the longest line. */
typedef struct {
    char *line;
    size_t line_cap;
    char **fields;
    size_t fields_cap;
    int n;             /* fields of the current line */
} csv_line;

static void csv_line_free(csv_line *l)
{
    dnp_free(l->line);
    dnp_free(l->fields);
}

/* Grow *buf (elements of `size` bytes, *cap of them) to hold `need`. */
static int grow(void **buf, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c = c > SIZE_MAX / 2 / size ? need : 2 * c;
    void *p = dnp_realloc(*buf, c * size);
    if (p == NULL)
        return -1;
    *buf = p;
    *cap = c;
    return 0;
}

/* Read the next line of data[*pos..len) (without its "\n" or "\r\n") into
 * l and split it: 1 for a line (l->n = -1 for a bad quote), 0 at the end,
 * -1 for a NUL byte in it, -2 out of memory. */
static int next_line(const char *data, size_t len, size_t *pos, csv_line *l)
{
    if (*pos >= len)
        return 0;
    size_t start = *pos, end = start, commas = 0;
    while (end < len && data[end] != '\n')
        commas += data[end++] == ',';
    *pos = end < len ? end + 1 : end;
    if (memchr(data + start, '\0', end - start) != NULL)
        return -1;
    if (grow((void **)&l->line, &l->line_cap, end - start + 1, 1) != 0 ||
        grow((void **)&l->fields, &l->fields_cap, commas + 1, sizeof *l->fields) != 0)
        return -2;
    size_t n = end - start;
    memcpy(l->line, data + start, n);
    while (n > 0 && l->line[n - 1] == '\r')
        n--;
    l->line[n] = '\0';
    l->n = split_csv(l->line, l->fields, commas + 1);
    return 1;
}

/* 1 if s is decimal digits only (a non-negative integer, no sign). */
static int all_digits(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s != '\0'; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* 1 if s is a plain decimal number: digits with at most one '.', at least
 * one digit, then an optional exponent e[+-]digits; no sign, blanks, hex,
 * inf or nan (strtod would take them). */
static int plain_decimal(const char *s)
{
    int digits = 0;
    while (*s >= '0' && *s <= '9')
        s++, digits++;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits++;
    if (digits == 0)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

/* Header: the column of each read field (-1 if absent). */
typedef struct {
    int n;                  /* fields in the header */
    int col[C_N];
    int cfg_col[N_CFG_COLS];
} csv_header;

static dnp_status read_header(csv_line *l, const char *path, csv_header *h, dnp_validation *v,
                              dnp_error *err)
{
    char q[DNP_QUOTE_MAX + 8];
    if (l->n < 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s:1: malformed CSV header (unbalanced quotes)",
                      path);
        return DNP_ERR_INPUT;
    }
    h->n = l->n;
    for (int i = 0; i < l->n; i++) {
        if (l->fields[i][0] == '\0') {
            dnp_error_set(err, DNP_ERR_INPUT, "%s:1: column %d of the header has no name", path,
                          i + 1);
            return DNP_ERR_INPUT;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(l->fields[i], l->fields[j]) == 0) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "%s:1: column '%s' appears twice in the header (columns %d and %d)",
                              path, dnp_quote_str(l->fields[i], q, sizeof q), j + 1, i + 1);
                return DNP_ERR_INPUT;
            }
    }
    for (int c = 0; c < C_N; c++) {
        h->col[c] = -1;
        for (int i = 0; i < l->n; i++)
            if (strcmp(l->fields[i], k_cols[c]) == 0)
                h->col[c] = i;
        if (h->col[c] < 0) {
            dnp_error_set(err, DNP_ERR_INPUT, "%s:1: no column '%s' in the header", path,
                          k_cols[c]);
            return DNP_ERR_INPUT;
        }
    }
    for (int c = 0; c < N_CFG_COLS; c++) {
        h->cfg_col[c] = -1;
        for (int i = 0; i < l->n; i++)
            if (strcmp(l->fields[i], k_cfg_cols[c]) == 0)
                h->cfg_col[c] = i;
    }
    /* every other column is named once, in file order */
    for (int i = 0; i < l->n; i++) {
        int known = 0;
        for (int c = 0; c < C_N; c++)
            known |= h->col[c] == i;
        for (int c = 0; c < N_CFG_COLS; c++)
            known |= h->cfg_col[c] == i;
        for (size_t c = 0; c < sizeof k_context_cols / sizeof k_context_cols[0]; c++)
            known |= strcmp(l->fields[i], k_context_cols[c]) == 0;
        if (known)
            continue;
        char **p = dnp_realloc(v->unread_columns,
                               (size_t)(v->n_unread_columns + 1) * sizeof *p);
        if (p == NULL)
            return DNP_ERR_NOMEM;
        v->unread_columns = p;
        if ((p[v->n_unread_columns] = dup_str(l->fields[i])) == NULL)
            return DNP_ERR_NOMEM;
        v->n_unread_columns++;
    }
    return DNP_OK;
}

/* The configuration of row r (search "config") from its configuration
 * columns as "KEY=VALUE,...", or the note of a row of another search that
 * fills one.  A value holding ',' or '=' would become several items: the
 * input is refused. */
static dnp_status read_config(const csv_line *l, const csv_header *h, const char *path,
                              int line_no, dnp_validation_row *r, dnp_error *err)
{
    char q[DNP_QUOTE_MAX + 8];
    int is_config = strcmp(r->search, "config") == 0;
    size_t need = 1;
    for (int c = 0; c < N_CFG_COLS; c++) {
        if (h->cfg_col[c] < 0)
            continue;
        const char *val = l->fields[h->cfg_col[c]];
        if (val[0] == '\0')
            continue;
        if (strpbrk(val, ",=") != NULL) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "%s:%d: %s '%s' holds ',' or '=' (one value per column)", path,
                          line_no, k_cfg_cols[c], dnp_quote_str(val, q, sizeof q));
            return DNP_ERR_INPUT;
        }
        if (!is_config && r->note[0] == '\0')
            snprintf(r->note, sizeof r->note,
                     "column %s is given, but configuration columns are read for search "
                     "'config' only (this row's search: %s)",
                     k_cfg_cols[c], dnp_quote_str(r->search, q, sizeof q));
        need += strlen(k_cfg_cols[c]) + strlen(val) + 2;
    }
    if ((r->config = dnp_malloc(need)) == NULL)
        return DNP_ERR_NOMEM;
    r->config[0] = '\0';
    if (!is_config)
        return DNP_OK;
    size_t used = 0;
    for (int c = 0; c < N_CFG_COLS; c++) {
        if (h->cfg_col[c] < 0 || l->fields[h->cfg_col[c]][0] == '\0')
            continue;
        int w = snprintf(r->config + used, need - used, "%s%s=%s", used ? "," : "",
                         k_cfg_cols[c], l->fields[h->cfg_col[c]]);
        used += w > 0 ? (size_t)w : 0;
    }
    return DNP_OK;
}

/* One data line into row r (already zeroed and counted in v, so its strings
 * are freed with v whatever happens). */
static dnp_status read_row(const csv_line *l, const csv_header *h, const char *path,
                           int line_no, dnp_validation_row *r, dnp_error *err)
{
    char q[DNP_QUOTE_MAX + 8];
    dnp_status st = DNP_ERR_INPUT;
    r->line = line_no;
    r->predicted_step_s = r->error_pct = NAN;
    r->busy_s = r->bubble_s = r->tp_comm_s = r->dp_comm_s = r->p2p_s = r->optimizer_s = NAN;
    r->compute_s = r->exposed_comm_s = r->mem_bytes = r->mem_capacity_bytes = NAN;
    r->fits = -1;
    char **dst[] = {&r->id,      &r->stack,   &r->role,      &r->model,
                    &r->cluster, &r->precision, &r->search};
    static const int src[] = {C_ID, C_STACK, C_ROLE, C_MODEL, C_CLUSTER, C_PREC, C_SEARCH};
    for (size_t k = 0; k < sizeof src / sizeof src[0]; k++)
        if ((*dst[k] = dup_str(l->fields[h->col[src[k]]])) == NULL)
            return DNP_ERR_NOMEM;
    if (strcmp(r->role, "calibrate") != 0 && strcmp(r->role, "validate") != 0) {
        dnp_error_set(err, st, "%s:%d: role '%s' (expected calibrate or validate)", path,
                      line_no, dnp_quote_str(r->role, q, sizeof q));
        return st;
    }
    const char *bt = l->fields[h->col[C_BATCH]];
    long long b = all_digits(bt) ? strtoll(bt, NULL, 10) : -1;
    if (b <= 0 || b > MAX_BATCH) {
        dnp_error_set(err, st, "%s:%d: batch '%s' is not an integer in 1 .. 2^40", path,
                      line_no, dnp_quote_str(bt, q, sizeof q));
        return st;
    }
    r->batch = b;
    const char *mt = l->fields[h->col[C_MEASURED]];
    if (!plain_decimal(mt)) {
        dnp_error_set(err, st,
                      "%s:%d: measured_step_s '%s' is not a plain decimal number of seconds "
                      "(digits, '.', an exponent e[+-]N)",
                      path, line_no, dnp_quote_str(mt, q, sizeof q));
        return st;
    }
    double m = strtod(mt, NULL);
    if (!(m >= MEASURED_MIN_S && m <= MEASURED_MAX_S)) {
        dnp_error_set(err, st, "%s:%d: measured_step_s '%s' is out of range (%g .. %g s)", path,
                      line_no, dnp_quote_str(mt, q, sizeof q), MEASURED_MIN_S, MEASURED_MAX_S);
        return st;
    }
    r->measured_step_s = m;
    return read_config(l, h, path, line_no, r, err);
}

static dnp_status read_rows(const char *data, size_t len, const char *path, dnp_validation *v,
                            dnp_error *err)
{
    csv_line l = {0};
    csv_header h;
    int line_no = 1, cap = 0;
    dnp_status st = DNP_ERR_INPUT;
    size_t pos = 0;
    /* a UTF-8 byte order mark (U+FEFF, EF BB BF; spreadsheets write one) */
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        pos = 3;
    int got = next_line(data, len, &pos, &l);
    if (got == 0) {
        dnp_error_set(err, st, "%s: empty file (expected a header line)", path);
        goto done;
    }
    if (got == -1) {
        dnp_error_set(err, st, "%s:1: a NUL byte in the line", path);
        goto done;
    }
    if (got == -2 || (st = read_header(&l, path, &h, v, err)) == DNP_ERR_NOMEM) {
        st = DNP_ERR_NOMEM;
        goto done;
    }
    if (st != DNP_OK)
        goto done;
    st = DNP_ERR_INPUT;
    while ((got = next_line(data, len, &pos, &l)) != 0) {
        line_no++;
        if (got == -1) {
            dnp_error_set(err, st, "%s:%d: a NUL byte in the line", path, line_no);
            goto done;
        }
        if (got == -2) {
            st = DNP_ERR_NOMEM;
            goto done;
        }
        if (l.n == 1 && l.line[0] == '\0')
            continue;
        if (l.n < 0) {
            dnp_error_set(err, st, "%s:%d: malformed CSV (unbalanced quotes)", path, line_no);
            goto done;
        }
        if (l.n != h.n) {
            dnp_error_set(err, st, "%s:%d: %d fields, the header has %d", path, line_no, l.n,
                          h.n);
            goto done;
        }
        if (v->n_rows == cap) {
            if (cap > INT32_MAX / 2) {
                dnp_error_set(err, st, "%s:%d: too many rows", path, line_no);
                goto done;
            }
            cap = cap ? cap * 2 : 16;
            dnp_validation_row *p = dnp_realloc(v->rows, (size_t)cap * sizeof *p);
            if (p == NULL) {
                st = DNP_ERR_NOMEM;
                goto done;
            }
            v->rows = p;
        }
        dnp_validation_row *r = &v->rows[v->n_rows++];
        memset(r, 0, sizeof *r);
        dnp_status rst = read_row(&l, &h, path, line_no, r, err);
        if (rst != DNP_OK) {
            st = rst;
            goto done;
        }
    }
    st = DNP_OK;
done:
    if (st == DNP_ERR_NOMEM)
        dnp_error_set(err, st, "out of memory reading %s", path);
    csv_line_free(&l);
    return st;
}

/* ---------------------------------------------------------------- */
/* Prediction                                                        */
/* ---------------------------------------------------------------- */

typedef struct {
    dnp_graph *g;
    dnp_cluster cl;
    dnp_plan_options opt;
    int is_config;           /* search "config": cfg is simulated instead of a search */
    dnp_config3d cfg;
    int ok;
} row_setup;

/* Model, cluster and options of a row; a row dnnpar cannot run gets a
 * note and ok = 0 (a row whose note the reader already set, too). */
static void setup_row(dnp_validation_row *r, row_setup *rs)
{
    memset(rs, 0, sizeof *rs);
    if (r->note[0] != '\0')
        return;
    dnp_error e = {0};
    char q[DNP_QUOTE_MAX + 8];
    int scheme = dnp_scheme_from_name(r->search);
    int prec = dnp_precision_from_name(r->precision);
    rs->is_config = strcmp(r->search, "config") == 0;
    if (rs->is_config) {
        if (dnp_config3d_parse(r->config, &rs->cfg, &e) != DNP_OK) {
            /* the parser's "config 'TEXT': reason" without TEXT, the row's
             * configuration columns (in the JSON report as "config") */
            size_t lc = strlen(r->config);
            const char *why = e.msg;
            if (strncmp(why, "config '", 8) == 0 && strncmp(why + 8, r->config, lc) == 0 &&
                strncmp(why + 8 + lc, "': ", 3) == 0)
                why += 8 + lc + 3;
            snprintf(r->note, sizeof r->note, "%s%s", why == e.msg ? "" : "configuration: ",
                     why);
            return;
        }
        scheme = DNP_SCHEME_DP;
        /* Megatron-LM trains GPT with Adam (Shoeybi et al. 2019, section 5) */
        rs->opt.optimizer = DNP_OPTIM_ADAM;
    }
    if (scheme < 0) {
        snprintf(r->note, sizeof r->note,
                 "search '%s' is not supported (known: dp, owt, hypar, accpar, config)",
                 dnp_quote_str(r->search, q, sizeof q));
        return;
    }
    if (prec < 0) {
        snprintf(r->note, sizeof r->note, "unknown precision '%s'",
                 dnp_quote_str(r->precision, q, sizeof q));
        return;
    }
    if (dnp_cluster_parse(r->cluster, &rs->cl, &e) != DNP_OK ||
        dnp_cluster_check(&rs->cl, &e) != DNP_OK) { /* its network kinds too (src/topo) */
        snprintf(r->note, sizeof r->note, "%s", e.msg);
        return;
    }
    if (dnp_model_load(r->model, &rs->g, &e) != DNP_OK) {
        snprintf(r->note, sizeof r->note, "%s", e.msg);
        return;
    }
    if (dnp_graph_check_batch(rs->g, r->batch, &e) != DNP_OK) {
        snprintf(r->note, sizeof r->note, "%s", e.msg);
        return;
    }
    rs->opt.scheme = (dnp_scheme)scheme;
    rs->opt.batch = r->batch;
    rs->opt.precision = (dnp_precision)prec;
    if (strcmp(r->search, "config") != 0) /* docs/model.md, "Default optimizer" */
        rs->opt.optimizer = (dnp_optimizer)dnp_graph_default_optimizer(rs->g);
    rs->opt.keep_over_memory = 1; /* the run was measured: it did fit */
    rs->opt.tp_across_nodes = 1;  /* and ran where its groups were placed */
    rs->ok = 1;
}

/* Step time of a row with every device type named `device` at compute
 * efficiency eff (0: each type's own, as the row's cluster gives it, else
 * the model default); NAN with the reason in note[n] when
 * the simulator refuses the row or its step is not finite.  With out !=
 * NULL, the step's parts and straggler factor go into *out. */
static double predict(row_setup *rs, const char *device, const calib_params *par, char *note,
                      size_t n, dnp_validation_row *out)
{
    dnp_cluster cl = rs->cl;
    for (int k = 0; par != NULL && k < cl.n_types; k++)
        if (device == NULL || strcmp(cl.types[k].name, device) == 0) {
            if (par->compute_eff > 0.0)
                cl.types[k].compute_eff = par->compute_eff;
            if (par->host_kernel_s > 0.0)
                cl.types[k].host_kernel_s = par->host_kernel_s;
        }
    dnp_plan *p = NULL;
    dnp_error e = {0};
    double step_s;
    if (rs->is_config) {
        dnp_config3d_result cr;
        if (dnp_config3d_simulate(rs->g, &cl, rs->opt.batch, &rs->opt, &rs->cfg, &cr, &e) !=
            DNP_OK) {
            snprintf(note, n, "%s", e.msg);
            return NAN;
        }
        step_s = cr.step_time_s;
        if (out != NULL) {
            out->straggler_pace = cr.straggler_pace;
            out->busy_s = cr.compute_busy_s;
            out->bubble_s = cr.bubble_s;
            out->tp_comm_s = cr.tp_comm_s;
            out->dp_comm_s = cr.dp_comm_s;
            out->p2p_s = cr.p2p_s;
            out->optimizer_s = cr.optimizer_s;
            out->mem_bytes = cr.mem_bytes;
            out->mem_capacity_bytes = cr.mem_capacity_bytes;
            out->fits = cr.fits != 0;
        }
    } else {
        if (dnp_plan_run(rs->g, &cl, &rs->opt, &p, &e) != DNP_OK) {
            snprintf(note, n, "%s", e.msg);
            return NAN;
        }
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        dnp_plan_free(p);
        step_s = s.step_time_s;
        if (out != NULL) {
            out->straggler_pace = s.straggler_pace;
            out->compute_s = s.compute_s;
            out->exposed_comm_s = s.comm_s;
            out->mem_bytes = s.mem_bytes_max;
            out->mem_capacity_bytes = s.mem_capacity_bytes;
            out->fits = s.mem_fits != 0;
        }
    }
    if (!isfinite(step_s) || !(step_s > 0.0)) {
        snprintf(note, n, "the simulated step time is not a finite positive number (%g s)",
                 step_s);
        return NAN;
    }
    return step_s;
}

/* The calibration's view of one group's rows (calib_fit_rows). */
typedef struct {
    row_setup *rs;
    const char *device;
} fit_ctx;

static double fit_predict(void *ctx, int row, const calib_params *p)
{
    fit_ctx *f = ctx;
    char note[600];
    return predict(&f->rs[row], f->device, p, note, sizeof note, NULL);
}

static const char *row_device(const row_setup *rs)
{
    return rs->ok && rs->cl.n_types > 0 ? rs->cl.types[0].name : "";
}

/* Spearman's rank correlation (average ranks for ties). */
static void ranks(const double *x, int n, double *rank)
{
    for (int i = 0; i < n; i++) {
        int less = 0, equal = 0;
        for (int j = 0; j < n; j++) {
            less += x[j] < x[i];
            equal += x[j] == x[i];
        }
        rank[i] = less + 0.5 * (equal + 1);
    }
}

static double spearman(const double *a, const double *b, int n)
{
    if (n < 2)
        return NAN;
    double *ra = dnp_malloc((size_t)n * sizeof *ra), *rb = dnp_malloc((size_t)n * sizeof *rb);
    if (ra == NULL || rb == NULL) {
        dnp_free(ra);
        dnp_free(rb);
        return NAN;
    }
    ranks(a, n, ra);
    ranks(b, n, rb);
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    for (int i = 0; i < n; i++) {
        ma += ra[i] / n;
        mb += rb[i] / n;
    }
    for (int i = 0; i < n; i++) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    dnp_free(ra);
    dnp_free(rb);
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
}

static dnp_status validate_buffer(const char *data, size_t len_bytes, const char *name,
                                  int calibrate, const dnp_plan_options *limit,
                                  dnp_validation **out, dnp_error *err);

dnp_status dnp_validate_csv(const char *path, int calibrate, dnp_validation **out,
                            dnp_error *err)
{
    return dnp_validate_csv_limited(path, calibrate, NULL, out, err);
}

dnp_status dnp_validate_csv_limited(const char *path, int calibrate,
                                    const dnp_plan_options *limit, dnp_validation **out,
                                    dnp_error *err)
{
    char *data = NULL;
    size_t len = 0;
    dnp_status st = dnp_input_read(path, MAX_CSV_BYTES, &data, &len, err);
    if (st != DNP_OK)
        return st;
    st = validate_buffer(data, len, dnp_input_display(path), calibrate, limit, out, err);
    dnp_free(data);
    return st;
}

dnp_status dnp_validate_csv_buffer(const char *data, size_t len_bytes, const char *name,
                                   int calibrate, dnp_validation **out, dnp_error *err)
{
    return validate_buffer(data, len_bytes, name, calibrate, NULL, out, err);
}

static dnp_status validate_buffer(const char *data, size_t len_bytes, const char *name,
                                  int calibrate, const dnp_plan_options *limit,
                                  dnp_validation **out, dnp_error *err)
{
    char qfile[DNP_QUOTE_MAX + 8];
    const char *file = dnp_quote_str(name ? name : "<buffer>", qfile, sizeof qfile);
    /* Rows that cannot be run get a note, not an error; but a row that
     * failed for want of memory says nothing about the input, so any
     * failed allocation fails the whole call with DNP_ERR_NOMEM. */
    unsigned long failures = dnp_alloc_failures();
    dnp_validation *v = dnp_calloc(1, sizeof *v);
    if (v == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory");
        return DNP_ERR_NOMEM;
    }
    dnp_status st = read_rows(data, len_bytes, file, v, err);
    if (st != DNP_OK) {
        dnp_validation_free(v);
        return st;
    }
    const int n = v->n_rows;
    row_setup *rs = dnp_calloc((size_t)(n > 0 ? n : 1), sizeof *rs);
    int *members = dnp_malloc((size_t)(n > 0 ? n : 1) * sizeof *members);
    double *pa = dnp_malloc((size_t)(n > 0 ? n : 1) * sizeof *pa);
    double *ma = dnp_malloc((size_t)(n > 0 ? n : 1) * sizeof *ma);
    v->fits = dnp_calloc((size_t)(n > 0 ? n : 1), sizeof *v->fits);
    if (rs == NULL || members == NULL || pa == NULL || ma == NULL || v->fits == NULL) {
        st = DNP_ERR_NOMEM;
        dnp_error_set(err, st, "out of memory");
        goto done;
    }
    /* one deadline for every row's plan or simulation (the command's) */
    const double deadline_s =
        limit != NULL ? dnp_deadline_at(limit->time_limit_from_s, limit->time_limit_s) : 0.0;
    for (int i = 0; i < n; i++) {
        setup_row(&v->rows[i], &rs[i]);
        if (limit != NULL) {
            rs[i].opt.time_limit_s = limit->time_limit_s;
            rs[i].opt.time_limit_from_s = limit->time_limit_from_s > 0.0
                                              ? limit->time_limit_from_s
                                              : deadline_s - limit->time_limit_s;
        }
    }
    /* A calibrate row the simulator refuses at the preset efficiency (a
     * configuration that does not fit the cluster, say) would enter its fit
     * as a penalty: it is set aside with its reason first. */
    for (int i = 0; calibrate && i < n; i++) {
        dnp_validation_row *r = &v->rows[i];
        if (rs[i].ok && strcmp(r->role, "calibrate") == 0 &&
            isnan(predict(&rs[i], row_device(&rs[i]), NULL, r->note, sizeof r->note, NULL)))
            rs[i].ok = 0;
    }
    /* Fit each (stack, device, precision) on its calibrate rows, in the
     * order the groups first appear. */
    for (int i = 0; calibrate && i < n; i++) {
        dnp_validation_row *r = &v->rows[i];
        if (!rs[i].ok || strcmp(r->role, "calibrate") != 0)
            continue;
        int seen = 0;
        for (int f = 0; f < v->n_fits; f++)
            if (strcmp(v->fits[f].stack, r->stack) == 0 &&
                strcmp(v->fits[f].device, row_device(&rs[i])) == 0 &&
                strcmp(v->fits[f].precision, r->precision) == 0)
                seen = 1;
        if (seen)
            continue;
        int m = 0;
        for (int j = i; j < n; j++)
            if (rs[j].ok && strcmp(v->rows[j].role, "calibrate") == 0 &&
                strcmp(v->rows[j].stack, r->stack) == 0 &&
                strcmp(row_device(&rs[j]), row_device(&rs[i])) == 0 &&
                strcmp(v->rows[j].precision, r->precision) == 0)
                members[m++] = j;
        dnp_calibration *fit = &v->fits[v->n_fits++];
        fit->stack = r->stack;
        snprintf(fit->device, sizeof fit->device, "%s", row_device(&rs[i]));
        snprintf(fit->precision, sizeof fit->precision, "%s", r->precision);
        fit->n_rows = m;
        /* the two physical parameters by least squares on log step times
         * (calibrate.h): both with two or more rows that depend on both,
         * else the one the rows are most sensitive to */
        for (int k = 0; k < m; k++)
            ma[k] = v->rows[members[k]].measured_step_s;
        const dnp_device_type *d0 = &rs[i].cl.types[0];
        fit_ctx fc = {rs, fit->device};
        calib_fit cf;
        calib_fit_rows(fit_predict, &fc, members, ma, m,
                       d0->compute_eff > 0.0 ? d0->compute_eff : PERF_DEFAULT_COMPUTE_EFF,
                       d0->host_kernel_s > 0.0 ? d0->host_kernel_s : PERF_DEFAULT_HOST_KERNEL_S,
                       &cf);
        fit->compute_eff = cf.fitted_eff ? cf.p.compute_eff : 0.0;
        fit->host_kernel_s = cf.fitted_host ? cf.p.host_kernel_s : 0.0;
        fit->rms_log_error = cf.rms_log_error;
        fit->eff_at_bound = cf.eff_at_bound;
        fit->eff_rejected = cf.eff_implausible ? cf.eff_rejected : 0.0;
    }
    /* Predict every row with its group's fit (or the preset default). */
    int nv = 0;
    double sum_abs = 0.0, max_abs = 0.0;
    for (int i = 0; i < n; i++) {
        dnp_validation_row *r = &v->rows[i];
        if (!rs[i].ok)
            continue;
        calib_params par = {0.0, 0.0};
        for (int f = 0; f < v->n_fits; f++)
            if (strcmp(v->fits[f].stack, r->stack) == 0 &&
                strcmp(v->fits[f].device, row_device(&rs[i])) == 0 &&
                strcmp(v->fits[f].precision, r->precision) == 0) {
                par.compute_eff = v->fits[f].compute_eff;
                par.host_kernel_s = v->fits[f].host_kernel_s;
                r->calibrated = 1;
            }
        const double eff = par.compute_eff;
        if (calibrate && !r->calibrated) {
            char q[DNP_QUOTE_MAX + 8];
            snprintf(r->note, sizeof r->note, "no calibrate row for stack %s, %s, %s: preset "
                     "default efficiency", dnp_quote_str(r->stack, q, sizeof q),
                     row_device(&rs[i]), r->precision);
        }
        /* the efficiency in force: fitted, else the device's own, else the model's */
        double own = rs[i].cl.n_types > 0 ? rs[i].cl.types[0].compute_eff : 0.0;
        r->compute_eff = eff > 0.0 ? eff : own > 0.0 ? own : PERF_DEFAULT_COMPUTE_EFF;
        r->predicted_step_s = predict(&rs[i], row_device(&rs[i]), &par, r->note, sizeof r->note,
                                      r);
        r->error_pct = 100.0 * (r->predicted_step_s - r->measured_step_s) / r->measured_step_s;
        if (strcmp(r->role, "validate") == 0 && isfinite(r->error_pct)) {
            pa[nv] = r->predicted_step_s;
            ma[nv] = r->measured_step_s;
            nv++;
            sum_abs += fabs(r->error_pct);
            max_abs = fabs(r->error_pct) > max_abs ? fabs(r->error_pct) : max_abs;
        }
    }
    for (int i = 0; i < n; i++)
        v->n_not_predicted += isnan(v->rows[i].predicted_step_s);
    /* past the deadline a row's failure (and a fit from fewer rows) is the
     * limit's, not the row's: no result rather than a silent gap */
    if (dnp_deadline_passed(deadline_s)) {
        st = DNP_ERR_INPUT;
        dnp_error_set(err, st,
                      "time limit of %g s reached while validating %s (%d rows): no result to "
                      "report (a larger --time-limit would do)",
                      limit->time_limit_s, file, n);
        goto done;
    }
    v->n_validate = nv;
    v->mape_pct = nv > 0 ? sum_abs / nv : NAN;
    v->max_abs_error_pct = nv > 0 ? max_abs : NAN;
    v->spearman = spearman(pa, ma, nv);
    if (dnp_alloc_failures() != failures) {
        dnp_error_set(err, DNP_ERR_NOMEM, "%s: out of memory while predicting the rows", file);
        st = DNP_ERR_NOMEM;
        goto done;
    }
    st = DNP_OK;
done:
    if (rs != NULL)
        for (int i = 0; i < n; i++)
            dnp_graph_free(rs[i].g);
    dnp_free(rs);
    dnp_free(members);
    dnp_free(pa);
    dnp_free(ma);
    if (st != DNP_OK) {
        dnp_validation_free(v);
        return st;
    }
    *out = v;
    return DNP_OK;
}
