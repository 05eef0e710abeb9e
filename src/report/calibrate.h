/*
 * calibrate.h - the fit of a stack's physical parameters on measured steps
 * (docs/validation.md, "Calibration").
 *
 * A software stack on a device at a precision has two parameters the
 * datasheets do not give: the GEMM ceiling (dnp_device_type.compute_eff,
 * the fraction of peak a large GEMM reaches) and the host time to issue a
 * kernel (host_kernel_s, docs/device-model.md "Host dispatch").  Both are
 * fitted by least squares on log step times over the stack's calibrate
 * rows; a row constrains only the parameters its prediction depends on, so
 * with one row only the parameter that row is most sensitive to is fitted
 * and the other keeps its default.
 */
#ifndef DNNPAR_CALIBRATE_H
#define DNNPAR_CALIBRATE_H

/* The fitted parameters (0 = the model default). */
typedef struct {
    double compute_eff;
    double host_kernel_s;
} calib_params;

/* Predicted step time (s) of calibrate row `row` under parameters p;
 * NAN or a non-positive value when the row cannot be predicted. */
typedef double (*calib_predict_fn)(void *ctx, int row, const calib_params *p);

/* Search bounds: compute_eff in [CALIB_EFF_MIN, 1], host_kernel_s in
 * [CALIB_HOST_MIN_S, CALIB_HOST_MAX_S], both on a log scale. */
#define CALIB_EFF_MIN 0.02
/* The lowest GEMM ceiling taken as physical.  cuBLAS reaches well over half
 * of the tensor-core peak on large GEMMs on every GPU since Volta (NVIDIA,
 * "Matrix Multiplication Background User's Guide", figures 2-3 on A100 and
 * V100), and the shape, memory and host terms of the model account for the
 * rest; a one-row fit that needs the ceiling below this says the row is
 * slow for another reason, so the host time is fitted instead when it can
 * explain the row (calib_fit.eff_implausible). */
#define CALIB_EFF_PLAUSIBLE_MIN 0.15
#define CALIB_HOST_MIN_S 1e-6
#define CALIB_HOST_MAX_S 1e-3

typedef struct {
    calib_params p;          /* the fit (a parameter not fitted stays 0: default) */
    int fitted_eff, fitted_host; /* 1: that parameter was fitted */
    double rms_log_error;    /* sqrt(mean squared log(predicted / measured)) at p */
    double sens_eff, sens_host; /* |d log t / d log parameter| at the defaults, summed
                                 * over the rows */
    int eff_at_bound;        /* the ceiling sits at 1: slower than measured even at peak */
    int eff_implausible;     /* one row: the ceiling would have had to fall to eff_rejected
                              * (< CALIB_EFF_PLAUSIBLE_MIN), so the host time was fitted */
    double eff_rejected;
} calib_fit;

/* Fit the parameters on rows[0..n_rows) with measured steps measured_s[]
 * (seconds), predicting through fn(ctx, rows[i], params).  default_eff and
 * default_host_s are the values a parameter takes when it is not fitted
 * (the model defaults, for the sensitivities).  With two or more rows
 * sensitive to both parameters, both are fitted by coordinate descent
 * (golden-section search on each in turn until neither moves by 1e-9 of
 * itself, at most CALIB_ROUNDS rounds); otherwise only the more sensitive
 * one, unless that is the ceiling and its fit falls below
 * CALIB_EFF_PLAUSIBLE_MIN while the host time alone fits the rows at
 * least as well (then the host time, eff_implausible set).  O(rows x CALIB_ROUNDS x 2 x 60) predictions. */
void calib_fit_rows(calib_predict_fn fn, void *ctx, const int *rows, const double *measured_s,
                    int n_rows, double default_eff, double default_host_s, calib_fit *out);

#define CALIB_ROUNDS 60

#endif
