/* test_pase_rows.c - PaSE's search keeps whole the rows a softmax, layer
 * norm or LRN normalises (src/search/pase/pase_rows.c, model/row_ops.h;
 * docs/pase.md "Row ops"): which dimensions the rule fixes, that only the
 * default model applies it, and, on a small graph whose unrestricted
 * optimum splits the classes, that the restricted search's plan splits
 * none of them and costs the least of every allowed strategy (exhaustive
 * enumeration of the unrestricted space, filtered by the rule). */
#include "model/row_ops.h"
#include "search/pase/pase.h"
#include "search/pase/pase_driver.h"
#include "test.h"

#include <math.h>
#include <string.h>

/* The nest named `name` in s, -1 if none. */
static int nest_named(const iter_space *s, const char *name)
{
    for (int v = 0; v < s->n_nest; v++)
        if (strcmp(s->nest[v].name, name) == 0)
            return v;
    return -1;
}

/* The dimension of nest v named `dim`, -1 if none. */
static int dim_named(const iter_space *s, int v, const char *dim)
{
    for (int d = 0; v >= 0 && d < s->nest[v].rank; d++)
        if (strcmp(s->nest[v].dim[d], dim) == 0)
            return d;
    return -1;
}

/* x (8 x 4 x 4) -> conv c1 (8, 3x3 pad 1) -> LRN -> add with x -> layer
 * norm -> flatten -> fc (10) -> softmax: one op of each row kind, a
 * weighted and a join decider. */
static dnp_graph *row_graph(void)
{
    dnp_graph *g = dnp_graph_new("rows");
    int x = dnp_graph_input(g, "x", 8, 4, 4);
    int c = dnp_graph_conv(g, "c1", x, 8, 3, 1, 1, 1, 0);
    int n = dnp_graph_unary(g, "lrn", DNP_OP_LRN, c);
    int a = dnp_graph_add(g, "add", n, x);
    dnp_op_attrs at = {0};
    at.param_elems = 2 * 8; /* scale and shift per channel */
    int l = dnp_graph_append(g, "ln", DNP_OP_LAYERNORM, 1, &a,
                             dnp_op_out_view(dnp_graph_op(g, a)), &at);
    int f = dnp_graph_flatten(g, "flat", l);
    int o = dnp_graph_fc(g, "fc", f, 10, 0);
    dnp_graph_unary(g, "softmax", DNP_OP_SOFTMAX, o);
    return g;
}

TEST(row_ops_rule)
{
    dnp_graph *g = row_graph();
    CHECK_STR(dnp_graph_error(g), "");
    int n_ops = dnp_graph_n_ops(g); /* x c1 lrn add ln flat fc softmax */
    CHECK_EQ_INT(n_ops, 8);
    static const int decider[8] = {-1, -1, 1, -1, 3, -1, -1, 6};
    static const int keeps[8] = {0, 1, 0, 1, 0, 0, 1, 0};
    for (int i = 0; i < n_ops && i < 8; i++) {
        CHECK_EQ_INT(row_op_decider(g, i), decider[i]);
        CHECK_EQ_INT(row_op_keeps_channels(g, i), keeps[i]);
    }
    CHECK_EQ_INT(row_op_decider(g, -1), -1);
    CHECK_EQ_INT(row_op_decider(g, n_ops), -1);
    CHECK(row_op_kind(DNP_OP_SOFTMAX) && row_op_kind(DNP_OP_LAYERNORM) &&
          row_op_kind(DNP_OP_LRN));
    CHECK(!row_op_kind(DNP_OP_BATCHNORM) && !row_op_kind(DNP_OP_RELU));

    /* the fixed dimensions: the row ops' normalised axes, their deciders'
     * output channels (c1 'n', the add's 'c', the fc's 'n'), nothing else */
    iter_space *s = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(iter_space_build(g, 4, &s, &err), DNP_OK);
    if (s == NULL) {
        dnp_graph_free(g);
        return;
    }
    unsigned before[64];
    for (int v = 0; v < s->n_nest && v < 64; v++)
        before[v] = s->nest[v].fixed;
    pase_restrict_row_ops(s);
    struct {
        const char *nest, *dim;
    } want[] = {{"c1", "n"}, {"lrn", "c"}, {"add", "c"}, {"ln", "c"}, {"fc", "n"}};
    unsigned added[64] = {0};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        int v = nest_named(s, want[k].nest), d = dim_named(s, v, want[k].dim);
        CHECK(v >= 0 && d >= 0);
        if (v >= 0 && d >= 0 && v < 64)
            added[v] |= 1u << (unsigned)d;
    }
    int sm = nest_named(s, "softmax"); /* the loss on a flat row: its classes last */
    CHECK(sm >= 0 && s->nest[sm].kind == ITER_SCE);
    if (sm >= 0 && sm < 64)
        added[sm] |= 1u << (unsigned)(s->nest[sm].rank - 1);
    for (int v = 0; v < s->n_nest && v < 64; v++)
        CHECK_EQ_INT(s->nest[v].fixed, before[v] | added[v]);
    iter_space_free(s);
    dnp_graph_free(g);
}

/* Only the default model applies the rule (the problem's own space). */
TEST(row_ops_default_model_only)
{
    dnp_graph *g = row_graph();
    dnp_pase_hw hw;
    dnp_error herr = {0};
    CHECK_EQ_INT(dnp_pase_hw_uniform(4, 1e13, 1.6e10, &hw, &herr), DNP_OK);
    for (int paper = 0; paper < 2; paper++) {
        dnp_pase_options po;
        memset(&po, 0, sizeof po);
        po.cost_model = paper ? DNP_COST_PASE_PAPER : DNP_COST_DEFAULT;
        po.batch = 4;
        dnp_pase_problem *pp = NULL;
        dnp_error err = {0};
        CHECK_EQ_INT(dnp_pase_problem_from_graph(g, &hw, &po, &pp, &err), DNP_OK);
        if (pp == NULL)
            continue;
        int v = nest_named(pp->g, "fc"), d = dim_named(pp->g, v, "n");
        CHECK(v >= 0 && d >= 0);
        if (v >= 0 && d >= 0)
            CHECK_EQ_INT((pp->g->nest[v].fixed >> (unsigned)d) & 1u, paper ? 0 : 1);
        dnp_pase_problem_free(pp);
    }
    dnp_graph_free(g);
}

/* Every strategy of pb (odometer over the configurations) that splits
 * neither (v1, d1) nor (v2, d2): the least F and how many there are. */
static double best_allowed(const pase_problem *pb, int v1, int d1, int v2, int d2, long *count)
{
    int cfg[16] = {0};
    double best = INFINITY;
    *count = 0;
    if (pb->n_v > 16)
        return best;
    for (;;) {
        int ok = 1;
        const int vs[2] = {v1, v2}, ds[2] = {d1, d2};
        for (int k = 0; k < 2; k++) {
            const pase_configs *c = &pb->cfg[vs[k]];
            ok &= c->c[(size_t)cfg[vs[k]] * (size_t)c->rank + (size_t)ds[k]] == 1;
        }
        if (ok) {
            double f = pase_objective(pb, cfg);
            best = f < best ? f : best;
            (*count)++;
        }
        int v = 0;
        while (v < pb->n_v && ++cfg[v] == pb->cfg[v].n)
            cfg[v++] = 0;
        if (v == pb->n_v)
            break;
    }
    return best;
}

/* x (64) -> fc1 (64) -> fc2 (512) -> softmax at batch 4 on 4 devices, Eq. 1
 * with communication cheap beside fc2's weight: the unrestricted optimum
 * splits fc2's outputs (the classes), the restricted one may not. */
TEST(row_ops_pase_search_exhaustive)
{
    dnp_graph *g = dnp_graph_new("rows-fc");
    int x = dnp_graph_input(g, "x", 64, 1, 1);
    int a = dnp_graph_fc(g, "fc1", x, 64, 0);
    int b = dnp_graph_fc(g, "fc2", a, 512, 0);
    dnp_graph_unary(g, "softmax", DNP_OP_SOFTMAX, b);
    iter_space *s = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(iter_space_build(g, 4, &s, &err), DNP_OK);
    if (s == NULL) {
        dnp_graph_free(g);
        return;
    }
    s->core_owned = g;
    int v2 = nest_named(s, "fc2"), d2 = dim_named(s, v2, "n");
    int vs = nest_named(s, "softmax"), ds = vs >= 0 ? s->nest[vs].rank - 1 : -1;
    CHECK(v2 >= 0 && d2 >= 0 && vs >= 0 && ds >= 0);
    if (v2 < 0 || d2 < 0 || vs < 0 || ds < 0) {
        iter_space_free(s);
        return;
    }
    pase_params par = {4, 2.0, 0, 1e9, 1};
    pase_problem full, pb;
    CHECK_EQ_INT(pase_problem_build(s, &par, &full, &err), DNP_OK);
    int ex[16];
    double best_full = pase_exhaustive(&full, 1e7, ex);
    /* the unrestricted optimum splits fc2's outputs */
    CHECK(full.cfg[v2].c[(size_t)ex[v2] * (size_t)full.cfg[v2].rank + (size_t)d2] > 1);
    long n_allowed = 0;
    double want = best_allowed(&full, v2, d2, vs, ds, &n_allowed);

    pase_restrict_row_ops(s);
    CHECK_EQ_INT(pase_problem_build(s, &par, &pb, &err), DNP_OK);
    double n_restricted = 1.0;
    for (int v = 0; v < pb.n_v; v++)
        n_restricted *= pb.cfg[v].n;
    CHECK_EQ_INT((long)n_restricted, n_allowed); /* the same space, built or filtered */
    for (int bfs = 0; bfs < 2; bfs++) {
        pase_search_opts o = {1, NULL, NULL, 0.0, 0, 0.0};
        pase_result r;
        CHECK(pase_search(&pb, bfs, &o, &r, &err) == DNP_OK);
        CHECK_EQ_INT(pb.cfg[v2].c[(size_t)r.cfg[v2] * (size_t)pb.cfg[v2].rank + (size_t)d2], 1);
        CHECK_EQ_INT(pb.cfg[vs].c[(size_t)r.cfg[vs] * (size_t)pb.cfg[vs].rank + (size_t)ds], 1);
        CHECK_NEAR(r.cost, want, 1e-12, 0);
        pase_result_free(&r);
    }
    CHECK(want > best_full * (1.0 + 1e-9)); /* the rule costs something here */
    pase_problem_free(&full);
    pase_problem_free(&pb);
    iter_space_free(s);
}
