/* The fit of a stack's parameters (src/report/calibrate.c) on predictors
 * worked by hand: t = W / compute_eff + K x host_kernel_s. */
#include "report/calibrate.h"
#include "test.h"

typedef struct {
    double w[4], k[4];
} lin_rows;

static double lin_predict(void *ctx, int row, const calib_params *p)
{
    const lin_rows *r = ctx;
    return r->w[row] / p->compute_eff + r->k[row] * p->host_kernel_s;
}

TEST(calibrate_two_rows_fit_both)
{
    /* row 0 is all compute: 1 / eff = 2 s gives eff 0.5; row 1 adds 1e5
     * kernels of host time: 2 + 1e5 x 20 us = 4 s gives 20 us */
    lin_rows r = {{1.0, 1.0}, {0.0, 1e5}};
    int rows[2] = {0, 1};
    double meas[2] = {2.0, 4.0};
    calib_fit f;
    calib_fit_rows(lin_predict, &r, rows, meas, 2, 0.57, 7.1e-6, &f);
    CHECK(f.fitted_eff && f.fitted_host);
    CHECK_NEAR(f.p.compute_eff, 0.5, 1e-4, 0);
    CHECK_NEAR(f.p.host_kernel_s, 20e-6, 1e-2, 0);
    CHECK(f.rms_log_error < 1e-4);
}

TEST(calibrate_one_row_fits_its_dominant_parameter)
{
    /* one row, at the defaults 1 / 0.57 = 1.754 s of compute against
     * 1e5 x 7.1 us = 0.71 s of host time: it depends on the ceiling most
     * (sensitivity 0.71 against 0.29), so only the ceiling is fitted, to
     * solve the row exactly: 1 / eff + 0.71 = 3 gives eff = 0.43573 */
    lin_rows r = {{1.0}, {1e5}};
    int rows[1] = {0};
    double meas[1] = {3.0};
    calib_fit f;
    calib_fit_rows(lin_predict, &r, rows, meas, 1, 0.57, 7.1e-6, &f);
    CHECK(f.fitted_eff && !f.fitted_host);
    CHECK_NEAR(f.p.host_kernel_s, 0.0, 0, 0);
    CHECK_NEAR(f.p.compute_eff, 1.0 / (3.0 - 0.71), 1e-6, 0);
    /* the sensitivity is the finite difference at a 10% step */
    double t0 = 1.0 / 0.57 + 0.71, t1 = 1.0 / (0.57 * 1.1) + 0.71;
    CHECK_NEAR(f.sens_eff, log(t0 / t1) / log(1.1), 1e-9, 0);
    /* a row bound by the host: 1e6 kernels (7.1 s at the default) */
    r.k[0] = 1e6;
    meas[0] = 1.0 / 0.57 + 1e6 * 30e-6;
    calib_fit_rows(lin_predict, &r, rows, meas, 1, 0.57, 7.1e-6, &f);
    CHECK(!f.fitted_eff && f.fitted_host);
    CHECK_NEAR(f.p.host_kernel_s, 30e-6, 1e-6, 0);
}

TEST(calibrate_one_row_rejects_an_unphysical_ceiling)
{
    /* one row of W = 1 s of compute at peak and K = 1e5 kernels measured at
     * 20 s: at the defaults (1 / 0.57 + 0.71 = 2.464 s) the ceiling is the
     * more sensitive parameter, but alone it would have to fall to
     * 1 / (20 - 0.71) = 0.05184, below CALIB_EFF_PLAUSIBLE_MIN; the host
     * time alone explains the row exactly, (20 - 1 / 0.57) / 1e5 = 182.46 us,
     * so that is what is fitted */
    lin_rows r = {{1.0}, {1e5}};
    int rows[1] = {0};
    double meas[1] = {20.0};
    calib_fit f;
    calib_fit_rows(lin_predict, &r, rows, meas, 1, 0.57, 7.1e-6, &f);
    CHECK(!f.fitted_eff && f.fitted_host && f.eff_implausible);
    CHECK_NEAR(f.eff_rejected, 1.0 / (20.0 - 0.71), 1e-6, 0);
    CHECK_NEAR(f.p.host_kernel_s, (20.0 - 1.0 / 0.57) / 1e5, 1e-6, 0);
    CHECK(f.rms_log_error < 1e-6);
    /* with 1e4 kernels the host time would need 1.82 ms per kernel, past
     * CALIB_HOST_MAX_S: the host cannot explain the row, the ceiling stays */
    r.k[0] = 1e4;
    calib_fit_rows(lin_predict, &r, rows, meas, 1, 0.57, 7.1e-6, &f);
    CHECK(f.fitted_eff && !f.fitted_host && !f.eff_implausible);
    CHECK_NEAR(f.p.compute_eff, 1.0 / (20.0 - 0.071), 1e-6, 0);
}
