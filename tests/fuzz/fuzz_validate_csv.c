/* fuzz_validate_csv.c - fuzz target: the validation CSV reader and the
 * predictions it drives (dnp_validate_csv_buffer, calibration on).
 *
 * Rows name a model and a cluster that are then planned, and a plan on a
 * device count that is not a power of two builds the whole device tree
 * (seconds under the fuzzer; planning cost is issue 12's resource-limit
 * item, not this target's).  So an input is skipped when it has a number
 * of four or more digits, a device count (digits before 'x' or '*') above
 * 4, a node preset (dgx..., tpu-v3-N: 4 to 1024 devices per node) or more
 * than 4 lines: each execution stays in milliseconds. */
#include "fuzz_common.h"

#include <strings.h>

static int too_costly(const uint8_t *data, size_t size)
{
    int digits = 0, lines = 0;
    long value = 0;
    for (size_t i = 0; i < size; i++) {
        unsigned char c = data[i];
        if (c >= '0' && c <= '9') {
            digits++;
            value = value * 10 + (c - '0');
        } else {
            if (digits > 0 && (c == 'x' || c == 'X' || c == '*') && value > 4)
                return 1;
            digits = 0;
            value = 0;
        }
        lines += c == '\n';
        if (digits > 3 || lines > 4)
            return 1;
        if (i + 3 <= size && strncasecmp((const char *)data + i, "dgx", 3) == 0)
            return 1;
        if (i + 7 <= size && strncasecmp((const char *)data + i, "tpu-v3-", 7) == 0)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (too_costly(data, size))
        return 0;
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
