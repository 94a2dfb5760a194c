/* The per-file facts cache extraction uses, so a commit that changes one
 * file of thirty parses one file. An entry holds the facts as facts_save
 * writes them (facts/serialize.c).
 *
 * A file's facts depend on more than its own text: on the headers it
 * includes, its compiler arguments, the CUDA installation and libclang, and
 * on gpulint itself. The cache key covers what is known before parsing (the
 * text, the path, the arguments, gpulint's identity); the entry lists what
 * the parse read besides (every included file, with its content hash when it
 * is part of the snapshot, else its stat fingerprint), and an entry is used
 * only when all of those are unchanged. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "extract/internal.h"
#include "extract/reach.h"
#include "facts/facts.h"
#include "input/inputs.h"
#include "util/hash.h"
#include "util/paths.h"
#include "util/str_table.h"

/* An entry not used for this long goes when its directory is next written:
 * old file versions would otherwise pile up, one entry per file per commit. */
#define ENTRY_LIFETIME_S (14 * 24 * 3600)
#define ENTRY_TOUCH_AFTER_S (24 * 3600)

char *facts_cache_key(const char *identity, const snapshot *snap, const source_file *src,
                      const gl_config *cfg)
{
    byte_buf b = { 0 };
    /* Every part ends with a NUL so that no two key materials run together. */
    buf_append(&b, identity, strlen(identity) + 1);
    buf_append(&b, src->abs_path, strlen(src->abs_path) + 1);
    const char *lang = src->lang == LANG_CUDA ? "cuda" : src->lang == LANG_CXX ? "c++" : "c";
    buf_append(&b, lang, strlen(lang) + 1);
    buf_append(&b, snap->root ? snap->root : "", strlen(snap->root ? snap->root : "") + 1);
    for (size_t i = 0; cfg && i < cfg->include_dirs.n; i++)
        buf_append(&b, cfg->include_dirs.items[i], strlen(cfg->include_dirs.items[i]) + 1);
    buf_append(&b, "\n", 1);
    for (size_t i = 0; cfg && i < cfg->defines.n; i++)
        buf_append(&b, cfg->defines.items[i], strlen(cfg->defines.items[i]) + 1);
    buf_append(&b, "\n", 1);
    for (size_t i = 0; i < src->nargs; i++)
        buf_append(&b, src->args[i], strlen(src->args[i]) + 1);
    buf_append(&b, "\n", 1);
    buf_append(&b, src->text, src->len);
    /* A header analysed in an includer's unit: that unit's file and flags. */
    if (src->context >= 0) {
        const source_file *unit = &snap->files[src->context];
        buf_append(&b, "\ncontext\n", 9);
        buf_append(&b, unit->abs_path, strlen(unit->abs_path) + 1);
        buf_append(&b, unit->hash, strlen(unit->hash) + 1);
        for (size_t i = 0; i < unit->nargs; i++)
            buf_append(&b, unit->args[i], strlen(unit->args[i]) + 1);
    }
    /* And the units of the other programs that include it. */
    for (size_t k = 0; k < src->nother_contexts; k++) {
        const source_file *unit = &snap->files[src->other_contexts[k]];
        buf_append(&b, "\nother context\n", 15);
        buf_append(&b, unit->abs_path, strlen(unit->abs_path) + 1);
        buf_append(&b, unit->hash, strlen(unit->hash) + 1);
        for (size_t i = 0; i < unit->nargs; i++)
            buf_append(&b, unit->args[i], strlen(unit->args[i]) + 1);
    }
    char hex[65];
    sha256_hex(b.data, b.len, hex);
    buf_free(&b);
    return xstrdup(hex);
}

static char *entry_path(const char *dir, const char *key)
{
    return xasprintf("%s/%.2s/%s.entry", dir, key, key + 2);
}

/* A file outside the snapshot, as stat sees it. The mtime alone is not
 * enough: `cp -p`, `tar` and `rsync -t` rewrite a file and keep its mtime
 * (and often its size). The ctime cannot be set from user space and moves on
 * every write, and the inode changes when a file is replaced by a rename, so
 * together they notice any rewrite; a chmod or touch only costs a reparse. */
typedef struct {
    long long size, mtime, ctime, ino;
} stat_print;

/* Files outside the snapshot, as stat saw them during this run (from
 * facts_cache_run_begin to facts_cache_run_end): each is stat'ed once per
 * run, not once per entry that lists it (a C file lists about a hundred
 * system headers, stddef.h a dozen times over, and a warm run over this
 * repository made 20,000 stat calls for a few hundred distinct files).
 * Outside a run, every lookup stats. */
typedef struct {
    bool exists;
    stat_print print;
} stat_memo_entry;

static struct {
    bool on;
    str_table paths;     /* tag 0: a stat_memo_entry; the tags below stat_once */
    pthread_mutex_t lock;
} memo = {.paths = STR_TABLE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

void facts_cache_run_begin(void)
{
    pthread_mutex_lock(&memo.lock);
    memo.on = true;
    pthread_mutex_unlock(&memo.lock);
}

void facts_cache_run_end(void)
{
    pthread_mutex_lock(&memo.lock);
    str_table_clear(&memo.paths, free);
    memo.on = false;
    pthread_mutex_unlock(&memo.lock);
}

static bool stat_now(const char *path, stat_print *print)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    print->size = (long long)st.st_size;
    print->mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    print->ctime = (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
    print->ino = (long long)st.st_ino;
    return true;
}

/* The stat fingerprint of a file outside the snapshot: the one this run
 * took first (a parse that read the file after it is checked against the
 * earlier state, so a file rewritten during the run cannot be vouched for
 * with its new state), else stat's now. */
static bool stat_once(const char *path, stat_print *print)
{
    pthread_mutex_lock(&memo.lock);
    if (!memo.on) {
        pthread_mutex_unlock(&memo.lock);
        return stat_now(path, print);
    }
    bool added;
    str_table_entry *e = str_table_add(&memo.paths, 0, path, &added);
    if (added) {
        stat_memo_entry *m = xmalloc(sizeof *m);
        m->exists = stat_now(path, &m->print);
        e->value = m;
    }
    const stat_memo_entry *m = e->value;
    *print = m->print;
    bool exists = m->exists;
    pthread_mutex_unlock(&memo.lock);
    return exists;
}

/* Tags of the run's memo besides stat_once's (0). */
enum { MEMO_CANONICAL = 1, MEMO_DIR_MADE = 2 };

/* A unit lists each inclusion (stddef.h dozens of times) and most units
 * include the same headers: resolving each anew was two stat calls per
 * inclusion, 60,000 of a cold run's 98,000 over this repository
 * (docs/performance.md, "Branch s12-speed"). In a run a name resolves as it
 * did first, as stat_once answers for a header's state. */
char *facts_cache_canonical(const char *name)
{
    pthread_mutex_lock(&memo.lock);
    if (!memo.on) {
        pthread_mutex_unlock(&memo.lock);
        return path_canonical(name);
    }
    bool added;
    str_table_entry *e = str_table_add(&memo.paths, MEMO_CANONICAL, name, &added);
    if (added)
        e->value = path_canonical(name);
    char *canonical = xstrdup(e->value);
    pthread_mutex_unlock(&memo.lock);
    return canonical;
}

/* mkdir of a cache directory, once per run: two per stored entry, most of
 * them failing with EEXIST, each locking the parent directory that the
 * other worker creates its entries in. */
static bool dir_made(const char *dir)
{
    pthread_mutex_lock(&memo.lock);
    bool known = memo.on && str_table_find(&memo.paths, MEMO_DIR_MADE, dir);
    pthread_mutex_unlock(&memo.lock);
    if (known)
        return true;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return false;
    pthread_mutex_lock(&memo.lock);
    if (memo.on) {
        bool added;
        str_table_add(&memo.paths, MEMO_DIR_MADE, dir, &added);
    }
    pthread_mutex_unlock(&memo.lock);
    return true;
}

/* What a dependency is now: its snapshot hash (*hash, owned by the
 * snapshot), else its stat fingerprint (*hash NULL); false when it no longer
 * exists. */
static bool describe_dep(const snapshot_reach *snap, const char *path, const char **hash,
                         stat_print *print)
{
    const source_file *f = reach_find(snap, path);
    *hash = f ? f->hash : NULL;
    *print = (stat_print){0};
    return f || stat_once(path, print);
}

/* An entry file: ENTRY_MAGIC, a line "deps N", N dependency lines, then
 * the facts text (facts/serialize.c) as it is. A dependency line is
 *   "h HASH LEN PATH" (a snapshot file, by content),
 *   "s SIZE MTIME CTIME INODE LEN PATH" (any other, by stat) or
 *   "a LEN PATH" (a path that must still not exist: where a header that was
 *   not found would be),
 * LEN the byte length of PATH (which may hold any byte but NUL). Loading an
 * entry is one read, a scan of the lines and one parse of the facts (the
 * entry used to be JSON with the facts as a string inside, which jansson
 * unescaped and then parsed again, and the dependencies cost more to parse
 * than the facts). */
#define ENTRY_MAGIC "gpulint facts entry 2\n"

/* The whole file, NUL-terminated, in one read where it fits; NULL when it
 * cannot be read. */
static char *read_entry(const char *path, size_t *len, time_t *mtime)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return NULL;
    }
    *mtime = st.st_mtime;
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *text = xmalloc(cap + 1);
    for (;;) {
        ssize_t r = read(fd, text + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(text);
            close(fd);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        /* A regular file's read is short only at its end: no second read
         * to be told so (one syscall per entry fewer). */
        if (n < cap)
            break;
        cap *= 2;   /* grew since fstat: a writer that is not ours */
        text = xrealloc(text, cap + 1);
    }
    close(fd);
    text[n] = '\0';
    *len = n;
    return text;
}

/* A number and the `stop` after it at *p (within end), else false. */
static bool scan_number(const char **p, const char *end, char stop, long long *value)
{
    const char *s = *p;
    bool negative = s < end && *s == '-';
    s += negative;
    if (s >= end || *s < '0' || *s > '9')
        return false;
    unsigned long long v = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        if (v > (~0ULL - 9) / 10)
            return false;
        v = v * 10 + (unsigned long long)(*s++ - '0');
    }
    if (s >= end || *s != stop || v > (unsigned long long)1 << 62)
        return false;
    *value = negative ? -(long long)v : (long long)v;
    *p = s + 1;
    return true;
}

/* The hex SHA-256 of a file's bytes on disk, as source_load hashes a
 * snapshot file's text (a file with a lone CR hashes otherwise there: that
 * costs a parse, never a stale entry). */
static bool disk_hash(const char *path, char out[65])
{
    char *text;
    size_t len;
    if (inputs_read_file(path, &text, &len) != 0)
        return false;
    sha256_hex(text, len, out);
    free(text);
    return true;
}

/* Whether a dependency that still exists has the content it had: `hash` is
 * its snapshot text's (NULL outside the snapshot, `now` then its stat);
 * by_hash and was_hash or was: what the entry recorded. */
static bool same_content(const char *path, const char *hash, const stat_print *now,
                         bool by_hash, const char *was_hash, const long long was[4])
{
    /* A file of the repository that is outside the analysed set (a .def, an
     * excluded header) is in the snapshot under --staged (from the index)
     * and not in a plain run (read from disk), so the same entry lists it
     * by hash in one mode and by stat in the other. Compared through the
     * content on disk, an entry stored by either mode serves both while
     * the content is the same; before, a plain run and a commit re-parsed
     * every file that includes such a file, each undoing the other. */
    char disk[65];
    if (by_hash) {
        if (hash)
            return memcmp(hash, was_hash, 64) == 0;
        return disk_hash(path, disk) && memcmp(disk, was_hash, 64) == 0;
    }
    bool same_stat = now->size == was[0] && now->mtime == was[1] && now->ctime == was[2] &&
                     now->ino == was[3];
    if (!hash)
        return same_stat;
    stat_print on_disk;
    return stat_once(path, &on_disk) && on_disk.size == was[0] && on_disk.mtime == was[1] &&
           on_disk.ctime == was[2] && on_disk.ino == was[3] && disk_hash(path, disk) &&
           memcmp(disk, hash, 64) == 0;
}


/* Whether the dependency line at *p (moved past it) is as it was. */
static bool dep_unchanged(const snapshot_reach *snap, const char **p, const char *end)
{
    const char *s = *p;
    if (end - s < 2 || (s[0] != 'h' && s[0] != 's' && s[0] != 'a') || s[1] != ' ')
        return false;
    bool by_hash = s[0] == 'h', absent = s[0] == 'a';
    s += 2;
    const char *was_hash = s;
    long long was[4] = {0}, len;
    if (absent) {
        /* nothing before the length */
    } else if (by_hash) {
        if (end - s < 65 || s[64] != ' ')
            return false;
        s += 65;
    } else {
        for (int i = 0; i < 4; i++)
            if (!scan_number(&s, end, ' ', &was[i]))
                return false;
    }
    if (!scan_number(&s, end, ' ', &len) || len <= 0 || end - s <= len || s[len] != '\n' ||
        memchr(s, '\0', (size_t)len))
        return false;
    char *path = xstrndup(s, (size_t)len);
    *p = s + len + 1;
    const char *hash;
    stat_print now;
    bool exists = describe_dep(snap, path, &hash, &now);
    bool unchanged = absent ? !exists : exists && same_content(path, hash, &now, by_hash,
                                                                 was_hash, was);
    free(path);
    return unchanged;
}

/* The entry of this key when every dependency it lists is as it was (its
 * text, malloc'd; *facts_text: where the facts begin in it), else NULL. */
static char *fresh_entry(const char *dir, const char *key, const snapshot_reach *snap,
                         const char **facts_text)
{
    char *path = entry_path(dir, key);
    size_t len = 0;
    time_t mtime = 0;
    char *text = read_entry(path, &len, &mtime);
    if (!text) {
        free(path);
        return NULL;
    }
    const char *end = text + len, *p = text;
    size_t magic = strlen(ENTRY_MAGIC);
    long long ndeps = -1;
    bool fresh = len > magic + 5 && memcmp(text, ENTRY_MAGIC, magic) == 0 &&
                 memcmp(text + magic, "deps ", 5) == 0;
    if (fresh) {
        p += magic + 5;
        fresh = scan_number(&p, end, '\n', &ndeps) && ndeps >= 0;
    }
    for (long long i = 0; fresh && i < ndeps; i++)
        fresh = dep_unchanged(snap, &p, end);
    /* Used: keep it (see remove_unused). Once a day is enough for a
     * lifetime of two weeks, and spares a warm run a write per entry. */
    if (fresh && time(NULL) - mtime > ENTRY_TOUCH_AFTER_S)
        utimensat(AT_FDCWD, path, NULL, 0);
    free(path);
    if (!fresh) {
        free(text);
        return NULL;
    }
    *facts_text = p;
    return text;
}

file_facts *facts_cache_load(const char *dir, const char *key, const snapshot_reach *snap)
{
    const char *facts_text;
    char *text = fresh_entry(dir, key, snap, &facts_text);
    if (!text)
        return NULL;
    char *error = NULL;
    file_facts *f = facts_load(facts_text, &error);
    free(error);
    free(text);
    return f;
}

bool facts_cache_fresh(const char *dir, const char *key, const snapshot_reach *snap)
{
    const char *facts_text;
    char *text = fresh_entry(dir, key, snap, &facts_text);
    free(text);
    return text != NULL;
}

/* Each of the 256 entry directories is swept once per run: sweeping it on
 * every store made a cold run over many files read its directories over and
 * over (the count of files times the entries of a directory). */
static _Atomic unsigned char swept[256];

static void remove_unused(const char *sub, const char *key)
{
    unsigned slot = (unsigned)strtoul((char[3]){key[0], key[1], '\0'}, NULL, 16) & 0xff;
    if (atomic_exchange(&swept[slot], 1))
        return;
    DIR *d = opendir(sub);
    if (!d)
        return;
    struct dirent *e;
    time_t now = time(NULL);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *path = xasprintf("%s/%s", sub, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && now - st.st_mtime > ENTRY_LIFETIME_S)
            unlink(path);
        free(path);
    }
    closedir(d);
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void facts_cache_store(const char *dir, const char *key, const file_facts *f,
                       const snapshot_reach *snap, const fact_strs *included,
                       const fact_strs *absent)
{
    /* A header without a guard (stddef.h, with its __need_ macros) is
     * included many times: listed once. */
    char **paths = xcalloc(included->n ? included->n : 1, sizeof *paths);
    if (included->n)   /* items is NULL when nothing was included */
        memcpy(paths, included->items, included->n * sizeof *paths);
    qsort(paths, included->n, sizeof *paths, cmp_path);
    byte_buf deps = {0};
    size_t ndeps = 0;
    for (size_t i = 0; i < included->n; i++) {
        if (i > 0 && strcmp(paths[i], paths[i - 1]) == 0)
            continue;
        const char *hash;
        stat_print print;
        if (!describe_dep(snap, paths[i], &hash, &print)) {
            buf_free(&deps);
            free(paths);
            return;   /* read during the parse, gone now: nothing to vouch for */
        }
        char *line = hash ? xasprintf("h %s %zu ", hash, strlen(paths[i]))
                          : xasprintf("s %lld %lld %lld %lld %zu ", print.size, print.mtime,
                                      print.ctime, print.ino, strlen(paths[i]));
        buf_append(&deps, line, strlen(line));
        buf_append(&deps, paths[i], strlen(paths[i]));
        buf_append(&deps, "\n", 1);
        free(line);
        ndeps++;
    }
    free(paths);
    for (size_t i = 0; i < absent->n; i++) {
        const char *hash;
        stat_print print;
        if (describe_dep(snap, absent->items[i], &hash, &print)) {
            buf_free(&deps);
            return;   /* there after all (created during the parse) */
        }
        char *line = xasprintf("a %zu ", strlen(absent->items[i]));
        buf_append(&deps, line, strlen(line));
        buf_append(&deps, absent->items[i], strlen(absent->items[i]));
        buf_append(&deps, "\n", 1);
        free(line);
        ndeps++;
    }
    char *facts_text = facts_save(f);
    char *path = entry_path(dir, key);
    char *sub = xasprintf("%s/%.2s", dir, key);
    char *tmp = xasprintf("%s.%ld.%p.tmp", path, (long)getpid(), (void *)f);
    bool stored = false;
    if (dir_made(dir) && dir_made(sub)) {
        FILE *out = fopen(tmp, "w");
        if (out) {
            bool written = fprintf(out, "%sdeps %zu\n", ENTRY_MAGIC, ndeps) > 0 &&
                           fwrite(deps.data ? deps.data : "", 1, deps.len, out) == deps.len &&
                           fputs(facts_text, out) >= 0;
            stored = fclose(out) == 0 && written && rename(tmp, path) == 0;
        }
    }
    if (!stored)
        unlink(tmp);
    remove_unused(sub, key);
    buf_free(&deps);
    free(facts_text);
    free(path);
    free(sub);
    free(tmp);
}
