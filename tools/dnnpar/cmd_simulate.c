/* cmd_simulate.c - `dnnpar simulate --strategy FILE`: evaluate a saved
 * strategy (from plan --json) instead of searching, optionally on another
 * batch or cluster of the same shape, with a Chrome trace of the step. */
#include "cli.h"

#include <string.h>

static const char help[] =
    "usage: dnnpar simulate --strategy FILE [MODEL] [--cluster SPEC] [--batch B]\n"
    "                       [--skip-unknown] [--json FILE] [--trace FILE]\n"
    "\n"
    "Evaluate the strategy in FILE (written by dnnpar plan --json) with the step\n"
    "time model of docs/time-model.md and print the same report as plan.  MODEL,\n"
    "the cluster and the batch default to those the strategy was planned for; the\n"
    "model must have the same ops and the cluster the same tree for its levels.\n"
    "--trace FILE writes the step as a Chrome trace (chrome://tracing, Perfetto):\n"
    "per layer, the communication and the compute on the critical path.\n"
    "\n"
    "examples:\n"
    "  dnnpar plan vgg19 --cluster 8xtpu-v3 --json plan.json\n"
    "  dnnpar simulate --strategy plan.json --batch 1024 --trace step.json\n";

/* The critical path of every op, one after the other: communication on
 * track 1, compute on track 2, in microseconds. */
static json_t *trace_json(const dnp_plan *p)
{
    json_t *ev = json_array();
    json_array_append_new(ev, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", "thread_name", "ph",
                                        "M", "pid", 1, "tid", 1, "args", "name",
                                        "communication"));
    json_array_append_new(ev, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", "thread_name", "ph",
                                        "M", "pid", 1, "tid", 2, "args", "name", "compute"));
    double t_us = 0.0;
    for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
        double cs, ms;
        dnp_plan_node_times(p, v, &cs, &ms);
        const char *name = dnp_plan_node_name(p, v);
        if (ms > 0.0)
            json_array_append_new(ev, json_pack("{s:s,s:s,s:s,s:f,s:f,s:i,s:i}", "name", name,
                                                "cat", "comm", "ph", "X", "ts", t_us, "dur",
                                                ms * 1e6, "pid", 1, "tid", 1));
        t_us += ms * 1e6;
        if (cs > 0.0)
            json_array_append_new(ev, json_pack("{s:s,s:s,s:s,s:f,s:f,s:i,s:i}", "name", name,
                                                "cat", "compute", "ph", "X", "ts", t_us, "dur",
                                                cs * 1e6, "pid", 1, "tid", 2));
        t_us += cs * 1e6;
    }
    return json_pack("{s:o,s:s}", "traceEvents", ev, "displayTimeUnit", "ms");
}

int cmd_simulate(int argc, char **argv)
{
    static const char *const valued[] = {"strategy", "cluster", "batch", "json", "trace", NULL};
    static const char *const flags[] = {"help", "skip-unknown", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_parse(argc, argv, 2, &spec, "simulate", &a);
    if (rc != 0)
        return rc;
    if (cli_flag(&a, "help")) {
        fputs(help, stdout);
        return EXIT_OK;
    }
    const char *path = cli_get(&a, "strategy");
    if (path == NULL || a.n_pos > 1) {
        cli_error("simulate", "expected --strategy FILE and at most one MODEL (see dnnpar "
                              "simulate --help)");
        return EXIT_USAGE;
    }
    (void)done;
    dnp_strategy *s = NULL;
    dnp_error err = {0};
    if (dnp_strategy_read(path, &s, &err) != DNP_OK) {
        cli_error("simulate", "%s", err.msg);
        return cli_exit_for(err.status);
    }
    const char *model = a.n_pos == 1 ? a.pos[0] : dnp_strategy_model(s);
    const char *spec_text = cli_get(&a, "cluster") ? cli_get(&a, "cluster") : dnp_strategy_cluster(s);
    long long batch = dnp_strategy_batch(s);
    const char *b = cli_get(&a, "batch");
    if (b != NULL && (batch = cli_positive("simulate", "batch", b, 1LL << 40)) < 0) {
        dnp_strategy_free(s);
        return EXIT_USAGE;
    }
    if (batch <= 0) {
        cli_error("simulate", "%s names no batch: give --batch", path);
        dnp_strategy_free(s);
        return EXIT_USAGE;
    }
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_plan *p = NULL;
    if ((rc = cli_load_cluster("simulate", spec_text, &cl)) == 0 &&
        (rc = cli_load_model("simulate", model, &a, &g)) == 0) {
        dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = batch, .levels = 0, .reference_mode = 0};
        if (dnp_plan_run_strategy(g, &cl, &opt, s, &p, &err) != DNP_OK) {
            cli_error("simulate", "%s", err.msg);
            rc = cli_exit_for(err.status);
        }
    }
    if (rc == 0) {
        cli_plan_info info = {dnp_graph_name(g), model, batch, &cl, "given"};
        const char *json = cli_get(&a, "json"), *trace = cli_get(&a, "trace");
        if (trace != NULL)
            rc = cli_write_json("simulate", trace, trace_json(p));
        if (rc == 0 && json != NULL)
            rc = cli_write_json("simulate", json, cli_plan_json(p, &info));
        if (rc == 0 && (json == NULL || strcmp(json, "-") != 0) &&
            (trace == NULL || strcmp(trace, "-") != 0))
            cli_plan_text(p, &info);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
    dnp_strategy_free(s);
    return rc;
}
