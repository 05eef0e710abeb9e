/* test_outfile.c - the one output writer (src/core/outfile.c): atomic
 * replacement of regular files only, devices, FIFOs and symlinks written
 * in place, the umask honoured, write failures reported with no partial
 * file left behind. */
#include "dnnpar.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Entries of directory d besides . and .. (-1 if it cannot be read). */
static int entries(const char *d)
{
    DIR *dir = opendir(d);
    int n = 0;
    if (dir == NULL)
        return -1;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(dir);
    return n;
}

/* The first bytes of a file, NUL-terminated ("" if it cannot be read). */
static void slurp(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = '\0';
    fclose(f);
}

static unsigned mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0u;
}

/* Remove the scratch directory's files and the directory. */
static void cleanup(const char *dir, const char *const *names, int n)
{
    char p[300];
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

TEST(outfile_new_file_honours_umask)
{
    char dir[] = "/tmp/dnnpar-out-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char a[300], b[300], buf[64];
    snprintf(a, sizeof a, "%s/a.txt", dir);
    snprintf(b, sizeof b, "%s/b.txt", dir);
    dnp_error err = {0};
    mode_t old = umask(022);
    CHECK_EQ_INT(dnp_write_file(a, "hello\n", 6, &err), DNP_OK);
    umask(077);
    CHECK_EQ_INT(dnp_write_file(b, "world\n", 6, &err), DNP_OK);
    umask(old);
    CHECK_EQ_INT(mode_of(a), 0644);
    CHECK_EQ_INT(mode_of(b), 0600);
    slurp(a, buf, sizeof buf);
    CHECK_STR(buf, "hello\n");
    slurp(b, buf, sizeof buf);
    CHECK_STR(buf, "world\n");
    CHECK_EQ_INT(entries(dir), 2); /* no temporary file left */
    static const char *const names[] = {"a.txt", "b.txt"};
    cleanup(dir, names, 2);
}

TEST(outfile_replace_keeps_mode)
{
    char dir[] = "/tmp/dnnpar-out-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char a[300], buf[64];
    snprintf(a, sizeof a, "%s/a.txt", dir);
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_write_file(a, "first\n", 6, &err), DNP_OK);
    CHECK(chmod(a, 0640) == 0);
    struct stat before, after;
    CHECK(stat(a, &before) == 0);
    CHECK_EQ_INT(dnp_write_file(a, "second\n", 7, &err), DNP_OK);
    CHECK(stat(a, &after) == 0);
    CHECK_EQ_INT(after.st_mode & 07777, 0640);
    CHECK(before.st_ino != after.st_ino); /* replaced by rename, not rewritten */
    slurp(a, buf, sizeof buf);
    CHECK_STR(buf, "second\n");
    CHECK_EQ_INT(entries(dir), 1);
    static const char *const names[] = {"a.txt"};
    cleanup(dir, names, 1);
}

TEST(outfile_symlink_updates_target)
{
    char dir[] = "/tmp/dnnpar-out-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char target[300], link[300], dangling[300], created[300], buf[64];
    snprintf(target, sizeof target, "%s/target.txt", dir);
    snprintf(link, sizeof link, "%s/link.txt", dir);
    snprintf(dangling, sizeof dangling, "%s/dangling.txt", dir);
    snprintf(created, sizeof created, "%s/created.txt", dir);
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_write_file(target, "old\n", 4, &err), DNP_OK);
    CHECK(chmod(target, 0604) == 0);
    CHECK(symlink("target.txt", link) == 0);
    CHECK_EQ_INT(dnp_write_file(link, "new\n", 4, &err), DNP_OK);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode)); /* the link stays a link */
    slurp(target, buf, sizeof buf);
    CHECK_STR(buf, "new\n");
    CHECK_EQ_INT(mode_of(target), 0604);
    /* A dangling link creates its target. */
    CHECK(symlink("created.txt", dangling) == 0);
    CHECK_EQ_INT(dnp_write_file(dangling, "made\n", 5, &err), DNP_OK);
    CHECK(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode));
    slurp(created, buf, sizeof buf);
    CHECK_STR(buf, "made\n");
    CHECK_EQ_INT(entries(dir), 4);
    static const char *const names[] = {"target.txt", "link.txt", "dangling.txt", "created.txt"};
    cleanup(dir, names, 4);
}

TEST(outfile_devices_written_in_place)
{
    struct stat before, after;
    dnp_error err = {0};
    CHECK(stat("/dev/null", &before) == 0);
    CHECK_EQ_INT(dnp_write_file("/dev/null", "x\n", 2, &err), DNP_OK);
    CHECK(lstat("/dev/null", &after) == 0);
    CHECK(S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev);
    if (stat("/dev/full", &before) == 0) {
        /* /dev/full accepts the open and fails every write with ENOSPC */
        CHECK_EQ_INT(dnp_write_file("/dev/full", "x\n", 2, &err), DNP_ERR_IO);
        char want[128];
        snprintf(want, sizeof want, "cannot write '/dev/full': %s", strerror(ENOSPC));
        CHECK_STR(err.msg, want);
        CHECK(lstat("/dev/full", &after) == 0 && S_ISCHR(after.st_mode));
    }
}

TEST(outfile_fifo_written_in_place)
{
    char dir[] = "/tmp/dnnpar-out-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    /* a reader first, so the writer's open does not wait */
    int rd = open(fifo, O_RDONLY | O_NONBLOCK);
    CHECK(rd >= 0);
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_write_file(fifo, "through the pipe\n", 17, &err), DNP_OK);
    char buf[64] = {0};
    ssize_t n = rd >= 0 ? read(rd, buf, sizeof buf - 1) : -1;
    CHECK_EQ_INT(n, 17);
    CHECK_STR(buf, "through the pipe\n");
    if (rd >= 0)
        close(rd);
    struct stat st;
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK_EQ_INT(entries(dir), 1);
    static const char *const names[] = {"pipe"};
    cleanup(dir, names, 1);
}

TEST(outfile_failures_leave_no_partial_file)
{
    char dir[] = "/tmp/dnnpar-out-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char a[300], bad[300], buf[64];
    snprintf(a, sizeof a, "%s/a.txt", dir);
    dnp_error err = {0};
    CHECK_EQ_INT(dnp_write_file(a, "keep\n", 5, &err), DNP_OK);
    /* A failed write: the old content stays, the temporary file goes. */
    dnp_output *o = NULL;
    CHECK_EQ_INT(dnp_output_open(a, &o, &err), DNP_OK);
    if (o != NULL) {
        fputs("partial", dnp_output_stream(o));
        dnp_output_fail(o, ENOSPC);
        CHECK_EQ_INT(dnp_output_close(o, &err), DNP_ERR_IO);
        char want[400];
        snprintf(want, sizeof want, "cannot write '%s': %s", a, strerror(ENOSPC));
        CHECK_STR(err.msg, want);
    }
    slurp(a, buf, sizeof buf);
    CHECK_STR(buf, "keep\n");
    CHECK_EQ_INT(entries(dir), 1);
    /* Abort: the same. */
    o = NULL;
    CHECK_EQ_INT(dnp_output_open(a, &o, &err), DNP_OK);
    if (o != NULL)
        fputs("partial", dnp_output_stream(o));
    dnp_output_abort(o);
    slurp(a, buf, sizeof buf);
    CHECK_STR(buf, "keep\n");
    CHECK_EQ_INT(entries(dir), 1);
    /* A missing directory and a directory: errors naming the path. */
    snprintf(bad, sizeof bad, "%s/missing/out.txt", dir);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_write_file(bad, "x", 1, &err), DNP_ERR_IO);
    char want[400];
    snprintf(want, sizeof want, "cannot write '%s': %s", bad, strerror(ENOENT));
    CHECK_STR(err.msg, want);
    dnp_error_clear(&err);
    CHECK_EQ_INT(dnp_write_file(dir, "x", 1, &err), DNP_ERR_IO);
    snprintf(want, sizeof want, "cannot write '%s': %s", dir, strerror(EISDIR));
    CHECK_STR(err.msg, want);
    CHECK_EQ_INT(entries(dir), 1);
    static const char *const names[] = {"a.txt"};
    cleanup(dir, names, 1);
}
