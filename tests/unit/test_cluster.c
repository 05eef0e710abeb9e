/* test_cluster.c - device presets, cluster spec parsing and formatting. */
#include "test.h"

#include "dnnpar.h"

#include <stdlib.h>

/* 1 if two clusters are identical: same types (names, figures) in the same
 * order with the same counts. */
static int cluster_equal(const dnp_cluster *a, const dnp_cluster *b)
{
    if (a->n_types != b->n_types)
        return 0;
    for (int i = 0; i < a->n_types; i++) {
        const dnp_device_type *x = &a->types[i], *y = &b->types[i];
        if (a->counts[i] != b->counts[i] || strcmp(x->name, y->name) != 0 ||
            strcmp(x->dtype, y->dtype) != 0 || x->bytes_per_elem != y->bytes_per_elem ||
            memcmp(&x->peak_flops, &y->peak_flops, sizeof(double)) != 0 ||
            memcmp(&x->mem_bytes, &y->mem_bytes, sizeof(double)) != 0 ||
            memcmp(&x->mem_bw_bps, &y->mem_bw_bps, sizeof(double)) != 0 ||
            memcmp(&x->net_bw_bps, &y->net_bw_bps, sizeof(double)) != 0)
            return 0;
    }
    return 1;
}

/* Parse `spec` (must succeed), format it, parse the text again and check
 * the two clusters are identical; the formatted text goes to out[n]. */
static void check_round_trip(const char *spec, dnp_cluster *c, char *out, size_t n)
{
    dnp_error err = {0};
    dnp_status st = dnp_cluster_parse(spec, c, &err);
    if (st != DNP_OK) {
        printf("  spec '%s': %s\n", spec, err.msg);
        CHECK_EQ_INT(st, DNP_OK);
        out[0] = '\0';
        return;
    }
    dnp_cluster_format(c, out, n);
    dnp_cluster back;
    dnp_error err2 = {0};
    st = dnp_cluster_parse(out, &back, &err2);
    if (st != DNP_OK)
        printf("  formatted '%s': %s\n", out, err2.msg);
    CHECK_EQ_INT(st, DNP_OK);
    if (st == DNP_OK && !cluster_equal(c, &back)) {
        printf("  round trip of '%s' via '%s' changed the cluster\n", spec, out);
        CHECK(0);
    }
}

static const dnp_device_type *preset_named(const char *name)
{
    for (int i = 0; i < dnp_device_preset_count(); i++)
        if (strcmp(dnp_device_preset_at(i)->name, name) == 0)
            return dnp_device_preset_at(i);
    return NULL;
}

static void check_device(const dnp_device_type *d, const char *name, double flops, double mem,
                         double membw, double net, int bpe, const char *dtype)
{
    CHECK(d != NULL);
    if (d == NULL)
        return;
    CHECK_STR(d->name, name);
    CHECK(d->peak_flops == flops);
    CHECK(d->mem_bytes == mem);
    CHECK(d->mem_bw_bps == membw);
    CHECK(d->net_bw_bps == net);
    CHECK_EQ_INT(d->bytes_per_elem, bpe);
    CHECK_STR(d->dtype, dtype);
}

TEST(cluster_presets)
{
    CHECK_EQ_INT(dnp_device_preset_count(), 5);
    check_device(preset_named("tpu-v2"), "tpu-v2", 180e12, 64e9, 2400e9, 1e9, 2, "bfloat16");
    check_device(preset_named("tpu-v3"), "tpu-v3", 420e12, 128e9, 4800e9, 2e9, 2, "bfloat16");
    check_device(preset_named("v100"), "v100", 125e12, 32e9, 900e9, 300e9, 2, "fp16");
    check_device(preset_named("a100"), "a100", 312e12, 40e9, 1555e9, 600e9, 2, "bfloat16");
    check_device(preset_named("1080ti"), "1080ti", 11.34e12, 11e9, 484e9, 15.75e9, 4, "fp32");
    for (int i = 0; i < dnp_device_preset_count(); i++) {
        const char *src = dnp_device_preset_source(i);
        CHECK(src != NULL && strlen(src) > 10 && strchr(src, '\n') == NULL);
    }
    CHECK(strstr(dnp_device_preset_source(0), "Table 7") != NULL);
    CHECK(strstr(dnp_device_preset_source(0), "6.1") != NULL);
    CHECK(strstr(dnp_device_preset_source(1), "Table 7") != NULL);
    CHECK(dnp_device_preset_at(-1) == NULL);
    CHECK(dnp_device_preset_at(dnp_device_preset_count()) == NULL);
    CHECK(dnp_device_preset_source(99) == NULL);
}

TEST(cluster_preset_lookup)
{
    dnp_device_type d;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_device_preset("TPU-V3", &d, &err), DNP_OK);
    CHECK_STR(d.name, "tpu-v3");
    CHECK(d.peak_flops == 420e12);
    CHECK_EQ_INT(dnp_device_preset("1080Ti", &d, &err), DNP_OK);
    CHECK_STR(d.name, "1080ti");

    memset(&d, 0x5a, sizeof d);
    dnp_device_type before = d;
    CHECK_EQ_INT(dnp_device_preset("tpu-v9", &d, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "tpu-v9") != NULL);
    CHECK(memcmp(&d, &before, sizeof d) == 0); /* untouched on failure */
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_device_preset(NULL, &d, &err), DNP_ERR_INPUT);
}

TEST(cluster_parse_heterogeneous)
{
    dnp_cluster c;
    char buf[256];
    check_round_trip("128xtpu-v2+128xtpu-v3", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 2);
    CHECK_STR(c.types[0].name, "tpu-v2");
    CHECK_STR(c.types[1].name, "tpu-v3");
    CHECK_EQ_INT(c.counts[0], 128);
    CHECK_EQ_INT(c.counts[1], 128);
    CHECK_EQ_INT(dnp_cluster_devices(&c), 256);
    CHECK(c.types[0].peak_flops == 180e12);
    CHECK(c.types[1].net_bw_bps == 2e9);
    CHECK_STR(buf, "128xtpu-v2+128xtpu-v3");
}

TEST(cluster_parse_simple)
{
    dnp_cluster c;
    char buf[256];
    check_round_trip("8xtpu-v3", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 8);
    CHECK_STR(c.types[0].name, "tpu-v3");
    CHECK_EQ_INT(dnp_cluster_devices(&c), 8);
    CHECK_STR(buf, "8xtpu-v3");

    check_round_trip("tpu-v3", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 1);
    CHECK_EQ_INT(dnp_cluster_devices(&c), 1);
    CHECK_STR(buf, "1xtpu-v3");

    /* A preset whose name starts with digits, with and without a count. */
    check_round_trip("1080ti", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.counts[0], 1);
    CHECK_STR(c.types[0].name, "1080ti");
    check_round_trip(" 4 X 1080TI + 2*v100+a100 ", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 3);
    CHECK_STR(buf, "4x1080ti+2xv100+1xa100");
    check_round_trip("1000000xtpu-v2", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.counts[0], 1000000);
    check_round_trip("007xtpu-v2", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.counts[0], 7);
}

TEST(cluster_parse_merge)
{
    dnp_cluster c;
    char buf[256];
    check_round_trip("2*TPU-V2 + 2 x tpu-v2", &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 4);
    CHECK_STR(c.types[0].name, "tpu-v2");
    CHECK_STR(buf, "4xtpu-v2");

    /* Order of first appearance is kept. */
    check_round_trip("tpu-v3+2xtpu-v2+3xtpu-v3", &c, buf, sizeof buf);
    CHECK_STR(buf, "4xtpu-v3+2xtpu-v2");

    /* A custom device with a preset's name and identical figures is that preset. */
    check_round_trip("custom(name=TPU-v2,tflops=180,mem_gb=64,membw_gbps=2400,net_gbps=8,"
                     "dtype=bf16)+tpu-v2",
                     &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 2);
    CHECK_STR(buf, "2xtpu-v2");

    /* Identical customs merge. */
    check_round_trip("custom(name=g,tflops=1,net_gbps=1)+3xcustom(net_gbps=1,tflops=1,name=g)",
                     &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 4);
}

TEST(cluster_parse_custom)
{
    dnp_cluster c;
    char buf[512];
    check_round_trip("4xcustom(name=g,tflops=100,mem_gb=32,membw_gbps=900,net_gbps=100,dtype=fp16)",
                     &c, buf, sizeof buf);
    CHECK_EQ_INT(c.n_types, 1);
    CHECK_EQ_INT(c.counts[0], 4);
    check_device(&c.types[0], "g", 100e12, 32e9, 900e9, 12.5e9, 2, "fp16");
    CHECK_STR(buf, "4xcustom(name=g,tflops=100,mem_gb=32,membw_gbps=900,net_gbps=100,dtype=fp16)");

    /* Defaults: memory unknown (0), fp32; whitespace inside; case of keys. */
    check_round_trip("custom( name = My.dev-1 , TFLOPS = 2.5e1 , net_gbps = 0.8 )", &c, buf,
                     sizeof buf);
    check_device(&c.types[0], "My.dev-1", 25e12, 0, 0, 0.8 * 1.25e8, 4, "fp32");
    CHECK_STR(buf, "1xcustom(name=My.dev-1,tflops=25,net_gbps=0.8,dtype=fp32)");

    check_round_trip("2xcustom(name=b,tflops=1,net_gbps=1,dtype=bfloat16)+tpu-v3", &c, buf,
                     sizeof buf);
    CHECK_EQ_INT(c.n_types, 2);
    CHECK_EQ_INT(c.types[0].bytes_per_elem, 2);
    CHECK_STR(c.types[0].dtype, "bfloat16");
    CHECK_EQ_INT(dnp_cluster_devices(&c), 3);

    /* Awkward numbers still round-trip exactly. */
    check_round_trip("custom(name=w,tflops=0.1,mem_gb=1e-300,membw_gbps=3.3333333333333335,"
                     "net_gbps=1e299)",
                     &c, buf, sizeof buf);
    check_round_trip("custom(name=x,tflops=123456.789,net_gbps=4.9e-300)", &c, buf, sizeof buf);
}

TEST(cluster_format_round_trip_random)
{
    unsigned long long st = 0x1234abcdULL;
    for (int iter = 0; iter < 2000; iter++) {
        char spec[512], buf[512];
        /* Random doubles over many magnitudes, written with 17 digits. */
        double v[4];
        for (int k = 0; k < 4; k++)
            v[k] = test_uniform(&st, 1, 10) * pow(10, (double)(test_rand(&st) % 40) - 20);
        snprintf(spec, sizeof spec,
                 "%dxcustom(name=r%d,tflops=%.17g,mem_gb=%.17g,membw_gbps=%.17g,net_gbps=%.17g)"
                 "+%dxtpu-v2",
                 1 + (int)(test_rand(&st) % 1000), iter, v[0], v[1], v[2], v[3],
                 1 + (int)(test_rand(&st) % 1000));
        dnp_cluster c;
        check_round_trip(spec, &c, buf, sizeof buf);
    }
}

TEST(cluster_format_truncates)
{
    dnp_cluster c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("128xtpu-v2+128xtpu-v3", &c, &err), DNP_OK);
    char buf[8];
    memset(buf, 'z', sizeof buf);
    dnp_cluster_format(&c, buf, sizeof buf);
    CHECK_STR(buf, "128xtpu");
    char one[1] = {'z'};
    dnp_cluster_format(&c, one, 1);
    CHECK_EQ_INT(one[0], '\0');
    dnp_cluster_format(&c, NULL, 0); /* no-op */
    char big[64];
    dnp_cluster_format(NULL, big, sizeof big);
    CHECK_STR(big, "");
    CHECK_EQ_INT(dnp_cluster_devices(NULL), 0);
}

typedef struct {
    const char *spec;
    const char *needle; /* must appear in the message after the echoed spec */
} bad_case;

static void check_bad(const char *spec, const char *needle)
{
    dnp_cluster c;
    memset(&c, 0x5a, sizeof c);
    dnp_cluster before = c;
    dnp_error err = {0};
    dnp_status st = dnp_cluster_parse(spec, &c, &err);
    if (st != DNP_ERR_INPUT)
        printf("  spec '%s' gave status %d\n", spec, (int)st);
    CHECK_EQ_INT(st, DNP_ERR_INPUT);
    CHECK_EQ_INT(err.status, DNP_ERR_INPUT);
    CHECK(memcmp(&c, &before, sizeof c) == 0);
    CHECK(strchr(err.msg, '\n') == NULL);
    CHECK(strstr(err.msg, "column ") != NULL);
    /* The problem text follows the echoed spec: look after it. */
    const char *problem = strstr(err.msg, "': ");
    size_t speclen = strlen(spec);
    if (speclen <= 60 && strstr(spec, "': ") == NULL)
        problem = err.msg + strlen("cluster spec '") + speclen;
    if (problem == NULL || strstr(problem, needle) == NULL) {
        printf("  spec '%s': message \"%s\" lacks \"%s\"\n", spec, err.msg, needle);
        CHECK(0);
    }
}

TEST(cluster_parse_errors)
{
    static const bad_case cases[] = {
        {"", "empty spec"},
        {"   ", "empty spec"},
        {"+", "before '+'"},
        {"tpu-v2+", "trailing '+'"},
        {"tpu-v2 + ", "trailing '+'"},
        {"tpu-v2++tpu-v3", "before '+'"},
        {"0xtpu-v3", "count must be a positive integer"},
        {"0xtpu-v3", "'0'"},
        {"-4xtpu-v3", "'-4'"},
        {"1.5xtpu-v3", "'1.5'"},
        {"99999999999999999999xtpu-v2", "'99999999999999999999'"},
        {"1000001xtpu-v2", "'1000001'"},
        {"1000000xtpu-v2+tpu-v3", "total device count"},
        {"4xtpu-v9", "unknown device 'tpu-v9'"},
        {"128xtpu-v9", "unknown device 'tpu-v9' at column 5 (known: tpu-v2, tpu-v3, v100, a100, "
                       "1080ti, custom(...))"},
        {"4x", "missing device after '4x'"},
        {"4x+tpu-v2", "missing device after '4x'"},
        {"4 tpu-v2", "expected 'x' or '*' after count '4'"},
        {"4x(", "expected a device name, got '('"},
        {"tpu-v2 tpu-v3", "unexpected 'tpu-v3'"},
        {"tpu-v2,tpu-v3", "unexpected ','"},
        {"4xcustom", "expected '(' after 'custom'"},
        {"4xcustom(", "unterminated 'custom('"},
        {"4xcustom(name=a", "unterminated 'custom('"},
        {"4xcustom()", "missing required key 'name'"},
        {"4xcustom(name=a)", "missing required key 'tflops'"},
        {"4xcustom(name=a,tflops=1)", "missing required key 'net_gbps'"},
        {"4xcustom(tflops=1,net_gbps=1)", "missing required key 'name'"},
        {"4xcustom(name=a,tflops=-1,net_gbps=1)", "invalid number '-1' for key 'tflops'"},
        {"4xcustom(name=a,tflops=0,net_gbps=1)", "invalid number '0' for key 'tflops'"},
        {"4xcustom(name=a,tflops=nan,net_gbps=1)", "invalid number 'nan' for key 'tflops'"},
        {"4xcustom(name=a,tflops=inf,net_gbps=1)", "invalid number 'inf'"},
        {"4xcustom(name=a,tflops=0x10,net_gbps=1)", "invalid number '0x10'"},
        {"4xcustom(name=a,tflops=1e,net_gbps=1)", "invalid number '1e'"},
        {"4xcustom(name=a,tflops=1 2,net_gbps=1)", "invalid number '1 2'"},
        {"4xcustom(name=a,tflops=1e400,net_gbps=1)", "'1e400' for key 'tflops' is out of range"},
        {"4xcustom(name=a,tflops=1e300,net_gbps=1)", "'1e300' for key 'tflops' is out of range"},
        {"4xcustom(name=a,tflops=1e-400,net_gbps=1)", "'1e-400' for key 'tflops' is out of range"},
        {"4xcustom(name=a,tflops=1,net_gbps=4.9e-320)",
         "'4.9e-320' for key 'net_gbps' is out of range"},
        {"4xcustom(name=a,tflops=1,net_gbps=1.7976931348623157e300)", "is out of range"},
        {"4xcustom(name=a,tflops=1,net_gbps=1,bogus=2)", "unknown custom key 'bogus'"},
        {"4xcustom(name=a,tflops=1,net_gbps=1,name=b)", "duplicate key 'name'"},
        {"4xcustom(name=a,tflops=1,net_gbps=1,)", "expected a key in 'custom(...)', got ')'"},
        {"4xcustom(name=a,tflops=1,net_gbps=)", "missing value for key 'net_gbps'"},
        {"4xcustom(name=a,tflops=1,net_gbps 1)", "expected '=' after key 'net_gbps'"},
        {"4xcustom(name=a,tflops=1,net_gbps=1,dtype=int8)", "unknown dtype 'int8'"},
        {"4xcustom(name=a b,tflops=1,net_gbps=1)", "invalid device name 'a b'"},
        {"4xcustom(name=abcdefghijklmnopqrstuvwxyz0123456,tflops=1,net_gbps=1)",
         "invalid device name 'abcdefghijklmnopqrstuvwxyz0123456'"},
        {"4xcustom(name=tpu-v2,tflops=1,net_gbps=1)", "name 'tpu-v2' is a preset's name"},
        {"custom(name=a,tflops=1,net_gbps=1)+custom(name=A,tflops=2,net_gbps=1)",
         "device 'A' is defined twice with different figures"},
        {"custom(name=a,tflops=1,net_gbps=1)+custom(name=b,tflops=1,net_gbps=1)+"
         "custom(name=c,tflops=1,net_gbps=1)+custom(name=d,tflops=1,net_gbps=1)+"
         "custom(name=e,tflops=1,net_gbps=1)+custom(name=f,tflops=1,net_gbps=1)+"
         "custom(name=g,tflops=1,net_gbps=1)+custom(name=h,tflops=1,net_gbps=1)+"
         "custom(name=i,tflops=1,net_gbps=1)",
         "more than 8 distinct device types ('custom(name=i,tflops=1,net_gbps=1)'"},
        {"tpu-v2\n+\x01", "'\\x01'"},
        {"tpu-v2(", "unexpected '('"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_bad(cases[i].spec, cases[i].needle);

    /* Exact wording of the documented examples. */
    dnp_cluster c;
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_cluster_parse("128xtpu-v9", &c, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg, "cluster spec '128xtpu-v9': unknown device 'tpu-v9' at column 5 "
                       "(known: tpu-v2, tpu-v3, v100, a100, 1080ti, custom(...))");
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_cluster_parse("0xtpu-v3", &c, &err), DNP_ERR_INPUT);
    CHECK_STR(err.msg,
              "cluster spec '0xtpu-v3': count must be a positive integer (got '0') at column 1");
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_cluster_parse(NULL, &c, &err), DNP_ERR_INPUT);
}

/* Long inputs: linear time, bounded messages, no overflow. */
TEST(cluster_parse_long_inputs)
{
    size_t n = 1u << 20;
    char *s = malloc(n + 64);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    dnp_cluster c;
    dnp_error err = {0};

    memset(s, 'a', n);
    s[n] = '\0';
    CHECK_EQ_INT(dnp_cluster_parse(s, &c, &err), DNP_ERR_INPUT);
    CHECK(strlen(err.msg) < sizeof err.msg);
    CHECK(strstr(err.msg, "unknown device 'aaaa") != NULL);

    dnp_error_clear(&err);
    memset(s, '9', n);
    memcpy(s + n, "xtpu-v2", 8);
    CHECK_EQ_INT(dnp_cluster_parse(s, &c, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "count must be at most") != NULL);

    dnp_error_clear(&err);
    memset(s, '1', n);
    const char *prefix = "custom(name=a,net_gbps=1,tflops=";
    memcpy(s, prefix, strlen(prefix));
    memcpy(s + n, ")", 2);
    CHECK_EQ_INT(dnp_cluster_parse(s, &c, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "out of range") != NULL);

    /* 140000 terms of one type merge to one type. */
    size_t pos = 0;
    for (int i = 0; i < 140000; i++) {
        memcpy(s + pos, "tpu-v2+", 7);
        pos += 7;
    }
    memcpy(s + pos, "2xtpu-v3", 9);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_cluster_parse(s, &c, &err), DNP_OK);
    CHECK_EQ_INT(c.n_types, 2);
    CHECK_EQ_INT(c.counts[0], 140000);
    CHECK_EQ_INT(dnp_cluster_devices(&c), 140002);

    /* Total just above the limit. */
    snprintf(s, n, "999999xtpu-v2+1xtpu-v3+1xtpu-v2");
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_cluster_parse(s, &c, &err), DNP_ERR_INPUT);
    CHECK(strstr(err.msg, "total device count exceeds 1000000") != NULL);
    free(s);
}

/* Random bytes and mutations of valid specs: never crash; every success
 * round-trips, every failure is DNP_ERR_INPUT with a one-line message. */
TEST(cluster_parse_garbage)
{
    static const char *seeds[] = {
        "128xtpu-v2+128xtpu-v3",
        "4xcustom(name=g,tflops=100,mem_gb=32,membw_gbps=900,net_gbps=100,dtype=fp16)",
        "2*TPU-V2 + 2 x tpu-v2",
        "3x1080ti+v100",
    };
    static const char alphabet[] = "0123456789x*+-()=,. eEtpuvcsomnaf_\t\x01\xff";
    unsigned long long st = 42;
    for (int iter = 0; iter < 20000; iter++) {
        char s[160];
        size_t len;
        if (iter % 2 == 0) {
            len = (size_t)(test_rand(&st) % 40);
            for (size_t i = 0; i < len; i++) {
                char ch = (char)(test_rand(&st) % 255 + 1);
                if (test_rand(&st) % 2)
                    ch = alphabet[test_rand(&st) % (sizeof alphabet - 1)];
                s[i] = ch;
            }
        } else {
            const char *seed = seeds[test_rand(&st) % 4];
            len = strlen(seed);
            memcpy(s, seed, len);
            int edits = 1 + (int)(test_rand(&st) % 3);
            for (int e = 0; e < edits && len > 0; e++) {
                size_t at = (size_t)(test_rand(&st) % len);
                char ch = alphabet[test_rand(&st) % (sizeof alphabet - 1)];
                switch (test_rand(&st) % 3) {
                case 0: s[at] = ch; break;
                case 1: memmove(s + at, s + at + 1, len - at - 1); len--; break;
                default:
                    if (len + 1 < sizeof s) {
                        memmove(s + at + 1, s + at, len - at);
                        s[at] = ch;
                        len++;
                    }
                }
            }
        }
        s[len] = '\0';
        dnp_cluster c;
        dnp_error err = {0};
        dnp_status rc = dnp_cluster_parse(s, &c, &err);
        if (rc == DNP_OK) {
            char buf[512];
            dnp_cluster back;
            dnp_cluster_format(&c, buf, sizeof buf);
            dnp_error err2 = {0};
            CHECK_EQ_INT(dnp_cluster_parse(buf, &back, &err2), DNP_OK);
            CHECK(cluster_equal(&c, &back));
            CHECK(c.n_types >= 1 && c.n_types <= DNP_MAX_DEVICE_TYPES);
        } else {
            CHECK_EQ_INT(rc, DNP_ERR_INPUT);
            CHECK(strchr(err.msg, '\n') == NULL);
            CHECK(strncmp(err.msg, "cluster spec '", 14) == 0);
        }
    }
}
