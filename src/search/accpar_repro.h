/*
 * accpar_repro.h - the AccPar paper's evaluation (section 6) as data
 * (internal): src/search/accpar_repro.c runs it, accpar_repro_api.c answers
 * the public accessors (dnnpar/accpar.h), src/report/accpar_repro_report.c
 * writes it as text and JSON.
 */
#ifndef DNP_SEARCH_ACCPAR_REPRO_H
#define DNP_SEARCH_ACCPAR_REPRO_H

#include "dnnpar/accpar.h"

#include <stdint.h>

#define ACCPAR_REPRO_NETS 9
#define ACCPAR_REPRO_ENDS 4       /* two series, low and high end each */
#define ACCPAR_REPRO_FIG7_LEVELS 7
#define ACCPAR_REPRO_FIG8_MIN 2   /* Fig. 8's levels: 2 .. 9 */
#define ACCPAR_REPRO_FIG8_MAX 9
#define ACCPAR_REPRO_HETERO "128xtpu-v2+128xtpu-v3"
#define ACCPAR_REPRO_HOMO "128xtpu-v3"
#define ACCPAR_REPRO_HOMO_V2 "128xtpu-v2"

/* The networks of Figs. 5 and 6, in the paper's order. */
extern const char *const accpar_repro_networks[ACCPAR_REPRO_NETS];
/* The paper's geomeans (sections 6.2 and 6.3): dp, owt, hypar, accpar. */
extern const double accpar_repro_paper_fig5[DNP_SCHEME_COUNT];
extern const double accpar_repro_paper_fig6[DNP_SCHEME_COUNT];

/* One network on one array: every scheme's step (accpar: AccPar's own tree,
 * the ratio by Eq. 10 as printed), the tree the portfolio returns, and
 * (Fig. 5) AccPar's own tree with the searched ratio. */
typedef struct {
    double t_s[DNP_SCHEME_COUNT];
    double ratio0;          /* AccPar's level-0 share of the first group */
    dnp_scheme returned;    /* dnp_plan_run's portfolio */
    double searched_ratio0, searched_s;
} accpar_net_run;

/* Fig. 5 or 6. */
typedef struct {
    accpar_net_run run[ACCPAR_REPRO_NETS];
    double speedup[ACCPAR_REPRO_NETS][DNP_SCHEME_COUNT];
    double geomean[DNP_SCHEME_COUNT];
    int ordered;   /* dp < owt < hypar <= accpar in geomean */
    int own_best;  /* networks where AccPar's own tree is at or above every baseline */
} accpar_fig;

/* One end of the paper's Fig. 5 accpar ranges matched to a network (net:
 * index into accpar_repro_networks), with A, B, C of the decomposition. */
typedef struct {
    const char *series, *end;
    int net;
    double paper, ours, a, b, c;
} accpar_end;

struct dnp_accpar_repro {
    accpar_fig f5, f6;
    /* the mixed array against each type alone */
    double v2_s[ACCPAR_REPRO_NETS];   /* AccPar on 128 TPU-v2 alone, 7 levels */
    int beats_v3, beats_v3_searched;  /* networks where the mixed array beats 128 v3 */
    accpar_end ends[ACCPAR_REPRO_ENDS];
    int n_ends;
    double vgg_baseline_gap;  /* largest |ours / paper - 1| over the paper's VGG owt, hypar ends */
    /* Fig. 7: n7 weighted layers, names7[i] owned (dnp_free), types7[level * n7 + i] */
    int n7;
    char **names7;
    int *types7;
    /* Fig. 8: levels ACCPAR_REPRO_FIG8_MIN .. max8 run (max8: the array's most) */
    int max8;
    int64_t devices8;
    double speedup8[ACCPAR_REPRO_FIG8_MAX + 1][DNP_SCHEME_COUNT];
    double ratio8[ACCPAR_REPRO_FIG8_MAX + 1];
    int best8; /* AccPar's own tree at or above every baseline at every level */
};

/* Fig. 5 (figure 5) or Fig. 6 (6) of r, else NULL.  O(1). */
const accpar_fig *accpar_repro_fig(const dnp_accpar_repro *r, int figure);

#endif
