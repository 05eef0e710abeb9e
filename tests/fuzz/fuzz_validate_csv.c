/* fuzz_validate_csv.c - fuzz target: the validation CSV reader and the
 * predictions it drives (dnp_validate_csv_buffer, calibration on).
 *
 * Rows name a model and a cluster that are then planned, so an input with
 * a number of four or more digits (a batch or device count that makes one
 * plan take seconds; planning cost is issue 12's resource-limit item, not
 * this target's) is not run, nor is one with more than 4 lines: each
 * execution stays fast. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int digits = 0, lines = 0;
    for (size_t i = 0; i < size; i++) {
        digits = (data[i] >= '0' && data[i] <= '9') ? digits + 1 : 0;
        lines += data[i] == '\n';
        if (digits > 3 || lines > 4)
            return 0;
    }
    dnp_validation *v = NULL;
    dnp_error err = {0};
    if (dnp_validate_csv_buffer((const char *)data, size, "fuzz.csv", 1, &v, &err) != DNP_OK) {
        if (err.status == DNP_OK || err.msg[0] == '\0')
            fuzz_fail("a validation CSV was refused without a message", NULL);
        return 0;
    }
    for (int i = 0; i < v->n_rows; i++)
        if (v->rows[i].batch <= 0 || !(v->rows[i].measured_step_s > 0.0))
            fuzz_fail("a validation row with a non-positive batch or time was accepted",
                      v->rows[i].id);
    dnp_validation_free(v);
    return 0;
}
