/*
 * cluster_json.c - the dnnpar cluster JSON format (docs/formats.md).
 * Figures are stored in SI units (FLOP/s, bytes, bytes/s) and written
 * with 17 significant digits, so a cluster round-trips exactly.
 */
#include "dnnpar.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FORMAT_NAME "dnnpar-cluster"
#define FORMAT_VERSION 1

char *dnp_cluster_to_json(const dnp_cluster *c) {
    json_t *devs = json_array();
    for (int k = 0; k < c->n_types; k++) {
        const dnp_device_type *d = &c->types[k];
        json_array_append_new(
            devs, json_pack("{s:s,s:I,s:f,s:f,s:f,s:f,s:s,s:i}", "name", d->name, "count",
                            (json_int_t)c->counts[k], "peak_flops", d->peak_flops, "mem_bytes",
                            d->mem_bytes, "mem_bw_bps", d->mem_bw_bps, "net_bw_bps", d->net_bw_bps,
                            "dtype", d->dtype, "bytes_per_elem", d->bytes_per_elem));
    }
    json_t *root =
        json_pack("{s:s,s:i,s:o,s:s}", "format", FORMAT_NAME, "version", FORMAT_VERSION, "devices",
                  devs, "hierarchy", "device types first, then halves (docs/time-model.md)");
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(root);
    return text;
}

static dnp_status dev_error(dnp_error *err, const char *file, size_t i, const char *name,
                            const char *what) {
    dnp_error_set(err, DNP_ERR_INPUT, "%s: devices[%zu]%s%s%s: %s", file, i, name ? " ('" : "",
                  name ? name : "", name ? "')" : "", what);
    return DNP_ERR_INPUT;
}

/* A finite number >= 0 (> 0 if positive) from member `key`. */
static int number(const json_t *o, const char *key, int positive, double *out) {
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        return -1;
    double x = json_number_value(v);
    if (!isfinite(x) || x < 0.0 || (positive && x == 0.0))
        return -1;
    *out = x;
    return 0;
}

static int dtype_bytes(const char *s) {
    if (strcasecmp(s, "bfloat16") == 0 || strcasecmp(s, "bf16") == 0 || strcasecmp(s, "fp16") == 0)
        return 2;
    if (strcasecmp(s, "fp32") == 0)
        return 4;
    return 0;
}

dnp_status dnp_cluster_read_json(const char *path, dnp_cluster *out, dnp_error *err) {
    json_error_t jerr;
    json_t *root =
        strcmp(path, "-") == 0 ? json_loadf(stdin, 0, &jerr) : json_load_file(path, 0, &jerr);
    const char *file = strcmp(path, "-") == 0 ? "<stdin>" : path;
    if (root == NULL) {
        dnp_error_set(err, jerr.line < 0 ? DNP_ERR_IO : DNP_ERR_INPUT, "%s:%d:%d: %s", file,
                      jerr.line, jerr.column, jerr.text);
        return err->status;
    }
    dnp_status st = DNP_ERR_INPUT;
    dnp_cluster c;
    memset(&c, 0, sizeof c);
    const char *fmt = json_string_value(json_object_get(root, "format"));
    const json_t *devs = json_object_get(root, "devices");
    if (fmt == NULL || strcmp(fmt, FORMAT_NAME) != 0) {
        dnp_error_set(err, st, "%s: not a dnnpar cluster (\"format\" must be \"%s\")", file,
                      FORMAT_NAME);
        goto done;
    }
    if (json_integer_value(json_object_get(root, "version")) != FORMAT_VERSION) {
        dnp_error_set(err, st, "%s: unsupported \"version\" (this dnnpar reads %d)", file,
                      FORMAT_VERSION);
        goto done;
    }
    if (!json_is_array(devs) || json_array_size(devs) == 0 ||
        json_array_size(devs) > DNP_MAX_DEVICE_TYPES) {
        dnp_error_set(err, st, "%s: \"devices\" must list 1 to %d device types", file,
                      DNP_MAX_DEVICE_TYPES);
        goto done;
    }
    int64_t total = 0;
    for (size_t i = 0; i < json_array_size(devs); i++) {
        const json_t *o = json_array_get(devs, i);
        const char *name = json_string_value(json_object_get(o, "name"));
        const char *dtype = json_string_value(json_object_get(o, "dtype"));
        const json_t *cnt = json_object_get(o, "count");
        dnp_device_type *d = &c.types[i];
        if (!json_is_object(o) || name == NULL || name[0] == '\0' ||
            strlen(name) >= sizeof d->name) {
            st = dev_error(err, file, i, NULL, "needs a \"name\" of 1 to 31 characters");
            goto done;
        }
        for (size_t j = 0; j < i; j++)
            if (strcasecmp(c.types[j].name, name) == 0) {
                st = dev_error(err, file, i, name, "listed twice");
                goto done;
            }
        if (!json_is_integer(cnt) || json_integer_value(cnt) < 1 ||
            json_integer_value(cnt) > 1000000) {
            st = dev_error(err, file, i, name, "\"count\" must be an integer in 1 .. 1000000");
            goto done;
        }
        if (number(o, "peak_flops", 1, &d->peak_flops) ||
            number(o, "net_bw_bps", 1, &d->net_bw_bps) ||
            number(o, "mem_bytes", 0, &d->mem_bytes) ||
            number(o, "mem_bw_bps", 0, &d->mem_bw_bps)) {
            st = dev_error(err, file, i, name,
                           "\"peak_flops\" and \"net_bw_bps\" must be positive numbers, "
                           "\"mem_bytes\" and \"mem_bw_bps\" non-negative");
            goto done;
        }
        if (dtype == NULL || dtype_bytes(dtype) == 0 || strlen(dtype) >= sizeof d->dtype) {
            st = dev_error(err, file, i, name, "\"dtype\" must be bfloat16, bf16, fp16 or fp32");
            goto done;
        }
        const json_t *bpe = json_object_get(o, "bytes_per_elem");
        if (bpe != NULL && json_integer_value(bpe) != dtype_bytes(dtype)) {
            st = dev_error(err, file, i, name, "\"bytes_per_elem\" does not match \"dtype\"");
            goto done;
        }
        snprintf(d->name, sizeof d->name, "%s", name);
        snprintf(d->dtype, sizeof d->dtype, "%s", dtype);
        d->bytes_per_elem = dtype_bytes(dtype);
        c.counts[i] = json_integer_value(cnt);
        total += c.counts[i];
    }
    if (total > 1000000) {
        dnp_error_set(err, st, "%s: more than 1000000 devices", file);
        goto done;
    }
    c.n_types = (int)json_array_size(devs);
    *out = c;
    st = DNP_OK;
done:
    json_decref(root);
    return st;
}
