/* test_sim.c - the step simulator: its engine, its invariants and
 * hand-worked steps (docs/time-model.md, "The default model"). */
#include "test.h"

#include "dnnpar.h"
#include "perf/device_model.h"
#include "sim/sim.h"
#include "search/plan_internal.h"
#include "model/graph_named.h"

#include <stdlib.h>

/* Two streams: t0 on A (2 s); t1 on B (3 s); t2 on A after t1 (1 s) starts
 * at 3; t3 on A and B together (2 s) starts when both are free, at 4. */
TEST(sim_engine_hand_worked)
{
    sim_graph g;
    sim_init(&g, 2);
    int a = 0, b = 1, ab[2] = {0, 1};
    int t0 = sim_add(&g, SIM_COMPUTE, 2.0, -1, 0, &a, 1, NULL, 0);
    int t1 = sim_add(&g, SIM_COMM, 3.0, -1, 0, &b, 1, NULL, 0);
    int t2 = sim_add(&g, SIM_COMPUTE, 1.0, -1, 0, &a, 1, &t1, 1);
    int t3 = sim_add(&g, SIM_COMM, 2.0, -1, 0, ab, 2, NULL, 0);
    CHECK(t0 == 0 && t3 == 3);
    double makespan = sim_run(&g);
    CHECK_NEAR(makespan, 6.0, 0, 0);
    CHECK_NEAR(g.tasks[t2].start_s, 3.0, 0, 0);
    CHECK_NEAR(g.tasks[t3].start_s, 4.0, 0, 0);
    CHECK_EQ_INT(g.tasks[t3].crit_pred, t2);
    CHECK_EQ_INT(g.tasks[t2].crit_pred, t1);
    CHECK_EQ_INT(g.tasks[t1].crit_pred, -1);
    CHECK_NEAR(sim_stream_busy_s(&g, a), 5.0, 0, 0);
    CHECK_NEAR(sim_stream_busy_s(&g, b), 5.0, 0, 0);
    /* all streams in one pass: the same sums (a task on both counts on each) */
    double busy[2] = {-1.0, -1.0};
    sim_streams_busy_s(&g, 2, busy);
    CHECK_NEAR(busy[a], 5.0, 0, 0);
    CHECK_NEAR(busy[b], 5.0, 0, 0);
    sim_free(&g);
}

/* Exposed time of compute stream 0 against comm streams 1 and 2 (stream 3
 * is another device's compute):
 *   c0 on 0 [0,2); m1 on 1 [0,1) hidden under c0;
 *   m2 on 2 after c0 [2,5); m3 on 1 after c0 [2,4): union [2,5);
 *   c4 on 0 after m3 [4,5): exposed so far [2,4) = 2;
 *   t5 on 3 after c4 [5,7): stream 0 idle, no comm in flight (a wait);
 *   c6 on 0 after t5 [7,8); m7 on 1 after c6 [8,8.5): exposed 0.5.
 * Exposed 2.5 s of the 4.5 s stream 0 is idle (8.5 - busy 4); the other
 * 2 s wait for stream 3; the comm streams are busy 1 + 3 + 2 + 0.5 = 6.5. */
TEST(sim_exposed_hand_worked)
{
    sim_graph g;
    sim_init(&g, 4);
    int s0 = 0, s1 = 1, s2 = 2, s3 = 3, comm[2] = {1, 2};
    int c0 = sim_add(&g, SIM_COMPUTE, 2.0, -1, 0, &s0, 1, NULL, 0);
    sim_add(&g, SIM_COMM, 1.0, -1, 0, &s1, 1, NULL, 0);
    sim_add(&g, SIM_COMM, 3.0, -1, 0, &s2, 1, &c0, 1);
    int m3 = sim_add(&g, SIM_COMM, 2.0, -1, 0, &s1, 1, &c0, 1);
    int c4 = sim_add(&g, SIM_COMPUTE, 1.0, -1, 0, &s0, 1, &m3, 1);
    int t5 = sim_add(&g, SIM_COMPUTE, 2.0, -1, 0, &s3, 1, &c4, 1);
    int c6 = sim_add(&g, SIM_COMPUTE, 1.0, -1, 0, &s0, 1, &t5, 1);
    sim_add(&g, SIM_COMM, 0.5, -1, 0, &s1, 1, &c6, 1);
    CHECK_NEAR(sim_run(&g), 8.5, 0, 0);
    CHECK_NEAR(g.tasks[c4].start_s, 4.0, 0, 0);
    CHECK_NEAR(g.tasks[c6].start_s, 7.0, 0, 0);
    CHECK_NEAR(sim_exposed_s(&g, s0, comm, 2), 2.5, 0, 0);
    CHECK_NEAR(sim_stream_busy_s(&g, s1) + sim_stream_busy_s(&g, s2), 6.5, 0, 0);
    /* against stream 1 alone: [2,4) and [8,8.5) */
    CHECK_NEAR(sim_exposed_s(&g, s0, &s1, 1), 2.5, 0, 0);
    /* against stream 2 alone: [2,5) less c4's [4,5) */
    CHECK_NEAR(sim_exposed_s(&g, s0, &s2, 1), 2.0, 0, 0);
    CHECK_EQ_INT(g.oom, 0);
    sim_free(&g);
}

static dnp_plan *plan_or_null(const dnp_graph *g, const char *spec, dnp_plan_options *opt)
{
    dnp_cluster cl;
    dnp_error err = {0};
    dnp_plan *p = NULL;
    if (dnp_cluster_parse(spec, &cl, &err) != DNP_OK || dnp_plan_run(g, &cl, opt, &p, &err) != DNP_OK) {
        printf("  %s on %s: %s\n", dnp_graph_name(g), spec, err.msg);
        CHECK(0);
        return NULL;
    }
    return p;
}

/* fed the paper's accounting, the simulator gives the analytical step time:
 * the sum over ops of their communication and compute (docs/time-model.md). */
TEST(sim_paper_accounting_equals_analytical)
{
    const char *models[] = {"vgg19", "resnet50", "alexnet"};
    const char *specs[] = {"4xtpu-v2+4xtpu-v3", "8xtpu-v3", "3xtpu-v3"};
    for (int m = 0; m < 3; m++) {
        dnp_graph *g = NULL;
        dnp_error err = {0};
        CHECK(dnp_zoo_build(models[m], &g, &err) == DNP_OK);
        for (int c = 0; c < 3; c++)
            for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
                dnp_plan_options opt = {.scheme = (dnp_scheme)s, .batch = 256,
                                        .cost_model = DNP_COST_ACCPAR_PAPER};
                dnp_plan *p = plan_or_null(g, specs[c], &opt);
                if (p == NULL)
                    continue;
                dnp_plan_summary sum;
                dnp_plan_get_summary(p, &sum);
                double analytical = 0.0;
                for (int v = 0; v < dnp_plan_n_nodes(p); v++) {
                    double cs, ms;
                    dnp_plan_node_times(p, v, &cs, &ms);
                    analytical += cs + ms;
                }
                CHECK_NEAR(sum.step_time_s, analytical, 1e-12, 0);
                CHECK_EQ_INT(sum.sim_tasks, 2 * dnp_plan_n_nodes(p));
                dnp_plan_free(p);
            }
        dnp_graph_free(g);
    }
}

/* Overlapping the gradient all-reduce with the backward pass is never
 * slower than running it after the backward pass (a sweep: the sanitizer
 * build checks test.h's subset of the zoo). */
TEST_SWEEP(sim_overlap_never_slower)
{
    const char *specs[] = {"2xdgx-a100", "2xtpu-v2+2xtpu-v3", "3xv100"};
    int models = 0;
    for (int i = 0; i < dnp_zoo_count(); i++) {
        if (!test_sweep_zoo(dnp_zoo_name(i)))
            continue;
        dnp_graph *g = NULL;
        dnp_error err = {0};
        CHECK(dnp_zoo_build(dnp_zoo_name(i), &g, &err) == DNP_OK);
        if (graph_named_refuse(g, "", &err) != DNP_OK) { /* layer-wise planners refuse named
                                                          * kinds: test_graph_named.c */
            dnp_error_clear(&err);
            dnp_graph_free(g);
            continue;
        }
        for (int c = 0; c < 3; c++)
            for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
                dnp_plan_options on = {.scheme = (dnp_scheme)s, .batch = 128,
                                       .keep_over_memory = 1};
                dnp_plan_options off = on;
                off.no_overlap = 1;
                dnp_plan *p = plan_or_null(g, specs[c], &on), *q = plan_or_null(g, specs[c], &off);
                if (p != NULL && q != NULL) {
                    dnp_plan_summary a, b;
                    dnp_plan_get_summary(p, &a);
                    dnp_plan_get_summary(q, &b);
                    if (!(a.step_time_s <= b.step_time_s * (1 + 1e-12)))
                        printf("  %s %s %s: overlap %.9g s, no overlap %.9g s\n",
                               dnp_zoo_name(i), specs[c], dnp_scheme_name((dnp_scheme)s),
                               a.step_time_s, b.step_time_s);
                    CHECK(a.step_time_s <= b.step_time_s * (1 + 1e-12));
                    CHECK(a.compute_s > 0.0 && a.step_time_s >= a.compute_s);
                }
                dnp_plan_free(p);
                dnp_plan_free(q);
            }
        dnp_graph_free(g);
        models++;
    }
    if (!test_sweep_full())
        CHECK_EQ_INT(models, test_sweep_zoo_subset_size());
}

/* The step splits into the critical device's compute, its exposed
 * communication and its wait for other devices; exposed communication is
 * never more than all its communication (issue 15: alexnet at batch 128 on
 * 8xa100+8xv100 reported 234.804 us exposed of 221.939 us in all, the
 * a100s' wait for the v100s counted as communication).  Every layer-wise
 * zoo model, every scheme, mixed and uneven clusters (a sweep: the sanitizer
 * build checks test.h's subset of the zoo, every plan of it). */
TEST_SWEEP(sim_step_splits_into_compute_exposed_wait)
{
    const char *specs[] = {"8xa100+8xv100", "2xtpu-v2+2xtpu-v3"};
    /* old_bad: plans where the former definition (step - compute) exceeds all
     * the communication, so the set does tell the two apart. */
    int waited = 0, plans = 0, old_bad = 0;
    for (int i = 0; i < dnp_zoo_count(); i++) {
        if (!test_sweep_zoo(dnp_zoo_name(i)))
            continue;
        dnp_graph *g = NULL;
        dnp_error err = {0};
        CHECK(dnp_zoo_build(dnp_zoo_name(i), &g, &err) == DNP_OK);
        if (graph_named_refuse(g, "", &err) != DNP_OK) {
            dnp_error_clear(&err);
            dnp_graph_free(g);
            continue;
        }
        for (int c = 0; c < 2; c++)
            for (int s = 0; s < DNP_SCHEME_COUNT; s++) {
                dnp_plan_options opt = {.scheme = (dnp_scheme)s, .batch = 128,
                                        .keep_over_memory = 1};
                dnp_plan *p = plan_or_null(g, specs[c], &opt);
                if (p == NULL)
                    continue;
                dnp_plan_summary m;
                dnp_plan_get_summary(p, &m);
                if (!(m.exposed_comm_s <= m.comm_busy_s && m.wait_s >= 0.0))
                    printf("  %s %s %s: exposed %.9g s, in all %.9g, wait %.9g\n",
                           dnp_zoo_name(i), specs[c],
                           dnp_scheme_name((dnp_scheme)s), m.exposed_comm_s,
                           m.comm_busy_s, m.wait_s);
                CHECK(m.exposed_comm_s >= 0.0 && m.exposed_comm_s <= m.comm_busy_s);
                CHECK(m.exposed_comm_s <= m.step_time_s && m.wait_s >= 0.0 &&
                      m.host_wait_s >= 0.0);
                CHECK_NEAR(m.compute_s + m.exposed_comm_s + m.host_wait_s + m.wait_s,
                           m.step_time_s, 1e-9, 1e-9);
                CHECK_NEAR(m.comm_s, m.exposed_comm_s, 0, 0);
                waited += m.wait_s > 0.0;
                old_bad += m.step_time_s - m.compute_s > m.comm_busy_s * (1 + 1e-12);
                plans++;
                dnp_plan_free(p);
            }
        dnp_graph_free(g);
    }
    if (test_sweep_full())
        CHECK(plans >= 200);
    else
        CHECK_EQ_INT(plans, test_sweep_zoo_subset_size() * 2 * DNP_SCHEME_COUNT);
    CHECK(waited > 0 && old_bad > 0);
    /* the case of the report */
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_zoo_build("alexnet", &g, &err) == DNP_OK);
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 128};
    dnp_plan *p = plan_or_null(g, "8xa100+8xv100", &opt);
    if (p != NULL) {
        dnp_plan_summary m;
        dnp_plan_get_summary(p, &m);
        CHECK(m.exposed_comm_s <= m.comm_busy_s);
        CHECK(m.wait_s > 1e-6);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* A two-layer MLP, data parallel on two devices joined by one link, the
 * gradient all-reduce after the backward pass: the step is each op's
 * forward, input-gradient and weight-gradient time at half the batch, then
 * one ring all-reduce of every gradient (both layers fit one 25 MiB DDP
 * bucket), then the momentum update, one after the other. */
TEST(sim_dp_two_layers_hand_worked)
{
    dnp_graph *g = dnp_graph_new("mlp");
    int x = dnp_graph_input(g, "x", 1024, 1, 1);
    x = dnp_graph_fc(g, "fc1", x, 1024, 1);
    x = dnp_graph_unary(g, "relu", DNP_OP_RELU, x);
    dnp_graph_fc(g, "fc2", x, 10, 1);
    const char *spec = "2xcustom(name=g,tflops=100,net_gbps=100,dtype=fp32,mem_gb=16,"
                       "membw_gbps=900)";
    dnp_plan_options opt = {.scheme = DNP_SCHEME_DP, .batch = 64, .no_overlap = 1};
    dnp_plan *p = plan_or_null(g, spec, &opt);
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK(dnp_cluster_parse(spec, &cl, &err) == DNP_OK);
    if (p != NULL) {
        perf_rates r;
        perf_rates_get(&cl.types[0], DNP_PREC_DEFAULT, &r);
        /* The host issues every kernel (host_kernel_s each, 7.1 us by
         * default; docs/device-model.md "Host dispatch") in the order of
         * the tasks: forward, then per op backward its weight gradient and
         * its input gradient; a task starts at max(the previous task's end,
         * the host's issue so far).  These kernels are short (fc1 forward:
         * 2 x 32 x 1024 x 1024 FLOP at 100 TFLOP/s, 0.67 us), so the host
         * sets the pace. */
        const int n = dnp_graph_n_ops(g);
        double end_s = 0.0, host_s = 0.0, params = 0.0, busy_s = 0.0;
        for (int i = 0; i < n; i++) {
            perf_op_time t;
            perf_op_time_get(g, i, 64, 0.5, 1.0, 1.0, &r, &t);
            if (t.fwd_s > 0.0) {
                host_s += t.fwd_host_s;
                end_s = fmax(end_s, host_s) + t.fwd_s;
                busy_s += t.fwd_s;
            }
            perf_op_mem m;
            perf_op_mem_get(g, i, 64, 0.5, 1.0, 1.0, &r, &m);
            params += m.param_elems;
        }
        for (int i = n - 1; i >= 0; i--) {
            perf_op_time t;
            perf_op_time_get(g, i, 64, 0.5, 1.0, 1.0, &r, &t);
            if (t.wgrad_s > 0.0) {
                host_s += t.wgrad_host_s;
                end_s = fmax(end_s, host_s) + t.wgrad_s;
                busy_s += t.wgrad_s;
            }
            if (t.bwd_s > 0.0) {
                host_s += t.bwd_host_s;
                end_s = fmax(end_s, host_s) + t.bwd_s;
                busy_s += t.bwd_s;
            }
        }
        CHECK(end_s > busy_s && end_s >= host_s); /* the host sets the pace */
        const double compute_s = end_s;
        CHECK_NEAR(params, 1024.0 * 1024 + 1024 + 1024 * 10 + 10, 0, 0);
        dnp_comm_group grp;
        dnp_cluster_comm_group(&cl, &grp);
        dnp_coll_cost ar;
        dnp_coll_estimate(DNP_COLL_ALLREDUCE, &grp, params * r.grad_bytes, &ar);
        /* ring on 2 members: 2 (p-1)/p S / B = S / B at 12.5 GB/s x 0.96,
         * NCCL's achieved fraction of a network link (docs/collectives.md) */
        CHECK_NEAR(ar.time_s, params * 4.0 / (12.5e9 * 0.96), 1e-9, 0);
        double want = compute_s + ar.time_s + perf_optimizer_time_s(params, DNP_OPTIM_MOMENTUM, &r);
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        CHECK_NEAR(s.step_time_s, want, 1e-12, 0);
        CHECK_NEAR(s.exposed_comm_s, ar.time_s, 1e-9, 0);
        double optim_s = perf_optimizer_time_s(params, DNP_OPTIM_MOMENTUM, &r);
        CHECK_NEAR(s.compute_s, busy_s + optim_s, 1e-12, 0);
        CHECK_NEAR(s.host_wait_s, end_s - busy_s, 1e-9, 0);
        CHECK_NEAR(s.wait_s, 0.0, 0, 1e-15);
        CHECK_EQ_INT(s.device_classes, 1);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* A search whose every plan exceeds the memory limit fails with an input
 * error naming the smallest footprint; keep_over_memory returns the plan
 * flagged instead. */
TEST(sim_memory_limit)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_zoo_build("vgg19", &g, &err) == DNP_OK);
    dnp_cluster cl;
    CHECK(dnp_cluster_parse("4xa100", &cl, &err) == DNP_OK);
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 512,
                            .memory_limit_bytes = 1e9};
    dnp_plan *p = NULL;
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_ERR_INPUT);
    CHECK(p == NULL);
    CHECK(strstr(err.msg, "smallest needs") != NULL);
    opt.keep_over_memory = 1;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_OK);
    if (p != NULL) {
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        CHECK_EQ_INT(s.mem_fits, 0);
        CHECK(s.mem_bytes_max > 1e9);
        CHECK_NEAR(s.mem_capacity_bytes, 1e9, 0, 0);
    }
    dnp_plan_free(p);
    /* the same plan fits in the A100's 40 GB */
    opt.memory_limit_bytes = 0.0;
    opt.keep_over_memory = 0;
    CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_OK);
    if (p != NULL) {
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        CHECK_EQ_INT(s.mem_fits, 1);
        CHECK_NEAR(s.mem_capacity_bytes, 40e9, 0, 0);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* The trace names every device class and stream, and is deterministic. */
TEST(sim_trace_deterministic)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_zoo_build("resnet18", &g, &err) == DNP_OK);
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 64};
    dnp_plan *p = plan_or_null(g, "2xtpu-v2+2xtpu-v3", &opt);
    dnp_plan *q = plan_or_null(g, "2xtpu-v2+2xtpu-v3", &opt);
    if (p != NULL && q != NULL) {
        char *a = dnp_plan_trace_json(p), *b = dnp_plan_trace_json(q);
        CHECK(a != NULL && b != NULL && strcmp(a, b) == 0);
        CHECK(a != NULL && strstr(a, "\"process_name\"") != NULL);
        CHECK(a != NULL && strstr(a, "gradient sync") != NULL);
        CHECK(a != NULL && strstr(a, "class 2: 2 x tpu-v3") != NULL);
        dnp_free(a);
        dnp_free(b);
    }
    dnp_plan_free(p);
    dnp_plan_free(q);
    dnp_graph_free(g);
}

/* dnnpar validate on a hand-made CSV: the calibrate row is matched exactly
 * by the fitted efficiency, validate rows of that stack use it, a stack
 * without calibrate rows keeps the preset default, a row dnnpar cannot run
 * is kept with a note, and the summary is computed over validate rows. */
TEST(validate_calibrates_on_calibrate_rows_only)
{
    char path[512];
    snprintf(path, sizeof path, "tests/data/validate_custom.csv");
    dnp_validation *v = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_validate_csv(path, 1, &v, &err), DNP_OK);
    if (v == NULL) {
        printf("  %s\n", err.msg);
        return;
    }
    CHECK_EQ_INT(v->n_rows, 5);
    CHECK_EQ_INT(v->n_fits, 1);
    CHECK_STR(v->fits[0].stack, "stackA");
    CHECK_EQ_INT(v->fits[0].n_rows, 1);
    CHECK(v->fits[0].compute_eff > 0.02 && v->fits[0].compute_eff < 1.0);
    /* one calibrate row: predicted equals measured */
    CHECK_NEAR(v->rows[0].predicted_step_s, 0.080, 1e-6, 0);
    CHECK_EQ_INT(v->rows[1].calibrated, 1);
    CHECK_NEAR(v->rows[1].compute_eff, v->fits[0].compute_eff, 0, 0);
    CHECK_EQ_INT(v->rows[3].calibrated, 0);
    CHECK(strstr(v->rows[3].note, "no calibrate row") != NULL);
    CHECK(isnan(v->rows[4].predicted_step_s) && v->rows[4].note[0] != '\0');
    /* summary over the three predicted validate rows */
    CHECK_EQ_INT(v->n_validate, 3);
    double sum = 0.0, mx = 0.0;
    for (int i = 1; i <= 3; i++) {
        double e = 100.0 * (v->rows[i].predicted_step_s - v->rows[i].measured_step_s) /
                   v->rows[i].measured_step_s;
        CHECK_NEAR(v->rows[i].error_pct, e, 1e-12, 1e-12);
        sum += fabs(e);
        mx = fabs(e) > mx ? fabs(e) : mx;
    }
    CHECK_NEAR(v->mape_pct, sum / 3.0, 1e-12, 0);
    CHECK_NEAR(v->max_abs_error_pct, mx, 1e-12, 0);
    CHECK(v->spearman >= -1.0 && v->spearman <= 1.0);
    dnp_validation_free(v);
    /* without calibration every row uses the preset default */
    CHECK_EQ_INT(dnp_validate_csv(path, 0, &v, &err), DNP_OK);
    if (v != NULL) {
        CHECK_EQ_INT(v->n_fits, 0);
        CHECK_EQ_INT(v->rows[0].calibrated, 0);
        dnp_validation_free(v);
    }
}

TEST(validate_bad_csv)
{
    dnp_validation *v = NULL;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_validate_csv("tests/data/no-such.csv", 1, &v, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "no-such.csv") != NULL);
    CHECK(v == NULL);
}

/* The device tree follows the topology: 4 DGX A100 split into nodes first
 * (2 | 2 nodes, then 1 | 1), then the GPUs of a node (4 | 4, ...). */
TEST(sim_tree_follows_nodes)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_zoo_build("resnet18", &g, &err) == DNP_OK);
    dnp_plan_options opt = {.scheme = DNP_SCHEME_DP, .batch = 256};
    dnp_plan *p = plan_or_null(g, "4xdgx-a100", &opt);
    if (p != NULL) {
        static const char *const want[] = {"16xa100 | 16xa100", "8xa100 | 8xa100",
                                           "4xa100 | 4xa100", "2xa100 | 2xa100",
                                           "1xa100 | 1xa100"};
        for (int k = 0; k < 5; k++) {
            char buf[128];
            dnp_plan_level_groups(p, k, 0, buf, sizeof buf);
            CHECK_STR(buf, want[k]);
        }
    }
    dnp_plan_free(p);
    /* 3 nodes: whole nodes first (1 | 2), never a split node */
    p = plan_or_null(g, "3xdgx-a100", &opt);
    if (p != NULL) {
        char buf[128];
        dnp_plan_level_groups(p, 0, 0, buf, sizeof buf);
        CHECK_STR(buf, "8xa100 | 16xa100");
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* Data parallelism on 2 DGX A100 synchronises gradients with one
 * all-reduce over all 16 GPUs on both link tiers, not one exchange per
 * level: with the all-reduce after the backward pass and everything in one
 * bucket, the exposed communication is exactly that collective's time. */
TEST(sim_dp_one_allreduce_over_nodes)
{
    dnp_graph *g = dnp_graph_new("mlp");
    int x = dnp_graph_input(g, "x", 1024, 1, 1);
    x = dnp_graph_fc(g, "fc1", x, 1024, 1);
    dnp_graph_fc(g, "fc2", x, 10, 1);
    dnp_plan_options opt = {.scheme = DNP_SCHEME_DP, .batch = 512, .no_overlap = 1,
                            .precision = DNP_PREC_FP32};
    dnp_plan *p = plan_or_null(g, "2xdgx-a100", &opt);
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK(dnp_cluster_parse("2xdgx-a100", &cl, &err) == DNP_OK);
    if (p != NULL) {
        dnp_comm_group grp;
        dnp_cluster_comm_group(&cl, &grp);
        CHECK_EQ_INT(grp.n_nodes, 2);
        CHECK_EQ_INT(grp.per_node, 8);
        double params = 1024.0 * 1024 + 1024 + 1024 * 10 + 10;
        dnp_coll_cost ar;
        dnp_coll_estimate(DNP_COLL_ALLREDUCE, &grp, params * 4.0, &ar);
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        CHECK_NEAR(s.exposed_comm_s, ar.time_s, 1e-9, 0);
        CHECK_EQ_INT(s.device_classes, 1);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* Data parallelism on a DGX A100 and a DGX-1: the gradient all-reduce of
 * the A100 class and of the V100 class is the same collective over all 16
 * GPUs, 2 nodes x 8, on the slowest of each tier (src/topo,
 * docs/collectives.md "The group of a set of devices"): the DGX-1's
 * NVLink inside (not the A100's NVSwitch for the A100 class), the slower
 * NIC share between.  Everything in one bucket after the backward pass:
 * each class's gradient stream is busy exactly that collective's time. */
TEST(sim_dp_mixed_nodes_one_group)
{
    dnp_graph *g = dnp_graph_new("mlp");
    int x = dnp_graph_input(g, "x", 1024, 1, 1);
    x = dnp_graph_fc(g, "fc1", x, 1024, 1);
    dnp_graph_fc(g, "fc2", x, 10, 1);
    dnp_plan_options opt = {.scheme = DNP_SCHEME_DP, .batch = 512, .no_overlap = 1,
                            .precision = DNP_PREC_FP32};
    dnp_plan *p = plan_or_null(g, "1xdgx-a100+1xdgx1", &opt);
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK(dnp_cluster_parse("1xdgx-a100+1xdgx1", &cl, &err) == DNP_OK);
    if (p != NULL) {
        dnp_comm_group grp;
        dnp_cluster_comm_group(&cl, &grp);
        CHECK_EQ_INT(grp.n_nodes, 2);
        CHECK_EQ_INT(grp.per_node, 8);
        CHECK_NEAR(grp.intra_bw_bps, cl.types[1].intra_bw_bps, 0, 0); /* the DGX-1's */
        CHECK(cl.types[1].intra_bw_bps < cl.types[0].intra_bw_bps);
        double params = 1024.0 * 1024 + 1024 + 1024 * 10 + 10;
        dnp_coll_cost ar;
        dnp_coll_estimate(DNP_COLL_ALLREDUCE, &grp, params * 4.0, &ar);
        const lower_result *r = &p->sim;
        CHECK_EQ_INT(r->n_classes, 2);
        for (int c = 0; c < r->n_classes; c++)
            CHECK_NEAR(r->classes[c].grad_busy_s, ar.time_s, 1e-12, 0);
    }
    dnp_plan_free(p);
    dnp_graph_free(g);
}

/* Weak scaling of ResNet-50 at 256 images per GPU on 1 to 128 DGX A100:
 * throughput rises with every doubling and each step keeps at least 95%
 * of the previous size's throughput per GPU (docs/time-model.md). */
TEST(sim_resnet50_scaling_dgx_a100)
{
    dnp_graph *g = NULL;
    dnp_error err = {0};
    CHECK(dnp_zoo_build("resnet50", &g, &err) == DNP_OK);
    double prev_thr = 0.0, first_per_gpu = 0.0;
    for (int n = 1; n <= 128; n *= 2) {
        char spec[32];
        snprintf(spec, sizeof spec, "%dxdgx-a100", n);
        dnp_plan_options opt = {.scheme = DNP_SCHEME_DP, .batch = 256LL * 8 * n,
                                .precision = DNP_PREC_AMP};
        dnp_plan *p = plan_or_null(g, spec, &opt);
        if (p == NULL)
            break;
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        double thr = (double)opt.batch / s.step_time_s;
        if (n == 1)
            first_per_gpu = thr / 8;
        CHECK(thr > prev_thr);
        CHECK(thr / (8.0 * n) <= first_per_gpu * (1 + 1e-12));
        CHECK(thr / (8.0 * n) >= 0.95 * first_per_gpu);
        CHECK(s.mem_fits);
        prev_thr = thr;
        dnp_plan_free(p);
    }
    dnp_graph_free(g);
}
