/*
 * mpt_run.c - one MPT evaluation behind the public API (dnnpar.h, "MPT"):
 * the system from the options (hardware, Sec. VI and Table III; prediction
 * shares, Sec. V-B; grids, Sec. IV), the target (a Table II layer or a
 * model), and its six Table IV configurations plus w_dp on one worker.
 * The model: docs/mpt.md.
 */
#include "arch/mpt/mpt_api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(DNP_MPT_CONFIG_COUNT == MPT_CONFIG_COUNT, "Table IV has six configurations");

void dnp_mpt_options_default(dnp_mpt_options *o)
{
    memset(o, 0, sizeof *o);
    o->workers = MPT_PAPER_WORKERS;
    o->batch = MPT_PAPER_BATCH;
    o->kernel = 3;
}

/* A positive integer up to 2^20, or -1; *end after it. */
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

/* Apply one grid value: NgxNc sets the fixed grid, dynamic[:list] the
 * choices.  DNP_ERR_INPUT naming the value. */
static dnp_status apply_config(const char *v, mpt_sys *sys, dnp_error *err)
{
    const char *e;
    if (strncmp(v, "dynamic", 7) == 0 && (v[7] == '\0' || v[7] == ':')) {
        if (v[7] == '\0')
            return DNP_OK;
        int n = 0;
        const char *p = v + 8;
        while (1) {
            long g = parse_int(p, &e);
            if (g < 0 || n == MPT_MAX_CHOICES || (*e != ',' && *e != '\0')) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "--config '%s': expected dynamic:G,G,... with up to %d positive "
                              "group counts",
                              v, MPT_MAX_CHOICES);
                return DNP_ERR_INPUT;
            }
            if (sys->workers % g != 0) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "--config '%s': %ld groups do not divide %d workers", v, g,
                              sys->workers);
                return DNP_ERR_INPUT;
            }
            sys->choices[n++] = (int)g;
            if (*e == '\0')
                break;
            p = e + 1;
        }
        sys->n_choices = n;
        return DNP_OK;
    }
    long ng = parse_int(v, &e);
    long nc = (ng > 0 && (*e == 'x' || *e == 'X')) ? parse_int(e + 1, &e) : -1;
    if (ng < 0 || nc < 0 || *e != '\0') {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "--config '%s': expected NgxNc (e.g. 16x16) or dynamic[:G,G,...]", v);
        return DNP_ERR_INPUT;
    }
    if (ng * nc != sys->workers) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "--config '%s': %ld x %ld = %ld workers, but there are %d (--workers)", v,
                      ng, nc, ng * nc, sys->workers);
        return DNP_ERR_INPUT;
    }
    sys->fixed_ng = (int)ng;
    return DNP_OK;
}

/* One hardware override: name as the option ("array-split"), the key with
 * '_' for '-'. */
static dnp_status apply_hw(mpt_hw *hw, const char *name, const char *value, dnp_error *err)
{
    char opt[40], key[40];
    if (name == NULL || value == NULL || strlen(name) >= sizeof key - 2) {
        dnp_error_set(err, DNP_ERR_INPUT, "hardware override %s without a value or too long",
                      name ? name : "(null)");
        return DNP_ERR_INPUT;
    }
    snprintf(opt, sizeof opt, "--%s", name);
    snprintf(key, sizeof key, "%s", name);
    for (char *c = key; *c; c++)
        if (*c == '-')
            *c = '_';
    dnp_error e = {0};
    if (mpt_hw_set(hw, key, value, opt, &e) != DNP_OK) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s", e.msg);
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

/* The system of the options, in the order the CLI documents: precision,
 * hardware file, overrides, cross-checks, prediction shares, grids. */
static dnp_status system_from_options(const dnp_mpt_options *o, mpt_sys *sys, dnp_error *err)
{
    if (o->workers < 1 || o->workers > 1 << 20 || o->batch < 1 || o->batch > 1 << 24 ||
        o->tile < 0 || o->tile > 64 || o->n_hw < 0 || o->n_hw > DNP_MPT_MAX_HW ||
        o->n_configs < 0 || o->n_configs > DNP_MPT_MAX_CONFIGS) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "MPT options out of range: workers 1..2^20, batch 1..2^24, tile 0..64, at "
                      "most %d hardware overrides and %d grids",
                      DNP_MPT_MAX_HW, DNP_MPT_MAX_CONFIGS);
        return DNP_ERR_INPUT;
    }
    /* the paper's system; its prediction shares are set below, in the
     * documented order (mpt_sys_paper measures ours, the default) */
    mpt_cuts unset;
    memset(&unset, 0, sizeof unset);
    *sys = mpt_sys_paper_with(&unset);
    dnp_status st;
    sys->workers = o->workers;
    sys->batch = (double)o->batch;
    sys->tile = o->tile;
    if (o->fp16)
        sys->hw = mpt_hw_paper(1); /* footnote 16: FP16 96x96 workers */
    if (o->hardware_path != NULL) {
        dnp_error e = {0};
        if ((st = mpt_hw_read_json(o->hardware_path, &sys->hw, &e)) != DNP_OK) {
            dnp_error_set(err, st, "--hardware: %s", e.msg);
            return st;
        }
    }
    for (int k = 0; k < o->n_hw; k++)
        if ((st = apply_hw(&sys->hw, o->hw_name[k], o->hw_value[k], err)) != DNP_OK)
            return st;
    {
        dnp_error e = {0};
        if (mpt_hw_check(&sys->hw, &e) != DNP_OK) {
            dnp_error_set(err, DNP_ERR_INPUT, "hardware: %s", e.msg);
            return DNP_ERR_INPUT;
        }
    }
    const char *v = o->prediction_shares;
    if (v != NULL && strcmp(v, "paper") == 0) {
        sys->cuts = mpt_cuts_paper(); /* input from the paper's measured result */
    } else if (v == NULL || strcmp(v, "ours") == 0) {
        dnp_error e = {0};
        if ((st = mpt_cuts_ours(&sys->cuts, &e)) != DNP_OK) { /* as mpt_sys_paper */
            dnp_error_set(err, st, "measuring prediction shares: %s", e.msg);
            return st;
        }
    } else {
        dnp_error_set(err, DNP_ERR_INPUT, "--prediction-shares '%s': expected ours or paper", v);
        return DNP_ERR_INPUT;
    }
    /* defaults for P workers: the paper's choices (Sec. VII-A: 1, 4, 16
     * groups) that divide P */
    int n = 0;
    static const int defaults[] = {1, 4, 16};
    sys->fixed_ng = 1;
    for (int k = 0; k < 3; k++)
        if (sys->workers % defaults[k] == 0) {
            sys->choices[n++] = defaults[k];
            sys->fixed_ng = defaults[k];
        }
    sys->n_choices = n;
    for (int k = 0; k < o->n_configs; k++)
        if (o->configs[k] != NULL && (st = apply_config(o->configs[k], sys, err)) != DNP_OK)
            return st;
    return DNP_OK;
}

/* Every Winograd layer must have a transform for the forced tile and room
 * for every group count used. */
static dnp_status check_layers(const mpt_net *net, const mpt_sys *sys, dnp_error *err)
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
            dnp_error e = {0};
            if (mpt_layer_tiles(l, sys, counts[k], &th, &tw, &e) != DNP_OK) {
                dnp_error_set(err, DNP_ERR_INPUT, "layer '%s': %s", l->name, e.msg);
                return DNP_ERR_INPUT;
            }
            if (counts[k] > th * tw) {
                dnp_error_set(err, DNP_ERR_INPUT,
                              "layer '%s': %d groups exceed the %d elements of its %dx%d tile",
                              l->name, counts[k], th * tw, th, tw);
                return DNP_ERR_INPUT;
            }
        }
    }
    return DNP_OK;
}

static dnp_status load_target(const char *name, dnp_mpt_run *r, dnp_error *err)
{
    if (name == NULL) {
        dnp_error_set(err, DNP_ERR_INPUT, "no layer or model given");
        return DNP_ERR_INPUT;
    }
    int idx = mpt_table2_find(name);
    if (idx >= 0) {
        mpt_layer l;
        if (r->kernel != 3 && r->kernel != 5) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "--kernel %d: no Winograd transform serves %dx%d kernels (supported: "
                          "3x3, 5x5)",
                          r->kernel, r->kernel, r->kernel);
            return DNP_ERR_INPUT;
        }
        mpt_table2_layer(idx, r->kernel, &l, &r->what);
        r->is_layer = 1;
        return mpt_net_single(&l, &r->net, err);
    }
    if (r->kernel != 3) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "--kernel applies to the Table II layers (early, mid-1, late-1, mid-2, "
                      "late-2), not to model '%s'",
                      name);
        return DNP_ERR_INPUT;
    }
    dnp_graph *g = NULL;
    dnp_error e = {0};
    dnp_status st = dnp_model_load(name, &g, &e);
    if (st == DNP_OK)
        st = mpt_net_from_graph(g, &r->net, &e);
    dnp_graph_free(g);
    if (st == DNP_ERR_INPUT && strncmp(e.msg, "unknown model", 13) == 0) {
        /* The nearest Table II layer name, else the zoo's suggestion. */
        static const char *const layers[] = {"early", "mid-1", "late-1", "mid-2", "late-2"};
        const char *near = dnp_suggest(name, layers, sizeof layers / sizeof layers[0]);
        const char *zoo_hint = strstr(e.msg, "did you mean '");
        char hint[96] = "";
        if (near != NULL)
            snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
        else if (zoo_hint != NULL)
            snprintf(hint, sizeof hint, "; %.*s", (int)strcspn(zoo_hint, "?") + 1, zoo_hint);
        dnp_error_set(err, st,
                      "unknown layer or model '%s'%s (Table II layers: early, mid-1, late-1, "
                      "mid-2, late-2; models: see dnnpar models)",
                      name, hint);
    }
    else if (st != DNP_OK)
        dnp_error_set(err, st, "%s", e.msg);
    return st;
}

/* The six configurations (Table IV) and w_dp on one worker. */
static dnp_status evaluate(dnp_mpt_run *r, dnp_error *err)
{
    dnp_status st = DNP_OK;
    for (int c = 0; c < MPT_CONFIG_COUNT && st == DNP_OK; c++) {
        r->per[c] = dnp_calloc((size_t)r->net.n, sizeof *r->per[c]);
        if (r->per[c] == NULL) {
            dnp_error_set(err, DNP_ERR_NOMEM, "out of memory");
            return DNP_ERR_NOMEM;
        }
        st = mpt_net_eval(&r->net, &r->sys, (mpt_config)c, &r->t[c], r->per[c], err);
    }
    if (st == DNP_OK) {
        mpt_sys one = r->sys;
        one.workers = 1;
        one.fixed_ng = 1;
        one.n_choices = 1;
        one.choices[0] = 1;
        st = mpt_net_eval(&r->net, &one, MPT_W_DP, &r->single, NULL, err);
    }
    return st;
}

void dnp_mpt_run_free(dnp_mpt_run *r)
{
    if (r == NULL)
        return;
    for (int c = 0; c < MPT_CONFIG_COUNT; c++)
        dnp_free(r->per[c]);
    mpt_net_free(&r->net);
    dnp_free(r);
}

dnp_status dnp_mpt_evaluate(const dnp_mpt_options *o, dnp_mpt_run **out, dnp_error *err)
{
    dnp_mpt_run *r = dnp_calloc(1, sizeof *r);
    if (r == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory");
        return DNP_ERR_NOMEM;
    }
    r->kernel = o->kernel;
    dnp_status st = system_from_options(o, &r->sys, err);
    if (st == DNP_OK)
        st = load_target(o->target, r, err);
    if (st == DNP_OK)
        st = check_layers(&r->net, &r->sys, err);
    if (st == DNP_OK)
        st = evaluate(r, err);
    if (st != DNP_OK) {
        dnp_mpt_run_free(r);
        return st;
    }
    *out = r;
    return DNP_OK;
}

dnp_status dnp_mpt_config_at(const dnp_mpt_run *r, int c, dnp_mpt_config_result *out,
                             dnp_error *err)
{
    if (c < 0 || c >= MPT_CONFIG_COUNT) {
        dnp_error_set(err, DNP_ERR_INPUT, "configuration %d out of range (0..%d)", c,
                      MPT_CONFIG_COUNT - 1);
        return DNP_ERR_INPUT;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->config, sizeof out->config, "%s", mpt_config_name((mpt_config)c));
    out->forward_s = r->t[c].fwd_s;
    out->backward_s = r->t[c].bwd_s;
    out->total_s = r->t[c].total_s;
    out->speedup_over_w_dp = r->t[MPT_W_DP].total_s / r->t[c].total_s;
    out->speedup_over_one_worker = r->single.total_s / r->t[c].total_s;
    out->weight_bytes = r->t[c].weight_bytes;
    out->tile_bytes = r->t[c].tile_bytes;
    return DNP_OK;
}

dnp_status dnp_mpt_text(const dnp_mpt_run *r, char **out, dnp_error *err)
{
    rbuf b;
    rbuf_init(&b);
    mpt_run_text(r, &b);
    char *text = rbuf_take(&b);
    if (text == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the report");
        return DNP_ERR_NOMEM;
    }
    *out = text;
    return DNP_OK;
}

dnp_status dnp_mpt_json(const dnp_mpt_run *r, char **out, dnp_error *err)
{
    return dnp_json_report_text(mpt_run_json(r), out, err);
}
