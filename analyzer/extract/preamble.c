#define _GNU_SOURCE
#include "extract/preamble.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "extract/libclang_api.h"
#include "util/xalloc.h"

#define ENTRY_PREFIX "set-"
#define UNUSED_LIFETIME_S (7 * 24 * 3600)
#define DEFAULT_BUDGET_MB 1024

typedef enum { SET_UNTRIED, SET_BUILDING, SET_DONE } set_state;

typedef struct {
    unsigned long long key;
    unsigned uses;
    set_state state;
    char *pch;           /* when SET_DONE: its path (kept until cleanup: threads hold it) */
    bool usable;
} set_entry;

static struct {
    char *dir;           /* <cache>/pch, or NULL */
    set_entry *sets;     /* in the order counted; looked up linearly (a few dozen) */
    size_t n;
    pthread_mutex_t lock;   /* sets[] */
    pthread_cond_t built;   /* a set left SET_BUILDING */
} p = {.lock = PTHREAD_MUTEX_INITIALIZER, .built = PTHREAD_COND_INITIALIZER};

static const char *skip_blanks(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
        s++;
    return s;
}

static bool word_at(const char *s, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - s) >= n && memcmp(s, word, n) == 0 &&
           ((size_t)(end - s) == n || s[n] == ' ' || s[n] == '\t' || s[n] == '<' || s[n] == '"');
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

#define MAX_NESTING 8

/* Append to names[] the system headers src includes first; an include of a
 * snapshot file is followed into that file's own leading system includes
 * (a project's "common.h"), after which nothing is hoisted: the rest of
 * that file runs before the includer's next line. Returns false when the
 * set ended inside a followed file. */
static bool collect_leading(const source_file *src, const snapshot_reach *reach, char ***names,
                            size_t *n, int depth)
{
    const char *m = src->masked, *end = m + src->len;
    const char *guard = NULL;   /* after "#ifndef X": the name X */
    size_t guard_len = 0;
    bool first = true;
    for (const char *line = m; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *line_end = nl ? nl : end;
        const char *s = skip_blanks(line, line_end);
        line = line_end + 1;
        if (s == line_end)
            continue;
        if (*s != '#')
            return true;
        s = skip_blanks(s + 1, line_end);
        if (word_at(s, line_end, "pragma") &&
            word_at(skip_blanks(s + 6, line_end), line_end, "once"))
            continue;
        if (first && !guard && word_at(s, line_end, "ifndef")) {
            guard = skip_blanks(s + 6, line_end);
            guard_len = (size_t)(line_end - guard);
            while (guard_len && (guard[guard_len - 1] == ' ' || guard[guard_len - 1] == '\t'))
                guard_len--;
            continue;
        }
        if (guard && guard_len && word_at(s, line_end, "define")) {
            const char *name = skip_blanks(s + 6, line_end);
            if ((size_t)(line_end - name) >= guard_len && memcmp(name, guard, guard_len) == 0 &&
                skip_blanks(name + guard_len, line_end) == line_end) {
                guard_len = 0;   /* the guard is complete: includes may follow */
                continue;
            }
            return true;
        }
        if (!word_at(s, line_end, "include"))
            return true;
        first = false;
        /* Quoted names are blanked in the masked text: read the text. */
        const char *t = src->text + (skip_blanks(s + 7, line_end) - m);
        const char *t_end = src->text + (line_end - m);
        char close_char = t < t_end && *t == '<' ? '>' : t < t_end && *t == '"' ? '"' : 0;
        const char *close = close_char ? memchr(t + 1, close_char, (size_t)(t_end - t - 1)) : NULL;
        if (!close)
            return true;
        size_t len = (size_t)(close - t - 1);
        if (reach_may_name(reach, t + 1, len)) {
            const source_file *inner = reach_only_candidate(reach, t + 1, len);
            if (inner && depth < MAX_NESTING)
                collect_leading(inner, reach, names, n, depth + 1);
            return false;
        }
        if (close_char == '"')
            return true;   /* a file outside the snapshot, found beside this one */
        *names = xrealloc(*names, (*n + 1) * sizeof **names);
        (*names)[(*n)++] = xstrndup(t + 1, len);
    }
    return true;
}

char *preamble_leading_includes(const source_file *src, const snapshot_reach *reach)
{
    char **names = NULL;
    size_t n = 0;
    collect_leading(src, reach, &names, &n, 0);
    if (n > 1)   /* names is NULL when there are none: qsort's array must not be */
        qsort(names, n, sizeof *names, cmp_str);
    byte_buf out = {0};
    buf_append(&out, "", 0);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(names[i], names[i - 1]) != 0) {
            char *line = xasprintf("#include <%s>\n", names[i]);
            buf_append(&out, line, strlen(line));
            free(line);
        }
    /* Freed only now: each name is compared with the one before it. */
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return out.data;
}

static bool ours(const char *name)
{
    return strncmp(name, ENTRY_PREFIX, strlen(ENTRY_PREFIX)) == 0;
}

typedef struct {
    char *path;
    time_t used;
    off_t size;
} pch_file;

static int by_use(const void *a, const void *b)
{
    const pch_file *x = a, *y = b;
    return x->used < y->used ? -1 : x->used > y->used;
}

/* Remove a PCH (or failure marker) and the prelude it was built from. */
static int remove_entry(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && strcmp(dot, ".pch") == 0) {
        char *prelude = xasprintf("%.*s.prelude.h", (int)(dot - path), path);
        unlink(prelude);
        free(prelude);
    }
    return unlink(path);
}

/* Only our own entries (set-*) in our own directory are ever removed; a
 * concurrent run that loses one falls back to the full parse. */
static void evict(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    const char *budget_env = getenv("GPULINT_PCH_BUDGET_MB");
    long long budget = (budget_env && *budget_env ? atoll(budget_env) : DEFAULT_BUDGET_MB) << 20;
    pch_file *files = NULL;
    size_t n = 0;
    long long total = 0;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!ours(e->d_name))
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        /* A prelude goes with its PCH (its mtime must stay the PCH's
         * build time, so it says nothing of use), or an hour after its
         * build left none. */
        const char *dot = strstr(e->d_name, ".prelude.");
        if (dot) {
            char *pch = xasprintf("%s/%.*s.pch", dir, (int)(dot - e->d_name), e->d_name);
            if (access(pch, F_OK) != 0 && now - st.st_mtime > 3600)
                unlink(path);
            free(pch);
            free(path);
            continue;
        }
        if (now - st.st_mtime > UNUSED_LIFETIME_S) {
            remove_entry(path);
            free(path);
            continue;
        }
        files = xrealloc(files, (n + 1) * sizeof *files);
        files[n++] = (pch_file){path, st.st_mtime, st.st_size};
        total += st.st_size;
    }
    closedir(d);
    if (n > 1)   /* files is NULL when the directory holds none */
        qsort(files, n, sizeof *files, by_use);
    for (size_t i = 0; i < n; i++) {
        if (total > budget && remove_entry(files[i].path) == 0)
            total -= files[i].size;
        free(files[i].path);
    }
    free(files);
}

void preamble_init(const char *cache_dir)
{
    p.dir = xasprintf("%s/pch", cache_dir);
    if (mkdir(p.dir, 0755) != 0 && errno != EEXIST) {
        free(p.dir);
        p.dir = NULL;
        return;
    }
    evict(p.dir);
}

static set_entry *find_set(unsigned long long key)
{
    for (size_t i = 0; i < p.n; i++)
        if (p.sets[i].key == key)
            return &p.sets[i];
    return NULL;
}

void preamble_count(unsigned long long key)
{
    set_entry *s = find_set(key);
    if (!s) {
        p.sets = xrealloc(p.sets, (p.n + 1) * sizeof *p.sets);
        s = &p.sets[p.n++];
        *s = (set_entry){.key = key};
    }
    s->uses++;
}

static int write_new(const char *path, const char *text)
{
    char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    size_t n = strlen(text);
    int rc = f && fwrite(text, 1, n, f) == n ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* Build the PCH at `path` from the prelude file; false when a header of the
 * set does not compile on its own (then it is of no use to any file). */
static bool build(const char *path, const char *prelude_path, const char **argv, size_t argc)
{
    char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
    CXIndex index = clang_createIndex(1, 0);
    CXTranslationUnit tu = NULL;
    bool ok = clang_parseTranslationUnit2(index, prelude_path, argv, (int)argc, NULL, 0,
                                          CXTranslationUnit_Incomplete |
                                              CXTranslationUnit_ForSerialization,
                                          &tu) == CXError_Success;
    for (unsigned i = 0; ok && i < clang_getNumDiagnostics(tu); i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        ok = clang_getDiagnosticSeverity(d) < CXDiagnostic_Error;
        clang_disposeDiagnostic(d);
    }
    ok = ok && clang_saveTranslationUnit(tu, tmp, clang_defaultSaveOptions(tu)) ==
                   CXSaveError_None &&
         rename(tmp, path) == 0;
    if (!ok)
        unlink(tmp);
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(index);
    free(tmp);
    return ok;
}

/* Find or build the PCH of a key (without the lock: parses of other sets
 * go on meanwhile); false when it cannot be had. */
static bool obtain(const char *pch, unsigned long long key, const char *prelude,
                   const char **argv, size_t argc)
{
    char *prelude_path = xasprintf("%s/" ENTRY_PREFIX "%016llx.prelude.h", p.dir, key);
    char *failed = xasprintf("%s/" ENTRY_PREFIX "%016llx.failed", p.dir, key);
    /* clang checks a PCH against each file it was built from, the prelude
     * included: an existing prelude (same key, same text) is never
     * rewritten. A set that failed is not tried again until evicted. */
    bool have = access(pch, R_OK) == 0 && access(prelude_path, R_OK) == 0;
    bool failed_before = !have && access(failed, F_OK) == 0;
    if (!have && !failed_before) {
        /* One process builds a set, the others (the run's other workers,
         * another gpulint) wait for it and use what it built: both workers
         * of a cold run start on files of the same set. Without the lock
         * (it cannot be made) each builds its own, as before. */
        char *lock_path = xasprintf("%s/" ENTRY_PREFIX "%016llx.lock", p.dir, key);
        int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        while (lock >= 0 && flock(lock, LOCK_EX) != 0 && errno == EINTR)
            ;
        have = access(pch, R_OK) == 0 && access(prelude_path, R_OK) == 0;
        failed_before = !have && access(failed, F_OK) == 0;
        if (!have && !failed_before) {
            have = (access(prelude_path, R_OK) == 0 || write_new(prelude_path, prelude) == 0) &&
                   build(pch, prelude_path, argv, argc);
            if (!have)
                write_new(failed, "");
        }
        /* Gone before it is let go: whoever opens it later finds the PCH
         * (or the failure) once it holds a lock, on this file or a new one. */
        if (lock >= 0) {
            unlink(lock_path);
            close(lock);
        }
        free(lock_path);
    }
    /* The PCH's mtime is the last use: eviction goes by it. Never the
     * prelude's: clang would take the PCH for stale. */
    if (have) {
        utimensat(AT_FDCWD, pch, NULL, 0);
    } else {
        utimensat(AT_FDCWD, failed, NULL, 0);
    }
    free(prelude_path);
    free(failed);
    return have;
}

const char *preamble_pch(unsigned long long key, const char *prelude, const char **argv,
                         size_t argc)
{
    pthread_mutex_lock(&p.lock);
    set_entry *s = p.dir ? find_set(key) : NULL;
    if (!s || s->uses < 2) {
        pthread_mutex_unlock(&p.lock);
        return NULL;
    }
    if (s->state == SET_UNTRIED) {
        s->state = SET_BUILDING;
        char *pch = xasprintf("%s/" ENTRY_PREFIX "%016llx.pch", p.dir, key);
        pthread_mutex_unlock(&p.lock);
        bool usable = obtain(pch, key, prelude, argv, argc);
        pthread_mutex_lock(&p.lock);
        s = find_set(key);   /* sets[] does not move once the workers run */
        s->pch = pch;
        s->usable = usable;
        s->state = SET_DONE;
        pthread_cond_broadcast(&p.built);
    }
    while (s->state != SET_DONE)
        pthread_cond_wait(&p.built, &p.lock);
    const char *pch = s->usable ? s->pch : NULL;
    pthread_mutex_unlock(&p.lock);
    return pch;
}

void preamble_discard(unsigned long long key)
{
    pthread_mutex_lock(&p.lock);
    set_entry *s = find_set(key);
    if (s && s->state == SET_DONE && s->usable) {
        unlink(s->pch);
        s->usable = false;
    }
    pthread_mutex_unlock(&p.lock);
}

void preamble_cleanup(void)
{
    for (size_t i = 0; i < p.n; i++)
        free(p.sets[i].pch);
    free(p.sets);
    free(p.dir);
    p.sets = NULL;
    p.n = 0;
    p.dir = NULL;
}
