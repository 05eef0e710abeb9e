/* main.c - the dnnpar command-line tool: dispatch to subcommands. */
#include "cli.h"
#include "cmd_export.h"

#include <errno.h>
#include <string.h>

static const char usage[] =
    "usage: dnnpar COMMAND [ARGS]\n"
    "\n"
    "Plan and simulate parallel DNN training on arrays of accelerators.\n"
    "\n"
    "commands:\n"
    "  info MODEL [--batch B] [--json FILE]      layer shapes, FLOPs, parameters\n"
    "  plan MODEL --cluster SPEC [--search accpar|dp|owt|hypar] [--levels H]\n"
    "       [--batch B] [--reference] [--json FILE]\n"
    "                                            partition every layer, predict step time\n"
    "  compare MODEL --cluster SPEC [--levels H] [--batch B] [--json FILE]\n"
    "                                            every scheme's step time and speedup\n"
    "  simulate --strategy FILE [MODEL] [--cluster SPEC] [--batch B] [--trace FILE]\n"
    "                                            evaluate a strategy saved by plan --json\n"
    "  reproduce accpar|pase|synergyflow|mpt [--json FILE]\n"
    "                                            a paper's evaluation beside its figures\n"
    "  export MODEL --cluster SPEC --format jax|dtensor|astra [-o FILE]\n"
    "                                            a plan as sharding specs or an ASTRA-sim workload\n"
    "  export-model MODEL [-o FILE]              a model as dnnpar model JSON\n"
    "  export-cluster SPEC [-o FILE]             a cluster as dnnpar cluster JSON\n"
    "  synergy WORKLOAD [options]                the SynergyFlow elastic accelerator\n"
    "  mpt LAYER|MODEL [--workers P] [--config NgxNc|dynamic]\n"
    "                                            MPT Winograd training on NDP workers\n"
    "  scale MODEL --cluster NODE --nodes N[,N...] [--batch-per-device B]\n"
    "                                            step time and scaling efficiency per size\n"
    "  validate FILE.csv [--no-calibrate]        predicted against measured step times\n"
    "  comm OP --cluster SPEC --bytes N[,N...] [--json FILE]\n"
    "                                            a collective's time, algbw, busbw\n"
    "  models                                    the built-in model zoo\n"
    "  devices                                   the device presets\n"
    "\n"
    "MODEL is a zoo name (dnnpar models), an ONNX file (*.onnx), a dnnpar model\n"
    "JSON file (*.json, - for stdin) or an AccPar layer file (*.txt).\n"
    "SPEC is e.g. 128xtpu-v2+128xtpu-v3 or 8xtpu-v3 (docs/cluster.md), or a\n"
    "cluster JSON file (docs/formats.md).\n"
    "--json - writes JSON to standard output instead of the text report.\n"
    "Run 'dnnpar COMMAND --help' for a command's options and examples.\n"
    "Exit status: 0 success, 1 runtime failure, 2 usage or input error.\n";

/* Flush standard output and report a write error once, like any Unix
 * tool: `dnnpar plan ... > /dev/full` must not exit 0.  A command that
 * already failed (rc != 0) printed its own message. */
static int finish_stdout(int rc)
{
    int had_error = ferror(stdout);
    errno = 0;
    int flush_failed = fflush(stdout) != 0;
    int e = errno;
    if ((had_error || flush_failed) && rc == EXIT_OK) {
        fprintf(stderr, "dnnpar: error writing standard output: %s\n",
                strerror(e != 0 ? e : EIO));
        rc = EXIT_RUNTIME;
    }
    return rc;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("dnnpar %s\n", DNP_VERSION);
        return EXIT_OK;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"info", cmd_info},         {"plan", cmd_plan},     {"compare", cmd_compare},
        {"reproduce", cmd_reproduce}, {"models", cmd_models}, {"devices", cmd_devices},
        {"synergy", cmd_synergy},   {"mpt", cmd_mpt},
        {"export-model", cmd_export_model}, {"export-cluster", cmd_export_cluster},
        {"simulate", cmd_simulate}, {"export", cmd_export},
        {"comm", cmd_comm},         {"validate", cmd_validate}, {"scale", cmd_scale},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(cmd, cmds[i].name) == 0)
            return cmds[i].fn(argc, argv);
    fprintf(stderr, "dnnpar: unknown command '%s' (see dnnpar --help)\n", cmd);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    return finish_stdout(run(argc, argv));
}
