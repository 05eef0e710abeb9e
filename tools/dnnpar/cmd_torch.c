/* cmd_torch.c - `dnnpar run-torch MODEL STRATEGY.json...`: execute saved
 * strategies on torch.distributed (gloo, CPU processes) with the Python
 * package python/dnnpar_torch (docs/torch.md), next to dnnpar's per-device
 * communication of each (dnp_plan_device_comm). */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Debian's python3-torch installs for Debian's own interpreter. */
#define TORCH_PYTHON_DEFAULT "/usr/bin/python3"
#define TORCH_STEPS_DEFAULT 3
#define TORCH_MAX_STRATEGIES 16

static const char help[] =
    "usage: dnnpar run-torch MODEL STRATEGY.json [STRATEGY.json...] --ranks N\n"
    "                        [--steps K] [--json FILE] [--skip-unknown]\n"
    "\n"
    "Execute each strategy (written by dnnpar plan --json) on torch.distributed:\n"
    "N CPU processes with the gloo backend, each holding exactly its shard of\n"
    "every layer, K training steps (SGD, fixed seed, synthetic data), and the\n"
    "same steps in one process.  Reports per strategy (a) whether the weights and\n"
    "the loss equal single-process training within float32 tolerances, (b) the\n"
    "bytes each rank sent and received, counted at the torch.distributed calls,\n"
    "beside dnnpar's prediction for that rank (they must be equal), (c) the\n"
    "measured step time per rank.  N must be the strategy's device count.\n"
    "Needs Debian's python3-torch (run by /usr/bin/python3, or $DNNPAR_PYTHON);\n"
    "without it the command stops with status 2.  Exit status 1 when a check\n"
    "fails.  Details: docs/torch.md.\n"
    "\n"
    "  --ranks N      processes, one per device of the strategy's cluster\n"
    "  --steps K      training steps (default 3)\n"
    "  --json FILE    the report as JSON (docs/torch.md); several strategies\n"
    "                 give {\"runs\": [...]}\n"
    CLI_SKIP_UNKNOWN_HELP
    "\n"
    "examples:\n"
    "  dnnpar plan lenet --cluster 1xtpu-v2+2xtpu-v3 --search owt --batch 12 --json s.json\n"
    "  dnnpar run-torch lenet s.json --ranks 3 --json run.json\n";

/* What the executor is told about one strategy: the model file, the batch,
 * each device's path down the tree (ratio and types per level) and
 * dnnpar's per-device communication (docs/torch.md "The run file"). */
static json_t *run_json(const dnp_plan *p, const dnp_device_comm *dc, int n_dev,
                        const char *model_file, const char *strategy, long long batch,
                        const char *cluster, int steps)
{
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string("dnnpar-torch-run"));
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "model_file", json_string(model_file));
    json_object_set_new(root, "strategy", json_string(strategy));
    json_object_set_new(root, "cluster", json_string(cluster));
    json_object_set_new(root, "batch", json_integer(batch));
    json_object_set_new(root, "steps", json_integer(steps));
    json_object_set_new(root, "ranks", json_integer(n_dev));
    json_t *nodes = json_array();
    for (int v = 0; v < dnp_plan_n_nodes(p); v++)
        json_array_append_new(nodes, json_string(dnp_plan_node_name(p, v)));
    json_object_set_new(root, "nodes", nodes);
    json_t *devs = json_array();
    for (int d = 0; d < n_dev; d++) {
        const dnp_device_comm *c = &dc[d];
        json_t *o = json_object(), *levels = json_array();
        json_object_set_new(o, "device", json_integer(d));
        json_object_set_new(o, "branch_bits", json_integer(c->branch_bits));
        for (int k = 0; k < c->depth; k++) {
            json_t *l = json_object(), *types = json_array();
            json_object_set_new(l, "level", json_integer(k));
            json_object_set_new(l, "side", json_integer((c->branch_bits >> k) & 1u));
            json_object_set_new(l, "ratio", json_real(dnp_plan_ratio(p, k, c->branch_bits)));
            for (int v = 0; v < dnp_plan_n_nodes(p); v++)
                json_array_append_new(types, json_integer(dnp_plan_type(p, k, c->branch_bits, v)));
            json_object_set_new(l, "types", types);
            json_array_append_new(levels, l);
        }
        json_object_set_new(o, "levels", levels);
        json_t *ps = json_object(), *pr = json_object(), *ar = json_object();
        for (int k = 0; k < DNP_XFER_COUNT; k++) {
            json_object_set_new(ps, dnp_xfer_kind_name((dnp_xfer_kind)k),
                                json_integer(c->p2p_sent_bytes[k]));
            json_object_set_new(pr, dnp_xfer_kind_name((dnp_xfer_kind)k),
                                json_integer(c->p2p_received_bytes[k]));
        }
        for (int q = 2; q <= DNP_DEVCOMM_MAX_DEVICES; q++)
            if (c->allreduce_bytes[q] != 0) {
                char key[16];
                snprintf(key, sizeof key, "%d", q);
                json_object_set_new(ar, key, json_integer(c->allreduce_bytes[q]));
            }
        json_object_set_new(o, "p2p_sent_bytes", ps);
        json_object_set_new(o, "p2p_received_bytes", pr);
        json_object_set_new(o, "allreduce_bytes", ar);
        json_object_set_new(o, "sent_bytes", json_real(c->sent_bytes));
        json_object_set_new(o, "received_bytes", json_real(c->received_bytes));
        json_object_set_new(o, "sim_received_bytes", isnan(c->sim_received_bytes)
                                                         ? json_null()
                                                         : json_real(c->sim_received_bytes));
        json_array_append_new(devs, o);
    }
    json_object_set_new(root, "devices", devs);
    return root;
}

/* Plan one strategy for g and write its run file into dir (as run<i>.json).
 * Returns an exit status (the error printed). */
static int prepare(const char *path, const dnp_graph *g, const char *model_file, long long ranks,
                   int steps, const char *dir, int i, char *run_file, size_t n)
{
    dnp_strategy *s = NULL;
    dnp_error err = {0};
    if (dnp_strategy_read(path, &s, &err) != DNP_OK) {
        /* PaSE's multi-dimension configurations are another format. */
        cli_error("run-torch", "%s%s", err.msg,
                  strstr(err.msg, "not a strategy") != NULL
                      ? " (PaSE strategies, from plan --search pase|mcmc, are not executable "
                        "yet: docs/torch.md)"
                      : "");
        return cli_exit_for(err.status);
    }
    int rc = 0;
    long long batch = dnp_strategy_batch(s);
    char spec_buf[4096];
    const char *spec = spec_buf;
    if (dnp_strategy_source(s, path, DNP_STRATEGY_CLUSTER, spec_buf, sizeof spec_buf, &err) !=
        DNP_OK) { /* untrusted: a spec or a regular file beside it */
        cli_error("run-torch", "%s", err.msg);
        dnp_strategy_free(s);
        return cli_exit_for(err.status);
    }
    dnp_cluster cl;
    dnp_plan *p = NULL;
    dnp_device_comm *dc = NULL;
    int n_dev = 0;
    if (batch <= 0 || spec == NULL) {
        cli_error("run-torch", "%s names no %s", path, batch <= 0 ? "batch" : "cluster");
        rc = EXIT_USAGE;
    } else if ((rc = cli_load_cluster("run-torch", spec, &cl)) == 0) {
        /* The executor computes in float32 (4-byte elements) whatever the
         * strategy was planned for. */
        dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = batch,
                                .precision = DNP_PREC_FP32};
        if (dnp_plan_run_strategy(g, &cl, &opt, s, &p, &err) != DNP_OK ||
            dnp_plan_device_comm(p, g, 4, &dc, &n_dev, &err) != DNP_OK) {
            cli_error("run-torch", "%s: %s", path, err.msg);
            rc = cli_exit_for(err.status);
        } else if (n_dev != ranks) {
            cli_error("run-torch", "%s plans for %d devices (cluster %s), not --ranks %lld", path,
                      n_dev, spec, ranks);
            rc = EXIT_USAGE;
        }
    }
    if (rc == 0) {
        int w = snprintf(run_file, n, "%s/run%d.json", dir, i);
        if (w < 0 || (size_t)w >= n) {
            cli_error("run-torch", "the directory name %s is too long", dir);
            rc = EXIT_USAGE;
        }
    }
    if (rc == 0) {
        json_t *j = run_json(p, dc, n_dev, model_file, path, batch, spec, steps);
        if (j == NULL || json_dump_file(j, run_file, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0) {
            cli_error("run-torch", "cannot write %s", run_file);
            rc = EXIT_RUNTIME;
        }
        json_decref(j);
    }
    dnp_free(dc);
    dnp_plan_free(p);
    dnp_strategy_free(s);
    return rc;
}

/* Run the interpreter on the package with the run files; returns its exit
 * status (2 if it cannot be started). */
static int run_python(const char *pkg, const char *json_out, char **run_files, int n_runs)
{
    const char *py = getenv("DNNPAR_PYTHON");
    if (py == NULL || *py == '\0')
        py = TORCH_PYTHON_DEFAULT;
    if (access(py, X_OK) != 0) {
        cli_error("run-torch", "cannot run %s: %s (install Debian's python3-torch: "
                               "scripts/install-deps.sh)",
                  py, strerror(errno));
        return EXIT_USAGE;
    }
    char *argv[TORCH_MAX_STRATEGIES + 8];
    int n = 0;
    argv[n++] = (char *)py;
    argv[n++] = "-m";
    argv[n++] = "dnnpar_torch";
    if (json_out != NULL) {
        argv[n++] = "--json";
        argv[n++] = (char *)json_out;
    }
    for (int i = 0; i < n_runs; i++)
        argv[n++] = run_files[i];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        cli_error("run-torch", "cannot start %s: %s", py, strerror(errno));
        return EXIT_RUNTIME;
    }
    if (pid == 0) {
        const char *old = getenv("PYTHONPATH");
        char buf[2 * PATH_MAX];
        snprintf(buf, sizeof buf, "%s%s%s", pkg, old && *old ? ":" : "", old ? old : "");
        setenv("PYTHONPATH", buf, 1);
        execv(py, argv);
        fprintf(stderr, "dnnpar run-torch: cannot run %s: %s\n", py, strerror(errno));
        _exit(EXIT_USAGE);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return EXIT_RUNTIME;
    if (WIFEXITED(status))
        return WEXITSTATUS(status) <= EXIT_USAGE ? WEXITSTATUS(status) : EXIT_RUNTIME;
    cli_error("run-torch", "%s was stopped by signal %d", py, WTERMSIG(status));
    return EXIT_RUNTIME;
}

int cmd_run_torch(int argc, char **argv)
{
    static const char *const valued[] = {"ranks", "steps", "json", NULL};
    static const char *const flags[] = {"help", "skip-unknown", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int rc = cli_parse(argc, argv, 2, &spec, "run-torch", &a);
    if (rc != 0)
        return rc;
    if (cli_flag(&a, "help")) {
        fputs(help, stdout);
        return EXIT_OK;
    }
    if (a.n_pos < 2 || a.n_pos > 1 + TORCH_MAX_STRATEGIES) {
        cli_error("run-torch", "expected MODEL and 1 to %d STRATEGY.json files (see dnnpar "
                               "run-torch --help)",
                  TORCH_MAX_STRATEGIES);
        return EXIT_USAGE;
    }
    const char *rt = cli_get(&a, "ranks"), *st = cli_get(&a, "steps");
    if (rt == NULL) {
        cli_error("run-torch", "--ranks N is required (the strategy's device count)");
        return EXIT_USAGE;
    }
    long long ranks = cli_positive("run-torch", "ranks", rt, DNP_DEVCOMM_MAX_DEVICES);
    long long steps = st ? cli_positive("run-torch", "steps", st, 1000) : TORCH_STEPS_DEFAULT;
    if (ranks < 0 || steps < 0)
        return EXIT_USAGE;
    char pkg[PATH_MAX];
    if (cli_find_python_package("dnnpar_torch", pkg, sizeof pkg) != 0) {
        cli_error("run-torch", "cannot find the dnnpar_torch package next to the binary "
                               "(../python or ../share/dnnpar/python): set DNNPAR_PYTHONPATH");
        return EXIT_USAGE;
    }
    dnp_graph *g = NULL;
    if ((rc = cli_load_model("run-torch", a.pos[0], &a, &g)) != 0)
        return rc;
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/dnnpar-torch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        cli_error("run-torch", "cannot make a directory in %s: %s", tmp && *tmp ? tmp : "/tmp",
                  strerror(errno));
        dnp_graph_free(g);
        return EXIT_RUNTIME;
    }
    char model_file[PATH_MAX + 16];
    snprintf(model_file, sizeof model_file, "%s/model.json", dir);
    char *text = dnp_model_to_json(g);
    FILE *f = text ? fopen(model_file, "w") : NULL;
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        cli_error("run-torch", "cannot write %s", model_file);
        rc = EXIT_RUNTIME;
    }
    dnp_free(text);
    int n_runs = 0;
    char run_files[TORCH_MAX_STRATEGIES][PATH_MAX + 16];
    char *run_ptrs[TORCH_MAX_STRATEGIES];
    for (int i = 1; rc == 0 && i < a.n_pos; i++) {
        rc = prepare(a.pos[i], g, model_file, ranks, (int)steps, dir, n_runs,
                     run_files[n_runs], sizeof run_files[n_runs]);
        run_ptrs[n_runs] = run_files[n_runs];
        n_runs += rc == 0;
    }
    dnp_graph_free(g);
    if (rc == 0)
        rc = run_python(pkg, cli_get(&a, "json"), run_ptrs, n_runs);
    for (int i = 0; i < n_runs; i++)
        unlink(run_files[i]);
    unlink(model_file);
    rmdir(dir);
    return rc;
}
