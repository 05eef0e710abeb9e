/* cmd_info.c - `dnnpar info`: per-layer shapes, FLOPs and parameters. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: dnnpar info MODEL [--batch B] [--skip-unknown] [--json FILE] [--dot FILE]\n"
    "                   [--roofline DEVICE [--precision P]]\n"
    "\n"
    "Per layer: kind, input and output shape (channels x height x width, per\n"
    "sample), parameters, multiply-accumulates per sample, and the forward,\n"
    "backward and weight-gradient FLOP of the batch (AccPar Table 6).\n"
    "Totals at the end.  The batch defaults to 1.  --dot FILE writes the graph in\n"
    "Graphviz DOT, edges labelled with their bytes per step at the batch in fp32\n"
    "(FILE.svg or FILE.png: the picture, drawn by Graphviz's dot).\n"
    "--roofline DEVICE (a device preset or spec of one device type, e.g. a100 or\n"
    "custom(...)) prints instead, per layer, the training passes of the whole\n"
    "batch on one such device as the device model prices them: FLOP, bytes\n"
    "moved, intensity (FLOP/byte), what bounds the kernels (compute, memory or\n"
    "launch), time and the fraction of peak achieved, then the share of the\n"
    "step each bound holds and the slowest layers (docs/device-model.md,\n"
    "\"Per-layer roofline\"); --precision P as plan (default: the device's dtype).\n"
    "\n"
    "examples:\n"
    "  dnnpar info resnet50\n"
    "  dnnpar info vgg19 --batch 512 --json vgg19.json\n"
    "  dnnpar info gpt2 --batch 8 --roofline a100 --precision bf16\n";

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
                              shape_json(dnp_op_in_view(g, i)), "out",
                              shape_json(dnp_op_out_view(op)), "dims", dims,
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

/* "model NAME: NOTE", the note continued on an indented line after its
 * last "; " that keeps the first line within the 119 columns of the
 * project's outputs (an ONNX note ends with what the importer fused). */
static void print_model_line(const dnp_graph *g)
{
    const char *name = dnp_graph_name(g), *note = dnp_graph_note(g), *cut = NULL;
    size_t lead = strlen(name) + 8; /* "model " and ": " */
    if (lead + strlen(note) > 119)
        for (const char *p = strstr(note, "; "); p != NULL; p = strstr(p + 1, "; "))
            if (lead + (size_t)(p - note) + 1 <= 119)
                cut = p;
    if (cut == NULL) {
        printf("model %s: %s\n", name, note);
        return;
    }
    printf("model %s: %.*s\n  %s\n", name, (int)(cut - note) + 1, note, cut + 2);
}

static void info_text(const dnp_graph *g, long long batch)
{
    print_model_line(g);
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
            shape_text(dnp_op_in_view(g, i), in, sizeof in);
        const dnp_shape ov = dnp_op_out_view(op);
        shape_text(ov, out, sizeof out);
        group_digits(c.params, params, sizeof params);
        group_digits(c.macs_per_sample, macs, sizeof macs);
        fmt_si_trim((double)(ov.c * ov.h * ov.w), act, sizeof act);
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

/* The per-layer roofline of g on device d at precision p: per-layer rows
 * into a table, or into `layers` (JSON) when it is not NULL. */
typedef struct {
    dnp_op_roofline r;
    int op;
} roof_row;

static int roof_compare(const void *a, const void *b)
{
    const roof_row *x = a, *y = b;
    if (x->r.time_s != y->r.time_s)
        return x->r.time_s < y->r.time_s ? 1 : -1;
    return x->op - y->op; /* stable: deterministic output */
}

static int roofline_report(const dnp_graph *g, long long batch, const dnp_device_type *d,
                           dnp_precision p, const char *json)
{
    int n = dnp_graph_n_ops(g);
    roof_row *rows = dnp_calloc((size_t)(n > 0 ? n : 1), sizeof *rows);
    if (rows == NULL) {
        cli_error("info", "out of memory");
        return EXIT_RUNTIME;
    }
    double total_s = 0.0, by_bound[4] = {0.0, 0.0, 0.0, 0.0}, flop = 0.0;
    for (int i = 0; i < n; i++) {
        dnp_error err = {0};
        rows[i].op = i;
        if (dnp_op_roofline_get(g, i, batch, d, p, &rows[i].r, &err) != DNP_OK) {
            cli_error("info", "%s", err.msg);
            dnp_free(rows);
            return EXIT_RUNTIME;
        }
        total_s += rows[i].r.time_s;
        flop += rows[i].r.flop;
        by_bound[DNP_BOUND_COMPUTE] += rows[i].r.compute_s;
        by_bound[DNP_BOUND_MEMORY] += rows[i].r.memory_s;
        by_bound[DNP_BOUND_LAUNCH] += rows[i].r.launch_s;
    }
    const double ridge = dnp_device_ridge_intensity(d, p);
    const double peak = n > 0 ? rows[0].r.peak_flops : 0.0;
    const dnp_precision resolved = n > 0 ? rows[0].r.precision : p;
    int rc = 0;
    if (json != NULL) {
        json_t *layers = json_array();
        for (int i = 0; i < n; i++) {
            const dnp_op_roofline *r = &rows[i].r;
            json_array_append_new(
                layers, json_pack("{s:s,s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:s,s:i}", "name",
                                  dnp_graph_op(g, i)->name, "kind",
                                  dnp_op_kind_name(dnp_graph_op(g, i)->kind), "flop", r->flop,
                                  "bytes", r->bytes, "intensity", r->intensity, "time_s",
                                  r->time_s, "compute_s", r->compute_s, "memory_s",
                                  r->memory_s, "launch_s", r->launch_s, "achieved", r->achieved,
                                  "bound", dnp_bound_name(r->bound), "kernels", r->kernels));
        }
        rc = cli_write_json("info", json,
                            json_pack("{s:s,s:s,s:s,s:I,s:f,s:f,s:{s:f,s:f,s:f},s:o}", "model",
                                      dnp_graph_name(g), "device", d->name, "precision",
                                      dnp_precision_name(resolved), "batch", (json_int_t)batch,
                                      "ridge_intensity", ridge, "time_s", total_s, "bound_s",
                                      "compute", by_bound[DNP_BOUND_COMPUTE], "memory",
                                      by_bound[DNP_BOUND_MEMORY], "launch",
                                      by_bound[DNP_BOUND_LAUNCH], "layers", layers));
    }
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0)) {
        char ridge_s[32];
        snprintf(ridge_s, sizeof ridge_s, "%.3g", ridge);
        cli_wrapf(stdout, 0, "  ",
                  "roofline of %s, batch %lld, on one %s at %s: forward, input gradient and "
                  "weight gradient of each layer as the device model prices them; ridge point %s "
                  "FLOP/byte at the GEMM ceiling",
                  dnp_graph_name(g), batch, d->name, dnp_precision_name(resolved),
                  ridge > 0.0 ? ridge_s : "unknown (no memory bandwidth)");
        printf("\n");
        double f_t;
        const char *unit = cli_time_unit(total_s, &f_t);
        char h_time[24];
        snprintf(h_time, sizeof h_time, "time (%s)", unit);
        static const char *const header[] = {"#",      "name",  "kind", "GFLOP", "MB moved",
                                             "FLOP/B", "bound", NULL,   "% of peak"};
        const char *hdr[9];
        for (int k = 0; k < 9; k++)
            hdr[k] = header[k] != NULL ? header[k] : h_time;
        cli_table *tab = cli_table_new(9, "rllrrrlrr", hdr);
        for (int i = 0; tab != NULL && i < n; i++) {
            const dnp_op_roofline *r = &rows[i].r;
            if (r->kernels == 0)
                continue; /* inputs and free re-layouts */
            char c[7][32];
            snprintf(c[0], sizeof c[0], "%d", i);
            snprintf(c[1], sizeof c[1], "%.3f", r->flop / 1e9);
            snprintf(c[2], sizeof c[2], "%.3f", r->bytes / 1e6);
            snprintf(c[3], sizeof c[3], "%.1f", r->intensity);
            snprintf(c[4], sizeof c[4], "%.3f", r->time_s * f_t);
            snprintf(c[5], sizeof c[5], "%.1f", 100.0 * r->achieved);
            const char *row[] = {c[0], dnp_graph_op(g, i)->name,
                                 dnp_op_kind_name(dnp_graph_op(g, i)->kind), c[1], c[2], c[3],
                                 dnp_bound_name(r->bound), c[4], c[5]};
            if (cli_table_add(tab, row) != 0) {
                cli_table_free(tab);
                tab = NULL;
            }
        }
        if (tab == NULL) {
            cli_error("info", "out of memory formatting the table");
            dnp_free(rows);
            return EXIT_RUNTIME;
        }
        if (cli_table_print(tab, stdout, CLI_MAX_WIDTH, 1))
            printf("(names longer than the name column are cut in the middle at '~'; --json "
                   "has them in full)\n");
        cli_table_free(tab);
        double pct = total_s > 0.0 ? 100.0 / total_s : 0.0;
        printf("\nsum of the layers: %.3f %s, %.1f%% of peak; compute-bound kernels %.1f%% of "
               "it, memory-bound %.1f%%, launch %.1f%%\n",
               total_s * f_t, unit,
               total_s > 0.0 && peak > 0.0 ? 100.0 * flop / (total_s * peak) : 0.0,
               by_bound[DNP_BOUND_COMPUTE] * pct, by_bound[DNP_BOUND_MEMORY] * pct,
               by_bound[DNP_BOUND_LAUNCH] * pct);
        qsort(rows, (size_t)n, sizeof *rows, roof_compare);
        char slow[5 * 200 + 32];
        size_t o = (size_t)snprintf(slow, sizeof slow, "slowest layers:");
        for (int i = 0; i < n && i < 5 && rows[i].r.time_s > 0.0 && o < sizeof slow; i++)
            o += (size_t)snprintf(slow + o, sizeof slow - o, "%s %.120s %.1f%% (%s)",
                                  i ? "," : "", dnp_graph_op(g, rows[i].op)->name,
                                  rows[i].r.time_s * pct, dnp_bound_name(rows[i].r.bound));
        cli_wrapf(stdout, 0, "  ", "%s", slow);
    }
    dnp_free(rows);
    return rc;
}

int cmd_info(int argc, char **argv)
{
    static const char *const valued[] = {"batch", "json", "dot", "roofline", "precision", NULL};
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
    const char *roof = cli_get(&a, "roofline"), *prec = cli_get(&a, "precision");
    dnp_precision p = DNP_PREC_DEFAULT;
    if (prec != NULL && roof == NULL) {
        cli_error("info", "--precision applies to --roofline DEVICE");
        return EXIT_USAGE;
    }
    if (prec != NULL) {
        int pr = dnp_precision_from_name(prec);
        if (pr < 0 || pr == DNP_PREC_DEFAULT) {
            return cli_unknown_name("info", "precision", prec, cli_precisions);
        }
        p = (dnp_precision)pr;
    }
    dnp_cluster dev;
    if (roof != NULL) {
        if (cli_get(&a, "dot") != NULL) {
            cli_error("info", "--roofline and --dot exclude each other (the roofline is a table)");
            return EXIT_USAGE;
        }
        if ((rc = cli_load_cluster("info", roof, &dev)) != 0)
            return rc;
        if (dev.n_types != 1) {
            cli_error("info", "--roofline '%s': give one device type (it has %d)", roof,
                      dev.n_types);
            return EXIT_USAGE;
        }
    }
    dnp_graph *g = NULL;
    if ((rc = cli_load_model("info", a.pos[0], &a, &g)) != 0)
        return rc;
    if (roof != NULL) {
        rc = roofline_report(g, batch, &dev.types[0], p, cli_get(&a, "json"));
        dnp_graph_free(g);
        return rc;
    }
    /* JSON first: if it cannot be written, nothing else is printed. */
    const char *json = cli_get(&a, "json");
    if (json != NULL)
        rc = cli_write_json("info", json, info_json(g, batch));
    const char *dot = cli_get(&a, "dot");
    if (rc == 0 && dot != NULL) {
        dnp_error err = {0};
        /* the edges' bytes per step at the batch, in fp32 (info has no
         * precision outside --roofline) */
        dnp_status st = dnp_dot_write_batch(dot, g, NULL, batch, 4, &err);
        if (st != DNP_OK)
            cli_error("info", "%s", err.msg);
        rc = cli_exit_for(st);
    }
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0) && (dot == NULL || strcmp(dot, "-") != 0))
        info_text(g, batch);
    dnp_graph_free(g);
    return rc;
}
