/* test_pase_walk.c - PaSE's plan as the one strategy type, built straight
 * from the run (pase_strategy.c: pase_walk_groups, issue 34 item 3), is
 * the strategy the strategy file's round trip builds (the file written,
 * read back into the planner's tree, plan_strategy_from_tree): group by
 * group (devices, depth, halves, alpha, every op's split and shares, to
 * the bit), op by op (splits, partial sums), axis by axis; and the step
 * it simulates (pase_run_simulate) is the round trip's plan's, bitwise.
 */
#include "search/pase/pase_driver.h"
#include "search/plan_internal.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 if a and b are the same strategy to the bit; else 0 with what differs
 * in why. */
static int same_strategy(const plan_strategy *a, const plan_strategy *b, char *why, size_t n)
{
    if (a->n_ops != b->n_ops || a->batch != b->batch || a->n_stages != b->n_stages ||
        a->n_groups != b->n_groups || a->n_axes != b->n_axes) {
        snprintf(why, n, "sizes: ops %d/%d groups %d/%d axes %d/%d", a->n_ops, b->n_ops,
                 a->n_groups, b->n_groups, a->n_axes, b->n_axes);
        return 0;
    }
    for (int i = 0; i < a->n_stages; i++)
        if (memcmp(&a->stage[i], &b->stage[i], sizeof a->stage[i]) != 0) {
            snprintf(why, n, "stage %d", i);
            return 0;
        }
    size_t row_bytes = (size_t)a->n_ops * sizeof(double);
    for (int i = 0; i < a->n_groups; i++) {
        const plan_group *x = &a->group[i], *y = &b->group[i];
        const char *what =
            memcmp(x->counts, y->counts, sizeof x->counts) != 0 || x->n_dev != y->n_dev ||
                    x->depth != y->depth
                ? "devices"
            : x->child[0] != y->child[0] || x->child[1] != y->child[1] || x->shared != y->shared
                ? "halves"
            : memcmp(&x->alpha, &y->alpha, sizeof x->alpha) != 0 ? "alpha"
            : memcmp(x->split, y->split, (size_t)a->n_ops) != 0  ? "splits"
            : memcmp(x->fb, y->fb, row_bytes) != 0 || memcmp(x->fi, y->fi, row_bytes) != 0 ||
                    memcmp(x->fo, y->fo, row_bytes) != 0
                ? "shares"
                : NULL;
        if (what != NULL) {
            snprintf(why, n, "group %d (depth %d, %lld devices): %s", i, x->depth,
                     (long long)x->n_dev, what);
            return 0;
        }
    }
    for (int v = 0; v < a->n_ops; v++) {
        const plan_op *x = &a->ops[v], *y = &b->ops[v];
        int same = x->op == y->op && x->stage == y->stage && x->weighted == y->weighted &&
                   x->n_splits == y->n_splits && x->out_partial == y->out_partial &&
                   x->wgrad_partial == y->wgrad_partial && x->igrad_partial == y->igrad_partial;
        for (int k = 0; same && k < x->n_splits; k++)
            same = strcmp(x->split[k].dim, y->split[k].dim) == 0 &&
                   x->split[k].axes == y->split[k].axes;
        if (!same) {
            snprintf(why, n, "op %d (graph op %d)", v, x->op);
            return 0;
        }
    }
    for (int k = 0; k < a->n_axes; k++)
        if (strcmp(a->axis[k].name, b->axis[k].name) != 0 || a->axis[k].size != b->axis[k].size ||
            memcmp(&a->axis[k].share, &b->axis[k].share, sizeof(double)) != 0 ||
            memcmp(a->axis[k].half_counts, b->axis[k].half_counts,
                   sizeof a->axis[k].half_counts) != 0) {
            snprintf(why, n, "axis %d", k);
            return 0;
        }
    return 1;
}

/* The round trip PaSE's plans took before: run r's strategy file
 * (dnp_pase_run_strategy, as text) read back (dnp_strategy_read_buffer)
 * and planned (dnp_plan_run_strategy) on the cluster it names, with the
 * options PaSE's plans have (pase_plan.c).  NULL when any step refuses. */
static dnp_plan *file_round_trip(const dnp_pase_run *r, const dnp_pase_problem *pb,
                                 const dnp_cluster *cl, dnp_pase_strategy_info *info)
{
    char *text = NULL;
    dnp_strategy *strat = NULL;
    dnp_plan *p = NULL;
    dnp_cluster used;
    dnp_error err = {0};
    int64_t batch = dnp_pase_problem_batch(pb);
    const dnp_graph *core = pb->pb.g->core;
    dnp_status st = dnp_pase_run_strategy(r, core, NULL, cl, batch, &text, info, &err);
    if (st == DNP_OK)
        st = dnp_strategy_read_buffer(text, strlen(text), "pase", &strat, &err);
    if (st == DNP_OK)
        st = dnp_cluster_parse(info->cluster, &used, &err);
    if (st == DNP_OK) {
        dnp_plan_options po;
        memset(&po, 0, sizeof po);
        po.batch = batch;
        po.precision = pb->opt.precision;
        po.optimizer = pb->opt.optimizer;
        po.memory_limit_bytes = pb->opt.memory_limit_bytes;
        po.no_stragglers = pb->opt.no_stragglers;
        po.keep_over_memory = 1;
        po.search_name = "pase";
        if (dnp_plan_run_strategy(core, &used, &po, strat, &p, &err) != DNP_OK)
            p = NULL;
    }
    dnp_strategy_free(strat);
    dnp_free(text);
    return p;
}

/* 1 if strategy s (straight) and the strategy of plan p's tree are the
 * same to the bit (reporting where they differ), and s is p's tree. */
static int same_as_plan(const plan_strategy *s, const dnp_plan *p, const char *model,
                        const char *spec, int space, const char *which)
{
    plan_tree t = plan_tree_of(p);
    plan_strategy *of_tree = NULL;
    dnp_error err = {0};
    char why[128] = "";
    CHECK_EQ_INT(plan_strategy_from_tree(&t, &of_tree, &err), DNP_OK);
    int same = of_tree != NULL && same_strategy(s, of_tree, why, sizeof why) &&
               plan_strategy_matches_tree(s, &t);
    if (!same)
        fprintf(stderr, "  %s on %s (space %d): the straight strategy and %s differ at %s\n",
                model, spec, space, which, why);
    plan_strategy_free(of_tree);
    return same;
}

/* 1 if simulated steps a and b are the same to the bit. */
static int same_step(const lower_result *a, const lower_result *b)
{
    return memcmp(&a->step_time_s, &b->step_time_s, sizeof(double)) == 0 &&
           memcmp(&a->mem_peak_bytes, &b->mem_peak_bytes, sizeof(double)) == 0 &&
           a->fits == b->fits && a->n_classes == b->n_classes;
}

/* PaSE (the default cost model, in the strategy's space if `space`) on
 * `model` over `spec`: the run's strategy straight (pase_walk_groups)
 * against the file's round trip and against the PaSE plan
 * (dnp_pase_run_plan, now made from the groups), and the step each
 * simulates.  Returns 1 when the run has a dnnpar strategy (compared), 0
 * when none of the ways has one, -1 when the run itself fails (a model
 * PaSE does not take); *split set when the run split the batch across
 * device types.  The straight strategy in *out when out is not NULL (the
 * caller's). */
static int check_case(const char *model, const char *spec, int space, int *split,
                      plan_strategy **out)
{
    dnp_pase_options po;
    memset(&po, 0, sizeof po);
    po.strategy_space = space;
    dnp_pase_hw hw;
    dnp_cluster cl;
    dnp_error err = {0};
    dnp_pase_problem *pb = NULL;
    dnp_pase_run *r = NULL;
    dnp_status st = dnp_cluster_parse(spec, &cl, &err);
    if (st == DNP_OK)
        st = dnp_pase_hw_from_cluster(&cl, &hw, &err);
    if (st == DNP_OK)
        st = dnp_pase_problem_load(model, &hw, &po, &pb, &err);
    if (st == DNP_OK)
        st = dnp_pase_run_new(pb, NULL, &r, &err);
    if (st != DNP_OK) {
        dnp_pase_run_free(r);
        dnp_pase_problem_free(pb);
        return -1;
    }
    /* the graph the strategy names: the model's, or a reference graph's
     * zoo model (dnp_pase_search_plan's) */
    const dnp_graph *core = pb->pb.g->core;
    dnp_pase_strategy_info info_file, info_plan, info;
    dnp_plan *via_file = file_round_trip(r, pb, &cl, &info_file);
    dnp_plan *p = NULL;
    dnp_status plan_st = dnp_pase_run_plan(r, core, &cl, &p, &info_plan, &err);
    pase_walk *w = NULL;
    plan_strategy *direct = NULL;
    dnp_error e2 = {0};
    dnp_status walk_st = pase_walk_new(r, core, &cl, &w, &info, &e2);
    lower_result sim;
    dnp_status sim_st = pase_run_simulate(r, core, &cl, &sim, &e2);
    int compared = via_file != NULL;
    if (via_file == NULL) {
        CHECK(sim_st != DNP_OK); /* no strategy any way */
        CHECK(plan_st != DNP_OK);
    } else {
        CHECK_EQ_INT(walk_st, DNP_OK);
        CHECK_EQ_INT(sim_st, DNP_OK);
        CHECK_EQ_INT(plan_st, DNP_OK);
        if (walk_st == DNP_OK)
            CHECK_EQ_INT(pase_walk_groups(w, &via_file->lt, dnp_pase_problem_batch(pb), &direct,
                                          &e2),
                         DNP_OK);
        CHECK(direct != NULL && same_as_plan(direct, via_file, model, spec, space, "the file's"));
        CHECK(direct != NULL && p != NULL &&
              same_as_plan(direct, p, model, spec, space, "the PaSE plan's"));
        CHECK(strcmp(info.cluster, info_file.cluster) == 0);
        CHECK(strcmp(info.cluster, info_plan.cluster) == 0);
        CHECK_EQ_INT(info.idle_ops, info_file.idle_ops);
        CHECK_EQ_INT(info.type_split, info_file.type_split);
        *split = info.type_split;
        CHECK(via_file->has_sim && p != NULL && p->has_sim);
        if (sim_st == DNP_OK && via_file->has_sim && p != NULL && p->has_sim) {
            if (!same_step(&sim, &via_file->sim) || !same_step(&p->sim, &via_file->sim))
                fprintf(stderr,
                        "  %s on %s (space %d): step %.17g s, PaSE plan %.17g s, through the "
                        "file %.17g s\n",
                        model, spec, space, sim.step_time_s, p->sim.step_time_s,
                        via_file->sim.step_time_s);
            CHECK(same_step(&sim, &via_file->sim));
            CHECK(same_step(&p->sim, &via_file->sim));
        }
    }
    lower_result_free(&sim);
    if (out != NULL)
        *out = direct;
    else
        plan_strategy_free(direct);
    pase_walk_free(w);
    dnp_plan_free(p);
    dnp_plan_free(via_file);
    dnp_pase_run_free(r);
    dnp_pase_problem_free(pb);
    return compared;
}

/* VGG-11 on 8xa100+8xv100 in the strategy's space: the batch split
 * across the types (the a100s take more of the 128 samples; the
 * simulator's refinement of that level moves a few ops to their input or
 * output dimension there), so the root group (16 devices) splits every op
 * with alpha the a100s' samples / 128 into the 8 a100s and the 8 v100s,
 * two different groups; each type's group then halves
 * three times into identical halves (one shared group per level): 1 + 2
 * x 4 = 9 groups.  A homogeneous 4xa100: 3 groups (4, 2, 1 devices). */
TEST(pase_walk_groups_by_hand)
{
    plan_strategy *s = NULL;
    int split = 0;
    CHECK_EQ_INT(check_case("vgg11", "8xa100+8xv100", 1, &split, &s), 1);
    CHECK_EQ_INT(split, 1);
    if (s != NULL) {
        CHECK_EQ_INT(s->n_groups, 9);
        /* the a100s' samples over the batch's 128 (89 here, the type
         * level refined in the simulator: pase_cross.c) */
        double a100_samples = s->group[0].alpha * 128.0;
        CHECK(a100_samples > 64.0 && a100_samples < 128.0);
        CHECK_NEAR(a100_samples, (double)(long)a100_samples, 0, 0);
        CHECK_EQ_INT(s->group[0].shared, 0);
        CHECK_EQ_INT((int)s->group[0].n_dev, 16);
        CHECK_EQ_INT(s->group[0].child[0], 1);
        CHECK_EQ_INT(s->group[0].child[1], 5);
        int batch_split = 0; /* most ops split the batch across the types */
        for (int v = 0; v < s->n_ops; v++) {
            CHECK(s->group[0].split[v] != PLAN_SPLIT_NONE);
            batch_split += s->group[0].split[v] == PLAN_SPLIT_B;
        }
        CHECK(2 * batch_split > s->n_ops);
        for (int i = 1; i <= 5; i += 4) {
            const plan_group *g = &s->group[i];
            CHECK_EQ_INT((int)g->n_dev, 8);
            CHECK_EQ_INT((int)(g->counts[0] + g->counts[1]), 8);
            CHECK(g->counts[0] == 0 || g->counts[1] == 0);
            CHECK_EQ_INT(g->shared, 1);
            CHECK_EQ_INT(g->child[0], g->child[1]);
            CHECK_EQ_INT(s->group[i + 3].child[0], -1); /* the leaf: one device */
        }
        CHECK_EQ_INT((int)(s->group[1].counts[0] + s->group[5].counts[0]), 8);
    }
    plan_strategy_free(s);
    s = NULL;
    CHECK_EQ_INT(check_case("alexnet", "4xa100", 0, &split, &s), 1);
    CHECK_EQ_INT(split, 0);
    if (s != NULL) {
        CHECK_EQ_INT(s->n_groups, 3);
        CHECK_NEAR(s->group[0].alpha, 0.5, 0, 0);
        CHECK_EQ_INT(s->group[0].shared, 1);
        CHECK_EQ_INT((int)s->group[2].n_dev, 1);
        CHECK_EQ_INT(s->n_axes, 2);
    }
    plan_strategy_free(s);
    /* an uneven tree (a100 leaves at depth 2, v100 at 3): still equal */
    CHECK(check_case("alexnet", "2xa100+4xv100", 0, &split, NULL) >= 0);
}

/* Zoo models PaSE takes, on one type, two types and a larger mixed
 * cluster, in the full space and the strategy's: the straight strategy is
 * the file's round trip's and simulates to the same step.  A sweep: the
 * sanitizer build checks AlexNet, the release twin eight models (within
 * the runner's 120 s); DNNPAR_PASE_WALK_ZOO=1 takes every zoo model (give
 * DNNPAR_TEST_TIMEOUT=0: tens of minutes), DNNPAR_PASE_WALK_ZOO=NAME model
 * NAME alone. */
TEST_SWEEP(pase_walk_groups_equal_round_trip)
{
    static const char *const specs[] = {"4xa100", "2xa100+2xv100", "8xa100+8xv100"};
    static const char *const some[] = {"lenet",    "alexnet",   "vgg11", "vgg16",
                                       "resnet18", "resnet50",  "bert-base", "dbn-m"};
    const char *zoo = getenv("DNNPAR_PASE_WALK_ZOO"); /* "1": every model, else one */
    const int all = zoo != NULL && strcmp(zoo, "1") == 0;
    int compared = 0, split = 0, splits = 0;
    for (int i = 0; i < dnp_zoo_count(); i++) {
        const char *name = dnp_zoo_name(i);
        int take = all || (zoo != NULL ? strcmp(name, zoo) == 0
                                       : !test_sweep_full() && strcmp(name, "alexnet") == 0);
        const size_t n_some = sizeof some / sizeof some[0];
        for (size_t k = 0; zoo == NULL && !take && test_sweep_full() && k < n_some; k++)
            take = strcmp(name, some[k]) == 0;
        if (!take)
            continue;
        for (int c = 0; c < 3; c++)
            for (int space = 0; space < (c == 0 ? 1 : 2); space++) {
                split = 0;
                int got = check_case(name, specs[c], space, &split, NULL);
                compared += got == 1;
                splits += got == 1 && split;
            }
    }
    fprintf(stderr, "  pase_walk: %d runs compared, %d with the type split\n", compared, splits);
    if (zoo == NULL || all) {
        CHECK(compared >= 5);
        CHECK(splits >= 2);
    }
}
