/* cmd_list.c - `dnnpar models` and `dnnpar devices`. */
#include "cli.h"

static const char *const no_valued[] = {NULL};
static const char *const help_flag[] = {"help", NULL};

int cmd_models(int argc, char **argv)
{
    static const char help[] = "usage: dnnpar models\n\n"
                               "List the built-in models with their input and variant.\n";
    cli_spec spec = {no_valued, help_flag};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "models", help, 0, "no arguments", &a, &done);
    if (rc != 0 || done)
        return rc;
    for (int i = 0; i < dnp_zoo_count(); i++)
        printf("%-18s %s\n", dnp_zoo_name(i), dnp_zoo_description(i));
    return EXIT_OK;
}

int cmd_devices(int argc, char **argv)
{
    static const char help[] = "usage: dnnpar devices\n\n"
                               "List the device presets usable in --cluster specs.\n";
    cli_spec spec = {no_valued, help_flag};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "devices", help, 0, "no arguments", &a, &done);
    if (rc != 0 || done)
        return rc;
    printf("%-8s %12s %10s %12s %12s %-9s %s\n", "name", "peak TFLOP/s", "memory GB",
           "mem BW GB/s", "net Gb/s", "dtype", "source");
    for (int i = 0; i < dnp_device_preset_count(); i++) {
        const dnp_device_type *d = dnp_device_preset_at(i);
        printf("%-8s %12.2f %10.1f %12.1f %12.2f %-9s %s\n", d->name, d->peak_flops / 1e12,
               d->mem_bytes / 1e9, d->mem_bw_bps / 1e9, d->net_bw_bps * 8.0 / 1e9, d->dtype,
               dnp_device_preset_source(i));
    }
    return EXIT_OK;
}
