/*
 * pase_repro_tables.c - the figures `dnnpar reproduce pase` sets ours
 * beside: the paper's Table I (search times) and Table II (strategies at
 * p = 32), and the authors' prototype measured on this kind of machine
 * (data/reference/pase/README.md and totals.csv).
 */
#include "search/pase/pase_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int pase_table_p[PASE_REPRO_PS] = {4, 8, 16, 32, 64};

/* Per model: the paper's Table I "Ours" (s), the prototype's time (s) and
 * best total (FLOP); -1 unknown, -2 did not finish in 20 minutes. */
const pase_table1_row pase_table1[PASE_REPRO_MODELS] = {
    {"pase-alexnet",
     "AlexNet",
     {0.226, 0.253, 0.295, 0.361, 0.475},
     {0.068, 0.076, 0.087, 0.119, 0.189},
     {148215719552.0, 97098296512.0, 70320712672.0, 53136349552.0, 41120456048.0}},
    {"pase-inception3",
     "InceptionV3",
     {14.398, 20.018, 39.791, 86.039, 196.253},
     {3.169, 5.594, -1, -1, 138.0},
     {986757044608.0, 782140602432.0, -1, -1, -1}},
    {"pase-rnnlm",
     "RNNLM",
     {0.057, 0.086, 0.069, 0.131, 0.215},
     {0.022, 0.025, 0.030, 0.081, 0.158},
     {6866837733376.0, 4024963186688.0, 2476066881536.0, 1491938058240.0, 935818633216.0}},
    {"pase-transformer",
     "Transformer",
     {9.752, 28.798, 130.882, 553.022, 1883.187},
     {5.966, 43.0, 310.0, -2, -1},
     {2189181321216.0, -1, -1, -1, -1}},
    {"pase-resnet101", "(ResNet-101)", {-1, -1, -1, -1, -1}, {-1, -1, -1, -1, -2},
     {-1, -1, -1, -1, -1}},
};

/* The paper's Table II, in its dimension letters. */
const pase_table2_row pase_table2[] = {
    {"pase-alexnet", "Conv 1-4", "bchwnrs", "(32,1,1,1,1,1,1)", "conv1|conv2|conv3|conv4", -1},
    {"pase-alexnet", "Conv 5", "bchwnrs", "(16,2,1,1,1,1,1)", "conv5", -1},
    {"pase-alexnet", "FC 1, FC 3", "bnc", "(1,4,8)", "fc6|fc8", -1},
    {"pase-alexnet", "FC 2", "bnc", "(1,8,4)", "fc7", -1},
    {"pase-alexnet", "Softmax", "bn", "(1,4)", "loss", -1},
    {"pase-inception3", "Modules A-D", "bchwnrs", "(32,1,1,1,1,1,1)",
     "*Mixed_5|*Mixed_6|*Mixed_7a", ITER_CONV},
    {"pase-inception3", "Module E", "bchwnrs", "(16,1,1,1,2,1,1)", "*Mixed_7b|*Mixed_7c",
     ITER_CONV},
    {"pase-inception3", "FC", "bnc", "(1,2,16)", "fc", -1},
    {"pase-inception3", "Softmax", "bn", "(1,2)", "loss", -1},
    {"pase-rnnlm", "Embedding", "bsdv", "(1,1,1,32)", "embedding", -1},
    {"pase-rnnlm", "LSTM", "lbsde", "(2,4,1,2,2)", "lstm", -1},
    {"pase-rnnlm", "FC", "bsvd", "(1,1,32,1)", "fc", -1},
    {"pase-rnnlm", "Softmax", "bsv", "(1,1,32)", "loss", -1},
    {"pase-transformer", "Embedding", "bsdv", "(1,1,1,16)", "*embedding", -1},
    {"pase-transformer", "Multihead attn", "bshck", "(16,1,2,1,1)",
     "*.qkv|*.logits|*.scores|*.out", ITER_EINSUM},
    {"pase-transformer", "Feed forward", "bsde", "(16,1,1,2)", "*.ff1|*.ff2", -1},
    {"pase-transformer", "FC", "bsvd", "(1,1,16,1)", "logits", -1},
    {"pase-transformer", "Softmax", "bsv", "(1,1,16)", "loss", -1},
};

const int pase_table2_rows = (int)(sizeof pase_table2 / sizeof pase_table2[0]);

/* 1 if name matches one of the '|'-separated patterns ('*' prefix: a
 * substring, else the whole name). */
static int name_matches(const char *name, const char *patterns)
{
    const char *p = patterns;
    while (*p) {
        const char *end = strchr(p, '|');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char pat[64];
        snprintf(pat, sizeof pat, "%.*s", (int)n, p);
        if (pat[0] == '*' ? strstr(name, pat + 1) != NULL : strcmp(name, pat) == 0)
            return 1;
        p += n;
        if (*p == '|')
            p++;
    }
    return 0;
}

int pase_table2_matches(const iter_nest *x, const pase_table2_row *t)
{
    return (t->kind < 0 || (int)x->kind == t->kind) && name_matches(x->name, t->match);
}

int pase_table2_config(const iter_nest *x, const pase_table2_row *t, int32_t *out)
{
    int32_t pc[ITER_MAX_RANK];
    int np = 0;
    for (const char *s = t->config; *s && np < ITER_MAX_RANK;) {
        if (*s >= '0' && *s <= '9')
            pc[np++] = (int32_t)strtol(s, (char **)&s, 10);
        else
            s++;
    }
    if ((int)strlen(t->dims) != x->rank || np != x->rank)
        return 0;
    for (int d = 0; d < x->rank; d++) {
        const char *at = strchr(t->dims, x->dim[d][0]);
        if (at == NULL || strlen(x->dim[d]) != 1)
            return 0;
        out[d] = pc[at - t->dims];
    }
    return 1;
}
