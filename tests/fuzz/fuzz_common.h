/*
 * fuzz_common.h - shared by the fuzz targets in tests/fuzz/ (issue 12,
 * item 1).  Each target is one LLVMFuzzerTestOneInput over the public API
 * (include/dnnpar.h) only: it loads the bytes with one loader and, when
 * they load, runs a cheap downstream step so the consumers of loaded data
 * are reached too.  Built with libFuzzer by `make fuzz`, and replayed over
 * the checked-in corpora without libFuzzer by `make test` (replay.c).
 *
 * A target aborts (a finding) only when a property the library documents
 * fails, e.g. a JSON that loads does not read back identically.
 */
#ifndef DNNPAR_FUZZ_COMMON_H
#define DNNPAR_FUZZ_COMMON_H

#include "dnnpar.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Graphs larger than this are only totalled, not planned (keeps each
 * execution in the millisecond range). */
#define FUZZ_PLAN_MAX_OPS 64
/* Clusters larger than this are not planned: a device count that is not a
 * power of two builds the whole device tree (issue 12, resource limits), 2 s
 * for 41 devices in the release build. */
#define FUZZ_PLAN_MAX_DEVICES 8

/* Report a broken property and abort, so libFuzzer (or the replay) stops
 * with the input that broke it. */
static inline void fuzz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz property failed: %s%s%s\n", what, detail ? ": " : "",
            detail ? detail : "");
    abort();
}

/* The small cluster downstream plans run on: 4 v100s. */
static inline void fuzz_small_cluster(dnp_cluster *c)
{
    dnp_error err = {0};
    if (dnp_cluster_parse("4xv100", c, &err) != DNP_OK)
        fuzz_fail("the preset cluster 4xv100 does not parse", err.msg);
}

/* PaSE on a loaded graph (its iteration spaces, src/model/iter_rules.c):
 * the exact DP and the baselines at batch 8 on cluster c, with small
 * table and MCMC budgets so one execution stays fast.  A graph PaSE has no
 * iteration space for, or tables over the guard, is an input error with a
 * message; anything else must give a finite, non-negative step. */
static inline void fuzz_pase_graph(const dnp_graph *g, const dnp_cluster *c)
{
    dnp_pase_hw hw;
    dnp_error err = {0};
    if (dnp_pase_hw_from_cluster(c, &hw, &err) != DNP_OK)
        return;
    dnp_pase_options po = {0};
    po.batch = 8;
    po.max_memory_bytes = 64.0 * 1048576.0;
    dnp_pase_problem *pb = NULL;
    dnp_pase_run *r = NULL;
    dnp_pase_run_options ro = {0};
    ro.search = DNP_PASE_SEARCH_DP;
    ro.threads = 1;
    ro.mcmc_iters = 2000;
    ro.no_refine = 1;
    dnp_status st = dnp_pase_problem_from_graph(g, &hw, &po, &pb, &err);
    if (st == DNP_OK)
        st = dnp_pase_run_new(pb, &ro, &r, &err);
    if (st == DNP_OK) {
        dnp_pase_summary s;
        dnp_pase_run_summary(r, &s);
        if (!(s.cost_s >= 0.0) || !(s.cost_s < 1e300))
            fuzz_fail("a PaSE plan of a loaded model has a negative or non-finite cost",
                      dnp_graph_name(g));
    } else if (err.status == DNP_ERR_INTERNAL || err.msg[0] == '\0') {
        fuzz_fail("PaSE on a loaded model failed without an input error's message", err.msg);
    }
    dnp_pase_run_free(r);
    dnp_pase_problem_free(pb);
}

/* Downstream of a model loader: totals at two batches (the per-batch
 * figures must scale), and a small PaSE run (fuzz_pase_graph) and AccPar
 * plan when the graph is small.
 * A plan may fail with an input error (e.g. memory); it must not crash. */
static inline void fuzz_use_graph(const dnp_graph *g, const dnp_cluster *c)
{
    dnp_graph_totals t1, t8;
    dnp_graph_totals_get(g, 1, &t1);
    dnp_graph_totals_get(g, 8, &t8);
    if (t1.params != t8.params || t1.macs_per_sample != t8.macs_per_sample)
        fuzz_fail("per-sample totals depend on the batch", dnp_graph_name(g));
    for (int i = 0; i < dnp_graph_n_ops(g); i++) {
        dnp_op_cost oc;
        dnp_op_cost_get(g, i, 8, &oc);
        if (!(oc.fwd_flop >= 0.0 && oc.bwd_flop >= 0.0 && oc.grad_flop >= 0.0))
            fuzz_fail("an op of a loaded model has a negative FLOP count",
                      dnp_graph_op(g, i)->name);
    }
    /* the structural transformer match (src/model/recognize.c): an answer
     * either way, never a crash; a match builds its zoo transformer */
    {
        dnp_transformer_match m;
        dnp_error merr = {0};
        dnp_status ms = dnp_graph_match_transformer(g, &m, &merr);
        if (ms != DNP_OK && merr.msg[0] == '\0')
            fuzz_fail("a transformer match was refused without a message", dnp_graph_name(g));
        if (ms == DNP_OK && !m.native && m.params_spec <= 0)
            fuzz_fail("a transformer match built a model without parameters", m.spec);
    }
    dnp_cluster small;
    if (c == NULL) {
        fuzz_small_cluster(&small);
        c = &small;
    }
    if (dnp_graph_n_ops(g) > FUZZ_PLAN_MAX_OPS || dnp_cluster_devices(c) > FUZZ_PLAN_MAX_DEVICES)
        return;
    fuzz_pase_graph(g, c);
    dnp_plan_options opt = {0};
    opt.scheme = DNP_SCHEME_ACCPAR;
    opt.batch = 8;
    opt.keep_over_memory = 1;
    dnp_plan *p = NULL;
    dnp_error err = {0};
    if (dnp_plan_run(g, c, &opt, &p, &err) == DNP_OK) {
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        if (!(s.step_time_s >= 0.0))
            fuzz_fail("a plan of a loaded model has a negative or NaN step time",
                      dnp_graph_name(g));
        dnp_plan_free(p);
    } else if (err.status == DNP_ERR_INTERNAL) {
        fuzz_fail("planning a loaded model hit an internal error", err.msg);
    }
}

/* A NUL-terminated copy of the input (for text parsers that take a
 * string); caller frees with dnp_free.  NULL when out of memory. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = dnp_malloc(size + 1);
    if (s != NULL) {
        if (size > 0)
            memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}

#endif
