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
#include <jansson.h>
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
#include "util/hash.h"

/* An entry not used for this long goes when its directory is next written:
 * old file versions would otherwise pile up, one entry per file per commit. */
#define ENTRY_LIFETIME_S (14 * 24 * 3600)

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
    return xasprintf("%s/%.2s/%s.json", dir, key, key + 2);
}

/* A file outside the snapshot, as stat sees it. The mtime alone is not
 * enough: `cp -p`, `tar` and `rsync -t` rewrite a file and keep its mtime
 * (and often its size). The ctime cannot be set from user space and moves on
 * every write, and the inode changes when a file is replaced by a rename, so
 * together they notice any rewrite; a chmod or touch only costs a reparse. */
typedef struct {
    long long size, mtime, ctime, ino;
} stat_print;

static const char *const stat_print_keys[] = {"size", "mtime", "ctime", "ino"};
#define STAT_PRINT_FIELDS (sizeof stat_print_keys / sizeof stat_print_keys[0])

static long long *stat_print_field(stat_print *p, size_t i)
{
    long long *fields[] = {&p->size, &p->mtime, &p->ctime, &p->ino};
    return fields[i];
}

/* What a dependency is now: its snapshot hash, else its stat fingerprint;
 * false when it no longer exists. */
static bool describe_dep(const snapshot_reach *snap, const char *path, char **hash,
                         stat_print *print)
{
    const source_file *f = reach_find(snap, path);
    *hash = NULL;
    *print = (stat_print){0};
    if (f) {
        *hash = xstrdup(f->hash);
        return true;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    print->size = (long long)st.st_size;
    print->mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    print->ctime = (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
    print->ino = (long long)st.st_ino;
    return true;
}

static bool dep_unchanged(const snapshot_reach *snap, json_t *dep)
{
    const char *path = json_string_value(json_object_get(dep, "path"));
    const char *was_hash = json_string_value(json_object_get(dep, "hash"));
    char *hash;
    stat_print now;
    if (!path || !describe_dep(snap, path, &hash, &now))
        return false;
    bool same;
    if (was_hash) {
        same = hash && strcmp(hash, was_hash) == 0;
    } else {
        same = !hash;
        for (size_t i = 0; same && i < STAT_PRINT_FIELDS; i++) {
            json_t *was = json_object_get(dep, stat_print_keys[i]);
            same = json_is_integer(was) && json_integer_value(was) == *stat_print_field(&now, i);
        }
    }
    free(hash);
    return same;
}

file_facts *facts_cache_load(const char *dir, const char *key, const snapshot_reach *snap)
{
    char *path = entry_path(dir, key);
    json_error_t jerr;
    json_t *entry = json_load_file(path, 0, &jerr);
    if (!entry) {
        free(path);
        return NULL;
    }
    json_t *deps = json_object_get(entry, "deps"), *dep;
    size_t i;
    bool fresh = json_is_array(deps);
    json_array_foreach(deps, i, dep) {
        if (!fresh || !dep_unchanged(snap, dep)) {
            fresh = false;
            break;
        }
    }
    const char *facts_text = json_string_value(json_object_get(entry, "facts"));
    char *error = NULL;
    file_facts *f = fresh && facts_text ? facts_load(facts_text, &error) : NULL;
    free(error);
    json_decref(entry);
    if (f)
        utimensat(AT_FDCWD, path, NULL, 0);   /* used: keep it (see remove_unused) */
    free(path);
    return f;
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

void facts_cache_store(const char *dir, const char *key, const file_facts *f,
                       const snapshot_reach *snap, const fact_strs *included)
{
    json_t *deps = json_array();
    for (size_t i = 0; i < included->n; i++) {
        char *hash;
        stat_print print;
        if (!describe_dep(snap, included->items[i], &hash, &print)) {
            json_decref(deps);
            return;   /* read during the parse, gone now: nothing to vouch for */
        }
        json_t *dep = json_pack("{ss}", "path", included->items[i]);
        if (hash)
            json_object_set_new(dep, "hash", json_string(hash));
        else
            for (size_t k = 0; k < STAT_PRINT_FIELDS; k++)
                json_object_set_new(dep, stat_print_keys[k],
                                    json_integer((json_int_t)*stat_print_field(&print, k)));
        json_array_append_new(deps, dep);
        free(hash);
    }
    char *facts_text = facts_save(f);
    json_t *entry = json_pack("{so ss}", "deps", deps, "facts", facts_text);
    free(facts_text);
    char *path = entry_path(dir, key);
    char *sub = xasprintf("%s/%.2s", dir, key);
    char *tmp = xasprintf("%s.%ld.%p.tmp", path, (long)getpid(), (void *)f);
    bool stored = (mkdir(dir, 0755) == 0 || errno == EEXIST) &&
                  (mkdir(sub, 0755) == 0 || errno == EEXIST) &&
                  json_dump_file(entry, tmp, JSON_COMPACT) == 0 && rename(tmp, path) == 0;
    if (!stored)
        unlink(tmp);
    remove_unused(sub, key);
    json_decref(entry);
    free(path);
    free(sub);
    free(tmp);
}
