/* cmd_list.c - `dnnpar models` and `dnnpar devices`. */
#include "cli.h"

#include <string.h>

int cmd_models(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[2], "--help") == 0) {
        puts("usage: dnnpar models\n\nList the built-in models with their input and variant.");
        return EXIT_OK;
    }
    if (argc > 2) {
        cli_error("models", "takes no arguments");
        return EXIT_USAGE;
    }
    for (int i = 0; i < dnp_zoo_count(); i++)
        printf("%-10s %s\n", dnp_zoo_name(i), dnp_zoo_description(i));
    return EXIT_OK;
}

int cmd_devices(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[2], "--help") == 0) {
        puts("usage: dnnpar devices\n\nList the device presets usable in --cluster specs.");
        return EXIT_OK;
    }
    if (argc > 2) {
        cli_error("devices", "takes no arguments");
        return EXIT_USAGE;
    }
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
