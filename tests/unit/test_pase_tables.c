/* test_pase_tables.c - the PaSE cost model against the prototype's own
 * tables (data/reference/pase/): every op's t_l for every
 * configuration and every edge's t_x for every pair of configurations,
 * relative error < 1e-9, and the configuration sets themselves. */
#include "search/pase/pase.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Split a CSV line into fields (quotes hold commas).  Returns the count. */
static int csv_fields(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (*p && *p != '\r' && *p != '\n' && n < max) {
        if (*p == '"') {
            f[n++] = ++p;
            while (*p && *p != '"')
                p++;
            if (*p)
                *p++ = '\0';
            if (*p == ',')
                p++;
        } else {
            f[n++] = p;
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                p++;
            if (*p == ',')
                *p++ = '\0';
            else
                *p = '\0'; /* end of line (CRLF in the reference files) */
        }
    }
    return n;
}

/* "(1,2,3)" -> ints; returns the count. */
static int tuple(const char *s, int32_t *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        while (*s && (*s < '0' || *s > '9'))
            s++;
        if (!*s)
            break;
        out[n++] = (int32_t)strtol(s, (char **)&s, 10);
    }
    return n;
}

typedef struct {
    const char *model, *file;
    int p;
    int64_t batch;
} ref_case;

static const ref_case cases[] = {
    {"pase-alexnet", "alexnet_p8_b128", 8, 128},
    {"pase-inception3", "inception3_p8_b128", 8, 128},
    {"pase-rnnlm", "rnnlm_p8_b64", 8, 64},
    {"pase-transformer", "transformer_p4_b64", 4, 64},
};

static int build(const ref_case *c, iter_space **g, pase_problem *pb)
{
    dnp_error err = {0};
    if (pase_model_build(c->model, c->batch, g, &err) != DNP_OK) {
        printf("  %s: %s\n", c->model, err.msg);
        return -1;
    }
    pase_params par = {c->p, 5000.0, 1, 1e10, pase_model_cutoff(pase_model_find(c->model))};
    if (pase_problem_build(*g, &par, pb, &err) != DNP_OK) {
        printf("  %s: %s\n", c->model, err.msg);
        iter_space_free(*g);
        return -1;
    }
    return 0;
}

static void check_vertices(const ref_case *c)
{
    iter_space *g;
    pase_problem pb;
    if (build(c, &g, &pb) < 0) {
        CHECK(0);
        return;
    }
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/reference/pase/%s_vertices.csv", test_data_dir(), c->file);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    int *rows = dnp_calloc((size_t)g->n_nest, sizeof(int));
    int n = 0, bad = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *fl[8];
        if (n++ == 0 || csv_fields(line, fl, 8) != 5)
            continue;
        int v = atoi(fl[0]);
        int32_t dom[16], cfg[16];
        int rd = tuple(fl[2], dom, 16), rc = tuple(fl[3], cfg, 16);
        double want = strtod(fl[4], NULL);
        if (v < 0 || v >= g->n_nest) {
            if (bad++ < 5)
                printf("  %s: node %d missing\n", c->model, v);
            continue;
        }
        const iter_nest *x = &g->nest[v];
        int same = strcmp(iter_kind_name(x->kind), fl[1]) == 0 && rd == x->rank && rc == x->rank;
        for (int d = 0; same && d < rd; d++)
            same = dom[d] == x->dom[d];
        int ci = same ? pase_configs_find(&pb.cfg[v], cfg) : -1;
        if (!same || ci < 0) {
            if (bad++ < 5)
                printf("  %s: node %d (%s %s %s) has no such op or config\n", c->model, v, fl[1],
                       fl[2], fl[3]);
            continue;
        }
        rows[v]++;
        double got = pb.tl[v][ci];
        if (!(fabs(got - want) <= 1e-9 * fabs(want) + 1e-6)) {
            if (bad++ < 5)
                printf("  %s: node %d %s config %s: t_l %.17g, reference %.17g\n", c->model, v,
                       fl[1], fl[3], got, want);
        }
    }
    if (f)
        fclose(f);
    for (int v = 0; v < g->n_nest; v++)
        if (rows[v] != pb.cfg[v].n && bad++ < 10)
            printf("  %s: node %d has %d configs, reference %d\n", c->model, v, pb.cfg[v].n,
                   rows[v]);
    CHECK_EQ_INT(bad, 0);
    CHECK(n > 1);
    dnp_free(rows);
    pase_problem_free(&pb);
    iter_space_free(g);
}

static void check_edges(const ref_case *c)
{
    iter_space *g;
    pase_problem pb;
    if (build(c, &g, &pb) < 0) {
        CHECK(0);
        return;
    }
    char cmd[600], line[1024];
    snprintf(cmd, sizeof cmd, "gzip -dc '%s/reference/pase/%s_edges.csv.gz'", test_data_dir(),
             c->file);
    FILE *f = popen(cmd, "r");
    CHECK(f != NULL);
    long *rows = dnp_calloc((size_t)pb.n_e, sizeof(long));
    int n = 0, bad = 0;
    int last_src = -1, last_dst = -1, k = -1;
    while (f && fgets(line, sizeof line, f)) {
        char *fl[8];
        if (n++ == 0 || csv_fields(line, fl, 8) != 5)
            continue;
        int s = atoi(fl[0]), t = atoi(fl[1]);
        if (s != last_src || t != last_dst) {
            k = -1;
            for (int i = 0; i < pb.n_e; i++)
                if (g->read[pb.edge[i]].src == s && g->read[pb.edge[i]].dst == t)
                    k = i;
            last_src = s, last_dst = t;
        }
        int32_t cs[16], ct[16];
        tuple(fl[2], cs, 16);
        tuple(fl[3], ct, 16);
        double want = strtod(fl[4], NULL);
        int a = k >= 0 ? pase_configs_find(&pb.cfg[s], cs) : -1;
        int b = k >= 0 ? pase_configs_find(&pb.cfg[t], ct) : -1;
        if (a < 0 || b < 0) {
            if (bad++ < 5)
                printf("  %s: edge %d -> %d (%s, %s) not found\n", c->model, s, t, fl[2], fl[3]);
            continue;
        }
        rows[k]++;
        double got = pase_problem_edge_cost(&pb, k, a, b);
        if (!(fabs(got - want) <= 1e-9 * fabs(want) + 1e-6) && bad++ < 5)
            printf("  %s: edge %d -> %d %s %s: t_x %.17g, reference %.17g\n", c->model, s, t,
                   fl[2], fl[3], got, want);
    }
    if (f)
        CHECK_EQ_INT(pclose(f), 0);
    for (int i = 0; i < pb.n_e; i++) {
        const iter_read *e = &g->read[pb.edge[i]];
        long want = (long)pb.cfg[e->src].n * pb.cfg[e->dst].n;
        if (rows[i] != want && bad++ < 10)
            printf("  %s: edge %d -> %d has %ld rows, expected %ld\n", c->model, e->src, e->dst,
                   rows[i], want);
    }
    CHECK_EQ_INT(bad, 0);
    dnp_free(rows);
    pase_problem_free(&pb);
    iter_space_free(g);
}

TEST(pase_vertex_tables)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_vertices(&cases[i]);
}

TEST(pase_edge_tables)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_edges(&cases[i]);
}
