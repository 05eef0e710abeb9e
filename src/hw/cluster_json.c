/*
 * cluster_json.c - the dnnpar cluster JSON format (docs/formats.md).
 * Figures are stored in SI units (FLOP/s, bytes, bytes/s) and written
 * with 17 significant digits, so a cluster round-trips exactly.
 */
#include "dnnpar/cluster.h"
#include "core/alloc.h"
#include "core/input.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FORMAT_NAME "dnnpar-cluster"
#define FORMAT_VERSION 1

/* Every allocation jansson makes here is checked: a dropped member would
 * write a cluster that does not read back (NULL instead). */
char *dnp_cluster_to_json(const dnp_cluster *c) {
    json_t *devs = json_array();
    int ok = devs != NULL;
    for (int k = 0; ok && k < c->n_types; k++) {
        const dnp_device_type *d = &c->types[k];
        json_t *o = json_pack("{s:s,s:I,s:f,s:f,s:f,s:f,s:s,s:i}", "name", d->name, "count",
                              (json_int_t)c->counts[k], "peak_flops", d->peak_flops, "mem_bytes",
                              d->mem_bytes, "mem_bw_bps", d->mem_bw_bps, "net_bw_bps",
                              d->net_bw_bps, "dtype", d->dtype, "bytes_per_elem",
                              d->bytes_per_elem);
        json_t *more = json_pack(
            "{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:s,s:i,s:s,s:f,s:f,s:f,s:f}", "peak_fp32_flops",
            d->peak_fp32_flops, "peak_tf32_flops", d->peak_tf32_flops, "peak_fp16_flops",
            d->peak_fp16_flops, "peak_bf16_flops", d->peak_bf16_flops, "compute_eff",
            d->compute_eff, "mem_eff", d->mem_eff, "kernel_overhead_s", d->kernel_overhead_s,
            "speed_cv", d->speed_cv, "node", d->node, "devices_per_node", d->devices_per_node, "intra_topo",
            dnp_link_topo_name(d->intra_topo), "intra_bw_bps", d->intra_bw_bps, "intra_lat_s",
            d->intra_lat_s, "inter_bw_bps", d->inter_bw_bps, "inter_lat_s", d->inter_lat_s);
        json_t *kern = json_pack("{s:i,s:f,s:f}", "sm_count", d->sm_count, "l2_bw_bps",
                                 d->l2_bw_bps, "host_kernel_s", d->host_kernel_s);
        if (kern != NULL && d->price_per_hour > 0.0)
            json_object_set_new(kern, "price_per_hour", json_real(d->price_per_hour));
        if (kern != NULL && d->net.kind[0] != '\0') {
            /* the network as data (dnp_net_desc): kind, then its numbers by
             * name in stored order; absent for the flat default */
            json_t *net = json_pack("{s:s}", "kind", d->net.kind);
            for (int i = 0; net != NULL && i < d->net.n_params && i < DNP_NET_MAX_PARAMS; i++)
                if (json_object_set_new(net, d->net.param_name[i],
                                        json_real(d->net.param_value[i])) != 0) {
                    json_decref(net);
                    net = NULL;
                }
            if (net == NULL || json_object_set_new(kern, "net", net) != 0) {
                json_decref(kern);
                kern = NULL;
            }
        }
        ok = o != NULL && more != NULL && kern != NULL && json_object_update(o, more) == 0 &&
             json_object_update(o, kern) == 0;
        json_decref(more);
        json_decref(kern);
        if (ok)
            ok = json_array_append_new(devs, o) == 0;
        else
            json_decref(o);
    }
    if (!ok) {
        json_decref(devs);
        return NULL;
    }
    json_t *root =
        json_pack("{s:s,s:i,s:o,s:s}", "format", FORMAT_NAME, "version", FORMAT_VERSION, "devices",
                  devs, "hierarchy", "device types first, then halves (docs/time-model.md)");
    if (root == NULL)
        return NULL; /* json_pack's "o" took devs either way */
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

/* Optional member `key`: absent leaves *out; otherwise a finite number in
 * [0, max] (max < 0: no upper bound). */
static int opt_number(const json_t *o, const char *key, double max, double *out) {
    const json_t *v = json_object_get(o, key);
    if (v == NULL)
        return 0;
    if (!json_is_number(v))
        return -1;
    double x = json_number_value(v);
    if (!isfinite(x) || x < 0.0 || (max >= 0 && x > max))
        return -1;
    *out = x;
    return 0;
}

/* The node fields of *d (defaults: a bare device) from o; NULL or the problem. */
static const char *read_node_fields(const json_t *o, dnp_device_type *d) {
    d->devices_per_node = 1;
    d->intra_topo = DNP_TOPO_NONE;
    d->inter_bw_bps = d->net_bw_bps;
    if (opt_number(o, "peak_fp32_flops", -1, &d->peak_fp32_flops) ||
        opt_number(o, "peak_tf32_flops", -1, &d->peak_tf32_flops) ||
        opt_number(o, "peak_fp16_flops", -1, &d->peak_fp16_flops) ||
        opt_number(o, "peak_bf16_flops", -1, &d->peak_bf16_flops) ||
        opt_number(o, "kernel_overhead_s", -1, &d->kernel_overhead_s) ||
        opt_number(o, "intra_bw_bps", -1, &d->intra_bw_bps) ||
        opt_number(o, "intra_lat_s", -1, &d->intra_lat_s) ||
        opt_number(o, "inter_lat_s", -1, &d->inter_lat_s))
        return "\"peak_*_flops\", \"kernel_overhead_s\", \"intra_bw_bps\", \"intra_lat_s\" and "
               "\"inter_lat_s\" must be numbers >= 0";
    if (opt_number(o, "l2_bw_bps", -1, &d->l2_bw_bps) ||
        opt_number(o, "host_kernel_s", -1, &d->host_kernel_s))
        return "\"l2_bw_bps\" and \"host_kernel_s\" must be numbers >= 0 (0 = model default)";
    if (opt_number(o, "price_per_hour", -1, &d->price_per_hour))
        return "\"price_per_hour\" must be a number >= 0 (0 = unknown)";
    const json_t *sms = json_object_get(o, "sm_count");
    if (sms != NULL) {
        if (!json_is_integer(sms) || json_integer_value(sms) < 0 ||
            json_integer_value(sms) > 1000000)
            return "\"sm_count\" must be an integer in 0 .. 1000000 (0 = unknown)";
        d->sm_count = (int)json_integer_value(sms);
    }
    {
        /* a file from before the kernel figures: a device named like a
         * preset has the preset's, any other none (as for speed_cv) */
        dnp_device_type p;
        dnp_error ignore = {0};
        if (dnp_device_preset(d->name, &p, &ignore) == DNP_OK) {
            if (sms == NULL)
                d->sm_count = p.sm_count;
            if (json_object_get(o, "l2_bw_bps") == NULL)
                d->l2_bw_bps = p.l2_bw_bps;
            if (json_object_get(o, "host_kernel_s") == NULL)
                d->host_kernel_s = p.host_kernel_s;
        }
    }
    if (opt_number(o, "compute_eff", 1.0, &d->compute_eff) ||
        opt_number(o, "mem_eff", 1.0, &d->mem_eff))
        return "\"compute_eff\" and \"mem_eff\" must be numbers in 0 .. 1 (0 = model default)";
    if (opt_number(o, "speed_cv", 1.0, &d->speed_cv))
        return "\"speed_cv\" must be a number in 0 .. 1 (0 = identical devices)";
    if (json_object_get(o, "speed_cv") == NULL) {
        /* a file from before the field: a device named like a preset has
         * the preset's spread, any other none */
        dnp_device_type p;
        dnp_error ignore = {0};
        if (dnp_device_preset(d->name, &p, &ignore) == DNP_OK)
            d->speed_cv = p.speed_cv;
    }
    if (opt_number(o, "inter_bw_bps", -1, &d->inter_bw_bps) || !(d->inter_bw_bps > 0))
        return "\"inter_bw_bps\" must be a positive number";
    const json_t *node = json_object_get(o, "node");
    if (node != NULL) {
        const char *n = json_string_value(node);
        if (n == NULL || strlen(n) >= sizeof d->node)
            return "\"node\" must be a string of at most 31 characters";
        snprintf(d->node, sizeof d->node, "%s", n);
    }
    const json_t *dpn = json_object_get(o, "devices_per_node");
    if (dpn != NULL) {
        if (!json_is_integer(dpn) || json_integer_value(dpn) < 1 ||
            json_integer_value(dpn) > 65536)
            return "\"devices_per_node\" must be an integer in 1 .. 65536";
        d->devices_per_node = (int)json_integer_value(dpn);
    }
    const json_t *topo = json_object_get(o, "intra_topo");
    if (topo != NULL) {
        int t = dnp_link_topo_from_name(json_string_value(topo));
        if (t < 0)
            return "\"intra_topo\" must be none, switch, ring or torus2d";
        d->intra_topo = (dnp_link_topo)t;
    }
    if (d->devices_per_node == 1 &&
        (d->node[0] != '\0' || d->intra_topo != DNP_TOPO_NONE || d->intra_bw_bps != 0 ||
         d->intra_lat_s != 0))
        return "a bare device (\"devices_per_node\" 1) has no \"node\", \"intra_topo\" or "
               "intra figures";
    if (d->devices_per_node > 1 &&
        (d->node[0] == '\0' || d->intra_topo == DNP_TOPO_NONE || !(d->intra_bw_bps > 0)))
        return "a node (\"devices_per_node\" > 1) needs \"node\", an \"intra_topo\" other than "
               "none and a positive \"intra_bw_bps\"";
    return NULL;
}

/* The optional "net" object: {"kind": NAME, NAME: number >= 0, ...}, at
 * most DNP_NET_MAX_PARAMS numbers, read in file order and stored without
 * interpreting them (dnp_net_desc; dnp_cluster_check judges them).  NULL
 * or the problem. */
static const char *read_net(const json_t *o, dnp_net_desc *net) {
    const json_t *n = json_object_get(o, "net");
    memset(net, 0, sizeof *net);
    if (n == NULL)
        return NULL;
    static const char *const shape =
        "\"net\" must be {\"kind\": a name of 1 to 15 characters, then at most 4 numbers >= 0 "
        "named by 1 to 15 characters}";
    const char *kind = json_string_value(json_object_get(n, "kind"));
    if (!json_is_object(n) || kind == NULL || kind[0] == '\0' || strlen(kind) >= sizeof net->kind)
        return shape;
    for (const char *c = kind; *c; c++) {
        unsigned char ch = (unsigned char)*c;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
              ch == '-'))
            return "\"net\" \"kind\" must be lower-case letters, digits, '_', '.' or '-'";
    }
    snprintf(net->kind, sizeof net->kind, "%s", kind);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)n, key, v) {
        if (strcmp(key, "kind") == 0)
            continue;
        size_t len = strlen(key);
        if (net->n_params >= DNP_NET_MAX_PARAMS || len == 0 || len >= sizeof net->param_name[0] ||
            !json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0.0)
            return shape;
        for (size_t j = 0; j < len; j++) {
            unsigned char ch = (unsigned char)key[j];
            if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
                  ch == '-'))
                return "\"net\" number names must be lower-case letters, digits, '_', '.' or '-'";
        }
        snprintf(net->param_name[net->n_params], sizeof net->param_name[0], "%s", key);
        net->param_value[net->n_params++] = json_number_value(v);
    }
    return NULL;
}

/* 1 if d carries none of the fields added with node presets (an old file). */
static int legacy_entry(const json_t *o) {
    static const char *const keys[] = {"peak_fp32_flops", "peak_tf32_flops", "peak_fp16_flops",
                                       "peak_bf16_flops", "compute_eff",     "mem_eff",
                                       "kernel_overhead_s", "speed_cv", "sm_count",
                                       "l2_bw_bps", "host_kernel_s", "price_per_hour", "node",
                                       "devices_per_node",
                                       "intra_topo",      "intra_bw_bps",    "intra_lat_s",
                                       "inter_bw_bps",    "inter_lat_s", "net"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (json_object_get(o, keys[i]) != NULL)
            return 0;
    return 1;
}

/* Characters of device and node names in cluster specs (docs/cluster.md). */
static int name_chars_ok(const char *s) {
    if (s[0] == '\0')
        return 0;
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '-'))
            return 0;
    }
    return 1;
}

/* A cluster read from JSON is shown, stored in strategies and read back
 * as its canonical spec (dnp_cluster_format), so it must survive
 * format -> parse unchanged (issue 12: a device name that is not a spec
 * name, or a preset's name with other figures, did not).  Compared through
 * the JSON text, which writes every field exactly.  O(types). */
static dnp_status check_spec_round_trip(const dnp_cluster *c, const char *file, dnp_error *err) {
    unsigned long failures = dnp_alloc_failures();
    for (int i = 0; i < c->n_types; i++) {
        const dnp_device_type *d = &c->types[i];
        if (!name_chars_ok(d->name) || (d->node[0] != '\0' && !name_chars_ok(d->node)))
            return dev_error(err, file, (size_t)i, d->name,
                             "device and node names may hold only letters, digits, '_', '.' "
                             "and '-' (cluster spec names, docs/cluster.md)");
    }
    char *spec = dnp_cluster_spec(c);
    if (spec == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "%s: out of memory", file);
        return DNP_ERR_NOMEM;
    }
    dnp_cluster back;
    dnp_error perr = {0};
    dnp_status pst = dnp_cluster_parse(spec, &back, &perr);
    dnp_free(spec);
    if (pst != DNP_OK) {
        /* the parser's message names the device; keep its reason, not the spec */
        const char *why = strstr(perr.msg, "': ");
        dnp_error_set(err, DNP_ERR_INPUT, "%s: the cluster has no cluster spec that reads back "
                      "the same: %.200s", file, why ? why + 3 : perr.msg);
        return DNP_ERR_INPUT;
    }
    char *a = dnp_cluster_to_json(c), *b = dnp_cluster_to_json(&back);
    int same = a != NULL && b != NULL && strcmp(a, b) == 0;
    dnp_free(a);
    dnp_free(b);
    if (a == NULL || b == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "%s: out of memory", file);
        return DNP_ERR_NOMEM;
    }
    if (!same && dnp_alloc_failures() != failures) {
        /* jansson may drop a member when an allocation fails: not the input's fault */
        dnp_error_set(err, DNP_ERR_NOMEM, "%s: out of memory", file);
        return DNP_ERR_NOMEM;
    }
    if (!same) {
        for (int i = 0; i < c->n_types && i < back.n_types; i++)
            if (strcmp(c->types[i].name, back.types[i].name) != 0 ||
                strcmp(c->types[i].node, back.types[i].node) != 0)
                return dev_error(err, file, (size_t)i, c->types[i].name,
                                 "reads back from its cluster spec as another device (a "
                                 "preset's name in other letter case?)");
        dnp_error_set(err, DNP_ERR_INPUT, "%s: the cluster does not read back the same from its "
                      "cluster spec (a device named like a preset?)", file);
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

static int dtype_bytes(const char *s) {
    if (strcasecmp(s, "bfloat16") == 0 || strcasecmp(s, "bf16") == 0 || strcasecmp(s, "fp16") == 0)
        return 2;
    if (strcasecmp(s, "fp32") == 0)
        return 4;
    return 0;
}

/* Largest cluster JSON read (bytes). */
#define MAX_CLUSTER_JSON_BYTES ((size_t)16 << 20)

dnp_status dnp_cluster_read_json(const char *path, dnp_cluster *out, dnp_error *err) {
    char *data = NULL;
    size_t len = 0;
    dnp_status st = dnp_input_read(path, MAX_CLUSTER_JSON_BYTES, &data, &len, err);
    if (st != DNP_OK)
        return st;
    st = dnp_cluster_read_json_buffer(data, len, dnp_input_display(path), out, err);
    dnp_free(data);
    return st;
}

dnp_status dnp_cluster_read_json_buffer(const char *data, size_t len_bytes, const char *name_,
                                        dnp_cluster *out, dnp_error *err) {
    char qfile[DNP_QUOTE_MAX + 8];
    const char *file = dnp_quote_str(name_ ? name_ : "<buffer>", qfile, sizeof qfile);
    json_error_t jerr;
    unsigned long failures = dnp_alloc_failures();
    json_t *root = json_loadb(data, len_bytes, 0, &jerr);
    if (root == NULL)
        return dnp_json_parse_error(&jerr, file, failures, err);
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
        const char *node_name = json_string_value(json_object_get(o, "node"));
        for (size_t j = 0; j < i; j++)
            if (strcasecmp(c.types[j].name, name) == 0 &&
                strcasecmp(c.types[j].node, node_name ? node_name : "") == 0) {
                st = dev_error(err, file, i, name, "listed twice (same name and node)");
                goto done;
            }
        if (!json_is_integer(cnt) || json_integer_value(cnt) < 1 ||
            json_integer_value(cnt) > 1000000) {
            st = dev_error(err, file, i, name, "\"count\" must be an integer in 1 .. 1000000");
            goto done;
        }
        static const struct { const char *key; int positive; } k_figs[] = {
            {"peak_flops", 1}, {"net_bw_bps", 1}, {"mem_bytes", 0}, {"mem_bw_bps", 0}};
        double *figs[] = {&d->peak_flops, &d->net_bw_bps, &d->mem_bytes, &d->mem_bw_bps};
        for (size_t f = 0; f < sizeof k_figs / sizeof k_figs[0]; f++)
            if (number(o, k_figs[f].key, k_figs[f].positive, figs[f])) {
                char what[96];
                snprintf(what, sizeof what, "\"%s\" must be a %s number", k_figs[f].key,
                         k_figs[f].positive ? "positive" : "non-negative");
                st = dev_error(err, file, i, name, what);
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
        const char *bad = read_node_fields(o, d);
        if (bad == NULL)
            bad = read_net(o, &d->net);
        if (bad != NULL) {
            st = dev_error(err, file, i, name, bad);
            goto done;
        }
        if (legacy_entry(o)) {
            /* A file from before node presets: a bare device whose old figures
             * are a preset's is that preset (peaks per precision, latency). */
            dnp_device_type p;
            dnp_error ignore = {0};
            if (dnp_device_preset(name, &p, &ignore) == DNP_OK && p.peak_flops == d->peak_flops &&
                p.mem_bytes == d->mem_bytes && p.mem_bw_bps == d->mem_bw_bps &&
                p.net_bw_bps == d->net_bw_bps && p.bytes_per_elem == d->bytes_per_elem &&
                strcmp(p.dtype, d->dtype) == 0)
                *d = p;
        }
        c.counts[i] = json_integer_value(cnt);
        if (c.counts[i] % d->devices_per_node != 0) {
            st = dev_error(err, file, i, name,
                           "\"count\" (devices) must be a multiple of \"devices_per_node\"");
            goto done;
        }
        total += c.counts[i];
    }
    if (total > 1000000) {
        dnp_error_set(err, st, "%s: more than 1000000 devices", file);
        goto done;
    }
    c.n_types = (int)json_array_size(devs);
    if ((st = check_spec_round_trip(&c, file, err)) != DNP_OK)
        goto done;
    *out = c;
    st = DNP_OK;
done:
    json_decref(root);
    return st;
}
