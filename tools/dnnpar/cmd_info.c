/* cmd_info.c - `dnnpar info`: per-layer shapes, FLOPs and parameters. */
#include "cli.h"

#include <string.h>

static const char help[] =
    "usage: dnnpar info MODEL [--batch B] [--skip-unknown] [--json FILE] [--dot FILE]\n"
    "\n"
    "Per layer: kind, input and output shape (channels x height x width, per\n"
    "sample), parameters, multiply-accumulates per sample, and the forward,\n"
    "backward and weight-gradient FLOP of the batch (AccPar Table 6).\n"
    "Totals at the end.  The batch defaults to 1.  --dot FILE writes the graph in\n"
    "Graphviz DOT (render with dot -Tpng FILE -o graph.png).\n"
    "\n"
    "examples:\n"
    "  dnnpar info resnet50\n"
    "  dnnpar info vgg19 --batch 512 --json vgg19.json\n";

static void shape_text(dnp_shape s, char *buf, size_t n)
{
    snprintf(buf, n, "%lldx%lldx%lld", (long long)s.c, (long long)s.h, (long long)s.w);
}

/* 1234567 -> "1,234,567" */
static void group_digits(long long v, char *buf, size_t n)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%lld", v);
    size_t len = strlen(tmp), o = 0;
    for (size_t i = 0; i < len && o + 2 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0 && tmp[i - 1] != '-')
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
}

static json_t *shape_json(dnp_shape s)
{
    return json_pack("[I,I,I]", (json_int_t)s.c, (json_int_t)s.h, (json_int_t)s.w);
}

static json_t *info_json(const dnp_graph *g, long long batch)
{
    json_t *layers = json_array();
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        dnp_op_cost c;
        dnp_op_cost_get(g, i, batch, &c);
        json_t *ins = json_array(), *dims = json_object();
        for (int k = 0; k < op->n_inputs; k++)
            json_array_append_new(ins, json_string(dnp_graph_op(g, op->inputs[k])->name));
        dnp_dim d[DNP_MAX_DIMS];
        int nd = dnp_op_dims(g, i, batch, d);
        for (int k = 0; k < nd; k++)
            json_object_set_new(dims, d[k].name, json_integer((json_int_t)d[k].size));
        json_t *l = json_pack("{s:s,s:s,s:o,s:o,s:o,s:o,s:I,s:I,s:f,s:f,s:f,s:I}", "name",
                              op->name, "kind", dnp_op_kind_name(op->kind), "inputs", ins, "in",
                              shape_json(op->in), "out", shape_json(op->out), "dims", dims,
                              "params", (json_int_t)c.params, "macs_per_sample",
                              (json_int_t)c.macs_per_sample, "forward_flop", c.fwd_flop,
                              "backward_flop", c.bwd_flop, "gradient_flop", c.grad_flop,
                              "activation_elems", (json_int_t)c.out_elems);
        json_array_append_new(layers, l);
    }
    dnp_graph_totals t;
    dnp_graph_totals_get(g, batch, &t);
    return json_pack("{s:s,s:s,s:I,s:o,s:{s:I,s:I,s:f,s:f,s:I}}", "model", dnp_graph_name(g),
                     "note", dnp_graph_note(g), "batch", (json_int_t)batch, "layers", layers,
                     "total", "params", (json_int_t)t.params, "macs_per_sample",
                     (json_int_t)t.macs_per_sample, "forward_flop", t.forward_flop,
                     "training_flop", t.training_flop, "activation_elems",
                     (json_int_t)t.activation_elems);
}

/* cli_fmt_si without the blank a prefix-less value ends with. */
static void fmt_si_trim(double x, char *buf, size_t n)
{
    cli_fmt_si(x, buf, n);
    size_t len = strlen(buf);
    while (len > 0 && buf[len - 1] == ' ')
        buf[--len] = '\0';
}

static void info_text(const dnp_graph *g, long long batch)
{
    printf("model %s: %s\n", dnp_graph_name(g), dnp_graph_note(g));
    printf("batch %lld; FLOP columns are for the whole batch, MACs and activations per sample\n\n",
           batch);
    static const char *const header[] = {"#",          "name",        "kind",       "input",
                                         "output",     "params",      "MACs/sample", "activation",
                                         "fwd FLOP",   "bwd FLOP",    "grad FLOP"};
    cli_table *tab = cli_table_new(11, "rllllrrrrrr", header);
    for (int i = 0; tab != NULL && i < dnp_graph_n_ops(g); i++) {
        const dnp_op *op = dnp_graph_op(g, i);
        dnp_op_cost c;
        dnp_op_cost_get(g, i, batch, &c);
        char idx[16], in[32] = "-", out[32], params[32], macs[32], act[16], f[16], b[16], w[16];
        snprintf(idx, sizeof idx, "%d", i);
        if (op->n_inputs > 0)
            shape_text(op->in, in, sizeof in);
        shape_text(op->out, out, sizeof out);
        group_digits(c.params, params, sizeof params);
        group_digits(c.macs_per_sample, macs, sizeof macs);
        fmt_si_trim((double)(op->out.c * op->out.h * op->out.w), act, sizeof act);
        fmt_si_trim(c.fwd_flop, f, sizeof f);
        fmt_si_trim(c.bwd_flop, b, sizeof b);
        fmt_si_trim(c.grad_flop, w, sizeof w);
        const char *row[] = {idx, op->name, dnp_op_kind_name(op->kind), in, out, params, macs,
                             act, f, b, w};
        if (cli_table_add(tab, row) != 0) {
            cli_table_free(tab);
            tab = NULL;
        }
    }
    if (tab == NULL) {
        cli_error("info", "out of memory formatting the table");
        return;
    }
    if (cli_table_print(tab, stdout, CLI_MAX_WIDTH, 1))
        printf("(names longer than the name column are cut in the middle at '~'; --json has "
               "them in full)\n");
    cli_table_free(tab);
    dnp_graph_totals t;
    dnp_graph_totals_get(g, batch, &t);
    char params[32], macs[32], macs_si[16], act[16], f[16], tr[16];
    group_digits(t.params, params, sizeof params);
    group_digits(t.macs_per_sample, macs, sizeof macs);
    cli_fmt_si((double)t.macs_per_sample, macs_si, sizeof macs_si);
    cli_fmt_si((double)t.activation_elems / (double)batch, act, sizeof act);
    cli_fmt_si(t.forward_flop, f, sizeof f);
    cli_fmt_si(t.training_flop, tr, sizeof tr);
    printf("\ntotal: %s parameters, %s MACs per sample (%s), %s activation elements per "
           "sample,\n       forward %sFLOP, training (forward + backward + gradient) %sFLOP\n",
           params, macs, macs_si, act, f, tr);
}

int cmd_info(int argc, char **argv)
{
    static const char *const valued[] = {"batch", "json", "dot", NULL};
    static const char *const flags[] = {"help", "skip-unknown", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "info", help, 1, "one MODEL", &a, &done);
    if (rc != 0 || done)
        return rc;
    long long batch = 1;
    if (cli_get(&a, "batch") && (batch = cli_positive("info", "batch", cli_get(&a, "batch"),
                                                      1LL << 30)) < 0)
        return EXIT_USAGE;
    dnp_graph *g = NULL;
    if ((rc = cli_load_model("info", a.pos[0], &a, &g)) != 0)
        return rc;
    /* JSON first: if it cannot be written, nothing else is printed. */
    const char *json = cli_get(&a, "json");
    if (json != NULL)
        rc = cli_write_json("info", json, info_json(g, batch));
    const char *dot = cli_get(&a, "dot");
    if (rc == 0 && dot != NULL) {
        dnp_error err = {0};
        dnp_status st = dnp_dot_write(dot, g, NULL, &err);
        if (st != DNP_OK)
            cli_error("info", "%s", err.msg);
        rc = cli_exit_for(st);
    }
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0) && (dot == NULL || strcmp(dot, "-") != 0))
        info_text(g, batch);
    dnp_graph_free(g);
    return rc;
}
