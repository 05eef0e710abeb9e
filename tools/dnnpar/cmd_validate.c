/* cmd_validate.c - `dnnpar validate FILE.csv`: predicted against measured
 * step times of published runs (docs/validation.md). */
#include "cli.h"

#include <math.h>
#include <string.h>

static const char help[] =
    "usage: dnnpar validate FILE.csv [--no-calibrate] [--json FILE] [--time-limit S]\n"
    "\n"
    "Predict the measured training runs in FILE.csv (columns id, stack, role,\n"
    "model, cluster, batch, precision, search, measured_step_s; for search\n"
    "config also tp, pp, dp, microbatch, interleave, recompute, seq_par, layers,\n"
    "zero, schedule, grad_dtype; source and note are context; docs/validation.md)\n"
    "with the default performance model.  Columns it does not read are named on\n"
    "standard error.  For each stack, device type and precision the compute\n"
    "efficiency is fitted on that stack's `calibrate` rows only; the `validate`\n"
    "rows are then predicted and summarised: mean absolute percentage error,\n"
    "largest absolute error and Spearman's rank correlation.  A row that cannot\n"
    "be predicted keeps its reason; the others still run.\n"
    "\n"
    "  --no-calibrate  use the preset default efficiencies for every row\n"
    "  --json FILE     rows and summary as JSON (- for standard output)\n"
    CLI_RUN_LIMIT_HELP
    "\n"
    "examples:\n"
    "  dnnpar validate data/validation/resnet50.csv\n"
    "  dnnpar validate runs.csv --no-calibrate --json -\n";

static json_t *num_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* 1 if some prediction used a straggler factor above 1 (a measured input). */
static int any_stragglers(const dnp_validation *v)
{
    for (int i = 0; i < v->n_rows; i++)
        if (isfinite(v->rows[i].predicted_step_s) && v->rows[i].straggler_pace > 1.0)
            return 1;
    return 0;
}

/* Sets key to x in o when x is finite (a part of the predicted step). */
static void set_finite(json_t *o, const char *key, double x)
{
    if (isfinite(x))
        json_object_set_new(o, key, json_real(x));
}

static json_t *to_json(const dnp_validation *v)
{
    json_t *rows = json_array(), *fits = json_array(), *unread = json_array();
    for (int i = 0; i < v->n_rows; i++) {
        const dnp_validation_row *r = &v->rows[i];
        json_t *o = json_pack("{s:s,s:i,s:s,s:s,s:o,s:f,s:o,s:o,s:b}", "id", r->id, "line",
                              r->line, "role", r->role, "stack", r->stack, "predicted_step_s",
                              num_or_null(r->predicted_step_s), "measured_step_s",
                              r->measured_step_s, "error_pct", num_or_null(r->error_pct),
                              "compute_eff", num_or_null(r->compute_eff),
                              "calibrated", r->calibrated);
        if (o == NULL)
            continue;
        if (r->config[0])
            json_object_set_new(o, "config", json_string(r->config));
        if (r->note[0])
            json_object_set_new(o, "note", json_string(r->note));
        if (isfinite(r->predicted_step_s)) {
            json_object_set_new(o, "straggler_pace", json_real(r->straggler_pace));
            static const char *const keys[] = {"busy_s",      "bubble_s",       "tp_comm_s",
                                               "dp_comm_s",   "p2p_s",          "optimizer_s",
                                               "compute_s",   "exposed_comm_s", "mem_bytes",
                                               "mem_capacity_bytes"};
            const double vals[] = {r->busy_s,      r->bubble_s,       r->tp_comm_s,
                                   r->dp_comm_s,   r->p2p_s,          r->optimizer_s,
                                   r->compute_s,   r->exposed_comm_s, r->mem_bytes,
                                   r->mem_capacity_bytes};
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                set_finite(o, keys[k], vals[k]);
            if (r->fits >= 0)
                json_object_set_new(o, "fits", json_boolean(r->fits));
        }
        json_array_append_new(rows, o);
    }
    for (int f = 0; f < v->n_fits; f++) {
        const dnp_calibration *c = &v->fits[f];
        json_array_append_new(fits, json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:i,s:f}", "stack",
                                              c->stack, "device", c->device, "precision",
                                              c->precision, "compute_eff",
                                              c->compute_eff > 0.0 ? json_real(c->compute_eff)
                                                                   : json_null(),
                                              "host_kernel_s",
                                              c->host_kernel_s > 0.0
                                                  ? json_real(c->host_kernel_s)
                                                  : json_null(),
                                              "compute_eff_rejected",
                                              c->eff_rejected > 0.0 ? json_real(c->eff_rejected)
                                                                    : json_null(),
                                              "rows", c->n_rows, "rms_log_error",
                                              c->rms_log_error));
    }
    for (int k = 0; k < v->n_unread_columns; k++)
        json_array_append_new(unread, json_string(v->unread_columns[k]));
    json_t *root = json_pack("{s:o,s:o,s:{s:i,s:o,s:o,s:o},s:i,s:o}", "rows", rows,
                             "calibration", fits, "validate", "n", v->n_validate, "mape_pct",
                             num_or_null(v->mape_pct), "max_abs_error_pct",
                             num_or_null(v->max_abs_error_pct), "spearman",
                             num_or_null(v->spearman), "not_predicted", v->n_not_predicted,
                             "unread_columns", unread);
    if (root != NULL && any_stragglers(v))
        json_object_set_new(root, "stragglers_source", json_string(DNP_SPEED_CV_SOURCE));
    return root;
}

/* The predicted step in parts, one row per predicted row, with the columns
 * some row has (search config: busy, bubble, tp, dp, p2p, optimizer; other
 * searches: compute, exposed communication; both: memory), times in the
 * main table's unit. */
static void print_breakdown(const dnp_validation *v, const char *unit, double per_s)
{
    enum { K_BUSY, K_BUBBLE, K_TP, K_DP, K_P2P, K_OPT, K_COMPUTE, K_EXPOSED, K_MEM, K_FITS,
           K_N };
    static const char *const names[K_N] = {"busy",    "bubble",       "tp comm",
                                           "dp comm", "p2p message",  "optimizer",
                                           "compute", "exposed comm", "memory (GB)",
                                           "fits"};
    int have[K_N] = {0}, any = 0;
    for (int i = 0; i < v->n_rows; i++) {
        const dnp_validation_row *r = &v->rows[i];
        if (!isfinite(r->predicted_step_s))
            continue;
        const double x[K_N] = {r->busy_s,      r->bubble_s,    r->tp_comm_s, r->dp_comm_s,
                               r->p2p_s,       r->optimizer_s, r->compute_s,
                               r->exposed_comm_s, r->mem_bytes, r->fits >= 0 ? 1.0 : NAN};
        for (int k = 0; k < K_N; k++)
            any |= have[k] |= isfinite(x[k]);
    }
    if (!any)
        return;
    const char *header[K_N + 1] = {"id"};
    char align[K_N + 2] = "l";
    int n_cols = 1, col_of[K_N];
    for (int k = 0; k < K_N; k++) {
        col_of[k] = -1;
        if (!have[k])
            continue;
        col_of[k] = n_cols;
        header[n_cols] = names[k];
        align[n_cols++] = 'r';
    }
    align[n_cols] = '\0';
    cli_table *t = cli_table_new(n_cols, align, header);
    for (int i = 0; i < v->n_rows && t != NULL; i++) {
        const dnp_validation_row *r = &v->rows[i];
        if (!isfinite(r->predicted_step_s))
            continue;
        char cell[K_N][32];
        const char *row[K_N + 1] = {r->id};
        const double x[K_MEM] = {r->busy_s,    r->bubble_s,    r->tp_comm_s,
                                 r->dp_comm_s, r->p2p_s,       r->optimizer_s,
                                 r->compute_s, r->exposed_comm_s};
        for (int k = 0; k < K_N; k++) {
            if (col_of[k] < 0)
                continue;
            snprintf(cell[k], sizeof cell[k], "-");
            if (k < K_MEM && isfinite(x[k]))
                snprintf(cell[k], sizeof cell[k], "%.3f", x[k] * per_s);
            else if (k == K_MEM && isfinite(r->mem_bytes))
                snprintf(cell[k], sizeof cell[k], "%.3g of %.3g", r->mem_bytes / 1e9,
                         r->mem_capacity_bytes / 1e9);
            else if (k == K_FITS && r->fits >= 0)
                snprintf(cell[k], sizeof cell[k], "%s", r->fits ? "yes" : "no");
            row[col_of[k]] = cell[k];
        }
        if (cli_table_add(t, row) != 0) {
            cli_table_free(t);
            t = NULL;
        }
    }
    printf("\npredicted step in parts (%s; busy + bubble = the step; memory of the fullest "
           "device):\n", unit);
    if (t == NULL)
        cli_error("validate", "out of memory printing the table");
    else
        cli_table_print(t, stdout, CLI_MAX_WIDTH, 0);
    cli_table_free(t);
}

static void to_text(const dnp_validation *v, int calibrate)
{
    if (calibrate) {
        printf("calibration (GEMM ceiling and host time per kernel, fitted on calibrate rows "
               "only):\n");
        int n_cal = 0;
        for (int i = 0; i < v->n_rows; i++)
            n_cal += strcmp(v->rows[i].role, "calibrate") == 0;
        if (v->n_fits == 0)
            printf(n_cal ? "  none: no calibrate row could be predicted\n"
                         : "  none: the file has no calibrate row\n");
        for (int f = 0; f < v->n_fits; f++) {
            const dnp_calibration *c = &v->fits[f];
            char bound[128] = "", eff[40], host[40];
            if (c->eff_at_bound)
                snprintf(bound, sizeof bound,
                         " at its bound: slower than measured even at peak (rms log error "
                         "%.3f)",
                         c->rms_log_error);
            else if (c->eff_rejected > 0.0)
                snprintf(bound, sizeof bound,
                         "; the ceiling alone would be %.4f, not a physical GEMM ceiling",
                         c->eff_rejected);
            if (c->compute_eff > 0.0)
                snprintf(eff, sizeof eff, "compute_eff %.4f", c->compute_eff);
            else
                snprintf(eff, sizeof eff, "compute_eff default");
            if (c->host_kernel_s > 0.0)
                snprintf(host, sizeof host, "host %.2f us/kernel", c->host_kernel_s * 1e6);
            else
                snprintf(host, sizeof host, "host default");
            cli_wrapf(stdout, 0, "    ", "  %-24s %-10s %-5s %s, %s (%d row%s)%s", c->stack,
                      c->device, c->precision, eff, host, c->n_rows, c->n_rows == 1 ? "" : "s",
                      bound);
        }
    } else {
        printf("no calibration: preset default efficiencies (docs/device-model.md)\n");
    }
    /* One unit for both time columns, named in their headers: the one the
     * largest time of the predicted rows (of every row when none was
     * predicted) reads best in (cli_time_unit), so predicted and measured
     * compare digit by digit. */
    double max_s = 0.0, per_s;
    for (int i = 0; i < v->n_rows; i++) {
        const dnp_validation_row *r = &v->rows[i];
        if (!isfinite(r->predicted_step_s) && v->n_not_predicted < v->n_rows)
            continue;
        if (isfinite(r->predicted_step_s))
            max_s = r->predicted_step_s > max_s ? r->predicted_step_s : max_s;
        max_s = r->measured_step_s > max_s ? r->measured_step_s : max_s;
    }
    const char *unit = cli_time_unit(max_s, &per_s);
    char h_pred[32], h_meas[32];
    snprintf(h_pred, sizeof h_pred, "predicted (%s)", unit);
    snprintf(h_meas, sizeof h_meas, "measured (%s)", unit);
    /* columns sized to their content (cli_table: a long row id keeps them
     * aligned); a row that could not be predicted says why below the table */
    const char *header[6] = {"id", "role", h_pred, h_meas, "error", "stragglers"};
    cli_table *t = cli_table_new(6, "llrrrr", header);
    for (int i = 0; i < v->n_rows && t != NULL; i++) {
        const dnp_validation_row *r = &v->rows[i];
        char a[32] = "-", b[32], e[32] = "-", x[32] = "(below)";
        snprintf(b, sizeof b, "%.3f", r->measured_step_s * per_s);
        if (isfinite(r->predicted_step_s)) {
            snprintf(a, sizeof a, "%.3f", r->predicted_step_s * per_s);
            snprintf(e, sizeof e, "%+.1f%%", r->error_pct);
            snprintf(x, sizeof x, "%.4fx", r->straggler_pace);
        }
        const char *row[6] = {r->id, r->role, a, b, e, x};
        if (cli_table_add(t, row) != 0) {
            cli_table_free(t);
            t = NULL;
        }
    }
    printf("\n");
    if (t == NULL)
        cli_error("validate", "out of memory printing the table");
    else
        cli_table_print(t, stdout, CLI_MAX_WIDTH, -1);
    cli_table_free(t);
    for (int i = 0; i < v->n_rows; i++)
        if (!isfinite(v->rows[i].predicted_step_s))
            cli_wrapf(stdout, 0, "    ", "  %s (line %d): not predicted: %s", v->rows[i].id,
                      v->rows[i].line, v->rows[i].note);
    print_breakdown(v, unit, per_s);
    printf("\nvalidate rows: %d predicted", v->n_validate);
    if (v->n_validate > 0)
        printf("; mean absolute error %.1f%%, largest %.1f%%", v->mape_pct, v->max_abs_error_pct);
    else
        printf("; mean absolute error undefined (no validate row could be predicted: see the "
               "notes)");
    if (isfinite(v->spearman))
        printf("; Spearman %.3f", v->spearman);
    printf("\n");
    if (v->n_not_predicted > 0) {
        int nv = 0;
        for (int i = 0; i < v->n_rows; i++)
            nv += !isfinite(v->rows[i].predicted_step_s) && strcmp(v->rows[i].role, "validate") == 0;
        printf("not predicted: %d of %d rows (%d validate, %d calibrate): the reasons are above\n",
               v->n_not_predicted, v->n_rows, nv, v->n_not_predicted - nv);
    }
    if (any_stragglers(v))
        printf("stragglers: the factor on kernel times for the expected slowest device\n"
               "  source: %s\n",
               DNP_SPEED_CV_SOURCE);
}

int cmd_validate(int argc, char **argv)
{
    static const char *const valued[] = {"json", "time-limit", NULL};
    static const char *const flags[] = {"help", "no-calibrate", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "validate", help, 1, "one FILE.csv", &a, &done);
    if (rc != 0 || done)
        return rc;
    int calibrate = !cli_flag(&a, "no-calibrate");
    dnp_plan_options limit = {0}; /* the time limit only: one deadline for every row */
    if ((rc = cli_deadline("validate", &a, &limit)) != 0)
        return rc;
    dnp_validation *v = NULL;
    dnp_error err = {0};
    if (dnp_validate_csv_limited(a.pos[0], calibrate, &limit, &v, &err) != DNP_OK) {
        cli_error("validate", "%s", err.msg);
        return cli_exit_for(err.status);
    }
    if (v->n_unread_columns > 0) {
        /* named once, bytes that are not printable ASCII shown as '?' */
        fprintf(stderr, "dnnpar validate: %s: ignoring column%s ",
                strcmp(a.pos[0], "-") == 0 ? "<stdin>" : a.pos[0],
                v->n_unread_columns == 1 ? "" : "s");
        for (int k = 0; k < v->n_unread_columns; k++) {
            fputs(k ? ", " : "", stderr);
            for (const char *c = v->unread_columns[k]; *c != '\0'; c++)
                fputc(*c >= 0x20 && *c < 0x7f ? *c : '?', stderr);
        }
        fprintf(stderr, " (not read)\n");
    }
    const char *json = cli_get(&a, "json");
    if (json != NULL)
        rc = cli_write_json("validate", json, to_json(v));
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0))
        to_text(v, calibrate);
    dnp_validation_free(v);
    return rc;
}
