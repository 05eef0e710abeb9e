/* cmd_profile.c - `dnnpar profile --out FILE`: measure this machine with the
 * Python package python/dnnpar_profile (torch: GEMMs, element-wise kernels,
 * the per-op host cost, collectives between two local processes) and write
 * it as a cluster JSON file that --cluster reads; `dnnpar profile --check
 * FILE`: the measured GEMM times beside the model's on the profiled device
 * (docs/device-model.md, "Measured device profiles"). */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Debian's python3-torch installs for Debian's own interpreter. */
#define PROFILE_PYTHON_DEFAULT "/usr/bin/python3"
/* Most GEMM rows --check reads. */
#define PROFILE_MAX_ROWS 4096

static const char help[] =
    "usage: dnnpar profile --out FILE [--grid small|full] [--gemm mm|onednn]\n"
    "                      [--threads N] [--name NAME] [--date TEXT] [--time-limit S]\n"
    "       dnnpar profile --check FILE [--json FILE]\n"
    "\n"
    "--out: measure the machine torch runs on (its first CUDA device if torch sees\n"
    "one, else the CPU) and write a cluster JSON file describing it: a grid of fp32\n"
    "GEMM shapes (the best rate is peak_flops, with compute_eff 1), element-wise\n"
    "adds of growing size (mem_bw_bps, l2_bw_bps), a tiny op repeated\n"
    "(host_kernel_s, kernel_overhead_s), and all-reduce, all-gather and p2p between\n"
    "2 local processes over torch.distributed (the intra link: alpha-beta fit).\n"
    "sm_count is the number of threads (CPU) or multiprocessors (CUDA).  The file\n"
    "holds 2 devices (the processes measured) and a \"profile\" object with the\n"
    "raw measurements; --cluster FILE reads it.  Medians of several samples after\n"
    "a warm-up; timings vary from run to run.\n"
    "--check: for each GEMM shape of the profile, the measured time, the model's\n"
    "time on the profiled device (dnp_device_gemm_time_s) and their ratio; the\n"
    "Spearman correlation and the median |ln ratio| over the grid; and each\n"
    "collective measured beside dnnpar's prediction on the file's cluster.\n"
    "Needs Debian's python3-torch for --out (run by /usr/bin/python3, or\n"
    "$DNNPAR_PYTHON); without it the command stops with status 2.  Details:\n"
    "docs/device-model.md, \"Measured device profiles\".\n"
    "\n"
    "  --out FILE      the cluster JSON file to write\n"
    "  --grid G        small (default: m, n, k in 32..512, about 20 s on a CPU) or\n"
    "                  full (64..2048; shapes that would overrun the time budget\n"
    "                  are skipped and listed)\n"
    "  --gemm B        mm (default: torch.mm, what nn.Linear runs) or onednn\n"
    "                  (oneDNN's inner product on the CPU)\n"
    "  --threads N     torch.set_num_threads (default: the CPUs this process may\n"
    "                  use); each of the 2 communicating processes gets N/2\n"
    "  --name NAME     the device's name (default cpu-profile or cuda-profile)\n"
    "  --date TEXT     recorded in the profile (omitted by default)\n"
    "  --time-limit S  stop (status 1, nothing written) after S seconds (default\n"
    "                  600); the measurements are budgeted to stay well inside\n"
    "  --check FILE    compare a profile's GEMMs and collectives with the model\n"
    "  --json FILE     with --check: the comparison as JSON\n"
    "\n"
    "examples:\n"
    "  dnnpar profile --out dev.json\n"
    "  dnnpar profile --check dev.json\n"
    "  dnnpar comm allreduce --cluster dev.json --bytes 1M\n";

/* Run the profiler, killing it (and the ranks it spawned: its process
 * group) at the time limit.  Returns an exit status, the error printed. */
static int run_python(const char *pkg, char **pargv, double limit_s)
{
    const char *py = pargv[0];
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        cli_error("profile", "cannot start %s: %s", py, strerror(errno));
        return EXIT_RUNTIME;
    }
    if (pid == 0) {
        setpgid(0, 0);
        const char *old = getenv("PYTHONPATH");
        char buf[2 * PATH_MAX];
        snprintf(buf, sizeof buf, "%s%s%s", pkg, old && *old ? ":" : "", old ? old : "");
        setenv("PYTHONPATH", buf, 1);
        execv(py, pargv);
        fprintf(stderr, "dnnpar profile: cannot run %s: %s\n", py, strerror(errno));
        _exit(EXIT_USAGE);
    }
    setpgid(pid, pid); /* either side may win the race; both set the same group */
    const double start = cli_now_s();
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return EXIT_RUNTIME;
        if (cli_now_s() - start > limit_s) {
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            cli_error("profile", "stopped at --time-limit %.0f s; nothing written", limit_s);
            return EXIT_RUNTIME;
        }
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status) <= EXIT_USAGE ? WEXITSTATUS(status) : EXIT_RUNTIME;
    cli_error("profile", "%s was stopped by signal %d", py, WTERMSIG(status));
    return EXIT_RUNTIME;
}

/* The kernel-model fields the device objects carry beyond what this
 * dnnpar's cluster writer writes (cluster_json.c reads them once it knows
 * them; until then they are kept as the profiler wrote them). */
static const char *const k_extra_keys[] = {"sm_count", "l2_bw_bps", "host_kernel_s"};

/* The canonical file: the cluster as the library reads and writes it, plus
 * the extra device fields and the "profile" object of the profiler's file.
 * Returns the text (caller frees with dnp_free) or NULL, the error printed. */
static char *canonical(const char *raw_path, const dnp_cluster *cl)
{
    json_error_t jerr;
    json_t *raw = json_load_file(raw_path, 0, &jerr);
    char *text = dnp_cluster_to_json(cl);
    json_t *root = text ? json_loads(text, 0, &jerr) : NULL;
    dnp_free(text);
    char *out = NULL;
    if (raw == NULL || root == NULL) {
        cli_error("profile", "cannot read the profiler's output %s", raw_path);
        goto done;
    }
    json_t *devs = json_object_get(root, "devices"), *rdevs = json_object_get(raw, "devices");
    for (size_t i = 0; i < json_array_size(devs); i++) {
        json_t *d = json_array_get(devs, i), *rd = json_array_get(rdevs, i);
        for (size_t k = 0; k < sizeof k_extra_keys / sizeof k_extra_keys[0]; k++) {
            json_t *v = json_object_get(rd, k_extra_keys[k]);
            if (v != NULL && json_object_get(d, k_extra_keys[k]) == NULL)
                json_object_set(d, k_extra_keys[k], v);
        }
    }
    json_t *prof = json_object_get(raw, "profile");
    if (prof != NULL)
        json_object_set(root, "profile", prof);
    out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (out == NULL)
        cli_error("profile", "out of memory");
done:
    json_decref(raw);
    json_decref(root);
    return out;
}

static double num_at(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str_or(const char *s, const char *fallback) { return s ? s : fallback; }

/* The summary printed after --out. */
static void print_summary(const char *out, const dnp_cluster *cl, const json_t *root)
{
    const dnp_device_type *d = &cl->types[0];
    const json_t *dev = json_array_get(json_object_get(root, "devices"), 0);
    const json_t *prof = json_object_get(root, "profile");
    const json_t *der = json_object_get(prof, "derived");
    const char *backend = json_string_value(
        json_object_get(json_object_get(prof, "collectives"), "backend"));
    printf("wrote %s: device %s, %lld processes of this machine (%s, torch %s, %lld threads, "
           "BLAS %s, GEMMs by %s)\n",
           out, d->name, (long long)cl->counts[0],
           str_or(json_string_value(json_object_get(prof, "device")), "?"),
           str_or(json_string_value(json_object_get(prof, "torch_version")), "?"),
           (long long)json_integer_value(json_object_get(prof, "threads")),
           str_or(json_string_value(json_object_get(prof, "blas")), "?"),
           str_or(json_string_value(json_object_get(prof, "gemm_backend")), "?"));
    char a[32], b[32], c[32], e[32], f[32];
    cli_fmt_si(d->peak_flops, a, sizeof a);
    cli_fmt_si(d->mem_bw_bps, b, sizeof b);
    cli_fmt_si(num_at(dev, "l2_bw_bps"), c, sizeof c);
    cli_fmt_time(num_at(dev, "host_kernel_s"), e, sizeof e);
    cli_fmt_time(d->intra_lat_s, f, sizeof f);
    printf("  peak_flops     %sFLOP/s  (compute_eff 1: %s)\n", a,
           str_or(json_string_value(json_object_get(der, "peak_flops")), ""));
    printf("  sm_count       %.0f  (%s)\n", num_at(dev, "sm_count"),
           str_or(json_string_value(json_object_get(der, "sm_count")), ""));
    printf("  mem_bw_bps     %sB/s  (mem_eff 1: %s)\n", b,
           str_or(json_string_value(json_object_get(der, "mem_bw_bps")), ""));
    printf("  l2_bw_bps      %sB/s\n", c);
    printf("  host_kernel_s  %s (kernel_overhead_s the same on a CPU)\n", e);
    cli_fmt_si(d->intra_bw_bps, a, sizeof a);
    printf("  intra link     %sB/s, %s latency (p2p alpha-beta fit, %s)\n", a, f,
           backend ? backend : "?");
}

static int profile_out(const cli_args *a)
{
    const char *out = cli_get(a, "out");
    const char *grid = cli_get(a, "grid"), *gemm = cli_get(a, "gemm");
    const char *threads = cli_get(a, "threads"), *name = cli_get(a, "name");
    const char *date = cli_get(a, "date");
    double limit_s = CLI_TIME_LIMIT_DEFAULT_S;
    if (cli_time_limit("profile", a, &limit_s) != 0)
        return EXIT_USAGE;
    if (grid != NULL && strcmp(grid, "small") != 0 && strcmp(grid, "full") != 0) {
        static const char *const known[] = {"small", "full", NULL};
        return cli_unknown_name("profile", "--grid", grid, known);
    }
    if (gemm != NULL && strcmp(gemm, "mm") != 0 && strcmp(gemm, "onednn") != 0) {
        static const char *const known[] = {"mm", "onednn", NULL};
        return cli_unknown_name("profile", "--gemm", gemm, known);
    }
    if (threads != NULL && cli_positive("profile", "threads", threads, 4096) < 0)
        return EXIT_USAGE;
    if (name != NULL) {
        size_t n = strlen(name);
        int ok = n >= 1 && n <= 24;
        for (size_t i = 0; ok && i < n; i++) {
            char ch = name[i];
            ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '.' || ch == '-';
        }
        dnp_device_type p;
        dnp_error ignore = {0};
        if (!ok || dnp_device_preset(name, &p, &ignore) == DNP_OK) {
            cli_error("profile", "--name '%.80s': 1 to 24 letters, digits, '_', '.' or '-', and "
                                 "not a device preset's name",
                      name);
            return EXIT_USAGE;
        }
    }
    if (date != NULL && strlen(date) > 64) {
        cli_error("profile", "--date: at most 64 characters");
        return EXIT_USAGE;
    }
    /* a file that cannot be written is found before the measurements */
    if (strcmp(out, "-") != 0) {
        char dirbuf[PATH_MAX];
        snprintf(dirbuf, sizeof dirbuf, "%s", out);
        char *slash = strrchr(dirbuf, '/');
        const char *parent = slash == NULL ? "." : slash == dirbuf ? "/" : dirbuf;
        if (slash != NULL && slash != dirbuf)
            *slash = '\0';
        struct stat st;
        if (out[0] == '\0') {
            cli_error("profile", "--out needs a file name");
            return EXIT_USAGE;
        }
        if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
            cli_error("profile", "--out '%.200s' is a directory", out);
            return EXIT_USAGE;
        }
        if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode) || access(parent, W_OK) != 0) {
            cli_error("profile", "--out '%.200s': cannot write in %.200s", out, parent);
            return EXIT_USAGE;
        }
    }
    char pkg[PATH_MAX];
    if (cli_find_python_package("dnnpar_profile", pkg, sizeof pkg) != 0) {
        cli_error("profile", "cannot find the dnnpar_profile package next to the binary "
                             "(../python or ../share/dnnpar/python): set DNNPAR_PYTHONPATH");
        return EXIT_USAGE;
    }
    const char *py = getenv("DNNPAR_PYTHON");
    if (py == NULL || *py == '\0')
        py = PROFILE_PYTHON_DEFAULT;
    if (access(py, X_OK) != 0) {
        cli_error("profile", "cannot run %s: %s (install Debian's python3-torch: "
                             "scripts/install-deps.sh)",
                  py, strerror(errno));
        return EXIT_USAGE;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/dnnpar-profile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        cli_error("profile", "cannot make a directory in %s: %s", tmp && *tmp ? tmp : "/tmp",
                  strerror(errno));
        return EXIT_RUNTIME;
    }
    char raw[PATH_MAX + 16];
    snprintf(raw, sizeof raw, "%s/raw.json", dir);
    /* the measurements' budget: most of the limit, the rest for starting
     * python and torch in this process and the two ranks */
    char budget[32];
    snprintf(budget, sizeof budget, "%.3f", limit_s * 0.6);
    char *pargv[20];
    int n = 0;
    pargv[n++] = (char *)py;
    pargv[n++] = "-m";
    pargv[n++] = "dnnpar_profile";
    pargv[n++] = "--raw";
    pargv[n++] = raw;
    pargv[n++] = "--budget";
    pargv[n++] = budget;
    const char *pass[][2] = {{"--grid", grid}, {"--gemm", gemm}, {"--threads", threads},
                             {"--name", name}, {"--date", date}};
    for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++)
        if (pass[i][1] != NULL) {
            pargv[n++] = (char *)pass[i][0];
            pargv[n++] = (char *)pass[i][1];
        }
    pargv[n] = NULL;
    int rc = run_python(pkg, pargv, limit_s);
    dnp_cluster cl;
    char *text = NULL;
    if (rc == 0) {
        dnp_error err = {0};
        if (dnp_cluster_read_json(raw, &cl, &err) != DNP_OK) {
            cli_error("profile", "the profiler's file does not read as a cluster: %s", err.msg);
            rc = EXIT_RUNTIME;
        } else if ((text = canonical(raw, &cl)) == NULL) {
            rc = EXIT_RUNTIME;
        }
    }
    if (rc == 0 && (rc = cli_write_text("profile", out, text)) == 0 && strcmp(out, "-") != 0) {
        json_error_t jerr;
        json_t *root = json_loads(text, 0, &jerr);
        if (root != NULL)
            print_summary(out, &cl, root);
        json_decref(root);
    }
    dnp_free(text);
    unlink(raw);
    rmdir(dir);
    return rc;
}

/* ---- --check ---------------------------------------------------------- */

typedef struct {
    double m, n, k, measured_s, model_s;
} gemm_row;

/* Ranks (1-based, ties averaged) of x[0..n) into r. O(n^2): n is small. */
static void ranks_of(const double *x, int n, double *r)
{
    for (int i = 0; i < n; i++) {
        double less = 0, equal = 0;
        for (int j = 0; j < n; j++) {
            less += x[j] < x[i];
            equal += x[j] == x[i];
        }
        r[i] = less + (equal + 1.0) / 2.0;
    }
}

/* Spearman's rank correlation: Pearson's correlation of the ranks
 * (C. Spearman, "The proof and measurement of association between two
 * things", Am. J. Psychol. 15, 1904; ties by averaged ranks). */
static double spearman(const double *x, const double *y, int n, double *work)
{
    double *rx = work, *ry = work + n;
    ranks_of(x, n, rx);
    ranks_of(y, n, ry);
    double mx = 0, my = 0;
    for (int i = 0; i < n; i++) {
        mx += rx[i] / n;
        my += ry[i] / n;
    }
    double sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* A dimension of a GEMM row: a number in 1 .. 1e7. */
static int dim_ok(double v) { return isfinite(v) && v >= 1.0 && v <= 1e7; }

static int profile_check(const cli_args *a)
{
    const char *path = cli_get(a, "check"), *json_out = cli_get(a, "json");
    dnp_cluster cl;
    dnp_error err = {0};
    if (dnp_cluster_read_json(path, &cl, &err) != DNP_OK) {
        cli_error("profile", "%s", err.msg);
        return cli_exit_for(err.status);
    }
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    const json_t *prof = json_object_get(root, "profile");
    const json_t *rows = json_object_get(prof, "gemm");
    if (cl.n_types != 1 || !json_is_object(prof) || !json_is_array(rows) ||
        json_array_size(rows) < 2 || json_array_size(rows) > PROFILE_MAX_ROWS) {
        cli_error("profile", "%.200s: not a profile (one device type and a \"profile\" object "
                             "with 2 to %d \"gemm\" rows, as dnnpar profile --out writes)",
                  path, PROFILE_MAX_ROWS);
        json_decref(root);
        return EXIT_USAGE;
    }
    /* The kernel-model figures, from the file where this dnnpar's cluster
     * reader leaves them 0 (it does not read them yet). */
    dnp_device_type d = cl.types[0];
    const json_t *dev = json_array_get(json_object_get(root, "devices"), 0);
    int from_file = 0;
    double sm = num_at(dev, "sm_count"), l2 = num_at(dev, "l2_bw_bps"),
           host = num_at(dev, "host_kernel_s");
    if (d.sm_count == 0 && isfinite(sm) && sm >= 1 && sm <= 1e6) {
        d.sm_count = (int)sm;
        from_file = 1;
    }
    if (d.l2_bw_bps == 0 && isfinite(l2) && l2 > 0) {
        d.l2_bw_bps = l2;
        from_file = 1;
    }
    if (d.host_kernel_s == 0 && isfinite(host) && host > 0) {
        d.host_kernel_s = host;
        from_file = 1;
    }
    int n = (int)json_array_size(rows);
    gemm_row *g = dnp_malloc((size_t)n * sizeof *g);
    double *work = dnp_malloc((size_t)n * 4 * sizeof *work);
    if (g == NULL || work == NULL) {
        cli_error("profile", "out of memory");
        dnp_free(g);
        dnp_free(work);
        json_decref(root);
        return EXIT_RUNTIME;
    }
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        const json_t *r = json_array_get(rows, (size_t)i);
        g[i].m = num_at(r, "m");
        g[i].n = num_at(r, "n");
        g[i].k = num_at(r, "k");
        g[i].measured_s = num_at(r, "time_s");
        if (!dim_ok(g[i].m) || !dim_ok(g[i].n) || !dim_ok(g[i].k) ||
            !(isfinite(g[i].measured_s) && g[i].measured_s > 0)) {
            cli_error("profile", "%.200s: profile.gemm[%d] needs m, n, k in 1 .. 1e7 and a "
                                 "positive time_s",
                      path, i);
            rc = EXIT_USAGE;
            break;
        }
        g[i].model_s = dnp_device_gemm_time_s(&d, DNP_PREC_FP32, 1.0, g[i].m, g[i].n, g[i].k);
    }
    double rho = NAN, med_log = NAN;
    if (rc == 0) {
        for (int i = 0; i < n; i++) {
            work[2 * n + i] = g[i].measured_s;
            work[3 * n + i] = g[i].model_s;
        }
        rho = spearman(work + 2 * n, work + 3 * n, n, work);
        for (int i = 0; i < n; i++)
            work[i] = fabs(log(g[i].model_s / g[i].measured_s));
        med_log = median_of(work, n);
    }
    /* Collectives: measured beside dnnpar's prediction on the file's cluster. */
    dnp_comm_group grp;
    dnp_cluster_comm_group(&cl, &grp);
    static const struct {
        const char *key;
        dnp_coll_op op;
    } colls[] = {{"allreduce", DNP_COLL_ALLREDUCE},
                 {"allgather", DNP_COLL_ALLGATHER},
                 {"p2p", DNP_COLL_P2P}};
    const json_t *cm =
        json_object_get(json_object_get(prof, "collectives"), "measured");
    json_t *jcoll = json_array();
    for (size_t c = 0; rc == 0 && c < sizeof colls / sizeof colls[0]; c++) {
        const json_t *arr = json_object_get(cm, colls[c].key);
        for (size_t i = 0; i < json_array_size(arr) && i < 64; i++) {
            const json_t *r = json_array_get(arr, i);
            double bytes = num_at(r, "bytes"), t = num_at(r, "time_s");
            if (!(isfinite(bytes) && bytes > 0 && bytes <= 1e15 && isfinite(t) && t > 0))
                continue;
            dnp_coll_cost cost;
            dnp_coll_estimate(colls[c].op, &grp, bytes, &cost);
            json_array_append_new(jcoll, json_pack("{s:s,s:f,s:f,s:f,s:f}", "op", colls[c].key,
                                                   "bytes", bytes, "measured_s", t, "model_s",
                                                   cost.time_s, "ratio", cost.time_s / t));
        }
    }
    json_t *rep = NULL;
    if (rc == 0) {
        json_t *jg = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(jg, json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}", "m", g[i].m, "n",
                                                g[i].n, "k", g[i].k, "measured_s",
                                                g[i].measured_s, "model_s", g[i].model_s,
                                                "ratio", g[i].model_s / g[i].measured_s));
        rep = json_pack("{s:s,s:s,s:i,s:i,s:o,s:o,s:o,s:o}", "profile", path, "device", d.name,
                        "sm_count", d.sm_count, "gemm_shapes", n, "spearman",
                        isfinite(rho) ? json_real(rho) : json_null(), "median_abs_log_ratio",
                        json_real(med_log), "gemm", jg, "collectives", jcoll);
        jcoll = NULL;
    }
    json_decref(jcoll);
    if (rc == 0 && rep == NULL) {
        cli_error("profile", "out of memory");
        rc = EXIT_RUNTIME;
    }
    if (rc == 0 && json_out != NULL)
        rc = cli_write_json("profile", json_out, json_incref(rep));
    if (rc == 0 && (json_out == NULL || strcmp(json_out, "-") != 0)) {
        char pk[32];
        cli_fmt_si(d.peak_flops * (d.compute_eff > 0 ? d.compute_eff : 1.0), pk, sizeof pk);
        if (from_file)
            fprintf(stderr, "dnnpar profile: note: sm_count, l2_bw_bps and host_kernel_s taken "
                            "from %.200s (this dnnpar's cluster reader does not read them)\n",
                    path);
        cli_wrapf(stdout, 0, "  ",
                  "GEMMs of %s on device %s (model: ceiling %sFLOP/s, sm_count %d, tiles and "
                  "waves, operand roofline):",
                  path, d.name, pk, d.sm_count);
        /* one time unit per table (docs/cli.md): the largest time's */
        double tmax = 0, per_s = 1;
        for (int i = 0; i < n; i++)
            tmax = fmax(tmax, fmax(g[i].measured_s, g[i].model_s));
        const char *unit = cli_time_unit(tmax, &per_s);
        char hm[32], hp[32];
        snprintf(hm, sizeof hm, "measured (%s)", unit);
        snprintf(hp, sizeof hp, "model (%s)", unit);
        const char *align = "rrrrrr";
        const char *head[] = {"m", "n", "k", hm, hp, "model/measured"};
        cli_table *t = cli_table_new(6, align, head);
        for (int i = 0; t != NULL && i < n; i++) {
            char c[6][32];
            snprintf(c[0], 32, "%.0f", g[i].m);
            snprintf(c[1], 32, "%.0f", g[i].n);
            snprintf(c[2], 32, "%.0f", g[i].k);
            snprintf(c[3], 32, "%.4g", g[i].measured_s * per_s);
            snprintf(c[4], 32, "%.4g", g[i].model_s * per_s);
            snprintf(c[5], 32, "%.3f", g[i].model_s / g[i].measured_s);
            const char *cells[] = {c[0], c[1], c[2], c[3], c[4], c[5]};
            cli_table_add(t, cells);
        }
        if (t != NULL)
            cli_table_print(t, stdout, CLI_MAX_WIDTH, -1);
        cli_table_free(t);
        printf("spearman(measured, model) = %.3f over %d shapes; median |ln(model/measured)| = "
               "%.3f (x%.2f)\n",
               rho, n, med_log, exp(med_log));
        json_t *jc = json_object_get(rep, "collectives");
        if (json_array_size(jc) > 0) {
            cli_wrapf(stdout, 0, "  ", "collectives (measured, and dnnpar comm on the "
                                       "cluster of %s):", path);
            tmax = 0;
            for (size_t i = 0; i < json_array_size(jc); i++)
                tmax = fmax(tmax, fmax(num_at(json_array_get(jc, i), "measured_s"),
                                       num_at(json_array_get(jc, i), "model_s")));
            unit = cli_time_unit(tmax, &per_s);
            snprintf(hm, sizeof hm, "measured (%s)", unit);
            snprintf(hp, sizeof hp, "model (%s)", unit);
            const char *h2[] = {"op", "bytes", hm, hp, "model/measured"};
            cli_table *t2 = cli_table_new(5, "lrrrr", h2);
            for (size_t i = 0; t2 != NULL && i < json_array_size(jc); i++) {
                const json_t *r = json_array_get(jc, i);
                char c[5][32];
                snprintf(c[0], 32, "%s", json_string_value(json_object_get(r, "op")));
                snprintf(c[1], 32, "%.0f", num_at(r, "bytes"));
                snprintf(c[2], 32, "%.4g", num_at(r, "measured_s") * per_s);
                snprintf(c[3], 32, "%.4g", num_at(r, "model_s") * per_s);
                snprintf(c[4], 32, "%.3f", num_at(r, "ratio"));
                const char *cells[] = {c[0], c[1], c[2], c[3], c[4]};
                cli_table_add(t2, cells);
            }
            if (t2 != NULL)
                cli_table_print(t2, stdout, CLI_MAX_WIDTH, -1);
            cli_table_free(t2);
        }
    }
    json_decref(rep);
    dnp_free(g);
    dnp_free(work);
    json_decref(root);
    return rc;
}

int cmd_profile(int argc, char **argv)
{
    static const char *const valued[] = {"out",  "grid", "gemm",       "threads", "name",
                                         "date", "check", "time-limit", "json",    NULL};
    static const char *const flags[] = {"help", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done = 0;
    int rc = cli_begin(argc, argv, &spec, "profile", help, 0, "no positional arguments", &a,
                       &done);
    if (rc != 0 || done)
        return rc;
    const char *out = cli_get(&a, "out"), *check = cli_get(&a, "check");
    if ((out == NULL) == (check == NULL)) {
        cli_error("profile", "give either --out FILE (measure this machine) or --check FILE "
                             "(compare a profile with the model)");
        return EXIT_USAGE;
    }
    if (check != NULL) {
        static const char *const out_only[] = {"grid", "gemm", "threads", "name", "date",
                                               "time-limit"};
        for (size_t i = 0; i < sizeof out_only / sizeof out_only[0]; i++)
            if (cli_get(&a, out_only[i]) != NULL) {
                cli_error("profile", "--%s applies to --out, not --check", out_only[i]);
                return EXIT_USAGE;
            }
        return profile_check(&a);
    }
    if (cli_get(&a, "json") != NULL) {
        cli_error("profile", "--json applies to --check (--out writes the profile itself)");
        return EXIT_USAGE;
    }
    return profile_out(&a);
}
