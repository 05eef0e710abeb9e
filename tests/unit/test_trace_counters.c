/* test_trace_counters.c - what the Chrome traces add to their complete
 * events: for a Megatron-LM configuration (src/sim/config3d.c, c3_trace)
 * the flow pairs of the pipeline sends, the memory counter of each stage
 * and the exposed tensor-parallel collectives; for a plan (src/sim/trace.c)
 * the memory counter of each device class; checked against the simulated
 * results. */
#include "test.h"

#include "dnnpar.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#define TRACE_GPT "gpt(hidden=1024,heads=16,layers=16,seq=1024,vocab=64)"

/* The X event on (pid, tid) whose span holds ts (microseconds), or NULL. */
static const json_t *slice_at(const json_t *ev, long long pid, long long tid, double ts)
{
    size_t i;
    const json_t *e;
    json_array_foreach(ev, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph == NULL || strcmp(ph, "X") != 0 ||
            json_integer_value(json_object_get(e, "pid")) != pid ||
            json_integer_value(json_object_get(e, "tid")) != tid)
            continue;
        double t0 = json_number_value(json_object_get(e, "ts"));
        double t1 = t0 + json_number_value(json_object_get(e, "dur"));
        if (t0 <= ts && ts <= t1)
            return e;
    }
    return NULL;
}

/* 2 stages, tp 2, dp 2, 4 micro-batches per replica (batch 8, micro-batch 1): one message
 * each way per micro-batch, so 8 flows: the 4 activations from stage 1's
 * "sends to the next stage" (tid 2) into stage 2's forwards, the 4
 * gradients from stage 2's "sends to the previous stage" (tid 3) into
 * stage 1's backwards, each "s" with exactly one "f" of its id, name and
 * category, the receiving compute starting no earlier than the send ends.
 * Memory: 1F1B keeps p - s chunks in flight on rank s (stage 1: 2, stage
 * 2: 1), so each counter rises from the stage's weights to weights + (its
 * chunks) x (one chunk's activations), and the fuller stage's peak is the
 * footprint dnp_config3d_simulate reports.  Tensor parallel: one exposed
 * block per forward and per backward of each stage (16), on tid 5. */
TEST(config3d_trace_flows_memory)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_config3d cfg;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_model_load(TRACE_GPT, &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("1xdgx-a100", &cl, &err), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_parse("tp=2,pp=2,dp=2,microbatch=1", &cfg, &err), DNP_OK);
    if (g == NULL)
        return;
    dnp_plan_options opt = {.batch = 8, .precision = DNP_PREC_BF16,
                            .optimizer = DNP_OPTIM_ADAM};
    dnp_config3d_result res;
    char *text = NULL;
    CHECK_EQ_INT(dnp_config3d_simulate(g, &cl, 8, &opt, &cfg, &res, &err), DNP_OK);
    CHECK_EQ_INT(dnp_config3d_trace(g, &cl, 8, &opt, &cfg, &text, &err), DNP_OK);
    json_error_t je;
    json_t *doc = text != NULL ? json_loads(text, 0, &je) : NULL;
    CHECK(doc != NULL);
    if (doc == NULL) {
        dnp_free(text);
        dnp_graph_free(g);
        return;
    }
    const json_t *ev = json_object_get(doc, "traceEvents");
    int n_s = 0, n_f = 0, paired = 0, acts = 0, grads = 0, tp_blocks = 0;
    double peak[2] = {0.0, 0.0}, low[2] = {INFINITY, INFINITY};
    size_t i, j;
    const json_t *e, *o;
    json_array_foreach(ev, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *name = json_string_value(json_object_get(e, "name"));
        long long pid = json_integer_value(json_object_get(e, "pid"));
        if (strcmp(ph, "X") == 0 && strstr(name, "tensor-parallel") != NULL) {
            tp_blocks++;
            CHECK_EQ_INT(json_integer_value(json_object_get(e, "tid")), 5);
        }
        if (strcmp(ph, "C") == 0) {
            double v = json_number_value(json_object_get(json_object_get(e, "args"), "a100"));
            CHECK(pid == 1 || pid == 2);
            if (pid == 1 || pid == 2) {
                peak[pid - 1] = fmax(peak[pid - 1], v);
                low[pid - 1] = fmin(low[pid - 1], v);
            }
        }
        if (strcmp(ph, "f") == 0) {
            n_f++;
            CHECK_STR(json_string_value(json_object_get(e, "bp")), "e");
        }
        if (strcmp(ph, "s") != 0)
            continue;
        n_s++;
        long long id = json_integer_value(json_object_get(e, "id"));
        long long tid = json_integer_value(json_object_get(e, "tid"));
        double ts = json_number_value(json_object_get(e, "ts"));
        const json_t *send = slice_at(ev, pid, tid, ts);
        CHECK(send != NULL);
        int matches = 0;
        json_array_foreach(ev, j, o) {
            const char *ph2 = json_string_value(json_object_get(o, "ph"));
            if (strcmp(ph2, "f") != 0 || json_integer_value(json_object_get(o, "id")) != id)
                continue;
            matches++;
            CHECK_STR(json_string_value(json_object_get(o, "name")), name);
            CHECK_STR(json_string_value(json_object_get(o, "cat")),
                      json_string_value(json_object_get(e, "cat")));
            long long to = json_integer_value(json_object_get(o, "pid"));
            const json_t *recv =
                slice_at(ev, to, 1, json_number_value(json_object_get(o, "ts")));
            CHECK(recv != NULL && send != NULL);
            if (recv == NULL || send == NULL)
                continue;
            const char *rn = json_string_value(json_object_get(recv, "name"));
            if (pid == 1 && tid == 2) { /* activations 1 -> 2, into a forward */
                acts++;
                CHECK_EQ_INT(to, 2);
                CHECK(strstr(name, "activations") != NULL && strstr(rn, "forward") != NULL);
            } else { /* gradients 2 -> 1, into a backward */
                grads += pid == 2 && tid == 3;
                CHECK_EQ_INT(to, 1);
                CHECK(strstr(name, "gradients") != NULL && strstr(rn, "backward") != NULL);
            }
            CHECK(json_number_value(json_object_get(recv, "ts")) >=
                  json_number_value(json_object_get(send, "ts")) +
                      json_number_value(json_object_get(send, "dur")) - 1e-9);
        }
        CHECK_EQ_INT(matches, 1);
        paired += matches == 1;
    }
    CHECK_EQ_INT(n_s, 8);
    CHECK_EQ_INT(n_f, 8);
    CHECK_EQ_INT(paired, 8);
    CHECK_EQ_INT(acts, 4);
    CHECK_EQ_INT(grads, 4);
    CHECK_EQ_INT(tp_blocks, 16);
    /* stage 1 holds 2 chunks of 8 layers at its peak, stage 2 one: the
     * rises are in the ratio 2 : 1 (same layers, same activations) */
    double rise1 = peak[0] - low[0], rise2 = peak[1] - low[1];
    CHECK(rise2 > 0.0);
    CHECK_NEAR(rise1, 2.0 * rise2, 1e-9, 3.0);
    /* the simulated footprint is the fuller stage's peak, its parts split
     * as the counter's (weights low, activations the rise) */
    int fs = res.mem_stage;
    CHECK(fs == 0 || fs == 1);
    if (fs == 0 || fs == 1) {
        CHECK_NEAR(peak[fs], res.mem_bytes, 1e-9, 1.0);
        CHECK_NEAR(low[fs], res.mem_weights_bytes, 1e-9, 1.0);
        CHECK_NEAR(peak[fs] - low[fs], res.mem_activation_bytes, 1e-9, 1.0);
    }
    json_decref(doc);
    dnp_free(text);
    dnp_graph_free(g);
}

/* A plan's trace: one memory counter series per device class, ending at
 * its lowest value, the class's weights, gradients, optimizer state and
 * buckets (every activation released by the end of the backward pass; the
 * first sample, at 0, already holds what the first kernel allocates), and
 * rising in between to the class's peak: the largest over the classes is
 * the plan's mem_bytes_max.  Samples in time order. */
TEST(plan_trace_memory_counter)
{
    dnp_graph *g = NULL;
    dnp_cluster cl;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_zoo_build("resnet18", &g, &err), DNP_OK);
    CHECK_EQ_INT(dnp_cluster_parse("2xtpu-v2+2xtpu-v3", &cl, &err), DNP_OK);
    dnp_plan_options opt = {.scheme = DNP_SCHEME_ACCPAR, .batch = 64};
    dnp_plan *p = NULL;
    if (g != NULL)
        CHECK_EQ_INT(dnp_plan_run(g, &cl, &opt, &p, &err), DNP_OK);
    char *text = p != NULL ? dnp_plan_trace_json(p) : NULL;
    json_error_t je;
    json_t *doc = text != NULL ? json_loads(text, 0, &je) : NULL;
    CHECK(doc != NULL);
    if (doc != NULL) {
        dnp_plan_summary s;
        dnp_plan_get_summary(p, &s);
        double first[8], last[8], peak[8], low[8], prev_ts[8];
        int n[8] = {0}, ordered = 1, classes = 0;
        size_t i;
        const json_t *e;
        json_array_foreach(json_object_get(doc, "traceEvents"), i, e) {
            const char *ph = json_string_value(json_object_get(e, "ph"));
            const char *nm = json_string_value(json_object_get(e, "name"));
            long long pid = json_integer_value(json_object_get(e, "pid"));
            if (strcmp(ph, "M") == 0 && strcmp(nm, "process_name") == 0)
                classes++;
            if (strcmp(ph, "C") != 0 || pid < 1 || pid > 8)
                continue;
            const char *key;
            const json_t *val;
            json_object_foreach((json_t *)json_object_get(e, "args"), key, val) {
                double v = json_number_value(val), ts = json_number_value(json_object_get(e, "ts"));
                int c = (int)pid - 1;
                if (n[c]++ == 0) {
                    first[c] = peak[c] = low[c] = v;
                    prev_ts[c] = ts;
                }
                ordered &= ts >= prev_ts[c];
                prev_ts[c] = ts;
                last[c] = v;
                peak[c] = fmax(peak[c], v);
                low[c] = fmin(low[c], v);
            }
        }
        CHECK(classes >= 1 && classes <= 8);
        CHECK(ordered);
        double most = 0.0;
        for (int c = 0; c < classes && c < 8; c++) {
            CHECK(n[c] >= 3);
            if (n[c] == 0)
                continue;
            CHECK_NEAR(last[c], low[c], 1e-9, 1.0);
            CHECK(first[c] >= low[c] && peak[c] > first[c]);
            most = fmax(most, peak[c]);
        }
        CHECK_NEAR(most, s.mem_bytes_max, 1e-9, 1.0);
        json_decref(doc);
    }
    dnp_free(text);
    dnp_plan_free(p);
    dnp_graph_free(g);
}
