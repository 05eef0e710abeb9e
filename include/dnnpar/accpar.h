/*
 * dnnpar/accpar.h - the AccPar paper's evaluation (Song et al., HPCA 2020,
 * section 6: Figs. 5-8) run on dnnpar's planner under the paper's own
 * accounting, beside the paper's figures: `dnnpar reproduce accpar`
 * (src/search/accpar_repro.c, its text and JSON in
 * src/report/accpar_repro_report.c; README.md "AccPar reproduction").
 *
 * Part of libdnnpar's public API: include <dnnpar.h>, which includes each
 * header under dnnpar/, or this header alone (it includes what it needs).  Its
 * conventions are dnnpar.h's (status and error record, dnp_X_new / dnp_X_free
 * pairs, units in names; docs/library.md).
 * Ownership: a reproduction (dnp_accpar_reproduce) is the caller's, freed
 * with dnp_accpar_repro_free, and borrows nothing; its texts are the
 * caller's, freed with dnp_free.  Strings a reproduction returns (network
 * and series names) are static.
 */
#ifndef DNNPAR_PUBLIC_ACCPAR_H
#define DNNPAR_PUBLIC_ACCPAR_H

#include "core.h"
#include "plan.h"

/* Default visibility for what this header declares (core.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* The experiment (opaque): every plan under --cost-model accpar-paper
 * (dnp_cost_model DNP_COST_ACCPAR_PAPER), batch 512 unless said,
 *   Fig. 5  128 TPU-v2 + 128 TPU-v3, nine networks (lenet, alexnet,
 *           vgg11/13/16/19, resnet18/34/50), 8 levels, the four schemes
 *           (accpar: AccPar's own tree, no portfolio, the ratio by Eq. 10
 *           as printed) and the tree dnp_plan_run's portfolio returns; per
 *           network also AccPar with the searched ratio, the mixed array
 *           against each type alone (128 TPU-v2 alone: 7 levels) and the
 *           decomposition speedup = A x B x C; the ends of the paper's
 *           ranges (section 6.2) matched to ours;
 *   Fig. 6  128 TPU-v3, the same networks, 7 levels;
 *   Fig. 7  AccPar's types of AlexNet's weighted layers, 128 TPU-v3, 7
 *           levels, batch 128;
 *   Fig. 8  vgg19 on the mixed array at 2 to 9 levels (those the array
 *           allows). */
typedef struct dnp_accpar_repro dnp_accpar_repro;

/* Called before each network's plans with what runs next, e.g.
 * "128xtpu-v2+128xtpu-v3: vgg19" (borrowed for the call). */
typedef void (*dnp_accpar_progress_fn)(void *user, const char *what);

typedef struct {
    dnp_accpar_progress_fn progress; /* may be NULL */
    void *progress_user;
} dnp_accpar_repro_options;

/* Run the experiment; o may be NULL.  On success *out is the caller's
 * (dnp_accpar_repro_free).  Errors: the planner's (DNP_ERR_INPUT,
 * DNP_ERR_NOMEM, ...), prefixed with the network and cluster ("vgg19 on
 * 128xtpu-v3: ...") or "fig. 7: ".  Deterministic.  O(the plans: 9
 * networks x 3 arrays x 6 plans plus Figs. 7 and 8; about a second). */
dnp_status dnp_accpar_reproduce(const dnp_accpar_repro_options *o, dnp_accpar_repro **out,
                                dnp_error *err);
/* Free it; NULL is a no-op.  O(1). */
void dnp_accpar_repro_free(dnp_accpar_repro *r);

/* The report of `dnnpar reproduce accpar` as text and as JSON
 * (docs/cli.md).  On success *out owns a NUL-terminated string
 * (dnp_free).  Errors: DNP_ERR_NOMEM.  Deterministic.  O(networks x
 * schemes + Fig. 7's layers x levels). */
dnp_status dnp_accpar_repro_text(const dnp_accpar_repro *r, char **out, dnp_error *err);
dnp_status dnp_accpar_repro_json(const dnp_accpar_repro *r, char **out, dnp_error *err);

/* One network of Fig. 5 or Fig. 6 (figure 5 or 6). */
typedef struct {
    double step_s[DNP_SCHEME_COUNT];  /* each scheme's step (accpar: its own tree, Eq. 10) */
    double speedup[DNP_SCHEME_COUNT]; /* step_s[DNP_SCHEME_DP] / step_s[scheme] */
    dnp_scheme plan_returns;          /* whose tree dnp_plan_run's portfolio returns */
    double ratio_eq10;                /* AccPar's level-0 share of the first group (TPU-v2
                                       * on the mixed array), by Eq. 10 as printed */
    double ratio_searched;            /* Fig. 5 only (else 0): the searched ratio */
    double searched_step_s;           /* Fig. 5 only (else 0): AccPar's own tree with it */
} dnp_accpar_repro_row;

/* `network`'s row of `figure`.  DNP_ERR_INPUT naming the figure or the
 * network if neither is one of the experiment's.  O(networks). */
dnp_status dnp_accpar_repro_row_of(const dnp_accpar_repro *r, int figure, const char *network,
                                   dnp_accpar_repro_row *out, dnp_error *err);

/* Fig. 5 or 6 as a whole. */
typedef struct {
    double geomean[DNP_SCHEME_COUNT];       /* geometric mean of the speedups over dp */
    double paper_geomean[DNP_SCHEME_COUNT]; /* the paper's (sections 6.2, 6.3) */
    int ordered;         /* 1: dp < owt < hypar <= accpar in geomean */
    int own_best;        /* networks where AccPar's own tree is at or above every baseline */
    int networks;        /* networks run (9) */
} dnp_accpar_repro_figure;

/* `figure` (5 or 6).  DNP_ERR_INPUT for another figure.  O(1). */
dnp_status dnp_accpar_repro_figure_of(const dnp_accpar_repro *r, int figure,
                                      dnp_accpar_repro_figure *out, dnp_error *err);

/* Fig. 5 by network: the mixed array against each type alone (AccPar's
 * own trees, Eq. 10's ratio) and speedup = A x B x C. */
typedef struct {
    double mixed_s;     /* AccPar on 128 TPU-v2 + 128 TPU-v3, 8 levels */
    double v2_alone_s;  /* AccPar on 128 TPU-v2 alone, 7 levels */
    double v3_alone_s;  /* AccPar on 128 TPU-v3 alone, 7 levels (Fig. 6) */
    double a;           /* dp mixed / dp on 128 TPU-v3 */
    double b;           /* dp / accpar on 128 TPU-v3 (Fig. 6's speedup) */
    double c;           /* accpar on 128 TPU-v3 / accpar mixed */
} dnp_accpar_repro_alone;

/* `network`'s figures.  DNP_ERR_INPUT for another network.  O(networks). */
dnp_status dnp_accpar_repro_alone_of(const dnp_accpar_repro *r, const char *network,
                                     dnp_accpar_repro_alone *out, dnp_error *err);
/* Networks where the mixed array is faster than 128 TPU-v3 alone, with
 * Eq. 10's ratio (*eq10) and with the searched one (*searched).  O(1). */
void dnp_accpar_repro_beats_v3(const dnp_accpar_repro *r, int *eq10, int *searched);

/* One end of the paper's Fig. 5 accpar ranges (section 6.2 gives only the
 * ends, no network): matched to the network of its series with the lowest
 * (low end) or highest (high end) speedup here. */
typedef struct {
    const char *series;   /* "VGG" or "ResNet" (static) */
    const char *end;      /* "low" or "high" (static) */
    const char *network;  /* the network matched (static) */
    double paper;         /* the paper's speedup at that end */
    double ours;          /* ours on that network */
    double a, b, c;       /* as dnp_accpar_repro_alone */
    double c_implied;     /* paper / (a b): the C the paper's speedup implies */
    double a_if_c_1;      /* paper / b: the largest A with C >= 1 */
} dnp_accpar_repro_end;

/* The ends, low then high per series, VGG then ResNet: how many (4).
 * O(1). */
int dnp_accpar_repro_n_ends(const dnp_accpar_repro *r);
/* End k (0 .. n_ends - 1).  DNP_ERR_INPUT for another k.  O(1). */
dnp_status dnp_accpar_repro_end_of(const dnp_accpar_repro *r, int k, dnp_accpar_repro_end *out,
                                   dnp_error *err);

/* Fig. 7: AccPar's type (dnp_ptype) of AlexNet's weighted layer `layer`
 * (e.g. "conv1", "fc6") at `level` (0 .. 6), or -1 if the experiment has
 * no such layer or level.  O(layers). */
int dnp_accpar_repro_fig7_type(const dnp_accpar_repro *r, int level, const char *layer);

/* Fig. 8: vgg19's speedup over dp of `scheme` on the mixed array at
 * `levels` levels.  DNP_ERR_INPUT for levels not run (outside 2 .. 9, or
 * more than the array allows: 8).  O(levels). */
dnp_status dnp_accpar_repro_fig8(const dnp_accpar_repro *r, int levels, dnp_scheme scheme,
                                 double *speedup, dnp_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* DNNPAR_PUBLIC_ACCPAR_H */
