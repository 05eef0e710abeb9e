/* planwalk.c - read a plan's device tree through the public accessors:
 * distinct paths, depth, group sizes and the shares a group holds. */
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *report_state_name(int weighted, int state)
{
    static const char *const types[4] = {"I", "II", "III", "R"};
    static const char *const layouts[3] = {"B", "C", "R"};
    if (state < 0 || state > (weighted ? 3 : 2))
        return "-";
    return weighted ? types[state] : layouts[state];
}

int report_path_depth(const dnp_plan *p, unsigned bits)
{
    /* dnp_plan_type walks `level` halvings of `bits`, so stay below 32. */
    for (int k = 0; k <= REPORT_MAX_DEPTH; k++)
        if (dnp_plan_type(p, k, bits, 0) < 0)
            return k;
    return REPORT_MAX_DEPTH + 1;
}

int report_plan_paths(const dnp_plan *p, int max_levels, unsigned *bits, int max)
{
    if (max < 1)
        return 0;
    int n = 1, more = 0;
    bits[0] = 0;
    if (max_levels > REPORT_MAX_DEPTH)
        max_levels = REPORT_MAX_DEPTH;
    for (int k = 0; k < max_levels; k++) {
        int cur = n;
        for (int i = 0; i < cur; i++) {
            if (report_path_depth(p, bits[i]) <= k || dnp_plan_level_identical(p, k, bits[i]))
                continue;
            if (n < max)
                bits[n++] = bits[i] | (1u << k);
            else
                more = 1;
        }
    }
    return more ? max + 1 : n;
}

/* Parse one side of a groups text ("2xtpu-v2+1xtpu-v3") against cl. */
static int parse_side(const char *s, size_t len, const dnp_cluster *cl, int64_t *n, int *one)
{
    int64_t total = 0;
    int last_type = -1;
    size_t i = 0;
    while (i < len) {
        char *end = NULL;
        long long cnt = strtoll(s + i, &end, 10);
        size_t j = (size_t)(end - s);
        if (end == s + i || cnt <= 0 || j >= len || s[j] != 'x')
            return -1;
        j++;
        size_t k = j;
        while (k < len && s[k] != '+')
            k++;
        int type = -1;
        for (int t = 0; t < cl->n_types; t++)
            if (strlen(cl->types[t].name) == k - j && strncmp(cl->types[t].name, s + j, k - j) == 0)
                type = t;
        if (type < 0)
            return -1;
        total += cnt;
        last_type = type;
        i = k + 1;
    }
    if (total <= 0)
        return -1;
    *n = total;
    *one = total == 1 ? last_type : -1;
    return 0;
}

int report_level_split(const dnp_plan *p, const dnp_cluster *cl, int level, unsigned bits,
                       int64_t n_devices[2], int type_of_one[2])
{
    char text[600];
    dnp_plan_level_groups(p, level, bits, text, sizeof text);
    const char *bar = strstr(text, " | ");
    if (bar == NULL)
        return -1;
    if (parse_side(text, (size_t)(bar - text), cl, &n_devices[0], &type_of_one[0]) != 0 ||
        parse_side(bar + 3, strlen(bar + 3), cl, &n_devices[1], &type_of_one[1]) != 0)
        return -1;
    return 0;
}

void report_path_shares(const dnp_plan *p, unsigned bits, int depth, int node, double *fb,
                        double *fi, double *fo)
{
    double b = 1.0, i = 1.0, o = 1.0;
    int weighted = dnp_plan_node_weighted(p, node);
    for (int k = 0; k < depth && k <= REPORT_MAX_DEPTH; k++) {
        int t = dnp_plan_type(p, k, bits, node);
        if (t < 0)
            break;
        double a = dnp_plan_ratio(p, k, bits);
        double share = ((bits >> k) & 1u) ? 1.0 - a : a;
        /* Type-I splits B, Type-II D_i, Type-III D_o, R nothing; a join's
         * batch layout splits B and its channel layout both channel shares. */
        if (weighted) {
            if (t == DNP_TYPE_I)
                b *= share;
            else if (t == DNP_TYPE_II)
                i *= share;
            else if (t == DNP_TYPE_III)
                o *= share;
        } else if (t == 0) {
            b *= share;
        } else if (t == 1) {
            i *= share;
            o *= share;
        }
    }
    *fb = b;
    *fi = i;
    *fo = o;
}

int report_bytes_per_elem(const dnp_cluster *cl)
{
    int b = 0;
    for (int k = 0; k < cl->n_types; k++)
        if (cl->counts[k] > 0 && cl->types[k].bytes_per_elem > b)
            b = cl->types[k].bytes_per_elem;
    return b > 0 ? b : 4;
}
