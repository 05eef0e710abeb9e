/* cmd_validate.c - `dnnpar validate FILE.csv`: predicted against measured
 * step times of published runs (docs/validation.md). */
#include "cli.h"

#include <math.h>
#include <string.h>

static const char help[] =
    "usage: dnnpar validate FILE.csv [--no-calibrate] [--json FILE]\n"
    "\n"
    "Predict the measured training runs in FILE.csv (columns id, stack, role,\n"
    "model, cluster, batch, precision, search, measured_step_s, source) with the\n"
    "default performance model.  For each stack, device type and precision the\n"
    "compute efficiency is fitted on that stack's `calibrate` rows only; the\n"
    "`validate` rows are then predicted and summarised: mean absolute percentage\n"
    "error, largest absolute error and Spearman's rank correlation.\n"
    "\n"
    "  --no-calibrate  use the preset default efficiencies for every row\n"
    "  --json FILE     rows and summary as JSON (- for standard output)\n"
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

static json_t *to_json(const dnp_validation *v)
{
    json_t *rows = json_array(), *fits = json_array();
    for (int i = 0; i < v->n_rows; i++) {
        const dnp_validation_row *r = &v->rows[i];
        json_t *o = json_pack("{s:s,s:s,s:s,s:o,s:f,s:o,s:o,s:b}", "id", r->id, "role", r->role,
                              "stack", r->stack, "predicted_step_s",
                              num_or_null(r->predicted_step_s), "measured_step_s",
                              r->measured_step_s, "error_pct", num_or_null(r->error_pct),
                              "compute_eff", num_or_null(r->compute_eff),
                              "calibrated", r->calibrated);
        if (r->note[0])
            json_object_set_new(o, "note", json_string(r->note));
        if (isfinite(r->predicted_step_s))
            json_object_set_new(o, "straggler_pace", json_real(r->straggler_pace));
        json_array_append_new(rows, o);
    }
    for (int f = 0; f < v->n_fits; f++) {
        const dnp_calibration *c = &v->fits[f];
        json_array_append_new(fits, json_pack("{s:s,s:s,s:s,s:f,s:i,s:f}", "stack", c->stack,
                                              "device", c->device, "precision", c->precision,
                                              "compute_eff", c->compute_eff, "rows", c->n_rows,
                                              "rms_log_error", c->rms_log_error));
    }
    json_t *root = json_pack("{s:o,s:o,s:{s:i,s:o,s:o,s:o}}", "rows", rows, "calibration", fits,
                             "validate", "n", v->n_validate, "mape_pct", num_or_null(v->mape_pct),
                             "max_abs_error_pct", num_or_null(v->max_abs_error_pct), "spearman",
                             num_or_null(v->spearman));
    if (root != NULL && any_stragglers(v))
        json_object_set_new(root, "stragglers_source", json_string(DNP_SPEED_CV_SOURCE));
    return root;
}

static void to_text(const dnp_validation *v, int calibrate)
{
    if (calibrate) {
        printf("calibration (compute efficiency fitted on calibrate rows only):\n");
        if (v->n_fits == 0)
            printf("  none: no calibrate row could be predicted\n");
        for (int f = 0; f < v->n_fits; f++) {
            const dnp_calibration *c = &v->fits[f];
            char bound[128] = "";
            if (c->compute_eff > 0.999)
                snprintf(bound, sizeof bound,
                         " at its bound: slower than measured even at peak (rms log error "
                         "%.3f)",
                         c->rms_log_error);
            cli_wrapf(stdout, 0, "    ", "  %-24s %-10s %-5s compute_eff %.4f (%d row%s)%s",
                      c->stack, c->device, c->precision, c->compute_eff, c->n_rows,
                      c->n_rows == 1 ? "" : "s", bound);
        }
    } else {
        printf("no calibration: preset default efficiencies (docs/device-model.md)\n");
    }
    /* One unit for both time columns, named in their headers: the one the
     * largest time of the predicted rows reads best in (cli_time_unit), so
     * predicted and measured compare digit by digit. */
    double max_s = 0.0, per_s;
    for (int i = 0; i < v->n_rows; i++) {
        const dnp_validation_row *r = &v->rows[i];
        if (!isfinite(r->predicted_step_s))
            continue;
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
            cli_wrapf(stdout, 0, "    ", "  %s: not predicted: %s", v->rows[i].id, v->rows[i].note);
    printf("\nvalidate rows: %d predicted", v->n_validate);
    if (v->n_validate > 0)
        printf("; mean absolute error %.1f%%, largest %.1f%%", v->mape_pct, v->max_abs_error_pct);
    else
        printf("; mean absolute error undefined (no validate row could be predicted: see the "
               "notes)");
    if (isfinite(v->spearman))
        printf("; Spearman %.3f", v->spearman);
    printf("\n");
    if (any_stragglers(v))
        printf("stragglers: the factor on kernel times for the expected slowest device\n"
               "  source: %s\n",
               DNP_SPEED_CV_SOURCE);
}

int cmd_validate(int argc, char **argv)
{
    static const char *const valued[] = {"json", NULL};
    static const char *const flags[] = {"help", "no-calibrate", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "validate", help, 1, "one FILE.csv", &a, &done);
    if (rc != 0 || done)
        return rc;
    int calibrate = !cli_flag(&a, "no-calibrate");
    dnp_validation *v = NULL;
    dnp_error err = {0};
    if (dnp_validate_csv(a.pos[0], calibrate, &v, &err) != DNP_OK) {
        cli_error("validate", "%s", err.msg);
        return cli_exit_for(err.status);
    }
    const char *json = cli_get(&a, "json");
    if (json != NULL)
        rc = cli_write_json("validate", json, to_json(v));
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0))
        to_text(v, calibrate);
    dnp_validation_free(v);
    return rc;
}
