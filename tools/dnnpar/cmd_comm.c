/* cmd_comm.c - `dnnpar comm OP --cluster C --bytes N[,N...]`: the predicted
 * time and bandwidths of one collective on all devices of a cluster, one
 * row per size, like nccl-tests (docs/collectives.md). */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: dnnpar comm OP --cluster SPEC --bytes N[,N...]|B:E[:F] [--ranks R]\n"
    "                   [--group FIRST:COUNT[:STRIDE]] [--json FILE]\n"
    "       dnnpar comm OP --cluster SPEC --measured FILE [--ranks R | --group ...]\n"
    "\n"
    "Predict one collective on all devices of the cluster with the alpha-beta\n"
    "models of docs/collectives.md and print, like nccl-tests, one row per size:\n"
    "size (bytes), time (us), algbw and busbw (GB/s = 1e9 bytes/s) and the\n"
    "algorithm chosen (the fastest predicted, as NCCL picks).\n"
    "\n"
    "OP is allreduce, reducescatter, allgather, alltoall, broadcast or p2p\n"
    "(case-insensitive; '-' and '_' are ignored: all-reduce, all_reduce).\n"
    "Sizes follow nccl-tests: all-reduce and broadcast the whole buffer,\n"
    "reduce-scatter its input, all-gather its output, all-to-all the buffer\n"
    "each rank sends, p2p one message.  N is an integer with an optional\n"
    "suffix K, M or G (powers of 2: 1K = 1024, as nccl-tests -b/-e read them),\n"
    "at most 1P (2^50); 0 gives time 0.  --bytes B:E[:F] sweeps as nccl-tests'\n"
    "-b B -e E -f F do: B, B F, B F^2, ... up to E (F an integer >= 2, default\n"
    "2; at most 4096 sizes).  --ranks R runs the collective on the first R\n"
    "devices of the cluster (its order: nodes filled in turn) instead of all.\n"
    "--group F:N[:S] runs it on the N devices F, F+S, ..., F+(N-1)S (S default\n"
    "1) with the links they span (rails, torus rows; docs/collectives.md):\n"
    "Megatron's data-parallel group over 4 dgx-a100 is 0:4:8.\n"
    "The table ends with nccl-tests' footer, the average bus bandwidth over\n"
    "the sizes.\n"
    "--json FILE writes [{\"op\", \"bytes\", \"time_s\", \"algbw_Bps\", \"busbw_Bps\",\n"
    "\"algorithm\"}] (SI units); --json - writes it instead of the table.\n"
    "--measured FILE sets the model beside a measurement: FILE is the output of\n"
    "an nccl-tests run of OP (all_reduce_perf ...) on the same devices; its sizes\n"
    "replace --bytes, and each row gives the measured and predicted time, the\n"
    "error and both bus bandwidths, then the alpha-beta line fitted to each and\n"
    "the link figures that would make the model's line the measured one\n"
    "(docs/collectives.md, \"Your own measurements\"; with --json, \"measured_s\"\n"
    "is added to each row).\n"
    "\n"
    "examples:\n"
    "  dnnpar comm allreduce --cluster '8xcustom(name=g,tflops=100,net_gbps=800)' \\\n"
    "      --bytes 1K,1M,1G\n"
    "  dnnpar comm all-gather --cluster cluster.json --bytes 64M --json -\n"
    "  dnnpar comm allreduce --cluster 2xdgx-a100 --bytes 8:1G:2 --ranks 8\n"
    "  dnnpar comm allreduce --cluster '4xdgx-a100(net=rail,net.oversub=2)' \\\n"
    "      --bytes 1G --group 0:4:9\n"
    "  dnnpar comm allreduce --cluster 1xdgx-a100-80g --ranks 8 \\\n"
    "      --measured data/measured/a100-allreduce-8gpu-vtrain.txt\n";

#define MAX_BYTES (1LL << 50)

/* Parse one size: digits and an optional K/M/G suffix (either case).
 * Returns 0 and *out on success, -1 on a malformed or too large value. */
static int parse_size(const char *s, size_t len, long long *out)
{
    size_t i = 0;
    long long v = 0;
    if (len == 0 || !isdigit((unsigned char)s[0]))
        return -1;
    for (; i < len && isdigit((unsigned char)s[i]); i++) {
        v = v * 10 + (s[i] - '0');
        if (v > MAX_BYTES)
            return -1;
    }
    long long mult = 1;
    if (i < len) {
        char u = (char)toupper((unsigned char)s[i]);
        mult = u == 'K' ? 1LL << 10 : u == 'M' ? 1LL << 20 : u == 'G' ? 1LL << 30 : 0;
        if (mult == 0 || i + 1 != len)
            return -1;
    }
    if (v > MAX_BYTES / mult)
        return -1;
    *out = v * mult;
    return 0;
}

#define MAX_SWEEP 4096

/* A sweep "B:E[:F]" (nccl-tests -b -e -f) into a new array: B, B F, ...
 * while <= E.  Prints the error.  Returns an exit status. */
static int parse_sweep(const char *text, long long **sizes, int *n)
{
    const char *c1 = strchr(text, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    long long b = 0, e = 0, f = 2;
    if (parse_size(text, (size_t)(c1 - text), &b) != 0 ||
        parse_size(c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1), &e) != 0 ||
        (c2 != NULL && (parse_size(c2 + 1, strlen(c2 + 1), &f) != 0 || f < 2 || f > 1024)) ||
        b < 1 || e < b) {
        cli_error("comm", "--bytes '%.80s': a sweep is B:E[:F], sizes 1 <= B <= E (K, M, G "
                          "suffixes) and an integer factor F from 2 to 1024", text);
        return EXIT_USAGE;
    }
    int k = 0;
    for (long long v = b; v <= e && k <= MAX_SWEEP; v = v > e / f ? e + 1 : v * f)
        k++;
    if (k > MAX_SWEEP) {
        cli_error("comm", "--bytes '%.80s' gives more than %d sizes", text, MAX_SWEEP);
        return EXIT_USAGE;
    }
    long long *v = dnp_malloc((size_t)k * sizeof *v);
    if (v == NULL) {
        cli_error("comm", "out of memory");
        return EXIT_RUNTIME;
    }
    k = 0;
    for (long long x = b; x <= e; x = x > e / f ? e + 1 : x * f)
        v[k++] = x;
    *sizes = v;
    *n = k;
    return EXIT_OK;
}

/* Parse the --bytes list (or sweep) into a new array (*sizes, *n).  Prints
 * the error naming the item.  Returns an exit status. */
static int parse_sizes(const char *text, long long **sizes, int *n)
{
    if (strchr(text, ':') != NULL)
        return parse_sweep(text, sizes, n);
    int cap = 1;
    for (const char *c = text; *c != '\0'; c++)
        cap += *c == ',';
    long long *v = dnp_malloc((size_t)cap * sizeof *v);
    if (v == NULL) {
        cli_error("comm", "out of memory");
        return EXIT_RUNTIME;
    }
    int k = 0;
    const char *item = text;
    for (;;) {
        const char *end = strchr(item, ',');
        size_t len = end ? (size_t)(end - item) : strlen(item);
        if (parse_size(item, len, &v[k]) != 0) {
            cli_error("comm",
                      "--bytes item %d '%.*s' is not a size: expected an integer with an "
                      "optional K, M or G suffix, at most 1125899906842624 (1P)",
                      k + 1, (int)len, item);
            dnp_free(v);
            return EXIT_USAGE;
        }
        k++;
        if (end == NULL)
            break;
        item = end + 1;
    }
    *sizes = v;
    *n = k;
    return EXIT_OK;
}

static const char *topo_name(dnp_link_topo t)
{
    switch (t) {
    case DNP_TOPO_SWITCH:
        return "switch";
    case DNP_TOPO_RING:
        return "ring";
    case DNP_TOPO_TORUS2D:
        return "torus-2d";
    default:
        return "none";
    }
}

/* --group "F:N[:S]" into first, count, stride (each checked against the
 * cluster's devices).  Prints the error.  Returns an exit status. */
static int parse_group(const char *text, long long devices, long long *first, long long *count,
                       long long *stride)
{
    char *end = NULL;
    errno = 0;
    long long v[3] = {0, 0, 1};
    const char *c = text;
    int k = 0;
    for (; k < 3; k++) {
        if (!isdigit((unsigned char)*c))
            break;
        v[k] = strtoll(c, &end, 10);
        if (errno != 0)
            break;
        c = end;
        if (*c != ':')
            break;
        c++;
    }
    if (k < 1 || k > 2 || *c != '\0' || errno != 0 || v[1] < 1 || v[2] < 1 ||
        v[0] >= devices || v[1] > devices || (v[1] - 1) > (devices - 1 - v[0]) / v[2]) {
        cli_error("comm", "--group '%.40s': want FIRST:COUNT[:STRIDE] (COUNT, STRIDE >= 1; "
                          "ranks below the cluster's %lld devices)", text, devices);
        return EXIT_USAGE;
    }
    *first = v[0];
    *count = v[1];
    *stride = v[2];
    return EXIT_OK;
}

static void print_header(dnp_coll_op op, const dnp_cluster *cl, const dnp_comm_group *g)
{
    char *spec = cli_cluster_spec(cl);
    long long members = (long long)(g->n_nodes * g->per_node);
    cli_wrapf(stdout, 0, "#   ", "# %s on %s: %lld member%s = %lld node%s x %lld per node",
              dnp_coll_name(op), spec != NULL ? spec : "(out of memory)", members,
              members == 1 ? "" : "s", (long long)g->n_nodes, g->n_nodes == 1 ? "" : "s",
              (long long)g->per_node);
    dnp_free(spec);
    if (g->per_node > 1 && g->shape[0] > 0)
        printf("# intra: %s %lldx%lld, %.6g GB/s per device per direction, %.6g us\n",
               topo_name(g->intra_topo), (long long)g->shape[0], (long long)g->shape[1],
               g->intra_bw_bps / 1e9, g->intra_lat_s * 1e6);
    else if (g->per_node > 1)
        printf("# intra: %s, %.6g GB/s per device per direction, %.6g us\n",
               topo_name(g->intra_topo), g->intra_bw_bps / 1e9, g->intra_lat_s * 1e6);
    if (g->n_nodes > 1)
        printf("# inter: %.6g GB/s per device per direction, %.6g us\n", g->inter_bw_bps / 1e9,
               g->inter_lat_s * 1e6);
    double eff_intra, eff_net;
    dnp_coll_link_efficiency(&eff_intra, &eff_net);
    printf("# achieved: %.3g of the intra rate, %.3g of the network rate (NCCL's maintainers' "
           "measurements, docs/collectives.md)\n", eff_intra, eff_net);
}

/* The rows under the '#' header of nccl-tests' format: columns sized to
 * their content (cli_table), the header's first column the '#'.  O(n). */
static void print_rows(const long long *sizes, const dnp_coll_cost *cost, int n)
{
    static const char *const header[] = {"#", "size(B)", "time(us)", "algbw(GB/s)",
                                         "busbw(GB/s)", "algorithm"};
    cli_table *t = cli_table_new(6, "lrrrrl", header);
    for (int i = 0; i < n && t != NULL; i++) {
        char b[32], tu[32], alg[32], bus[32];
        snprintf(b, sizeof b, "%lld", sizes[i]);
        snprintf(tu, sizeof tu, "%.3f", cost[i].time_s * 1e6);
        snprintf(alg, sizeof alg, "%.3f", cost[i].algbw_bps / 1e9);
        snprintf(bus, sizeof bus, "%.3f", cost[i].busbw_bps / 1e9);
        const char *row[] = {"", b, tu, alg, bus, cost[i].algorithm};
        if (cli_table_add(t, row) != 0) {
            cli_table_free(t);
            t = NULL;
        }
    }
    if (t == NULL) {
        cli_error("comm", "out of memory printing the table");
        return;
    }
    cli_table_print(t, stdout, CLI_MAX_WIDTH, -1);
    cli_table_free(t);
    /* nccl-tests' footer: the mean of the rows' bus bandwidths */
    double sum = 0.0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(cost[i].busbw_bps)) {
            sum += cost[i].busbw_bps;
            m++;
        }
    if (m > 0)
        printf("# Avg bus bandwidth    : %.3f GB/s\n", sum / m / 1e9);
}

/* --measured: each measured size beside the model (measured and predicted
 * time, error, both bus bandwidths), the mean and largest error, the
 * alpha-beta line fitted to each (dnp_coll_fit) and the figures of the
 * tier that bounds the group that would put the model's line on the
 * measured one: the rate scaled by measured / predicted fitted rate, the
 * latency by the ratio of the intercepts (both exact for a ring on one
 * tier, whose time is steps x latency + bytes x factor / rate).  O(n). */
static void print_measured(const char *file, const dnp_coll_sample *m, const dnp_coll_cost *cost,
                           int n, const dnp_comm_group *g)
{
    static const char *const header[] = {"#",           "size(B)",           "measured(us)",
                                         "predicted(us)", "error",          "busbw measured(GB/s)",
                                         "busbw predicted(GB/s)", "algorithm"};
    cli_table *t = cli_table_new(8, "lrrrrrrl", header);
    double sum_err = 0.0, worst = 0.0, bus_m = 0.0, bus_p = 0.0, worst_bytes = 0.0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        /* nccl-tests' busbw: algbw times the op's bus factor, the model's own */
        double factor = cost[i].algbw_bps > 0.0 ? cost[i].busbw_bps / cost[i].algbw_bps : 1.0;
        double bm = m[i].bytes / m[i].time_s * factor;
        double e = cost[i].time_s / m[i].time_s - 1.0;
        char b[32], tm[32], tp[32], er[32], mb[32], pb[32];
        snprintf(b, sizeof b, "%.0f", m[i].bytes);
        snprintf(tm, sizeof tm, "%.3f", m[i].time_s * 1e6);
        snprintf(tp, sizeof tp, "%.3f", cost[i].time_s * 1e6);
        snprintf(er, sizeof er, "%+.1f%%", 100.0 * e);
        snprintf(mb, sizeof mb, "%.3f", bm / 1e9);
        snprintf(pb, sizeof pb, "%.3f", cost[i].busbw_bps / 1e9);
        const char *row[] = {"", b, tm, tp, er, mb, pb, cost[i].algorithm};
        if (t != NULL && cli_table_add(t, row) != 0) {
            cli_table_free(t);
            t = NULL;
        }
        if (isfinite(e)) {
            sum_err += fabs(e);
            if (fabs(e) > fabs(worst)) {
                worst = e;
                worst_bytes = m[i].bytes;
            }
            bus_m += bm;
            bus_p += cost[i].busbw_bps;
            k++;
        }
    }
    if (t == NULL) {
        cli_error("comm", "out of memory printing the table");
        return;
    }
    printf("# measured: %s, %d size%s\n", file, n, n == 1 ? "" : "s");
    cli_table_print(t, stdout, CLI_MAX_WIDTH, -1);
    cli_table_free(t);
    if (k == 0)
        return;
    printf("# Avg bus bandwidth    : %.3f GB/s measured, %.3f GB/s predicted\n", bus_m / k / 1e9,
           bus_p / k / 1e9);
    printf("# error: mean |error| %.1f%%, largest %+.1f%% at %.0f bytes\n", 100.0 * sum_err / k,
           100.0 * worst, worst_bytes);
    dnp_coll_sample *p = dnp_malloc((size_t)n * sizeof *p);
    double am = 0.0, rm = 0.0, ap = 0.0, rp = 0.0;
    int fit_ok = p != NULL;
    for (int i = 0; fit_ok && i < n; i++)
        p[i] = (dnp_coll_sample){m[i].bytes, cost[i].time_s};
    fit_ok = fit_ok && dnp_coll_fit(m, n, &am, &rm) == 0 && dnp_coll_fit(p, n, &ap, &rp) == 0;
    dnp_free(p);
    if (!fit_ok) {
        printf("# fit: none (fewer than one size with a positive time and slope)\n");
        return;
    }
    printf("# fit t = alpha + size / rate (least squares on relative residuals):\n"
           "#   measured  %10.3f us + size / %.3f GB/s\n"
           "#   predicted %10.3f us + size / %.3f GB/s\n",
           am * 1e6, rm / 1e9, ap * 1e6, rp / 1e9);
    double r = rm / rp, l = ap > 0.0 ? am / ap : NAN;
    if (g->n_nodes > 1) {
        /* the network tier bounds a group across nodes */
        printf("# the network tier's figures that give the measured line (exact when it alone "
               "bounds the\n#   collective): inter_gbps=%.4g", g->inter_bw_bps * r * 8.0 / 1e9);
        if (isfinite(l) && g->inter_lat_s > 0.0)
            printf(",inter_lat_us=%.4g", g->inter_lat_s * l * 1e6);
    } else {
        printf("# the intra-node tier's figures that give the measured line: intra_gbps=%.4g",
               g->intra_bw_bps * r / 1e9);
        if (isfinite(l) && g->intra_lat_s > 0.0)
            printf(",intra_lat_us=%.4g", g->intra_lat_s * l * 1e6);
    }
    printf("\n");
}

/* The first `ranks` devices of cl (its order), as a cluster of their
 * own.  Returns 0, or -1 if ranks exceeds the cluster's devices. */
static int first_ranks(const dnp_cluster *cl, long long ranks, dnp_cluster *out)
{
    *out = *cl;
    long long left = ranks;
    int k = 0;
    for (; k < cl->n_types && left > 0; k++) {
        long long take = cl->counts[k] < left ? cl->counts[k] : left;
        out->counts[k] = take;
        left -= take;
    }
    out->n_types = k;
    return left > 0 ? -1 : 0;
}

static json_t *real_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

int cmd_comm(int argc, char **argv)
{
    static const char *const valued[] = {"cluster", "bytes", "json", "ranks", "group", "measured",
                                         NULL};
    static const char *const flags[] = {"help", NULL};
    cli_spec spec = {valued, flags};
    cli_args a;
    int done, rc = cli_begin(argc, argv, &spec, "comm", help, 1, "one OP", &a, &done);
    if (rc != 0 || done)
        return rc;
    int op = dnp_coll_from_name(a.pos[0]);
    if (op < 0) {
        static const char *const known[] = {"allreduce", "reducescatter", "allgather",
                                            "alltoall",  "broadcast",     "p2p",       NULL};
        return cli_unknown_name("comm", "collective", a.pos[0], known);
    }
    const char *bytes_text = cli_get(&a, "bytes"), *measured = cli_get(&a, "measured");
    if (bytes_text == NULL && measured == NULL) {
        cli_error("comm", "--bytes is required, e.g. --bytes 1K,1M,1G (or --measured FILE)");
        return EXIT_USAGE;
    }
    if (bytes_text != NULL && measured != NULL) {
        cli_error("comm", "--bytes and --measured both give the sizes: give one");
        return EXIT_USAGE;
    }
    dnp_cluster cl;
    if ((rc = cli_load_cluster("comm", cli_get(&a, "cluster"), &cl)) != 0)
        return rc;
    const char *ranks_text = cli_get(&a, "ranks"), *group_text = cli_get(&a, "group");
    long long g_first = 0, g_count = 0, g_stride = 1;
    if (ranks_text != NULL && group_text != NULL) {
        cli_error("comm", "--ranks and --group both choose the members: give one");
        return EXIT_USAGE;
    }
    if (group_text != NULL &&
        (rc = parse_group(group_text, dnp_cluster_devices(&cl), &g_first, &g_count, &g_stride)) !=
            0)
        return rc;
    if (ranks_text != NULL) {
        long long total = dnp_cluster_devices(&cl);
        long long r = cli_positive("comm", "ranks", ranks_text, total > 0 ? total : 1);
        if (r < 0)
            return EXIT_USAGE;
        dnp_cluster sub;
        if (first_ranks(&cl, r, &sub) != 0) {
            cli_error("comm", "--ranks %lld: the cluster has %lld devices", r, total);
            return EXIT_USAGE;
        }
        /* whole nodes or part of one: a group that fills some nodes and
         * part of another is not one the link model describes (its nodes
         * would be priced as equal shares, docs/collectives.md) */
        long long per = sub.types[sub.n_types - 1].devices_per_node;
        long long last = sub.counts[sub.n_types - 1];
        if (per > 1 && last > per && last % per != 0) {
            cli_error("comm", "--ranks %lld fills %lld node%s of %lld and part of another: "
                              "give at most %lld or a multiple of %lld",
                      r, last / per, last / per == 1 ? "" : "s", per, per, per);
            return EXIT_USAGE;
        }
        cl = sub;
    }
    dnp_comm_group g;
    if (group_text != NULL) {
        dnp_cluster_comm_group_strided(&cl, g_first, g_count, g_stride, &g);
    } else {
        dnp_cluster_comm_group(&cl, &g);
    }
    long long *sizes = NULL;
    int n = 0;
    dnp_coll_sample *meas = NULL;
    if (measured != NULL) {
        dnp_error err = {0};
        int file_ranks = 0;
        if (dnp_nccl_tests_read(measured, &meas, &n, &file_ranks, &err) != DNP_OK) {
            cli_error("comm", "%s", err.msg);
            return cli_exit_for(err.status);
        }
        long long members = group_text != NULL ? g_count : (long long)dnp_cluster_devices(&cl);
        if (file_ranks > 0 && file_ranks != members) {
            cli_error("comm", "%s measured %d ranks (its '# Rank' lines) and the group here has "
                              "%lld members: give --ranks %d or the --group it ran on",
                      measured, file_ranks, members, file_ranks);
            dnp_free(meas);
            return EXIT_USAGE;
        }
        sizes = dnp_malloc((size_t)n * sizeof *sizes);
        if (sizes == NULL) {
            dnp_free(meas);
            cli_error("comm", "out of memory");
            return EXIT_RUNTIME;
        }
        for (int i = 0; i < n; i++)
            sizes[i] = (long long)meas[i].bytes;
    } else if ((rc = parse_sizes(bytes_text, &sizes, &n)) != 0) {
        return rc;
    }
    dnp_coll_cost *cost = dnp_malloc((size_t)n * sizeof *cost);
    if (cost == NULL) {
        dnp_free(meas);
        dnp_free(sizes);
        cli_error("comm", "out of memory");
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < n; i++)
        dnp_coll_estimate((dnp_coll_op)op, &g, meas != NULL ? meas[i].bytes : (double)sizes[i],
                          &cost[i]);

    const char *json = cli_get(&a, "json");
    if (json != NULL) {
        json_t *rows = json_array();
        for (int i = 0; i < n; i++) {
            json_t *r = json_pack("{s:s,s:I,s:o,s:o,s:o,s:s}", "op", dnp_coll_name((dnp_coll_op)op),
                                  "bytes", (json_int_t)sizes[i], "time_s",
                                  real_or_null(cost[i].time_s), "algbw_Bps",
                                  real_or_null(cost[i].algbw_bps), "busbw_Bps",
                                  real_or_null(cost[i].busbw_bps), "algorithm",
                                  cost[i].algorithm);
            if (r != NULL && meas != NULL)
                json_object_set_new(r, "measured_s", json_real(meas[i].time_s));
            json_array_append_new(rows, r);
        }
        rc = cli_write_json("comm", json, rows);
    }
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0)) {
        print_header((dnp_coll_op)op, &cl, &g);
        if (meas != NULL)
            print_measured(strcmp(measured, "-") == 0 ? "<stdin>" : measured, meas, cost, n, &g);
        else
            print_rows(sizes, cost, n);
    }
    dnp_free(meas);
    dnp_free(cost);
    dnp_free(sizes);
    return rc;
}
