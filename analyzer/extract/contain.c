/* The worker processes of extract/contain.h. A worker is forked once and
 * parses job after job (a fork per file cost about 5 ms each in page
 * faults on libclang), so a file costs a process only when its parse kills
 * the worker. A job is the files of one translation unit (a source file and
 * the headers analysed in it: extract/extract.h, facts_extract_group), so
 * the unit is parsed once for all of them, not once per header (a header
 * used to cost a full parse of its includer: 40 % of a cold run here). The
 * parent sends a worker a count and the files' indices; the worker parses
 * (which also stores the facts cache entries) and answers one frame per
 * file, in order, as each is done: a tag ('F'), an 8-byte length and the
 * facts as the cache's own text (facts/serialize.c). The parent reads every
 * answer pipe through poll(), so a worker with megabytes of facts never
 * blocks on a full pipe. */
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
#include "extract/libclang_api.h"
#include "util/xalloc.h"

typedef struct {
    pid_t pid;           /* 0: no worker in this slot */
    int to, from;        /* file indices to it, answers from it */
    bool busy;
    bool used;           /* it was given a job */
    size_t *files;       /* the job's files, when busy */
    size_t nfiles, ndone;   /* answered so far: files[0..ndone) */
    double deadline;     /* monotonic seconds, for the file being parsed */
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

typedef struct {
    int from;
    bool sent;           /* every answer so far went out */
} answer_pipe;

static void send_facts(size_t file, file_facts *facts, void *arg)
{
    (void)file;
    answer_pipe *out = arg;
    char *text = facts_save(facts);
    out->sent = out->sent && answer(out->from, 'F', text);
    free(text);
    facts_free(facts);
}

/* Job after job until the parent closes the pipe. */
static void *worker_loop(void *arg)
{
    worker_job *job = arg;
    uint64_t n;
    while (read_all(job->to, &n, sizeof n) && n > 0 && n <= job->snap->nfiles) {
        size_t *files = xcalloc((size_t)n, sizeof *files);
        bool whole = true;
        for (uint64_t k = 0; whole && k < n; k++) {
            uint64_t index;
            whole = read_all(job->to, &index, sizeof index) && index < job->snap->nfiles;
            files[k] = (size_t)index;
        }
        answer_pipe out = {.from = job->from, .sent = true};
        if (whole)
            facts_extract_group(job->snap, files, (size_t)n, job->cfg, send_facts, &out);
        free(files);
        if (!whole || !out.sent)
            break;
    }
    return NULL;
}

static _Noreturn void worker_main(const snapshot *snap, const gl_config *cfg, int to, int from,
                                  bool load_now)
{
    /* A crash is reported by the parent; a core file of libclang is not
     * what the user asked for. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(SIGPIPE, SIG_DFL);
    setenv("LIBCLANG_NOTHREADS", "1", 1);
    /* A worker started before its first job (parse_expected) loads
     * libclang while it waits; the others when they first parse, so that
     * one that cannot load it fails a job (not checked, said why) rather
     * than dying idle, to be started again and again. */
    if (load_now)
        libclang_require();
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
                         const gl_config *cfg, bool load_now, char **error)
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
        worker_main(snap, cfg, to[0], from[1], load_now);
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
    free(w->files);
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

/* A file's seconds: limits.file-seconds per unit that may be parsed for
 * it (a header of several programs is parsed in one unit of each, and in
 * its fallbacks when a unit stops before it: extract.c). */
static unsigned file_budget(const snapshot *snap, size_t index, unsigned budget)
{
    const source_file *f = &snap->files[index];
    return budget * (unsigned)(1 + f->nother_contexts + f->nfallbacks);
}

/* Read what the worker has written and take every whole frame in it; true
 * once the job is answered in full (then the worker is idle again). */
static bool read_answer(worker *w, const snapshot *snap, file_facts **facts, unsigned budget,
                        bool *gone)
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
    size_t used = 0;
    while (w->ndone < w->nfiles && w->len - used >= FRAME_HEADER) {
        uint64_t size;
        memcpy(&size, w->buf + used + 1, sizeof size);
        if (w->len - used - FRAME_HEADER < size)
            break;
        char *text = w->buf + used + FRAME_HEADER;
        char after = text[size];
        text[size] = '\0';
        char *load_error = NULL;
        size_t index = w->files[w->ndone++];
        facts[index] = facts_load(text, &load_error);
        if (!facts[index])
            facts[index] = facts_not_checked(
                UNCHECKED_CRASH, xasprintf("its facts did not survive the trip from its worker: %s",
                                           load_error));
        free(load_error);
        text[size] = after;
        used += FRAME_HEADER + (size_t)size;
        /* The budget is each file's: the next one starts now. */
        if (w->ndone < w->nfiles)
            w->deadline = now_seconds() + (double)file_budget(snap, w->files[w->ndone], budget);
    }
    memmove(w->buf, w->buf + used, w->len - used);
    w->len -= used;
    if (w->ndone < w->nfiles)
        return false;
    w->busy = false;
    free(w->files);
    w->files = NULL;
    w->len = 0;
    return true;
}

/* Which files are not yet handed out nor done, and the headers analysed in
 * each unit's translation unit (a list through next_member). */
typedef struct {
    bool *taken;
    size_t *first_member, *next_member;   /* SIZE_MAX ends a list */
    size_t *again;       /* files of a job whose worker died: one job each */
    size_t nagain;
    /* The first parse of an include set builds its PCH while every other
     * parse of the set waits on it (extract/preamble.c): a file of a set
     * being built waits here instead, while the other workers take files
     * of other sets. On llm.c's dev/cuda one worker sat 8 s of a 31 s run
     * (at load 8) waiting for the other's PCH of cooperative_groups. */
    size_t *deferred;    /* in snapshot order */
    size_t ndeferred;
    /* Only a file the cache does not have waits for its set: deferring
     * cached ones too left 5,000 of 10,000 generated files on the list
     * while the one changed file built its set, and each file handed out
     * scanned the whole list (docs/performance.md). */
    bool *missed;        /* looked up in the facts cache and not there */
    unsigned long long *building;   /* sets whose first job is out */
    int *builder;        /* its worker's slot; -1 once it answered */
    size_t nbuilding;
    /* A worker keeps the units that headers are analysed in as another
     * program's (extract/extract.c, kept_give): a job that needs one that
     * another worker holds goes to that worker, or that unit is parsed
     * twice (28 of 137 parses of a cold run over this repository). */
    size_t *need_start, *need_list;   /* the kept units each unit's job needs:
                                         need_list[need_start[u] .. need_start[u + 1]) */
    uint64_t *held;      /* per unit: the worker slots (< 64) that parsed it */
    size_t *parked;      /* jobs' first files (taken, not cached) that only
                            another worker could do without a repeated parse */
    size_t nparked;
    bool *unit_parked;   /* per unit: its job is parked (its other files
                            join it when it is handed out, job_of) */
    size_t *order;       /* files in the order they are handed out: the
                            units that need several kept units first, then
                            every file in the snapshot's order */
    size_t norder;
    bool *from_cache;    /* the caller's (facts_extract_all), or NULL */
} schedule;

typedef struct {
    size_t needs, unit;
} needy_unit;

static int by_needs_then_unit(const void *a, const void *b)
{
    const needy_unit *x = a, *y = b;
    if (x->needs != y->needs)
        return x->needs > y->needs ? -1 : 1;
    return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* A job that needs several kept units goes out before the others: the
 * worker that takes it parses them and holds them, and the jobs that need
 * one of them follow it there. Handed out last (the snapshot's order),
 * such a job needed units both workers held (this repository's
 * analyzer/config/config.c: xalloc.h and diag.h are analysed in 17
 * programs' units) and parsed again those the other one had. */
static void order_needy_first(schedule *plan, size_t n)
{
    needy_unit *needy = xcalloc(n ? n : 1, sizeof *needy);
    size_t nneedy = 0;
    for (size_t u = 0; u < n; u++) {
        size_t needs = plan->need_start[u + 1] - plan->need_start[u];
        if (needs >= 2)
            needy[nneedy++] = (needy_unit){needs, u};
    }
    qsort(needy, nneedy, sizeof *needy, by_needs_then_unit);
    plan->order = xcalloc(nneedy + 2 * n + 1, sizeof *plan->order);
    /* The units a needy job needs, which the loop below does not send
     * ahead: they go out in that job, parsed once for both. Sent ahead,
     * one to each worker, two such units were
     * held by both workers when the needy job came; it was parked to the
     * end and parsed one of them again (tests/analyzer/parse_once.bats,
     * "a needy job takes the big units it needs with it ..."). */
    bool *needed = xcalloc(n ? n : 1, sizeof *needed);
    for (size_t k = 0; k < nneedy; k++) {
        size_t u = needy[k].unit;
        for (size_t m = plan->need_start[u]; m < plan->need_start[u + 1]; m++)
            if (plan->need_list[m] != u)
                needed[plan->need_list[m]] = true;
    }
    /* First the units whose set is chained on a base PCH: they wait for it
     * (facts_unit_waits), deferred ahead of any other unit that waits, and
     * go out as soon as it is built, so that their set's build runs beside
     * the other units' parses. In the snapshot's order, this repository's
     * layer/attention_kernels.cu came near the end, and its
     * cooperative_groups set (0.9 s of CPU) was built while the other
     * worker had nothing left to do (docs/performance.md, "Branch
     * s10-speed"). A file listed twice is skipped when taken. */
    for (size_t u = 0; u < n; u++)
        if (facts_unit_set_on_base(u) && !needed[u])
            plan->order[plan->norder++] = u;
    free(needed);
    for (size_t k = 0; k < nneedy; k++)
        plan->order[plan->norder++] = needy[k].unit;
    for (size_t i = 0; i < n; i++)
        plan->order[plan->norder++] = i;
    free(needy);
}

/* The units whose translation units a worker keeps (some header is
 * analysed in them as another program's), and, for each unit, those of
 * them its job parses: itself and its headers' other programs' units. */
static void plan_needs(schedule *plan, const snapshot *snap)
{
    size_t n = snap->nfiles;
    bool *kept = xcalloc(n ? n : 1, sizeof *kept);
    size_t *seen = xcalloc(n ? n : 1, sizeof *seen);   /* 1 + the unit that listed it last */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < snap->files[i].nother_contexts; k++)
            kept[snap->files[i].other_contexts[k]] = true;
    plan->need_start = xcalloc(n + 1, sizeof *plan->need_start);
    for (int fill = 0; fill < 2; fill++) {
        size_t total = 0;
        memset(seen, 0, (n ? n : 1) * sizeof *seen);
        for (size_t u = 0; u < n; u++) {
            if (fill)
                plan->need_start[u] = total;
            if (facts_unit_of(snap, u) != u)
                continue;
            for (size_t m = u; m != SIZE_MAX;
                 m = m == u ? plan->first_member[u] : plan->next_member[m]) {
                const source_file *f = &snap->files[m];
                for (size_t k = 0; k <= f->nother_contexts; k++) {
                    size_t need = k == 0 ? u : (size_t)f->other_contexts[k - 1];
                    if (!kept[need] || seen[need] == u + 1)
                        continue;
                    seen[need] = u + 1;
                    if (fill)
                        plan->need_list[total] = need;
                    total++;
                }
            }
        }
        if (fill)
            plan->need_start[n] = total;
        else
            plan->need_list = xcalloc(total ? total : 1, sizeof *plan->need_list);
    }
    plan->held = xcalloc(n ? n : 1, sizeof *plan->held);
    free(kept);
    free(seen);
    order_needy_first(plan, n);
}

static uint64_t slot_bit(int slot)
{
    return slot < 64 ? (uint64_t)1 << slot : 0;
}

/* How many units another worker holds the worker in `slot` would parse
 * again, doing the job of `unit`. */
static size_t parses_again(const schedule *plan, size_t unit, int slot)
{
    uint64_t mine = slot_bit(slot);
    size_t again = 0;
    for (size_t k = plan->need_start[unit]; mine && k < plan->need_start[unit + 1]; k++) {
        uint64_t holders = plan->held[plan->need_list[k]];
        again += holders && !(holders & mine);
    }
    return again;
}

static void hold_needs(schedule *plan, size_t unit, int slot)
{
    for (size_t k = plan->need_start[unit]; k < plan->need_start[unit + 1]; k++)
        plan->held[plan->need_list[k]] |= slot_bit(slot);
}

/* A worker that ended holds nothing. */
static void forget_holder(schedule *plan, size_t nfiles, int slot)
{
    for (size_t u = 0; u < nfiles; u++)
        plan->held[u] &= ~slot_bit(slot);
}

/* The first parked job the worker in `slot` can do without a repeated
 * parse (with `any`: the one with the fewest), taken off the list;
 * SIZE_MAX if none. */
static size_t unpark(schedule *plan, const snapshot *snap, int slot, bool any)
{
    size_t best = SIZE_MAX, best_again = SIZE_MAX;
    for (size_t p = 0; p < plan->nparked && best_again > 0; p++) {
        size_t again = parses_again(plan, facts_unit_of(snap, plan->parked[p]), slot);
        if (again < best_again && (any || again == 0)) {
            best = p;
            best_again = again;
        }
    }
    if (best == SIZE_MAX)
        return SIZE_MAX;
    size_t i = plan->parked[best];
    memmove(plan->parked + best, plan->parked + best + 1,
            (plan->nparked - best - 1) * sizeof *plan->parked);
    plan->nparked--;
    plan->unit_parked[facts_unit_of(snap, i)] = false;
    return i;
}

/* The worker slot that can do some parked job with the fewest repeated
 * parses. */
static int cheapest_taker(const schedule *plan, const snapshot *snap, int jobs)
{
    int best = 0;
    size_t best_again = SIZE_MAX;
    for (int k = 0; k < jobs; k++)
        for (size_t p = 0; p < plan->nparked; p++) {
            size_t again = parses_again(plan, facts_unit_of(snap, plan->parked[p]), k);
            if (again < best_again) {
                best = k;
                best_again = again;
            }
        }
    return best;
}

/* Whether the job of `unit` starts with other programs' units it needs
 * that are not out yet (with_needed_units): it is not deferred for its own
 * set or base PCH, which is built while the worker parses those. Deferred,
 * the other workers took those units as their own jobs meanwhile, and the
 * job parsed them again at the end (nccl's src/device/common.cu, the
 * context of src/include's headers, waited for the CUDA base PCH while 20
 * of the .cc units it needs went out: docs/realcode.md, "Branch
 * s11-nccl"). */
static bool parses_needed_first(const schedule *plan, size_t unit)
{
    for (size_t k = plan->need_start[unit]; k < plan->need_start[unit + 1]; k++) {
        size_t need = plan->need_list[k];
        if (need != unit && !plan->taken[need] && !plan->unit_parked[need])
            return true;
    }
    return false;
}

/* An idle worker takes a parked job anyway (parsing a unit again) when at
 * least this many are parked: fewer are done sooner by their holder than
 * by a worker that first parses their units again. */
#define PARKED_TO_SHARE 4

static bool set_building(const schedule *plan, unsigned long long key)
{
    for (size_t b = 0; b < plan->nbuilding; b++)
        if (plan->building[b] == key)
            return plan->builder[b] >= 0;
    return false;
}

static void note_set(schedule *plan, unsigned long long key, int slot)
{
    for (size_t b = 0; b < plan->nbuilding; b++)
        if (plan->building[b] == key)
            return;
    plan->building = xrealloc(plan->building, (plan->nbuilding + 1) * sizeof *plan->building);
    plan->builder = xrealloc(plan->builder, (plan->nbuilding + 1) * sizeof *plan->builder);
    plan->building[plan->nbuilding] = key;
    plan->builder[plan->nbuilding++] = slot;
}

/* Whether a worker is building the set unit `unit` parses with, or one
 * that set is chained on (facts_unit_set_parent): its parse would wait. */
static bool unit_set_building(const schedule *plan, size_t unit)
{
    for (size_t u = unit; u != SIZE_MAX; u = facts_unit_set_parent(u))
        if (set_building(plan, facts_unit_set(u)))
            return true;
    return false;
}

/* The worker in `slot` takes a job of unit `unit`: it builds that unit's
 * set and those it is chained on, where not built yet. */
static void note_unit_sets(schedule *plan, size_t unit, int slot)
{
    for (size_t u = unit; u != SIZE_MAX; u = facts_unit_set_parent(u))
        if (facts_unit_set(u))
            note_set(plan, facts_unit_set(u), slot);
}

/* The worker in `slot` answered (or ended): what it built is there. */
static void sets_built_by(schedule *plan, int slot)
{
    for (size_t b = 0; b < plan->nbuilding; b++)
        if (plan->builder[b] == slot)
            plan->builder[b] = -1;
}

/* The first deferred file whose set is no longer being built (any, when
 * `any`), taken off the list; SIZE_MAX if none. */
static size_t undefer(schedule *plan, const snapshot *snap, bool any)
{
    for (size_t d = 0; d < plan->ndeferred; d++) {
        size_t i = plan->deferred[d];
        size_t unit = facts_unit_of(snap, i);
        if (!any && !plan->taken[i] &&
            (unit_set_building(plan, unit) || facts_unit_waits(unit)))
            continue;
        memmove(plan->deferred + d, plan->deferred + d + 1,
                (plan->ndeferred - d - 1) * sizeof *plan->deferred);
        plan->ndeferred--;
        return i;
    }
    return SIZE_MAX;
}

static bool wants(const snapshot *snap, const bool *wanted, size_t i)
{
    return (!wanted || wanted[i]) && !snap->files[i].not_checked && !snap->files[i].unit_only;
}

/* A file that needs a parse unless cached: true when it joins the job
 * (facts[i] set and progress stepped when the cache has it). */
static bool join_unless_cached(const snapshot *snap, const gl_config *cfg, size_t i,
                               schedule *plan, progress *progress, file_facts **facts)
{
    plan->taken[i] = true;
    if (!plan->missed[i] && (facts[i] = facts_extract_cached(snap, i, cfg)) != NULL) {
        if (plan->from_cache)
            plan->from_cache[i] = true;
        progress_step(progress);
        return false;
    }
    plan->missed[i] = true;
    return true;
}

/* The job that starts with file `first` (taken, not cached): it and every
 * other file of its unit still to do, cached ones set aside. */
static size_t *job_of(const snapshot *snap, const gl_config *cfg, const bool *wanted,
                      size_t first, schedule *plan, progress *progress, file_facts **facts,
                      size_t *n)
{
    size_t unit = facts_unit_of(snap, first);
    size_t *files = xcalloc(2, sizeof *files);
    size_t count = 0, cap = 2;
    files[count++] = first;
    size_t candidate = unit;
    for (size_t m = plan->first_member[unit];; m = plan->next_member[m]) {
        if (candidate != first && !plan->taken[candidate] && wants(snap, wanted, candidate) &&
            facts_unit_of(snap, candidate) == unit &&
            join_unless_cached(snap, cfg, candidate, plan, progress, facts)) {
            if (count == cap)
                files = xrealloc(files, (cap *= 2) * sizeof *files);
            files[count++] = candidate;
        }
        if (m == SIZE_MAX)
            break;
        candidate = m;
    }
    *n = count;
    return files;
}

/* The job of `first` (job_of, n files) with, before it, the files of the
 * other programs' units its headers are analysed in (plan_needs) whose own
 * jobs are not out: the worker parses each such unit once, for its own
 * files and then for these headers (extract/extract.h). A unit over the
 * size a worker keeps between jobs (extract/extract.c, kept_give) was
 * parsed for this job and again for its own: 25 repeats in a whole nccl
 * run (docs/realcode.md, "Seventh round"). */
static size_t *with_needed_units(const snapshot *snap, const gl_config *cfg, const bool *wanted,
                                 size_t first, schedule *plan, progress *progress,
                                 file_facts **facts, size_t *job, size_t *n)
{
    size_t unit = facts_unit_of(snap, first);
    size_t *files = NULL, count = 0, cap = 0;
    for (size_t k = plan->need_start[unit]; k < plan->need_start[unit + 1]; k++) {
        size_t need = plan->need_list[k];
        if (need == unit || plan->unit_parked[need])
            continue;
        size_t candidate = need;
        for (size_t m = plan->first_member[need];; m = plan->next_member[m]) {
            if (!plan->taken[candidate] && wants(snap, wanted, candidate) &&
                facts_unit_of(snap, candidate) == need &&
                join_unless_cached(snap, cfg, candidate, plan, progress, facts)) {
                if (count == cap)
                    files = xrealloc(files, (cap = cap ? 2 * cap : 4) * sizeof *files);
                files[count++] = candidate;
            }
            if (m == SIZE_MAX)
                break;
            candidate = m;
        }
    }
    if (count == 0)
        return job;
    files = xrealloc(files, (count + *n) * sizeof *files);
    memcpy(files + count, job, *n * sizeof *files);
    free(job);
    *n += count;
    return files;
}

void facts_extract_all(const snapshot *snap, const gl_config *cfg, const bool *wanted, int jobs,
                       progress *progress, file_facts **facts, bool *from_cache,
                       bool parse_expected)
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
    size_t nfiles = snap->nfiles ? snap->nfiles : 1;
    schedule plan = {
        .taken = xcalloc(nfiles, sizeof *plan.taken),
        .first_member = xcalloc(nfiles, sizeof *plan.first_member),
        .next_member = xcalloc(nfiles, sizeof *plan.next_member),
        .again = xcalloc(nfiles, sizeof *plan.again),
        .missed = xcalloc(nfiles, sizeof *plan.missed),
        .parked = xcalloc(nfiles, sizeof *plan.parked),
        .unit_parked = xcalloc(nfiles, sizeof *plan.unit_parked),
        .from_cache = from_cache,
    };
    for (size_t i = 0; i < snap->nfiles; i++)
        plan.first_member[i] = plan.next_member[i] = SIZE_MAX;
    for (size_t i = snap->nfiles; i-- > 0;) {
        size_t unit = facts_unit_of(snap, i);
        if (unit != i) {
            plan.next_member[i] = plan.first_member[unit];
            plan.first_member[unit] = i;
        }
    }
    plan_needs(&plan, snap);
    /* A file is deferred at most once per place in the order. */
    plan.deferred = xcalloc(plan.norder + 1, sizeof *plan.deferred);
    char *early_error = NULL;
    if (parse_expected && snap->nfiles > 0 &&
        !start_worker(workers, jobs, 0, snap, cfg, true, &early_error))
        free(early_error);   /* started again when a job needs it, failing then */
    size_t next = 0;
    for (;;) {
        /* Hand out jobs; cached files need no parse and no worker. A
         * second pass, when the first left every worker idle, gives the
         * parked job that costs fewest repeated parses to the worker it
         * costs fewest; the others wait for it or take what it frees. */
        for (int pass = 0; pass < 2; pass++) {
            bool share = pass == 1;
            for (int k = 0; share && k < jobs; k++)
                share = !workers[k].busy;
            if (pass == 1 && (!share || plan.nparked == 0))
                break;
            int sharer = share ? cheapest_taker(&plan, snap, jobs) : -1;
            for (int k = 0; k < jobs; k++) {
                if (workers[k].busy || (share && k != sharer))
                    continue;
                size_t first = SIZE_MAX;
                bool retry = plan.nagain > 0;
                if (retry) {
                    first = plan.again[plan.nagain - 1];
                } else {
                    first = unpark(&plan, snap, k, false);
                    /* Deferred files first, once their set is built; then the
                     * snapshot's order; then, with nothing else left, a
                     * deferred file whose set is still being built. */
                    for (bool any = false; first == SIZE_MAX;) {
                        size_t i = undefer(&plan, snap, any);
                        bool in_order = i == SIZE_MAX && next < plan.norder;
                        if (in_order) {
                            i = plan.order[next++];
                            if (plan.taken[i] || (wanted && !wanted[i]))
                                continue;
                        } else if (i == SIZE_MAX) {
                            if (any || plan.ndeferred == 0)
                                break;
                            any = true;
                            continue;
                        }
                        if (plan.taken[i])
                            continue;
                        if (snap->files[i].not_checked) {
                            plan.taken[i] = true;
                            facts[i] = facts_not_checked(UNCHECKED_INPUT,
                                                         xstrdup(snap->files[i].not_checked));
                            progress_step(progress);
                        } else if (snap->files[i].unit_only) {
                            /* Only its headers' unit: parsed in their jobs,
                             * with no facts of its own. */
                            plan.taken[i] = true;
                            facts[i] = xcalloc(1, sizeof *facts[i]);
                            progress_step(progress);
                        } else if (join_unless_cached(snap, cfg, i, &plan, progress, facts)) {
                            size_t unit = facts_unit_of(snap, i);
                            if (plan.unit_parked[unit])
                                plan.taken[i] = false;   /* joins the parked job */
                            else if (in_order && !parses_needed_first(&plan, unit) &&
                                     (unit_set_building(&plan, unit) ||
                                      facts_unit_waits(unit))) {
                                plan.taken[i] = false;
                                plan.deferred[plan.ndeferred++] = i;
                            } else if (!parses_again(&plan, unit, k))
                                first = i;
                            else {
                                plan.unit_parked[unit] = true;
                                plan.parked[plan.nparked++] = i;
                            }
                        }
                    }
                    if (first == SIZE_MAX && (share || plan.nparked >= PARKED_TO_SHARE))
                        first = unpark(&plan, snap, k, true);
                }
                if (first == SIZE_MAX)
                    continue;
                char *error = NULL;
                if (!workers[k].pid && !start_worker(workers, jobs, k, snap, cfg, false, &error)) {
                    bool others = false;
                    for (int o = 0; o < jobs; o++)
                        others |= workers[o].pid != 0;
                    if (!others) {
                        facts[first] = facts_not_checked(UNCHECKED_NO_TU, xstrdup(error));
                        plan.nagain -= retry;
                        progress_step(progress);
                    } else if (!retry) {
                        plan.again[plan.nagain++] = first;   /* waits for one of them */
                    }
                    free(error);
                    continue;
                }
                size_t n = 1, *files;
                if (retry) {
                    files = xcalloc(1, sizeof *files);
                    files[0] = first;
                } else {
                    files = job_of(snap, cfg, wanted, first, &plan, progress, facts, &n);
                    files = with_needed_units(snap, cfg, wanted, first, &plan, progress, facts,
                                              files, &n);
                }
                plan.nagain -= retry;
                uint64_t count = n;
                bool sent = write_all(workers[k].to, &count, sizeof count);
                for (size_t f = 0; sent && f < n; f++) {
                    uint64_t index = files[f];
                    sent = write_all(workers[k].to, &index, sizeof index);
                }
                if (!sent) {
                    end_worker(&workers[k]);   /* died idle: the next round starts another */
                    forget_holder(&plan, snap->nfiles, k);
                    for (size_t f = 0; f < n; f++)
                        plan.again[plan.nagain++] = files[f];
                    free(files);
                    continue;
                }
                note_unit_sets(&plan, facts_unit_of(snap, files[0]), k);
                hold_needs(&plan, facts_unit_of(snap, first), k);
                workers[k].busy = true;
                workers[k].used = true;
                workers[k].files = files;
                workers[k].nfiles = n;
                workers[k].ndone = 0;
                workers[k].deadline = now_seconds() + (double)file_budget(snap, files[0], budget);
            }
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
        if (nfds == 0 && next >= plan.norder && plan.nagain == 0 && plan.ndeferred == 0 &&
            plan.nparked == 0)
            break;
        int timeout_ms = wait_s <= 0 ? 0 : (int)(wait_s * 1000) + 1;
        if (nfds > 0 && poll(fds, (nfds_t)nfds, timeout_ms) < 0 && errno != EINTR)
            break;   /* cannot happen with valid descriptors; the rest below */
        t = now_seconds();
        for (int k = 0, f = 0; k < jobs; k++) {
            worker *w = &workers[k];
            if (!w->busy)
                continue;
            bool gone = false;
            size_t done_before = w->ndone;
            bool finished = fds[f++].revents && read_answer(w, snap, facts, budget, &gone);
            for (size_t d = done_before; d < w->ndone; d++)
                progress_step(progress);
            if (finished || w->ndone > done_before)
                sets_built_by(&plan, k);
            if (finished)
                continue;
            bool timed_out = !gone && t >= w->deadline;
            if (!gone && !timed_out)
                continue;
            sets_built_by(&plan, k);
            if (timed_out)
                kill(w->pid, SIGKILL);
            /* The file being parsed pays; the rest of its job is tried
             * again, a job each, so that a crash costs one file. */
            size_t index = w->files[w->ndone];
            for (size_t r = w->ndone + 1; r < w->nfiles; r++)
                plan.again[plan.nagain++] = w->files[r];
            int status = end_worker(w);
            forget_holder(&plan, snap->nfiles, k);
            facts[index] = death_facts(status, timed_out, file_budget(snap, index, budget));
            progress_step(progress);
        }
    }
    /* A closed pipe is the end of the work: every worker exits; one started
     * early that got no job may still be loading libclang: not waited for. */
    for (int k = 0; k < jobs; k++)
        if (workers[k].pid) {
            if (!workers[k].used)
                kill(workers[k].pid, SIGKILL);
            end_worker(&workers[k]);
        }
    free(workers);
    free(fds);
    free(plan.taken);
    free(plan.first_member);
    free(plan.next_member);
    free(plan.again);
    free(plan.deferred);
    free(plan.missed);
    free(plan.building);
    free(plan.builder);
    free(plan.need_start);
    free(plan.need_list);
    free(plan.held);
    free(plan.parked);
    free(plan.unit_parked);
    free(plan.order);
    signal(SIGPIPE, old_sigpipe);
}
