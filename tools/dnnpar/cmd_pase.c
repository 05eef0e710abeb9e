/* PLACEHOLDER, to be replaced by the PaSE module's CLI. */
#include "cli.h"

int cmd_plan_pase(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("plan", "--search pase is not available in this build");
    return EXIT_RUNTIME;
}

int reproduce_pase(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("reproduce", "pase is not available in this build");
    return EXIT_RUNTIME;
}
