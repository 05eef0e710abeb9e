/*
 * sf_workload.c - SynergyFlow workloads: the CONV and FC layers of zoo
 * models or model files (Table 1's parameters) with instance counts, and
 * the Table 6 batches.
 */
#include "arch/synergyflow/synergyflow.h"
#include "model/graph_named.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define SF_MAX_COUNT 1000000000LL

/* Table 6's mixed workloads. */
static const struct {
    const char *name, *spec;
} presets[] = {
    {"batch1", "vgg11:100+alexnet-2012:2000"},
    {"batch2", "alexnet-2012:100+dbn-m:5000"},
    {"batch3", "vgg11:100+dbn-m:20000"},
};

/* in: the view of the input of op (dnp_op_in_view). */
static void layer_from_conv(const dnp_op *op, dnp_shape in, sf_layer *l)
{
    const dnp_shape ov = dnp_op_out_view(op);
    int groups = op->groups > 0 ? op->groups : 1;
    l->kind = SF_CONV;
    l->m = ov.c;
    l->n = in.c / groups;
    l->r = ov.h;
    l->c = ov.w;
    l->in_h = in.h + 2 * (int64_t)op->ph;
    l->in_w = in.w + 2 * (int64_t)op->pw;
    l->kh = op->kh;
    l->kw = op->kw;
    l->sh = op->sh > 0 ? op->sh : 1;
    l->sw = op->sw > 0 ? op->sw : 1;
    l->groups = groups;
    /* Eq. 3: C_op = 2 R C M0 N0 K K; MACs are half of it. */
    l->macs = l->m * l->n * l->r * l->c * (int64_t)l->kh * (int64_t)l->kw;
}

static void layer_from_fc(const dnp_op *op, dnp_shape in, sf_layer *l)
{
    const dnp_shape ov = dnp_op_out_view(op);
    l->kind = SF_FC;
    l->m = ov.c;
    l->n = in.c * in.h * in.w;
    l->r = l->c = 1;
    l->in_h = l->in_w = 1;
    l->kh = l->kw = l->sh = l->sw = l->groups = 1;
    l->macs = l->m * l->n; /* Eq. 5: F_op = 2 M1 N1 */
}

/* Copies the CONV and FC layers of g in graph order.  O(ops). */
dnp_status sf_model_from_graph(const dnp_graph *g, int64_t instances, sf_model *out, dnp_error *err)
{
    dnp_status refused = graph_named_refuse(g, "SynergyFlow", err);
    if (refused != DNP_OK)
        return refused;
    int n_ops = dnp_graph_n_ops(g), n = 0;
    for (int i = 0; i < n_ops; i++)
        n += dnp_op_is_weighted(dnp_graph_op(g, i));
    if (n == 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "model '%s' has no CONV or FC layer", dnp_graph_name(g));
        return DNP_ERR_INPUT;
    }
    sf_layer *layers = dnp_calloc((size_t)n, sizeof *layers);
    if (layers == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory reading model '%s'", dnp_graph_name(g));
        return DNP_ERR_NOMEM;
    }
    int k = 0;
    for (int i = 0; i < n_ops; i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        if (!dnp_op_is_weighted(op))
            continue;
        snprintf(layers[k].name, sizeof layers[k].name, "%s", op->name);
        if (op->kind == DNP_OP_CONV)
            layer_from_conv(op, dnp_op_in_view(g, i), &layers[k]);
        else
            layer_from_fc(op, dnp_op_in_view(g, i), &layers[k]);
        k++;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", dnp_graph_name(g));
    out->instances = instances;
    out->n_layers = n;
    out->layers = layers;
    return DNP_OK;
}

void sf_workload_free(sf_workload *w)
{
    if (w == NULL)
        return;
    for (int i = 0; i < w->n_models; i++)
        dnp_free(w->models[i].layers);
    memset(w, 0, sizeof *w);
}

static void canonical_spec(sf_workload *w)
{
    char buf[sizeof w->spec];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < w->n_models && used < sizeof buf; i++) {
        int k = snprintf(buf + used, sizeof buf - used, "%s%s:%lld", i ? "+" : "",
                         w->models[i].name, (long long)w->models[i].instances);
        if (k < 0)
            break;
        used += (size_t)k;
    }
    memcpy(w->spec, buf, sizeof buf);
}

/* Parse "COUNT" (digits only) into 1..SF_MAX_COUNT; -1 if invalid. */
static long long parse_count(const char *s, size_t len)
{
    if (len == 0 || len > 12)
        return -1;
    long long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return (v >= 1 && v <= SF_MAX_COUNT) ? v : -1;
}

/* 1 if the first len bytes of s name a zoo model or an existing file. */
static int names_model(const char *s, size_t len)
{
    char buf[1024];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    for (int i = 0; i < dnp_zoo_count(); i++)
        if (strcmp(dnp_zoo_name(i), buf) == 0)
            return 1;
    return access(buf, F_OK) == 0;
}

/* Add one "MODEL[:COUNT]" item.  MODEL is a zoo name or a model file
 * (dnnpar model JSON, ONNX; dnp_model_load); the count follows the last
 * ':' when only digits follow it or what precedes it names a model (zoo
 * name or existing file), so other paths with ':' in them still load. */
static dnp_status add_item(sf_workload *w, const char *spec, const char *item, size_t len,
                           const dnp_load_options *opt, dnp_error *err)
{
    const char *colon = NULL;
    for (size_t i = len; i-- > 0;)
        if (item[i] == ':') {
            colon = item + i;
            break;
        }
    if (colon != NULL && colon != item) {
        size_t k = (size_t)(colon - item) + 1;
        int digits = k < len;
        for (; k < len; k++)
            digits = digits && isdigit((unsigned char)item[k]);
        if (!digits && !names_model(item, (size_t)(colon - item)))
            colon = NULL; /* part of the name (a path such as C:x), not a count */
    }
    size_t name_len = colon ? (size_t)(colon - item) : len;
    char name[1024];
    if (name_len == 0 || name_len >= sizeof name) {
        dnp_error_set(err, DNP_ERR_INPUT, "workload '%s': item '%.*s' needs a model name", spec,
                      (int)len, item);
        return DNP_ERR_INPUT;
    }
    memcpy(name, item, name_len);
    name[name_len] = '\0';
    long long count = 1;
    if (colon != NULL) {
        count = parse_count(colon + 1, len - name_len - 1);
        if (count < 0) {
            dnp_error_set(err, DNP_ERR_INPUT,
                          "workload '%s': count '%.*s' of %s must be a positive integer up to %lld",
                          spec, (int)(len - name_len - 1), colon + 1, name, SF_MAX_COUNT);
            return DNP_ERR_INPUT;
        }
    }
    if (w->n_models == SF_MAX_MODELS) {
        dnp_error_set(err, DNP_ERR_INPUT, "workload '%s': more than %d models", spec,
                      SF_MAX_MODELS);
        return DNP_ERR_INPUT;
    }
    dnp_graph *g = NULL;
    dnp_error zerr;
    dnp_error_clear(&zerr);
    dnp_status st = dnp_model_load_opts(name, opt, &g, &zerr);
    if (st != DNP_OK) {
        dnp_error_set(err, st, "workload '%s': %s", spec, zerr.msg);
        return st;
    }
    st = sf_model_from_graph(g, count, &w->models[w->n_models], &zerr);
    dnp_graph_free(g);
    if (st != DNP_OK) {
        dnp_error_set(err, st, "workload '%s': %s", spec, zerr.msg);
        return st;
    }
    w->n_models++;
    return DNP_OK;
}

dnp_status sf_workload_parse(const char *spec, sf_workload *out, dnp_error *err)
{
    return sf_workload_parse_opts(spec, NULL, out, err);
}

/* Presets first (case-insensitive), then '+'-separated items. */
dnp_status sf_workload_parse_opts(const char *spec, const dnp_load_options *opt,
                                  sf_workload *out, dnp_error *err)
{
    if (spec == NULL || spec[0] == '\0') {
        dnp_error_set(err, DNP_ERR_INPUT, "empty workload (e.g. batch1 or alexnet-2012:100)");
        return DNP_ERR_INPUT;
    }
    const char *text = spec;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcasecmp(spec, presets[i].name) == 0)
            text = presets[i].spec;
    sf_workload w;
    memset(&w, 0, sizeof w);
    dnp_status st = DNP_OK;
    const char *p = text;
    for (;;) {
        const char *plus = strchr(p, '+');
        size_t len = plus ? (size_t)(plus - p) : strlen(p);
        st = add_item(&w, spec, p, len, opt, err);
        if (st != DNP_OK || plus == NULL)
            break;
        p = plus + 1;
    }
    if (st != DNP_OK) {
        sf_workload_free(&w);
        return st;
    }
    canonical_spec(&w);
    *out = w;
    return DNP_OK;
}

/* Deep copy with counts count / divisor * times.  O(layers). */
dnp_status sf_workload_rescale(const sf_workload *w, int64_t divisor, int64_t times,
                               sf_workload *out, dnp_error *err)
{
    if (divisor <= 0 || times <= 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "sample divisor and multiple must be positive");
        return DNP_ERR_INPUT;
    }
    sf_workload c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < w->n_models; i++) {
        const sf_model *m = &w->models[i];
        if (m->instances % divisor != 0) {
            dnp_error_set(err, DNP_ERR_INPUT, "%lld instances of %s do not divide into %lld",
                          (long long)m->instances, m->name, (long long)divisor);
            sf_workload_free(&c);
            return DNP_ERR_INPUT;
        }
        c.models[i] = *m;
        c.models[i].instances = m->instances / divisor * times;
        c.models[i].layers = dnp_malloc((size_t)m->n_layers * sizeof *m->layers);
        if (c.models[i].layers == NULL) {
            dnp_error_set(err, DNP_ERR_NOMEM, "out of memory copying a workload");
            sf_workload_free(&c);
            return DNP_ERR_NOMEM;
        }
        memcpy(c.models[i].layers, m->layers, (size_t)m->n_layers * sizeof *m->layers);
        c.n_models = i + 1;
    }
    canonical_spec(&c);
    *out = c;
    return DNP_OK;
}
