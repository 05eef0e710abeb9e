/*
 * cluster.c - device presets and the cluster spec language.
 *
 * A cluster is a list of device types with a count each.  It is written as
 * a spec such as "128xtpu-v2+128xtpu-v3" or
 * "4xcustom(name=g,tflops=100,net_gbps=100)"; the grammar, units and presets
 * are documented in docs/cluster.md.
 *
 * The parser works byte by byte on the caller's string (no copies, no
 * locale-dependent ctype calls), so it is O(length) and safe on any input.
 * Every error names the problem, the offending token and its 1-based byte
 * column.  dnp_cluster_format prints numbers with the shortest decimal text
 * that parses back to the identical double, so parse(format(c)) == c for
 * every cluster produced by dnp_cluster_parse.
 */
#include "dnnpar.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Limits of the spec language. */
#define CLUSTER_MAX_COUNT 1000000   /* per term and in total */
#define NAME_MAX_CHARS 31           /* custom device names */

/* Unit conversions: value in spec units times the factor gives SI units.
 * Parsing and formatting both use exactly `value * factor`, which is what
 * makes the format round-trip exact. */
#define TFLOPS_TO_FLOPS 1e12        /* TFLOP/s -> FLOP/s */
#define GB_TO_BYTES 1e9             /* GB (decimal) -> bytes */
#define GBYTES_PS_TO_BPS 1e9        /* GB/s -> bytes/s */
#define GBITS_PS_TO_BPS 1.25e8      /* Gb/s -> bytes/s (1e9 / 8, exact) */

/* How much of the user's text is echoed into one error line. */
#define ECHO_SPEC_CHARS 80
#define ECHO_TOKEN_CHARS 40

typedef struct {
    dnp_device_type dev;
    const char *source;
} preset_entry;

static const preset_entry k_presets[] = {
    {{"tpu-v2", 180e12, 64e9, 2400e9, 8 * GBITS_PS_TO_BPS, 2, "bfloat16", 0, 0, 0, 0, 0, 0, 0, "", 1, DNP_TOPO_NONE, 0, 0, 0, 0},
     "AccPar (Song et al., HPCA 2020) Table 7 and section 6.1: 180 TFLOP/s, 64 GB HBM, "
     "2400 GB/s, network 8 Gb/s per accelerator, bfloat16"},
    {{"tpu-v3", 420e12, 128e9, 4800e9, 16 * GBITS_PS_TO_BPS, 2, "bfloat16", 0, 0, 0, 0, 0, 0, 0, "", 1, DNP_TOPO_NONE, 0, 0, 0, 0},
     "AccPar (Song et al., HPCA 2020) Table 7 and section 6.1: 420 TFLOP/s, 128 GB HBM, "
     "4800 GB/s (assumed by the paper), network 16 Gb/s per accelerator, bfloat16"},
    {{"v100", 125e12, 32e9, 900e9, 300e9, 2, "fp16", 0, 0, 0, 0, 0, 0, 0, "", 1, DNP_TOPO_NONE, 0, 0, 0, 0},
     "NVIDIA Tesla V100 SXM2 32GB datasheet: 125 TFLOP/s fp16 tensor, 32 GB HBM2, "
     "900 GB/s, NVLink 300 GB/s total, fp16"},
    {{"a100", 312e12, 40e9, 1555e9, 600e9, 2, "bfloat16", 0, 0, 0, 0, 0, 0, 0, "", 1, DNP_TOPO_NONE, 0, 0, 0, 0},
     "NVIDIA A100 SXM4 40GB datasheet: 312 TFLOP/s bf16 tensor (dense), 40 GB HBM2, "
     "1555 GB/s, NVLink 600 GB/s total, bfloat16"},
    {{"1080ti", 11.34e12, 11e9, 484e9, 15.75e9, 4, "fp32", 0, 0, 0, 0, 0, 0, 0, "", 1, DNP_TOPO_NONE, 0, 0, 0, 0},
     "NVIDIA GeForce GTX 1080 Ti specifications: 11.34 TFLOP/s fp32 (boost), 11 GB GDDR5X, "
     "484 GB/s, PCIe 3.0 x16 15.75 GB/s, fp32"},
};

#define N_PRESETS ((int)(sizeof k_presets / sizeof k_presets[0]))

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* Characters of device names and keys: [A-Za-z0-9_.-]. */
static int is_name_char(unsigned char c)
{
    return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '-';
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

/* Length of s, at most cap (s need not be NUL-terminated within cap). */
static size_t bounded_len(const char *s, size_t cap)
{
    size_t n = 0;
    while (n < cap && s[n] != '\0')
        n++;
    return n;
}

/* 1 if s[0..len) equals NUL-terminated word, ignoring ASCII case. */
static int span_ieq(const char *s, size_t len, const char *word)
{
    size_t i = 0;
    for (; i < len; i++) {
        if (word[i] == '\0' || lower((unsigned char)s[i]) != lower((unsigned char)word[i]))
            return 0;
    }
    return word[i] == '\0';
}

/* Case-insensitive equality of two bounded names (char[32] fields). */
static int name_ieq(const char *a, const char *b, size_t cap)
{
    size_t la = bounded_len(a, cap), lb = bounded_len(b, cap);
    if (la != lb)
        return 0;
    for (size_t i = 0; i < la; i++)
        if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
            return 0;
    return 1;
}

/* 1 if two device types have the same figures (the name is not compared). */
static int same_figures(const dnp_device_type *a, const dnp_device_type *b)
{
    return a->peak_flops == b->peak_flops && a->mem_bytes == b->mem_bytes &&
           a->mem_bw_bps == b->mem_bw_bps && a->net_bw_bps == b->net_bw_bps &&
           a->bytes_per_elem == b->bytes_per_elem &&
           strncmp(a->dtype, b->dtype, sizeof a->dtype) == 0;
}

/* Index of the preset called s[0..len) (any case), or -1. */
static int preset_find(const char *s, size_t len)
{
    for (int i = 0; i < N_PRESETS; i++)
        if (span_ieq(s, len, k_presets[i].dev.name))
            return i;
    return -1;
}

/* Printable, bounded copy of s[0..len) for an error message: bytes outside
 * printable ASCII (and the backslash) become \xNN, and text past
 * max_chars becomes "...". */
static void quote_span(char *out, size_t n, const char *s, size_t len, size_t max_chars)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    if (n == 0)
        return;
    for (size_t i = 0; i < len; i++) {
        if (i >= max_chars) {
            if (o + 3 < n) {
                memcpy(out + o, "...", 3);
                o += 3;
            }
            break;
        }
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            if (o + 1 >= n)
                break;
            out[o++] = (char)c;
        } else {
            if (o + 4 >= n)
                break;
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
}

/* "tpu-v2, tpu-v3, ..., custom(...)" */
static void known_devices(char *out, size_t n)
{
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < N_PRESETS; i++) {
        int w = snprintf(out + o, n - o, "%s, ", k_presets[i].dev.name);
        if (w < 0 || (size_t)w >= n - o)
            return;
        o += (size_t)w;
    }
    snprintf(out + o, n - o, "custom(...)");
}

/* ------------------------------------------------------------------ */
/* Presets                                                              */
/* ------------------------------------------------------------------ */

/* Copy preset `name` (any case) into *out; DNP_ERR_INPUT if unknown. */
dnp_status dnp_device_preset(const char *name, dnp_device_type *out, dnp_error *err)
{
    if (name == NULL || out == NULL) {
        dnp_error_set(err, DNP_ERR_INPUT, "device preset: no name given");
        return DNP_ERR_INPUT;
    }
    size_t len = strlen(name);
    int i = preset_find(name, len);
    if (i < 0) {
        char q[ECHO_TOKEN_CHARS * 4 + 8], known[160];
        quote_span(q, sizeof q, name, len, ECHO_TOKEN_CHARS);
        known_devices(known, sizeof known);
        dnp_error_set(err, DNP_ERR_INPUT, "unknown device preset '%s' (known: %s)", q, known);
        return DNP_ERR_INPUT;
    }
    *out = k_presets[i].dev;
    return DNP_OK;
}

/* Number of presets. */
int dnp_device_preset_count(void) { return N_PRESETS; }

/* Preset i in table order, or NULL if i is out of range. */
const dnp_device_type *dnp_device_preset_at(int i)
{
    return (i >= 0 && i < N_PRESETS) ? &k_presets[i].dev : NULL;
}

/* One-line source of preset i's figures, or NULL if i is out of range. */
const char *dnp_device_preset_source(int i)
{
    return (i >= 0 && i < N_PRESETS) ? k_presets[i].source : NULL;
}

/* ------------------------------------------------------------------ */
/* Parser                                                               */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *s;   /* the spec */
    size_t len;      /* strlen(s) */
    size_t pos;      /* next byte */
    dnp_error *err;
} parser;

/* Record "cluster spec '<spec>': <problem> at column <at+1><suffix>". */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void fail(const parser *p, size_t at, const char *suffix, const char *fmt, ...)
{
    char spec[ECHO_SPEC_CHARS * 4 + 8], problem[384];
    quote_span(spec, sizeof spec, p->s, p->len, ECHO_SPEC_CHARS);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    dnp_error_set(p->err, DNP_ERR_INPUT, "cluster spec '%s': %s at column %zu%s", spec, problem,
                  at + 1, suffix ? suffix : "");
}

/* Quoted token s[from..to) for messages, written to out[n]. */
static const char *tok(const parser *p, size_t from, size_t to, char *out, size_t n)
{
    if (to > p->len)
        to = p->len;
    if (from > to)
        from = to;
    quote_span(out, n, p->s + from, to - from, ECHO_TOKEN_CHARS);
    return out;
}

#define TOKBUF (ECHO_TOKEN_CHARS * 4 + 8)

static int at_end(const parser *p) { return p->pos >= p->len; }

static unsigned char cur(const parser *p) { return at_end(p) ? 0 : (unsigned char)p->s[p->pos]; }

static void skip_space(parser *p)
{
    while (!at_end(p) && is_space(cur(p)))
        p->pos++;
}

/* End of the name token starting at `from`. */
static size_t name_end(const parser *p, size_t from)
{
    size_t e = from;
    while (e < p->len && is_name_char((unsigned char)p->s[e]))
        e++;
    return e;
}

/* The token at `from` for "unexpected ..." messages: a name token, or one byte. */
static size_t some_token_end(const parser *p, size_t from)
{
    size_t e = name_end(p, from);
    return e > from ? e : (from < p->len ? from + 1 : from);
}

enum { KEY_NAME, KEY_TFLOPS, KEY_MEM_GB, KEY_MEMBW_GBPS, KEY_NET_GBPS, KEY_DTYPE, KEY_COUNT };

static const char *const k_keys[KEY_COUNT] = {"name",       "tflops",   "mem_gb",
                                              "membw_gbps", "net_gbps", "dtype"};

#define KNOWN_KEYS " (known: name, tflops, mem_gb, membw_gbps, net_gbps, dtype)"

/* Parse the number s[from..to) for key `key`: decimal digits, '.', 'e',
 * sign; finite and > 0; value * factor must stay finite.  Returns 0 on
 * error (recorded). */
static int parse_number(const parser *p, size_t from, size_t to, const char *key, double factor,
                        double *out_si)
{
    char t[TOKBUF];
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)p->s[i];
        if (!(is_digit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
            fail(p, from, NULL, "invalid number '%s' for key '%s' (must be a finite number > 0)",
                 tok(p, from, to, t, sizeof t), key);
            return 0;
        }
    }
    /* The token holds only number characters and is followed by ',' ')' or
     * whitespace, so strtod cannot read past `to`. */
    char *endp = NULL;
    errno = 0;
    double v = strtod(p->s + from, &endp);
    if (endp != p->s + to) {
        fail(p, from, NULL, "invalid number '%s' for key '%s' (must be a finite number > 0)",
             tok(p, from, to, t, sizeof t), key);
        return 0;
    }
    if (errno == ERANGE) {
        fail(p, from, NULL, "number '%s' for key '%s' is out of range",
             tok(p, from, to, t, sizeof t), key);
        return 0;
    }
    if (!(v > 0) || !isfinite(v)) {
        fail(p, from, NULL, "invalid number '%s' for key '%s' (must be a finite number > 0)",
             tok(p, from, to, t, sizeof t), key);
        return 0;
    }
    double si = v * factor;
    if (!isfinite(si)) {
        fail(p, from, NULL, "number '%s' for key '%s' is out of range",
             tok(p, from, to, t, sizeof t), key);
        return 0;
    }
    *out_si = si;
    return 1;
}

/* Parse "custom(...)"; p->pos is at '('.  dev_start is the column of
 * "custom" for messages.  Returns 0 on error (recorded). */
static int parse_custom(parser *p, size_t dev_start, dnp_device_type *out)
{
    char t[TOKBUF];
    int seen[KEY_COUNT] = {0};
    double figures[KEY_COUNT] = {0};
    size_t name_from = 0, name_to = 0;
    int bytes_per_elem = 4;
    const char *dtype = "fp32";

    p->pos++; /* '(' */
    skip_space(p);
    if (!at_end(p) && cur(p) == ')') {
        p->pos++;
    } else {
        for (;;) {
            skip_space(p);
            if (at_end(p)) {
                fail(p, dev_start, NULL, "unterminated 'custom(' (missing ')')");
                return 0;
            }
            size_t key_from = p->pos, key_to = name_end(p, key_from);
            if (key_to == key_from) {
                fail(p, key_from, NULL, "expected a key in 'custom(...)', got '%s'",
                     tok(p, key_from, some_token_end(p, key_from), t, sizeof t));
                return 0;
            }
            int key = -1;
            for (int k = 0; k < KEY_COUNT; k++)
                if (span_ieq(p->s + key_from, key_to - key_from, k_keys[k]))
                    key = k;
            if (key < 0) {
                fail(p, key_from, KNOWN_KEYS, "unknown custom key '%s'",
                     tok(p, key_from, key_to, t, sizeof t));
                return 0;
            }
            if (seen[key]) {
                fail(p, key_from, NULL, "duplicate key '%s'", k_keys[key]);
                return 0;
            }
            seen[key] = 1;
            p->pos = key_to;
            skip_space(p);
            if (cur(p) != '=') {
                fail(p, p->pos, NULL, "expected '=' after key '%s', got '%s'", k_keys[key],
                     at_end(p) ? "end of spec"
                               : tok(p, p->pos, some_token_end(p, p->pos), t, sizeof t));
                return 0;
            }
            p->pos++;
            skip_space(p);
            size_t val_from = p->pos;
            while (!at_end(p) && cur(p) != ',' && cur(p) != ')')
                p->pos++;
            size_t val_to = p->pos;
            while (val_to > val_from && is_space((unsigned char)p->s[val_to - 1]))
                val_to--;
            if (val_to == val_from) {
                fail(p, val_from, NULL, "missing value for key '%s'", k_keys[key]);
                return 0;
            }
            switch (key) {
            case KEY_NAME: {
                int ok = val_to - val_from <= NAME_MAX_CHARS;
                for (size_t i = val_from; ok && i < val_to; i++)
                    ok = is_name_char((unsigned char)p->s[i]);
                if (!ok) {
                    fail(p, val_from, NULL,
                         "invalid device name '%s' (1 to %d characters of A-Z a-z 0-9 _ . -)",
                         tok(p, val_from, val_to, t, sizeof t), NAME_MAX_CHARS);
                    return 0;
                }
                name_from = val_from;
                name_to = val_to;
                break;
            }
            case KEY_DTYPE: {
                size_t n = val_to - val_from;
                const char *v = p->s + val_from;
                if (span_ieq(v, n, "bfloat16") || span_ieq(v, n, "bf16")) {
                    dtype = "bfloat16";
                    bytes_per_elem = 2;
                } else if (span_ieq(v, n, "fp16")) {
                    dtype = "fp16";
                    bytes_per_elem = 2;
                } else if (span_ieq(v, n, "fp32")) {
                    dtype = "fp32";
                    bytes_per_elem = 4;
                } else {
                    fail(p, val_from, " (known: bfloat16, bf16, fp16, fp32)", "unknown dtype '%s'",
                         tok(p, val_from, val_to, t, sizeof t));
                    return 0;
                }
                break;
            }
            default: {
                static const double factor[KEY_COUNT] = {
                    [KEY_TFLOPS] = TFLOPS_TO_FLOPS, [KEY_MEM_GB] = GB_TO_BYTES,
                    [KEY_MEMBW_GBPS] = GBYTES_PS_TO_BPS, [KEY_NET_GBPS] = GBITS_PS_TO_BPS};
                if (!parse_number(p, val_from, val_to, k_keys[key], factor[key], &figures[key]))
                    return 0;
                break;
            }
            }
            if (at_end(p)) {
                fail(p, dev_start, NULL, "unterminated 'custom(' (missing ')')");
                return 0;
            }
            if (cur(p) == ')') {
                p->pos++;
                break;
            }
            p->pos++; /* ',' */
        }
    }

    static const int required[] = {KEY_NAME, KEY_TFLOPS, KEY_NET_GBPS};
    for (size_t r = 0; r < sizeof required / sizeof required[0]; r++) {
        if (!seen[required[r]]) {
            fail(p, dev_start, NULL, "'%s' is missing required key '%s'",
                 tok(p, dev_start, p->pos, t, sizeof t), k_keys[required[r]]);
            return 0;
        }
    }

    dnp_device_type d;
    memset(&d, 0, sizeof d);
    memcpy(d.name, p->s + name_from, name_to - name_from); /* <= 31 bytes, rest zero */
    d.peak_flops = figures[KEY_TFLOPS];
    d.mem_bytes = figures[KEY_MEM_GB];
    d.mem_bw_bps = figures[KEY_MEMBW_GBPS];
    d.net_bw_bps = figures[KEY_NET_GBPS];
    d.bytes_per_elem = bytes_per_elem;
    snprintf(d.dtype, sizeof d.dtype, "%s", dtype);

    int pi = preset_find(d.name, strlen(d.name));
    if (pi >= 0) {
        if (!same_figures(&d, &k_presets[pi].dev)) {
            fail(p, name_from, NULL,
                 "custom device name '%s' is a preset's name but the figures differ",
                 tok(p, name_from, name_to, t, sizeof t));
            return 0;
        }
        d = k_presets[pi].dev; /* identical: it is the preset */
    }
    *out = d;
    return 1;
}

/* Parse one TERM at p->pos into *count and *dev.  Returns 0 on error. */
static int parse_term(parser *p, int64_t *count, dnp_device_type *dev)
{
    char t[TOKBUF], known[160];
    size_t start = p->pos;
    *count = 1;

    if (cur(p) == '-' && p->pos + 1 < p->len && is_digit((unsigned char)p->s[p->pos + 1])) {
        size_t e = p->pos + 1;
        while (e < p->len && is_digit((unsigned char)p->s[e]))
            e++;
        fail(p, start, NULL, "count must be a positive integer (got '%s')",
             tok(p, start, e, t, sizeof t));
        return 0;
    }

    if (is_digit(cur(p))) {
        size_t ne = name_end(p, start);
        if (preset_find(p->s + start, ne - start) < 0) { /* "1080ti" is a name, not a count */
            int64_t v = 0;
            int too_big = 0;
            size_t e = start;
            while (e < p->len && is_digit((unsigned char)p->s[e])) {
                if (!too_big) {
                    v = v * 10 + (p->s[e] - '0');
                    if (v > CLUSTER_MAX_COUNT)
                        too_big = 1;
                }
                e++;
            }
            if (e < p->len && p->s[e] == '.') { /* "1.5x..." */
                while (e < p->len && (is_digit((unsigned char)p->s[e]) || p->s[e] == '.'))
                    e++;
                fail(p, start, NULL, "count must be a positive integer (got '%s')",
                     tok(p, start, e, t, sizeof t));
                return 0;
            }
            if (too_big) {
                fail(p, start, NULL, "count must be at most %d (got '%s')", CLUSTER_MAX_COUNT,
                     tok(p, start, e, t, sizeof t));
                return 0;
            }
            if (v == 0) {
                fail(p, start, NULL, "count must be a positive integer (got '%s')",
                     tok(p, start, e, t, sizeof t));
                return 0;
            }
            p->pos = e;
            skip_space(p);
            unsigned char c = cur(p);
            if (at_end(p) || !(c == 'x' || c == 'X' || c == '*')) {
                fail(p, p->pos, NULL, "expected 'x' or '*' after count '%s', got '%s'",
                     tok(p, start, e, t, sizeof t),
                     at_end(p) ? "end of spec"
                               : tok(p, p->pos, some_token_end(p, p->pos), known, sizeof known));
                return 0;
            }
            p->pos++;
            skip_space(p);
            if (at_end(p) || cur(p) == '+') {
                fail(p, p->pos, NULL, "missing device after '%s'",
                     tok(p, start, p->pos, t, sizeof t));
                return 0;
            }
            *count = v;
        }
    }

    size_t dev_start = p->pos, dev_end = name_end(p, dev_start);
    if (dev_end == dev_start) {
        fail(p, dev_start, NULL, "expected a device name, got '%s'",
             tok(p, dev_start, some_token_end(p, dev_start), t, sizeof t));
        return 0;
    }
    if (span_ieq(p->s + dev_start, dev_end - dev_start, "custom")) {
        p->pos = dev_end;
        skip_space(p);
        if (cur(p) != '(') {
            fail(p, dev_start, NULL, "expected '(' after 'custom'");
            return 0;
        }
        return parse_custom(p, dev_start, dev);
    }
    int pi = preset_find(p->s + dev_start, dev_end - dev_start);
    if (pi < 0) {
        char suffix[200];
        known_devices(known, sizeof known);
        snprintf(suffix, sizeof suffix, " (known: %s)", known);
        fail(p, dev_start, suffix, "unknown device '%s'", tok(p, dev_start, dev_end, t, sizeof t));
        return 0;
    }
    *dev = k_presets[pi].dev;
    p->pos = dev_end;
    return 1;
}

/* Add `count` devices of type *dev to *c (merging same-named types).
 * term_start is the term's column for messages.  Returns 0 on error. */
static int add_term(const parser *p, size_t term_start, dnp_cluster *c, int64_t count,
                    const dnp_device_type *dev)
{
    char t[TOKBUF];
    int64_t total = dnp_cluster_devices(c);
    if (total + count > CLUSTER_MAX_COUNT) {
        fail(p, term_start, NULL, "total device count exceeds %d with '%s'", CLUSTER_MAX_COUNT,
             tok(p, term_start, p->pos, t, sizeof t));
        return 0;
    }
    for (int i = 0; i < c->n_types; i++) {
        if (name_ieq(c->types[i].name, dev->name, sizeof dev->name)) {
            if (!same_figures(&c->types[i], dev)) {
                quote_span(t, sizeof t, dev->name, bounded_len(dev->name, sizeof dev->name),
                           ECHO_TOKEN_CHARS);
                fail(p, term_start, NULL, "device '%s' is defined twice with different figures", t);
                return 0;
            }
            c->counts[i] += count;
            return 1;
        }
    }
    if (c->n_types >= DNP_MAX_DEVICE_TYPES) {
        fail(p, term_start, NULL, "more than %d distinct device types ('%s' would be type %d)",
             DNP_MAX_DEVICE_TYPES, tok(p, term_start, p->pos, t, sizeof t), c->n_types + 1);
        return 0;
    }
    c->types[c->n_types] = *dev;
    c->counts[c->n_types] = count;
    c->n_types++;
    return 1;
}

/* Parse cluster spec `spec` (grammar in docs/cluster.md) into *out.
 * DNP_ERR_INPUT with a one-line message naming the token and column on any
 * malformed input; *out is written only on success.  O(strlen(spec)). */
dnp_status dnp_cluster_parse(const char *spec, dnp_cluster *out, dnp_error *err)
{
    if (spec == NULL || out == NULL) {
        dnp_error_set(err, DNP_ERR_INPUT, "cluster spec: none given");
        return DNP_ERR_INPUT;
    }
    parser p = {spec, strlen(spec), 0, err};
    dnp_cluster c;
    memset(&c, 0, sizeof c);
    char t[TOKBUF];

    skip_space(&p);
    if (at_end(&p)) {
        fail(&p, p.pos, NULL, "empty spec");
        return DNP_ERR_INPUT;
    }
    for (;;) {
        skip_space(&p);
        size_t term_start = p.pos;
        if (cur(&p) == '+') {
            fail(&p, p.pos, NULL, "expected a device before '+'");
            return DNP_ERR_INPUT;
        }
        int64_t count = 0;
        dnp_device_type dev;
        memset(&dev, 0, sizeof dev);
        if (!parse_term(&p, &count, &dev) || !add_term(&p, term_start, &c, count, &dev))
            return DNP_ERR_INPUT;
        skip_space(&p);
        if (at_end(&p))
            break;
        if (cur(&p) != '+') {
            fail(&p, p.pos, NULL, "unexpected '%s' (terms are joined with '+')",
                 tok(&p, p.pos, some_token_end(&p, p.pos), t, sizeof t));
            return DNP_ERR_INPUT;
        }
        size_t plus = p.pos++;
        skip_space(&p);
        if (at_end(&p)) {
            fail(&p, plus, NULL, "trailing '+'");
            return DNP_ERR_INPUT;
        }
    }
    *out = c;
    return DNP_OK;
}

/* ------------------------------------------------------------------ */
/* Formatting                                                           */
/* ------------------------------------------------------------------ */

/* n_types limited to [0, DNP_MAX_DEVICE_TYPES] (defends against corrupt input). */
static int clamp_types(int n)
{
    return n < 0 ? 0 : n > DNP_MAX_DEVICE_TYPES ? DNP_MAX_DEVICE_TYPES : n;
}

/* Appends to a bounded buffer; always NUL-terminated, truncates silently. */
typedef struct {
    char *buf;
    size_t n, len;
} sink;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(sink *s, const char *fmt, ...)
{
    if (s->len + 1 >= s->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(s->buf + s->len, s->n - s->len, fmt, ap);
    va_end(ap);
    if (w < 0)
        return;
    s->len = (size_t)w >= s->n - s->len ? s->n - 1 : s->len + (size_t)w;
}

/* 1 if the decimal text parses back to a value that scales to exactly si. */
static int scaled_round_trips(const char *text, double factor, double si)
{
    return strtod(text, NULL) * factor == si;
}

/* Shortest decimal text x (at most 17 significant digits) with
 * strtod(x) * factor == si, searching a few doubles around si / factor,
 * and written without an exponent when the integer part has at most 17
 * digits ("100", not "1e+02").  Falls back to %.17g of si / factor if none
 * round-trips (possible only for figures not produced by the parser). */
static void format_scaled(double si, double factor, char *out, size_t n)
{
    double x0 = si / factor;
    if (isfinite(x0) && x0 > 0) {
        for (int prec = 1; prec <= 17; prec++) {
            for (int k = 0; k < 9; k++) {
                /* x0, x0-1ulp, x0+1ulp, x0-2ulp, x0+2ulp, ... */
                int steps = (k + 1) / 2;
                double x = x0;
                for (int j = 0; j < steps; j++)
                    x = nextafter(x, k % 2 ? 0.0 : HUGE_VAL);
                snprintf(out, n, "%.*g", prec, x);
                if (!scaled_round_trips(out, factor, si))
                    continue;
                /* Decimal exponent of x; widen the precision so %g uses
                 * fixed notation if that still round-trips. */
                char e[32];
                snprintf(e, sizeof e, "%.*e", prec - 1, x);
                const char *ep = strchr(e, 'e');
                int exp10 = ep ? atoi(ep + 1) : 0;
                if (exp10 >= prec && exp10 < 17) {
                    char fixed[64];
                    snprintf(fixed, sizeof fixed, "%.*g", exp10 + 1, x);
                    if (scaled_round_trips(fixed, factor, si))
                        snprintf(out, n, "%s", fixed);
                }
                return;
            }
        }
    }
    snprintf(out, n, "%.17g", x0);
}

/* One device type: its preset name, or custom(...). */
static void format_type(sink *s, const dnp_device_type *d)
{
    size_t nl = bounded_len(d->name, sizeof d->name);
    int pi = preset_find(d->name, nl);
    if (pi >= 0 && same_figures(d, &k_presets[pi].dev)) {
        put(s, "%s", k_presets[pi].dev.name);
        return;
    }
    char num[64];
    put(s, "custom(name=%.*s", (int)nl, d->name);
    format_scaled(d->peak_flops, TFLOPS_TO_FLOPS, num, sizeof num);
    put(s, ",tflops=%s", num);
    if (d->mem_bytes != 0) {
        format_scaled(d->mem_bytes, GB_TO_BYTES, num, sizeof num);
        put(s, ",mem_gb=%s", num);
    }
    if (d->mem_bw_bps != 0) {
        format_scaled(d->mem_bw_bps, GBYTES_PS_TO_BPS, num, sizeof num);
        put(s, ",membw_gbps=%s", num);
    }
    format_scaled(d->net_bw_bps, GBITS_PS_TO_BPS, num, sizeof num);
    put(s, ",net_gbps=%s", num);
    put(s, ",dtype=%.*s)", (int)bounded_len(d->dtype, sizeof d->dtype), d->dtype);
}

/* Write the canonical spec of *c into buf[n] (always NUL-terminated when
 * n > 0, truncated if short): terms "COUNTxNAME" joined by '+', in type
 * order, count always written, custom types as custom(...) with every known
 * figure.  dnp_cluster_parse of the full text gives back *c. */
void dnp_cluster_format(const dnp_cluster *c, char *buf, size_t n)
{
    if (buf == NULL || n == 0)
        return;
    buf[0] = '\0';
    if (c == NULL)
        return;
    sink s = {buf, n, 0};
    int nt = clamp_types(c->n_types);
    for (int i = 0; i < nt; i++) {
        put(&s, "%s%lldx", i ? "+" : "", (long long)c->counts[i]);
        format_type(&s, &c->types[i]);
    }
}

/* Total number of devices in *c (0 for NULL). */
int64_t dnp_cluster_devices(const dnp_cluster *c)
{
    if (c == NULL)
        return 0;
    int nt = clamp_types(c->n_types);
    int64_t total = 0;
    for (int i = 0; i < nt; i++)
        total += c->counts[i];
    return total;
}
