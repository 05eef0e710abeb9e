/*
 * input.h - reading an input file whole, with the messages every loader
 * shares (issue 12, item 4), and quoting echoed input in messages.
 */
#ifndef DNP_CORE_INPUT_H
#define DNP_CORE_INPUT_H

#include "dnnpar/core.h"

#include <stddef.h>

/* Read the file at `path` ("-" = standard input) into a new buffer of
 * *len_bytes bytes plus a terminating NUL (so text parsers may treat it as
 * a string; the data itself may hold NULs).  The caller frees *data with
 * dnp_free.  At most max_bytes are accepted.  Errors, all naming `path`:
 * "cannot open PATH: <strerror>" and "PATH: is a directory" (DNP_ERR_INPUT:
 * a missing or unreadable input is a bad argument, exit 2), "PATH: larger
 * than N MiB" (DNP_ERR_INPUT), "cannot read PATH: ..." (DNP_ERR_INPUT),
 * DNP_ERR_NOMEM.  On failure *data is untouched.  O(file size). */
dnp_status dnp_input_read(const char *path, size_t max_bytes, char **data, size_t *len_bytes,
                          dnp_error *err);

/* The name messages use for `path`: "<stdin>" for "-", else path itself. */
const char *dnp_input_display(const char *path);

/* Record a failed jansson parse of `file` (`jerr` as json_loadb left it;
 * `failures_before` = dnp_alloc_failures() before the parse):
 * DNP_ERR_NOMEM when an allocation failed meanwhile (jansson reports some
 * as syntax errors), else DNP_ERR_INPUT with "FILE:LINE:COLUMN: reason".
 * Returns the status.  jerr is a json_error_t (void * so this header does
 * not need jansson.h). */
dnp_status dnp_json_parse_error(const void *jerr, const char *file, unsigned long failures_before,
                                dnp_error *err);

/* Longest excerpt of input that messages echo (bytes). */
#define DNP_QUOTE_MAX 80

/* Write into buf (size n >= 8) the first len bytes of s, at most
 * DNP_QUOTE_MAX of them, with bytes that are not printable ASCII shown as
 * '?', and "..." appended when s was cut.  Lets a message keep its reason
 * whatever the input holds.  Returns buf.  O(min(len, DNP_QUOTE_MAX)). */
const char *dnp_quote(const char *s, size_t len, char *buf, size_t n);
/* dnp_quote of a NUL-terminated string. */
const char *dnp_quote_str(const char *s, char *buf, size_t n);

#endif
