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
#include "core/alloc.h"
#include "core/input.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FIELDS 32
#define MAX_LINE 4096
/* The efficiency is searched in [EFF_MIN, 1] on a log scale. */
#define EFF_MIN 0.02
#define FIT_ITERATIONS 60

void dnp_validation_free(dnp_validation *v)
{
    if (v == NULL)
        return;
    dnp_free(v->rows);
    dnp_free(v->fits);
    dnp_free(v);
}

/* ---------------------------------------------------------------- */
/* CSV (RFC 4180: quoted fields, doubled quotes; one record per line)  */
/* ---------------------------------------------------------------- */

/* Split `line` in place into fields; returns the count or -1 on a bad
 * quote. */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
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
            return n;
        }
        *w++ = '\0';
        r++;
    }
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

enum { C_ID, C_STACK, C_ROLE, C_MODEL, C_CLUSTER, C_BATCH, C_PREC, C_SEARCH, C_MEASURED, C_N };
static const char *const k_cols[C_N] = {"id",      "stack",     "role",
                                        "model",   "cluster",   "batch",
                                        "precision", "search",  "measured_step_s"};
/* Optional columns of search "config" rows (docs/validation.md). */
#define N_CFG_COLS 7
static const char *const k_cfg_cols[N_CFG_COLS] = {"tp",         "pp",        "dp",     "microbatch",
                                                   "interleave", "recompute", "seq_par"};

/* Largest validation CSV read (bytes). */
#define MAX_CSV_BYTES ((size_t)64 << 20)

/* Copy the next line of data[*pos..len) (without its '\n') into line
 * (MAX_LINE bytes); returns 1 for a line, 0 at the end, -1 if it is longer
 * than MAX_LINE - 1 bytes or holds a NUL byte. */
static int next_line(const char *data, size_t len, size_t *pos, char *line)
{
    if (*pos >= len)
        return 0;
    size_t start = *pos, end = start;
    while (end < len && data[end] != '\n')
        end++;
    *pos = end < len ? end + 1 : end;
    if (end - start >= MAX_LINE - 1 || memchr(data + start, '\0', end - start) != NULL)
        return -1;
    memcpy(line, data + start, end - start);
    line[end - start] = '\0';
    return 1;
}

static dnp_status read_rows(const char *data, size_t len, const char *path, dnp_validation *v,
                            dnp_error *err)
{
    char line[MAX_LINE];
    char *fields[MAX_FIELDS];
    int col[C_N], cfg_col[N_CFG_COLS], line_no = 0, cap = 0;
    dnp_status st = DNP_ERR_INPUT;
    size_t pos = 0;
    int got = next_line(data, len, &pos, line);
    if (got == 0) {
        dnp_error_set(err, st, "%s: empty file (expected a header line)", path);
        goto done;
    }
    line_no = 1;
    if (got < 0) {
        dnp_error_set(err, st, "%s:1: line longer than %d bytes or holding a NUL byte", path,
                      MAX_LINE - 1);
        goto done;
    }
    chomp(line);
    int nf = split_csv(line, fields, MAX_FIELDS);
    for (int c = 0; c < C_N; c++) {
        col[c] = -1;
        for (int i = 0; i < nf; i++)
            if (strcmp(fields[i], k_cols[c]) == 0)
                col[c] = i;
        if (col[c] < 0) {
            dnp_error_set(err, st, "%s:1: no column '%s' in the header", path, k_cols[c]);
            goto done;
        }
    }
    for (int c = 0; c < N_CFG_COLS; c++) {
        cfg_col[c] = -1;
        for (int i = 0; i < nf; i++)
            if (strcmp(fields[i], k_cfg_cols[c]) == 0)
                cfg_col[c] = i;
    }
    while ((got = next_line(data, len, &pos, line)) != 0) {
        line_no++;
        if (got < 0) {
            dnp_error_set(err, st, "%s:%d: line longer than %d bytes or holding a NUL byte",
                          path, line_no, MAX_LINE - 1);
            goto done;
        }
        chomp(line);
        if (line[0] == '\0')
            continue;
        nf = split_csv(line, fields, MAX_FIELDS);
        if (nf < 0) {
            dnp_error_set(err, st, "%s:%d: malformed CSV (unbalanced quotes or too many fields)",
                          path, line_no);
            goto done;
        }
        if (v->n_rows == cap) {
            cap = cap ? cap * 2 : 16;
            dnp_validation_row *p = dnp_realloc(v->rows, (size_t)cap * sizeof *p);
            if (p == NULL) {
                st = DNP_ERR_NOMEM;
                dnp_error_set(err, st, "out of memory reading %s", path);
                goto done;
            }
            v->rows = p;
        }
        dnp_validation_row *r = &v->rows[v->n_rows];
        memset(r, 0, sizeof *r);
        for (int c = 0; c < C_N; c++)
            if (col[c] >= nf) {
                dnp_error_set(err, st, "%s:%d: %d fields, no '%s'", path, line_no, nf, k_cols[c]);
                goto done;
            }
        static const struct { int col; size_t size; } k_len[] = {
            {C_ID, sizeof r->id},           {C_STACK, sizeof r->stack},
            {C_ROLE, sizeof r->role},       {C_MODEL, sizeof r->model},
            {C_CLUSTER, sizeof r->cluster}, {C_PREC, sizeof r->precision},
            {C_SEARCH, sizeof r->search}};
        for (size_t k = 0; k < sizeof k_len / sizeof k_len[0]; k++)
            if (strlen(fields[col[k_len[k].col]]) >= k_len[k].size) {
                char q[DNP_QUOTE_MAX + 8];
                dnp_error_set(err, st, "%s:%d: %s '%s' is longer than %zu characters", path,
                              line_no, k_cols[k_len[k].col],
                              dnp_quote_str(fields[col[k_len[k].col]], q, sizeof q),
                              k_len[k].size - 1);
                goto done;
            }
        char q[DNP_QUOTE_MAX + 8];
        snprintf(r->id, sizeof r->id, "%s", fields[col[C_ID]]);
        snprintf(r->stack, sizeof r->stack, "%s", fields[col[C_STACK]]);
        snprintf(r->role, sizeof r->role, "%s", fields[col[C_ROLE]]);
        snprintf(r->model, sizeof r->model, "%s", fields[col[C_MODEL]]);
        snprintf(r->cluster, sizeof r->cluster, "%s", fields[col[C_CLUSTER]]);
        snprintf(r->precision, sizeof r->precision, "%s", fields[col[C_PREC]]);
        snprintf(r->search, sizeof r->search, "%s", fields[col[C_SEARCH]]);
        if (strcmp(r->role, "calibrate") != 0 && strcmp(r->role, "validate") != 0) {
            dnp_error_set(err, st, "%s:%d: role '%s' (expected calibrate or validate)", path,
                          line_no, r->role);
            goto done;
        }
        char *end;
        long long b = strtoll(fields[col[C_BATCH]], &end, 10);
        if (*end != '\0' || b <= 0 || b > (1LL << 40)) {
            dnp_error_set(err, st, "%s:%d: batch '%s' is not an integer in 1 .. 2^40", path,
                          line_no, dnp_quote_str(fields[col[C_BATCH]], q, sizeof q));
            goto done;
        }
        r->batch = b;
        double m = strtod(fields[col[C_MEASURED]], &end);
        if (*end != '\0' || !isfinite(m) || !(m > 0.0)) {
            dnp_error_set(err, st, "%s:%d: measured_step_s '%s' is not a positive number", path,
                          line_no, dnp_quote_str(fields[col[C_MEASURED]], q, sizeof q));
            goto done;
        }
        r->measured_step_s = m;
        if (strcmp(r->search, "config") == 0) {
            size_t used = 0;
            for (int c = 0; c < N_CFG_COLS; c++) {
                if (cfg_col[c] < 0 || cfg_col[c] >= nf || fields[cfg_col[c]][0] == '\0')
                    continue;
                int w = snprintf(r->config + used, sizeof r->config - used, "%s%s=%s",
                                 used ? "," : "", k_cfg_cols[c], fields[cfg_col[c]]);
                if (w < 0 || (size_t)w >= sizeof r->config - used) {
                    dnp_error_set(err, st, "%s:%d: the configuration columns are too long", path,
                                  line_no);
                    goto done;
                }
                used += (size_t)w;
            }
        }
        r->predicted_step_s = NAN;
        r->error_pct = NAN;
        v->n_rows++;
    }
    st = DNP_OK;
done:
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
 * note and ok = 0. */
static void setup_row(dnp_validation_row *r, row_setup *rs)
{
    memset(rs, 0, sizeof *rs);
    dnp_error e = {0};
    int scheme = dnp_scheme_from_name(r->search);
    int prec = dnp_precision_from_name(r->precision);
    rs->is_config = strcmp(r->search, "config") == 0;
    if (rs->is_config) {
        if (dnp_config3d_parse(r->config, &rs->cfg, &e) != DNP_OK) {
            snprintf(r->note, sizeof r->note, "%s", e.msg);
            return;
        }
        scheme = DNP_SCHEME_DP;
        /* Megatron-LM trains GPT with Adam (Shoeybi et al. 2019, section 5) */
        rs->opt.optimizer = DNP_OPTIM_ADAM;
    }
    if (scheme < 0) {
        snprintf(r->note, sizeof r->note,
                 "search '%s' is not supported (known: dp, owt, hypar, accpar, config)",
                 r->search);
        return;
    }
    if (prec < 0) {
        snprintf(r->note, sizeof r->note, "unknown precision '%s'", r->precision);
        return;
    }
    if (dnp_cluster_parse(r->cluster, &rs->cl, &e) != DNP_OK) {
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
    rs->opt.keep_over_memory = 1; /* the run was measured: it did fit */
    rs->ok = 1;
}

/* Step time of a row with every device type named `device` at compute
 * efficiency eff (0 = preset default). */
static double predict(row_setup *rs, const char *device, double eff, char *note, size_t n,
                      double *pace)
{
    dnp_cluster cl = rs->cl;
    for (int k = 0; k < cl.n_types; k++)
        if (device == NULL || strcmp(cl.types[k].name, device) == 0)
            cl.types[k].compute_eff = eff;
    dnp_plan *p = NULL;
    dnp_error e = {0};
    if (rs->is_config) {
        dnp_config3d_result cr;
        if (dnp_config3d_simulate(rs->g, &cl, rs->opt.batch, &rs->opt, &rs->cfg, &cr, &e) !=
            DNP_OK) {
            snprintf(note, n, "%s", e.msg);
            return NAN;
        }
        if (pace != NULL)
            *pace = cr.straggler_pace;
        return cr.step_time_s;
    }
    if (dnp_plan_run(rs->g, &cl, &rs->opt, &p, &e) != DNP_OK) {
        snprintf(note, n, "%s", e.msg);
        return NAN;
    }
    dnp_plan_summary s;
    dnp_plan_get_summary(p, &s);
    dnp_plan_free(p);
    if (pace != NULL)
        *pace = s.straggler_pace;
    return s.step_time_s;
}

/* Fit compute_eff of (stack, device, precision) on its calibrate rows:
 * minimise the sum of squared log errors over log(eff) in [EFF_MIN, 1] by
 * golden-section search (the step time falls as eff rises, so the
 * objective is unimodal in practice). */
static double fit_eff(dnp_validation *v, row_setup *rs, const int *members, int n_members,
                      const char *device, double *rms)
{
    const double phi = 0.6180339887498949;
    double lo = log(EFF_MIN), hi = 0.0;
    char note[600];
#define OBJ(le_, out_)                                                                      \
    do {                                                                                    \
        double s_ = 0.0;                                                                    \
        for (int j_ = 0; j_ < n_members; j_++) {                                            \
            int i_ = members[j_];                                                           \
            double pr_ = predict(&rs[i_], device, exp(le_), note, sizeof note, NULL);             \
            double d_ = log(pr_ / v->rows[i_].measured_step_s);                             \
            s_ += isfinite(d_) ? d_ * d_ : 1e9;                                             \
        }                                                                                   \
        (out_) = s_;                                                                        \
    } while (0)
    double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo), fa, fb;
    OBJ(a, fa);
    OBJ(b, fb);
    for (int it = 0; it < FIT_ITERATIONS; it++) {
        if (fa <= fb) {
            hi = b;
            b = a;
            fb = fa;
            a = hi - phi * (hi - lo);
            OBJ(a, fa);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + phi * (hi - lo);
            OBJ(b, fb);
        }
    }
    double best = 0.5 * (lo + hi), f;
    OBJ(best, f);
#undef OBJ
    *rms = sqrt(f / (n_members > 0 ? n_members : 1));
    return exp(best);
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

dnp_status dnp_validate_csv(const char *path, int calibrate, dnp_validation **out,
                            dnp_error *err)
{
    char *data = NULL;
    size_t len = 0;
    dnp_status st = dnp_input_read(path, MAX_CSV_BYTES, &data, &len, err);
    if (st != DNP_OK)
        return st;
    st = dnp_validate_csv_buffer(data, len, dnp_input_display(path), calibrate, out, err);
    dnp_free(data);
    return st;
}

dnp_status dnp_validate_csv_buffer(const char *data, size_t len_bytes, const char *name,
                                   int calibrate, dnp_validation **out, dnp_error *err)
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
    for (int i = 0; i < n; i++)
        setup_row(&v->rows[i], &rs[i]);
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
        snprintf(fit->stack, sizeof fit->stack, "%s", r->stack);
        snprintf(fit->device, sizeof fit->device, "%s", row_device(&rs[i]));
        snprintf(fit->precision, sizeof fit->precision, "%s", r->precision);
        fit->n_rows = m;
        fit->compute_eff = fit_eff(v, rs, members, m, fit->device, &fit->rms_log_error);
    }
    /* Predict every row with its group's fit (or the preset default). */
    int nv = 0;
    double sum_abs = 0.0, max_abs = 0.0;
    for (int i = 0; i < n; i++) {
        dnp_validation_row *r = &v->rows[i];
        if (!rs[i].ok)
            continue;
        double eff = 0.0;
        for (int f = 0; f < v->n_fits; f++)
            if (strcmp(v->fits[f].stack, r->stack) == 0 &&
                strcmp(v->fits[f].device, row_device(&rs[i])) == 0 &&
                strcmp(v->fits[f].precision, r->precision) == 0) {
                eff = v->fits[f].compute_eff;
                r->calibrated = 1;
            }
        if (calibrate && !r->calibrated)
            snprintf(r->note, sizeof r->note, "no calibrate row for stack %s, %s, %s: preset "
                     "default efficiency", r->stack, row_device(&rs[i]), r->precision);
        /* the efficiency in force: fitted, else the device's own, else the model's */
        double own = rs[i].cl.n_types > 0 ? rs[i].cl.types[0].compute_eff : 0.0;
        r->compute_eff = eff > 0.0 ? eff : own > 0.0 ? own : PERF_DEFAULT_COMPUTE_EFF;
        r->predicted_step_s = predict(&rs[i], row_device(&rs[i]), eff, r->note, sizeof r->note,
                                      &r->straggler_pace);
        r->error_pct = 100.0 * (r->predicted_step_s - r->measured_step_s) / r->measured_step_s;
        if (strcmp(r->role, "validate") == 0 && isfinite(r->error_pct)) {
            pa[nv] = r->predicted_step_s;
            ma[nv] = r->measured_step_s;
            nv++;
            sum_abs += fabs(r->error_pct);
            max_abs = fabs(r->error_pct) > max_abs ? fabs(r->error_pct) : max_abs;
        }
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
