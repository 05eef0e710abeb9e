/* test_deadline.c - one deadline per command (issue 31, item 1): the limit
 * counts from the command's start (time_limit_from_s), every layer reads
 * the same deadline, and past it a call either returns its best so far,
 * flagged, or fails with one message (docs/cli.md "Time limits").  The
 * starts are set in the past so that which side of the deadline each
 * check falls on is certain, never timed. */
#include "dnnpar.h"
#include "test.h"

#include <stdio.h>
#include <string.h>

static dnp_graph *zoo(const char *name)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load(name, &g, &err), DNP_OK);
    return g;
}

/* The search's half of the limit already spent (the start 500.5 s ago, a
 * limit of 1000 s): the ratio search stops at its first check and keeps
 * the equal split, the baselines are skipped, the plan is still lowered
 * and simulated (the whole deadline is 499.5 s away) and says so. */
TEST(deadline_plan_search_half_spent_best_so_far)
{
    dnp_graph *g = zoo("vgg19");
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("4xa100+4xv100", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 256, .time_limit_s = 1000.0};
    opt.time_limit_from_s = dnp_clock_s() - 500.5;
    dnp_plan *p = NULL;
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_OK);
    if (p != NULL) {
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        CHECK_EQ_INT(s.time_limit_hit, 1);
        CHECK(s.time_limit_s == 1000.0);
        CHECK_EQ_INT(s.chosen_scheme, DNP_SCHEME_ACCPAR); /* baselines not compared */
        CHECK(s.sim_tasks > 0 && s.step_time_s > 0.0);  /* lowered and simulated */
        /* cut before its first candidate: every split takes the equal ratio
         * (4 devices against 4 at the top, 2 against 2, 1 against 1) */
        for (int k = 0; k < s.levels; k++)
            CHECK_NEAR(dnp_plan_ratio(p, k, 0), 0.5, 1e-12, 0.0);
        dnp_plan_free(p);
    }
    /* the same run with the limit counted from now: nothing cut, the
     * ratio search finds a better top split than the equal one */
    opt.time_limit_from_s = 0.0;
    p = NULL;
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_OK);
    if (p != NULL) {
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        CHECK_EQ_INT(s.time_limit_hit, 0);
        dnp_plan_free(p);
    }
    dnp_graph_free(g);
}

/* The whole limit spent: the lowering stops at its first check, and with
 * nothing simulated there is no plan to return, plan or strategy alike:
 * DNP_ERR_INPUT with one message naming the limit and the step's size. */
TEST(deadline_plan_lowering_stops)
{
    dnp_graph *g = zoo("resnet50");
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("1000xv100+1000xa100", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 2048, .time_limit_s = 5.0};
    opt.time_limit_from_s = dnp_clock_s() - 10.0;
    dnp_plan *p = NULL;
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_ERR_INPUT);
    CHECK(p == NULL);
    CHECK(strstr(err.msg, "time limit of 5 s reached while simulating the step of resnet50 (") ==
          err.msg);
    CHECK(strstr(err.msg, "no result to report (a larger --time-limit would do)") != NULL);
    /* every scheme the same (dp: no search to cut, the lowering stops) */
    opt.scheme = DNP_SCHEME_DP;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "time limit of 5 s reached while simulating") == err.msg);
    /* a negative start is refused, not read as "from now" */
    opt.time_limit_from_s = -1.0;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "time limit must be") != NULL);
    dnp_graph_free(g);
}

/* A Megatron-LM configuration's step (pp x micro-batches x interleave
 * units) stops at the deadline before its first unit. */
TEST(deadline_config3d_simulate_stops)
{
    dnp_graph *g = zoo("gpt2");
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("2xdgx-a100", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_config3d cfg;
    CHECK_EQ_INT(dnp_config3d_parse("tp=4,pp=4,microbatch=1,interleave=3", &cfg, &err), DNP_OK);
    dnp_plan_options opt = {.batch = 4096, .optimizer = DNP_OPTIM_ADAM,
                            .memory_limit_bytes = 1e15, .time_limit_s = 1.0};
    opt.time_limit_from_s = dnp_clock_s() - 2.0;
    dnp_config3d_result res;
    CHECK_EQ_INT(dnp_config3d_simulate(g, &cl, 4096, &opt, &cfg, &res, &err), DNP_ERR_INPUT);
    /* 4096 micro-batches x 3 chunks x 2 passes x 4 stages = 98,304 units */
    CHECK_STR(err.msg, "time limit of 1 s reached while simulating the step of gpt2 (0 of 98304 "
                       "micro-batch chunks issued): no result to report (a larger --time-limit "
                       "would do)");
    /* no limit: the same configuration simulates */
    opt.time_limit_s = 0.0;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_config3d_simulate(g, &cl, 4096, &opt, &cfg, &res, &err), DNP_OK);
    CHECK_EQ_INT(res.microbatches, 4096);
    dnp_graph_free(g);
}

/* PaSE: the deadline counts from the command's start, so time spent before
 * the search (the problem's setup) is counted: a limit of 5 s started 10 s
 * ago stops the DP at its first vertex, and MCMC keeps its start, flagged. */
TEST(deadline_pase_counts_from_the_start)
{
    dnp_pase_hw hw;
    memset(&hw, 0, sizeof hw);
    dnp_pase_problem *pb = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_pase_hw_uniform(8, 10e12, 16e9, &hw, &err), DNP_OK);
    CHECK_EQ_INT(dnp_pase_problem_load("lenet", &hw, NULL, &pb, &err), DNP_OK);
    if (pb == NULL)
        return;
    dnp_pase_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.threads = 1;
    ro.time_limit_s = 5.0;
    ro.time_limit_from_s = dnp_clock_s() - 10.0;
    dnp_pase_run *r = NULL;
    CHECK_EQ_INT(dnp_pase_run_new(pb, &ro, &r, &err), DNP_ERR_INPUT);
    CHECK(r == NULL);
    CHECK(strstr(err.msg, "time limit of 5 s reached in the PaSE search after 0 of ") ==
          err.msg);
    ro.search = DNP_PASE_SEARCH_MCMC;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_pase_run_new(pb, &ro, &r, &err), DNP_OK);
    if (r != NULL) {
        dnp_pase_summary s;
        dnp_pase_run_summary(r, &s);
        CHECK_EQ_INT(s.time_limit_hit, 1);
        dnp_pase_run_free(r);
    }
    /* the same limit counted from now is not reached */
    ro.time_limit_from_s = 0.0;
    ro.search = DNP_PASE_SEARCH_DP;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_pase_run_new(pb, &ro, &r, &err), DNP_OK);
    dnp_pase_run_free(r);
    dnp_pase_problem_free(pb);
}

/* The mixed-cluster baselines of --search 3d share the search's deadline:
 * started in the past, none is weighed, and they say so instead of "no
 * configuration fits". */
TEST(deadline_config3d_baselines_flagged)
{
    dnp_graph *g = zoo("gpt(hidden=512,heads=8,layers=8,seq=512,vocab=1000)");
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100+2xg4dn.12xlarge", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 16, .precision = DNP_PREC_FP16, .optimizer = DNP_OPTIM_ADAM,
                            .time_limit_s = 1.0};
    opt.time_limit_from_s = dnp_clock_s() - 2.0;
    static dnp_config3d_baselines base;
    CHECK_EQ_INT(dnp_config3d_mixed_baselines(g, &cl, 16, &opt, &base, &err), DNP_OK);
    CHECK_EQ_INT(base.time_limit_hit, 1);
    CHECK(!base.slowest_ok && !base.fastest_ok && !base.amp_ok && !base.uniform_ok);
    opt.time_limit_s = 0.0;
    CHECK_EQ_INT(dnp_config3d_mixed_baselines(g, &cl, 16, &opt, &base, &err), DNP_OK);
    CHECK_EQ_INT(base.time_limit_hit, 0);
    CHECK(base.fastest_ok);
    dnp_graph_free(g);
}

/* Exports never write a plan `plan` refuses for memory: a plan made under
 * the AccPar paper's accounting (no memory model; what the jax, dtensor
 * and astra exports plan with) is lowered under the default model and
 * refused with dnp_plan_run's message, word for word. */
TEST(deadline_plan_check_memory_as_plan)
{
    dnp_graph *g = zoo("gpt2-xl");
    dnp_cluster cl;
    dnp_error err = {0}, plan_err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("8xtpu-v3", &cl, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 512};
    dnp_plan *p = NULL;
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &plan_err), DNP_ERR_INPUT);
    CHECK(strstr(plan_err.msg, "no accpar plan of gpt2-xl at batch 512 fits in 128 GB per device "
                               "on 8xtpu-v3: the smallest needs 587 GB") == plan_err.msg);
    opt.cost_model = DNP_COST_ACCPAR_PAPER;
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_OK);
    if (p != NULL) {
        CHECK_EQ_INT(dnp_plan_check_memory(p, g, &err), DNP_ERR_INPUT);
        CHECK_STR(err.msg, plan_err.msg);
        char *text = NULL;
        dnp_error_clear(&err);
        CHECK_EQ_INT(dnp_export_text(DNP_EXPORT_JAX, g, &cl, &opt, p, &text, &err),
                     DNP_ERR_INPUT);
        CHECK(text == NULL);
        CHECK_STR(err.msg, plan_err.msg);
        dnp_plan_free(p);
    }
    /* one that fits passes (gpt2 on the same devices) */
    dnp_graph_free(g);
    g = zoo("gpt2");
    if (g != NULL && dnp_plan_run(g, &cl, &opt, &p, &err) == DNP_OK) {
        dnp_error_clear(&err);
        CHECK_EQ_INT(dnp_plan_check_memory(p, g, &err), DNP_OK);
        dnp_plan_free(p);
    }
    dnp_graph_free(g);
}

/* validate: every row reads the one deadline; a validation that passes it
 * is refused as a whole (no row left out silently), one that does not is
 * the same as without a limit. */
TEST(deadline_validate_whole_file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/validation/resnet50.csv", test_data_dir());
    dnp_plan_options limit = {.time_limit_s = 1.0};
    limit.time_limit_from_s = dnp_clock_s() - 2.0;
    dnp_validation *v = NULL, *w = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_validate_csv_limited(path, 1, &limit, &v, &err), DNP_ERR_INPUT);
    CHECK(v == NULL);
    CHECK(strstr(err.msg, "time limit of 1 s reached while validating ") == err.msg);
    CHECK(strstr(err.msg, "resnet50.csv (6 rows): no result to report") != NULL);
    limit.time_limit_s = 600.0;
    limit.time_limit_from_s = 0.0;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_validate_csv_limited(path, 1, &limit, &v, &err), DNP_OK);
    CHECK_EQ_INT(dnp_validate_csv(path, 1, &w, &err), DNP_OK);
    if (v != NULL && w != NULL) {
        CHECK_EQ_INT(v->n_rows, w->n_rows);
        CHECK(v->mape_pct == w->mape_pct && v->n_validate == 3);
    }
    dnp_validation_free(v);
    dnp_validation_free(w);
}
