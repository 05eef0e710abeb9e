/* test_accpar_repro.c - the AccPar reproduction through the library's API
 * (dnnpar/accpar.h): the figures `dnnpar reproduce accpar` prints
 * (goldens reproduce_accpar, reproduce_accpar_json, 10 significant digits),
 * read back from dnp_accpar_reproduce, and the identities between them
 * (speedup = A x B x C; C implied = paper / (A B)).  Each test runs the
 * experiment once (about a second in a release build). */
#include "test.h"

#include "dnnpar.h"

#include <string.h>

/* The reproduction (o may be NULL), or NULL after a failed check. */
static dnp_accpar_repro *run(const dnp_accpar_repro_options *o)
{
    dnp_accpar_repro *r = NULL;
    dnp_error err = {0};
    dnp_status st = dnp_accpar_reproduce(o, &r, &err);
    if (st != DNP_OK)
        printf("  dnp_accpar_reproduce: %s\n", err.msg);
    CHECK_EQ_INT(st, DNP_OK);
    return st == DNP_OK ? r : NULL;
}

/* Golden figures are printed with 10 significant digits. */
#define REL 2e-9

/* Fig. 5 (128 TPU-v2 + 128 TPU-v3, 8 levels) and Fig. 6 (128 TPU-v3, 7
 * levels): vgg19's and alexnet's speedups over dp, the geomeans beside the
 * paper's (6.30x and 3.86x for accpar), the mixed array against each type
 * alone and the table of the paper's range ends. */
TEST(accpar_repro_fig5_fig6_and_range_ends)
{
    dnp_accpar_repro *r = run(NULL);
    if (r == NULL)
        return;
    dnp_error err = {0};
    dnp_accpar_repro_row row;
    CHECK_EQ_INT(dnp_accpar_repro_row_of(r, 5, "vgg19", &row, &err), DNP_OK);
    CHECK_NEAR(row.speedup[DNP_SCHEME_DP], 1.0, 0, 0);
    CHECK_NEAR(row.speedup[DNP_SCHEME_OWT], 5.337611897, REL, 0);
    CHECK_NEAR(row.speedup[DNP_SCHEME_HYPAR], 5.832478031, REL, 0);
    CHECK_NEAR(row.speedup[DNP_SCHEME_ACCPAR], 6.940154885, REL, 0);
    CHECK_EQ_INT(row.plan_returns, DNP_SCHEME_ACCPAR);
    /* speedup is dp's step over the scheme's */
    CHECK_NEAR(row.speedup[DNP_SCHEME_ACCPAR],
               row.step_s[DNP_SCHEME_DP] / row.step_s[DNP_SCHEME_ACCPAR], 1e-15, 0);
    CHECK_NEAR(row.step_s[DNP_SCHEME_ACCPAR], 331.3686211e-3, REL, 0);
    CHECK_NEAR(row.ratio_eq10, 0.3325290487, REL, 0);
    CHECK_NEAR(row.ratio_searched, 0.0078125, REL, 0); /* 1/128 */
    CHECK_NEAR(row.searched_step_s, 199.4906424e-3, REL, 0);

    CHECK_EQ_INT(dnp_accpar_repro_row_of(r, 6, "alexnet", &row, &err), DNP_OK);
    CHECK_NEAR(row.speedup[DNP_SCHEME_OWT], 7.235470726, REL, 0);
    CHECK_NEAR(row.speedup[DNP_SCHEME_HYPAR], 8.233801569, REL, 0);
    CHECK_NEAR(row.speedup[DNP_SCHEME_ACCPAR], 10.90481198, REL, 0);
    CHECK_NEAR(row.ratio_searched, 0.0, 0, 0); /* searched on Fig. 5 only */

    dnp_accpar_repro_figure f;
    CHECK_EQ_INT(dnp_accpar_repro_figure_of(r, 5, &f, &err), DNP_OK);
    CHECK_NEAR(f.geomean[DNP_SCHEME_OWT], 2.688016192, REL, 0);
    CHECK_NEAR(f.geomean[DNP_SCHEME_HYPAR], 3.625998377, REL, 0);
    CHECK_NEAR(f.geomean[DNP_SCHEME_ACCPAR], 4.46581037, REL, 0);
    CHECK_NEAR(f.paper_geomean[DNP_SCHEME_ACCPAR], 6.30, 0, 0);
    CHECK_EQ_INT(f.ordered, 1);
    CHECK_EQ_INT(f.own_best, 9);
    CHECK_EQ_INT(f.networks, 9);
    CHECK_EQ_INT(dnp_accpar_repro_figure_of(r, 6, &f, &err), DNP_OK);
    CHECK_NEAR(f.geomean[DNP_SCHEME_ACCPAR], 3.750442127, REL, 0);
    CHECK_NEAR(f.paper_geomean[DNP_SCHEME_OWT], 2.94, 0, 0);
    CHECK_NEAR(f.paper_geomean[DNP_SCHEME_ACCPAR], 3.86, 0, 0);

    /* vgg19: mixed 331.369 ms, 128 v2 alone 333.642, 128 v3 alone 166.634;
     * A 2.284, B 6.041, C 0.503, and their product is the speedup. */
    dnp_accpar_repro_alone al;
    CHECK_EQ_INT(dnp_accpar_repro_alone_of(r, "vgg19", &al, &err), DNP_OK);
    CHECK_NEAR(al.mixed_s, 331.3686211e-3, REL, 0);
    CHECK_NEAR(al.v2_alone_s, 333.6417008e-3, REL, 0);
    CHECK_NEAR(al.v3_alone_s, 166.6338718e-3, REL, 0);
    CHECK_NEAR(al.a, 2.2844672, REL, 0);
    CHECK_NEAR(al.b, 6.041326827, REL, 0);
    CHECK_NEAR(al.c, 0.5028655737, REL, 0);
    CHECK_NEAR(al.a * al.b * al.c, 6.940154885, REL, 0);
    int eq10 = -1, searched = -1;
    dnp_accpar_repro_beats_v3(r, &eq10, &searched);
    CHECK_EQ_INT(eq10, 0);
    CHECK_EQ_INT(searched, 0);

    /* Section 6.2's range ends (VGG 9.75x-16.14x, ResNet 1.92x-2.20x)
     * matched to ours by rank. */
    static const struct {
        const char *series, *end, *network;
        double paper, ours, c, c_implied, a_if_c_1;
    } want[] = {
        {"VGG", "low", "vgg19", 9.75, 6.940154885, 0.5028655737, 0.7064596432, 1.613883883},
        {"VGG", "high", "vgg11", 16.14, 11.5974997, 0.5179777276, 0.7208588694, 1.647300394},
        {"ResNet", "low", "resnet50", 1.92, 1.351101573, 0.4975786859, 0.7070904929,
         1.615173413},
        {"ResNet", "high", "resnet18", 2.20, 1.55971855, 0.5230429679, 0.7377578023,
         1.685258487},
    };
    CHECK_EQ_INT(dnp_accpar_repro_n_ends(r), 4);
    for (int k = 0; k < 4 && k < dnp_accpar_repro_n_ends(r); k++) {
        dnp_accpar_repro_end e;
        CHECK_EQ_INT(dnp_accpar_repro_end_of(r, k, &e, &err), DNP_OK);
        CHECK_STR(e.series, want[k].series);
        CHECK_STR(e.end, want[k].end);
        CHECK_STR(e.network, want[k].network);
        CHECK_NEAR(e.paper, want[k].paper, 0, 0);
        CHECK_NEAR(e.ours, want[k].ours, REL, 0);
        CHECK_NEAR(e.c, want[k].c, REL, 0);
        CHECK_NEAR(e.c_implied, want[k].c_implied, REL, 0);
        CHECK_NEAR(e.a_if_c_1, want[k].a_if_c_1, REL, 0);
        /* C implied = paper / (A B) */
        CHECK_NEAR(e.c_implied * e.a * e.b, e.paper, 1e-12, 0);
    }

    /* what is not in the experiment */
    dnp_error e2 = {0};
    CHECK_EQ_INT(dnp_accpar_repro_row_of(r, 5, "vgg99", &row, &e2), DNP_ERR_INPUT);
    CHECK(strstr(e2.msg, "vgg99") != NULL);
    dnp_error e3 = {0};
    CHECK_EQ_INT(dnp_accpar_repro_figure_of(r, 7, &f, &e3), DNP_ERR_INPUT);
    CHECK(strstr(e3.msg, "figure 7") != NULL);
    dnp_error e4 = {0};
    dnp_accpar_repro_end e;
    CHECK_EQ_INT(dnp_accpar_repro_end_of(r, 4, &e, &e4), DNP_ERR_INPUT);
    dnp_accpar_repro_free(r);
}

/* Progress: how many calls, and the first and last "what". */
typedef struct {
    int calls;
    char first[64], last[64];
} progress_log;

static void on_progress(void *user, const char *what)
{
    progress_log *p = user;
    if (p->calls++ == 0)
        snprintf(p->first, sizeof p->first, "%s", what);
    snprintf(p->last, sizeof p->last, "%s", what);
}

/* Fig. 7 (AlexNet's types, 128 TPU-v3, 7 levels, batch 128), Fig. 8 (vgg19
 * on the mixed array at 2 .. 8 levels; 9 is past its 256 devices), the
 * report's text and JSON carrying the same figures, and the progress calls. */
TEST(accpar_repro_fig7_fig8_and_reports)
{
    progress_log log = {0};
    dnp_accpar_repro_options o = {on_progress, &log};
    dnp_accpar_repro *r = run(&o);
    if (r == NULL)
        return;
    /* one call per network and array of Figs. 5 and 6 and 128 TPU-v2 alone */
    CHECK_EQ_INT(log.calls, 27);
    CHECK_STR(log.first, "128xtpu-v2+128xtpu-v3: lenet");
    CHECK_STR(log.last, "128xtpu-v2: resnet50");
    /* level 3: I I III II III II II III */
    static const char *const layers[] = {"conv1", "conv2", "conv3", "conv4",
                                         "conv5", "fc6",   "fc7",   "fc8"};
    static const int level3[] = {DNP_TYPE_I,  DNP_TYPE_I,  DNP_TYPE_III, DNP_TYPE_II,
                                 DNP_TYPE_III, DNP_TYPE_II, DNP_TYPE_II,  DNP_TYPE_III};
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(dnp_accpar_repro_fig7_type(r, 3, layers[i]), level3[i]);
    /* conv1 is Type-I at every level */
    for (int k = 0; k < 7; k++)
        CHECK_EQ_INT(dnp_accpar_repro_fig7_type(r, k, "conv1"), DNP_TYPE_I);
    CHECK_EQ_INT(dnp_accpar_repro_fig7_type(r, 7, "conv1"), -1);
    CHECK_EQ_INT(dnp_accpar_repro_fig7_type(r, 0, "fc9"), -1);

    static const double owt[] = {3.120859657, 4.304956448, 5.076407329, 5.412843311,
                                 5.483951688, 5.433633044, 5.337611897};
    static const double accpar[] = {3.820104927, 4.923884312, 5.609273904, 6.39294115,
                                    6.722011323, 6.758699533, 6.940154885};
    dnp_error err = {0};
    for (int h = 2; h <= 8; h++) {
        double s = 0.0;
        CHECK_EQ_INT(dnp_accpar_repro_fig8(r, h, DNP_SCHEME_OWT, &s, &err), DNP_OK);
        CHECK_NEAR(s, owt[h - 2], REL, 0);
        CHECK_EQ_INT(dnp_accpar_repro_fig8(r, h, DNP_SCHEME_ACCPAR, &s, &err), DNP_OK);
        CHECK_NEAR(s, accpar[h - 2], REL, 0);
        CHECK_EQ_INT(dnp_accpar_repro_fig8(r, h, DNP_SCHEME_DP, &s, &err), DNP_OK);
        CHECK_NEAR(s, 1.0, 0, 0);
    }
    /* 8 levels is Fig. 5's vgg19 */
    dnp_accpar_repro_row row;
    CHECK_EQ_INT(dnp_accpar_repro_row_of(r, 5, "vgg19", &row, &err), DNP_OK);
    double s8 = 0.0;
    CHECK_EQ_INT(dnp_accpar_repro_fig8(r, 8, DNP_SCHEME_ACCPAR, &s8, &err), DNP_OK);
    CHECK_NEAR(s8, row.speedup[DNP_SCHEME_ACCPAR], 0, 0);
    dnp_error e9 = {0};
    CHECK_EQ_INT(dnp_accpar_repro_fig8(r, 9, DNP_SCHEME_ACCPAR, &s8, &e9), DNP_ERR_INPUT);
    CHECK(strstr(e9.msg, "2 .. 8") != NULL);

    char *text = NULL, *json = NULL;
    CHECK_EQ_INT(dnp_accpar_repro_text(r, &text, &err), DNP_OK);
    CHECK_EQ_INT(dnp_accpar_repro_json(r, &json, &err), DNP_OK);
    if (text != NULL) {
        CHECK(strstr(text, "  VGG     low  vgg19        9.75x    6.94x     1.405x   0.503x     "
                           "0.706x     1.614x\n") != NULL);
        CHECK(strstr(text, "  geomean       1.00x    2.69x    3.63x    4.47x\n") != NULL);
        CHECK(strstr(text, "  9      not run: 128xtpu-v2+128xtpu-v3 has 256 devices: at most 8 "
                           "levels of two-way splits\n") != NULL);
    }
    if (json != NULL) {
        CHECK(strstr(json, "\"c_implied\": 0.7064596432") != NULL);
        CHECK(strstr(json, "\"accpar\": 6.940154885") != NULL);
    }
    dnp_free(text);
    dnp_free(json);
    dnp_accpar_repro_free(r);
    dnp_accpar_repro_free(NULL);
}
