/* cmd_io.c - `dnnpar export-model` and `dnnpar export-cluster`: write any
 * model or cluster the tool can load in dnnpar's JSON formats
 * (docs/formats.md), to be edited and read back. */
#include "cli.h"

#include <stdlib.h>

static const char model_help[] =
    "usage: dnnpar export-model MODEL [--skip-unknown] [-o FILE | --output FILE]\n"
    "\n"
    "Write MODEL (a zoo name, or an .onnx, .json or AccPar .txt file) as dnnpar\n"
    "model JSON (docs/formats.md) to FILE or standard output.  Reading the file\n"
    "back (any command takes it as MODEL) gives the same graph.\n"
    "\n"
    "examples:\n"
    "  dnnpar export-model resnet50 -o resnet50.json\n"
    "  dnnpar export-model model.onnx | less\n";

static const char cluster_help[] =
    "usage: dnnpar export-cluster SPEC [-o FILE | --output FILE]\n"
    "\n"
    "Write the cluster SPEC (e.g. 128xtpu-v2+128xtpu-v3, or a cluster JSON file)\n"
    "as dnnpar cluster JSON (docs/formats.md); --cluster FILE.json reads it back.\n"
    "\n"
    "examples:\n"
    "  dnnpar export-cluster 128xtpu-v2+128xtpu-v3 -o hetero.json\n"
    "  dnnpar plan vgg19 --cluster hetero.json\n";

int cmd_export_model(int argc, char **argv)
{
    static const char *const valued[] = {"output", NULL};
    static const char *const flags[] = {"help", "skip-unknown", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "export-model", model_help, 1, "one MODEL", &a,
                             &done);
    if (rc != 0 || done)
        return rc;
    dnp_graph *g = NULL;
    if ((rc = cli_load_model("export-model", a.pos[0], &a, &g)) != 0)
        return rc;
    char *text = dnp_model_to_json(g);
    dnp_graph_free(g);
    if (text == NULL) {
        cli_error("export-model", "out of memory");
        return EXIT_RUNTIME;
    }
    const char *out = cli_get(&a, "output");
    rc = cli_write_text("export-model", out ? out : "-", text);
    dnp_free(text);
    return rc;
}

int cmd_export_cluster(int argc, char **argv)
{
    static const char *const valued[] = {"output", NULL};
    static const char *const flags[] = {"help", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "export-cluster", cluster_help, 1, "one SPEC",
                             &a, &done);
    if (rc != 0 || done)
        return rc;
    dnp_cluster c;
    if ((rc = cli_load_cluster("export-cluster", a.pos[0], &c)) != 0)
        return rc;
    char *text = dnp_cluster_to_json(&c);
    if (text == NULL) {
        cli_error("export-cluster", "out of memory");
        return EXIT_RUNTIME;
    }
    const char *out = cli_get(&a, "output");
    rc = cli_write_text("export-cluster", out ? out : "-", text);
    dnp_free(text);
    return rc;
}
