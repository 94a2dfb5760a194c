/* The worker processes of extract/contain.h. A worker is forked once and
 * parses file after file (a fork per file cost about 5 ms each in page
 * faults on libclang), so a file costs a process only when its parse kills
 * the worker. The parent sends a worker the index of a file, the worker
 * parses it (extract/extract.c: facts_extract, which also stores the facts
 * cache entry) and answers with one frame: a tag ('F' facts, 'E' error), an
 * 8-byte length and the facts as the cache's own text (facts/serialize.c) or
 * the error. The parent reads every answer pipe through poll(), so a worker
 * with megabytes of facts never blocks on a full pipe. */
#define _GNU_SOURCE
#include "extract/contain.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "extract/extract.h"
#include "util/xalloc.h"

typedef struct {
    pid_t pid;           /* 0: no worker in this slot */
    int to, from;        /* file indices to it, answers from it */
    bool busy;
    size_t index;        /* the file it parses, when busy */
    double deadline;     /* monotonic seconds */
    unsigned budget;     /* its seconds: limits.file-seconds per unit parsed
                            (a header of several programs: one per program) */
    char *buf;           /* the answer so far */
    size_t len, cap;
} worker;

#define FRAME_HEADER 9   /* tag + 64-bit length */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static bool read_all(int fd, void *data, size_t n)
{
    char *p = data;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

/* Deeply nested code recurses deeply in clang's parser and in our AST walk:
 * the parse runs on a thread with this much stack (address space reserved,
 * only what is used is memory), and libclang is told to use the calling
 * thread rather than its own 8 MiB one (LIBCLANG_NOTHREADS). What overflows
 * even this is still contained: the child dies, the parent reports it. */
#define PARSE_STACK_BYTES ((size_t)1 << 30)

/* GPULINT_PARSE_STACK_MB overrides it (tests make a parse overflow with a
 * small one, to see the crash contained). */
static size_t parse_stack_bytes(void)
{
    const char *mb = getenv("GPULINT_PARSE_STACK_MB");
    char *end;
    unsigned long v = mb && *mb ? strtoul(mb, &end, 10) : 0;
    return v > 0 && v <= 65536 && !*end ? (size_t)v << 20 : PARSE_STACK_BYTES;
}

typedef struct {
    const snapshot *snap;
    const gl_config *cfg;
    int to, from;
} worker_job;

static bool answer(int fd, char tag, const char *text)
{
    uint64_t n = text ? strlen(text) : 0;
    char header[FRAME_HEADER];
    header[0] = tag;
    memcpy(header + 1, &n, sizeof n);
    return write_all(fd, header, sizeof header) && write_all(fd, text ? text : "", n);
}

/* File after file until the parent closes the pipe. */
static void *worker_loop(void *arg)
{
    worker_job *job = arg;
    uint64_t index;
    while (read_all(job->to, &index, sizeof index)) {
        file_facts *facts = facts_extract(job->snap, (size_t)index, job->cfg);
        char *text = facts_save(facts);
        bool sent = answer(job->from, 'F', text);
        free(text);
        facts_free(facts);
        if (!sent)
            break;
    }
    return NULL;
}

static _Noreturn void worker_main(const snapshot *snap, const gl_config *cfg, int to, int from)
{
    /* A crash is reported by the parent; a core file of libclang is not
     * what the user asked for. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(SIGPIPE, SIG_DFL);
    setenv("LIBCLANG_NOTHREADS", "1", 1);
    worker_job job = {snap, cfg, to, from};
    pthread_attr_t attr;
    pthread_t thread;
    pthread_attr_init(&attr);
    if (pthread_attr_setstacksize(&attr, parse_stack_bytes()) == 0 &&
        pthread_create(&thread, &attr, worker_loop, &job) == 0)
        pthread_join(thread, NULL);
    else
        worker_loop(&job);   /* no room for the big stack: the usual one */
    _exit(0);
}

static bool start_worker(worker *workers, int nworkers, int slot, const snapshot *snap,
                         const gl_config *cfg, char **error)
{
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) != 0) {
        *error = xasprintf("cannot make a pipe: %s", strerror(errno));
        return false;
    }
    if (pipe2(from, O_CLOEXEC) != 0) {
        *error = xasprintf("cannot make a pipe: %s", strerror(errno));
        close(to[0]);
        close(to[1]);
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        *error = xasprintf("cannot start a process: %s", strerror(errno));
        close(to[0]);
        close(to[1]);
        close(from[0]);
        close(from[1]);
        return false;
    }
    if (pid == 0) {
        /* The other workers' pipe ends too: a worker must see EOF when the
         * parent closes its pipe, not wait on a copy held here. */
        for (int k = 0; k < nworkers; k++)
            if (workers[k].pid) {
                close(workers[k].to);
                close(workers[k].from);
            }
        close(to[1]);
        close(from[0]);
        worker_main(snap, cfg, to[0], from[1]);
    }
    close(to[0]);
    close(from[1]);
    workers[slot] = (worker){.pid = pid, .to = to[1], .from = from[0]};
    return true;
}

/* Reap a worker that is gone (or made to go) and free its slot; its status. */
static int end_worker(worker *w)
{
    close(w->to);
    close(w->from);
    int status = 0;
    while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
        ;
    free(w->buf);
    *w = (worker){0};
    return status;
}

/* The facts of a busy worker's file when the worker ended without them. */
static file_facts *death_facts(int status, bool timed_out, unsigned budget)
{
    if (timed_out)
        return facts_not_checked(UNCHECKED_BUDGET, xasprintf("%u", budget));
    if (WIFSIGNALED(status))
        return facts_not_checked(UNCHECKED_CRASH, xasprintf("signal %d, %s", WTERMSIG(status),
                                                            strsignal(WTERMSIG(status))));
    return facts_not_checked(UNCHECKED_CRASH,
                             xasprintf("its worker ended without a result, exit status %d",
                                       WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

/* Read what the worker has written; true once its answer is complete (then
 * facts[index] is set and the worker is idle again). */
static bool read_answer(worker *w, file_facts **facts, bool *gone)
{
    if (w->cap - w->len < 65536) {
        w->cap = w->cap ? 2 * w->cap : 131072;
        w->buf = xrealloc(w->buf, w->cap);
    }
    ssize_t n = read(w->from, w->buf + w->len, w->cap - w->len - 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return false;
    if (n <= 0) {
        *gone = true;
        return false;
    }
    w->len += (size_t)n;
    if (w->len < FRAME_HEADER)
        return false;
    uint64_t size;
    memcpy(&size, w->buf + 1, sizeof size);
    if (w->len - FRAME_HEADER < size)
        return false;
    char *text = w->buf + FRAME_HEADER;
    text[size] = '\0';
    char *load_error = NULL;
    facts[w->index] = facts_load(text, &load_error);
    if (!facts[w->index])
        facts[w->index] = facts_not_checked(
            UNCHECKED_CRASH, xasprintf("its facts did not survive the trip from its worker: %s",
                                       load_error));
    free(load_error);
    w->busy = false;
    w->len = 0;
    return true;
}

void facts_extract_all(const snapshot *snap, const gl_config *cfg, const bool *wanted, int jobs,
                       progress *progress, file_facts **facts)
{
    unsigned budget = cfg && cfg->limits.file_seconds ? cfg->limits.file_seconds
                                                       : GL_DEFAULT_FILE_SECONDS;
    if (jobs < 1)
        jobs = 1;
    /* A worker that dies leaves its pipe without a reader: a write to it
     * must fail (EPIPE), not end gpulint. */
    void (*old_sigpipe)(int) = signal(SIGPIPE, SIG_IGN);
    worker *workers = xcalloc((size_t)jobs, sizeof *workers);
    struct pollfd *fds = xcalloc((size_t)jobs, sizeof *fds);
    size_t next = 0;
    for (;;) {
        /* Hand out files; cached ones need no parse and no worker. */
        for (int k = 0; k < jobs && next < snap->nfiles; k++) {
            if (workers[k].busy)
                continue;
            while (next < snap->nfiles &&
                   ((wanted && !wanted[next]) || snap->files[next].not_checked ||
                    (facts[next] = facts_extract_cached(snap, next, cfg)))) {
                if ((!wanted || wanted[next]) && snap->files[next].not_checked)
                    facts[next] = facts_not_checked(UNCHECKED_INPUT,
                                                    xstrdup(snap->files[next].not_checked));
                next++;
                progress_step(progress);
            }
            if (next >= snap->nfiles)
                break;
            char *error = NULL;
            if (!workers[k].pid && !start_worker(workers, jobs, k, snap, cfg, &error)) {
                bool others = false;
                for (int o = 0; o < jobs; o++)
                    others |= workers[o].pid != 0;
                if (!others) {
                    facts[next] = facts_not_checked(UNCHECKED_NO_TU, xstrdup(error));
                    next++;
                    progress_step(progress);
                }
                free(error);
                continue;   /* with others alive: this file waits for one of them */
            }
            uint64_t index = next;
            if (!write_all(workers[k].to, &index, sizeof index)) {
                end_worker(&workers[k]);   /* died idle: the next round starts another */
                continue;
            }
            workers[k].busy = true;
            workers[k].index = next++;
            workers[k].budget = budget * (unsigned)(1 + snap->files[next - 1].nother_contexts);
            workers[k].deadline = now_seconds() + (double)workers[k].budget;
        }
        double t = now_seconds(), wait_s = 3600;
        int nfds = 0;
        for (int k = 0; k < jobs; k++) {
            if (!workers[k].busy)
                continue;
            if (workers[k].deadline - t < wait_s)
                wait_s = workers[k].deadline - t;
            fds[nfds++] = (struct pollfd){.fd = workers[k].from, .events = POLLIN};
        }
        if (nfds == 0 && next >= snap->nfiles)
            break;
        int timeout_ms = wait_s <= 0 ? 0 : (int)(wait_s * 1000) + 1;
        if (poll(fds, (nfds_t)nfds, timeout_ms) < 0 && errno != EINTR)
            break;   /* cannot happen with valid descriptors; the rest below */
        t = now_seconds();
        for (int k = 0, f = 0; k < jobs; k++) {
            worker *w = &workers[k];
            if (!w->busy)
                continue;
            bool gone = false, done = false;
            if (fds[f++].revents)
                done = read_answer(w, facts, &gone);
            if (done) {
                progress_step(progress);
                continue;
            }
            bool timed_out = !gone && t >= w->deadline;
            if (!gone && !timed_out)
                continue;
            if (timed_out)
                kill(w->pid, SIGKILL);
            size_t index = w->index;
            unsigned file_budget = w->budget;
            int status = end_worker(w);
            facts[index] = death_facts(status, timed_out, file_budget);
            progress_step(progress);
        }
    }
    /* A closed pipe is the end of the work: every worker exits. */
    for (int k = 0; k < jobs; k++)
        if (workers[k].pid)
            end_worker(&workers[k]);
    free(workers);
    free(fds);
    signal(SIGPIPE, old_sigpipe);
}
