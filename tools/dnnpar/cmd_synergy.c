/* PLACEHOLDER, to be replaced by the synergyflow module's CLI. */
#include "cli.h"

int cmd_synergy(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("synergy", "not available in this build");
    return EXIT_RUNTIME;
}

int reproduce_synergyflow(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("reproduce", "synergyflow is not available in this build");
    return EXIT_RUNTIME;
}
