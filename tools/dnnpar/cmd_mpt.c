/* PLACEHOLDER, to be replaced by the mpt module's CLI. */
#include "cli.h"

int cmd_mpt(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("mpt", "not available in this build");
    return EXIT_RUNTIME;
}

int reproduce_mpt(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("reproduce", "mpt is not available in this build");
    return EXIT_RUNTIME;
}
