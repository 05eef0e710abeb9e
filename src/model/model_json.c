/*
 * model_json.c - the dnnpar model JSON format (docs/formats.md): every op
 * with its kind, inputs by name, shapes and attributes.  Writing and
 * reading back gives an identical graph, so any model the tool can load
 * (zoo, ONNX, AccPar text) can be saved, edited and fed back.
 */
#include "dnnpar.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_NAME "dnnpar-model"
#define FORMAT_VERSION 1

static json_t *shape_json(dnp_shape s)
{
    return json_pack("[I,I,I]", (json_int_t)s.c, (json_int_t)s.h, (json_int_t)s.w);
}

char *dnp_model_to_json(const dnp_graph *g)
{
    json_t *ops = json_array();
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        json_t *o = json_object(), *ins = json_array();
        json_object_set_new(o, "name", json_string(op->name));
        json_object_set_new(o, "kind", json_string(dnp_op_kind_name(op->kind)));
        for (int k = 0; k < op->n_inputs; k++)
            json_array_append_new(ins, json_string(dnp_graph_op(g, op->inputs[k])->name));
        json_object_set_new(o, "inputs", ins);
        json_object_set_new(o, "out", shape_json(op->out));
        if (op->kind == DNP_OP_CONV || op->kind == DNP_OP_MAXPOOL || op->kind == DNP_OP_AVGPOOL ||
            op->kind == DNP_OP_LRN) {
            json_object_set_new(o, "kernel", json_pack("[i,i]", op->kh, op->kw));
            json_object_set_new(o, "stride", json_pack("[i,i]", op->sh, op->sw));
            json_object_set_new(o, "pad", json_pack("[i,i]", op->ph, op->pw));
        }
        if (op->groups != 1)
            json_object_set_new(o, "groups", json_integer(op->groups));
        if (op->bias)
            json_object_set_new(o, "bias", json_true());
        if (op->keep_positions)
            json_object_set_new(o, "keep_positions", json_true());
        if (op->contract != 0)
            json_object_set_new(o, "contract", json_integer((json_int_t)op->contract));
        if (op->param_elems != 0)
            json_object_set_new(o, "param_elems", json_integer((json_int_t)op->param_elems));
        if (op->src_type[0] != '\0')
            json_object_set_new(o, "src_type", json_string(op->src_type));
        if (op->out_rank > 0) {
            json_t *d = json_array();
            for (int k = 0; k < op->out_rank; k++)
                json_array_append_new(d, json_integer((json_int_t)op->out_dims[k]));
            json_object_set_new(o, "dims", d);
        }
        json_array_append_new(ops, o);
    }
    json_t *root = json_pack("{s:s,s:i,s:s,s:s,s:o}", "format", FORMAT_NAME, "version",
                             FORMAT_VERSION, "name", dnp_graph_name(g), "note",
                             dnp_graph_note(g), "ops", ops);
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
    return text;
}

/* ---- reading ------------------------------------------------------ */

typedef struct {
    const char *file;
    dnp_error *err;
} reader;

static dnp_status bad(reader *r, size_t idx, const char *name, const char *what)
{
    dnp_error_set(r->err, DNP_ERR_INPUT, "%s: ops[%zu]%s%s%s: %s", r->file, idx,
                  name ? " ('" : "", name ? name : "", name ? "')" : "", what);
    return DNP_ERR_INPUT;
}

/* An integer member within [lo, hi]; dflt if absent. */
static int get_int(const json_t *o, const char *key, long long lo, long long hi, long long dflt,
                   long long *out)
{
    const json_t *v = json_object_get(o, key);
    if (v == NULL) {
        *out = dflt;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return -1;
    *out = json_integer_value(v);
    return 0;
}

/* A pair [a, b] of integers within [lo, hi]; {dflt, dflt} if absent. */
static int get_pair(const json_t *o, const char *key, int lo, int hi, int dflt, int *a, int *b)
{
    const json_t *v = json_object_get(o, key);
    *a = *b = dflt;
    if (v == NULL)
        return 0;
    if (!json_is_array(v) || json_array_size(v) != 2)
        return -1;
    for (int i = 0; i < 2; i++) {
        const json_t *e = json_array_get(v, (size_t)i);
        if (!json_is_integer(e) || json_integer_value(e) < lo || json_integer_value(e) > hi)
            return -1;
        *(i == 0 ? a : b) = (int)json_integer_value(e);
    }
    return 0;
}

static dnp_status read_op(reader *r, dnp_graph *g, size_t idx, const json_t *o)
{
    const char *name = json_string_value(json_object_get(o, "name"));
    if (!json_is_object(o) || name == NULL)
        return bad(r, idx, NULL, "expected an object with a string \"name\"");
    const char *kind_s = json_string_value(json_object_get(o, "kind"));
    int kind = kind_s ? dnp_op_kind_from_name(kind_s) : -1;
    if (kind < 0)
        return bad(r, idx, name, "missing or unknown \"kind\" (see docs/formats.md)");
    const json_t *ins = json_object_get(o, "inputs"), *out = json_object_get(o, "out");
    if (!json_is_array(ins) || json_array_size(ins) > 64)
        return bad(r, idx, name, "\"inputs\" must be an array of op names");
    int inputs[64];
    for (size_t k = 0; k < json_array_size(ins); k++) {
        const char *in = json_string_value(json_array_get(ins, k));
        inputs[k] = in ? dnp_graph_find(g, in) : -1;
        if (inputs[k] < 0) {
            char msg[160];
            snprintf(msg, sizeof msg, "input %zu ('%s') is not an earlier op", k, in ? in : "?");
            return bad(r, idx, name, msg);
        }
    }
    long long dims[3];
    if (!json_is_array(out) || json_array_size(out) != 3)
        return bad(r, idx, name, "\"out\" must be [c, h, w]");
    for (int k = 0; k < 3; k++) {
        const json_t *e = json_array_get(out, (size_t)k);
        if (!json_is_integer(e) || json_integer_value(e) < 1 ||
            json_integer_value(e) > ((json_int_t)1 << 40))
            return bad(r, idx, name, "\"out\" entries must be integers in 1 .. 2^40");
        dims[k] = json_integer_value(e);
    }
    dnp_op_attrs a = {0};
    long long groups, contract, params, bias = 0, keep = 0;
    const json_t *b = json_object_get(o, "bias"), *kp = json_object_get(o, "keep_positions");
    if ((b && !json_is_boolean(b)) || (kp && !json_is_boolean(kp)))
        return bad(r, idx, name, "\"bias\" and \"keep_positions\" must be true or false");
    bias = b && json_is_true(b);
    keep = kp && json_is_true(kp);
    if (get_pair(o, "kernel", 1, 1 << 20, 1, &a.kh, &a.kw) ||
        get_pair(o, "stride", 1, 1 << 20, 1, &a.sh, &a.sw) ||
        get_pair(o, "pad", 0, 1 << 20, 0, &a.ph, &a.pw) ||
        get_int(o, "groups", 1, 1 << 30, 1, &groups) ||
        get_int(o, "contract", 0, (long long)1 << 40, 0, &contract) ||
        get_int(o, "param_elems", 0, (long long)1 << 40, 0, &params))
        return bad(r, idx, name, "kernel, stride, pad, groups, contract or param_elems out of "
                                 "range");
    a.groups = (int)groups;
    a.bias = (int)bias;
    a.keep_positions = (int)keep;
    a.contract = contract;
    a.param_elems = params;
    const char *src = json_string_value(json_object_get(o, "src_type"));
    a.src_type = src;
    const json_t *d = json_object_get(o, "dims");
    if (d != NULL) {
        if (!json_is_array(d) || json_array_size(d) > DNP_MAX_RANK)
            return bad(r, idx, name, "\"dims\" must be an array of at most 6 integers");
        for (size_t k = 0; k < json_array_size(d); k++) {
            const json_t *e = json_array_get(d, k);
            if (!json_is_integer(e) || json_integer_value(e) < 1)
                return bad(r, idx, name, "\"dims\" entries must be positive integers");
            a.out_dims[k] = json_integer_value(e);
        }
        a.out_rank = (int)json_array_size(d);
    }
    dnp_shape s = {dims[0], dims[1], dims[2]};
    int n_in = (int)json_array_size(ins);
    if (kind == DNP_OP_INPUT && n_in != 0)
        return bad(r, idx, name, "an input op has no inputs");
    if (kind != DNP_OP_INPUT && n_in == 0)
        return bad(r, idx, name, "needs at least one input");
    if (kind == DNP_OP_CONV && (inputs[0] < 0 || dnp_graph_op(g, inputs[0])->out.c % a.groups))
        return bad(r, idx, name, "input channels do not divide into the groups");
    int i = dnp_graph_append(g, name, (dnp_op_kind)kind, n_in, inputs, s, &a);
    if (i < 0 && strncmp(dnp_graph_error(g), "out of memory", 13) == 0) {
        dnp_error_set(r->err, DNP_ERR_NOMEM, "%s: %s", r->file, dnp_graph_error(g));
        return DNP_ERR_NOMEM;
    }
    if (i < 0)
        return bad(r, idx, name, dnp_graph_error(g));
    return DNP_OK;
}

dnp_status dnp_model_read_json(const char *path, dnp_graph **out, dnp_error *err)
{
    json_error_t jerr;
    json_t *root = strcmp(path, "-") == 0 ? json_loadf(stdin, 0, &jerr)
                                          : json_load_file(path, 0, &jerr);
    const char *base = strcmp(path, "-") == 0 ? "<stdin>" : path;
    if (root == NULL) {
        dnp_error_set(err, jerr.line < 0 ? DNP_ERR_IO : DNP_ERR_INPUT, "%s:%d:%d: %s", base,
                      jerr.line, jerr.column, jerr.text);
        return err->status;
    }
    reader r = {base, err};
    dnp_status st = DNP_ERR_INPUT;
    dnp_graph *g = NULL;
    const char *fmt = json_string_value(json_object_get(root, "format"));
    const json_t *ops = json_object_get(root, "ops");
    if (fmt == NULL || strcmp(fmt, FORMAT_NAME) != 0) {
        dnp_error_set(err, st, "%s: not a dnnpar model (\"format\" must be \"%s\")", base,
                      FORMAT_NAME);
        goto done;
    }
    if (!json_is_integer(json_object_get(root, "version")) ||
        json_integer_value(json_object_get(root, "version")) != FORMAT_VERSION) {
        dnp_error_set(err, st, "%s: unsupported \"version\" (this dnnpar reads %d)", base,
                      FORMAT_VERSION);
        goto done;
    }
    if (!json_is_array(ops) || json_array_size(ops) == 0) {
        dnp_error_set(err, st, "%s: \"ops\" must be a non-empty array", base);
        goto done;
    }
    const char *name = json_string_value(json_object_get(root, "name"));
    g = dnp_graph_new(name ? name : "model");
    if (g == NULL) {
        st = DNP_ERR_NOMEM;
        dnp_error_set(err, st, "%s: out of memory", base);
        goto done;
    }
    const char *note = json_string_value(json_object_get(root, "note"));
    dnp_graph_set_note(g, note ? note : "");
    for (size_t i = 0; i < json_array_size(ops); i++)
        if ((st = read_op(&r, g, i, json_array_get(ops, i))) != DNP_OK)
            goto done;
    *out = g;
    g = NULL;
    st = DNP_OK;
done:
    dnp_graph_free(g);
    json_decref(root);
    return st;
}
