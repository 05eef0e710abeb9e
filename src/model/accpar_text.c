/*
 * accpar_text.c - loader for the AccPar authors' network text format
 * (linghaosong/AccPar, networks/Alexnet.txt and others):
 *
 *     num_layers N
 *     <name> CONV              <name> FC
 *     in_ch <n>                in_ch <n>
 *     in_fmap_h <n>            out_ch <n>
 *     in_fmap_w <n>
 *     kernel <n>
 *     out_ch <n>
 *     out_fmap_h <n>           (size after pooling)
 *     out_fmap_w <n>
 *     pool <n>                 (read and ignored, as in the authors' code)
 *
 * The layers form a chain after an input op "data".  Keys come in the fixed
 * order above, one "key value" pair per line; blank lines are skipped.
 * Every error names file:line.  The whole file is read into memory (at most
 * MAX_FILE_BYTES) and parsed in one pass: O(file size).
 */
#include "dnnpar/model.h"
#include "core/input.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FILE_BYTES ((size_t)16 << 20)
/* Values are positive and below 2^31. */
#define VALUE_MAX INT64_C(2147483647)
/* Bounds that keep every later cost figure (per-op products times a batch,
 * graph totals) far from int64 overflow. */
#define TENSOR_ELEMS_MAX (INT64_C(1) << 40) /* per sample, any one tensor */
#define TOTAL_MAX (INT64_C(1) << 53)        /* per sample, summed over the graph */
#define SHOW_CHARS 48                       /* longest excerpt quoted in a message */

typedef struct {
    const char *s;
    int n;
} token;

typedef struct {
    const char *buf;
    size_t len, pos;
    const char *file; /* basename, for messages */
    int line;         /* number of the last line read (1-based) */
    const char *text; /* that line without surrounding blanks */
    int text_n;
    int n_tok; /* tokens on that line, counted up to 3 */
    token tok[3];
    dnp_error *err;
} reader;

static int rd_fail_at(reader *r, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Record "file:line: message" as DNP_ERR_INPUT; returns -1. */
static int rd_fail_at(reader *r, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dnp_error_set(r->err, DNP_ERR_INPUT, "%s:%d: %s", r->file, line > 0 ? line : 1, msg);
    return -1;
}

/* Excerpt of at most SHOW_CHARS characters, for "%.*s%s". */
static int show_n(int n) { return n < SHOW_CHARS ? n : SHOW_CHARS; }
static const char *show_more(int n) { return n > SHOW_CHARS ? "..." : ""; }

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Advance to the next non-blank line and split it into tokens.  Returns 1
 * for a line, 0 at end of file, -1 (error recorded) for a byte that is not
 * printable ASCII. */
static int next_line(reader *r)
{
    while (r->pos < r->len) {
        size_t start = r->pos, end = start;
        while (end < r->len && r->buf[end] != '\n')
            end++;
        r->pos = end < r->len ? end + 1 : end;
        r->line++;
        if (end > start && r->buf[end - 1] == '\r')
            end--; /* CRLF line ending */
        for (size_t i = start; i < end; i++) {
            unsigned char c = (unsigned char)r->buf[i];
            if (!is_blank((char)c) && (c < 0x20 || c > 0x7e))
                return rd_fail_at(r, r->line,
                                  "unexpected byte 0x%02x in column %zu (not a text file?)",
                                  c, i - start + 1);
        }
        while (start < end && is_blank(r->buf[start]))
            start++;
        while (end > start && is_blank(r->buf[end - 1]))
            end--;
        if (start == end)
            continue;
        /* Lines are short in valid files; anything longer than INT_MAX
         * cannot occur because the file is at most MAX_FILE_BYTES. */
        r->text = r->buf + start;
        r->text_n = (int)(end - start);
        r->n_tok = 0;
        size_t i = start;
        while (i < end) {
            size_t t = i;
            while (i < end && !is_blank(r->buf[i]))
                i++;
            if (r->n_tok < 3) /* 3 means "three or more" */
                r->tok[r->n_tok++] = (token){r->buf + t, (int)(i - t)};
            while (i < end && is_blank(r->buf[i]))
                i++;
        }
        return 1;
    }
    return 0;
}

static int tok_is(token t, const char *s)
{
    size_t n = strlen(s);
    return (size_t)t.n == n && memcmp(t.s, s, n) == 0;
}

static int tok_is_ci(token t, const char *s)
{
    size_t n = strlen(s);
    return (size_t)t.n == n && strncasecmp(t.s, s, n) == 0;
}

/* Parse the value token of `key` as an integer in [1, 2^31). */
static int parse_value(reader *r, const char *key, token t, int64_t *out)
{
    int64_t v = 0;
    int ok = t.n > 0;
    for (int i = 0; i < t.n && ok; i++) {
        if (t.s[i] < '0' || t.s[i] > '9')
            ok = 0;
        else if ((v = v * 10 + (t.s[i] - '0')) > VALUE_MAX)
            ok = 0;
    }
    if (!ok || v < 1)
        return rd_fail_at(r, r->line, "%s must be a positive integer below 2^31, found '%.*s%s'",
                          key, show_n(t.n), t.s, show_more(t.n));
    *out = v;
    return 0;
}

/* Read the line "key <n>" of layer `layer`. */
static int expect_kv(reader *r, const char *layer, const char *key, int64_t *out)
{
    int rc = next_line(r);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return rd_fail_at(r, r->line, "file ends inside layer '%s': expected '%s <n>'", layer,
                          key);
    if (r->n_tok != 2 || !tok_is(r->tok[0], key))
        return rd_fail_at(r, r->line, "expected '%s <n>', found '%.*s%s'", key,
                          show_n(r->text_n), r->text, show_more(r->text_n));
    return parse_value(r, key, r->tok[1], out);
}

/* a * b if it is at most `limit` (a, b >= 0); otherwise -1. */
static int64_t mul_capped(int64_t a, int64_t b, int64_t limit)
{
    if (a != 0 && b > limit / a)
        return -1;
    return a * b;
}

/* State carried from one layer to the next. */
typedef struct {
    dnp_graph *g;
    int prev;              /* index of the previous op (-1 before the input exists) */
    dnp_shape prev_shape;  /* its output shape */
    char prev_name[64];
    int64_t total_macs;    /* per sample, so far */
    int64_t total_elems;   /* per sample, so far */
} chain;

/* Add a builder result; on failure, report the graph's error at `line`. */
static int check_built(reader *r, chain *ch, int idx, int line)
{
    if (idx >= 0) {
        ch->prev = idx;
        ch->prev_shape = dnp_op_out_view(dnp_graph_op(ch->g, idx));
        return 0;
    }
    const char *why = dnp_graph_error(ch->g);
    if (strncmp(why, "out of memory", 13) == 0) {
        dnp_error_set(r->err, DNP_ERR_NOMEM, "%s:%d: %s", r->file, line, why);
        return -1;
    }
    return rd_fail_at(r, line, "%s", why);
}

static int add_input(reader *r, chain *ch, int64_t c, int64_t h, int64_t w, int line)
{
    int64_t elems = mul_capped(c, h, TENSOR_ELEMS_MAX);
    elems = elems < 0 ? -1 : mul_capped(elems, w, TENSOR_ELEMS_MAX);
    if (elems < 0)
        return rd_fail_at(r, line, "input %lldx%lldx%lld is too large (more than 2^40 elements)",
                          (long long)c, (long long)h, (long long)w);
    ch->total_elems = elems;
    return check_built(r, ch, dnp_graph_input(ch->g, "data", c, h, w), line);
}

/* Account for a layer's weights, products and output size; -1 if too large. */
static int account(reader *r, chain *ch, const char *name, int64_t weights, int64_t out_hw,
                   int64_t out_elems, int line)
{
    int64_t macs = weights < 0 ? -1 : mul_capped(weights, out_hw, TOTAL_MAX);
    if (weights < 0 || out_elems < 0 || macs < 0 || macs > TOTAL_MAX - ch->total_macs ||
        out_elems > TOTAL_MAX - ch->total_elems)
        return rd_fail_at(r, line,
                          "layer '%s' is too large (limits: 2^40 weights or output elements "
                          "per layer, 2^53 multiply-accumulates per sample in all)",
                          name);
    ch->total_macs += macs;
    ch->total_elems += out_elems;
    return 0;
}

/* Check that `key` value v equals the previous output's `want`. */
static int check_match(reader *r, const chain *ch, const char *layer, const char *key,
                       int64_t v, int64_t want, const char *what)
{
    if (v == want)
        return 0;
    return rd_fail_at(r, r->line,
                      "layer '%s': %s %lld does not match the previous layer's output %s %lld "
                      "('%s' gives %lldx%lldx%lld)",
                      layer, key, (long long)v, what, (long long)want, ch->prev_name,
                      (long long)ch->prev_shape.c, (long long)ch->prev_shape.h,
                      (long long)ch->prev_shape.w);
}

static int read_conv(reader *r, chain *ch, const char *name, int header_line)
{
    int64_t in_c, in_h, in_w, k, out_c, out_h, out_w, pool;
    int first = ch->prev < 0;
    if (expect_kv(r, name, "in_ch", &in_c) ||
        (!first && check_match(r, ch, name, "in_ch", in_c, ch->prev_shape.c, "channels")))
        return -1;
    if (expect_kv(r, name, "in_fmap_h", &in_h) ||
        (!first && check_match(r, ch, name, "in_fmap_h", in_h, ch->prev_shape.h, "height")))
        return -1;
    if (expect_kv(r, name, "in_fmap_w", &in_w) ||
        (!first && check_match(r, ch, name, "in_fmap_w", in_w, ch->prev_shape.w, "width")))
        return -1;
    if (expect_kv(r, name, "kernel", &k) || expect_kv(r, name, "out_ch", &out_c) ||
        expect_kv(r, name, "out_fmap_h", &out_h) || expect_kv(r, name, "out_fmap_w", &out_w) ||
        expect_kv(r, name, "pool", &pool))
        return -1;
    (void)pool; /* the output size already includes pooling */
    if (first && add_input(r, ch, in_c, in_h, in_w, header_line))
        return -1;
    int64_t out_hw = mul_capped(out_h, out_w, TENSOR_ELEMS_MAX);
    int64_t out_elems = out_hw < 0 ? -1 : mul_capped(out_c, out_hw, TENSOR_ELEMS_MAX);
    int64_t weights = mul_capped(in_c, out_c, TENSOR_ELEMS_MAX);
    weights = weights < 0 ? -1 : mul_capped(weights, k, TENSOR_ELEMS_MAX);
    weights = weights < 0 ? -1 : mul_capped(weights, k, TENSOR_ELEMS_MAX);
    if (account(r, ch, name, weights, out_hw, out_elems, header_line))
        return -1;
    return check_built(r, ch,
                       dnp_graph_conv_explicit(ch->g, name, ch->prev, out_c, (int)k, out_h, out_w),
                       header_line);
}

static int read_fc(reader *r, chain *ch, const char *name, int header_line)
{
    int64_t in_c, out_c;
    if (expect_kv(r, name, "in_ch", &in_c))
        return -1;
    if (ch->prev >= 0) {
        dnp_shape s = ch->prev_shape;
        if (check_match(r, ch, name, "in_ch", in_c, s.c * s.h * s.w, "features"))
            return -1;
    }
    if (expect_kv(r, name, "out_ch", &out_c))
        return -1;
    if (ch->prev < 0 && add_input(r, ch, in_c, 1, 1, header_line))
        return -1;
    if (account(r, ch, name, mul_capped(in_c, out_c, TENSOR_ELEMS_MAX), 1, out_c, header_line))
        return -1;
    return check_built(r, ch, dnp_graph_fc(ch->g, name, ch->prev, out_c, 0), header_line);
}

/* Parse the whole buffer into ch->g. */
static int parse(reader *r, chain *ch)
{
    int rc = next_line(r);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return rd_fail_at(r, r->line, "empty file: expected 'num_layers <n>'");
    int64_t n_layers;
    if (r->n_tok != 2 || !tok_is(r->tok[0], "num_layers"))
        return rd_fail_at(r, r->line, "expected 'num_layers <n>', found '%.*s%s'",
                          show_n(r->text_n), r->text, show_more(r->text_n));
    if (parse_value(r, "num_layers", r->tok[1], &n_layers))
        return -1;
    for (int64_t done = 0;; done++) {
        rc = next_line(r);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            if (done == n_layers)
                return 0;
            return rd_fail_at(r, r->line, "file ends after %lld layer%s, but num_layers is %lld",
                              (long long)done, done == 1 ? "" : "s", (long long)n_layers);
        }
        if (done == n_layers)
            return rd_fail_at(r, r->line,
                              "num_layers is %lld, but more follows: found '%.*s%s'",
                              (long long)n_layers, show_n(r->text_n), r->text,
                              show_more(r->text_n));
        int is_conv = r->n_tok == 2 && tok_is_ci(r->tok[1], "CONV");
        int is_fc = r->n_tok == 2 && tok_is_ci(r->tok[1], "FC");
        if (!is_conv && !is_fc)
            return rd_fail_at(r, r->line, "expected '<name> CONV' or '<name> FC', found '%.*s%s'",
                              show_n(r->text_n), r->text, show_more(r->text_n));
        token t = r->tok[0];
        if (t.n >= (int)sizeof ch->prev_name)
            return rd_fail_at(r, r->line, "layer name '%.*s...' is longer than 63 characters",
                              SHOW_CHARS, t.s);
        char name[64];
        memcpy(name, t.s, (size_t)t.n);
        name[t.n] = '\0';
        int header_line = r->line;
        if (is_conv ? read_conv(r, ch, name, header_line) : read_fc(r, ch, name, header_line))
            return -1;
        memcpy(ch->prev_name, name, sizeof name);
    }
}

/* Load an AccPar network text file as a chain graph named after the file
 * (basename without extension, lower-cased).  Errors: DNP_ERR_IO if the
 * file cannot be read; DNP_ERR_INPUT with "file:line: problem" for any
 * malformed or inconsistent content; DNP_ERR_NOMEM.  On success *out owns
 * a new graph.  O(file size). */
dnp_status dnp_load_accpar_text(const char *path, dnp_graph **out, dnp_error *err)
{
    if (path == NULL || path[0] == '\0') {
        dnp_error_set(err, DNP_ERR_INPUT, "no AccPar network file given");
        return DNP_ERR_INPUT;
    }
    char *data = NULL;
    size_t len = 0;
    dnp_status st = dnp_input_read(path, MAX_FILE_BYTES, &data, &len, err);
    if (st != DNP_OK)
        return st;
    st = dnp_load_accpar_text_buffer(data, len, path, out, err);
    dnp_free(data);
    return st;
}

/* From memory; `name` is the file's path (its basename names the graph
 * and the messages). */
dnp_status dnp_load_accpar_text_buffer(const char *data, size_t len, const char *name,
                                       dnp_graph **out, dnp_error *err)
{
    const char *path = name ? name : "<buffer>";
    const char *slash = strrchr(path, '/');
    char qbase[DNP_QUOTE_MAX + 8];
    const char *base = dnp_quote_str(slash ? slash + 1 : path, qbase, sizeof qbase);

    char gname[64];
    size_t stem = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot != NULL && dot != base)
        stem = (size_t)(dot - base);
    if (stem >= sizeof gname)
        stem = sizeof gname - 1;
    for (size_t i = 0; i < stem; i++)
        gname[i] = (char)tolower((unsigned char)base[i]);
    gname[stem] = '\0';

    /* Errors go to a local record first so the status returned is this
     * call's even if the caller's record already holds an earlier error. */
    dnp_error local;
    dnp_error_clear(&local);
    chain ch;
    memset(&ch, 0, sizeof ch);
    ch.prev = -1;
    if (len > MAX_FILE_BYTES)
        dnp_error_set(&local, DNP_ERR_INPUT,
                      "%s: file is larger than %zu MiB; not an AccPar network file", base,
                      MAX_FILE_BYTES >> 20);
    else if ((ch.g = dnp_graph_new(gname)) == NULL)
        dnp_error_set(&local, DNP_ERR_NOMEM, "out of memory loading '%s'", base);
    if (ch.g != NULL) {
        char note[256];
        snprintf(note, sizeof note, "AccPar reference network file %s", base);
        dnp_graph_set_note(ch.g, note);
        reader r;
        memset(&r, 0, sizeof r);
        r.buf = data;
        r.len = len;
        r.file = base;
        r.err = &local;
        if (parse(&r, &ch) != 0 && local.status == DNP_OK)
            dnp_error_set(&local, DNP_ERR_INTERNAL, "%s: parse failed without a reason", base);
    }
    if (local.status != DNP_OK) {
        dnp_graph_free(ch.g);
        dnp_error_set(err, local.status, "%s", local.msg);
        return local.status;
    }
    *out = ch.g;
    return DNP_OK;
}
