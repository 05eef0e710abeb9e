/* outfile.c - the one writer of output files: atomic replacement of
 * regular files, in-place writes to devices, FIFOs and through symbolic
 * links, the umask honoured, every write, flush, close and rename checked
 * (contract and cases in dnnpar.h, "Output files"; docs/cli.md). */
#include "dnnpar/core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct dnp_output {
    FILE *f;
    int is_stdout;
    int err_no;   /* first failure recorded by dnp_output_fail, else 0 */
    char *path;   /* as the caller gave it, for messages */
    char *target; /* atomic: the file renamed over; NULL when in place */
    char *tmp;    /* atomic: the temporary file; NULL when in place */
};

static void set_io_error(dnp_error *err, const char *path, int errnum)
{
    if (strcmp(path, "-") == 0)
        dnp_error_set(err, DNP_ERR_IO, "error writing standard output: %s", strerror(errnum));
    else
        dnp_error_set(err, DNP_ERR_IO, "cannot write '%s': %s", path, strerror(errnum));
}

static void output_free(dnp_output *o)
{
    dnp_free(o->path);
    dnp_free(o->target);
    dnp_free(o->tmp);
    dnp_free(o);
}

/* Create a new file beside `target` (name: target + ".tmp" + pid + a
 * random suffix; O_EXCL, mode 0666 less the umask), store its name in
 * o->tmp and return its descriptor, or -1 with errno set. */
static int create_temp(dnp_output *o, const char *target)
{
    size_t n = strlen(target) + 48;
    char *name = dnp_malloc(n);
    if (name == NULL) {
        errno = ENOMEM;
        return -1;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long seed = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32);
    for (int attempt = 0; attempt < 100; attempt++) {
        /* a 64-bit LCG (Knuth's MMIX constants) only spreads the names */
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        snprintf(name, n, "%s.tmp%ld.%06llx", target, (long)getpid(), (seed >> 40) & 0xFFFFFFULL);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            o->tmp = name;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int saved = errno;
    dnp_free(name);
    errno = saved;
    return -1;
}

/* Decide how to write `path` and open the descriptor; -1 with errno set. */
static int open_fd(dnp_output *o, const char *path)
{
    struct stat st;
    int atomic = 0, keep_mode = 0;
    mode_t mode = 0;
    char resolved[PATH_MAX];
    const char *target = path;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return -1;
        atomic = 1; /* a new file */
    } else if (S_ISREG(st.st_mode)) {
        atomic = keep_mode = 1;
        mode = st.st_mode;
    } else if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    } else if (S_ISLNK(st.st_mode)) {
        struct stat ts;
        if (stat(path, &ts) == 0 && S_ISREG(ts.st_mode) && realpath(path, resolved) != NULL) {
            atomic = keep_mode = 1;
            mode = ts.st_mode;
            target = resolved;
        }
    }
    if (!atomic)
        return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666);
    if ((o->target = dnp_strdup(target)) == NULL) {
        errno = ENOMEM;
        return -1;
    }
    int fd = create_temp(o, target);
    if (fd >= 0 && keep_mode && fchmod(fd, mode & 0777) != 0) {
        int saved = errno;
        close(fd);
        unlink(o->tmp);
        errno = saved;
        return -1;
    }
    return fd;
}

dnp_status dnp_output_open(const char *path, dnp_output **out, dnp_error *err)
{
    dnp_output *o = dnp_calloc(1, sizeof *o);
    if (o == NULL || (o->path = dnp_strdup(path)) == NULL) {
        dnp_free(o);
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory opening '%s'", path);
        return DNP_ERR_NOMEM;
    }
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        o->is_stdout = 1;
        *out = o;
        return DNP_OK;
    }
    int fd = open_fd(o, path);
    if (fd >= 0 && (o->f = fdopen(fd, "w")) == NULL) {
        int saved = errno;
        close(fd);
        fd = -1;
        errno = saved;
    }
    if (fd < 0) {
        int saved = errno;
        if (o->tmp != NULL)
            unlink(o->tmp);
        output_free(o);
        if (saved == ENOMEM) {
            dnp_error_set(err, DNP_ERR_NOMEM, "out of memory opening '%s'", path);
            return DNP_ERR_NOMEM;
        }
        set_io_error(err, path, saved);
        return DNP_ERR_IO;
    }
    *out = o;
    return DNP_OK;
}

FILE *dnp_output_stream(dnp_output *o)
{
    return o->f;
}

void dnp_output_fail(dnp_output *o, int errnum)
{
    if (o->err_no == 0)
        o->err_no = errnum != 0 ? errnum : EIO;
}

dnp_status dnp_output_close(dnp_output *o, dnp_error *err)
{
    if (o == NULL)
        return DNP_OK;
    int e = o->err_no;
    errno = 0;
    if (fflush(o->f) != 0 && e == 0)
        e = errno != 0 ? errno : EIO;
    if (ferror(o->f) && e == 0)
        e = EIO; /* an earlier write failed and its errno is gone */
    if (!o->is_stdout) {
        if (fclose(o->f) != 0 && e == 0)
            e = errno;
        if (e == 0 && o->tmp != NULL && rename(o->tmp, o->target) != 0)
            e = errno;
        if (e != 0 && o->tmp != NULL)
            unlink(o->tmp);
    }
    if (e != 0)
        set_io_error(err, o->path, e);
    output_free(o);
    return e != 0 ? DNP_ERR_IO : DNP_OK;
}

void dnp_output_abort(dnp_output *o)
{
    if (o == NULL)
        return;
    if (o->is_stdout) {
        fflush(stdout);
    } else {
        fclose(o->f);
        if (o->tmp != NULL)
            unlink(o->tmp);
    }
    output_free(o);
}

dnp_status dnp_write_file(const char *path, const char *text, size_t len, dnp_error *err)
{
    dnp_output *o = NULL;
    dnp_status st = dnp_output_open(path, &o, err);
    if (st != DNP_OK)
        return st;
    errno = 0;
    if (len > 0 && fwrite(text, 1, len, o->f) != len)
        dnp_output_fail(o, errno);
    return dnp_output_close(o, err);
}
