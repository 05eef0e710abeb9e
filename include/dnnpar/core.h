/*
 * dnnpar/core.h - libdnnpar's foundations: the version, status codes and the error
 * record, the allocator hook, output files, name suggestions and the text
 * formatting shared by the reports (src/core/).
 *
 * Part of libdnnpar's public API: include <dnnpar.h>, which includes each
 * header under dnnpar/, or this header alone (it includes what it needs).  Its
 * conventions are dnnpar.h's (status and error record, dnp_X_new / dnp_X_free
 * pairs, units in names; docs/library.md).
 * Ownership: every pointer the library hands the caller to free - a text,
 * an array - is freed with dnp_free (never free(): the block came from the
 * allocator hook, dnp_set_allocator); objects have their own dnp_X_free or
 * close.  Freeing NULL is a no-op.
 */
#ifndef DNNPAR_PUBLIC_CORE_H
#define DNNPAR_PUBLIC_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Symbol visibility.  The library is compiled with -fvisibility=hidden:
 * only what dnnpar.h's headers declare is exported (from the shared library,
 * and from the static one, whose internal symbols are made local when it
 * is built), so every exported symbol carries the dnp_ prefix and no
 * internal name can clash with a program's own (docs/library.md). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define DNP_VERSION "0.1.0"

/* ------------------------------------------------------------------ */
/* Status and errors                                                   */
/* ------------------------------------------------------------------ */

typedef enum {
    DNP_OK = 0,
    DNP_ERR_INPUT = 2,   /* bad user input: unknown name, malformed spec, bad number */
    DNP_ERR_NOMEM = 3,   /* allocation failed */
    DNP_ERR_IO = 4,      /* file could not be read or written */
    DNP_ERR_INTERNAL = 5 /* a bug: an invariant did not hold */
} dnp_status;

/* The error record of every fallible call.  Pass a cleared one (zero-
 * initialised, or dnp_error_clear after a failure): a record that already
 * holds an error keeps it (dnp_error_set keeps the first), and calls that
 * check the record, such as the ONNX loader, then fail with it. */
typedef struct {
    dnp_status status;
    char msg[512];
} dnp_error;

/* Record an error (printf-style).  Keeps the first error if one is set. */
void dnp_error_set(dnp_error *err, dnp_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Clear an error record. */
void dnp_error_clear(dnp_error *err);

/* ------------------------------------------------------------------ */
/* Memory                                                               */
/* ------------------------------------------------------------------ */

/* The one allocator hook.  Every byte libdnnpar and the dnnpar CLI
 * allocate goes through it, including what jansson and protobuf-c allocate
 * on the library's behalf.  `alloc` returns NULL on failure; `resize` has
 * realloc's contract (on failure NULL, the old block untouched); `release`
 * takes NULL.  `ctx` is passed back to each call. */
typedef struct {
    void *(*alloc)(void *ctx, size_t size_bytes);
    void *(*resize)(void *ctx, void *ptr, size_t size_bytes);
    void (*release)(void *ctx, void *ptr);
    void *ctx;
} dnp_allocator;

/* Install `a` (copied); NULL restores malloc/realloc/free.  Not
 * thread-safe: call it while no other dnp_ call is running, and free every
 * block with the hook that allocated it.  O(1). */
void dnp_set_allocator(const dnp_allocator *a);

/* malloc/calloc/realloc/free/strdup through the hook.  A size of 0
 * allocates one byte, so NULL always means failure; dnp_calloc and
 * dnp_realloc_array check count x size for overflow (NULL).  Every block
 * the library hands to the caller to free - a text, an array - is freed
 * with dnp_free, never free(); an object (a graph, a plan, ...) with its own
 * dnp_X_free. */
void *dnp_malloc(size_t size_bytes);
void *dnp_calloc(size_t count, size_t size_bytes);
void *dnp_realloc(void *ptr, size_t size_bytes);
void *dnp_realloc_array(void *ptr, size_t count, size_t size_bytes);
void dnp_free(void *ptr);
char *dnp_strdup(const char *s);

/* ------------------------------------------------------------------ */
/* Output files (src/core/outfile.c)                                    */
/* ------------------------------------------------------------------ */

/* Every file dnnpar writes goes through one writer that behaves like a
 * Unix tool (docs/cli.md, "Output files").  What `path` is decides how:
 *   "-"                 standard output (flushed, never closed);
 *   missing, or a regular file
 *                       a new temporary file beside it, renamed over it by
 *                       dnp_output_close: readers never see a partial
 *                       file and a failure leaves the old file (or none).
 *                       A new file gets mode 0666 less the umask; a
 *                       replaced file keeps its permission bits (not its
 *                       owner, group or hard links);
 *   a symbolic link     followed: a regular target is replaced as above
 *                       (the link stays), any other target is written in
 *                       place; a dangling link creates its target;
 *   a device, FIFO or socket
 *                       opened and written in place, never replaced
 *                       (opening a FIFO waits for a reader);
 *   a directory         DNP_ERR_IO.
 * Errors are DNP_ERR_IO "cannot write 'PATH': REASON" ("error writing
 * standard output: REASON" for "-"), or DNP_ERR_NOMEM. */
typedef struct dnp_output dnp_output;

/* Open `path` (see above).  On success *out owns the output: end it with
 * dnp_output_close or dnp_output_abort.  O(length of path). */
dnp_status dnp_output_open(const char *path, dnp_output **out, dnp_error *err);
/* The stream to write to (borrowed; valid until close or abort).  Its
 * descriptor may be handed to a child process while nothing is buffered. */
FILE *dnp_output_stream(dnp_output *o);
/* Record that a write to the stream failed with errno `errnum` (0: EIO),
 * for writers that cannot return the error at once; close then fails. */
void dnp_output_fail(dnp_output *o, int errnum);
/* Flush and close (standard output: flush only), then put a temporary file
 * in place.  Any write, flush, close or rename failure - including one
 * recorded earlier or left on the stream's error flag - is reported and
 * the temporary file removed.  Frees o in every case (NULL: DNP_OK). */
dnp_status dnp_output_close(dnp_output *o, dnp_error *err);
/* Give up: a temporary file is removed (the target untouched); what was
 * written in place stays.  Frees o (NULL: no-op). */
void dnp_output_abort(dnp_output *o);
/* Write `len` bytes of `text` to `path` through one dnp_output.  O(len). */
dnp_status dnp_write_file(const char *path, const char *text, size_t len, dnp_error *err);

/* ------------------------------------------------------------------ */
/* Name suggestions                                                     */
/* ------------------------------------------------------------------ */

/* The candidate nearest to `word` for a "did you mean ...?" message, or
 * NULL when none is close.  Distance: optimal string alignment (Levenshtein
 * plus adjacent transpositions), case-insensitive; close means at most 1
 * edit for words of up to 3 characters, 2 up to 6, else 3, and less than
 * the word's length.  Ties go to the earlier candidate, so the answer is
 * deterministic.  NULL entries in `candidates` are skipped.  Returns a
 * pointer into `candidates` (not owned); allocates nothing for words and
 * candidates under 64 characters (longer ones count as not close).
 * O(n x len(word) x len(candidate)). */
const char *dnp_suggest(const char *word, const char *const *candidates, size_t n);
/* The edit distance dnp_suggest uses; -1 if either string is NULL or 64
 * characters or longer.  O(len(a) x len(b)). */
int dnp_edit_distance(const char *a, const char *b);

/* ------------------------------------------------------------------ */
/* Text formatting shared by the reports (src/core/fmt.c)               */
/* ------------------------------------------------------------------ */

/* A count with an SI prefix and 3 significant digits, the prefix after a
 * blank: "1.85 G", "235 M", "12 " (no prefix: a trailing blank).  Writes
 * at most n bytes to buf.  O(1). */
void dnp_fmt_si(double x, char *buf, size_t n);
/* A time in seconds as "1.234 s", "12.345 ms" or "56.700 us" (three
 * decimals in the largest unit below the value).  Writes at most n bytes.
 * O(1). */
void dnp_fmt_time(double time_s, char *buf, size_t n);
/* One unit for a column of times (docs/cli.md: a column of times has one
 * unit, named in its header): the one dnp_fmt_time picks for the column's
 * largest value max_s.  Returns "s", "ms" or "us" and sets *per_s to the
 * factor from seconds (1, 1e3, 1e6).  O(1). */
const char *dnp_time_unit(double max_s, double *per_s);
/* `text` broken at blanks into lines of at most max_cols columns, written
 * to f and ended with a newline: every report's prose (the CLI's notes,
 * PaSE's notes, the preset sources).  `col` is how many columns the current
 * line already holds (what was printed before the text); each continuation
 * line starts with `cont`.  Blanks between words are kept as written, except
 * at a break; a word longer than a line is not cut; a '\n' in the text
 * starts a new line at column 0.  UTF-8 continuation bytes take no column.
 * O(length). */
void dnp_fmt_wrap(FILE *f, int col, int max_cols, const char *cont, const char *text);

/* The monotonic wall clock in seconds (CLOCK_MONOTONIC): what
 * dnp_plan_options.time_limit_from_s and dnp_pase_run_options'
 * time_limit_from_s are readings of.  A command reads it once at its start
 * and gives every call that reading with its --time-limit, so one deadline
 * bounds the whole command.  O(1). */
double dnp_clock_s(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* DNNPAR_PUBLIC_CORE_H */
