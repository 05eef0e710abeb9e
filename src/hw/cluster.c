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
#include "dnnpar/cluster.h"

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
#define US_TO_S 1e-6                /* microseconds -> seconds */
#define PER_NODE_MAX 65536          /* devices per node */
#define SMS_MAX 1000000             /* sms= (compute units per device) */

/* How much of the user's text is echoed into one error line. */
#define ECHO_SPEC_CHARS 80
#define ECHO_TOKEN_CHARS 40

typedef struct {
    dnp_device_type dev;
    const char *source;
} preset_entry;

/* The device and node presets: data/presets/presets.json, every figure
 * with its source there and in docs/cluster.md ("Device presets", "Node
 * presets"), compiled into the tables k_presets and k_nodes by
 * tools/codegen/gen_presets.c (the Makefile writes presets.inc into the
 * build's gen/ directory).  Adding or correcting a preset is a change to
 * the data file (docs/cluster.md, "Presets as data"). */
#include "presets.inc"

#define N_NODES ((int)(sizeof k_nodes / sizeof k_nodes[0]))
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

/* 1 if two network descriptions are the same data: kind (any case) and
 * the same numbers under the same names in the same order. */
static int same_net(const dnp_net_desc *a, const dnp_net_desc *b)
{
    if (!name_ieq(a->kind, b->kind, sizeof a->kind) || a->n_params != b->n_params)
        return 0;
    for (int i = 0; i < a->n_params && i < DNP_NET_MAX_PARAMS; i++)
        if (!name_ieq(a->param_name[i], b->param_name[i], sizeof a->param_name[i]) ||
            a->param_value[i] != b->param_value[i])
            return 0;
    return 1;
}

/* 1 if two device types have the same figures and node fields (the
 * device name is not compared; node names ignoring case). */
static int same_figures(const dnp_device_type *a, const dnp_device_type *b)
{
    return a->peak_flops == b->peak_flops && a->mem_bytes == b->mem_bytes &&
           a->mem_bw_bps == b->mem_bw_bps && a->net_bw_bps == b->net_bw_bps &&
           a->bytes_per_elem == b->bytes_per_elem &&
           strncmp(a->dtype, b->dtype, sizeof a->dtype) == 0 &&
           a->peak_fp32_flops == b->peak_fp32_flops && a->peak_tf32_flops == b->peak_tf32_flops &&
           a->peak_fp16_flops == b->peak_fp16_flops && a->peak_bf16_flops == b->peak_bf16_flops &&
           a->compute_eff == b->compute_eff && a->mem_eff == b->mem_eff &&
           a->kernel_overhead_s == b->kernel_overhead_s && a->speed_cv == b->speed_cv &&
           a->sm_count == b->sm_count && a->l2_bw_bps == b->l2_bw_bps &&
           a->host_kernel_s == b->host_kernel_s && a->price_per_hour == b->price_per_hour &&
           name_ieq(a->node, b->node, sizeof a->node) &&
           a->devices_per_node == b->devices_per_node && a->intra_topo == b->intra_topo &&
           a->intra_bw_bps == b->intra_bw_bps && a->intra_lat_s == b->intra_lat_s &&
           a->inter_bw_bps == b->inter_bw_bps && a->inter_lat_s == b->inter_lat_s &&
           same_net(&a->net, &b->net);
}

/* 1 if a and b are the same type: same device name and node name (any case). */
static int same_identity(const dnp_device_type *a, const dnp_device_type *b)
{
    return name_ieq(a->name, b->name, sizeof a->name) && name_ieq(a->node, b->node, sizeof a->node);
}

/* Index of the device preset called s[0..len) (any case), or -1. */
static int preset_find(const char *s, size_t len)
{
    for (int i = 0; i < N_PRESETS; i++)
        if (span_ieq(s, len, k_presets[i].dev.name))
            return i;
    return -1;
}

/* Index of the node preset called s[0..len) (any case), or -1. */
static int node_find(const char *s, size_t len)
{
    for (int i = 0; i < N_NODES; i++)
        if (span_ieq(s, len, k_nodes[i].dev.node))
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

/* Names of the presets, ", "-separated: device presets (which = 0) or node
 * presets (which = 1), written to out[n] (n >= 64).  Whole names only: when
 * the rest do not fit, the list ends "and K more (dnnpar devices lists
 * them)" instead of cutting a name.  O(presets). */
static void known_names(char *out, size_t n, int which)
{
    static const char more_fmt[] = ", and %d more (dnnpar devices lists them)";
    const size_t reserve = sizeof more_fmt + 8; /* room for the tail */
    size_t o = 0;
    out[0] = '\0';
    int count = which ? N_NODES : N_PRESETS;
    for (int i = 0; i < count; i++) {
        const char *name = which ? k_nodes[i].dev.node : k_presets[i].dev.name;
        size_t need = strlen(name) + (i ? 2 : 0);
        /* the last name needs no room for the tail */
        if (o + need + (i + 1 < count ? reserve : 0) >= n) {
            snprintf(out + o, n - o, more_fmt, count - i);
            return;
        }
        o += (size_t)snprintf(out + o, n - o, "%s%s", i ? ", " : "", name);
    }
}

/* ------------------------------------------------------------------ */
/* Presets                                                              */
/* ------------------------------------------------------------------ */

/* Copy device (node == 0) or node preset `name` (any case) into *out;
 * DNP_ERR_INPUT naming the known ones if unknown. */
static dnp_status preset_lookup(const char *name, int node, dnp_device_type *out, dnp_error *err)
{
    const char *what = node ? "node preset" : "device preset";
    if (name == NULL || out == NULL) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: no name given", what);
        return DNP_ERR_INPUT;
    }
    size_t len = strlen(name);
    int i = node ? node_find(name, len) : preset_find(name, len);
    if (i < 0) {
        char q[ECHO_TOKEN_CHARS * 4 + 8], known[256];
        quote_span(q, sizeof q, name, len, ECHO_TOKEN_CHARS);
        known_names(known, sizeof known, node);
        dnp_error_set(err, DNP_ERR_INPUT, "unknown %s '%s' (known: %s)", what, q, known);
        return DNP_ERR_INPUT;
    }
    *out = node ? k_nodes[i].dev : k_presets[i].dev;
    return DNP_OK;
}

/* Copy preset `name` (any case) into *out; DNP_ERR_INPUT if unknown. */
dnp_status dnp_device_preset(const char *name, dnp_device_type *out, dnp_error *err)
{
    return preset_lookup(name, 0, out, err);
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

/* Copy node preset `name` (any case) into *out; DNP_ERR_INPUT if unknown. */
dnp_status dnp_node_preset(const char *name, dnp_device_type *out, dnp_error *err)
{
    return preset_lookup(name, 1, out, err);
}

/* Number of node presets. */
int dnp_node_preset_count(void) { return N_NODES; }

/* Node preset i in table order, or NULL if i is out of range. */
const dnp_device_type *dnp_node_preset_at(int i)
{
    return (i >= 0 && i < N_NODES) ? &k_nodes[i].dev : NULL;
}

/* One-line source of node preset i's figures, or NULL if out of range. */
const char *dnp_node_preset_source(int i)
{
    return (i >= 0 && i < N_NODES) ? k_nodes[i].source : NULL;
}

static const char *const k_topo_names[] = {"none", "switch", "ring", "torus2d"};

/* "none", "switch", "ring", "torus2d"; "?" if out of range. */
const char *dnp_link_topo_name(dnp_link_topo t)
{
    return ((int)t >= 0 && (int)t < 4) ? k_topo_names[t] : "?";
}

/* The topology called s (any case), or -1. */
int dnp_link_topo_from_name(const char *s)
{
    if (s == NULL)
        return -1;
    for (int i = 0; i < 4; i++)
        if (span_ieq(s, strlen(s), k_topo_names[i]))
            return i;
    return -1;
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

enum {
    KEY_NAME, KEY_TFLOPS, KEY_MEM_GB, KEY_MEMBW_GBPS, KEY_NET_GBPS, KEY_DTYPE,
    KEY_FP32, KEY_TF32, KEY_FP16, KEY_BF16, KEY_COMPUTE_EFF, KEY_MEM_EFF, KEY_KERNEL_US,
    KEY_NODE, KEY_PER_NODE, KEY_TOPO, KEY_INTRA_GBPS, KEY_INTRA_LAT_US, KEY_INTER_GBPS,
    KEY_INTER_LAT_US, KEY_SPEED_CV, KEY_SMS, KEY_L2_GBPS, KEY_HOST_US, KEY_PRICE, KEY_NET,
    KEY_COUNT
};

static const char *const k_keys[KEY_COUNT] = {
    "name",        "tflops",      "mem_gb",      "membw_gbps",  "net_gbps",
    "dtype",       "fp32_tflops", "tf32_tflops", "fp16_tflops", "bf16_tflops",
    "compute_eff", "mem_eff",     "kernel_us",   "node",        "per_node",
    "topo",        "intra_gbps",  "intra_lat_us", "inter_gbps", "inter_lat_us",
    "speed_cv",    "sms",         "l2_gbps",     "host_us",     "price",
    "net"};

/* Spec unit -> SI factor of the numeric keys (0: not a plain number). */
static const double k_key_factor[KEY_COUNT] = {
    [KEY_TFLOPS] = TFLOPS_TO_FLOPS,     [KEY_MEM_GB] = GB_TO_BYTES,
    [KEY_MEMBW_GBPS] = GBYTES_PS_TO_BPS, [KEY_NET_GBPS] = GBITS_PS_TO_BPS,
    [KEY_FP32] = TFLOPS_TO_FLOPS,       [KEY_TF32] = TFLOPS_TO_FLOPS,
    [KEY_FP16] = TFLOPS_TO_FLOPS,       [KEY_BF16] = TFLOPS_TO_FLOPS,
    [KEY_COMPUTE_EFF] = 1.0,            [KEY_MEM_EFF] = 1.0,
    [KEY_KERNEL_US] = US_TO_S,          [KEY_INTRA_GBPS] = GBYTES_PS_TO_BPS,
    [KEY_INTRA_LAT_US] = US_TO_S,       [KEY_INTER_GBPS] = GBITS_PS_TO_BPS,
    [KEY_INTER_LAT_US] = US_TO_S,       [KEY_SPEED_CV] = 1.0,
    [KEY_L2_GBPS] = GBYTES_PS_TO_BPS,   [KEY_HOST_US] = US_TO_S,
    [KEY_PRICE] = 1.0};

/* 1 for the numeric keys whose 0 means "unknown / unsupported / model
 * default": they may be given as 0, which is how a term named like a
 * preset says it does not have the preset's figure. */
static int zero_allowed(int k)
{
    return k != KEY_TFLOPS && k != KEY_NET_GBPS && k != KEY_INTRA_GBPS && k != KEY_INTER_GBPS;
}

/* " (known: name, tflops, ...)" */
static void known_keys(char *out, size_t n)
{
    size_t o = (size_t)snprintf(out, n, " (known: ");
    for (int k = 0; k < KEY_COUNT && o < n; k++)
        o += (size_t)snprintf(out + o, n - o, "%s%s", k ? ", " : "", k_keys[k]);
    if (o < n)
        snprintf(out + o, n - o, ", net.NAME)");
}

/* A bandwidth with its unit said (docs/cluster.md, "Units"): a value of a
 * bandwidth key may end in one of these, which then overrides the key's
 * own unit (gigabytes for membw_gbps / intra_gbps / l2_gbps, gigabits for
 * net_gbps / inter_gbps): `inter_gbps=50GBps` is 400 Gb/s.  Bits are a
 * lower-case b, bytes an upper-case B (as NVIDIA's and NIC datasheets
 * write them); the factor is to bytes/s. */
static const struct {
    const char *suffix;
    double to_bps;
} k_bw_units[] = {{"Mbps", 1.25e5}, {"Mb/s", 1.25e5}, {"MBps", 1e6},  {"MB/s", 1e6},
                  {"Gbps", 1.25e8}, {"Gb/s", 1.25e8}, {"GBps", 1e9},  {"GB/s", 1e9},
                  {"Tbps", 1.25e11}, {"Tb/s", 1.25e11}, {"TBps", 1e12}, {"TB/s", 1e12}};

static int is_bandwidth_key(int k)
{
    return k == KEY_MEMBW_GBPS || k == KEY_NET_GBPS || k == KEY_INTRA_GBPS ||
           k == KEY_INTER_GBPS || k == KEY_L2_GBPS;
}

/* If s[from..*to) ends in a bandwidth unit, drop it from *to and set
 * *factor to that unit's; returns 1 if it did. */
static int strip_bw_unit(const char *s, size_t from, size_t *to, double *factor)
{
    for (size_t u = 0; u < sizeof k_bw_units / sizeof k_bw_units[0]; u++) {
        size_t n = strlen(k_bw_units[u].suffix);
        if (*to - from > n && memcmp(s + *to - n, k_bw_units[u].suffix, n) == 0) {
            *to -= n;
            *factor = k_bw_units[u].to_bps;
            return 1;
        }
    }
    return 0;
}

/* Parse the number s[from..to) for key `key`: decimal digits, '.', 'e',
 * sign; finite and > 0; value * factor must stay finite.  Returns 0 on
 * error (recorded). */
static int parse_number(const parser *p, size_t from, size_t to, const char *key, double factor,
                        int allow_zero, double *out_si)
{
    char t[TOKBUF];
    const char *need = allow_zero ? "must be a finite number >= 0" : "must be a finite number > 0";
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)p->s[i];
        if (!(is_digit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
            fail(p, from, NULL, "invalid number '%s' for key '%s' (%s)",
                 tok(p, from, to, t, sizeof t), key, need);
            return 0;
        }
    }
    /* The token holds only number characters and is followed by ',' ')' or
     * whitespace, so strtod cannot read past `to`. */
    char *endp = NULL;
    errno = 0;
    double v = strtod(p->s + from, &endp);
    if (endp != p->s + to) {
        fail(p, from, NULL, "invalid number '%s' for key '%s' (%s)",
             tok(p, from, to, t, sizeof t), key, need);
        return 0;
    }
    if (errno == ERANGE) {
        fail(p, from, NULL, "number '%s' for key '%s' is out of range",
             tok(p, from, to, t, sizeof t), key);
        return 0;
    }
    if (allow_zero && v == 0 && !signbit(v)) {
        *out_si = 0;
        return 1;
    }
    if (!(v > 0) || !isfinite(v)) {
        fail(p, from, NULL, "invalid number '%s' for key '%s' (%s)",
             tok(p, from, to, t, sizeof t), key, need);
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

/* 1 if s[from..to) is a valid device or node name (1 to 31 name chars). */
static int valid_name(const parser *p, size_t from, size_t to)
{
    int ok = to > from && to - from <= NAME_MAX_CHARS;
    for (size_t i = from; ok && i < to; i++)
        ok = is_name_char((unsigned char)p->s[i]);
    return ok;
}

/* Field of *d that numeric key k sets (NULL for non-numeric keys). */
static double *key_field(dnp_device_type *d, int k)
{
    switch (k) {
    case KEY_TFLOPS: return &d->peak_flops;
    case KEY_MEM_GB: return &d->mem_bytes;
    case KEY_MEMBW_GBPS: return &d->mem_bw_bps;
    case KEY_NET_GBPS: return &d->net_bw_bps;
    case KEY_FP32: return &d->peak_fp32_flops;
    case KEY_TF32: return &d->peak_tf32_flops;
    case KEY_FP16: return &d->peak_fp16_flops;
    case KEY_BF16: return &d->peak_bf16_flops;
    case KEY_COMPUTE_EFF: return &d->compute_eff;
    case KEY_MEM_EFF: return &d->mem_eff;
    case KEY_KERNEL_US: return &d->kernel_overhead_s;
    case KEY_SPEED_CV: return &d->speed_cv;
    case KEY_L2_GBPS: return &d->l2_bw_bps;
    case KEY_HOST_US: return &d->host_kernel_s;
    case KEY_PRICE: return &d->price_per_hour;
    case KEY_INTRA_GBPS: return &d->intra_bw_bps;
    case KEY_INTRA_LAT_US: return &d->intra_lat_s;
    case KEY_INTER_GBPS: return &d->inter_bw_bps;
    case KEY_INTER_LAT_US: return &d->inter_lat_s;
    default: return NULL;
    }
}

/* 1 for the keys that describe a node (allowed only with per_node > 1). */
static int is_node_key(int k)
{
    return k == KEY_NODE || k == KEY_TOPO || k == KEY_INTRA_GBPS || k == KEY_INTRA_LAT_US;
}

/* The key = value pairs of one "custom(...)" or "PRESET(...)". */
typedef struct {
    int seen[KEY_COUNT];
    size_t at[KEY_COUNT];       /* column of each key given */
    double figures[KEY_COUNT];  /* numeric keys, SI units */
    size_t name_from, name_to, node_from, node_to;
    int bytes_per_elem, topo, sms;
    int64_t per_node;
    const char *dtype;
    dnp_net_desc net;     /* net=KIND and the net.NAME=NUMBER keys, as written */
    size_t net_param_at;  /* column of the first net.NAME key */
} pairs;

/* After a key ending at p->pos: "= VALUE", VALUE running to the next ','
 * or ')' without trailing blanks, its span in [*from, *to); key_text names
 * the key in messages.  Returns 0 on error (recorded: no '=', no value). */
static int scan_value(parser *p, const char *key_text, size_t *from, size_t *to)
{
    char t[TOKBUF];
    skip_space(p);
    if (cur(p) != '=') {
        fail(p, p->pos, NULL, "expected '=' after key '%s', got '%s'", key_text,
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
        fail(p, val_from, NULL, "missing value for key '%s'", key_text);
        return 0;
    }
    *from = val_from;
    *to = val_to;
    return 1;
}

/* The network keys (dnp_net_desc): "net" takes a kind name, "net.NAME" a
 * number stored as written (its unit in NAME); hw/ reads neither, src/topo
 * does (dnp_cluster_check).  Returns 0 on error (recorded). */
static int parse_net_param(parser *p, size_t key_from, size_t key_to, pairs *pr)
{
    char t[TOKBUF];
    size_t name_from = key_from + 4; /* after "net." */
    size_t name_len = key_to - name_from;
    dnp_net_desc *net = &pr->net;
    if (name_len == 0 || name_len >= sizeof net->param_name[0] ||
        span_ieq(p->s + name_from, name_len, "kind")) {
        fail(p, key_from, NULL,
             "invalid network key '%s' (net.NAME, NAME 1 to %d characters, not 'kind')",
             tok(p, key_from, key_to, t, sizeof t), (int)sizeof net->param_name[0] - 1);
        return 0;
    }
    for (int i = 0; i < net->n_params; i++)
        if (span_ieq(p->s + name_from, name_len, net->param_name[i])) {
            fail(p, key_from, NULL, "duplicate key '%s'", tok(p, key_from, key_to, t, sizeof t));
            return 0;
        }
    if (net->n_params >= DNP_NET_MAX_PARAMS) {
        fail(p, key_from, NULL, "more than %d net.NAME keys", DNP_NET_MAX_PARAMS);
        return 0;
    }
    if (net->n_params == 0)
        pr->net_param_at = key_from;
    p->pos = key_to;
    char key[TOKBUF];
    tok(p, key_from, key_to, key, sizeof key);
    size_t val_from, val_to;
    if (!scan_value(p, key, &val_from, &val_to))
        return 0;
    double v = 0;
    if (!parse_number(p, val_from, val_to, key, 1.0, 1, &v))
        return 0;
    int i = net->n_params++;
    for (size_t j = 0; j < name_len; j++)
        net->param_name[i][j] = (char)lower((unsigned char)p->s[name_from + j]);
    net->param_name[i][name_len] = '\0';
    net->param_value[i] = v;
    return 1;
}

/* Parse "( PAIR, ... )"; p->pos is at '('.  dev_start is the term's
 * device column for messages.  Returns 0 on error (recorded). */
static int parse_pairs(parser *p, size_t dev_start, pairs *pr)
{
    char t[TOKBUF];
    memset(pr, 0, sizeof *pr);
    pr->bytes_per_elem = 4;
    pr->topo = DNP_TOPO_NONE;
    pr->per_node = 1;
    pr->dtype = "fp32";
    const char *what = span_ieq(p->s + dev_start, name_end(p, dev_start) - dev_start, "custom")
                           ? "custom"
                           : "override";

    p->pos++; /* '(' */
    skip_space(p);
    if (!at_end(p) && cur(p) == ')') {
        p->pos++;
        return 1;
    }
    for (;;) {
        skip_space(p);
        if (at_end(p)) {
            fail(p, dev_start, NULL, "unterminated '%s(' (missing ')')",
                 tok(p, dev_start, name_end(p, dev_start), t, sizeof t));
            return 0;
        }
        size_t key_from = p->pos, key_to = name_end(p, key_from);
        if (key_to == key_from) {
            char u[TOKBUF];
            fail(p, key_from, NULL, "expected a key in '%s(...)', got '%s'",
                 tok(p, dev_start, name_end(p, dev_start), t, sizeof t),
                 tok(p, key_from, some_token_end(p, key_from), u, sizeof u));
            return 0;
        }
        if (key_to - key_from > 3 && span_ieq(p->s + key_from, 4, "net.")) {
            if (!parse_net_param(p, key_from, key_to, pr))
                return 0;
            goto next_pair;
        }
        int key = -1;
        for (int k = 0; k < KEY_COUNT; k++)
            if (span_ieq(p->s + key_from, key_to - key_from, k_keys[k]))
                key = k;
        if (key < 0) {
            char kk[400];
            known_keys(kk, sizeof kk);
            fail(p, key_from, kk, "unknown %s key '%s'", what,
                 tok(p, key_from, key_to, t, sizeof t));
            return 0;
        }
        if (pr->seen[key]) {
            fail(p, key_from, NULL, "duplicate key '%s'", k_keys[key]);
            return 0;
        }
        pr->seen[key] = 1;
        pr->at[key] = key_from;
        p->pos = key_to;
        size_t val_from, val_to;
        if (!scan_value(p, k_keys[key], &val_from, &val_to))
            return 0;
        size_t n = val_to - val_from;
        const char *v = p->s + val_from;
        switch (key) {
        case KEY_NAME:
        case KEY_NODE:
            if (!valid_name(p, val_from, val_to)) {
                fail(p, val_from, NULL,
                     "invalid %s name '%s' (1 to %d characters of A-Z a-z 0-9 _ . -)",
                     key == KEY_NAME ? "device" : "node", tok(p, val_from, val_to, t, sizeof t),
                     NAME_MAX_CHARS);
                return 0;
            }
            if (key == KEY_NAME) {
                pr->name_from = val_from;
                pr->name_to = val_to;
            } else {
                pr->node_from = val_from;
                pr->node_to = val_to;
            }
            break;
        case KEY_DTYPE:
            if (span_ieq(v, n, "bfloat16") || span_ieq(v, n, "bf16")) {
                pr->dtype = "bfloat16";
                pr->bytes_per_elem = 2;
            } else if (span_ieq(v, n, "fp16")) {
                pr->dtype = "fp16";
                pr->bytes_per_elem = 2;
            } else if (span_ieq(v, n, "fp32")) {
                pr->dtype = "fp32";
                pr->bytes_per_elem = 4;
            } else {
                fail(p, val_from, " (known: bfloat16, bf16, fp16, fp32)", "unknown dtype '%s'",
                     tok(p, val_from, val_to, t, sizeof t));
                return 0;
            }
            break;
        case KEY_TOPO: {
            int tp = -1;
            for (int i = 1; i < 4; i++)
                if (span_ieq(v, n, k_topo_names[i]))
                    tp = i;
            if (tp < 0) {
                fail(p, val_from, " (known: switch, ring, torus2d)", "unknown topo '%s'",
                     tok(p, val_from, val_to, t, sizeof t));
                return 0;
            }
            pr->topo = tp;
            break;
        }
        case KEY_NET:
            if (n >= sizeof pr->net.kind || !valid_name(p, val_from, val_to)) {
                fail(p, val_from, NULL,
                     "invalid network kind '%s' (1 to %d characters of A-Z a-z 0-9 _ . -)",
                     tok(p, val_from, val_to, t, sizeof t), (int)sizeof pr->net.kind - 1);
                return 0;
            }
            for (size_t j = 0; j < n; j++)
                pr->net.kind[j] = (char)lower((unsigned char)v[j]);
            pr->net.kind[n] = '\0';
            break;
        case KEY_PER_NODE:
        case KEY_SMS: {
            int64_t x = 0, lo = key == KEY_SMS ? 0 : 1;
            int64_t hi = key == KEY_SMS ? SMS_MAX : PER_NODE_MAX;
            int ok = 1;
            for (size_t i = val_from; ok && i < val_to; i++) {
                ok = is_digit((unsigned char)p->s[i]);
                if (ok && x <= hi)
                    x = x * 10 + (p->s[i] - '0');
            }
            if (!ok || x < lo || x > hi) {
                fail(p, val_from, NULL, "invalid %s '%s' (an integer from %lld to %lld)",
                     k_keys[key], tok(p, val_from, val_to, t, sizeof t), (long long)lo,
                     (long long)hi);
                return 0;
            }
            if (key == KEY_SMS)
                pr->sms = (int)x;
            else
                pr->per_node = x;
            break;
        }
        default: {
            double factor = k_key_factor[key];
            size_t num_to = val_to;
            if (is_bandwidth_key(key))
                strip_bw_unit(p->s, val_from, &num_to, &factor);
            if (!parse_number(p, val_from, num_to, k_keys[key], factor, zero_allowed(key),
                              &pr->figures[key]))
                return 0;
            if ((key == KEY_COMPUTE_EFF || key == KEY_MEM_EFF || key == KEY_SPEED_CV) &&
                pr->figures[key] > 1.0) {
                fail(p, val_from, NULL, "'%s' for key '%s' must be at most 1 (a fraction)",
                     tok(p, val_from, val_to, t, sizeof t), k_keys[key]);
                return 0;
            }
            break;
        }
        }
    next_pair:
        if (at_end(p)) {
            fail(p, dev_start, NULL, "unterminated '%s(' (missing ')')",
                 tok(p, dev_start, name_end(p, dev_start), t, sizeof t));
            return 0;
        }
        if (cur(p) == ')') {
            p->pos++;
            return 1;
        }
        p->pos++; /* ',' */
    }
}

/* What a custom(...) term starts from, before its keys apply
 * (docs/cluster.md, "Inheritance"): the node preset its node names (with
 * that preset's device name), else the device preset its name names (with
 * the custom node fields when per_node > 1), else zeros (fp32).
 * *inter_follows_net: inter_gbps defaults to the term's net_gbps.  Used by
 * the parser and by dnp_cluster_format, so both agree. */
static void custom_base(const char *name, size_t name_len, const char *node, size_t node_len,
                        int per_node, int topo, dnp_device_type *base, int *inter_follows_net)
{
    int ni = per_node > 1 ? node_find(node, node_len) : -1;
    int pi = preset_find(name, name_len);
    memset(base, 0, sizeof *base);
    *inter_follows_net = 0;
    if (ni >= 0) {
        *base = k_nodes[ni].dev;
    } else if (pi >= 0) {
        *base = k_presets[pi].dev;
        if (per_node > 1) {
            base->intra_bw_bps = base->intra_lat_s = base->inter_lat_s = 0;
            *inter_follows_net = 1;
        }
    } else {
        snprintf(base->dtype, sizeof base->dtype, "fp32");
        base->bytes_per_elem = 4;
        *inter_follows_net = 1;
    }
    /* a preset's names keep the preset's spelling (custom(name=A100) is a100) */
    if (ni < 0 && pi < 0) {
        memset(base->name, 0, sizeof base->name);
        memcpy(base->name, name, name_len < NAME_MAX_CHARS ? name_len : NAME_MAX_CHARS);
    }
    if (ni < 0) {
        memset(base->node, 0, sizeof base->node);
        if (per_node > 1)
            memcpy(base->node, node, node_len < NAME_MAX_CHARS ? node_len : NAME_MAX_CHARS);
    }
    base->devices_per_node = per_node;
    base->intra_topo = per_node > 1 ? (dnp_link_topo)topo : DNP_TOPO_NONE;
}

/* Apply the figures of *pr to *d (which holds the base). */
static void apply_pairs(const pairs *pr, int inter_follows_net, dnp_device_type *d)
{
    for (int k = 0; k < KEY_COUNT; k++) {
        double *f = key_field(d, k);
        if (f != NULL && pr->seen[k])
            *f = pr->figures[k];
    }
    if (pr->seen[KEY_SMS])
        d->sm_count = pr->sms;
    if (pr->seen[KEY_DTYPE]) {
        snprintf(d->dtype, sizeof d->dtype, "%s", pr->dtype);
        d->bytes_per_elem = pr->bytes_per_elem;
    }
    if (!pr->seen[KEY_INTER_GBPS] && inter_follows_net)
        d->inter_bw_bps = d->net_bw_bps;
    if (pr->seen[KEY_NET])
        d->net = pr->net;
}

/* An override's net.NAME numbers without net=KIND (dnp_cluster_override):
 * they change the numbers of the kind *net already has, a number of the
 * same name replaced, a new one appended.  Returns 0 when *net has no kind
 * or would hold more than DNP_NET_MAX_PARAMS numbers (*net then unchanged). */
static int merge_net_params(dnp_net_desc *net, const dnp_net_desc *add)
{
    dnp_net_desc out = *net;
    if (out.kind[0] == '\0')
        return 0;
    for (int i = 0; i < add->n_params; i++) {
        int j = 0;
        while (j < out.n_params &&
               !name_ieq(out.param_name[j], add->param_name[i], sizeof out.param_name[j]))
            j++;
        if (j == DNP_NET_MAX_PARAMS)
            return 0;
        if (j == out.n_params) {
            memcpy(out.param_name[j], add->param_name[i], sizeof out.param_name[j]);
            out.n_params++;
        }
        out.param_value[j] = add->param_value[i];
    }
    *net = out;
    return 1;
}

/* net.NAME keys need net=KIND in the same term.  Returns 0 on error. */
static int check_net_keys(const parser *p, const pairs *pr)
{
    if (pr->net.n_params > 0 && !pr->seen[KEY_NET]) {
        fail(p, pr->net_param_at, NULL, "net.NAME keys need net=KIND (the network they describe)");
        return 0;
    }
    return 1;
}

/* Node keys need a node of several devices.  Returns 0 on error. */
static int check_node_keys(const parser *p, const pairs *pr, int per_node)
{
    if (per_node > 1)
        return 1;
    for (int k = 0; k < KEY_COUNT; k++)
        if (pr->seen[k] && is_node_key(k)) {
            fail(p, pr->at[k], NULL, "key '%s' needs per_node > 1 (a node of several devices)",
                 k_keys[k]);
            return 0;
        }
    return 1;
}

/* Parse "custom(...)"; p->pos is at '('.  dev_start is the column of
 * "custom" for messages.  Returns 0 on error (recorded).  Rules in
 * docs/cluster.md: a device named like a preset, or a node named like a
 * node preset, takes the preset's figures for every key it does not give. */
static int parse_custom(parser *p, size_t dev_start, dnp_device_type *out)
{
    char t[TOKBUF];
    pairs pr;
    if (!parse_pairs(p, dev_start, &pr))
        return 0;
    if (!pr.seen[KEY_NAME]) {
        fail(p, dev_start, NULL, "'%s' is missing required key 'name'",
             tok(p, dev_start, p->pos, t, sizeof t));
        return 0;
    }
    const char *name = p->s + pr.name_from, *node = p->s + pr.node_from;
    size_t name_len = pr.name_to - pr.name_from, node_len = pr.node_to - pr.node_from;
    int ni = pr.seen[KEY_NODE] ? node_find(node, node_len) : -1;
    int per_node = pr.seen[KEY_PER_NODE] ? (int)pr.per_node
                   : ni >= 0             ? k_nodes[ni].dev.devices_per_node
                                         : 1;
    if (!check_node_keys(p, &pr, per_node) || !check_net_keys(p, &pr))
        return 0;
    if (ni >= 0 && !span_ieq(name, name_len, k_nodes[ni].dev.name)) {
        fail(p, pr.name_from, NULL,
             "node preset '%s' holds '%s' devices, not '%s' (name the custom node otherwise)",
             k_nodes[ni].dev.node, k_nodes[ni].dev.name, tok(p, pr.name_from, pr.name_to, t,
                                                            sizeof t));
        return 0;
    }
    int pi = preset_find(name, name_len);
    if (per_node > 1) {
        static const int node_required[] = {KEY_NODE, KEY_TOPO, KEY_INTRA_GBPS};
        for (size_t r = 0; r < sizeof node_required / sizeof node_required[0]; r++) {
            if (!pr.seen[node_required[r]] && (ni < 0 || node_required[r] == KEY_NODE)) {
                fail(p, pr.seen[KEY_PER_NODE] ? pr.at[KEY_PER_NODE] : dev_start, NULL,
                     "per_node > 1 needs key '%s'", k_keys[node_required[r]]);
                return 0;
            }
        }
    }
    if (pi < 0 && ni < 0) {
        static const int required[] = {KEY_TFLOPS, KEY_NET_GBPS};
        for (size_t r = 0; r < sizeof required / sizeof required[0]; r++) {
            if (!pr.seen[required[r]]) {
                fail(p, dev_start, NULL,
                     "'%s' is missing required key '%s' (needed unless the name is a preset's)",
                     tok(p, dev_start, p->pos, t, sizeof t), k_keys[required[r]]);
                return 0;
            }
        }
    }
    int topo = pr.seen[KEY_TOPO] ? pr.topo : ni >= 0 ? (int)k_nodes[ni].dev.intra_topo : 0;
    dnp_device_type d;
    int follows = 0;
    custom_base(name, name_len, node, node_len, per_node, topo, &d, &follows);
    apply_pairs(&pr, follows, &d);
    *out = d;
    return 1;
}

/* Parse "PRESET(key=value, ...)", an override of preset `base` (a device or
 * node preset); p->pos is at '('.  Returns 0 on error (recorded). */
static int parse_override(parser *p, size_t dev_start, const dnp_device_type *base,
                          dnp_device_type *out)
{
    char t[TOKBUF];
    pairs pr;
    if (!parse_pairs(p, dev_start, &pr))
        return 0;
    static const int fixed[] = {KEY_NAME, KEY_NODE, KEY_PER_NODE, KEY_TOPO};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (pr.seen[fixed[i]]) {
            fail(p, pr.at[fixed[i]], NULL,
                 "key '%s' cannot change in an override of preset '%s' (use custom(...))",
                 k_keys[fixed[i]], tok(p, dev_start, name_end(p, dev_start), t, sizeof t));
            return 0;
        }
    if (!check_node_keys(p, &pr, base->devices_per_node) || !check_net_keys(p, &pr))
        return 0;
    dnp_device_type d = *base;
    apply_pairs(&pr, 0, &d);
    *out = d;
    return 1;
}

/* Parse one TERM at p->pos into *count and *dev.  Returns 0 on error. */
static int parse_term(parser *p, int64_t *count, dnp_device_type *dev)
{
    char t[TOKBUF], known[TOKBUF];
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
        if (preset_find(p->s + start, ne - start) < 0 &&
            node_find(p->s + start, ne - start) < 0) { /* "1080ti" is a name, not a count */
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
    int ni = pi < 0 ? node_find(p->s + dev_start, dev_end - dev_start) : -1;
    if (pi < 0 && ni < 0) {
        /* the message holds DNP_ERROR_MSG bytes: the spec's echo (80) and
         * the name lists share them */
        char devs[200], nodes[200], suffix[576];
        known_names(devs, sizeof devs, 0);
        known_names(nodes, sizeof nodes, 1);
        /* The nearest preset name, if one is close (dnp_suggest). */
        const char *names[N_PRESETS + N_NODES];
        for (int i = 0; i < N_PRESETS; i++)
            names[i] = k_presets[i].dev.name;
        for (int i = 0; i < N_NODES; i++)
            names[N_PRESETS + i] = k_nodes[i].dev.node;
        const char *near = dnp_suggest(tok(p, dev_start, dev_end, t, sizeof t), names,
                                       (size_t)(N_PRESETS + N_NODES));
        char hint[64] = "";
        if (near != NULL)
            snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
        snprintf(suffix, sizeof suffix, "%s (devices: %s; nodes: %s; or custom(...))", hint, devs,
                 nodes);
        fail(p, dev_start, suffix, "unknown device or node '%s'",
             tok(p, dev_start, dev_end, t, sizeof t));
        return 0;
    }
    const dnp_device_type *base = pi >= 0 ? &k_presets[pi].dev : &k_nodes[ni].dev;
    p->pos = dev_end;
    size_t after = p->pos;
    skip_space(p);
    if (cur(p) == '(') { /* PRESET(key=value, ...): the preset with figures changed */
        if (!parse_override(p, dev_start, base, dev))
            return 0;
    } else {
        p->pos = after;
        *dev = *base;
    }
    if (pi < 0)
        *count *= dev->devices_per_node; /* the count is of nodes; clusters count devices */
    return 1;
}

/* Add `count` devices of type *dev to *c (merging types of the same device
 * and node name).  term_start is the term's column for messages.  Returns 0
 * on error. */
static int add_term(const parser *p, size_t term_start, dnp_cluster *c, int64_t count,
                    const dnp_device_type *dev)
{
    char t[TOKBUF];
    if (count % dev->devices_per_node != 0) {
        fail(p, term_start, NULL,
             "%lld devices of '%s' do not fill whole nodes of per_node=%d (a custom term "
             "counts devices)",
             (long long)count, tok(p, term_start, p->pos, t, sizeof t), dev->devices_per_node);
        return 0;
    }
    int64_t total = dnp_cluster_devices(c);
    if (total + count > CLUSTER_MAX_COUNT) {
        fail(p, term_start, NULL, "total device count exceeds %d with '%s'", CLUSTER_MAX_COUNT,
             tok(p, term_start, p->pos, t, sizeof t));
        return 0;
    }
    for (int i = 0; i < c->n_types; i++) {
        if (same_identity(&c->types[i], dev)) {
            if (!same_figures(&c->types[i], dev)) {
                quote_span(t, sizeof t, dev->name, bounded_len(dev->name, sizeof dev->name),
                           ECHO_TOKEN_CHARS);
                fail(p, term_start, NULL, "device '%s'%s%.*s is defined twice with different figures",
                     t, dev->node[0] ? " of node " : "",
                     (int)bounded_len(dev->node, sizeof dev->node), dev->node);
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

static int clamp_types(int n);

dnp_status dnp_cluster_override(dnp_cluster *c, const char *type_name, const char *pairs_text,
                                dnp_error *err)
{
    if (c == NULL || pairs_text == NULL) {
        dnp_error_set(err, DNP_ERR_INPUT, "cluster override: none given");
        return DNP_ERR_INPUT;
    }
    /* the pairs as a term's "(...)" so that parse_pairs reads them exactly
     * as in a spec (its messages quote this text and its columns) */
    size_t len = strlen(pairs_text);
    if (len == 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "cluster override: no KEY=VALUE given");
        return DNP_ERR_INPUT;
    }
    if (len > ECHO_SPEC_CHARS * 64) {
        dnp_error_set(err, DNP_ERR_INPUT, "cluster override: %zu characters (at most %d)", len,
                      ECHO_SPEC_CHARS * 64);
        return DNP_ERR_INPUT;
    }
    char *text = dnp_malloc(len + 3);
    if (text == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "cluster override: out of memory");
        return DNP_ERR_NOMEM;
    }
    text[0] = '(';
    memcpy(text + 1, pairs_text, len);
    text[len + 1] = ')';
    text[len + 2] = '\0';
    parser p = {text, len + 2, 0, err};
    pairs pr;
    dnp_status st = DNP_OK;
    dnp_cluster out = *c;
    int matched = 0;
    if (!parse_pairs(&p, 0, &pr)) {
        st = DNP_ERR_INPUT;
    } else if (p.pos != p.len) {
        fail(&p, p.pos, NULL, "unexpected ')' (pairs are KEY=VALUE separated by commas)");
        st = DNP_ERR_INPUT;
    }
    static const int fixed[] = {KEY_NAME, KEY_NODE, KEY_PER_NODE, KEY_TOPO};
    for (size_t i = 0; st == DNP_OK && i < sizeof fixed / sizeof fixed[0]; i++)
        if (pr.seen[fixed[i]]) {
            fail(&p, pr.at[fixed[i]], NULL,
                 "key '%s' cannot change in an override (describe the device with custom(...))",
                 k_keys[fixed[i]]);
            st = DNP_ERR_INPUT;
        }
    for (int t = 0; st == DNP_OK && t < clamp_types(out.n_types); t++) {
        dnp_device_type *d = &out.types[t];
        if (type_name != NULL && !name_ieq(d->name, type_name, sizeof d->name) &&
            !name_ieq(d->node, type_name, sizeof d->node))
            continue;
        matched++;
        if (!check_node_keys(&p, &pr, d->devices_per_node)) {
            st = DNP_ERR_INPUT;
        } else if (!pr.seen[KEY_NET] && pr.net.n_params > 0 &&
                   !merge_net_params(&d->net, &pr.net)) {
            /* net.NAME alone changes the numbers of the type's own kind */
            fail(&p, pr.net_param_at, NULL,
                 "net.NAME keys change a network kind's numbers, and type '%.31s' has none "
                 "(give net=KIND) or would hold more than %d",
                 d->node[0] ? d->node : d->name, DNP_NET_MAX_PARAMS);
            st = DNP_ERR_INPUT;
        } else {
            apply_pairs(&pr, 0, d);
        }
    }
    if (st == DNP_OK && matched == 0) {
        char names[256];
        size_t o = 0;
        names[0] = '\0';
        for (int t = 0; t < clamp_types(out.n_types) && o < sizeof names; t++)
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", t ? ", " : "",
                                  out.types[t].node[0] ? out.types[t].node : out.types[t].name);
        dnp_error_set(err, DNP_ERR_INPUT,
                      "cluster override: no device type or node named '%.64s' (the cluster has "
                      "%s)",
                      type_name, names);
        st = DNP_ERR_INPUT;
    }
    if (st == DNP_OK)
        *c = out;
    dnp_free(text);
    return st;
}

/* ------------------------------------------------------------------ */
/* Formatting                                                           */
/* ------------------------------------------------------------------ */

/* n_types limited to [0, DNP_MAX_DEVICE_TYPES] (defends against corrupt input). */
static int clamp_types(int n)
{
    return n < 0 ? 0 : n > DNP_MAX_DEVICE_TYPES ? DNP_MAX_DEVICE_TYPES : n;
}

/* Appends to a bounded buffer; always NUL-terminated (n > 0), truncates
 * silently; need counts the bytes of the whole text (n = 0: measure only). */
typedef struct {
    char *buf;
    size_t n, len, need;
} sink;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(sink *s, const char *fmt, ...)
{
    size_t room = s->len + 1 < s->n ? s->n - s->len : 0;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(room ? s->buf + s->len : NULL, room, fmt, ap);
    va_end(ap);
    if (w < 0)
        return;
    s->need += (size_t)w;
    if (room)
        s->len = (size_t)w >= room ? s->n - 1 : s->len + (size_t)w;
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

/* ",key=<si / factor>" */
static void put_num(sink *s, const char *key, double si, double factor)
{
    char num[64];
    format_scaled(si, factor, num, sizeof num);
    put(s, ",%s=%s", key, num);
}

/* Index of the device preset whose name is exactly s (case too), or -1. */
static int preset_exact(const char *s)
{
    for (int i = 0; i < N_PRESETS; i++)
        if (strcmp(s, k_presets[i].dev.name) == 0)
            return i;
    return -1;
}

/* Index of the node preset whose node name is exactly s, or -1. */
static int node_exact(const char *s)
{
    for (int i = 0; i < N_NODES; i++)
        if (strcmp(s, k_nodes[i].dev.node) == 0)
            return i;
    return -1;
}

/* ",key=value" for each figure of *d that differs from *base, in the
 * canonical key order; custom_form also writes tflops, net_gbps, dtype and
 * the node keys always.  inter_follows_net: an absent inter_gbps would be
 * net_gbps (custom_base). */
static void put_figures(sink *s, const dnp_device_type *d, const dnp_device_type *base,
                        int custom_form, int inter_follows_net)
{
    dnp_device_type dd = *d, bb = *base;
    if (custom_form || d->peak_flops != base->peak_flops)
        put_num(s, "tflops", d->peak_flops, TFLOPS_TO_FLOPS);
    static const int mid[] = {KEY_FP32, KEY_TF32, KEY_FP16, KEY_BF16, KEY_MEM_GB, KEY_MEMBW_GBPS};
    for (size_t i = 0; i < sizeof mid / sizeof mid[0]; i++)
        if (*key_field(&dd, mid[i]) != *key_field(&bb, mid[i]))
            put_num(s, k_keys[mid[i]], *key_field(&dd, mid[i]), k_key_factor[mid[i]]);
    if (custom_form || d->net_bw_bps != base->net_bw_bps)
        put_num(s, "net_gbps", d->net_bw_bps, GBITS_PS_TO_BPS);
    if (custom_form || strncmp(d->dtype, base->dtype, sizeof d->dtype) != 0)
        put(s, ",dtype=%.*s", (int)bounded_len(d->dtype, sizeof d->dtype), d->dtype);
    static const int effs[] = {KEY_COMPUTE_EFF, KEY_MEM_EFF, KEY_KERNEL_US, KEY_SPEED_CV};
    for (size_t i = 0; i < sizeof effs / sizeof effs[0]; i++)
        if (*key_field(&dd, effs[i]) != *key_field(&bb, effs[i]))
            put_num(s, k_keys[effs[i]], *key_field(&dd, effs[i]), k_key_factor[effs[i]]);
    if (d->sm_count != base->sm_count)
        put(s, ",sms=%d", d->sm_count);
    static const int kern[] = {KEY_L2_GBPS, KEY_HOST_US, KEY_PRICE};
    for (size_t i = 0; i < sizeof kern / sizeof kern[0]; i++)
        if (*key_field(&dd, kern[i]) != *key_field(&bb, kern[i]))
            put_num(s, k_keys[kern[i]], *key_field(&dd, kern[i]), k_key_factor[kern[i]]);
    if (d->devices_per_node > 1) {
        if (custom_form) {
            put(s, ",node=%.*s,per_node=%d,topo=%s", (int)bounded_len(d->node, sizeof d->node),
                d->node, d->devices_per_node, dnp_link_topo_name(d->intra_topo));
            put_num(s, "intra_gbps", d->intra_bw_bps, GBYTES_PS_TO_BPS);
        } else if (d->intra_bw_bps != base->intra_bw_bps) {
            put_num(s, "intra_gbps", d->intra_bw_bps, GBYTES_PS_TO_BPS);
        }
        if (d->intra_lat_s != base->intra_lat_s)
            put_num(s, "intra_lat_us", d->intra_lat_s, US_TO_S);
    }
    if (d->inter_bw_bps != (inter_follows_net ? d->net_bw_bps : base->inter_bw_bps))
        put_num(s, "inter_gbps", d->inter_bw_bps, GBITS_PS_TO_BPS);
    if (d->inter_lat_s != base->inter_lat_s)
        put_num(s, "inter_lat_us", d->inter_lat_s, US_TO_S);
    if (!same_net(&d->net, &base->net)) {
        put(s, ",net=%.*s", (int)bounded_len(d->net.kind, sizeof d->net.kind), d->net.kind);
        for (int i = 0; i < d->net.n_params && i < DNP_NET_MAX_PARAMS; i++) {
            char key[24];
            snprintf(key, sizeof key, "net.%.*s",
                     (int)bounded_len(d->net.param_name[i], sizeof d->net.param_name[i]),
                     d->net.param_name[i]);
            put_num(s, key, d->net.param_value[i], 1.0);
        }
    }
}

/* "COUNTxNAME(key=value,...)": preset `base` with the figures that differ
 * (plain "COUNTxNAME" if none does). */
static void put_override(sink *s, long long count, const char *name, const dnp_device_type *d,
                         const dnp_device_type *base)
{
    char buf[2048];
    sink o = {buf, sizeof buf, 0, 0};
    buf[0] = '\0';
    put_figures(&o, d, base, 0, 0);
    if (buf[0] == '\0')
        put(s, "%lldx%s", count, name);
    else
        put(s, "%lldx%s(%s)", count, name, buf + 1);
}

/* One term: "COUNTxNODE" for a node preset (count in nodes), "COUNTxNAME"
 * for a device preset, "COUNTxNODE(...)" / "COUNTxNAME(...)" for a preset
 * with other figures, else "COUNTxcustom(...)" with every figure that
 * differs from what its name inherits (count in devices). */
static void format_term(sink *s, int64_t count, const dnp_device_type *d)
{
    int dpn = d->devices_per_node;
    if (dpn > 1) {
        int ni = node_exact(d->node);
        const dnp_device_type *nb = ni >= 0 ? &k_nodes[ni].dev : NULL;
        if (nb != NULL && strcmp(d->name, nb->name) == 0 && dpn == nb->devices_per_node &&
            d->intra_topo == nb->intra_topo && count % dpn == 0) {
            put_override(s, (long long)(count / dpn), nb->node, d, nb);
            return;
        }
    } else {
        int pi = preset_exact(d->name);
        if (pi >= 0 && d->node[0] == '\0') {
            put_override(s, (long long)count, k_presets[pi].dev.name, d, &k_presets[pi].dev);
            return;
        }
    }
    dnp_device_type base;
    int follows = 0;
    size_t nl = bounded_len(d->name, sizeof d->name), dl = bounded_len(d->node, sizeof d->node);
    custom_base(d->name, nl, d->node, dl, dpn > 1 ? dpn : 1, d->intra_topo, &base, &follows);
    put(s, "%lldxcustom(name=%.*s", (long long)count, (int)nl, d->name);
    put_figures(s, d, &base, 1, follows);
    put(s, ")");
}

/* Write the canonical spec of *c into buf[n] (always NUL-terminated when
 * n > 0, truncated if short; buf may be NULL when n is 0): terms
 * "COUNTxNAME" joined by '+', in type order, count always written, custom
 * types as custom(...) with every known figure.  dnp_cluster_parse of the
 * full text gives back *c.  Returns the full text's length (snprintf's
 * convention): the text was cut if it is >= n. */
size_t dnp_cluster_format(const dnp_cluster *c, char *buf, size_t n)
{
    if (buf == NULL)
        n = 0;
    if (n > 0)
        buf[0] = '\0';
    if (c == NULL)
        return 0;
    sink s = {buf, n, 0, 0};
    int nt = clamp_types(c->n_types);
    for (int i = 0; i < nt; i++) {
        if (i)
            put(&s, "+");
        format_term(&s, c->counts[i], &c->types[i]);
    }
    return s.need;
}

char *dnp_cluster_spec(const dnp_cluster *c)
{
    size_t n = dnp_cluster_format(c, NULL, 0) + 1;
    char *spec = dnp_malloc(n);
    if (spec != NULL)
        dnp_cluster_format(c, spec, n);
    return spec;
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
