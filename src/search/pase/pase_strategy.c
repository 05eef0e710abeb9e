/*
 * pase_strategy.c - a PaSE strategy as a dnnpar strategy (docs/formats.md,
 * "Strategy"; docs/pase.md, "As a dnnpar strategy"), so that the step
 * simulator, the exports and the pictures take it like any plan.
 *
 * A PaSE configuration splits each loop dimension of an op over p
 * devices; a dnnpar strategy splits the device tree in two at each of its
 * levels and says, per level, which dimension each decided op splits
 * (AccPar's Type-I batch, Type-II input, Type-III output; "batch",
 * "channel" or "replicated" for joins).  A configuration whose splits are
 * powers of two over the batch, input and output dimensions and use every
 * device is exactly such a sequence of binary splits: log2 of each
 * dimension's split levels of its type, in the order of the op's
 * dimensions (the first dimension over the outermost levels, as PaSE's
 * shared model numbers devices).  An op that leaves devices idle has no
 * such form: its batch is split over the idle levels (counted and
 * reported, since that changes the plan).  Splits of other dimensions or
 * that are not powers of two are refused with the op named.
 */
#include "dnnpar.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* log2(n) if n is a power of two >= 1, else -1. */
static int log2_exact(long n)
{
    int k = 0;
    if (n < 1)
        return -1;
    while (n > 1) {
        if (n & 1)
            return -1;
        n >>= 1;
        k++;
    }
    return k;
}

/* Is op kind a join the strategy decides (docs/formats.md)? */
static int is_join(const dnp_op *op)
{
    return op->kind == DNP_OP_ADD || op->kind == DNP_OP_CONCAT || op->kind == DNP_OP_MATMUL ||
           (op->kind == DNP_OP_ELTWISE && op->n_inputs >= 2);
}

static int is_weighted(const dnp_op *op)
{
    return op->kind == DNP_OP_CONV || op->kind == DNP_OP_FC || op->kind == DNP_OP_EMBEDDING;
}

/* The type of splitting dimension `dim` of op `op` in a strategy, or NULL
 * when the strategy cannot say it. */
static const char *type_of(const dnp_op *op, char dim)
{
    if (is_weighted(op)) {
        if (dim == 'b')
            return "I";
        if (dim == 'c')
            return "II";
        if (dim == 'n')
            return "III";
        return NULL;
    }
    if (dim == 'b')
        return "batch";
    if (dim == 'c')
        return "channel";
    return NULL;
}

dnp_status dnp_pase_run_strategy(const dnp_pase_run *r, const dnp_graph *g,
                                 const char *model_source, const dnp_cluster *c, int64_t batch,
                                 char **out, int *filled_ops, dnp_error *err)
{
    *out = NULL;
    *filled_ops = 0;
    int64_t p = dnp_cluster_devices(c);
    int levels = log2_exact((long)p);
    if (levels < 1 || levels > 30 || (c->n_types > 1 && levels > 12)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "a PaSE strategy becomes a dnnpar strategy only on a power-of-two number "
                      "of devices (at least 2; at most 4096 on a mixed cluster); the cluster "
                      "has %lld",
                      (long long)p);
        return DNP_ERR_INPUT;
    }
    json_t *lv[30];
    for (int k = 0; k < levels; k++)
        lv[k] = json_object();
    dnp_status st = DNP_OK;
    dnp_pase_op op;
    dnp_error e = {0};
    for (int v = 0; dnp_pase_run_op(r, v, &op, &e) == DNP_OK; v++) {
        int gi = dnp_graph_find(g, op.name);
        if (gi < 0)
            continue; /* the converter's own views (flatten.ravel, ...); the strategy reader
                       * names any decided op of g left without a type */
        const dnp_op *gop = dnp_graph_op(g, gi);
        if (!is_weighted(gop) && !is_join(gop))
            continue; /* the strategy decides weighted layers and joins only */
        /* "(4,1,1,1,1,1,2)": the split of each dimension of op.dims */
        long split[32];
        int nd = 0;
        const char *q = op.config;
        while (*q != '\0' && nd < 32) {
            if (*q >= '0' && *q <= '9') {
                char *end;
                split[nd++] = strtol(q, &end, 10);
                q = end;
            } else {
                q++;
            }
        }
        int level = 0, used = 0;
        for (int d = 0; d < nd && d < (int)strlen(op.dims) && st == DNP_OK; d++) {
            if (split[d] == 1)
                continue;
            int k = log2_exact(split[d]);
            const char *t = type_of(gop, op.dims[d]);
            if (k < 0 || t == NULL) {
                st = DNP_ERR_INPUT;
                dnp_error_set(err, st,
                              "op '%s' splits its dimension '%c' %ld ways: a dnnpar strategy "
                              "splits only the batch, input and output dimensions, in powers of "
                              "two",
                              op.name, op.dims[d], split[d]);
                break;
            }
            for (int i = 0; i < k && level < levels; i++)
                json_object_set_new(lv[level++], op.name, json_string(t));
            used += k;
        }
        if (st != DNP_OK)
            break;
        if (used != levels) {
            if (used < levels) {
                /* an op that leaves devices idle cannot be said (a strategy gives
                 * every device a share): its batch is split over them (Type-I,
                 * "batch" for a join), which changes the plan, so it is counted */
                (*filled_ops)++;
                while (level < levels)
                    json_object_set_new(lv[level++], op.name,
                                        json_string(is_join(gop) ? "batch" : "I"));
            } else {
                st = DNP_ERR_INPUT;
                dnp_error_set(err, st,
                              "op '%s' uses %lld of the %lld devices (configuration %s): a "
                              "dnnpar strategy gives every device a share",
                              op.name, (long long)1 << used, (long long)p, op.config);
                break;
            }
        }
    }
    char spec[256];
    dnp_cluster_format(c, spec, sizeof spec);
    json_t *doc = NULL;
    if (st == DNP_OK) {
        json_t *arr = json_array();
        for (int k = 0; k < levels; k++) {
            json_array_append_new(arr, json_pack("{s:i,s:f,s:o}", "level", k, "ratio", 0.5,
                                                 "types", lv[k]));
            lv[k] = NULL;
        }
        /* on a mixed cluster the tree's halves differ, so every path down it
         * is listed (the same decisions: PaSE plans every device alike) */
        json_t *paths = json_array();
        long n_paths = c->n_types > 1 ? 1L << levels : 1;
        for (long b = 0; b < n_paths; b++)
            json_array_append_new(paths, json_pack("{s:I,s:O}", "branch_bits", (json_int_t)b,
                                                   "levels", arr));
        json_decref(arr);
        doc = json_pack("{s:s,s:s,s:I,s:s,s:s,s:i,s:i,s:o}", "model", dnp_graph_name(g),
                        "model_source", model_source != NULL ? model_source : dnp_graph_name(g),
                        "batch", (json_int_t)batch, "cluster", spec, "search", "pase", "levels",
                        levels, "total_levels", levels, "paths", paths);
        char *text = doc != NULL ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        if (text == NULL) {
            st = DNP_ERR_NOMEM;
            dnp_error_set(err, st, "out of memory writing the PaSE strategy");
        }
        *out = text;
    }
    for (int k = 0; k < levels; k++)
        json_decref(lv[k]);
    json_decref(doc);
    return st;
}
