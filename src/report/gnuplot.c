/* gnuplot.c - run gnuplot on a generated script and put its picture in
 * place.
 *
 * gnuplot is a child process (posix_spawnp, found on PATH, started with
 * -d so no user init file changes the picture).  Its standard input is
 * the script, in an anonymous temporary file; its standard output is the
 * target's dnp_output (dnnpar.h, "Output files": a temporary file beside a
 * regular target, renamed over it once gnuplot has exited with status 0;
 * a FIFO or device written in place); its standard error goes to another
 * anonymous file whose first line becomes the error message.  Files
 * rather than pipes, so neither side can block on a full pipe. */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int report_plot_format(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n > 4 && strcasecmp(path + n - 4, ".png") == 0)
        return DNP_PLOT_PNG;
    if (n > 4 && strcasecmp(path + n - 4, ".svg") == 0)
        return DNP_PLOT_SVG;
    return -1;
}

/* The terminal lines for a picture of w x h pixels in format fmt. */
static void terminal_lines(rbuf *b, int fmt, int w, int h)
{
    if (fmt == DNP_PLOT_SVG) {
        rbuf_printf(b,
                    "set terminal svg noenhanced size %d,%d font 'sans,10' "
                    "background rgb 'white'\n",
                    w, h);
    } else {
        rbuf_printf(b,
                    "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                    "    set terminal pngcairo noenhanced size %d,%d font 'sans,9'\n"
                    "} else {\n"
                    "    set terminal png noenhanced size %d,%d\n"
                    "}\n",
                    w, h, w, h);
    }
    rbuf_puts(b, "set output\n");
}

/* An anonymous temporary file not inherited by gnuplot except as dup2'd. */
static FILE *anon_file(void)
{
    FILE *f = tmpfile();
    if (f != NULL)
        fcntl(fileno(f), F_SETFD, FD_CLOEXEC);
    return f;
}

/* The first non-blank line of f, trimmed, into buf. */
static void first_line(FILE *f, char *buf, size_t n)
{
    buf[0] = '\0';
    if (f == NULL || fseek(f, 0, SEEK_SET) != 0)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t len = strlen(s);
        while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' '))
            s[--len] = '\0';
        if (len > 0) {
            if (len >= n)
                len = n - 1;
            memcpy(buf, s, len);
            buf[len] = '\0';
            return;
        }
    }
}

/* Start argv[0] (found on PATH) with the given standard streams and wait
 * for it.  Returns 0 on exit status 0, else an errno-style code (ENOENT:
 * not found, also for exit status 127) or -1 for another non-zero exit. */
static int run_child(char *const argv[], int in_fd, int out_fd, int err_fd)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return ENOMEM;
    int rc = posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
    pid_t pid = 0;
    if (rc == 0)
        rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return rc;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return errno;
    }
    /* Where posix_spawnp cannot report a failed exec to the parent (it runs
     * as a plain fork under valgrind, for one), the child exits 127, the
     * shell's "command not found". */
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return ENOENT;
    return (WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : -1;
}

dnp_status report_render_child(const char *path, char *const argv[], const char *input,
                               const char *what, const char *package, dnp_status missing,
                               dnp_error *err)
{
    dnp_status st = DNP_ERR_IO;
    FILE *in = NULL, *errs = NULL;
    dnp_output *out = NULL;
    in = anon_file();
    errs = anon_file();
    if (in == NULL || errs == NULL || fputs(input, in) < 0 || fflush(in) != 0 ||
        fseek(in, 0, SEEK_SET) != 0) {
        dnp_error_set(err, DNP_ERR_IO, "cannot create a temporary file for %s: %s", argv[0],
                      strerror(errno));
        goto done;
    }
    if ((st = dnp_output_open(path, &out, err)) != DNP_OK)
        goto done;
    st = DNP_ERR_IO;
    /* nothing is buffered in the stream: the child writes its descriptor */
    int out_fd = fileno(dnp_output_stream(out));
    int rc = run_child(argv, fileno(in), out_fd, fileno(errs));
    if (rc == ENOENT) {
        st = missing;
        dnp_error_set(err, st, "cannot %s '%s': %s not found on PATH (Debian package %s)", what,
                      path, argv[0], package);
        goto done;
    }
    if (rc != 0) {
        char line[300];
        first_line(errs, line, sizeof line);
        if (rc > 0)
            dnp_error_set(err, DNP_ERR_IO, "cannot %s '%s': cannot run %s: %s", what, path,
                          argv[0], strerror(rc));
        else
            dnp_error_set(err, DNP_ERR_IO, "cannot %s '%s': %s failed: %s", what, path, argv[0],
                          line[0] ? line : "no message");
        goto done;
    }
    struct stat sb; /* a regular file must have received the picture */
    if (fstat(out_fd, &sb) != 0 || (S_ISREG(sb.st_mode) && sb.st_size == 0)) {
        dnp_error_set(err, DNP_ERR_IO, "cannot %s '%s': %s wrote nothing", what, path, argv[0]);
        goto done;
    }
    dnp_output *o = out;
    out = NULL;
    st = dnp_output_close(o, err);
done:
    dnp_output_abort(out);
    if (in != NULL)
        fclose(in);
    if (errs != NULL)
        fclose(errs);
    return st;
}

dnp_status report_gnuplot_render(const char *path, const char *script, int width_px, int height_px,
                                 dnp_error *err)
{
    int fmt = report_plot_format(path);
    if (fmt < 0) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "cannot plot to '%s': the file name must end in .png or .svg",
                      path ? path : "");
        return DNP_ERR_INPUT;
    }
    rbuf b;
    rbuf_init(&b);
    terminal_lines(&b, fmt, width_px, height_px);
    rbuf_puts(&b, script);
    char *text = rbuf_take(&b);
    if (text == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the plot script");
        return DNP_ERR_NOMEM;
    }
    char *argv[] = {"gnuplot", "-d", NULL};
    dnp_status st =
        report_render_child(path, argv, text, "plot to", "gnuplot-nox", DNP_ERR_IO, err);
    dnp_free(text);
    return st;
}
