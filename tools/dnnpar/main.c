/* main.c - the dnnpar command-line tool: the command table and dispatch. */
#include "cli.h"
#include "cmd_export.h"

#include <errno.h>
#include <string.h>

/* The one table of commands: dispatch, `dnnpar --help`, the hidden
 * `--list-commands` (shell completion, scripts/gen-completion.sh) and the
 * docs check (tests/docs_check.sh, which also checks every command's
 * options, from `dnnpar CMD --list-options`, against its --help and
 * docs/cli.md).  `synopsis` lines past the first start with '\n'. */
static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *synopsis; /* after "dnnpar " */
    const char *summary;
} commands[] = {
    {"info", cmd_info, "info MODEL [--batch B] [--json FILE]", "layer shapes, FLOPs, parameters"},
    {"plan", cmd_plan,
     "plan MODEL --cluster SPEC [--search accpar|dp|owt|hypar|pase|mcmc|3d]\n"
     "[--levels H] [--batch B] [--reference] [--json FILE] [--plot FILE]",
     "partition every layer, predict step time"},
    {"compare", cmd_compare, "compare MODEL --cluster SPEC [--levels H] [--batch B] [--json FILE]",
     "every scheme's step time and speedup"},
    {"simulate", cmd_simulate,
     "simulate --strategy FILE [MODEL] [--cluster SPEC] [--batch B] [--trace FILE]",
     "evaluate a strategy saved by plan --json"},
    {"run-torch", cmd_run_torch,
     "run-torch MODEL STRATEGY.json... --ranks N [--steps K] [--json FILE]",
     "execute strategies on torch.distributed, check them"},
    {"profile", cmd_profile,
     "profile --out FILE [--grid small|full] [--threads N] | --check FILE",
     "measure this machine with torch as a cluster JSON device"},
    {"scale", cmd_scale, "scale MODEL --cluster NODE --nodes N[,N...] [--batch-per-device B]",
     "step time and scaling efficiency per size"},
    {"sweep", cmd_sweep,
     "sweep MODEL --cluster SPEC --batch B --vary [TYPE:]KEY=V1,V2,... [--search S|--config C]",
     "what-ifs: the step as one figure changes"},
    {"comm", cmd_comm, "comm OP --cluster SPEC --bytes N[,N...] [--json FILE]",
     "a collective's time, algbw, busbw"},
    {"validate", cmd_validate, "validate FILE.csv [--no-calibrate] [--json FILE]",
     "predicted against measured step times"},
    {"export", cmd_export,
     "export MODEL --cluster SPEC --format jax|dtensor|astra|megatron [-o FILE]",
     "a plan as sharding specs, an ASTRA-sim workload or Megatron-LM arguments"},
    {"export-model", cmd_export_model, "export-model MODEL [-o FILE]",
     "a model as dnnpar model JSON"},
    {"export-cluster", cmd_export_cluster, "export-cluster SPEC [-o FILE]",
     "a cluster as dnnpar cluster JSON"},
    {"synergy", cmd_synergy, "synergy WORKLOAD [options]", "the SynergyFlow elastic accelerator"},
    {"mpt", cmd_mpt, "mpt LAYER|MODEL [--workers P] [--config NgxNc|dynamic]",
     "MPT Winograd training on NDP workers"},
    {"reproduce", cmd_reproduce, "reproduce accpar|pase|synergyflow|mpt [--json FILE]",
     "a paper's evaluation beside its figures"},
    {"models", cmd_models, "models [--json FILE]", "the built-in model zoo"},
    {"devices", cmd_devices, "devices [--json FILE]", "the device and node presets"},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static const char usage_head[] =
    "usage: dnnpar COMMAND [ARGS]\n"
    "\n"
    "Plan and simulate parallel DNN training on arrays of accelerators.\n"
    "\n"
    "commands:\n";
static const char usage_tail[] =
    "\n"
    "MODEL is a zoo name (dnnpar models), an ONNX file, a dnnpar model JSON file\n"
    "(- for stdin) or an AccPar layer file (*.txt); files are recognised by content.\n"
    "SPEC is e.g. 128xtpu-v2+128xtpu-v3 or 8xtpu-v3 (docs/cluster.md), or a\n"
    "cluster JSON file (docs/formats.md); quote custom(...) terms for the shell:\n"
    "--cluster '4xcustom(name=g,tflops=100,net_gbps=100)'.\n"
    "--json - writes JSON to standard output instead of the text report.\n"
    "Run 'dnnpar COMMAND --help' (or 'dnnpar help COMMAND') for a command's options.\n"
    "Exit status: 0 success, 1 runtime failure, 2 usage or input error.\n";

/* The usage text, generated from the command table: the synopsis, then the
 * summary at column 46 (on the synopsis's last line if it fits). */
static void print_usage(FILE *f)
{
    enum { SUMMARY_COL = 46 };
    fputs(usage_head, f);
    for (int i = 0; i < N_COMMANDS; i++) {
        const char *s = commands[i].synopsis;
        int col = 0;
        fputs("  ", f);
        col = 2;
        for (; *s; s++) {
            if (*s == '\n') {
                fputs("\n         ", f);
                col = 9;
                continue;
            }
            fputc(*s, f);
            col++;
        }
        if (col + 1 >= SUMMARY_COL) {
            fputc('\n', f);
            col = 0;
        }
        fprintf(f, "%*s%s\n", SUMMARY_COL - col, "", commands[i].summary);
    }
    fputs(usage_tail, f);
}

static int find_command(const char *name)
{
    for (int i = 0; i < N_COMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0)
            return i;
    return -1;
}

static void unknown_command(const char *name)
{
    const char *names[N_COMMANDS];
    for (int i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    const char *near = dnp_suggest(name, names, N_COMMANDS);
    if (near != NULL)
        fprintf(stderr, "dnnpar: unknown command '%s'; did you mean '%s'? (see dnnpar --help)\n",
                name, near);
    else
        fprintf(stderr, "dnnpar: unknown command '%s' (see dnnpar --help)\n", name);
}

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

/* The hidden --list-values: one line per option that takes a known value,
 * "NAME<TAB>value value ...", for scripts/gen-completion.sh: model (the zoo),
 * cluster (node and device presets), search, precision, format,
 * cost-model.  The lists are the parsers' own (cli_searches, ...) and the
 * library's tables. */
static void list_values(void)
{
    printf("model\t");
    for (int i = 0; i < dnp_zoo_count(); i++)
        printf("%s%s", i ? " " : "", dnp_zoo_name(i));
    printf("\ncluster\t");
    for (int i = 0; i < dnp_node_preset_count(); i++)
        printf("%s%s", i ? " " : "", dnp_node_preset_at(i)->node);
    for (int i = 0; i < dnp_device_preset_count(); i++)
        printf(" %s", dnp_device_preset_at(i)->name);
    static const struct {
        const char *name;
        const char *const *values;
    } lists[] = {{"search", cli_searches},
                 {"precision", cli_precisions},
                 {"format", cli_export_formats}};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        printf("\n%s\t", lists[k].name);
        for (int i = 0; lists[k].values[i] != NULL; i++)
            printf("%s%s", i ? " " : "", lists[k].values[i]);
    }
    printf("\ncost-model\t");
    for (int m = 0; m < DNP_COST_COUNT; m++)
        printf("%s%s", m ? " " : "", dnp_cost_model_name((dnp_cost_model)m));
    printf("\n");
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (argc > 2 && strcmp(cmd, "help") == 0) { /* dnnpar help COMMAND */
            int k = find_command(argv[2]);
            if (k < 0) {
                unknown_command(argv[2]);
                return EXIT_USAGE;
            }
            char help_flag[] = "--help";
            char *av[] = {argv[0], argv[2], help_flag, NULL};
            return commands[k].fn(3, av);
        }
        print_usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("dnnpar %s\n", DNP_VERSION);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--list-values") == 0) { /* hidden: for completion generators */
        list_values();
        return EXIT_OK;
    }
    if (strcmp(cmd, "--list-commands") == 0) { /* hidden: for generators */
        for (int i = 0; i < N_COMMANDS; i++)
            printf("%s\t%s\n", commands[i].name, commands[i].summary);
        return EXIT_OK;
    }
    int k = find_command(cmd);
    if (k >= 0)
        return commands[k].fn(argc, argv);
    unknown_command(cmd);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    cli_command_started(); /* the one deadline of --time-limit counts from here */
    return finish_stdout(run(argc, argv));
}
