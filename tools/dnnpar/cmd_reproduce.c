/* cmd_reproduce.c - `dnnpar reproduce accpar|pase|synergyflow|mpt`: options
 * and output of the papers' evaluations.  The AccPar experiment (section 6,
 * Figs. 5-8, beside the paper's figures) is the library's
 * (dnp_accpar_reproduce, dnnpar/accpar.h); this file parses the options and
 * writes what it returns. */
#include "cli.h"

#include <string.h>

static const char help[] =
    "usage: dnnpar reproduce accpar [--json FILE]\n"
    "\n"
    "Runs the AccPar paper's evaluation (section 6) with the paper's own\n"
    "accounting (--cost-model accpar-paper: per-level exchanges at one link's\n"
    "bandwidth, compute at peak) and prints our speedups over data parallelism\n"
    "beside the paper's (accpar: AccPar's own tree, not the fastest of it and\n"
    "the baselines that `dnnpar plan` returns):\n"
    "  Fig. 5  128 TPU-v2 + 128 TPU-v3, batch 512, nine networks, 8 levels, and\n"
    "          per network the level-0 ratio (Eq. 10 as printed, and the searched\n"
    "          one) with the mixed array's step against each type alone, and\n"
    "          what the paper's range ends imply for the mixed array\n"
    "  Fig. 6  128 TPU-v3, batch 512, nine networks, 7 levels\n"
    "  Fig. 7  AccPar's partition types of AlexNet, 128 TPU-v3, 7 levels, batch 128\n"
    "  Fig. 8  VGG19 on the heterogeneous array, levels 2 to 9\n"
    "Why our numbers differ from the paper's: README.md, 'AccPar reproduction'.\n"
    "\n"
    "example:\n"
    "  dnnpar reproduce accpar --json accpar.json\n";

/* cli_write_reports' writers of a dnp_accpar_repro. */
static dnp_status report_json(const void *r, char **out, dnp_error *err)
{
    return dnp_accpar_repro_json(r, out, err);
}

static dnp_status report_text(const void *r, char **out, dnp_error *err)
{
    return dnp_accpar_repro_text(r, out, err);
}

/* Progress on a terminal (cli_progress) while the experiment runs; user:
 * the command's start time. */
static void on_progress(void *user, const char *what)
{
    cli_progress("reproduce", *(const double *)user, "%s", what);
}

int cmd_reproduce(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[2], "synergyflow") == 0)
        return reproduce_synergyflow(argc, argv);
    if (argc > 2 && strcmp(argv[2], "mpt") == 0)
        return reproduce_mpt(argc, argv);
    if (argc > 2 && strcmp(argv[2], "pase") == 0)
        return reproduce_pase(argc, argv);
    static const char *const valued[] = {"json", NULL};
    static const char *const flags[] = {"help", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "reproduce", help, 1, "a paper: accpar", &a,
                             &done);
    if (rc != 0 || done)
        return rc;
    if (strcmp(a.pos[0], "accpar") != 0) {
        static const char *const known[] = {"accpar", "pase", "synergyflow", "mpt", NULL};
        return cli_unknown_name("reproduce", "paper", a.pos[0], known);
    }
    double start_s = cli_now_s();
    dnp_accpar_repro_options o = {on_progress, &start_s};
    dnp_accpar_repro *r = NULL;
    dnp_error err = {0};
    dnp_status st = dnp_accpar_reproduce(&o, &r, &err);
    cli_progress_done(start_s);
    if (st != DNP_OK) {
        cli_error("reproduce", "%s", err.msg);
        return cli_exit_for(st);
    }
    rc = cli_write_reports("reproduce", r, cli_get(&a, "json"), report_json, report_text);
    dnp_accpar_repro_free(r);
    return rc;
}
