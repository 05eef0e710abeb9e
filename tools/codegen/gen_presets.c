/*
 * gen_presets.c - the device and node presets as data: reads
 * data/presets/presets.json (docs/cluster.md, "Presets as data") and
 * writes the C tables src/hw/cluster.c compiles (k_presets, k_nodes), so a
 * preset is added or corrected in the data file, never in C.
 *
 * A build tool, run by the Makefile (`gen_presets FILE > presets.inc`);
 * it is not part of the library.  Every figure is checked: an unknown key,
 * a missing required one, a number where a string belongs (or the
 * reverse), a duplicate name or a node naming no device is an error naming
 * the entry and the key, exit status 1, nothing written.  Numbers are
 * written with 17 significant digits, so the compiler reads back the very
 * double the JSON text denotes.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The figures of a device entry: its JSON key, the dnp_device_type field
 * it sets, and whether it is an integer, a string or a real. */
typedef enum { K_REAL, K_INT, K_STR } kind;
typedef struct {
    const char *key;
    kind k;
    int required;
} field;

/* dnp_device_type's figures (include/dnnpar/cluster.h), in its order; the
 * JSON key is the field name, as in the cluster JSON format
 * (src/hw/cluster_json.c). */
static const field k_device_fields[] = {
    {"name", K_STR, 1},           {"peak_flops", K_REAL, 1},      {"mem_bytes", K_REAL, 1},
    {"mem_bw_bps", K_REAL, 1},    {"net_bw_bps", K_REAL, 1},      {"bytes_per_elem", K_INT, 1},
    {"dtype", K_STR, 1},          {"peak_fp32_flops", K_REAL, 0}, {"peak_tf32_flops", K_REAL, 0},
    {"peak_fp16_flops", K_REAL, 0}, {"peak_bf16_flops", K_REAL, 0}, {"compute_eff", K_REAL, 0},
    {"mem_eff", K_REAL, 0},       {"kernel_overhead_s", K_REAL, 0}, {"sm_count", K_INT, 0},
    {"l2_bw_bps", K_REAL, 0},     {"host_kernel_s", K_REAL, 0},   {"speed_cv", K_REAL, 0},
    /* a bare device's one link tier (devices_per_node 1) */
    {"inter_bw_bps", K_REAL, 1},  {"inter_lat_s", K_REAL, 1},
};
/* A node entry: the device it holds and its link tiers. */
static const field k_node_fields[] = {
    {"node", K_STR, 1},           {"device", K_STR, 1},           {"devices_per_node", K_INT, 1},
    {"intra_topo", K_STR, 1},     {"intra_bw_bps", K_REAL, 1},    {"intra_lat_s", K_REAL, 1},
    {"inter_bw_bps", K_REAL, 1},  {"inter_lat_s", K_REAL, 1},
};
#define N_DEVICE_FIELDS ((int)(sizeof k_device_fields / sizeof k_device_fields[0]))
#define N_NODE_FIELDS ((int)(sizeof k_node_fields / sizeof k_node_fields[0]))

/* The link topologies by name (dnp_link_topo_name) and their C enumerators. */
static const char *const k_topo_names[][2] = {
    {"none", "DNP_TOPO_NONE"},
    {"switch", "DNP_TOPO_SWITCH"},
    {"ring", "DNP_TOPO_RING"},
    {"torus2d", "DNP_TOPO_TORUS2D"},
};

static const char *g_file;

static int fail(const char *what, const char *entry, const char *key)
{
    fprintf(stderr, "gen_presets: %s: %s%s%s%s%s\n", g_file, entry ? "entry '" : "",
            entry ? entry : "", entry ? "'" : "", key ? ": key " : "", key ? key : "");
    fprintf(stderr, "gen_presets: %s\n", what);
    return -1;
}

/* Check that o holds only keys of fields[] and every required one, each of
 * its kind and a real >= 0 (finite).  entry names o in messages. */
static int check_entry(const json_t *o, const field *fields, int n, const char *entry)
{
    if (!json_is_object(o))
        return fail("an entry must be an object", entry, NULL);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        if (strcmp(key, "source") == 0) {
            if (!json_is_string(v) || json_string_length(v) == 0)
                return fail("\"source\" must be a non-empty string naming where each figure "
                            "comes from", entry, key);
            continue;
        }
        int f = -1;
        for (int i = 0; i < n; i++)
            if (strcmp(fields[i].key, key) == 0)
                f = i;
        if (f < 0)
            return fail("unknown key", entry, key);
        if (fields[f].k == K_STR && !json_is_string(v))
            return fail("must be a string", entry, key);
        if (fields[f].k == K_INT && (!json_is_integer(v) || json_integer_value(v) < 0 ||
                                     json_integer_value(v) > 1000000))
            return fail("must be an integer in 0 .. 1000000", entry, key);
        if (fields[f].k == K_REAL && (!json_is_number(v) || json_number_value(v) < 0.0))
            return fail("must be a number >= 0", entry, key);
    }
    for (int i = 0; i < n; i++)
        if (fields[i].required && json_object_get(o, fields[i].key) == NULL)
            return fail("missing required key", entry, fields[i].key);
    if (json_object_get(o, "source") == NULL)
        return fail("missing required key", entry, "source");
    return 0;
}

/* s as a C string literal (the data holds printable ASCII). */
static int put_cstr(FILE *out, const char *s, const char *entry)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p > 0x7e)
            return fail("strings must be printable ASCII", entry, NULL);
        if (*p == '"' || *p == '\\')
            fputc('\\', out);
        fputc(*p, out);
    }
    fputc('"', out);
    return 0;
}

/* The designated initialisers of device entry d's figures (those given;
 * without its bare link tier when `node`: the node's tiers replace it). */
static int put_device(FILE *out, const json_t *d, int node, const char *entry)
{
    for (int i = 0; i < N_DEVICE_FIELDS; i++) {
        const json_t *v = json_object_get(d, k_device_fields[i].key);
        if (v == NULL || (node && strncmp(k_device_fields[i].key, "inter_", 6) == 0))
            continue;
        fprintf(out, " .%s = ", k_device_fields[i].key);
        if (k_device_fields[i].k == K_STR) {
            if (put_cstr(out, json_string_value(v), entry) != 0)
                return -1;
        } else if (k_device_fields[i].k == K_INT) {
            fprintf(out, "%lld", (long long)json_integer_value(v));
        } else {
            fprintf(out, "%.17g", json_number_value(v));
        }
        fputc(',', out);
    }
    return 0;
}

static const json_t *find_device(const json_t *devices, const char *name)
{
    size_t i;
    const json_t *d;
    json_array_foreach((json_t *)devices, i, d) {
        if (strcmp(json_string_value(json_object_get(d, "name")), name) == 0)
            return d;
    }
    return NULL;
}

static int generate(const json_t *root, FILE *out)
{
    const json_t *fmt = json_object_get(root, "format"), *ver = json_object_get(root, "version");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "dnnpar-presets") != 0 ||
        !json_is_integer(ver) || json_integer_value(ver) != 1)
        return fail("expected \"format\": \"dnnpar-presets\", \"version\": 1", NULL, NULL);
    const json_t *devices = json_object_get(root, "devices"), *nodes = json_object_get(root, "nodes");
    if (!json_is_array(devices) || !json_is_array(nodes) || json_array_size(devices) == 0)
        return fail("expected arrays \"devices\" (non-empty) and \"nodes\"", NULL, NULL);
    if (json_object_size(root) != 4)
        return fail("only \"format\", \"version\", \"devices\" and \"nodes\" at the top", NULL,
                    NULL);
    size_t i, j;
    const json_t *d, *e;
    json_array_foreach((json_t *)devices, i, d) {
        const json_t *name = json_is_object(d) ? json_object_get(d, "name") : NULL;
        const char *entry = json_is_string(name) ? json_string_value(name) : "?";
        if (check_entry(d, k_device_fields, N_DEVICE_FIELDS, entry) != 0)
            return -1;
        json_array_foreach((json_t *)devices, j, e) {
            if (j < i && strcmp(json_string_value(json_object_get(e, "name")), entry) == 0)
                return fail("duplicate device name", entry, "name");
        }
    }
    json_array_foreach((json_t *)nodes, i, d) {
        const json_t *name = json_is_object(d) ? json_object_get(d, "node") : NULL;
        const char *entry = json_is_string(name) ? json_string_value(name) : "?";
        if (check_entry(d, k_node_fields, N_NODE_FIELDS, entry) != 0)
            return -1;
        if (find_device(devices, json_string_value(json_object_get(d, "device"))) == NULL)
            return fail("names no device of \"devices\"", entry, "device");
        if (find_device(devices, entry) != NULL)
            return fail("a node may not take a device's name", entry, "node");
        json_array_foreach((json_t *)nodes, j, e) {
            if (j < i && strcmp(json_string_value(json_object_get(e, "node")), entry) == 0)
                return fail("duplicate node name", entry, "node");
        }
    }

    fprintf(out, "/* Generated by tools/codegen/gen_presets.c from %s: edit the data file, not "
                 "this. */\n\n", g_file);
    fprintf(out, "static const preset_entry k_presets[] = {\n");
    json_array_foreach((json_t *)devices, i, d) {
        const char *entry = json_string_value(json_object_get(d, "name"));
        fprintf(out, "    {{");
        if (put_device(out, d, 0, entry) != 0)
            return -1;
        fprintf(out, " .node = \"\", .devices_per_node = 1, .intra_topo = DNP_TOPO_NONE},\n     ");
        if (put_cstr(out, json_string_value(json_object_get(d, "source")), entry) != 0)
            return -1;
        fprintf(out, "},\n");
    }
    fprintf(out, "};\n\nstatic const preset_entry k_nodes[] = {\n");
    json_array_foreach((json_t *)nodes, i, d) {
        const char *entry = json_string_value(json_object_get(d, "node"));
        const json_t *dev = find_device(devices, json_string_value(json_object_get(d, "device")));
        const char *topo = json_string_value(json_object_get(d, "intra_topo"));
        const char *topo_c = NULL;
        for (size_t t = 0; t < sizeof k_topo_names / sizeof k_topo_names[0]; t++)
            if (strcmp(k_topo_names[t][0], topo) == 0)
                topo_c = k_topo_names[t][1];
        if (topo_c == NULL)
            return fail("intra_topo must be none, switch, ring or torus2d", entry, "intra_topo");
        fprintf(out, "    {{");
        /* the device's figures, then the node's link tiers over its bare tier */
        if (put_device(out, dev, 1, entry) != 0)
            return -1;
        fprintf(out, " .node = ");
        if (put_cstr(out, entry, entry) != 0)
            return -1;
        fprintf(out, ", .devices_per_node = %lld, .intra_topo = %s, .intra_bw_bps = %.17g, "
                     ".intra_lat_s = %.17g, .inter_bw_bps = %.17g, .inter_lat_s = %.17g},\n     ",
                (long long)json_integer_value(json_object_get(d, "devices_per_node")), topo_c,
                json_number_value(json_object_get(d, "intra_bw_bps")),
                json_number_value(json_object_get(d, "intra_lat_s")),
                json_number_value(json_object_get(d, "inter_bw_bps")),
                json_number_value(json_object_get(d, "inter_lat_s")));
        if (put_cstr(out, json_string_value(json_object_get(d, "source")), entry) != 0)
            return -1;
        fprintf(out, "},\n");
    }
    fprintf(out, "};\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_presets data/presets/presets.json > presets.inc\n");
        return 1;
    }
    g_file = argv[1];
    json_error_t jerr;
    json_t *root = json_load_file(argv[1], JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        fprintf(stderr, "gen_presets: %s:%d:%d: %s\n", argv[1], jerr.line, jerr.column, jerr.text);
        return 1;
    }
    /* into a temporary file first: nothing is written unless the whole
     * file is good */
    FILE *tmp = tmpfile();
    int rc = tmp == NULL || generate(root, tmp) != 0;
    json_decref(root);
    if (rc == 0) {
        char buf[4096];
        size_t n;
        rewind(tmp);
        while ((n = fread(buf, 1, sizeof buf, tmp)) > 0)
            if (fwrite(buf, 1, n, stdout) != n)
                rc = 1;
        rc |= ferror(tmp) != 0;
    }
    if (tmp != NULL)
        fclose(tmp);
    return rc || fflush(stdout) != 0 ? 1 : 0;
}
