/*
 * bench_pase.c - PaSE search times and memory (issue 3's targets), and how
 * the search grows with p and with |V|.
 *
 * Search time = GenerateSeq + FindBestStrategy + back-substitution (what
 * the prototype's "Processing time" measures); building the configurations
 * and cost tables is reported apart.  Medians of several runs; peak memory
 * (ru_maxrss) of a child process doing one build + search.
 */
#include "search/pase/pase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
    double search_s;   /* median */
    double build_s;    /* median of the table building */
    double cost;
    double max_rows, work;
    int max_dep, kmax, n_v;
} run_stats;

/* Build model (or g) for p and search it `runs` times with `threads`. */
static int measure(iter_space *g, int cutoff, int p, int threads, int runs, run_stats *st)
{
    double t[32] = {0}, b[32] = {0};
    memset(st, 0, sizeof *st);
    runs = runs < 1 ? 1 : (runs > 32 ? 32 : runs);
    for (int r = 0; r < runs; r++) {
        pase_params par = {p, 5000.0, 0, 4096.0 * 1048576.0, cutoff};
        pase_problem pb;
        dnp_error err = {0};
        if (pase_problem_build(g, &par, &pb, &err) != DNP_OK) {
            fprintf(stderr, "bench_pase: %s\n", err.msg);
            return -1;
        }
        pase_search_opts o = {threads, NULL, NULL, 0.0, 0, 0.0};
        pase_result res;
        if (pase_search(&pb, 0, &o, &res, &err) != DNP_OK) {
            fprintf(stderr, "bench_pase: %s\n", err.msg);
            pase_problem_free(&pb);
            return -1;
        }
        t[r] = res.search_s;
        b[r] = pb.build_s;
        st->cost = res.cost;
        st->max_rows = res.max_rows;
        st->work = res.work;
        st->max_dep = res.max_dep;
        st->n_v = pb.n_v;
        st->kmax = 0;
        for (int v = 0; v < pb.n_v; v++)
            st->kmax = pb.cfg[v].n > st->kmax ? pb.cfg[v].n : st->kmax;
        pase_result_free(&res);
        pase_problem_free(&pb);
    }
    st->search_s = median(t, runs);
    st->build_s = median(b, runs);
    return 0;
}

static iter_space *model(const char *name, int64_t batch)
{
    iter_space *g = NULL;
    dnp_error err = {0};
    if (pase_model_build(name, batch, &g, &err) != DNP_OK)
        fprintf(stderr, "bench_pase: %s\n", err.msg);
    return g;
}

/* Peak resident memory (MB) of a child that builds and searches once. */
static double peak_mb(const char *name, int64_t batch, int p)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        iter_space *g = model(name, batch);
        run_stats st;
        int cut = pase_model_cutoff(pase_model_find(name));
        int rc = g != NULL && measure(g, cut, p, 0, 1, &st) == 0 ? 0 : 1;
        iter_space_free(g);
        _exit(rc);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1.0;
    return (double)ru.ru_maxrss / 1024.0; /* Linux: kilobytes */
}

typedef struct {
    const char *model;
    int64_t batch;
    int p;
    double target_s;       /* the bound */
    const char *prototype; /* the prototype measured here (reference README) */
} target;

int main(void)
{
    static const target targets[] = {
        {"pase-inception3", 128, 64, 0.2, "138 s, 2.7 GB"},
        {"pase-transformer", 64, 16, 0.5, "310 s, 9.4 GB"},
        {"pase-transformer", 64, 64, 5.0, "p = 32 did not finish in 20 min"},
        {"pase-resnet101", 128, 64, 2.0, "did not finish in 20 min"},
    };
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("PaSE search (GenerateSeq + FindBestStrategy), r = 5000, medians of 7 runs;\n"
           "%ld online CPUs; the table building is apart (the prototype builds its tables\n"
           "while constructing the graph, outside its timing)\n\n",
           cpus);
    printf("%-17s %3s %12s %12s %10s %9s %9s  %-10s %s\n", "model", "p", "search", "1 thread",
           "build", "peak MB", "target", "met", "prototype here");
    int all_met = 1;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        const target *t = &targets[i];
        iter_space *g = model(t->model, t->batch);
        int cut = pase_model_cutoff(pase_model_find(t->model));
        run_stats s, s1;
        if (g == NULL || measure(g, cut, t->p, 0, 7, &s) < 0 ||
            measure(g, cut, t->p, 1, 7, &s1) < 0) {
            iter_space_free(g);
            return 1;
        }
        double mb = peak_mb(t->model, t->batch, t->p);
        int met = s.search_s <= t->target_s && mb < 1024.0;
        all_met &= met;
        printf("%-17s %3d %10.4f s %10.4f s %8.4f s %9.1f %7.1f s  %-10s %s\n", t->model, t->p,
               s.search_s, s1.search_s, s.build_s, mb, t->target_s, met ? "yes" : "NO",
               t->prototype);
        iter_space_free(g);
    }
    printf("all targets met (time and < 1 GB): %s\n", all_met ? "yes" : "NO");

    /* growth with p */
    static const char *const models[] = {"pase-alexnet", "pase-inception3", "pase-rnnlm",
                                         "pase-transformer", "pase-resnet101"};
    static const int ps[] = {4, 8, 16, 32, 64};
    printf("\nsearch time against p (median of 3; K = most configurations of an op, rows =\n"
           "largest table, work = sum over ops of rows x K)\n");
    printf("%-17s %3s %5s %4s %12s %12s %12s\n", "model", "p", "K", "|D|", "rows", "work",
           "search");
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        int idx = pase_model_find(models[m]);
        iter_space *g = model(models[m], pase_model_default_batch(idx));
        if (g == NULL)
            return 1;
        for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
            run_stats s;
            if (measure(g, pase_model_cutoff(idx), ps[k], 0, 3, &s) < 0)
                return 1;
            printf("%-17s %3d %5d %4d %12.0f %12.4g %10.4f s\n", models[m], ps[k], s.kmax,
                   s.max_dep, s.max_rows, s.work, s.search_s);
        }
        iter_space_free(g);
    }

    /* growth with |V| */
    printf("\nsearch time against |V| (median of 3)\n");
    printf("%-26s %3s %5s %12s %12s\n", "graph", "p", "|V|", "work", "search");
    static const int layers[] = {1, 2, 4, 6, 8, 12};
    for (size_t k = 0; k < sizeof layers / sizeof layers[0]; k++) {
        iter_space *g = pase_build_transformer(64, layers[k]);
        run_stats s;
        if (g == NULL || measure(g, 1, 16, 0, 3, &s) < 0)
            return 1;
        char nm[40];
        snprintf(nm, sizeof nm, "transformer, %d+%d layers", layers[k], layers[k]);
        printf("%-26s %3d %5d %12.4g %10.4f s\n", nm, 16, s.n_v, s.work, s.search_s);
        iter_space_free(g);
    }
    static const int blocks[][4] = {{3, 4, 6, 3}, {3, 4, 23, 3}, {3, 8, 36, 3}, {3, 24, 36, 3}};
    static const char *const rn[] = {"resnet-50", "resnet-101", "resnet-152", "resnet-200"};
    for (size_t k = 0; k < 4; k++) {
        iter_space *g = pase_build_resnet(128, blocks[k]);
        run_stats s;
        if (g == NULL || measure(g, 4, 64, 0, 3, &s) < 0)
            return 1;
        printf("%-26s %3d %5d %12.4g %10.4f s\n", rn[k], 64, s.n_v, s.work, s.search_s);
        iter_space_free(g);
    }
    return 0;
}
