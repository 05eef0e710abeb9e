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
    "usage: dnnpar comm OP --cluster SPEC --bytes N[,N...] [--json FILE]\n"
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
    "at most 1P (2^50); 0 gives time 0.\n"
    "--json FILE writes [{\"op\", \"bytes\", \"time_s\", \"algbw_Bps\", \"busbw_Bps\",\n"
    "\"algorithm\"}] (SI units); --json - writes it instead of the table.\n"
    "\n"
    "examples:\n"
    "  dnnpar comm allreduce --cluster '8xcustom(name=g,tflops=100,net_gbps=800)' \\\n"
    "      --bytes 1K,1M,1G\n"
    "  dnnpar comm all-gather --cluster cluster.json --bytes 64M --json -\n";

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

/* Parse the --bytes list into a new array (*sizes, *n).  Prints the error
 * naming the item.  Returns an exit status. */
static int parse_sizes(const char *text, long long **sizes, int *n)
{
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

static void print_header(dnp_coll_op op, const dnp_cluster *cl, const dnp_comm_group *g)
{
    char *spec = cli_cluster_spec(cl);
    long long members = (long long)(g->n_nodes * g->per_node);
    cli_wrapf(stdout, 0, "#   ", "# %s on %s: %lld member%s = %lld node%s x %lld per node",
              dnp_coll_name(op), spec != NULL ? spec : "(out of memory)", members,
              members == 1 ? "" : "s", (long long)g->n_nodes, g->n_nodes == 1 ? "" : "s",
              (long long)g->per_node);
    dnp_free(spec);
    if (g->per_node > 1)
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
}

static json_t *real_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

int cmd_comm(int argc, char **argv)
{
    static const char *const valued[] = {"cluster", "bytes", "json", NULL};
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
    const char *bytes_text = cli_get(&a, "bytes");
    if (bytes_text == NULL) {
        cli_error("comm", "--bytes is required, e.g. --bytes 1K,1M,1G");
        return EXIT_USAGE;
    }
    dnp_cluster cl;
    if ((rc = cli_load_cluster("comm", cli_get(&a, "cluster"), &cl)) != 0)
        return rc;
    long long *sizes = NULL;
    int n = 0;
    if ((rc = parse_sizes(bytes_text, &sizes, &n)) != 0)
        return rc;

    dnp_comm_group g;
    dnp_cluster_comm_group(&cl, &g);
    dnp_coll_cost *cost = dnp_malloc((size_t)n * sizeof *cost);
    if (cost == NULL) {
        dnp_free(sizes);
        cli_error("comm", "out of memory");
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < n; i++)
        dnp_coll_estimate((dnp_coll_op)op, &g, (double)sizes[i], &cost[i]);

    const char *json = cli_get(&a, "json");
    if (json != NULL) {
        json_t *rows = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(
                rows, json_pack("{s:s,s:I,s:o,s:o,s:o,s:s}", "op", dnp_coll_name((dnp_coll_op)op),
                                "bytes", (json_int_t)sizes[i], "time_s",
                                real_or_null(cost[i].time_s), "algbw_Bps",
                                real_or_null(cost[i].algbw_bps), "busbw_Bps",
                                real_or_null(cost[i].busbw_bps), "algorithm",
                                cost[i].algorithm));
        rc = cli_write_json("comm", json, rows);
    }
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0)) {
        print_header((dnp_coll_op)op, &cl, &g);
        print_rows(sizes, cost, n);
    }
    dnp_free(cost);
    dnp_free(sizes);
    return rc;
}
