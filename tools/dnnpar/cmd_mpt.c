/*
 * cmd_mpt.c - `dnnpar mpt LAYER|MODEL`: multi-dimensional parallel training
 * of Winograd layers on near-data-processing workers (Hong, Ro and Kim,
 * MICRO 2018) for one Table II layer or a whole model; and
 * `dnnpar reproduce mpt`: the paper's Figs. 6, 7, 12, 15, 16 and 17 on our
 * model beside the paper's figures.  Argument parsing only: the library
 * (dnnpar.h, "MPT") evaluates and reports.  The model: docs/mpt.md.
 */
#include "cli.h"

#include <string.h>

static const char mpt_help[] =
    "usage: dnnpar mpt LAYER|MODEL [--workers P] [--config NgxNc|dynamic[:G,G,...]]\n"
    "                  [--batch B] [--kernel 3|5] [--tile T] [--fp16]\n"
    "                  [--prediction-shares ours|paper] [--json FILE]\n"
    "                  [--hardware FILE] [--array SxS] [--array-split D]\n"
    "                  [--clock-ghz F] [--dram-gbps B] [--full-link-gbps B]\n"
    "                  [--narrow-link-gbps B] [--full-links N]\n"
    "                  [--input-buffer-kb K] [--output-buffer-kb K] [--hop-ns T]\n"
    "\n"
    "Models multi-dimensional parallel training (MPT) of Winograd layers on P\n"
    "near-data-processing workers arranged as Ng groups (tile elements) x Nc\n"
    "clusters (batch), Hong et al., MICRO 2018.  For the six configurations of\n"
    "the paper's Table IV (d_dp, w_dp, w_mp, w_mp+, w_mp*, w_mp+*) it prints the\n"
    "forward and backward time of one iteration, the speedup over w_dp, the grid\n"
    "and transform, and the bytes each worker sends (weights on the rings, tiles\n"
    "on the flattened butterfly).  The model and its assumptions: docs/mpt.md.\n"
    "\n"
    "LAYER is a layer of the paper's Table II: early, mid-1, late-1, mid-2,\n"
    "late-2 (3x3 kernels; --kernel 5 makes them 5x5).  MODEL is a zoo model\n"
    "(dnnpar models), e.g. resnet34, wrn-40-10, fractalnet: totals, the speedup\n"
    "over one worker, and every layer's grid and time under w_mp+*.\n"
    "\n"
    "options:\n"
    "  --workers P          workers (default 256)\n"
    "  --config NgxNc       grid of w_mp and w_mp+ (default 16x16; for other P the\n"
    "                       most groups among 16, 4, 1 that divide P)\n"
    "  --config dynamic[:G,...]  group counts dynamic clustering (w_mp*, w_mp+*)\n"
    "                       chooses from, per layer (default 1,4,16); give --config\n"
    "                       twice to set both\n"
    "  --batch B            total batch (default 256)\n"
    "  --kernel 3|5         kernel of a Table II layer (default 3)\n"
    "  --tile T             force the Winograd tile: 4 = F(2x2,3x3), 6 = F(4x4,3x3)\n"
    "                       or F(2x2,5x5) (default: F(4x4,3x3) for one group,\n"
    "                       F(2x2,3x3) otherwise, F(2x2,5x5) for 5x5)\n"
    "  --fp16               FP16 workers with a 96x96 array (the paper's whole-CNN\n"
    "                       setting) instead of FP32 64x64\n"
    "  --prediction-shares ours|paper\n"
    "                       traffic shares activation prediction and zero-skipping\n"
    "                       remove (w_mp+, w_mp+*): ours (default) are measured by\n"
    "                       dnnpar on a CNN trained on the handwritten digits\n"
    "                       Debian's python3-sklearn ships (docs/mpt.md); paper uses the\n"
    "                       paper's Sec. V-B figures - an input from the paper's\n"
    "                       measured result, extrapolated to the backward gather\n"
    "  --json FILE          write JSON to FILE ('-' = standard output only)\n"
    "\n"
    "hardware (defaults: the paper's Sec. VI and Table III; --fp16 first, then\n"
    "--hardware FILE, then these options; docs/mpt.md, 'Hardware options'):\n"
    "  --hardware FILE      JSON object with any of the keys below ('-' -> '_')\n"
    "  --array SxS          systolic array per worker (64x64; 96x96 with --fp16)\n"
    "  --array-split D      sub-arrays per side it may split into (4; 1 = one array)\n"
    "  --clock-ghz F        array and router clock (1)\n"
    "  --dram-gbps B        HMC DRAM bandwidth, GB/s (320)\n"
    "  --full-link-gbps B   full link, GB/s per direction (30 = 16 x 15 Gb/s)\n"
    "  --narrow-link-gbps B narrow (butterfly) link, GB/s per direction (10)\n"
    "  --full-links N       full links per worker (4)\n"
    "  --input-buffer-kb K  one instance of the input buffer, KiB (512)\n"
    "  --output-buffer-kb K output buffer, KiB (128)\n"
    "  --hop-ns T           SerDes latency per hop, ns (5)\n"
    "\n"
    "examples:\n"
    "  dnnpar mpt late-2\n"
    "  dnnpar mpt late-2 --array 128x128 --dram-gbps 640\n"
    "  dnnpar mpt mid-1 --workers 64 --config 8x8 --config dynamic:1,2,4,8\n"
    "  dnnpar mpt fractalnet --fp16 --json fractalnet.json\n";

static const char repro_help[] =
    "usage: dnnpar reproduce mpt [--json FILE]\n"
    "\n"
    "Runs the evaluation of the MPT paper (Hong et al., MICRO 2018) on our model\n"
    "and prints ours beside the paper's figures:\n"
    "  Fig. 6   bytes per worker vs workers for Mid-1 and Late-2\n"
    "  Fig. 7   the same for FractalNet, with dynamic clustering\n"
    "  Fig. 12  activation prediction and zero-skipping, measured on a CNN trained\n"
    "           on handwritten digits and on synthetic data\n"
    "  run      a real intra-tile x data-parallel run against one worker\n"
    "  Fig. 15  the five Table II layers under the six configurations: time and\n"
    "           modelled energy (compute + DRAM, links; relative to w_dp)\n"
    "  Fig. 16  mean speedups for 3x3 and 5x5 kernels\n"
    "  Fig. 17  ResNet-34, WRN-40-10 and FractalNet on 256 workers\n"
    "Why our numbers differ from the paper's: docs/mpt.md, 'Reproduction'.\n"
    "\n"
    "example:\n"
    "  dnnpar reproduce mpt --json mpt.json\n";


/* Hardware options; each is a --hardware file key with '-' for '_'. */
static const char *const hw_options[] = {"array",          "array-split",      "clock-ghz",
                                         "dram-gbps",      "full-link-gbps",   "narrow-link-gbps",
                                         "full-links",     "input-buffer-kb",  "output-buffer-kb",
                                         "hop-ns",         NULL};

/* The options of `dnnpar mpt` into o (strings borrowed from a).  Prints
 * the error; returns an exit status. */
static int parse_opts(const char *cmd, const cli_args *a, dnp_mpt_options *o)
{
    dnp_mpt_options_default(o);
    o->target = a->pos[0];
    const char *v;
    long long x;
    if ((v = cli_get(a, "workers")) != NULL) {
        if ((x = cli_positive(cmd, "workers", v, 1 << 20)) < 0)
            return EXIT_USAGE;
        o->workers = (int)x;
    }
    if ((v = cli_get(a, "batch")) != NULL) {
        if ((x = cli_positive(cmd, "batch", v, 1 << 24)) < 0)
            return EXIT_USAGE;
        o->batch = x;
    }
    if ((v = cli_get(a, "kernel")) != NULL) {
        if ((x = cli_positive(cmd, "kernel", v, 15)) < 0)
            return EXIT_USAGE;
        o->kernel = (int)x;
    }
    if ((v = cli_get(a, "tile")) != NULL) {
        if ((x = cli_positive(cmd, "tile", v, 64)) < 0)
            return EXIT_USAGE;
        o->tile = (int)x;
    }
    o->fp16 = cli_flag(a, "fp16");
    o->hardware_path = cli_get(a, "hardware");
    for (int k = 0; hw_options[k] != NULL; k++)
        if ((v = cli_get(a, hw_options[k])) != NULL) {
            o->hw_name[o->n_hw] = hw_options[k];
            o->hw_value[o->n_hw++] = v;
        }
    o->prediction_shares = cli_get(a, "prediction-shares");
    for (int k = 0; k < a->n_opt; k++)
        if (strcmp(a->key[k], "config") == 0 && a->val[k] != NULL &&
            o->n_configs < DNP_MPT_MAX_CONFIGS)
            o->configs[o->n_configs++] = a->val[k];
    return 0;
}

static dnp_status run_json(const void *r, char **out, dnp_error *err)
{
    return dnp_mpt_json(r, out, err);
}

static dnp_status run_text(const void *r, char **out, dnp_error *err)
{
    return dnp_mpt_text(r, out, err);
}

int cmd_mpt(int argc, char **argv)
{
    static const char *const valued[] = {"workers",          "config",
                                         "batch",            "kernel",
                                         "tile",             "prediction-shares",
                                         "json",             "hardware",
                                         "array",            "array-split",
                                         "clock-ghz",        "dram-gbps",
                                         "full-link-gbps",   "narrow-link-gbps",
                                         "full-links",       "input-buffer-kb",
                                         "output-buffer-kb", "hop-ns",
                                         NULL};
    static const char *const flags[] = {"help", "fp16", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "mpt", mpt_help, 1, "one LAYER or MODEL", &a,
                             &done);
    if (rc != 0 || done)
        return rc;
    dnp_mpt_options o;
    if ((rc = parse_opts("mpt", &a, &o)) != 0)
        return rc;
    dnp_error err = {0};
    dnp_mpt_run *r = NULL;
    dnp_status st = dnp_mpt_evaluate(&o, &r, &err);
    if (st != DNP_OK) {
        cli_error("mpt", "%s", err.msg);
        return cli_exit_for(st);
    }
    rc = cli_write_reports("mpt", r, cli_get(&a, "json"), run_json, run_text);
    dnp_mpt_run_free(r);
    return rc;
}

/* ---- dnnpar reproduce mpt ----------------------------------------------- */

static dnp_status repro_json(const void *r, char **out, dnp_error *err)
{
    return dnp_mpt_repro_json(r, out, err);
}

static dnp_status repro_text(const void *r, char **out, dnp_error *err)
{
    return dnp_mpt_repro_text(r, out, err);
}

int reproduce_mpt(int argc, char **argv)
{
    static const char *const valued[] = {"json", NULL};
    static const char *const flags[] = {"help", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "reproduce", repro_help, 1, "the paper: mpt", &a,
                             &done);
    if (rc != 0 || done)
        return rc;
    dnp_error err = {0};
    dnp_mpt_repro *p = NULL;
    dnp_status st = dnp_mpt_reproduce(&p, &err);
    if (st != DNP_OK) {
        cli_error("reproduce", "mpt: %s", err.msg);
        return cli_exit_for(st);
    }
    rc = cli_write_reports("reproduce", p, cli_get(&a, "json"), repro_json, repro_text);
    dnp_mpt_repro_free(p);
    return rc;
}
