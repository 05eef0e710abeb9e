/* cmd_list.c - `dnnpar models` and `dnnpar devices`. */
#include "cli.h"

#include <string.h>

static const char *const json_valued[] = {"json", NULL};
static const char *const help_flag[] = {"help", NULL};

static void print_wrapped(const char *lead, int indent, const char *text);

int cmd_models(int argc, char **argv)
{
    static const char help[] = "usage: dnnpar models [--json FILE]\n\n"
                               "List the built-in models with their input and variant.\n"
                               "  --json FILE    the list as JSON: [{\"name\", \"description\"}]\n";
    cli_spec spec = {json_valued, help_flag};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "models", help, 0, "no arguments", &a, &done);
    if (rc != 0 || done)
        return rc;
    const char *json = cli_get(&a, "json");
    if (json != NULL) {
        json_t *arr = json_array();
        for (int i = 0; i < dnp_zoo_count(); i++)
            json_array_append_new(arr, json_pack("{s:s, s:s}", "name", dnp_zoo_name(i),
                                                 "description", dnp_zoo_description(i)));
        if ((rc = cli_write_json("models", json, arr)) != 0 || strcmp(json, "-") == 0)
            return rc;
    }
    for (int i = 0; i < dnp_zoo_count(); i++) {
        char lead[32];
        snprintf(lead, sizeof lead, "%-18s", dnp_zoo_name(i));
        print_wrapped(lead, 19, dnp_zoo_description(i));
    }
    return EXIT_OK;
}

/* A peak in TFLOP/s, "-" when the device lacks the precision (0). */
static void tflops_text(double flops, char *buf, size_t n)
{
    if (flops > 0)
        snprintf(buf, n, "%.1f", flops / 1e12);
    else
        snprintf(buf, n, "-");
}

/* Prints and frees a table (columns sized to their content); 0, or -1 if
 * building it ran out of memory (t NULL). */
static int print_table(cli_table *t)
{
    if (t == NULL) {
        cli_error("devices", "out of memory printing the table");
        return -1;
    }
    cli_table_print(t, stdout, CLI_MAX_WIDTH, -1);
    cli_table_free(t);
    return 0;
}

/* Adds a row; on failure frees t and returns NULL. */
static cli_table *add_row(cli_table *t, const char *const *row)
{
    if (t != NULL && cli_table_add(t, row) != 0) {
        cli_table_free(t);
        return NULL;
    }
    return t;
}

/* `lead`, a blank, then `text` wrapped at CLI_MAX_WIDTH columns (cli_wrap),
 * continuation lines indented by `indent`. */
static void print_wrapped(const char *lead, int indent, const char *text)
{
    char cont[64];
    snprintf(cont, sizeof cont, "%*s", indent < 63 ? indent : 63, "");
    cli_wrap(stdout, printf("%s ", lead), cont, text);
}

/* "  name: text" wrapped, continuation lines indented by 4. */
static void print_source(const char *name, const char *text)
{
    char lead[48];
    snprintf(lead, sizeof lead, "  %s:", name);
    print_wrapped(lead, 4, text);
}

/* One preset as JSON (new reference); SI units as in dnp_device_type. */
static json_t *device_json(const dnp_device_type *d, const char *source)
{
    json_t *o = json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "name", d->name,
                          "dtype", d->dtype, "peak_flops", d->peak_flops, "peak_fp32_flops",
                          d->peak_fp32_flops, "peak_tf32_flops", d->peak_tf32_flops,
                          "peak_fp16_flops", d->peak_fp16_flops, "peak_bf16_flops",
                          d->peak_bf16_flops, "mem_bytes", d->mem_bytes, "mem_bw_Bps",
                          d->mem_bw_bps, "net_bw_Bps", d->net_bw_bps);
    json_object_set_new(o, "sm_count", json_integer(d->sm_count));
    json_object_set_new(o, "l2_bw_Bps", json_real(d->l2_bw_bps));
    json_object_set_new(o, "host_kernel_s", json_real(d->host_kernel_s));
    if (d->node[0] != '\0') {
        json_object_set_new(o, "node", json_string(d->node));
        json_object_set_new(o, "devices_per_node", json_integer(d->devices_per_node));
        json_object_set_new(o, "topology", json_string(dnp_link_topo_name(d->intra_topo)));
        json_object_set_new(o, "intra_bw_Bps", json_real(d->intra_bw_bps));
        json_object_set_new(o, "intra_lat_s", json_real(d->intra_lat_s));
        json_object_set_new(o, "inter_bw_Bps", json_real(d->inter_bw_bps));
    }
    json_object_set_new(o, "inter_lat_s", json_real(d->inter_lat_s));
    json_object_set_new(o, "source", json_string(source));
    return o;
}

/* {"devices": [...], "nodes": [...]} (new reference). */
static json_t *devices_json(void)
{
    json_t *devs = json_array(), *nodes = json_array();
    for (int i = 0; i < dnp_device_preset_count(); i++)
        json_array_append_new(devs, device_json(dnp_device_preset_at(i),
                                                dnp_device_preset_source(i)));
    for (int i = 0; i < dnp_node_preset_count(); i++)
        json_array_append_new(nodes, device_json(dnp_node_preset_at(i), dnp_node_preset_source(i)));
    return json_pack("{s:o, s:o}", "devices", devs, "nodes", nodes);
}

int cmd_devices(int argc, char **argv)
{
    static const char help[] =
        "usage: dnnpar devices [--json FILE]\n\n"
        "List the device and node presets usable in --cluster specs.\n"
        "  --json FILE    the presets as JSON: {\"devices\": [...], \"nodes\": [...]}, each\n"
        "                 with its figures in SI units (docs/cli.md)\n";
    cli_spec spec = {json_valued, help_flag};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "devices", help, 0, "no arguments", &a, &done);
    if (rc != 0 || done)
        return rc;
    const char *json = cli_get(&a, "json");
    if (json != NULL && ((rc = cli_write_json("devices", json, devices_json())) != 0 ||
                         strcmp(json, "-") == 0))
        return rc;
    printf("Devices (peaks in TFLOP/s, dense; SMs = SMs or CUs; '-' = not supported or not "
           "published)\n");
    static const char *const dev_header[] = {"name", "dtype",  "peak",     "fp32",
                                             "tf32", "fp16",   "bf16",     "mem GB",
                                             "mem GB/s", "SMs", "L2 GB/s", "net Gb/s", "lat us"};
    cli_table *t = cli_table_new(13, "llrrrrrrrrrrr", dev_header);
    for (int i = 0; i < dnp_device_preset_count(); i++) {
        const dnp_device_type *d = dnp_device_preset_at(i);
        char c[11][32];
        snprintf(c[0], sizeof c[0], "%.1f", d->peak_flops / 1e12);
        tflops_text(d->peak_fp32_flops, c[1], sizeof c[1]);
        tflops_text(d->peak_tf32_flops, c[2], sizeof c[2]);
        tflops_text(d->peak_fp16_flops, c[3], sizeof c[3]);
        tflops_text(d->peak_bf16_flops, c[4], sizeof c[4]);
        snprintf(c[5], sizeof c[5], "%.1f", d->mem_bytes / 1e9);
        snprintf(c[6], sizeof c[6], "%.0f", d->mem_bw_bps / 1e9);
        snprintf(c[7], sizeof c[7], "%.2f", d->net_bw_bps * 8.0 / 1e9);
        snprintf(c[8], sizeof c[8], "%.2f", d->inter_lat_s * 1e6);
        if (d->sm_count > 0)
            snprintf(c[9], sizeof c[9], "%d", d->sm_count);
        else
            snprintf(c[9], sizeof c[9], "-");
        if (d->l2_bw_bps > 0)
            snprintf(c[10], sizeof c[10], "%.0f", d->l2_bw_bps / 1e9);
        else
            snprintf(c[10], sizeof c[10], "-");
        const char *row[] = {d->name, d->dtype, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[9],
                             c[10], c[7], c[8]};
        t = add_row(t, row);
    }
    if (print_table(t) != 0)
        return EXIT_RUNTIME;
    printf("\nNodes (bandwidths per device and direction; NIC = the node's compute NICs / devices)\n");
    static const char *const node_header[] = {"node",       "count",    "device",
                                              "topology",   "intra GB/s", "intra us",
                                              "NIC Gb/s/dev", "inter us"};
    t = cli_table_new(8, "lrllrrrr", node_header);
    for (int i = 0; i < dnp_node_preset_count(); i++) {
        const dnp_device_type *d = dnp_node_preset_at(i);
        char c[5][32];
        snprintf(c[0], sizeof c[0], "%d", d->devices_per_node);
        snprintf(c[1], sizeof c[1], "%.1f", d->intra_bw_bps / 1e9);
        snprintf(c[2], sizeof c[2], "%.2f", d->intra_lat_s * 1e6);
        snprintf(c[3], sizeof c[3], "%.2f", d->inter_bw_bps * 8.0 / 1e9);
        snprintf(c[4], sizeof c[4], "%.2f", d->inter_lat_s * 1e6);
        const char *row[] = {d->node, c[0], d->name, dnp_link_topo_name(d->intra_topo), c[1],
                             c[2], c[3], c[4]};
        t = add_row(t, row);
    }
    if (print_table(t) != 0)
        return EXIT_RUNTIME;
    printf("\nSources (docs/cluster.md)\n");
    for (int i = 0; i < dnp_device_preset_count(); i++)
        print_source(dnp_device_preset_at(i)->name, dnp_device_preset_source(i));
    for (int i = 0; i < dnp_node_preset_count(); i++)
        print_source(dnp_node_preset_at(i)->node, dnp_node_preset_source(i));
    return EXIT_OK;
}
