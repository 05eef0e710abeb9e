/*
 * main.c - runs every registered unit test, or those named on the command line.
 *
 * Each test runs in its own forked child, DNNPAR_TEST_JOBS (default 2) at a
 * time, with its standard output and error captured to a temporary file and
 * printed, in registry order, when it ends; so a crash, an abort, a sanitizer
 * report (a leak included: the child's exit runs LeakSanitizer) or a hang in
 * one test fails that test alone, named with the signal or exit status, and
 * every other test still runs.  A test still running after
 * DNNPAR_TEST_TIMEOUT seconds (default 120; 0: none) is killed with its
 * process group.  DNNPAR_TEST_NOFORK=1 runs the tests one after the other in
 * this process, as before (for a debugger).  DNNPAR_TEST_TIMES=1 adds a line
 * "time NAME SECONDS" after each test.  DNNPAR_TEST_FULL_SWEEP=1 runs the
 * TEST_SWEEPs over every case (test.h, "Sweeps"); built with
 * -DTEST_SWEEP_FULL=1 -DTEST_SUITE_NAME='"sweeps"' (build/unit_sweeps, the
 * release twin) they always do, and the summary line starts "sweeps:".
 *
 * The output: what each test printed, "FAIL NAME (WHY)" for each failed test,
 * and last "unit: N passed, N failed" (tests/run.sh reads that line); the
 * exit status is 1 if any test failed.
 */
#include "test.h"

#include "dnnpar.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int test_failed_checks;

#define X(name) void test_##name(void);
#include "test_list.inc"
#undef X

static const struct {
    const char *name;
    void (*fn)(void);
} registry[] = {
#define X(name) {#name, test_##name},
#include "test_list.inc"
#undef X
};

const char *test_data_dir(void)
{
    const char *d = getenv("DNNPAR_DATA_DIR");
    return d && d[0] ? d : "data";
}

unsigned long long test_rand(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

double test_uniform(unsigned long long *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(test_rand(s) >> 11) / 9007199254740992.0;
}

#ifndef TEST_SUITE_NAME
#define TEST_SUITE_NAME "unit"
#endif

static int env_flag(const char *name);

int test_sweep_full(void)
{
#ifdef TEST_SWEEP_FULL
    return 1;
#else
    return env_flag("DNNPAR_TEST_FULL_SWEEP");
#endif
}

static const char *const sweep_zoo_subset[] = {
    "lenet", "alexnet", "vgg11", "resnet18", "gpt2-xl", "llama3-8b", "alexnet-2012", "dbn-m",
    "fractalnet", "pase-inception3",
};

int test_sweep_zoo(const char *name)
{
    if (test_sweep_full())
        return 1;
    for (size_t i = 0; i < sizeof sweep_zoo_subset / sizeof sweep_zoo_subset[0]; i++)
        if (strcmp(name, sweep_zoo_subset[i]) == 0)
            return 1;
    return 0;
}

int test_sweep_zoo_subset_size(void)
{
    return (int)(sizeof sweep_zoo_subset / sizeof sweep_zoo_subset[0]);
}

/* What a child reports back through memory shared with the runner: set just
 * before it exits, so a test that never returns leaves done 0. */
struct shared_result {
    int done;
    int failed_checks;
};

enum { T_SKIP, T_PENDING, T_RUNNING, T_DONE };

struct test_run {
    int state;
    pid_t pid;
    double start, seconds;
    int timed_out;
    FILE *out;    /* the child's standard output and error */
    char *text;   /* ... read back when it ends */
    size_t len;
    int passed;
    char why[160];
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long env_long(const char *name, long dflt, long lo)
{
    const char *s = getenv(name);
    if (s == NULL || s[0] == '\0')
        return dflt;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo) {
        fprintf(stderr, "unit: %s=%s is not a whole number >= %ld; using %ld\n", name, s, lo,
                dflt);
        return dflt;
    }
    return v;
}

static int env_flag(const char *name)
{
    const char *s = getenv(name);
    return s != NULL && s[0] != '\0' && strcmp(s, "0") != 0;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGABRT: return "SIGABRT";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    default: return "a signal";
    }
}

/* The old way: every test in this process, one after the other. */
static int run_in_process(const int *want, size_t n, int times)
{
    int passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (!want[i])
            continue;
        test_failed_checks = 0;
        double t0 = now_seconds();
        registry[i].fn();
        fflush(stdout);
        if (test_failed_checks == 0) {
            passed++;
        } else {
            failed++;
            printf("FAIL %s (%d checks)\n", registry[i].name, test_failed_checks);
        }
        if (times)
            printf("time %s %.3f\n", registry[i].name, now_seconds() - t0);
    }
    printf(TEST_SUITE_NAME ": %d passed, %d failed\n", passed, failed);
    return failed != 0;
}

/* In the child: run test i with its output going to fd, report through res. */
static void child_run(size_t i, int fd, struct shared_result *res, const sigset_t *oldmask)
{
    setpgid(0, 0); /* its own process group: a timeout kills what it started too */
    sigprocmask(SIG_SETMASK, oldmask, NULL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
        _exit(125);
    close(fd);
    /* line-buffered: a crash loses at most a partial line of the checks' output */
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_failed_checks = 0;
    registry[i].fn();
    fflush(stdout);
    res->failed_checks = test_failed_checks;
    res->done = 1;
    exit(0); /* runs LeakSanitizer's check on the test's allocations */
}

static void read_output(struct test_run *t)
{
    t->text = NULL;
    t->len = 0;
    if (t->out == NULL)
        return;
    if (fseek(t->out, 0, SEEK_END) == 0) {
        long sz = ftell(t->out);
        if (sz > 0 && fseek(t->out, 0, SEEK_SET) == 0) {
            t->text = dnp_malloc((size_t)sz);
            if (t->text != NULL)
                t->len = fread(t->text, 1, (size_t)sz, t->out);
        }
    }
    fclose(t->out);
    t->out = NULL;
}

static void judge(struct test_run *t, int status, const struct shared_result *res)
{
    t->passed = 0;
    if (t->timed_out) {
        snprintf(t->why, sizeof t->why, "timed out after %.0f s, killed", t->seconds);
    } else if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        snprintf(t->why, sizeof t->why, "killed by signal %d, %s%s", sig, signal_name(sig),
                 res->done ? ", after the test returned" : "");
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        snprintf(t->why, sizeof t->why, "exit status %d %s", WEXITSTATUS(status),
                 res->done ? "after the test returned: a leak or a sanitizer report at exit"
                           : "before the test returned: a sanitizer report or exit()");
    } else if (!res->done) {
        snprintf(t->why, sizeof t->why, "exited before the test returned");
    } else if (res->failed_checks != 0) {
        snprintf(t->why, sizeof t->why, "%d checks", res->failed_checks);
    } else {
        t->passed = 1;
    }
}

static struct test_run *runs;
static size_t n_runs;

static void kill_running(void)
{
    for (size_t i = 0; i < n_runs; i++)
        if (runs[i].state == T_RUNNING)
            kill(-runs[i].pid, SIGKILL);
}

static int run_forked(const int *want, size_t n, long jobs, long timeout, int times)
{
    runs = dnp_calloc(n, sizeof *runs);
    struct shared_result *shared = mmap(NULL, n * sizeof *shared, PROT_READ | PROT_WRITE,
                                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (runs == NULL || shared == MAP_FAILED) {
        fprintf(stderr, "unit: out of memory\n");
        return 2;
    }
    n_runs = n;
    memset(shared, 0, n * sizeof *shared);
    for (size_t i = 0; i < n; i++)
        runs[i].state = want[i] ? T_PENDING : T_SKIP;

    /* SIGCHLD (a child ended) and the signals that stop the run are taken
     * with sigtimedwait, never by a handler. */
    sigset_t waitset, oldmask;
    sigemptyset(&waitset);
    sigaddset(&waitset, SIGCHLD);
    sigaddset(&waitset, SIGINT);
    sigaddset(&waitset, SIGTERM);
    sigaddset(&waitset, SIGHUP);
    sigprocmask(SIG_BLOCK, &waitset, &oldmask);

    int passed = 0, failed = 0, running = 0;
    size_t next = 0, printed = 0;
    for (;;) {
        /* start tests, in registry order, up to jobs at a time */
        while (running < jobs && next < n) {
            if (runs[next].state != T_PENDING) {
                next++;
                continue;
            }
            struct test_run *t = &runs[next];
            t->out = tmpfile();
            if (t->out == NULL) {
                perror("unit: tmpfile");
                kill_running();
                return 2;
            }
            fflush(stdout);
            fflush(stderr);
            pid_t pid = fork();
            if (pid < 0) {
                perror("unit: fork");
                kill_running();
                return 2;
            }
            if (pid == 0)
                child_run(next, fileno(t->out), &shared[next], &oldmask);
            setpgid(pid, pid); /* also here: no race with a timeout's kill */
            t->pid = pid;
            t->state = T_RUNNING;
            t->start = now_seconds();
            running++;
            next++;
        }
        /* print, in registry order, every test that has ended */
        while (printed < n && (runs[printed].state == T_SKIP || runs[printed].state == T_DONE)) {
            struct test_run *t = &runs[printed];
            if (t->state == T_DONE) {
                if (t->len > 0)
                    fwrite(t->text, 1, t->len, stdout);
                if (t->len > 0 && t->text[t->len - 1] != '\n')
                    putchar('\n');
                dnp_free(t->text);
                t->text = NULL;
                if (t->passed) {
                    passed++;
                } else {
                    failed++;
                    printf("FAIL %s (%s)\n", registry[printed].name, t->why);
                }
                if (times)
                    printf("time %s %.3f\n", registry[printed].name, t->seconds);
                fflush(stdout);
            }
            printed++;
        }
        if (running == 0 && next >= n)
            break;

        /* reap what has ended; kill what has run out of time */
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            for (size_t i = 0; i < n; i++) {
                struct test_run *t = &runs[i];
                if (t->state != T_RUNNING || t->pid != pid)
                    continue;
                kill(-pid, SIGKILL); /* anything the test left running in its group */
                t->seconds = now_seconds() - t->start;
                read_output(t);
                judge(t, status, &shared[i]);
                t->state = T_DONE;
                running--;
                break;
            }
        }
        double tnow = now_seconds(), wait_s = 1.0;
        for (size_t i = 0; i < n; i++) {
            struct test_run *t = &runs[i];
            if (t->state != T_RUNNING || timeout <= 0 || t->timed_out)
                continue;
            double left = t->start + (double)timeout - tnow;
            if (left <= 0) {
                t->timed_out = 1;
                kill(-t->pid, SIGKILL);
            } else if (left < wait_s) {
                wait_s = left;
            }
        }
        if (running == 0)
            continue;
        struct timespec ts;
        ts.tv_sec = (time_t)wait_s;
        ts.tv_nsec = (long)((wait_s - (double)ts.tv_sec) * 1e9);
        int sig = sigtimedwait(&waitset, NULL, &ts);
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
            kill_running();
            fprintf(stderr, "unit: stopped by %s\n", signal_name(sig));
            sigprocmask(SIG_SETMASK, &oldmask, NULL);
            signal(sig, SIG_DFL);
            raise(sig);
            return 2;
        }
    }
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    munmap(shared, n * sizeof *shared);
    dnp_free(runs);
    runs = NULL;
    printf(TEST_SUITE_NAME ": %d passed, %d failed\n", passed, failed);
    return failed != 0;
}

int main(int argc, char **argv)
{
    size_t n = sizeof registry / sizeof registry[0];
    int *want = dnp_calloc(n, sizeof *want);
    if (want == NULL)
        return 2;
    int unknown = 0;
    for (size_t i = 0; i < n; i++)
        want[i] = argc <= 1;
    for (int a = 1; a < argc; a++) {
        int found = 0;
        for (size_t i = 0; i < n; i++)
            if (strcmp(argv[a], registry[i].name) == 0)
                want[i] = found = 1;
        if (!found) {
            printf(TEST_SUITE_NAME ": no test named '%s'\n", argv[a]);
            unknown++;
        }
    }
    int times = env_flag("DNNPAR_TEST_TIMES");
    int rc;
    if (env_flag("DNNPAR_TEST_NOFORK")) {
        rc = run_in_process(want, n, times);
    } else {
        long jobs = env_long("DNNPAR_TEST_JOBS", 2, 1);
        long timeout = env_long("DNNPAR_TEST_TIMEOUT", 120, 0);
        rc = run_forked(want, n, jobs, timeout, times);
    }
    dnp_free(want);
    return rc != 0 || unknown != 0 ? (rc == 2 ? 2 : 1) : 0;
}
