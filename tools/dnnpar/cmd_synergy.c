/*
 * cmd_synergy.c - `dnnpar synergy WORKLOAD`: SynergyFlow's workload
 * characterisation, analytical C/F-Engine split, design space and
 * instruction-block simulation (Li et al., TODAES 2018); and
 * `dnnpar reproduce synergyflow`: the paper's Table 6, Figs. 9, 13(a),
 * 15, 16, 17 and Table 7 beside ours.  Argument parsing only: the library
 * (dnnpar.h, "SynergyFlow accelerator") runs and reports.  The model:
 * docs/synergyflow.md.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: dnnpar synergy WORKLOAD [platform options] [--nc N --nf N] [--dse] [--blocks]\n"
    "                      [--simulate | --compare] [simulation options] [--json FILE]\n"
    "\n"
    "Sizes a SynergyFlow accelerator for WORKLOAD (Li et al., TODAES 2018): per\n"
    "CONV and FC layer the operations, DRAM traffic under the loop tiling of\n"
    "Fig. 8 and the CTC ratio (Eqs. 1, 3-5); the workload's R_ctf, K and S\n"
    "(Eq. 10); and the split of the N cores into a C-Engine and an F-Engine\n"
    "(Eq. 9, derived from Eq. 8) with the terms behind it.  Optionally the\n"
    "design space of every split (Fig. 9) and an event-driven simulation at\n"
    "instruction-block granularity.  Units and assumptions: docs/synergyflow.md.\n"
    "\n"
    "WORKLOAD is MODEL[:COUNT]('+'MODEL[:COUNT])* with zoo models (dnnpar models)\n"
    "or model files (dnnpar model JSON, ONNX: their CONV and FC layers) and\n"
    "instance counts, e.g. alexnet-2012:100, vgg11:100+dbn-m:20000 or net.onnx:50,\n"
    "or a mix of Table 6: batch1, batch2, batch3.  Table 6's AlexNet is alexnet-2012.\n"
    "  --skip-unknown   ONNX: unknown operators become free element-wise ops\n"
    "\n"
    "platform (default: the paper's P395-AB FPGA):\n"
    "  --cores N        cores (64)             --tn T      PE array T x T per core (4)\n"
    "  --bw GIBPS       DRAM bandwidth in GiB/s (2^30 B/s, the paper's GB) (34.2)\n"
    "  --freq MHZ       clock (100)            --dw BITS   data width (16)\n"
    "  --tr R --tc C    CONV output tile (32 x 32)   --tnn T   FC tile (128)\n"
    "split:\n"
    "  --nc N --nf N    use this split instead of Eq. 9 (both; N_c + N_f <= N)\n"
    "  --dse            map the estimated GOPS of every split (Fig. 9)\n"
    "  --blocks         per layer: sublayers, cycles on its engine and the memory\n"
    "                   instruction block of the first sublayer (Table 3), FF\n"
    "simulation:\n"
    "  --simulate       simulate --arch (default sf: the split above)\n"
    "  --compare        simulate mono, ata1..ata5 and sf side by side\n"
    "  --arch A         sf | mono (all cores, layers in turn) | ata1..ata5\n"
    "                   (fixed splits (32,32) (48,16) (56,8) (60,4) (63,1), N = 64)\n"
    "  --training       FF, BP and GD per instance (default: inference, FF)\n"
    "  --epochs E       training passes (1)    --batch-size B  weights change per\n"
    "                                          batch of a model (50)\n"
    "  --in-order       finish each instance before the next (default: out of order)\n"
    "  --round-robin    share DRAM round-robin (default: C-Engine priority, Fig. 12)\n"
    "  --max-blocks K   merge each layer into at most K instruction blocks (default:\n"
    "                   one block per engine step)\n"
    "  --sample K       estimate from simulations of counts/K and 2 counts/K\n"
    "  --trace FILE     write the timeline as a Chrome trace (chrome://tracing)\n"
    "  --trace-max-spans N  write at most N spans (2000000, about 200 MB); the\n"
    "                   output says how many more there were\n"
    "  --json FILE      results as JSON ('-' for standard output, text skipped)\n"
    "\n"
    "examples:\n"
    "  dnnpar synergy alexnet-2012:100\n"
    "  dnnpar synergy batch2 --dse\n"
    "  dnnpar synergy batch3 --compare --sample 100\n"
    "  dnnpar synergy alexnet-2012:4 --simulate --training --trace alexnet.json\n"
    "  dnnpar synergy vgg11 --bw 8 --nc 60 --nf 4 --simulate --json vgg11.json\n";

static const char repro_help[] =
    "usage: dnnpar reproduce synergyflow [--json FILE]\n"
    "\n"
    "Runs the SynergyFlow paper's evaluation (section 6) on our model and\n"
    "prints ours beside the paper's figures, for the six Table 6 workloads on\n"
    "the P395-AB preset:\n"
    "  Table 6   R_ctf, K and the split (N_c, N_f) from our layer shapes\n"
    "  Fig. 9    the analytical split against the best of the design space\n"
    "  Fig. 13a  SynergyFlow's gain over MonoArch (inference)\n"
    "  Fig. 15   GOPS against DRAM bandwidth, SynergyFlow and MonoArch\n"
    "  Fig. 16   out-of-order against in-order layer scheduling (training)\n"
    "  Fig. 17   SynergyFlow against ATA-1..5\n"
    "  Table 7   SynergyFlow's time and GOPS, inference and 10 training epochs\n"
    "  Sec. 4.1.2  C-Engine priority against round-robin DRAM arbitration\n"
    "Simulations use samples of the Table 6 counts scaled by the steady\n"
    "state, and at most 32 instruction blocks per layer.  Why our figures\n"
    "differ from the paper's: docs/synergyflow.md, 'Reproduction'.\n"
    "\n"
    "example:\n"
    "  dnnpar reproduce synergyflow --json synergyflow.json\n";

#define CMD "synergy"

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

/* A positive finite number (with unit `unit` for the message). */
static int parse_positive_real(const char *opt, const char *text, const char *unit, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || v <= 0 || v > 1e9) {
        cli_error(CMD, "--%s must be a positive number (%s), got '%s'", opt, unit, text);
        return -1;
    }
    *out = v;
    return 0;
}

/* An integer 0..max (cli_positive rejects 0). */
static int parse_count0(const char *opt, const char *text, int max, int *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < 0 || v > max) {
        cli_error(CMD, "--%s must be an integer from 0 to %d, got '%s'", opt, max, text);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* An optional positive integer option into *out. */
static int opt_int(const cli_args *a, const char *name, long long max, int *out)
{
    const char *v = cli_get(a, name);
    if (v == NULL)
        return 0;
    long long x = cli_positive(CMD, name, v, max);
    if (x < 0)
        return -1;
    *out = (int)x;
    return 0;
}

static int read_platform(const cli_args *a, dnp_synergy_platform *p)
{
    double bw_gibps = 34.2, mhz = 100.0;
    int dw_bits = 16;
    const char *v;
    if ((v = cli_get(a, "bw")) && parse_positive_real("bw", v, "GiB/s", &bw_gibps) != 0)
        return -1;
    if ((v = cli_get(a, "freq")) && parse_positive_real("freq", v, "MHz", &mhz) != 0)
        return -1;
    if (opt_int(a, "cores", 65536, &p->cores) != 0 || opt_int(a, "tn", 1024, &p->tn) != 0 ||
        opt_int(a, "dw", 512, &dw_bits) != 0 || opt_int(a, "tr", 65536, &p->tr) != 0 ||
        opt_int(a, "tc", 65536, &p->tc) != 0 || opt_int(a, "tnn", 1048576, &p->tnn) != 0)
        return -1;
    if (dw_bits % 8 != 0) {
        cli_error(CMD, "--dw must be a whole number of bytes (8, 16, 32, ...), got %d", dw_bits);
        return -1;
    }
    p->bw_bps = bw_gibps * DNP_SYNERGY_GIB_BYTES;
    p->freq_hz = mhz * 1e6;
    p->dw_bytes = dw_bits / 8;
    dnp_error err = {0};
    if (dnp_synergy_platform_check(p, &err) != DNP_OK) {
        cli_error(CMD, "%s", err.msg);
        return -1;
    }
    return 0;
}

static int read_split(const cli_args *a, dnp_synergy_options *o)
{
    const char *nc = cli_get(a, "nc"), *nf = cli_get(a, "nf");
    if ((nc == NULL) != (nf == NULL)) {
        cli_error(CMD, "--nc and --nf go together (got only --%s)", nc ? "nc" : "nf");
        return -1;
    }
    if (nc == NULL)
        return 0;
    if (parse_count0("nc", nc, 65536, &o->nc) != 0 || parse_count0("nf", nf, 65536, &o->nf) != 0)
        return -1;
    if (o->nc + o->nf > o->platform.cores) {
        cli_error(CMD, "--nc %d + --nf %d = %d exceeds the %d cores (--cores)", o->nc, o->nf,
                  o->nc + o->nf, o->platform.cores);
        return -1;
    }
    if (o->nc + o->nf == 0) {
        cli_error(CMD, "--nc and --nf are both 0: no engine has cores");
        return -1;
    }
    o->have_split = 1;
    return 0;
}

static int read_simulation(const cli_args *a, dnp_synergy_options *o)
{
    const char *arch = cli_get(a, "arch");
    if (arch != NULL && (o->arch = dnp_synergy_arch_from_name(arch)) < 0) {
        static const char *const known[] = {"sf", "mono", "ata1", "ata2", "ata3", "ata4", "ata5",
                                            NULL};
        cli_unknown_name(CMD, "--arch", arch, known);
        return -1;
    }
    if (o->arch >= DNP_SYNERGY_ATA1 && o->arch <= DNP_SYNERGY_ATA5 && o->platform.cores != 64) {
        cli_error(CMD, "--arch %s is defined for 64 cores (section 6.1); use --nc/--nf", arch);
        return -1;
    }
    if (o->arch >= 0 && o->have_split && o->arch != DNP_SYNERGY_SF) {
        cli_error(CMD, "--arch %s and --nc/--nf both choose the split; give one", arch);
        return -1;
    }
    o->training = cli_flag(a, "training");
    o->in_order = cli_flag(a, "in-order");
    o->round_robin = cli_flag(a, "round-robin");
    if (opt_int(a, "epochs", 1000000, &o->epochs) != 0 ||
        opt_int(a, "batch-size", 1000000000, &o->batch_size) != 0 ||
        opt_int(a, "max-blocks", 1000000000, &o->max_blocks) != 0)
        return -1;
    const char *sample = cli_get(a, "sample");
    if (sample != NULL && (o->sample = cli_positive(CMD, "sample", sample, 1000000000)) < 0)
        return -1;
    o->trace_path = cli_get(a, "trace");
    const char *cap = cli_get(a, "trace-max-spans");
    if (cap != NULL &&
        (o->trace_max_spans = cli_positive(CMD, "trace-max-spans", cap, 1000000000)) < 0)
        return -1;
    if (cap != NULL && o->trace_path == NULL) {
        cli_error(CMD, "--trace-max-spans limits the file of --trace; give --trace FILE too");
        return -1;
    }
    o->compare = cli_flag(a, "compare");
    o->simulate = cli_flag(a, "simulate") || o->trace_path != NULL || o->compare ||
                  o->arch >= 0 || o->training || sample != NULL;
    if (o->trace_path != NULL && o->compare) {
        cli_error(CMD, "--trace records one architecture; drop --compare or --trace");
        return -1;
    }
    if (o->trace_path != NULL && o->sample > 1) {
        cli_error(CMD, "--trace needs one whole simulation; drop --sample");
        return -1;
    }
    return 0;
}

static dnp_status run_json(const void *r, char **out, dnp_error *err)
{
    return dnp_synergy_json(r, out, err);
}

static dnp_status run_text(const void *r, char **out, dnp_error *err)
{
    return dnp_synergy_text(r, out, err);
}

int cmd_synergy(int argc, char **argv)
{
    static const char *const valued[] = {
        "cores", "tn",   "bw",     "freq",       "dw",         "tr",     "tc",    "tnn",  "nc",
        "nf",    "arch", "epochs", "batch-size", "max-blocks", "sample", "trace", "trace-max-spans", "json", NULL};
    static const char *const flags[] = {"help",     "dse",         "blocks",
                                        "simulate", "compare",     "training",
                                        "in-order", "round-robin", "skip-unknown", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, CMD, help, 1, "one WORKLOAD", &a, &done);
    if (rc != 0 || done)
        return rc;
    dnp_synergy_options o;
    dnp_synergy_options_default(&o);
    o.workload = a.pos[0];
    o.dse = cli_flag(&a, "dse");
    o.skip_unknown = cli_flag(&a, "skip-unknown");
    o.blocks = cli_flag(&a, "blocks");
    if (read_platform(&a, &o.platform) != 0 || read_split(&a, &o) != 0 ||
        read_simulation(&a, &o) != 0)
        return EXIT_USAGE;
    dnp_error err = {0};
    dnp_synergy_run *run = NULL;
    dnp_status st = dnp_synergy_analyse(&o, &run, &err);
    if (st != DNP_OK) {
        cli_error(CMD, "%s", err.msg);
        return cli_exit_for(st);
    }
    rc = cli_write_reports(CMD, run, cli_get(&a, "json"), run_json, run_text);
    dnp_synergy_run_free(run);
    return rc;
}

/* ------------------------------------------------------------------ */
/* dnnpar reproduce synergyflow                                         */
/* ------------------------------------------------------------------ */

static dnp_status repro_json(const void *r, char **out, dnp_error *err)
{
    return dnp_synergy_repro_json(r, out, err);
}

static dnp_status repro_text(const void *r, char **out, dnp_error *err)
{
    return dnp_synergy_repro_text(r, out, err);
}

int reproduce_synergyflow(int argc, char **argv)
{
    static const char *const valued[] = {"json", NULL};
    static const char *const flags[] = {"help", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "reproduce", repro_help, 1, "a paper: synergyflow",
                             &a, &done);
    if (rc != 0 || done)
        return rc;
    dnp_error err = {0};
    dnp_synergy_repro *r = NULL;
    dnp_status st = dnp_synergy_reproduce(&r, &err);
    if (st != DNP_OK) {
        cli_error("reproduce", "synergyflow: %s", err.msg);
        return cli_exit_for(st);
    }
    rc = cli_write_reports("reproduce", r, cli_get(&a, "json"), repro_json, repro_text);
    dnp_synergy_repro_free(r);
    return rc;
}
