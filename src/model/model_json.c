/*
 * model_json.c - the dnnpar model JSON format (docs/formats.md): every op
 * with its kind, inputs by name, shapes and attributes.  Writing and
 * reading back gives an identical graph, so any model the tool can load
 * (zoo, ONNX, AccPar text) can be saved, edited and fed back.
 */
#include "dnnpar/model.h"
#include "core/alloc.h"
#include "core/input.h"
#include "model/graph_named.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_NAME "dnnpar-model"
#define FORMAT_VERSION 1
/* Most ops a model JSON may hold. */
#define MAX_MODEL_OPS DNP_MAX_MODEL_OPS

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
        json_object_set_new(o, "out", shape_json(dnp_op_out_view(op)));
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
        if (dnp_op_has_axes(op)) { /* given axes only: the view is "out" */
            json_t *d = json_array();
            for (int k = 0; k < op->out_rank; k++)
                json_array_append_new(d, json_integer((json_int_t)op->out_dims[k]));
            json_object_set_new(o, "dims", d);
        }
        /* named axes (docs/formats.md): only where set */
        if (op->axes[0] != '\0')
            json_object_set_new(o, "axes", json_string(op->axes));
        if (op->loops[0] != '\0')
            json_object_set_new(o, "loops", json_string(op->loops));
        if (op->equation[0] != '\0')
            json_object_set_new(o, "equation", json_string(op->equation));
        if (op->kind == DNP_OP_STACK || op->kind == DNP_OP_SELECT)
            json_object_set_new(o, "axis", json_integer(op->axis));
        if (op->kind == DNP_OP_SELECT)
            json_object_set_new(o, "index", json_integer(op->index));
        if (op->kind == DNP_OP_LSTM)
            json_object_set_new(o, "layers", json_integer(op->layers));
        if (op->kind == DNP_OP_DROPOUT && op->ratio > 0.0)
            json_object_set_new(o, "ratio", json_real(op->ratio));
        if (op->model_axis != 0) {
            char m[2] = {op->model_axis, '\0'};
            json_object_set_new(o, "model_axis", json_string(m));
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
    char q[DNP_QUOTE_MAX + 8];
    dnp_error_set(r->err, DNP_ERR_INPUT, "%s: ops[%zu]%s%s%s: %s", r->file, idx,
                  name ? " ('" : "", name ? dnp_quote_str(name, q, sizeof q) : "",
                  name ? "')" : "", what);
    return DNP_ERR_INPUT;
}

static int64_t elems(dnp_shape s) { return s.c * s.h * s.w; }

/* Shape rules along the edges into op i (docs/formats.md, "Checks on
 * load"): NULL if op i's shapes agree with its inputs', else the problem
 * (in `buf`).  The graph bounds every shape to 2^40 elements, so the
 * sums and products here cannot overflow.  O(inputs). */
static const char *edge_problem(const dnp_graph *g, int i, char *buf, size_t n)
{
    const dnp_op *op = dnp_graph_op(g, i);
    if (op->n_inputs == 0)
        return NULL;
    dnp_shape in = dnp_op_in_view(g, i), out = dnp_op_out_view(op);
    int64_t sum = 0;
    switch (op->kind) {
    case DNP_OP_RELU:
    case DNP_OP_BATCHNORM:
    case DNP_OP_DROPOUT:
    case DNP_OP_SOFTMAX:
    case DNP_OP_LRN:
    case DNP_OP_LAYERNORM:
    case DNP_OP_FLATTEN:
        if (elems(in) != elems(out))
            snprintf(buf, n, "a %s keeps its input's %lld elements, \"out\" has %lld",
                     dnp_op_kind_name(op->kind), (long long)elems(in), (long long)elems(out));
        break;
    case DNP_OP_ADD:
        for (int k = 0; k < op->n_inputs; k++)
            if (elems(dnp_op_out_view(dnp_graph_op(g, op->inputs[k]))) > elems(out))
                snprintf(buf, n, "input %d has more elements than the sum's \"out\"", k);
        break;
    case DNP_OP_CONCAT:
        for (int k = 0; k < op->n_inputs; k++)
            sum += elems(dnp_op_out_view(dnp_graph_op(g, op->inputs[k])));
        if (sum > elems(out))
            snprintf(buf, n, "inputs hold %lld elements, more than \"out\" (%lld)",
                     (long long)sum, (long long)elems(out));
        break;
    case DNP_OP_FC:
        if (!op->keep_positions && out.h * out.w != 1)
            snprintf(buf, n, "an fc's \"out\" must be [features, 1, 1] (or set "
                             "\"keep_positions\")");
        else if (op->keep_positions && out.h * out.w != in.h * in.w)
            snprintf(buf, n, "an fc with keep_positions keeps its input's %lld positions, "
                             "\"out\" has %lld",
                     (long long)(in.h * in.w), (long long)(out.h * out.w));
        break;
    case DNP_OP_CONV:
    case DNP_OP_MAXPOOL:
    case DNP_OP_AVGPOOL:
        if (op->kind == DNP_OP_CONV && out.c % op->groups != 0)
            snprintf(buf, n, "output channels %lld do not divide into %d groups",
                     (long long)out.c, op->groups);
        else if (op->kind != DNP_OP_CONV && out.c != in.c)
            snprintf(buf, n, "pooling keeps the %lld channels, \"out\" has %lld",
                     (long long)in.c, (long long)out.c);
        else if (out.h > in.h + 2 * (int64_t)op->ph || out.w > in.w + 2 * (int64_t)op->pw)
            snprintf(buf, n, "output %lldx%lld is larger than the padded input %lldx%lld",
                     (long long)out.h, (long long)out.w, (long long)(in.h + 2 * op->ph),
                     (long long)(in.w + 2 * op->pw));
        break;
    default:
        break;
    }
    return buf[0] != '\0' ? buf : NULL;
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
            char msg[200], q[DNP_QUOTE_MAX + 8];
            snprintf(msg, sizeof msg, "input %zu ('%s') is not an earlier op (inputs come "
                     "before their consumers, so a model has no cycles)", k,
                     in ? dnp_quote_str(in, q, sizeof q) : "?");
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
    long long axis, index, layers;
    const json_t *jm = json_object_get(o, "model_axis");
    const char *ma = json_string_value(jm);
    if (get_int(o, "axis", 0, DNP_MAX_RANK, 0, &axis) ||
        get_int(o, "index", 0, 1 << 20, 0, &index) || get_int(o, "layers", 0, 1 << 10, 0, &layers) ||
        (jm != NULL && (ma == NULL || strlen(ma) != 1)))
        return bad(r, idx, name, "axis, index, layers or model_axis out of range");
    a.axes = json_string_value(json_object_get(o, "axes"));
    a.loops = json_string_value(json_object_get(o, "loops"));
    a.equation = json_string_value(json_object_get(o, "equation"));
    a.axis = (int)axis;
    a.index = (int)index;
    a.layers = (int)layers;
    a.model_axis = ma != NULL ? ma[0] : 0;
    const json_t *jr = json_object_get(o, "ratio");
    if (jr != NULL) {
        /* dropout's probability of zeroing an element (docs/formats.md) */
        double ratio = json_is_number(jr) ? json_number_value(jr) : -1.0;
        if (kind != DNP_OP_DROPOUT || !(ratio >= 0.0 && ratio < 1.0))
            return bad(r, idx, name, "\"ratio\" is a dropout's probability, a number in [0, 1)");
        a.ratio = ratio;
    }
    dnp_shape s = {dims[0], dims[1], dims[2]};
    int n_in = (int)json_array_size(ins);
    if (kind == DNP_OP_INPUT && n_in != 0)
        return bad(r, idx, name, "an input op has no inputs");
    if (kind != DNP_OP_INPUT && n_in == 0)
        return bad(r, idx, name, "needs at least one input");
    if (kind == DNP_OP_CONV &&
        (inputs[0] < 0 || dnp_op_out_view(dnp_graph_op(g, inputs[0])).c % a.groups))
        return bad(r, idx, name, "input channels do not divide into the groups");
    int i = dnp_graph_append(g, name, (dnp_op_kind)kind, n_in, inputs, s, &a);
    if (i < 0 && strncmp(dnp_graph_error(g), "out of memory", 13) == 0) {
        dnp_error_set(r->err, DNP_ERR_NOMEM, "%s: %s", r->file, dnp_graph_error(g));
        return DNP_ERR_NOMEM;
    }
    char why[200] = "";
    if (i < 0) {
        /* named axes whose dims do not give "out": graph_named's reason, as
         * for the other checks of named fields */
        char axes_err[96];
        snprintf(axes_err, sizeof axes_err, "op '%.63s': output axes ", name);
        if (a.axes != NULL && a.axes[0] != '\0' &&
            strncmp(dnp_graph_error(g), axes_err, strlen(axes_err)) == 0 &&
            graph_named_view_check(a.axes, a.out_rank, a.out_dims, s, why, sizeof why) != 0)
            return bad(r, idx, name, why);
        return bad(r, idx, name, dnp_graph_error(g));
    }
    if (edge_problem(g, i, why, sizeof why) != NULL ||
        graph_named_check(g, i, why, sizeof why) != 0)
        return bad(r, idx, name, why);
    return DNP_OK;
}

/* Largest model JSON read (bytes). */
#define MAX_MODEL_JSON_BYTES ((size_t)256 << 20)

dnp_status dnp_model_read_json_buffer(const char *data, size_t len_bytes, const char *name,
                                      dnp_graph **out, dnp_error *err)
{
    char qbase[DNP_QUOTE_MAX + 8];
    const char *base = dnp_quote_str(name ? name : "<buffer>", qbase, sizeof qbase);
    json_error_t jerr;
    unsigned long failures = dnp_alloc_failures();
    json_t *root = json_loadb(data, len_bytes, 0, &jerr);
    if (root == NULL)
        return dnp_json_parse_error(&jerr, base, failures, err);
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
    if (!json_is_array(ops) || json_array_size(ops) == 0 ||
        json_array_size(ops) > MAX_MODEL_OPS) {
        dnp_error_set(err, st, "%s: \"ops\" must be an array of 1 .. %d ops", base,
                      MAX_MODEL_OPS);
        goto done;
    }
    const json_t *jname = json_object_get(root, "name"), *jnote = json_object_get(root, "note");
    if ((jname != NULL && !json_is_string(jname)) || (jnote != NULL && !json_is_string(jnote))) {
        dnp_error_set(err, st, "%s: \"name\" and \"note\" must be strings", base);
        goto done;
    }
    const char *gname = json_string_value(jname);
    if (gname != NULL && strlen(gname) >= 64) {
        char q[DNP_QUOTE_MAX + 8];
        dnp_error_set(err, st, "%s: \"name\" '%s' is longer than 63 characters", base,
                      dnp_quote_str(gname, q, sizeof q));
        goto done;
    }
    const char *note = json_string_value(jnote);
    if (note != NULL && strlen(note) >= 256) {
        dnp_error_set(err, st, "%s: \"note\" is longer than 255 characters", base);
        goto done;
    }
    g = dnp_graph_new(gname ? gname : "model");
    if (g == NULL) {
        st = DNP_ERR_NOMEM;
        dnp_error_set(err, st, "%s: out of memory", base);
        goto done;
    }
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

dnp_status dnp_model_read_json(const char *path, dnp_graph **out, dnp_error *err)
{
    char *data = NULL;
    size_t len = 0;
    dnp_status st = dnp_input_read(path, MAX_MODEL_JSON_BYTES, &data, &len, err);
    if (st != DNP_OK)
        return st;
    st = dnp_model_read_json_buffer(data, len, dnp_input_display(path), out, err);
    dnp_free(data);
    return st;
}
