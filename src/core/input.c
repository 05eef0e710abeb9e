/* input.c - reading input files whole and quoting input in messages (input.h). */
#include "core/input.h"
#include "core/alloc.h"

#include <jansson.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const char *dnp_input_display(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

dnp_status dnp_input_read(const char *path, size_t max_bytes, char **data, size_t *len_bytes,
                          dnp_error *err)
{
    char q[DNP_QUOTE_MAX + 8];
    int is_stdin = strcmp(path, "-") == 0;
    const char *shown = is_stdin ? "<stdin>" : dnp_quote_str(path, q, sizeof q);
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (f == NULL) {
        dnp_error_set(err, DNP_ERR_INPUT, "cannot open %s: %s", shown, strerror(errno));
        return DNP_ERR_INPUT;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (!is_stdin)
            fclose(f);
        dnp_error_set(err, DNP_ERR_INPUT, "%s: is a directory", shown);
        return DNP_ERR_INPUT;
    }
    dnp_status st = DNP_OK;
    size_t cap = 4096, n = 0;
    char *buf = dnp_malloc(cap);
    while (buf != NULL) {
        if (n == cap - 1) { /* keep one byte for the NUL */
            if (cap - 1 > max_bytes) {
                st = DNP_ERR_INPUT;
                dnp_error_set(err, st, "%s: larger than %zu MiB", shown, max_bytes >> 20);
                break;
            }
            char *bigger = dnp_realloc(buf, 2 * cap);
            if (bigger == NULL) {
                dnp_free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got > 0)
            continue;
        if (ferror(f)) {
            st = DNP_ERR_INPUT;
            dnp_error_set(err, st, "cannot read %s: %s", shown,
                          errno ? strerror(errno) : "read error");
        }
        break;
    }
    if (buf == NULL || (st == DNP_OK && n > max_bytes)) {
        if (buf == NULL) {
            st = DNP_ERR_NOMEM;
            dnp_error_set(err, st, "out of memory reading %s", shown);
        } else {
            st = DNP_ERR_INPUT;
            dnp_error_set(err, st, "%s: larger than %zu MiB", shown, max_bytes >> 20);
        }
    }
    if (!is_stdin)
        fclose(f);
    if (st != DNP_OK) {
        dnp_free(buf);
        return st;
    }
    buf[n] = '\0';
    *data = buf;
    *len_bytes = n;
    return DNP_OK;
}

const char *dnp_quote(const char *s, size_t len, char *buf, size_t n)
{
    if (n == 0)
        return buf;
    size_t room = n - 1 < DNP_QUOTE_MAX ? n - 1 : DNP_QUOTE_MAX;
    int cut = len > room;
    if (cut)
        room = room >= 3 ? room - 3 : 0;
    size_t k = 0;
    for (; k < len && k < room; k++) {
        unsigned char c = (unsigned char)s[k];
        buf[k] = (c >= 0x20 && c <= 0x7e) ? (char)c : '?';
    }
    if (cut)
        for (int d = 0; d < 3 && k < n - 1; d++)
            buf[k++] = '.';
    buf[k] = '\0';
    return buf;
}

const char *dnp_quote_str(const char *s, char *buf, size_t n)
{
    return dnp_quote(s ? s : "", s ? strlen(s) : 0, buf, n);
}

dnp_status dnp_json_parse_error(const void *jerr_v, const char *file, unsigned long failures_before,
                                dnp_error *err)
{
    const json_error_t *jerr = jerr_v;
    if (json_error_code(jerr) == json_error_out_of_memory || dnp_alloc_failures() != failures_before) {
        dnp_error_set(err, DNP_ERR_NOMEM, "%s: out of memory parsing JSON", file);
        return DNP_ERR_NOMEM;
    }
    dnp_error_set(err, DNP_ERR_INPUT, "%s:%d:%d: %s", file, jerr->line, jerr->column, jerr->text);
    return DNP_ERR_INPUT;
}
