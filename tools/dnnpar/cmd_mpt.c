/*
 * cmd_mpt.c - `dnnpar mpt LAYER|MODEL`: multi-dimensional parallel training
 * of Winograd layers on near-data-processing workers (Hong, Ro and Kim,
 * MICRO 2018) for one Table II layer or a whole model; and
 * `dnnpar reproduce mpt`: the paper's Figs. 6, 7, 12, 15, 16 and 17 on our
 * model beside the paper's figures.  The model: docs/mpt.md.
 */
#include "cli.h"

#include "arch/mpt/mpt_exec.h"
#include "arch/mpt/mpt_model.h"

#include <errno.h>
#include <stdlib.h>
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
    "                       dnnpar on synthetic data (docs/mpt.md); paper uses the\n"
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
    "  --input-buffer-kb K  one instance of the input buffer, KB (512)\n"
    "  --output-buffer-kb K output buffer, KB (128)\n"
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
    "  Fig. 12  activation prediction and zero-skipping, measured on synthetic data\n"
    "  run      a real intra-tile x data-parallel run against one worker\n"
    "  Fig. 15  the five Table II layers under the six configurations\n"
    "  Fig. 16  mean speedups for 3x3 and 5x5 kernels\n"
    "  Fig. 17  ResNet-34, WRN-40-10 and FractalNet on 256 workers\n"
    "Why our numbers differ from the paper's: docs/mpt.md, 'Reproduction'.\n"
    "\n"
    "example:\n"
    "  dnnpar reproduce mpt --json mpt.json\n";

/* ---- small helpers ------------------------------------------------------ */

/* "1.54 MB", "768 B" */
static void fmt_bytes(double b, char *buf, size_t n)
{
    char s[16];
    cli_fmt_si(b, s, sizeof s);
    size_t len = strlen(s);
    snprintf(buf, n, "%s%sB", s, len > 0 && s[len - 1] >= '0' && s[len - 1] <= '9' ? " " : "");
}

static void fmt_us(double s, char *buf, size_t n) { snprintf(buf, n, "%.1f us", s * 1e6); }

static void grid_text(int ng, int nc, char *buf, size_t n) { snprintf(buf, n, "%dx%d", ng, nc); }

static void tf_text(const mpt_layer_time *t, const mpt_layer *l, char *buf, size_t n)
{
    if (t->th == 0) {
        snprintf(buf, n, "direct");
        return;
    }
    int mh = t->th - l->k_h + 1, mw = t->tw - l->k_w + 1;
    snprintf(buf, n, "F(%dx%d,%dx%d)", mh, mw, l->k_h, l->k_w);
}

/* A positive integer, or -1. */
static long parse_int(const char *s, const char **end)
{
    char *e = NULL;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (errno != 0 || e == s || v <= 0 || v > 1 << 20)
        return -1;
    *end = e;
    return v;
}

/* Where the prediction shares come from, for text and JSON. */
static const char *shares_source(const mpt_cuts *c)
{
    return c->from_paper ? "paper: input from the paper's measured result (Sec. V-B; the "
                           "backward gather extrapolated from its forward shares)"
                         : "ours: measured by dnnpar on synthetic data (docs/mpt.md, "
                           "'Activation prediction')";
}

static json_t *shares_json(const mpt_cuts *c)
{
    return json_pack("{s:s,s:f,s:f,s:f,s:f,s:f,s:f}", "source", shares_source(c),
                     "gather_cut_2d", c->gather_2d, "gather_cut_1d", c->gather_1d,
                     "backward_gather_cut_2d", c->gather_bwd_2d, "backward_gather_cut_1d",
                     c->gather_bwd_1d, "scatter_cut_2d", c->scatter_2d, "scatter_cut_1d",
                     c->scatter_1d);
}

static void shares_text(const mpt_cuts *c)
{
    printf("prediction shares (w_mp+, w_mp+*) - %s:\n  gather 2D %.1f%%, 1D %.1f%%; "
           "backward gather 2D %.1f%%, 1D %.1f%%; scatter 2D %.1f%%, 1D %.1f%%\n\n",
           shares_source(c), 100 * c->gather_2d, 100 * c->gather_1d, 100 * c->gather_bwd_2d,
           100 * c->gather_bwd_1d, 100 * c->scatter_2d, 100 * c->scatter_1d);
}

/* ---- options ------------------------------------------------------------ */

typedef struct {
    mpt_sys sys;
    int kernel;
    const char *json;
} mpt_opts;

/* Apply one --config value: NgxNc sets the fixed grid, dynamic[:list] the
 * choices.  Prints the error; returns an exit status. */
static int apply_config(const char *cmd, const char *v, mpt_sys *sys)
{
    const char *e;
    if (strncmp(v, "dynamic", 7) == 0 && (v[7] == '\0' || v[7] == ':')) {
        if (v[7] == '\0')
            return 0;
        int n = 0;
        const char *p = v + 8;
        while (1) {
            long g = parse_int(p, &e);
            if (g < 0 || n == MPT_MAX_CHOICES || (*e != ',' && *e != '\0')) {
                cli_error(cmd, "--config '%s': expected dynamic:G,G,... with up to %d positive "
                               "group counts",
                          v, MPT_MAX_CHOICES);
                return EXIT_USAGE;
            }
            if (sys->workers % g != 0) {
                cli_error(cmd, "--config '%s': %ld groups do not divide %d workers", v, g,
                          sys->workers);
                return EXIT_USAGE;
            }
            sys->choices[n++] = (int)g;
            if (*e == '\0')
                break;
            p = e + 1;
        }
        sys->n_choices = n;
        return 0;
    }
    long ng = parse_int(v, &e);
    long nc = (ng > 0 && (*e == 'x' || *e == 'X')) ? parse_int(e + 1, &e) : -1;
    if (ng < 0 || nc < 0 || *e != '\0') {
        cli_error(cmd, "--config '%s': expected NgxNc (e.g. 16x16) or dynamic[:G,G,...]", v);
        return EXIT_USAGE;
    }
    if (ng * nc != sys->workers) {
        cli_error(cmd, "--config '%s': %ld x %ld = %ld workers, but there are %d (--workers)", v,
                  ng, nc, ng * nc, sys->workers);
        return EXIT_USAGE;
    }
    sys->fixed_ng = (int)ng;
    return 0;
}

/* Hardware options; each is the MPT_HW_KEYS key with '-' for '_'. */
static const char *const hw_options[] = {"array",          "array-split",      "clock-ghz",
                                         "dram-gbps",      "full-link-gbps",   "narrow-link-gbps",
                                         "full-links",     "input-buffer-kb",  "output-buffer-kb",
                                         "hop-ns",         NULL};

static int parse_opts(const char *cmd, const cli_args *a, mpt_opts *o)
{
    o->sys = mpt_sys_paper();
    o->kernel = 3;
    o->json = cli_get(a, "json");
    const char *v;
    long long x;
    if ((v = cli_get(a, "workers")) != NULL) {
        if ((x = cli_positive(cmd, "workers", v, 1 << 20)) < 0)
            return EXIT_USAGE;
        o->sys.workers = (int)x;
    }
    if ((v = cli_get(a, "batch")) != NULL) {
        if ((x = cli_positive(cmd, "batch", v, 1 << 24)) < 0)
            return EXIT_USAGE;
        o->sys.batch = (double)x;
    }
    if ((v = cli_get(a, "kernel")) != NULL) {
        if ((x = cli_positive(cmd, "kernel", v, 15)) < 0)
            return EXIT_USAGE;
        o->kernel = (int)x;
    }
    if ((v = cli_get(a, "tile")) != NULL) {
        if ((x = cli_positive(cmd, "tile", v, 64)) < 0)
            return EXIT_USAGE;
        o->sys.tile = (int)x;
    }
    if (cli_flag(a, "fp16"))
        o->sys.hw = mpt_hw_paper(1);
    if ((v = cli_get(a, "hardware")) != NULL) {
        dnp_error err = {0};
        dnp_status st = mpt_hw_read_json(v, &o->sys.hw, &err);
        if (st != DNP_OK) {
            cli_error(cmd, "--hardware: %s", err.msg);
            return cli_exit_for(st);
        }
    }
    for (int k = 0; hw_options[k] != NULL; k++) {
        char opt[40], key[40];
        snprintf(opt, sizeof opt, "--%s", hw_options[k]);
        snprintf(key, sizeof key, "%s", hw_options[k]);
        for (char *c = key; *c; c++)
            if (*c == '-')
                *c = '_';
        if ((v = cli_get(a, hw_options[k])) != NULL) {
            dnp_error err = {0};
            if (mpt_hw_set(&o->sys.hw, key, v, opt, &err) != DNP_OK) {
                cli_error(cmd, "%s", err.msg);
                return EXIT_USAGE;
            }
        }
    }
    {
        dnp_error err = {0};
        if (mpt_hw_check(&o->sys.hw, &err) != DNP_OK) {
            cli_error(cmd, "hardware: %s", err.msg);
            return EXIT_USAGE;
        }
    }
    v = cli_get(a, "prediction-shares");
    if (v != NULL && strcmp(v, "paper") == 0) {
        o->sys.cuts = mpt_cuts_paper();
    } else if (v == NULL || strcmp(v, "ours") == 0) {
        dnp_error err = {0};
        dnp_status st = mpt_cuts_ours(&o->sys.cuts, &err);
        if (st != DNP_OK) {
            cli_error(cmd, "measuring prediction shares: %s", err.msg);
            return cli_exit_for(st);
        }
    } else {
        cli_error(cmd, "--prediction-shares '%s': expected ours or paper", v);
        return EXIT_USAGE;
    }
    /* defaults for P workers: the paper's choices that divide P */
    int n = 0;
    static const int defaults[] = {1, 4, 16};
    o->sys.fixed_ng = 1;
    for (int k = 0; k < 3; k++)
        if (o->sys.workers % defaults[k] == 0) {
            o->sys.choices[n++] = defaults[k];
            o->sys.fixed_ng = defaults[k];
        }
    o->sys.n_choices = n;
    for (int k = 0; k < a->n_opt; k++)
        if (strcmp(a->key[k], "config") == 0 && a->val[k] != NULL) {
            int rc = apply_config(cmd, a->val[k], &o->sys);
            if (rc != 0)
                return rc;
        }
    return 0;
}

/* Every Winograd layer must have a transform for the forced tile and room
 * for every group count used; prints the first problem. */
static int check_layers(const char *cmd, const mpt_net *net, const mpt_sys *sys)
{
    for (int i = 0; i < net->n; i++) {
        const mpt_layer *l = &net->layers[i];
        if (!l->wino || l->fc)
            continue;
        int counts[MPT_MAX_CHOICES + 1], n = 0;
        counts[n++] = sys->fixed_ng;
        for (int k = 0; k < sys->n_choices; k++)
            counts[n++] = sys->choices[k];
        for (int k = 0; k < n; k++) {
            int th, tw;
            dnp_error err = {0};
            if (mpt_layer_tiles(l, sys, counts[k], &th, &tw, &err) != DNP_OK) {
                cli_error(cmd, "layer '%s': %s", l->name, err.msg);
                return EXIT_USAGE;
            }
            if (counts[k] > th * tw) {
                cli_error(cmd, "layer '%s': %d groups exceed the %d elements of its %dx%d tile",
                          l->name, counts[k], th * tw, th, tw);
                return EXIT_USAGE;
            }
        }
    }
    return 0;
}

/* ---- dnnpar mpt --------------------------------------------------------- */

typedef struct {
    mpt_net net;
    const char *what;     /* Table II source, or NULL for a model */
    int is_layer;
    mpt_net_time t[MPT_CONFIG_COUNT];
    mpt_net_time single;  /* w_dp on one worker (models) */
    mpt_layer_time *per[MPT_CONFIG_COUNT];
} mpt_result;

static void result_free(mpt_result *r)
{
    for (int c = 0; c < MPT_CONFIG_COUNT; c++)
        dnp_free(r->per[c]);
    mpt_net_free(&r->net);
}

static int load_target(const char *cmd, const char *name, const mpt_opts *o, mpt_result *r)
{
    int idx = mpt_table2_find(name);
    dnp_error err = {0};
    if (idx >= 0) {
        mpt_layer l;
        if (o->kernel != 3 && o->kernel != 5) {
            cli_error(cmd, "--kernel %d: no Winograd transform serves %dx%d kernels (supported: "
                           "3x3, 5x5)",
                      o->kernel, o->kernel, o->kernel);
            return EXIT_USAGE;
        }
        mpt_table2_layer(idx, o->kernel, &l, &r->what);
        r->is_layer = 1;
        dnp_status st = mpt_net_single(&l, &r->net, &err);
        if (st != DNP_OK)
            cli_error(cmd, "%s", err.msg);
        return cli_exit_for(st);
    }
    if (o->kernel != 3) {
        cli_error(cmd, "--kernel applies to the Table II layers (early, mid-1, late-1, mid-2, "
                       "late-2), not to model '%s'",
                  name);
        return EXIT_USAGE;
    }
    dnp_graph *g = NULL;
    dnp_status st = dnp_model_load(name, &g, &err);
    if (st == DNP_OK)
        st = mpt_net_from_graph(g, &r->net, &err);
    dnp_graph_free(g);
    if (st != DNP_OK) {
        if (st == DNP_ERR_INPUT && strncmp(err.msg, "unknown model", 13) == 0)
            cli_error(cmd, "unknown layer or model '%s' (Table II layers: early, mid-1, late-1, "
                           "mid-2, late-2; models: see dnnpar models)",
                      name);
        else
            cli_error(cmd, "%s", err.msg);
    }
    return cli_exit_for(st);
}

static int evaluate(const char *cmd, const mpt_opts *o, mpt_result *r)
{
    dnp_error err = {0};
    dnp_status st = DNP_OK;
    for (int c = 0; c < MPT_CONFIG_COUNT && st == DNP_OK; c++) {
        r->per[c] = dnp_calloc((size_t)r->net.n, sizeof *r->per[c]);
        if (r->per[c] == NULL) {
            cli_error(cmd, "out of memory");
            return EXIT_RUNTIME;
        }
        st = mpt_net_eval(&r->net, &o->sys, (mpt_config)c, &r->t[c], r->per[c], &err);
    }
    if (st == DNP_OK) {
        mpt_sys one = o->sys;
        one.workers = 1;
        one.fixed_ng = 1;
        one.n_choices = 1;
        one.choices[0] = 1;
        st = mpt_net_eval(&r->net, &one, MPT_W_DP, &r->single, NULL, &err);
    }
    if (st != DNP_OK)
        cli_error(cmd, "%s", err.msg);
    return cli_exit_for(st);
}

static json_t *time_json(const mpt_layer_time *t, const mpt_layer *l)
{
    char tf[32];
    tf_text(t, l, tf, sizeof tf);
    return json_pack("{s:i,s:i,s:s,s:b,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "groups", t->ng,
                     "clusters", t->nc, "transform", tf, "one_d", t->one_d, "forward_s",
                     t->fwd_s, "backward_s", t->bwd_s, "compute_s", t->compute_s, "dram_s",
                     t->dram_s, "tile_transfer_s", t->tile_s, "allreduce_s", t->ring_s,
                     "weight_bytes_per_worker", t->weight_bytes, "tile_bytes_per_worker",
                     t->tile_bytes, "array_use", t->array_use);
}

static json_t *hw_json(const mpt_hw *h)
{
    char arr[32];
    snprintf(arr, sizeof arr, "%dx%d", h->array_dim, h->array_dim);
    return json_pack("{s:s,s:s,s:i,s:f,s:f,s:f,s:f,s:i,s:f,s:f,s:f}", "source",
                     mpt_hw_is_paper(h) ? "paper (Sec. VI, Table III); array_split ours"
                                         : "user", "array", arr,
                     "array_split", h->array_split, "clock_ghz", h->clock_hz / 1e9, "dram_gbps",
                     h->dram_bps / 1e9, "full_link_gbps", h->full_link_bps / 1e9,
                     "narrow_link_gbps", h->narrow_link_bps / 1e9, "full_links", h->full_links,
                     "input_buffer_kb", h->input_buffer_bytes / 1024, "output_buffer_kb",
                     h->output_buffer_bytes / 1024, "hop_ns", h->hop_s * 1e9);
}

/* One line naming the hardware when it is not the paper's. */
static void hw_text(const mpt_hw *h)
{
    if (mpt_hw_is_paper(h))
        return;
    printf("hardware (user-set, not the paper's): %dx%d array split up to %dx%d, %g GHz, DRAM "
           "%g GB/s, %d full links of %g GB/s, narrow links %g GB/s, buffers %g / %g KB, hop "
           "%g ns\n",
           h->array_dim, h->array_dim, h->array_split, h->array_split, h->clock_hz / 1e9,
           h->dram_bps / 1e9, h->full_links, h->full_link_bps / 1e9, h->narrow_link_bps / 1e9,
           h->input_buffer_bytes / 1024, h->output_buffer_bytes / 1024, h->hop_s * 1e9);
}

static json_t *sys_json(const mpt_sys *s)
{
    json_t *ch = json_array();
    for (int k = 0; k < s->n_choices; k++)
        json_array_append_new(ch, json_integer(s->choices[k]));
    return json_pack("{s:i,s:f,s:i,s:o,s:i,s:s,s:i,s:o,s:o}", "workers", s->workers, "batch",
                     s->batch, "fixed_groups", s->fixed_ng, "dynamic_groups", ch, "tile",
                     s->tile, "precision", s->hw.elem_bytes == 2 ? "fp16" : "fp32", "array",
                     s->hw.array_dim, "prediction_shares", shares_json(&s->cuts), "hardware",
                     hw_json(&s->hw));
}

static json_t *mpt_json(const mpt_result *r, const mpt_opts *o)
{
    json_t *cfgs = json_array(), *layers = json_array();
    double base = r->t[MPT_W_DP].total_s;
    for (int c = 0; c < MPT_CONFIG_COUNT; c++)
        json_array_append_new(
            cfgs, json_pack("{s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "config",
                            mpt_config_name((mpt_config)c), "forward_s", r->t[c].fwd_s,
                            "backward_s", r->t[c].bwd_s, "total_s", r->t[c].total_s,
                            "speedup_over_w_dp", base / r->t[c].total_s,
                            "speedup_over_one_worker", r->single.total_s / r->t[c].total_s,
                            "weight_bytes_per_worker", r->t[c].weight_bytes,
                            "tile_bytes_per_worker", r->t[c].tile_bytes));
    for (int i = 0; i < r->net.n; i++) {
        const mpt_layer *l = &r->net.layers[i];
        json_t *per = json_object();
        for (int c = 0; c < MPT_CONFIG_COUNT; c++)
            json_object_set_new(per, mpt_config_name((mpt_config)c), time_json(&r->per[c][i], l));
        json_array_append_new(
            layers, json_pack("{s:s,s:s,s:i,s:i,s:[i,i],s:[i,i],s:i,s:b,s:b,s:i,s:o}", "name",
                              l->name, "kind", l->fc ? "fc" : "conv", "in_channels", l->in_c,
                              "out_channels", l->out_c, "size", l->out_h, l->out_w, "kernel",
                              l->k_h, l->k_w, "stride", l->stride, "winograd", l->wino,
                              "relu_after", l->relu_after, "join_size", l->join_size,
                              "configs", per));
    }
    return json_pack("{s:s,s:s,s:o,s:o,s:o}", "target", r->net.name, "kind",
                     r->is_layer ? "layer" : "model", "system", sys_json(&o->sys), "configs",
                     cfgs, "layers", layers);
}

static void config_table(const mpt_result *r)
{
    double base = r->t[MPT_W_DP].total_s;
    if (r->is_layer)
        printf("%-7s %-8s %-11s %11s %11s %11s %8s %13s %13s\n", "config", "grid", "transform",
               "forward", "backward", "total", "vs w_dp", "weights/wkr", "tiles/wkr");
    else
        printf("%-7s %11s %11s %11s %8s %9s %13s %13s\n", "config", "forward", "backward",
               "total", "vs w_dp", "vs 1 wkr", "weights/wkr", "tiles/wkr");
    for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
        const mpt_layer_time *t = &r->per[c][0];
        char grid[16], tf[32], f[24], b[24], tot[24], wb[24], tb[24];
        fmt_us(r->t[c].fwd_s, f, sizeof f);
        fmt_us(r->t[c].bwd_s, b, sizeof b);
        fmt_us(r->t[c].total_s, tot, sizeof tot);
        fmt_bytes(r->t[c].weight_bytes, wb, sizeof wb);
        fmt_bytes(r->t[c].tile_bytes, tb, sizeof tb);
        if (r->is_layer) {
            grid_text(t->ng, t->nc, grid, sizeof grid);
            tf_text(t, &r->net.layers[0], tf, sizeof tf);
            printf("%-7s %-8s %-11s %11s %11s %11s %7.2fx %13s %13s\n",
                   mpt_config_name((mpt_config)c), grid, tf, f, b, tot,
                   base / r->t[c].total_s, wb, tb);
        } else {
            printf("%-7s %11s %11s %11s %7.2fx %8.1fx %13s %13s\n",
                   mpt_config_name((mpt_config)c), f, b, tot, base / r->t[c].total_s,
                   r->single.total_s / r->t[c].total_s, wb, tb);
        }
    }
}

static void layer_text(const mpt_result *r, const mpt_opts *o)
{
    const mpt_layer *l = &r->net.layers[0];
    printf("mpt %s (%s): %d -> %d channels, %dx%d, %dx%d kernel, batch %.0f, %d workers, "
           "%s %dx%d array\n\n",
           l->name, r->what, l->in_c, l->out_c, l->out_h, l->out_w, l->k_h, l->k_w,
           o->sys.batch, o->sys.workers, o->sys.hw.elem_bytes == 2 ? "FP16" : "FP32",
           o->sys.hw.array_dim, o->sys.hw.array_dim);
    hw_text(&o->sys.hw);
    shares_text(&o->sys.cuts);
    config_table(r);
    printf("\nwhere the time goes (per worker, us):\n");
    printf("%-7s %10s %10s %10s %10s %10s\n", "config", "compute", "DRAM", "tiles",
           "all-reduce", "array use");
    for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
        const mpt_layer_time *t = &r->per[c][0];
        printf("%-7s %10.1f %10.1f %10.1f %10.1f %9.0f%%\n", mpt_config_name((mpt_config)c),
               t->compute_s * 1e6, t->dram_s * 1e6, t->tile_s * 1e6, t->ring_s * 1e6,
               100 * t->array_use);
    }
    /* Sec. III-C on the fixed grid with F(2x2,3x3) (or the 5x5 transform) */
    mpt_sizes sz;
    int ng = o->sys.fixed_ng, nc = o->sys.workers / ng, t = l->k_h == 5 ? 6 : 4;
    if (o->sys.tile)
        t = o->sys.tile;
    mpt_layer_sizes(l, t, t, o->sys.batch, o->sys.hw.elem_bytes, &sz);
    char a[24], b[24], c[24], w[24], W[24];
    fmt_bytes(sz.w_bytes, w, sizeof w);
    fmt_bytes(sz.W_bytes, W, sizeof W);
    printf("\nweights: spatial |w| = %s, Winograd-domain |W| = %s with %dx%d tiles (%.2fx)\n", w,
           W, t, t, sz.W_bytes / sz.w_bytes);
    fmt_bytes(mpt_traffic_dp(sz.w_bytes, o->sys.workers), a, sizeof a);
    fmt_bytes(mpt_traffic_mpt_weights(sz.W_bytes, ng, nc), b, sizeof b);
    fmt_bytes(mpt_traffic_mpt_tiles(sz.tiles_bytes, ng, nc), c, sizeof c);
    printf("Sec. III-C per worker and iteration on %dx%d with %dx%d tiles: data parallel "
           "|w|(p-1)/p = %s;\n  MPT weights |W|/Ng (Nc-1)/Nc = %s, tiles |Tiles|/(Ng Nc) "
           "(Ng-1)/Ng = %s\n",
           ng, nc, t, t, a, b, c);
}

static void model_text(const mpt_result *r, const mpt_opts *o)
{
    int wino = 0, joins = 0;
    for (int i = 0; i < r->net.n; i++) {
        wino += r->net.layers[i].wino && !r->net.layers[i].fc;
        joins += r->net.layers[i].join_size > 1;
    }
    printf("mpt %s: %d conv/FC layers, %d served by the Winograd layer (stride 1, 3x3 or 5x5), "
           "%d in Winograd-domain joins; batch %.0f, %d workers, %s %dx%d array\n\n",
           r->net.name, r->net.n, wino, joins, o->sys.batch, o->sys.workers,
           o->sys.hw.elem_bytes == 2 ? "FP16" : "FP32", o->sys.hw.array_dim,
           o->sys.hw.array_dim);
    hw_text(&o->sys.hw);
    shares_text(&o->sys.cuts);
    config_table(r);
    printf("\nWinograd layers per grid:");
    for (int c = MPT_W_MP; c < MPT_CONFIG_COUNT; c++) {
        printf("  %s", mpt_config_name((mpt_config)c));
        for (int k = 0; k < o->sys.n_choices; k++)
            if (r->t[c].grid_counts[k] > 0)
                printf(" %dx%d:%d", o->sys.choices[k], o->sys.workers / o->sys.choices[k],
                       r->t[c].grid_counts[k]);
    }
    printf("\n\nper layer under w_mp+* (w_dp for comparison):\n");
    printf("%-28s %-6s %-14s %-8s %-11s %11s %11s %11s\n", "layer", "kind", "shape", "grid",
           "transform", "forward", "backward", "w_dp total");
    for (int i = 0; i < r->net.n; i++) {
        const mpt_layer *l = &r->net.layers[i];
        const mpt_layer_time *t = &r->per[MPT_W_MP_PS][i], *d = &r->per[MPT_W_DP][i];
        char shape[32], grid[16], tf[32], f[24], b[24], dt[24];
        snprintf(shape, sizeof shape, "%dx%dx%d", l->out_c, l->out_h, l->out_w);
        grid_text(t->ng, t->nc, grid, sizeof grid);
        tf_text(t, l, tf, sizeof tf);
        fmt_us(t->fwd_s, f, sizeof f);
        fmt_us(t->bwd_s, b, sizeof b);
        fmt_us(d->fwd_s + d->bwd_s, dt, sizeof dt);
        printf("%-28s %-6s %-14s %-8s %-11s %11s %11s %11s%s\n", l->name,
               l->fc ? "fc" : (l->join_size > 1 ? "conv+j" : "conv"), shape, grid, tf, f, b, dt,
               l->wino && !l->fc ? "" : "  (direct, data parallel)");
    }
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
    mpt_opts o;
    if ((rc = parse_opts("mpt", &a, &o)) != 0)
        return rc;
    mpt_result r;
    memset(&r, 0, sizeof r);
    if ((rc = load_target("mpt", a.pos[0], &o, &r)) == 0 &&
        (rc = check_layers("mpt", &r.net, &o.sys)) == 0)
        rc = evaluate("mpt", &o, &r);
    if (rc == 0 && o.json != NULL) /* JSON first: if it fails, nothing else is printed */
        rc = cli_write_json("mpt", o.json, mpt_json(&r, &o));
    if (rc == 0 && (o.json == NULL || strcmp(o.json, "-") != 0)) {
        if (r.is_layer)
            layer_text(&r, &o);
        else
            model_text(&r, &o);
    }
    result_free(&r);
    return rc;
}

/* ---- dnnpar reproduce mpt ----------------------------------------------- */

/* Paper figures quoted in the text (the plots themselves are not in it). */
#define PAPER_FIG15_MPPS 2.74   /* w_mp+* over w_dp, mean of the five 3x3 layers */
#define PAPER_FIG15_MID 2.24    /* w_mp+ over w_dp, Mid layers */
#define PAPER_FIG15_LATE 4.54   /* w_mp+ over w_dp, Late layers */
#define PAPER_FIG16_5X5 3.03    /* w_mp+* over w_dp, 5x5 */
#define PAPER_FIG7_DYN 1.4      /* MPT / MPT with dynamic clustering at p = 256 */
static const double paper_fig17_wdp[MPT_CONFIG_COUNT] = {0, 1.0, 0, 1.4, 2.2, 2.7};
#define PAPER_FIG17_WDP_SINGLE 71.0
#define PAPER_FIG17_MPPS_SINGLE 191.0

typedef struct {
    mpt_traffic_curve fig6[2], fig7;
    mpt_predict_measure pred[2][3]; /* output bias 0 and -0.5 sigma; 1, 2, 4 regions */
    double pred_bias[2];
    mpt_selfcheck run[3];           /* 4x2, 16x2, 16x2 with prediction */
    mpt_layerwise lw[2];            /* 3x3, 5x5 */
    mpt_layerwise lw_comm;          /* 3x3, dynamic clustering by communication (paper) */
    mpt_wholenet wn, wn_comm;
    mpt_cuts measured;              /* the cuts our measurement gives: used throughout */
    mpt_layerwise lw_paper;         /* 3x3 with the paper's cuts (input from the paper) */
    mpt_wholenet wn_paper;
    double link_fig15[5], link_fig17[5]; /* w_mp+* over w_dp with links scaled (link_scales) */
    mpt_layerwise lw_mono;          /* 3x3 on one monolithic array (hw.array_split = 1) */
    mpt_wholenet wn_mono;
} repro;

static const double link_scales[5] = {0.25, 0.5, 1.0, 2.0, 4.0};



static int repro_run(repro *p)
{
    dnp_error err = {0};
    mpt_sys sys = mpt_sys_paper();
    mpt_layer l;
    dnp_status st = DNP_OK;
    memset(p, 0, sizeof *p);
    mpt_table2_layer(mpt_table2_find("mid-1"), 3, &l, NULL);
    mpt_fig6(&l, 256, 4, &p->fig6[0]);
    mpt_table2_layer(mpt_table2_find("late-2"), 3, &l, NULL);
    mpt_fig6(&l, 256, 4, &p->fig6[1]);
    dnp_graph *g = NULL;
    mpt_net net;
    memset(&net, 0, sizeof net);
    st = dnp_zoo_build("fractalnet", &g, &err);
    if (st == DNP_OK)
        st = mpt_net_from_graph(g, &net, &err);
    if (st == DNP_OK)
        mpt_fig7(&net, 256, 4, &p->fig7);
    mpt_net_free(&net);
    dnp_graph_free(g);
    for (int b = 0; b < 2 && st == DNP_OK; b++) {
        mpt_measure_setup ms = mpt_measure_default();
        ms.bias_sigmas = p->pred_bias[b] = 0.5 * b;
        st = mpt_predict_measure_run(&ms, p->pred[b], &err);
    }
    if (st != DNP_OK) {
        cli_error("reproduce", "mpt: %s", err.msg);
        return cli_exit_for(st);
    }
    static const int runs[3][3] = {{4, 2, 0}, {16, 2, 0}, {16, 2, 1}};
    for (int k = 0; k < 3 && st == DNP_OK; k++)
        st = mpt_selfcheck_run(runs[k][0], runs[k][1], runs[k][2], &p->run[k], &err);
    p->measured = mpt_cuts_measured(&p->pred[0][2]); /* = mpt_cuts_ours */
    sys.cuts = p->measured;
    if (st == DNP_OK)
        st = mpt_layerwise_run(&sys, 3, &p->lw[0], &err);
    if (st == DNP_OK)
        st = mpt_layerwise_run(&sys, 5, &p->lw[1], &err);
    mpt_sys by_comm = sys;
    by_comm.dyn_by_comm = 1;
    if (st == DNP_OK)
        st = mpt_layerwise_run(&by_comm, 3, &p->lw_comm, &err);
    mpt_sys fp16 = sys;
    fp16.hw = mpt_hw_paper(1); /* footnote 16: FP16, 96x96 for whole CNNs */
    if (st == DNP_OK)
        st = mpt_wholenet_run(&fp16, &p->wn, &err);
    fp16.dyn_by_comm = 1;
    if (st == DNP_OK)
        st = mpt_wholenet_run(&fp16, &p->wn_comm, &err);
    for (int k = 0; k < 5 && st == DNP_OK; k++) { /* every link's bandwidth scaled */
        mpt_sys ls = sys, lf = fp16;
        ls.hw.full_link_bps *= link_scales[k];
        ls.hw.narrow_link_bps *= link_scales[k];
        lf.hw.full_link_bps *= link_scales[k];
        lf.hw.narrow_link_bps *= link_scales[k];
        lf.dyn_by_comm = 0;
        mpt_layerwise *lw = dnp_malloc(sizeof *lw);
        mpt_wholenet *wn = dnp_malloc(sizeof *wn);
        if (lw == NULL || wn == NULL) {
            dnp_error_set(&err, DNP_ERR_NOMEM, "out of memory");
            st = DNP_ERR_NOMEM;
        }
        if (st == DNP_OK)
            st = mpt_layerwise_run(&ls, 3, lw, &err);
        if (st == DNP_OK)
            st = mpt_wholenet_run(&lf, wn, &err);
        if (st == DNP_OK) {
            p->link_fig15[k] = lw->mean_speedup[MPT_W_MP_PS];
            p->link_fig17[k] = wn->mean_over_wdp[MPT_W_MP_PS];
        }
        dnp_free(lw);
        dnp_free(wn);
    }
    mpt_sys mono = sys, mono16 = fp16; /* the array not split (the model before packing) */
    mono.hw.array_split = mono16.hw.array_split = 1;
    mono16.dyn_by_comm = 0;
    if (st == DNP_OK)
        st = mpt_layerwise_run(&mono, 3, &p->lw_mono, &err);
    if (st == DNP_OK)
        st = mpt_wholenet_run(&mono16, &p->wn_mono, &err);
    mpt_sys paper = sys;
    paper.cuts = mpt_cuts_paper(); /* input from the paper's measured result */
    if (st == DNP_OK)
        st = mpt_layerwise_run(&paper, 3, &p->lw_paper, &err);
    fp16.dyn_by_comm = 0;
    fp16.cuts = paper.cuts;
    if (st == DNP_OK)
        st = mpt_wholenet_run(&fp16, &p->wn_paper, &err);
    if (st != DNP_OK)
        cli_error("reproduce", "mpt: %s", err.msg);
    return cli_exit_for(st);
}

static json_t *curve_json(const mpt_traffic_curve *c, int dynamic)
{
    json_t *p = json_array(), *dp = json_array(), *w = json_array(), *t = json_array(),
           *d = json_array();
    for (int k = 0; k < MPT_FIG6_POINTS; k++) {
        json_array_append_new(p, json_integer(c->p[k]));
        json_array_append_new(dp, json_real(c->dp[k]));
        json_array_append_new(w, json_real(c->mpt_weights[k]));
        json_array_append_new(t, json_real(c->mpt_tiles[k]));
        json_array_append_new(d, json_real(c->mpt_dynamic[k]));
    }
    json_t *o = json_pack("{s:o,s:o,s:o,s:o}", "workers", p, "dp_bytes", dp,
                          "mpt_weight_bytes", w, "mpt_tile_bytes", t);
    if (dynamic)
        json_object_set_new(o, "mpt_dynamic_bytes", d);
    else
        json_decref(d);
    return o;
}

static json_t *speedups_json(const double *v)
{
    json_t *o = json_object();
    for (int c = 0; c < MPT_CONFIG_COUNT; c++)
        json_object_set_new(o, mpt_config_name((mpt_config)c), json_real(v[c]));
    return o;
}

static json_t *layerwise_json(const mpt_layerwise *lw)
{
    json_t *layers = json_object();
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, lw->kernel, &l, NULL);
        json_t *cfg = json_object();
        double base = lw->t[i][MPT_W_DP].fwd_s;
        for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
            char grid[16];
            grid_text(lw->t[i][c].ng, lw->t[i][c].nc, grid, sizeof grid);
            json_object_set_new(cfg, mpt_config_name((mpt_config)c),
                                json_pack("{s:f,s:f,s:f,s:s}", "forward_norm",
                                          lw->t[i][c].fwd_s / base, "backward_norm",
                                          lw->t[i][c].bwd_s / base, "speedup_over_w_dp",
                                          lw->speedup[i][c], "grid", grid));
        }
        json_object_set_new(layers, l.name, cfg);
    }
    return json_pack("{s:i,s:o,s:o}", "kernel", lw->kernel, "layers", layers,
                     "mean_speedup_over_w_dp", speedups_json(lw->mean_speedup));
}

static json_t *wholenet_json(const mpt_wholenet *wn)
{
    json_t *nets = json_object();
    for (int k = 0; k < MPT_FIG17_NETS; k++)
        json_object_set_new(nets, wn->names[k],
                            json_pack("{s:o,s:o}", "speedup_over_one_worker",
                                      speedups_json(wn->over_single[k]), "speedup_over_w_dp",
                                      speedups_json(wn->over_wdp[k])));
    return json_pack("{s:o,s:o,s:o}", "networks", nets, "mean_speedup_over_one_worker",
                     speedups_json(wn->mean_over_single), "mean_speedup_over_w_dp",
                     speedups_json(wn->mean_over_wdp));
}

static json_t *pred_json(const repro *p)
{
    json_t *arr = json_array();
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < 3; k++) {
            const mpt_predict_measure *m = &p->pred[b][k];
            json_array_append_new(
                arr, json_pack("{s:f,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:I}", "bias_sigmas",
                               p->pred_bias[b], "regions", m->regions, "tile_actual",
                               m->tile_actual, "tile_predicted", m->tile_predicted,
                               "line_actual", m->line_actual, "line_predicted",
                               m->line_predicted, "zero_values_2d", m->zero_values_2d,
                               "zero_lines_1d", m->zero_lines_1d, "false_negatives",
                               (json_int_t)m->false_negatives));
        }
    return json_pack("{s:s,s:o,s:{s:f,s:f,s:f,s:f}}", "data",
                     "synthetic: smooth random images, one He-initialised 3x3 conv + ReLU, "
                     "then the measured 3x3 layer (32 -> 32 channels, 16x16, batch 4), "
                     "F(2x2,3x3); no ImageNet, CIFAR or trained weights",
                     "measurements", arr, "paper", "gather_cut_2d", 0.340, "gather_cut_1d",
                     0.781, "scatter_cut_2d", 0.393, "scatter_cut_1d", 0.647);
}

static json_t *run_json(const repro *p)
{
    static const char *const names[3] = {"4x2", "16x2", "16x2+predict"};
    json_t *o = json_object();
    for (int k = 0; k < 3; k++) {
        const mpt_selfcheck *r = &p->run[k];
        json_object_set_new(
            o, names[k],
            json_pack("{s:b,s:b,s:f,s:f,s:f,s:f,s:f,s:I,s:I}", "equals_single_worker", r->equal,
                      "one_d", r->stats.one_d, "scatter_bytes_per_worker",
                      r->stats.scatter_bytes_max, "gather_bytes_per_worker",
                      r->stats.gather_bytes_max, "ring_bytes_per_worker", r->stats.ring_bytes_max,
                      "formula_scatter_bytes", r->formula_scatter, "formula_gather_bytes",
                      r->formula_gather, "units_predicted_inactive",
                      (json_int_t)r->stats.predicted_inactive, "units_actual_inactive",
                      (json_int_t)r->stats.actual_inactive));
    }
    return o;
}

/* Mean of w_mp+ over the Mid (or Late) layers of Table II. */
static double class_mean(const mpt_layerwise *lw, const char *prefix, int cfg)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, lw->kernel, &l, NULL);
        if (strncmp(l.name, prefix, strlen(prefix)) == 0) {
            s += lw->speedup[i][cfg];
            n++;
        }
    }
    return n ? s / n : 0;
}

static json_t *repro_json(const repro *p)
{
    json_t *fig15 = layerwise_json(&p->lw[0]);
    json_object_set_new(fig15, "paper",
                        json_pack("{s:f,s:f,s:f}", "w_mp+*_mean", PAPER_FIG15_MPPS,
                                  "w_mp+_mid", PAPER_FIG15_MID, "w_mp+_late", PAPER_FIG15_LATE));
    json_object_set_new(fig15, "w_mp+_mid", json_real(class_mean(&p->lw[0], "mid", MPT_W_MP_P)));
    json_object_set_new(fig15, "w_mp+_late",
                        json_real(class_mean(&p->lw[0], "late", MPT_W_MP_P)));
    json_t *use = json_object(), *use_mono = json_object();
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        json_object_set_new(use, l.name, json_real(p->lw[0].t[i][MPT_W_DP].array_use));
        json_object_set_new(use_mono, l.name, json_real(p->lw_mono.t[i][MPT_W_DP].array_use));
    }
    json_object_set_new(fig15, "w_dp_array_use", use);
    json_object_set_new(fig15, "w_dp_array_use_monolithic", use_mono);
    json_t *fig17 = wholenet_json(&p->wn);
    json_object_set_new(fig17, "paper",
                        json_pack("{s:f,s:f,s:o}", "w_dp_over_one_worker",
                                  PAPER_FIG17_WDP_SINGLE, "w_mp+*_over_one_worker",
                                  PAPER_FIG17_MPPS_SINGLE, "over_w_dp",
                                  json_pack("{s:f,s:f,s:f}", "w_mp+", 1.4, "w_mp*", 2.2,
                                            "w_mp+*", 2.7)));
    json_t *fig7 = curve_json(&p->fig7, 1);
    json_object_set_new(fig7, "paper_dynamic_gain_at_256", json_real(PAPER_FIG7_DYN));
    json_t *root = json_pack(
        "{s:{s:o,s:o},s:o,s:o,s:o,s:o,s:{s:o,s:o,s:f},s:o,s:{s:f,s:f}}", "fig6", "mid-1",
        curve_json(&p->fig6[0], 0), "late-2", curve_json(&p->fig6[1], 0), "fig7", fig7,
        "fig12", pred_json(p), "parallel_run", run_json(p), "fig15", fig15, "fig16", "3x3",
        speedups_json(p->lw[0].mean_speedup), "5x5", speedups_json(p->lw[1].mean_speedup),
        "paper_w_mp+*_5x5", PAPER_FIG16_5X5, "fig17", fig17, "dynamic_by_communication_paper_criterion",
        "fig15_w_mp+*_mean", p->lw_comm.mean_speedup[MPT_W_MP_PS], "fig17_w_mp+*_over_w_dp",
        p->wn_comm.mean_over_wdp[MPT_W_MP_PS]);
    json_object_set_new(root, "prediction_shares", shares_json(&p->measured));
    json_t *links = json_array();
    for (int k = 0; k < 5; k++)
        json_array_append_new(links, json_pack("{s:f,s:f,s:f}", "link_bandwidth_scale",
                                               link_scales[k], "fig15_w_mp+*_over_w_dp",
                                               p->link_fig15[k], "fig17_w_mp+*_over_w_dp",
                                               p->link_fig17[k]));
    json_object_set_new(root, "link_sensitivity", links);
    mpt_cuts pc = mpt_cuts_paper();
    json_object_set_new(root, "with_paper_prediction_shares",
                        json_pack("{s:o,s:f,s:f}", "shares", shares_json(&pc),
                                  "fig15_w_mp+*_mean", p->lw_paper.mean_speedup[MPT_W_MP_PS],
                                  "fig17_w_mp+*_over_w_dp",
                                  p->wn_paper.mean_over_wdp[MPT_W_MP_PS]));
    json_object_set_new(root, "monolithic_array",
                        json_pack("{s:f,s:f,s:f,s:f}", "fig15_w_mp+*_mean",
                                  p->lw_mono.mean_speedup[MPT_W_MP_PS], "fig17_w_mp+*_over_w_dp",
                                  p->wn_mono.mean_over_wdp[MPT_W_MP_PS],
                                  "fig17_w_dp_over_one_worker",
                                  p->wn_mono.mean_over_single[MPT_W_DP],
                                  "fig17_w_mp+*_over_one_worker",
                                  p->wn_mono.mean_over_single[MPT_W_MP_PS]));
    return root;
}

static void curve_text(const char *name, const mpt_traffic_curve *c, int dynamic)
{
    printf("  %-10s %6s %12s %12s %12s %12s%s\n", name, "p", "DP", "MPT weights", "MPT tiles",
           "MPT total", dynamic ? "  MPT dynamic" : "");
    for (int k = 0; k < MPT_FIG6_POINTS; k++) {
        char a[24], b[24], d[24], e[24], f[24];
        fmt_bytes(c->dp[k], a, sizeof a);
        fmt_bytes(c->mpt_weights[k], b, sizeof b);
        fmt_bytes(c->mpt_tiles[k], d, sizeof d);
        fmt_bytes(c->mpt_weights[k] + c->mpt_tiles[k], e, sizeof e);
        printf("  %-10s %6d %12s %12s %12s %12s", "", c->p[k], a, b, d, e);
        if (dynamic) {
            fmt_bytes(c->mpt_dynamic[k], f, sizeof f);
            printf(" %12s", f);
        }
        printf("\n");
    }
}

/* One row of speedups; zeros (figures the paper does not give) print "-". */
static void speedup_row(const char *label, const double *v)
{
    printf("  %-10s", label);
    for (int c = 0; c < MPT_CONFIG_COUNT; c++) {
        if (v[c] > 0)
            printf(" %7.2fx", v[c]);
        else
            printf(" %8s", "-");
    }
    printf("\n");
}

static void config_header(const char *first)
{
    printf("  %-10s", first);
    for (int c = 0; c < MPT_CONFIG_COUNT; c++)
        printf(" %8s", mpt_config_name((mpt_config)c));
    printf("\n");
}

static void repro_text(const repro *p)
{
    printf("MPT reproduction (Hong, Ro and Kim, MICRO 2018) on our model; why the numbers "
           "differ: docs/mpt.md\n\n");
    printf("Fig. 6: bytes each worker sends per iteration, batch 256, F(2x2,3x3), "
           "Ng = Nc = sqrt(p)\n");
    curve_text("mid-1", &p->fig6[0], 0);
    curve_text("late-2", &p->fig6[1], 0);
    printf("  paper: MPT cuts weight traffic for both; tiles dominate Mid-1, are a small part "
           "of Late-2 at large p\n\n");
    printf("Fig. 7: FractalNet (modified join), every layer; DP for layers Winograd cannot "
           "serve\n");
    curve_text("fractalnet", &p->fig7, 1);
    double gain = (p->fig7.mpt_weights[3] + p->fig7.mpt_tiles[3]) / p->fig7.mpt_dynamic[3];
    printf("  dynamic clustering at p = 256: %.2fx less traffic (paper %.1fx); MPT above DP "
           "at p = 4: %s (paper: yes)\n\n",
           gain, PAPER_FIG7_DYN,
           p->fig7.mpt_weights[0] + p->fig7.mpt_tiles[0] > p->fig7.dp[0] ? "yes" : "no");
    printf("Fig. 12 / Sec. V-B: activation prediction, F(2x2,3x3), measured on synthetic data "
           "(no ImageNet, CIFAR or\n  trained weights: smooth random images -> He-initialised "
           "3x3 conv + ReLU -> the 32 -> 32 channel 16x16 layer)\n");
    printf("  %-8s %-7s %23s %23s %10s %10s %6s\n", "bias", "regions",
           "tiles inactive act/pred", "lines inactive act/pred", "zero vals", "zero lines",
           "FN");
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < 3; k++) {
            const mpt_predict_measure *m = &p->pred[b][k];
            char bias[16];
            if (p->pred_bias[b] == 0)
                snprintf(bias, sizeof bias, "0");
            else
                snprintf(bias, sizeof bias, "-%.1f sd", p->pred_bias[b]);
            printf("  %-8s %-7d %11.3f / %-9.3f %11.3f / %-9.3f %10.3f %10.3f %6lld\n", bias,
                   m->regions, m->tile_actual, m->tile_predicted, m->line_actual,
                   m->line_predicted, m->zero_values_2d, m->zero_lines_1d, m->false_negatives);
        }
    const mpt_predict_measure *m0 = &p->pred[0][2];
    printf("  net gather cut with 4 regions, bias 0: 2D %.1f%% (6-bit codes cost 18.8%%), 1D "
           "%.1f%% (5-bit: 15.6%%); paper 34.0%%, 78.1%%\n",
           100 * (m0->tile_predicted - 6.0 / 32), 100 * (m0->line_predicted - 5.0 / 32));
    printf("  zero-skipping on the scatter: %.1f%% of values, %.1f%% of lines; paper 39.3%%, "
           "64.7%%\n\n",
           100 * m0->zero_values_2d, 100 * m0->zero_lines_1d);
    printf("Intra-tile x data-parallel run (real numerics, 4 threads): 16 -> 16 channels, 8x8, "
           "batch 8, F(2x2,3x3)\n");
    static const char *const runs[3] = {"4x2", "16x2", "16x2 +pred"};
    printf("  %-11s %-6s %-5s %14s %14s %14s %14s %10s\n", "grid", "equal", "mode",
           "scatter B/wkr", "III-C formula", "gather B/wkr", "III-C formula", "ring B/wkr");
    for (int k = 0; k < 3; k++) {
        const mpt_selfcheck *r = &p->run[k];
        printf("  %-11s %-6s %-5s %14.0f %14.0f %14.0f %14.0f %10.0f\n", runs[k],
               r->equal ? "yes" : "NO", r->stats.one_d ? "1D" : "2D", r->stats.scatter_bytes_max,
               r->formula_scatter, r->stats.gather_bytes_max, r->formula_gather,
               r->stats.ring_bytes_max);
    }
    printf("  with prediction: %lld of %lld tiles predicted inactive (actual %lld); "
           "prediction codes and maps are in the gather bytes\n\n",
           p->run[2].stats.predicted_inactive, p->run[2].stats.gather_units,
           p->run[2].stats.actual_inactive);
    printf("Figs. 15-17 use our measured prediction shares (the 4-region, bias 0 row above):\n  ");
    shares_text(&p->measured);
    printf("Fig. 15: Table II layers, 256 workers, batch 256; forward / backward time "
           "normalised to w_dp forward\n");
    config_header("layer");
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        double base = p->lw[0].t[i][MPT_W_DP].fwd_s;
        printf("  %-10s", l.name);
        for (int c = 0; c < MPT_CONFIG_COUNT; c++)
            printf(" %3.2f/%-4.2f", p->lw[0].t[i][c].fwd_s / base,
                   p->lw[0].t[i][c].bwd_s / base);
        printf("\n");
    }
    printf("  speedup over w_dp (forward + backward):\n");
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        speedup_row(l.name, p->lw[0].speedup[i]);
    }
    speedup_row("mean", p->lw[0].mean_speedup);
    mpt_hw hw32 = mpt_hw_paper(0);
    int sub = hw32.array_dim / hw32.array_split;
    printf("  array use of w_dp (F(4x4,3x3), one sample per worker; %dx%d sub-arrays):", sub,
           sub);
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        printf(" %s %.0f%%", l.name, 100 * p->lw[0].t[i][MPT_W_DP].array_use);
    }
    printf("\n  (one monolithic %dx%d array:", hw32.array_dim, hw32.array_dim);
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        printf(" %s %.0f%%", l.name, 100 * p->lw_mono.t[i][MPT_W_DP].array_use);
    }
    printf(")\n");
    printf("  dynamic grids (w_mp+*):");
    for (int i = 0; i < MPT_TABLE2_LAYERS; i++) {
        mpt_layer l;
        mpt_table2_layer(i, 3, &l, NULL);
        printf(" %s %dx%d", l.name, p->lw[0].t[i][MPT_W_MP_PS].ng,
               p->lw[0].t[i][MPT_W_MP_PS].nc);
    }
    printf("\n  w_mp+* mean %.2fx (paper %.2fx); w_mp+ Mid %.2fx (paper %.2fx), Late %.2fx "
           "(paper %.2fx)\n\n",
           p->lw[0].mean_speedup[MPT_W_MP_PS], PAPER_FIG15_MPPS,
           class_mean(&p->lw[0], "mid", MPT_W_MP_P), PAPER_FIG15_MID,
           class_mean(&p->lw[0], "late", MPT_W_MP_P), PAPER_FIG15_LATE);
    printf("Fig. 16: mean speedup over w_dp of the five layers, F(2x2,5x5) for 5x5\n");
    config_header("kernel");
    speedup_row("3x3", p->lw[0].mean_speedup);
    speedup_row("5x5", p->lw[1].mean_speedup);
    printf("  w_mp+* %.2fx and %.2fx (paper %.2fx and %.2fx)\n\n",
           p->lw[0].mean_speedup[MPT_W_MP_PS], p->lw[1].mean_speedup[MPT_W_MP_PS],
           PAPER_FIG15_MPPS, PAPER_FIG16_5X5);
    printf("Fig. 17: whole networks, batch 256, 256 FP16 workers (96x96 arrays); speedup over "
           "one worker (w_dp)\n");
    config_header("network");
    for (int k = 0; k < MPT_FIG17_NETS; k++)
        speedup_row(p->wn.names[k], p->wn.over_single[k]);
    speedup_row("mean", p->wn.mean_over_single);
    printf("  speedup over w_dp on 256 workers:\n");
    for (int k = 0; k < MPT_FIG17_NETS; k++)
        speedup_row(p->wn.names[k], p->wn.over_wdp[k]);
    speedup_row("mean", p->wn.mean_over_wdp);
    speedup_row("paper", paper_fig17_wdp);
    printf("  over one worker: w_dp %.1fx (paper %.0fx), w_mp+* %.1fx (paper %.0fx)\n\n",
           p->wn.mean_over_single[MPT_W_DP], PAPER_FIG17_WDP_SINGLE,
           p->wn.mean_over_single[MPT_W_MP_PS], PAPER_FIG17_MPPS_SINGLE);
    printf("Sensitivity (w_mp+* over w_dp: Fig. 15 mean, Fig. 17 mean):\n");
    printf("  as above (our measured shares, dynamic by total time)           %.2fx  %.2fx\n",
           p->lw[0].mean_speedup[MPT_W_MP_PS], p->wn.mean_over_wdp[MPT_W_MP_PS]);
    printf("  dynamic clustering by communication only (the paper's Sec. IV)  %.2fx  %.2fx\n",
           p->lw_comm.mean_speedup[MPT_W_MP_PS], p->wn_comm.mean_over_wdp[MPT_W_MP_PS]);
    printf("  the paper's prediction shares (input from the paper's measured\n"
           "    result, Sec. V-B; extrapolated to the backward gather)          %.2fx  %.2fx\n",
           p->lw_paper.mean_speedup[MPT_W_MP_PS], p->wn_paper.mean_over_wdp[MPT_W_MP_PS]);
    printf("  one monolithic array per worker (not split into sub-arrays)      %.2fx  %.2fx\n"
           "    (there w_dp scales %.1fx over one worker, w_mp+* %.1fx)\n",
           p->lw_mono.mean_speedup[MPT_W_MP_PS], p->wn_mono.mean_over_wdp[MPT_W_MP_PS],
           p->wn_mono.mean_over_single[MPT_W_DP], p->wn_mono.mean_over_single[MPT_W_MP_PS]);
    printf("\nCommunication sensitivity: every link's bandwidth scaled (w_mp+* over w_dp)\n");
    printf("  %-22s", "links x");
    for (int k = 0; k < 5; k++)
        printf(" %7.2f", link_scales[k]);
    printf("\n  %-22s", "Fig. 15 mean (FP32)");
    for (int k = 0; k < 5; k++)
        printf(" %6.2fx", p->link_fig15[k]);
    printf("\n  %-22s", "Fig. 17 mean (FP16)");
    for (int k = 0; k < 5; k++)
        printf(" %6.2fx", p->link_fig17[k]);
    int rises = p->link_fig15[4] > p->link_fig15[2] || p->link_fig17[4] > p->link_fig17[2];
    printf("\n  MPT saves communication, so its gain should fall as links get faster; %s\n",
           rises ? "it rises a little:\n  MPT's tile transfer needs the links more than "
                   "w_dp's all-reduce, and with fast links w_dp\n  is bound by DRAM (each "
                   "worker reads all the weights every phase, MPT 1/Ng of them),\n  "
                   "docs/mpt.md"
                 : "it does");
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
    repro *p = dnp_malloc(sizeof *p);
    if (p == NULL) {
        cli_error("reproduce", "out of memory");
        return EXIT_RUNTIME;
    }
    rc = repro_run(p);
    const char *json = cli_get(&a, "json");
    if (rc == 0 && json != NULL)
        rc = cli_write_json("reproduce", json, repro_json(p));
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0))
        repro_text(p);
    dnp_free(p);
    return rc;
}
