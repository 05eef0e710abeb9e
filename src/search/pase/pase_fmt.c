/*
 * pase_fmt.c - formatting shared by the PaSE reports (pase_run_report.c,
 * pase_repro_report.c): dimension names, configurations, SI counts,
 * times and FLOP figures in JSON.
 */
#include "search/pase/pase_driver.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void pase_fmt_dims(const iter_nest *v, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int d = 0; d < v->rank && k + 5 < n; d++) {
        int multi = strlen(v->dim[d]) > 1;
        k += (size_t)snprintf(buf + k, n - k, "%s%s", (multi && d) ? "," : "", v->dim[d]);
    }
}

void pase_fmt_config(const pase_problem *pb, int v, int c, char *buf, size_t n)
{
    const pase_configs *cf = &pb->cfg[v];
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int d = 0; d < cf->rank && k < n; d++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", d ? "," : "",
                              cf->c[(size_t)c * (size_t)cf->rank + (size_t)d]);
    if (k < n)
        snprintf(buf + k, n - k, ")");
}

json_t *pase_flop_json(double x)
{
    /* 2^53: every integer below it is exact in a double */
    if (x == floor(x) && fabs(x) < 9007199254740992.0)
        return json_integer((json_int_t)x);
    return json_real(x);
}

double pase_transfer_total(const pase_problem *pb, const int *cfg)
{
    double f = 0.0;
    for (int k = 0; k < pb->n_e; k++) {
        const iter_read *e = &pb->g->read[pb->edge[k]];
        f += pase_problem_edge_cost(pb, k, cfg[e->src], cfg[e->dst]);
    }
    return f;
}

char *pase_json_text(json_t *root)
{
    if (root == NULL)
        return NULL;
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(root);
    return text;
}
