/*
 * calibrate.c - least-squares fit of a stack's GEMM ceiling and host time
 * per kernel on its calibrate rows (calibrate.h, docs/validation.md).
 */
#include "report/calibrate.h"

#include <math.h>
#include <string.h>

/* Golden-section steps per one-parameter search: the bracket shrinks by
 * 0.618^60 ~ 3e-13 of its log width. */
#define GOLDEN_STEPS 60
/* A parameter is identifiable from the rows when the log step time moves by
 * at least this much per unit log change of it, summed over the rows. */
#define CALIB_MIN_SENSITIVITY 0.05
/* Relative step of the finite differences of the sensitivities. */
#define SENS_STEP 1.1

typedef struct {
    calib_predict_fn fn;
    void *ctx;
    const int *rows;
    const double *measured_s;
    int n;
} calib_problem;

/* Sum of squared log errors at p; a row that cannot be predicted counts
 * 1e9 (the search avoids the parameters that break it). */
static double sse(const calib_problem *pb, const calib_params *p)
{
    double s = 0.0;
    for (int i = 0; i < pb->n; i++) {
        double t = pb->fn(pb->ctx, pb->rows[i], p);
        double d = t > 0.0 ? log(t / pb->measured_s[i]) : NAN;
        s += isfinite(d) ? d * d : 1e9;
    }
    return s;
}

/* Minimise sse over log(*x) in [log lo, log hi] by golden-section search
 * (the step time is monotone in each parameter, so the objective is
 * unimodal in practice); leaves the minimiser in *x. */
static void golden(const calib_problem *pb, calib_params *p, double *x, double lo, double hi)
{
    const double phi = 0.6180339887498949;
    double a_lo = log(lo), a_hi = log(hi);
    double a = a_hi - phi * (a_hi - a_lo), b = a_lo + phi * (a_hi - a_lo);
    *x = exp(a);
    double fa = sse(pb, p);
    *x = exp(b);
    double fb = sse(pb, p);
    for (int it = 0; it < GOLDEN_STEPS; it++) {
        if (fa <= fb) {
            a_hi = b;
            b = a;
            fb = fa;
            a = a_hi - phi * (a_hi - a_lo);
            *x = exp(a);
            fa = sse(pb, p);
        } else {
            a_lo = a;
            a = b;
            fa = fb;
            b = a_lo + phi * (a_hi - a_lo);
            *x = exp(b);
            fb = sse(pb, p);
        }
    }
    *x = exp(0.5 * (a_lo + a_hi));
}

/* sum over the rows of |d log t / d log x| at p, x one of p's fields */
static double sensitivity(const calib_problem *pb, calib_params *p, double *x)
{
    double s = 0.0, x0 = *x;
    for (int i = 0; i < pb->n; i++) {
        *x = x0;
        double t0 = pb->fn(pb->ctx, pb->rows[i], p);
        *x = x0 * SENS_STEP;
        double t1 = pb->fn(pb->ctx, pb->rows[i], p);
        if (t0 > 0.0 && t1 > 0.0 && isfinite(t0) && isfinite(t1))
            s += fabs(log(t1 / t0)) / log(SENS_STEP);
    }
    *x = x0;
    return s;
}

void calib_fit_rows(calib_predict_fn fn, void *ctx, const int *rows, const double *measured_s,
                    int n_rows, double default_eff, double default_host_s, calib_fit *out)
{
    memset(out, 0, sizeof *out);
    calib_problem pb = {fn, ctx, rows, measured_s, n_rows};
    if (n_rows <= 0)
        return;
    calib_params p = {default_eff, default_host_s};
    out->sens_eff = sensitivity(&pb, &p, &p.compute_eff);
    out->sens_host = sensitivity(&pb, &p, &p.host_kernel_s);
    int fit_eff = out->sens_eff >= CALIB_MIN_SENSITIVITY;
    int fit_host = out->sens_host >= CALIB_MIN_SENSITIVITY;
    if (n_rows == 1 || !fit_eff || !fit_host) {
        /* one equation: only the parameter the rows depend on most */
        fit_eff = out->sens_eff >= out->sens_host;
        fit_host = !fit_eff;
    }
    for (int round = 0; round < (fit_eff && fit_host ? CALIB_ROUNDS : 1); round++) {
        calib_params was = p;
        if (fit_eff)
            golden(&pb, &p, &p.compute_eff, CALIB_EFF_MIN, 1.0);
        if (fit_host)
            golden(&pb, &p, &p.host_kernel_s, CALIB_HOST_MIN_S, CALIB_HOST_MAX_S);
        if (fabs(log(p.compute_eff / was.compute_eff)) < 1e-9 &&
            fabs(log(p.host_kernel_s / was.host_kernel_s)) < 1e-9)
            break; /* converged */
    }
    if (fit_eff && !fit_host && p.compute_eff < CALIB_EFF_PLAUSIBLE_MIN) {
        /* an implausible ceiling: does the host time explain the rows? */
        calib_params q = {default_eff, default_host_s};
        golden(&pb, &q, &q.host_kernel_s, CALIB_HOST_MIN_S, CALIB_HOST_MAX_S);
        if (sse(&pb, &q) <= sse(&pb, &p) + 1e-9 * n_rows) { /* as well, to rounding */
            out->eff_implausible = 1;
            out->eff_rejected = p.compute_eff;
            p = q;
            fit_eff = 0;
            fit_host = 1;
        }
    }
    out->fitted_eff = fit_eff;
    out->fitted_host = fit_host;
    out->p.compute_eff = fit_eff ? p.compute_eff : 0.0;
    out->p.host_kernel_s = fit_host ? p.host_kernel_s : 0.0;
    out->eff_at_bound = fit_eff && p.compute_eff > 0.999;
    out->rms_log_error = sqrt(sse(&pb, &p) / n_rows);
}
