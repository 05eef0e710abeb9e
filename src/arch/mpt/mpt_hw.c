/*
 * mpt_hw.c - the worker and link parameters as user input: `dnnpar mpt`'s
 * hardware options and the hardware JSON file (docs/mpt.md, "Hardware
 * options").  Defaults are the paper's (mpt_hw_paper, Sec. VI, Table III).
 * Units in the keys: GHz, GB/s (1e9 B/s), KiB (1024 B; the keys say _kb), ns.
 */
#include "arch/mpt/mpt_model.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HW_MAX 1e6 /* largest accepted number: keeps every time finite */

/* A finite number in (0, HW_MAX]; `integer` requires a whole number. */
static int parse_num(const char *text, int integer, double *out)
{
    char *end = NULL;
    if (text == NULL || *text == '\0')
        return 0;
    double x = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(x) || !(x > 0) || x > HW_MAX)
        return 0;
    if (integer && x != floor(x))
        return 0;
    *out = x;
    return 1;
}

static dnp_status bad(dnp_error *err, const char *what, const char *text, const char *expected)
{
    dnp_error_set(err, DNP_ERR_INPUT, "%s '%s': expected %s", what, text ? text : "", expected);
    return DNP_ERR_INPUT;
}

dnp_status mpt_hw_set(mpt_hw *hw, const char *key, const char *text, const char *what,
                      dnp_error *err)
{
    double x = 0;
    if (strcmp(key, "array") == 0) {
        /* "S" or "SxS": the model has square arrays only (Sec. VI-B) */
        char *end = NULL;
        long a = strtol(text ? text : "", &end, 10), b = a;
        if (end != NULL && (*end == 'x' || *end == 'X')) {
            const char *rest = end + 1;
            b = strtol(rest, &end, 10);
            if (end == rest)
                b = -1;
        }
        if (text == NULL || end == text || *end != '\0' || a < 1 || a > 4096 || b != a)
            return bad(err, what, text, "a square array SxS with 1 <= S <= 4096 (e.g. 128x128)");
        hw->array_dim = (int)a;
        return DNP_OK;
    }
    if (strcmp(key, "array_split") == 0) {
        if (!parse_num(text, 1, &x) || x > 4096 || ((long)x & ((long)x - 1)) != 0)
            return bad(err, what, text, "a power of two from 1 to 4096 (sub-arrays per side)");
        hw->array_split = (int)x;
        return DNP_OK;
    }
    if (strcmp(key, "full_links") == 0) {
        if (!parse_num(text, 1, &x) || x > 64)
            return bad(err, what, text, "a whole number of full links from 1 to 64");
        hw->full_links = (int)x;
        return DNP_OK;
    }
    static const struct {
        const char *key;
        const char *unit;
        double scale;
    } nums[] = {{"clock_ghz", "GHz", 1e9},
                {"dram_gbps", "GB/s", 1e9},
                {"full_link_gbps", "GB/s per link and direction", 1e9},
                {"narrow_link_gbps", "GB/s per link and direction", 1e9},
                {"input_buffer_kb", "KiB (1024 bytes)", 1024},
                {"output_buffer_kb", "KiB (1024 bytes)", 1024},
                {"hop_ns", "ns", 1e-9}};
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
        if (strcmp(key, nums[k].key) != 0)
            continue;
        if (!parse_num(text, 0, &x)) {
            char expected[96];
            snprintf(expected, sizeof expected, "a positive number of %s, at most 1e6",
                     nums[k].unit);
            return bad(err, what, text, expected);
        }
        /* hop: divide, so "5" gives exactly the paper's 5e-9 */
        double v = nums[k].scale < 1 ? x / 1e9 : x * nums[k].scale;
        switch (k) {
        case 0: hw->clock_hz = v; break;
        case 1: hw->dram_bps = v; break;
        case 2: hw->full_link_bps = v; break;
        case 3: hw->narrow_link_bps = v; break;
        case 4: hw->input_buffer_bytes = v; break;
        case 5: hw->output_buffer_bytes = v; break;
        default: hw->hop_s = v; break;
        }
        return DNP_OK;
    }
    dnp_error_set(err, DNP_ERR_INPUT, "%s: unknown hardware parameter (known: %s)", what,
                  MPT_HW_KEYS);
    return DNP_ERR_INPUT;
}

dnp_status mpt_hw_read_json(const char *path, mpt_hw *hw, dnp_error *err)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (root == NULL) {
        /* A missing or unreadable input file is an input problem (exit 2,
         * docs/cli.md), like every other loader's. */
        dnp_status st = DNP_ERR_INPUT;
        if (jerr.line < 0)
            dnp_error_set(err, st, "%s", jerr.text);
        else
            dnp_error_set(err, st, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
        return st;
    }
    dnp_status st = DNP_OK;
    mpt_hw h = *hw;
    if (!json_is_object(root)) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: expected a JSON object of hardware parameters",
                      path);
        st = DNP_ERR_INPUT;
    }
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        if (st != DNP_OK)
            break;
        char what[256], text[64];
        snprintf(what, sizeof what, "%s: \"%s\"", path, key);
        if (strcmp(key, "format") == 0) {
            const char *f = json_string_value(v);
            if (f == NULL || strcmp(f, "dnnpar-mpt-hardware") != 0) {
                dnp_error_set(err, DNP_ERR_INPUT, "%s: expected \"dnnpar-mpt-hardware\"", what);
                st = DNP_ERR_INPUT;
            }
            continue;
        }
        if (json_is_string(v))
            snprintf(text, sizeof text, "%s", json_string_value(v));
        else if (json_is_number(v))
            snprintf(text, sizeof text, "%.17g", json_number_value(v));
        else
            snprintf(text, sizeof text, "(%s)",
                     json_is_null(v) ? "null" : json_is_boolean(v) ? "boolean" : "object/array");
        st = mpt_hw_set(&h, key, text, what, err);
    }
    json_decref(root);
    if (st == DNP_OK)
        *hw = h;
    return st;
}

dnp_status mpt_hw_check(const mpt_hw *hw, dnp_error *err)
{
    if (hw->array_split > hw->array_dim || hw->array_dim % hw->array_split != 0) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "array_split (--array-split) %d does not divide the %dx%d array "
                      "(array, --array) into equal sub-arrays",
                      hw->array_split, hw->array_dim, hw->array_dim);
        return DNP_ERR_INPUT;
    }
    double row_bytes = (double)hw->array_dim * hw->elem_bytes;
    if (hw->output_buffer_bytes < row_bytes) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "output_buffer_kb (--output-buffer-kb) %g KiB cannot hold one %d-wide "
                      "array row (%.0f bytes)",
                      hw->output_buffer_bytes / 1024, hw->array_dim, row_bytes);
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

int mpt_hw_is_paper(const mpt_hw *hw)
{
    mpt_hw p = mpt_hw_paper(hw->elem_bytes == 2);
    return hw->array_dim == p.array_dim && hw->array_split == p.array_split &&
           hw->clock_hz == p.clock_hz && hw->dram_bps == p.dram_bps &&
           hw->elem_bytes == p.elem_bytes && hw->full_link_bps == p.full_link_bps &&
           hw->narrow_link_bps == p.narrow_link_bps && hw->full_links == p.full_links &&
           hw->fbfly_row == p.fbfly_row && hw->hop_s == p.hop_s &&
           hw->chunk_bytes == p.chunk_bytes && hw->packet_bytes == p.packet_bytes &&
           hw->input_buffer_bytes == p.input_buffer_bytes &&
           hw->output_buffer_bytes == p.output_buffer_bytes;
}
