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
static void put_tflops(double flops)
{
    if (flops > 0)
        printf(" %7.1f", flops / 1e12);
    else
        printf(" %7s", "-");
}

/* `lead` then `text` word-wrapped at CLI_MAX_WIDTH - 1 columns,
 * continuation lines indented by `indent`. */
static void print_wrapped(const char *lead, int indent, const char *text)
{
    const int width = CLI_MAX_WIDTH - 1;
    int col = printf("%s", lead);
    const char *w = text;
    while (*w) {
        while (*w == ' ')
            w++;
        const char *e = w;
        while (*e && *e != ' ')
            e++;
        int len = (int)(e - w);
        if (len == 0)
            break;
        if (col + 1 + len > width && col > indent) {
            printf("\n%*s", indent, "");
            col = indent;
        } else {
            putchar(' ');
            col++;
        }
        printf("%.*s", len, w);
        col += len;
        w = e;
    }
    putchar('\n');
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
    printf("Devices (peaks in TFLOP/s, dense; '-' = not supported or not published)\n");
    printf("%-14s %-9s %7s %7s %7s %7s %7s %7s %9s %9s %7s\n", "name", "dtype", "peak", "fp32",
           "tf32", "fp16", "bf16", "mem GB", "mem GB/s", "net Gb/s", "lat us");
    for (int i = 0; i < dnp_device_preset_count(); i++) {
        const dnp_device_type *d = dnp_device_preset_at(i);
        printf("%-14s %-9s %7.1f", d->name, d->dtype, d->peak_flops / 1e12);
        put_tflops(d->peak_fp32_flops);
        put_tflops(d->peak_tf32_flops);
        put_tflops(d->peak_fp16_flops);
        put_tflops(d->peak_bf16_flops);
        printf(" %7.1f %9.0f %9.2f %7.2f\n", d->mem_bytes / 1e9, d->mem_bw_bps / 1e9,
               d->net_bw_bps * 8.0 / 1e9, d->inter_lat_s * 1e6);
    }
    printf("\nNodes (bandwidths per device and direction; NIC = the node's compute NICs / devices)\n");
    printf("%-13s %5s %-14s %-8s %11s %9s %12s %9s\n", "node", "count", "device", "topology",
           "intra GB/s", "intra us", "NIC Gb/s/dev", "inter us");
    for (int i = 0; i < dnp_node_preset_count(); i++) {
        const dnp_device_type *d = dnp_node_preset_at(i);
        printf("%-13s %5d %-14s %-8s %11.1f %9.2f %12.2f %9.2f\n", d->node, d->devices_per_node,
               d->name, dnp_link_topo_name(d->intra_topo), d->intra_bw_bps / 1e9,
               d->intra_lat_s * 1e6, d->inter_bw_bps * 8.0 / 1e9, d->inter_lat_s * 1e6);
    }
    printf("\nSources (docs/cluster.md)\n");
    for (int i = 0; i < dnp_device_preset_count(); i++)
        print_source(dnp_device_preset_at(i)->name, dnp_device_preset_source(i));
    for (int i = 0; i < dnp_node_preset_count(); i++)
        print_source(dnp_node_preset_at(i)->node, dnp_node_preset_source(i));
    return EXIT_OK;
}
