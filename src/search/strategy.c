/*
 * strategy.c - reading a strategy written by `dnnpar plan --json` so that
 * `dnnpar simulate --strategy FILE` can evaluate it again (possibly for
 * another batch or cluster of the same shape).
 */
#include "search/strategy.h"
#include "core/alloc.h"
#include "core/input.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct dnp_strategy {
    json_t *root;
    const json_t *paths; /* array of {"branch_bits", "levels": [...]}; NULL for a
                          * Megatron-LM configuration (config3d) */
    const char *config3d; /* version 3, "kind": "megatron": the configuration's text
                           * (dnp_config3d_parse), borrowed from root; else NULL */
    char file[256];
    int levels;
};

static dnp_status bad(dnp_error *err, const char *file, const char *what)
{
    dnp_error_set(err, DNP_ERR_INPUT, "%s: %s", file, what);
    return DNP_ERR_INPUT;
}

/* Largest strategy file read (bytes). */
#define MAX_STRATEGY_BYTES ((size_t)256 << 20)

dnp_status dnp_strategy_read(const char *path, dnp_strategy **out, dnp_error *err)
{
    char *data = NULL;
    size_t len = 0;
    dnp_status st = dnp_input_read(path, MAX_STRATEGY_BYTES, &data, &len, err);
    if (st != DNP_OK)
        return st;
    st = dnp_strategy_read_buffer(data, len, dnp_input_display(path), out, err);
    dnp_free(data);
    return st;
}

dnp_status dnp_strategy_read_buffer(const char *data, size_t len_bytes, const char *name,
                                    dnp_strategy **out, dnp_error *err)
{
    char qfile[DNP_QUOTE_MAX + 8];
    const char *file = dnp_quote_str(name ? name : "<buffer>", qfile, sizeof qfile);
    json_error_t jerr;
    unsigned long failures = dnp_alloc_failures();
    json_t *root = json_loadb(data, len_bytes, 0, &jerr);
    if (root == NULL)
        return dnp_json_parse_error(&jerr, file, failures, err);
    return strategy_from_json(root, file, out, err);
}

/* A version-3 plan (docs/formats.md "Plan"): the search-specific part in
 * "strategy", one of "kind" "tree" (levels and paths as version 2),
 * "pase" (PaSE's per-op configurations, with levels and paths when its
 * plan has a tree form, else "no_tree": why) or "megatron" (a Megatron-LM
 * configuration, its text in "text").  Sets *tree to the object holding
 * "levels" and "paths", or *config3d to the configuration's text; the
 * reason a file holds neither in err.  O(1). */
static dnp_status v3_strategy(const json_t *root, const char *file, const json_t **tree,
                              const char **config3d, dnp_error *err)
{
    const json_t *sg = json_object_get(root, "strategy");
    const char *kind = json_string_value(json_object_get(sg, "kind"));
    *tree = NULL;
    *config3d = NULL;
    if (!json_is_object(sg) || kind == NULL)
        return bad(err, file, "version 3 needs a \"strategy\" object with a \"kind\"");
    if (strcmp(kind, "megatron") == 0) {
        *config3d = json_string_value(json_object_get(sg, "text"));
        if (*config3d == NULL)
            return bad(err, file, "strategy of kind \"megatron\" needs its configuration as "
                                  "\"text\"");
        return DNP_OK;
    }
    if (strcmp(kind, "pase") == 0 && json_object_get(sg, "paths") == NULL) {
        const char *why = json_string_value(json_object_get(sg, "no_tree"));
        dnp_error_set(err, DNP_ERR_INPUT,
                      "%s: a PaSE plan dnnpar cannot simulate: %.300s (docs/formats.md, "
                      "\"Plan\")",
                      file, why != NULL ? why : "it has no tree form (no \"paths\")");
        return DNP_ERR_INPUT;
    }
    if (strcmp(kind, "tree") != 0 && strcmp(kind, "pase") != 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "strategy \"kind\" '%.40s' is none of tree, pase, megatron",
                 kind);
        return bad(err, file, msg);
    }
    *tree = sg;
    return DNP_OK;
}

dnp_status strategy_from_json(json_t *root, const char *file, dnp_strategy **out, dnp_error *err)
{
    dnp_status st = DNP_ERR_INPUT;
    /* "version": 1 (or absent: files written before it), 2 (docs/formats.md
     * "Strategy"; a path may stop above "levels": short paths) or 3 (the
     * plan of any search, "Plan": its strategy in "strategy") */
    const json_t *ver = json_object_get(root, "version");
    if (ver != NULL && (!json_is_integer(ver) || json_integer_value(ver) < 1 ||
                        json_integer_value(ver) > 3)) {
        st = bad(err, file, "\"version\" must be 1, 2 or 3");
        goto fail;
    }
    const json_t *tree = root;
    const char *config3d = NULL;
    if (ver != NULL && json_integer_value(ver) == 3 &&
        (st = v3_strategy(root, file, &tree, &config3d, err)) != DNP_OK)
        goto fail;
    /* The batch is optional (simulate --batch overrides it); when present
     * it is a count the cost figures multiply by, so the CLI's range. */
    const json_t *batch = json_object_get(root, "batch");
    if (batch != NULL && (!json_is_integer(batch) || json_integer_value(batch) < 1 ||
                          json_integer_value(batch) > ((json_int_t)1 << 40))) {
        char msg[160];
        if (json_is_integer(batch))
            snprintf(msg, sizeof msg, "\"batch\" %lld is not an integer in 1 .. 2^40",
                     (long long)json_integer_value(batch));
        else
            snprintf(msg, sizeof msg, "\"batch\" is not an integer in 1 .. 2^40");
        st = bad(err, file, msg);
        goto fail;
    }
    /* a configuration has no tree: it is checked where it is simulated */
    const json_t *paths = config3d != NULL ? NULL : json_object_get(tree, "paths");
    const json_t *levels = json_object_get(tree, "levels");
    if (config3d == NULL &&
        (!json_is_array(paths) || json_array_size(paths) == 0 || !json_is_integer(levels) ||
         json_integer_value(levels) < 0 || json_integer_value(levels) > 62)) {
        st = bad(err, file, "not a strategy: expected \"levels\" and \"paths\" as written by "
                            "dnnpar plan --json");
        goto fail;
    }
    int v2 = ver != NULL && json_integer_value(ver) >= 2; /* short paths allowed */
    for (size_t i = 0; i < json_array_size(paths); i++) {
        const json_t *p = json_array_get(paths, i), *lv = json_object_get(p, "levels");
        size_t want = (size_t)json_integer_value(levels);
        if (!json_is_integer(json_object_get(p, "branch_bits")) ||
            json_integer_value(json_object_get(p, "branch_bits")) < 0 || !json_is_array(lv) ||
            (v2 ? json_array_size(lv) > want : json_array_size(lv) != want)) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "paths[%zu] needs \"branch_bits\" (>= 0) and %s entry per level", i,
                     v2 ? "at most one" : "one");
            st = bad(err, file, msg);
            goto fail;
        }
        for (size_t k = 0; k < json_array_size(lv); k++) {
            const json_t *l = json_array_get(lv, k);
            double r = json_number_value(json_object_get(l, "ratio"));
            if (!json_is_number(json_object_get(l, "ratio")) || !(r > 0.0 && r < 1.0) ||
                !json_is_object(json_object_get(l, "types"))) {
                char msg[160];
                snprintf(msg, sizeof msg,
                         "paths[%zu].levels[%zu] needs a \"ratio\" in (0, 1) and \"types\"", i, k);
                st = bad(err, file, msg);
                goto fail;
            }
        }
    }
    dnp_strategy *s = dnp_calloc(1, sizeof *s);
    if (s == NULL) {
        st = DNP_ERR_NOMEM;
        dnp_error_set(err, st, "%s: out of memory", file);
        goto fail;
    }
    s->root = root;
    s->paths = paths;
    s->config3d = config3d;
    s->levels = paths != NULL ? (int)json_integer_value(levels) : 0;
    snprintf(s->file, sizeof s->file, "%s", file);
    *out = s;
    return DNP_OK;
fail:
    json_decref(root);
    return st;
}

void dnp_strategy_free(dnp_strategy *s)
{
    if (s == NULL)
        return;
    json_decref(s->root);
    dnp_free(s);
}

static const char *str_or(const dnp_strategy *s, const char *key, const char *dflt)
{
    const char *v = json_string_value(json_object_get(s->root, key));
    return v ? v : dflt;
}

const char *dnp_strategy_model(const dnp_strategy *s)
{
    return str_or(s, "model_source", str_or(s, "model", ""));
}

const char *dnp_strategy_cluster(const dnp_strategy *s) { return str_or(s, "cluster", ""); }

/* 1 if path has a ".." component. */
static int has_dotdot(const char *path)
{
    for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2)
        if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
            return 1;
    return 0;
}

dnp_status dnp_strategy_source(const dnp_strategy *s, const char *strategy_path, int what,
                               char *out, size_t n, dnp_error *err)
{
    const char *field = what == DNP_STRATEGY_CLUSTER ? "cluster" : "model_source";
    const char *name = what == DNP_STRATEGY_CLUSTER ? dnp_strategy_cluster(s) : dnp_strategy_model(s);
    const char *file = s->file;
    if (name[0] == '\0') {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: no %s: give it on the command line", file, field);
        return DNP_ERR_INPUT;
    }
    if (strlen(name) >= n) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: %s is longer than %zu characters", file, field,
                      n - 1);
        return DNP_ERR_INPUT;
    }
    dnp_error ignore = {0};
    if (what == DNP_STRATEGY_CLUSTER) {
        dnp_cluster c;
        if (dnp_cluster_parse(name, &c, &ignore) == DNP_OK) {
            snprintf(out, n, "%s", name);
            return DNP_OK;
        }
    } else {
        dnp_graph *g = NULL;
        if (dnp_zoo_build(name, &g, &ignore) == DNP_OK) {
            dnp_graph_free(g);
            snprintf(out, n, "%s", name);
            return DNP_OK;
        }
    }
    /* a file: relative to the strategy's directory and inside it */
    if (name[0] == '/' || strcmp(name, "-") == 0 || has_dotdot(name)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "%s: %s must be %s or a path relative to the strategy file's "
                      "directory without '..' (not absolute, not '-'); give it on the command "
                      "line instead",
                      file, field, what == DNP_STRATEGY_CLUSTER ? "a cluster spec" : "a zoo model");
        return DNP_ERR_INPUT;
    }
    char dir[PATH_MAX];
    const char *slash = strategy_path != NULL && strcmp(strategy_path, "-") != 0
                            ? strrchr(strategy_path, '/')
                            : NULL;
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - strategy_path) + (slash == strategy_path),
                 strategy_path);
    char joined[PATH_MAX], real_dir[PATH_MAX], real_file[PATH_MAX];
    int w = snprintf(joined, sizeof joined, "%s/%s", dir, name);
    struct stat sb;
    if (w < 0 || (size_t)w >= sizeof joined || realpath(dir, real_dir) == NULL ||
        realpath(joined, real_file) == NULL || stat(real_file, &sb) != 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: the %s it names is no file beside it", file, field);
        return DNP_ERR_INPUT;
    }
    size_t dl = strlen(real_dir);
    int inside = strncmp(real_file, real_dir, dl) == 0 &&
                 (real_file[dl] == '/' || (dl == 1 && real_dir[0] == '/'));
    if (!inside || !S_ISREG(sb.st_mode)) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "%s: the %s it names is %s: it must be a regular file in the strategy "
                      "file's directory",
                      file, field, !inside ? "outside that directory" : "not a regular file");
        return DNP_ERR_INPUT;
    }
    if (strlen(joined) >= n) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: the %s path is longer than %zu characters", file,
                      field, n - 1);
        return DNP_ERR_INPUT;
    }
    snprintf(out, n, "%s", joined);
    return DNP_OK;
}

const char *dnp_strategy_option(const dnp_strategy *s, const char *key)
{
    /* version 3: the plan's, else its strategy's ("megatron_version") */
    const char *v = str_or(s, key, NULL);
    const json_t *sg = json_object_get(s->root, "strategy");
    return v != NULL ? v : json_string_value(json_object_get(sg, key));
}

int64_t dnp_strategy_batch(const dnp_strategy *s)
{
    return (int64_t)json_integer_value(json_object_get(s->root, "batch"));
}

int dnp_strategy_levels(const dnp_strategy *s) { return s->levels; }

const char *dnp_strategy_config3d_text(const dnp_strategy *s) { return s->config3d; }

const char *strategy_file(const dnp_strategy *s) { return s->file; }

/* The level entry for tree level k reached by branch bits `bits`: any
 * path that took the same branches above k and reaches level k (a short
 * path of version 2 may not). */
static const json_t *level_entry(const dnp_strategy *s, int k, unsigned bits)
{
    unsigned mask = k >= 32 ? ~0u : ((1u << k) - 1u);
    for (size_t i = 0; i < json_array_size(s->paths); i++) {
        const json_t *p = json_array_get(s->paths, i);
        unsigned pb = (unsigned)json_integer_value(json_object_get(p, "branch_bits"));
        const json_t *lv = json_object_get(p, "levels");
        if ((pb & mask) == (bits & mask) && (size_t)k < json_array_size(lv))
            return json_array_get(lv, (size_t)k);
    }
    return NULL;
}

int strategy_has_level(const dnp_strategy *s, int k, unsigned bits)
{
    return level_entry(s, k, bits) != NULL;
}

int strategy_decision(const dnp_strategy *s, int k, unsigned bits, const char *op, int weighted,
                      double *ratio)
{
    static const char *const types[4] = {"I", "II", "III", "R"};
    static const char *const layouts[3] = {"batch", "channel", "replicated"};
    const json_t *l = level_entry(s, k, bits);
    if (l == NULL)
        return -1;
    *ratio = json_number_value(json_object_get(l, "ratio"));
    const char *t = json_string_value(json_object_get(json_object_get(l, "types"), op));
    if (t == NULL)
        return -1;
    for (int i = 0; i < (weighted ? 4 : 3); i++)
        if (strcmp(t, weighted ? types[i] : layouts[i]) == 0)
            return i;
    return -2;
}
