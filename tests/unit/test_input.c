/* test_input.c - the input side of issue 12 ("Reliability"): loader error
 * messages, checked arithmetic, values rejected at load and validation
 * of model and cluster JSON.  Each test is named after what it checks. */
#include "test.h"

#include "core/input.h"
#include "dnnpar.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ---------------------------------------------------- */

static dnp_status load_model_text(const char *text, dnp_graph **g, dnp_error *err)
{
    dnp_error_clear(err);
    *g = NULL;
    return dnp_model_read_json_buffer(text, strlen(text), "m.json", g, err);
}

static dnp_status load_cluster_text(const char *text, dnp_cluster *c, dnp_error *err)
{
    dnp_error_clear(err);
    return dnp_cluster_read_json_buffer(text, strlen(text), "c.json", c, err);
}

static dnp_status load_csv_text(const char *text, dnp_error *err)
{
    dnp_validation *v = NULL;
    dnp_error_clear(err);
    dnp_status st = dnp_validate_csv_buffer(text, strlen(text), "v.csv", 0, &v, err);
    dnp_validation_free(v);
    return st;
}

#define MODEL_HEAD "{\"format\": \"dnnpar-model\", \"version\": 1, \"ops\": ["
#define OP_X "{\"name\": \"x\", \"kind\": \"input\", \"inputs\": [], \"out\": [3,8,8]}"
#define CSV_HEAD "id,stack,role,model,cluster,batch,precision,search,measured_step_s\n"
#define CLUSTER_ONE(fields)                                                                   \
    "{\"format\": \"dnnpar-cluster\", \"version\": 1, \"devices\": [{\"name\": \"g\", "   \
    "\"count\": 2, \"dtype\": \"fp32\", \"mem_bytes\": 1, \"mem_bw_bps\": 1, " fields "}]}"

/* ---- item 4: loader error messages ------------------------------- */

TEST(input_missing_file_says_cannot_open_with_reason)
{
    const char *want = "cannot open /nonexistent/in: No such file or directory";
    dnp_error err;
    dnp_graph *g = NULL;
    dnp_cluster c;
    dnp_strategy *s = NULL;
    dnp_validation *v = NULL;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_model_read_json("/nonexistent/in", &g, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, want);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_cluster_read_json("/nonexistent/in", &c, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, want);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_strategy_read("/nonexistent/in", &s, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, want);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_validate_csv("/nonexistent/in", 1, &v, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, want);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_load_onnx("/nonexistent/in", NULL, &g, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, want);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_load_accpar_text("/nonexistent/in", &g, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, want);
    CHECK(g == NULL && s == NULL && v == NULL);
}

TEST(input_directory_is_reported_as_directory_not_syntax_error)
{
    char dir[] = "/tmp/dnnpar-dirXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char want[64];
    snprintf(want, sizeof want, "%s: is a directory", dir);
    dnp_error err;
    dnp_graph *g = NULL;
    dnp_cluster c;
    dnp_strategy *s = NULL;
    dnp_validation *v = NULL;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_model_read_json(dir, &g, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, want);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_cluster_read_json(dir, &c, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, want);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_strategy_read(dir, &s, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, want);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_validate_csv(dir, 0, &v, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, want);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_load_onnx(dir, NULL, &g, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, want);
    rmdir(dir);
}

TEST(input_quote_cuts_long_text_and_hides_control_bytes)
{
    char big[200], buf[DNP_QUOTE_MAX + 8];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    dnp_quote_str(big, buf, sizeof buf);
    CHECK_EQ_INT(strlen(buf), DNP_QUOTE_MAX);
    CHECK_STR(buf + DNP_QUOTE_MAX - 4, "a...");
    CHECK_STR(dnp_quote("a\nb\x01", 4, buf, sizeof buf), "a?b?");
    CHECK_STR(dnp_quote_str("short", buf, sizeof buf), "short");
    CHECK_STR(dnp_quote_str("abcdef", buf, 6), "ab...");
}

/* Echoed input used to fill the 512-byte message and cut off its reason. */
TEST(input_error_keeps_its_reason_when_input_is_long)
{
    char name[700], text[2000];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    dnp_graph *g;
    dnp_error err;
    snprintf(text, sizeof text,
             MODEL_HEAD OP_X ",{\"name\": \"%s\", \"kind\": \"relu\", \"inputs\": [\"%s\"], "
                             "\"out\": [3,8,8]}]}",
             name, name);
    CHECK_EQ_INT(load_model_text(text, &g, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "is not an earlier op") != NULL);
    CHECK(strlen(err.msg) < 400);
    /* a long path: the message still ends with the reason */
    char path[600] = "/nonexistent/";
    memset(path + 13, 'p', 500);
    path[513] = '\0';
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_model_read_json(path, &g, &err), DNP_ERR_INPUT);
    const char *tail = ": No such file or directory";
    CHECK(strlen(err.msg) > strlen(tail) &&
          strcmp(err.msg + strlen(err.msg) - strlen(tail), tail) == 0);
    /* a long CSV field */
    char csv[3000];
    snprintf(csv, sizeof csv, CSV_HEAD "a,s,validate,lenet,1xv100,%s,fp32,dp,1\n", name);
    CHECK_EQ_INT(load_csv_text(csv, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "v.csv:2: batch 'nnnn") != NULL &&
          strstr(err.msg, "...' is not an integer in 1 .. 2^40") != NULL);
}

/* ---- item 2: checked arithmetic ----------------------------------- */

TEST(checked_graph_rejects_shapes_whose_products_overflow)
{
    dnp_graph *g = dnp_graph_new("big");
    int64_t big = INT64_C(1) << 30;
    CHECK_EQ_INT(dnp_graph_input(g, "x", big, big, big), -1);
    CHECK(strstr(dnp_graph_error(g), "output elements per sample") != NULL);
    CHECK_EQ_INT(dnp_graph_n_ops(g), 0);
    dnp_graph_free(g);
    /* weights d_in x d_out overflowing: an FC of 2^40 inputs to 2^40 outputs */
    g = dnp_graph_new("fc");
    int x = dnp_graph_input(g, "x", INT64_C(1) << 40, 1, 1);
    CHECK(x == 0);
    CHECK_EQ_INT(dnp_graph_fc(g, "fc", x, INT64_C(1) << 40, 0), -1);
    CHECK(strstr(dnp_graph_error(g), "op 'fc': weight elements") != NULL);
    CHECK_EQ_INT(dnp_graph_n_ops(g), 1);
    dnp_graph_free(g);
    /* the same through model JSON: the op and the limit are named */
    dnp_error err;
    CHECK_EQ_INT(load_model_text(MODEL_HEAD "{\"name\": \"x\", \"kind\": \"input\", "
                                            "\"inputs\": [], \"out\": [1099511627776, "
                                            "1099511627776, 1]}]}",
                                 &g, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "ops[0] ('x')") != NULL && strstr(err.msg, "2^40") != NULL);
}

TEST(checked_batch_times_elements_is_refused_not_overflowed)
{
    dnp_graph *g = dnp_graph_new("b");
    int x = dnp_graph_input(g, "x", INT64_C(1) << 20, INT64_C(1) << 20, 1);
    dnp_graph_unary(g, "r", DNP_OP_RELU, x);
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_graph_check_batch(g, INT64_C(1) << 20, &err), DNP_OK);
    CHECK_EQ_INT(dnp_graph_check_batch(g, INT64_C(1) << 40, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "batch 1099511627776") != NULL && strstr(err.msg, "'x'") != NULL);
    /* graph.c:410-411 used to overflow here; the counts now saturate */
    dnp_op_cost c;
    dnp_op_cost_get(g, 1, INT64_C(1) << 40, &c);
    CHECK(c.out_elems == INT64_MAX && c.in_elems == INT64_MAX);
    dnp_op_cost_get(g, 1, 3, &c);
    CHECK_EQ_INT(c.out_elems, 3 * (INT64_C(1) << 40));
    dnp_graph_free(g);
}

TEST(checked_strategy_batch_that_overflows_is_refused)
{
#define STRATEGY_FMT                                                                         \
    "{\"levels\": 0, \"batch\": %s, \"paths\": [{\"branch_bits\": 0, \"levels\": []}]}"
    const char *bad[] = {"9223372036854775807", "0", "-4", "1.5", "\"8\""};
    char text[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, STRATEGY_FMT, bad[i]);
        dnp_strategy *s = NULL;
        dnp_error err;
        dnp_error_clear(&err);
        CHECK_EQ_INT(dnp_strategy_read_buffer(text, strlen(text), "s.json", &s, &err),
                     DNP_ERR_INPUT);
        CHECK(strstr(err.msg, "s.json: \"batch\"") != NULL);
        CHECK(s == NULL);
    }
    snprintf(text, sizeof text, STRATEGY_FMT, "1099511627776");
    dnp_strategy *s = NULL;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_strategy_read_buffer(text, strlen(text), "s.json", &s, &err), DNP_OK);
    CHECK_EQ_INT(dnp_strategy_batch(s), INT64_C(1) << 40);
    dnp_strategy_free(s);
}

TEST(checked_onnx_same_upper_stride_zero_is_an_error_not_sigfpe)
{
    dnp_graph *g = NULL;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_load_onnx("tests/fuzz/corpus/onnx/crash_same_upper_stride0.onnx", NULL,
                               &g, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "strides 0x0") != NULL && strstr(err.msg, "1 .. 2^20") != NULL);
    CHECK(g == NULL);
}

/* NaN, infinity, negative and zero where a positive number is needed are
 * refused at load with the file and the field. */
TEST(checked_non_positive_and_non_finite_values_are_refused_at_load)
{
    dnp_cluster c;
    dnp_error err;
    const char *bad_cluster[] = {
        CLUSTER_ONE("\"peak_flops\": 0, \"net_bw_bps\": 1"),
        CLUSTER_ONE("\"peak_flops\": -5, \"net_bw_bps\": 1"),
        CLUSTER_ONE("\"peak_flops\": 1, \"net_bw_bps\": 0"),
        "{\"format\": \"dnnpar-cluster\", \"version\": 1, \"devices\": [{\"name\": \"g\", "
        "\"count\": 2, \"dtype\": \"fp32\", \"mem_bytes\": -1, \"mem_bw_bps\": 1, "
        "\"peak_flops\": 1, \"net_bw_bps\": 1}]}",
        CLUSTER_ONE("\"peak_flops\": 1, \"net_bw_bps\": 1, \"compute_eff\": 2"),
    };
    const char *field[] = {"\"peak_flops\" must be a positive",
                           "\"peak_flops\" must be a positive",
                           "\"net_bw_bps\" must be a positive",
                           "\"mem_bytes\" must be a non-negative", "\"compute_eff\""};
    for (size_t i = 0; i < sizeof bad_cluster / sizeof bad_cluster[0]; i++) {
        CHECK_EQ_INT(load_cluster_text(bad_cluster[i], &c, &err), DNP_ERR_INPUT);
        CHECK(strstr(err.msg, "c.json: devices[0] ('g')") != NULL);
        CHECK(strstr(err.msg, field[i]) != NULL);
    }
    /* JSON has no NaN; an infinite literal is refused with its position */
    CHECK_EQ_INT(load_cluster_text(CLUSTER_ONE("\"peak_flops\": 1e999, \"net_bw_bps\": 1"), &c,
                                   &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "c.json:1:") != NULL);
    CHECK_EQ_INT(load_cluster_text(CLUSTER_ONE("\"peak_flops\": 1, \"net_bw_bps\": 1"), &c, &err),
                 DNP_OK);

    const char *bad_csv[] = {"nan", "inf", "-1", "0", "1e999"};
    char csv[256];
    for (size_t i = 0; i < sizeof bad_csv / sizeof bad_csv[0]; i++) {
        snprintf(csv, sizeof csv, CSV_HEAD "a,s,validate,lenet,1xv100,8,fp32,dp,%s\n", bad_csv[i]);
        CHECK_EQ_INT(load_csv_text(csv, &err), DNP_ERR_INPUT);
        CHECK(strstr(err.msg, "v.csv:2: measured_step_s") != NULL);
        snprintf(csv, sizeof csv, CSV_HEAD "a,s,validate,lenet,1xv100,%s,fp32,dp,1\n", bad_csv[i]);
        CHECK_EQ_INT(load_csv_text(csv, &err), DNP_ERR_INPUT);
        CHECK(strstr(err.msg, "v.csv:2: batch") != NULL);
    }

    dnp_graph *g;
    const char *bad_model[] = {
        MODEL_HEAD "{\"name\": \"x\", \"kind\": \"input\", \"inputs\": [], \"out\": [0,8,8]}]}",
        MODEL_HEAD "{\"name\": \"x\", \"kind\": \"input\", \"inputs\": [], \"out\": [-3,8,8]}]}",
        MODEL_HEAD "{\"name\": \"x\", \"kind\": \"input\", \"inputs\": [], \"out\": [3.5,8,8]}]}",
        MODEL_HEAD OP_X ",{\"name\": \"c\", \"kind\": \"conv\", \"inputs\": [\"x\"], "
                        "\"out\": [4,8,8], \"stride\": [0,1]}]}",
        MODEL_HEAD OP_X ",{\"name\": \"c\", \"kind\": \"conv\", \"inputs\": [\"x\"], "
                        "\"out\": [4,8,8], \"pad\": [-1,0]}]}",
    };
    for (size_t i = 0; i < sizeof bad_model / sizeof bad_model[0]; i++) {
        CHECK_EQ_INT(load_model_text(bad_model[i], &g, &err), DNP_ERR_INPUT);
        CHECK(strstr(err.msg, "m.json: ops[") != NULL);
    }
}

/* ---- item 3: validation on load ----------------------------------- */

/* Used to load and plan with a negative step time. */
TEST(model_json_inconsistent_shapes_are_refused_with_the_op)
{
    struct {
        const char *op, *why;
    } cases[] = {
        {"{\"name\": \"f\", \"kind\": \"fc\", \"inputs\": [\"x\"], \"out\": [10,100,100]}",
         "ops[1] ('f'): an fc's \"out\" must be [features, 1, 1]"},
        {"{\"name\": \"r\", \"kind\": \"relu\", \"inputs\": [\"x\"], \"out\": [3,8,9]}",
         "ops[1] ('r'): a relu keeps its input's 192 elements, \"out\" has 216"},
        {"{\"name\": \"c\", \"kind\": \"conv\", \"inputs\": [\"x\"], \"out\": [4,64,64]}",
         "ops[1] ('c'): output 64x64 is larger than the padded input 8x8"},
        {"{\"name\": \"p\", \"kind\": \"maxpool\", \"inputs\": [\"x\"], \"out\": [5,4,4]}",
         "ops[1] ('p'): pooling keeps the 3 channels, \"out\" has 5"},
        {"{\"name\": \"k\", \"kind\": \"concat\", \"inputs\": [\"x\", \"x\"], \"out\": [3,8,8]}",
         "ops[1] ('k'): inputs hold 384 elements, more than \"out\" (192)"},
        {"{\"name\": \"l\", \"kind\": \"flatten\", \"inputs\": [\"x\"], \"out\": [100,1,1]}",
         "ops[1] ('l'): a flatten keeps its input's 192 elements, \"out\" has 100"},
    };
    char text[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, MODEL_HEAD OP_X ",%s]}", cases[i].op);
        dnp_graph *g;
        dnp_error err;
        CHECK_EQ_INT(load_model_text(text, &g, &err), DNP_ERR_INPUT);
        if (strstr(err.msg, cases[i].why) == NULL)
            printf("  case %zu: %s\n", i, err.msg);
        CHECK(strstr(err.msg, cases[i].why) != NULL);
        CHECK(strncmp(err.msg, "m.json: ", 8) == 0);
    }
    /* the consistent versions load */
    dnp_graph *g;
    dnp_error err;
    CHECK_EQ_INT(load_model_text(MODEL_HEAD OP_X ",{\"name\": \"f\", \"kind\": \"fc\", "
                                                 "\"inputs\": [\"x\"], \"out\": [10,1,1]}]}",
                                 &g, &err),
                 DNP_OK);
    dnp_graph_free(g);
}

TEST(model_json_cycles_and_duplicate_names_are_refused)
{
    dnp_graph *g;
    dnp_error err;
    /* a -> b -> a: b names a later op */
    CHECK_EQ_INT(load_model_text(MODEL_HEAD OP_X
                                 ",{\"name\": \"a\", \"kind\": \"add\", "
                                 "\"inputs\": [\"x\", \"b\"], "
                                 "\"out\": [3,8,8]},{\"name\": \"b\", \"kind\": \"relu\", "
                                 "\"inputs\": [\"a\"], \"out\": [3,8,8]}]}",
                                 &g, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "m.json: ops[1] ('a'): input 1 ('b') is not an earlier op") != NULL);
    /* an op that is its own input */
    CHECK_EQ_INT(load_model_text(MODEL_HEAD OP_X ",{\"name\": \"r\", \"kind\": \"relu\", "
                                                 "\"inputs\": [\"r\"], \"out\": [3,8,8]}]}",
                                 &g, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "ops[1] ('r'): input 0 ('r') is not an earlier op") != NULL);
    CHECK_EQ_INT(load_model_text(MODEL_HEAD OP_X "," OP_X "]}", &g, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "m.json: ops[1] ('x'): op name 'x' is used twice") != NULL);
}

/* A device name that is no spec name, or a preset's name with other
 * figures, used to load and be written back as a spec that reads back
 * differently (or not at all). */
TEST(cluster_json_names_that_do_not_round_trip_are_refused)
{
    dnp_cluster c;
    dnp_error err;
    CHECK_EQ_INT(load_cluster_text("{\"format\": \"dnnpar-cluster\", \"version\": 1, \"devices\": "
                                   "[{\"name\": \"a b\", \"count\": 2, \"dtype\": \"fp32\", \"mem_bytes\": 1, "
                                   "\"mem_bw_bps\": 1, "
                                   "\"peak_flops\": 1, \"net_bw_bps\": 1}]}",
                                   &c, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "c.json: devices[0] ('a b'): device and node names may hold only") !=
          NULL);
    /* A preset's name with other figures is that preset with the figures
     * changed (an override; issue 32: an edited exported cluster loads). */
    CHECK_EQ_INT(load_cluster_text("{\"format\": \"dnnpar-cluster\", \"version\": 1, \"devices\": "
                                   "[{\"name\": \"v100\", \"count\": 2, \"dtype\": \"fp32\", \"mem_bytes\": 1, "
                                   "\"mem_bw_bps\": 1, "
                                   "\"peak_flops\": 1, \"net_bw_bps\": 1, \"inter_lat_s\": 0}]}",
                                   &c, &err),
                 DNP_OK);
    char spec[512];
    dnp_cluster_format(&c, spec, sizeof spec);
    CHECK_STR(spec, "2xv100(tflops=1e-12,fp32_tflops=0,fp16_tflops=0,mem_gb=1e-09,"
                    "membw_gbps=1e-09,net_gbps=8e-09,dtype=fp32,inter_gbps=8e-09,"
                    "inter_lat_us=0)");
    /* fields the file leaves out are the preset's (speed_cv, SMs, L2) */
    CHECK_EQ_INT(c.types[0].sm_count, 80);
    /* ... but a preset's name in other letter case reads back as the preset's. */
    CHECK_EQ_INT(load_cluster_text("{\"format\": \"dnnpar-cluster\", \"version\": 1, \"devices\": "
                                   "[{\"name\": \"V100\", \"count\": 2, \"dtype\": \"fp32\", \"mem_bytes\": 1, "
                                   "\"mem_bw_bps\": 1, "
                                   "\"peak_flops\": 1, \"net_bw_bps\": 1, \"inter_lat_s\": 0}]}",
                                   &c, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "reads back from its cluster spec as another device") != NULL);
}

/* Round-trip property over the zoo and the checked-in corpora: JSON that
 * loads writes back byte-identically, and every cluster spec form reads
 * back the same.  (The corpus replay checks the same on every corpus
 * file; this covers the zoo's models too.) */
TEST(json_round_trip_over_zoo_models_and_presets)
{
    for (int i = 0; i < dnp_zoo_count(); i++) {
        dnp_graph *g = NULL, *h = NULL;
        dnp_error err;
        dnp_error_clear(&err);
        CHECK_EQ_INT(dnp_zoo_build(dnp_zoo_name(i), &g, &err), DNP_OK);
        char *a = dnp_model_to_json(g);
        CHECK_EQ_INT(dnp_model_read_json_buffer(a, strlen(a), "zoo.json", &h, &err), DNP_OK);
        if (h == NULL) {
            printf("  %s: %s\n", dnp_zoo_name(i), err.msg);
        } else {
            char *b = dnp_model_to_json(h);
            CHECK(strcmp(a, b) == 0);
            dnp_free(b);
        }
        dnp_free(a);
        dnp_graph_free(g);
        dnp_graph_free(h);
    }
    int n_dev = dnp_device_preset_count(), n_node = dnp_node_preset_count();
    for (int i = 0; i < n_dev + n_node; i++) {
        dnp_cluster c;
        memset(&c, 0, sizeof c);
        c.n_types = 1;
        c.types[0] = i < n_dev ? *dnp_device_preset_at(i) : *dnp_node_preset_at(i - n_dev);
        c.counts[0] = 2 * c.types[0].devices_per_node;
        char *a = dnp_cluster_to_json(&c);
        dnp_cluster d;
        dnp_error err;
        dnp_error_clear(&err);
        CHECK_EQ_INT(dnp_cluster_read_json_buffer(a, strlen(a), "p.json", &d, &err), DNP_OK);
        char *b = dnp_cluster_to_json(&d);
        CHECK(strcmp(a, b) == 0);
        dnp_free(a);
        dnp_free(b);
    }
}

/* A validate row whose batch overflows the model's element counts is kept
 * with a note and no prediction (it used to be planned with overflowing
 * sizes). */
TEST(checked_validate_row_with_overflowing_batch_gets_a_note)
{
    const char *csv = CSV_HEAD "big,s,validate,resnet50,1xv100,1099511627776,fp16,dp,1\n";
    dnp_validation *v = NULL;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_validate_csv_buffer(csv, strlen(csv), "v.csv", 0, &v, &err), DNP_OK);
    CHECK(v != NULL && v->n_rows == 1);
    if (v != NULL && v->n_rows == 1) {
        CHECK(isnan(v->rows[0].predicted_step_s));
        CHECK(strstr(v->rows[0].note, "batch 1099511627776 is too large for model 'resnet50'") !=
              NULL);
    }
    dnp_validation_free(v);
}

/* Read a whole file into a new NUL-terminated buffer (dnp_free), or NULL. */
static char *slurp_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = dnp_malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1)
            break;
        char *bigger = dnp_realloc(buf, 2 * cap);
        if (bigger == NULL)
            dnp_free(buf);
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    if (buf != NULL)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* The seed files of the model and cluster corpora (written by
 * export-model / export-cluster) load and write back byte-identically
 * (plus the CLI's final newline).  crash_* files are reproducers, not
 * seeds. */
TEST(json_corpus_seeds_write_back_byte_identically)
{
    const char *dirs[2] = {"tests/fuzz/corpus/model_json", "tests/fuzz/corpus/cluster_json"};
    int n_checked = 0;
    for (int k = 0; k < 2; k++) {
        DIR *d = opendir(dirs[k]);
        CHECK(d != NULL);
        if (d == NULL)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.' || strncmp(e->d_name, "crash_", 6) == 0)
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[k], e->d_name);
            size_t len = 0;
            char *file = slurp_file(path, &len);
            CHECK(file != NULL);
            if (file == NULL)
                continue;
            dnp_error err;
            dnp_error_clear(&err);
            char *text = NULL;
            if (k == 0) {
                dnp_graph *g = NULL;
                CHECK_EQ_INT(dnp_model_read_json_buffer(file, len, path, &g, &err), DNP_OK);
                text = g ? dnp_model_to_json(g) : NULL;
                dnp_graph_free(g);
            } else {
                dnp_cluster c;
                CHECK_EQ_INT(dnp_cluster_read_json_buffer(file, len, path, &c, &err), DNP_OK);
                text = err.status == DNP_OK ? dnp_cluster_to_json(&c) : NULL;
            }
            CHECK(text != NULL && strlen(text) + 1 == len && strncmp(text, file, len - 1) == 0);
            if (text == NULL || strlen(text) + 1 != len)
                printf("  %s does not write back identically\n", path);
            n_checked++;
            dnp_free(text);
            dnp_free(file);
        }
        closedir(d);
    }
    CHECK(n_checked >= 8);
}

/* A 600-character tensor name used to push the reason out of the message. */
TEST(onnx_error_keeps_its_reason_with_a_long_tensor_name)
{
    dnp_graph *g = NULL;
    dnp_error err;
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_load_onnx("tests/fuzz/corpus/onnx/long_name.onnx", NULL, &g, &err),
                 DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "node 'y' (Reshape): the target shape 'tttt") != NULL);
    CHECK(strstr(err.msg, "...' is not a constant dnnpar can fold") != NULL);
    CHECK(strlen(err.msg) < 200);
}
