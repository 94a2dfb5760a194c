/* The rules' results kept per snapshot (results.h). An entry is a JSON
 * object (jansson, as the facts are: docs/dependencies.md) in
 * <cache>/results/<key>.json, written to a temporary name and renamed. */
#define _GNU_SOURCE
#include "results.h"

#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "extract/extract.h"
#include "util/hash.h"
#include "util/xalloc.h"

#define RESULTS_FORMAT "gpulint results 1"
#define RESULTS_KEPT 64
#define ENTRY_LIFETIME_S (14 * 24 * 3600)
#define ENTRY_TOUCH_AFTER_S (24 * 3600)

static void add_text(byte_buf *b, const char *s)
{
    buf_append(b, s ? s : "", strlen(s ? s : "") + 1);   /* the NUL parts them */
}

static void add_number(byte_buf *b, unsigned long long n)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", n);
    add_text(b, text);
}

static void add_list(byte_buf *b, const str_list *list)
{
    add_number(b, list->n);
    for (size_t i = 0; i < list->n; i++)
        add_text(b, list->items[i]);
}

/* Every setting of the config that a rule or the snapshot's shape can
 * depend on (config/config.h, gl_config; a field added there belongs
 * here). The baseline is applied after the rules, on every run. */
static void add_config(byte_buf *b, const gl_config *cfg)
{
    if (!cfg) {
        add_text(b, "no config");
        return;
    }
    add_number(b, cfg->nrules);
    for (size_t i = 0; i < cfg->nrules; i++) {
        const rule_config *r = &cfg->rules[i];
        add_text(b, r->id);
        add_number(b, r->enabled);
        add_number(b, r->sev);
        add_list(b, &r->include);
        add_list(b, &r->exclude);
    }
    add_number(b, cfg->npatterns);
    for (size_t i = 0; i < cfg->npatterns; i++) {
        const pattern_rule *p = &cfg->patterns[i];
        add_text(b, p->id);
        add_text(b, p->regex);
        add_text(b, p->message);
        add_number(b, p->sev);
        add_list(b, &p->include);
        add_list(b, &p->exclude);
        add_number(b, p->match_comments);
        add_number(b, p->match_strings);
    }
    add_list(b, &cfg->hot);
    add_list(b, &cfg->banned_names);
    add_list(b, &cfg->include_dirs);
    add_list(b, &cfg->defines);
    add_list(b, &cfg->exclude);
    add_number(b, cfg->languages.n);
    for (size_t i = 0; i < cfg->languages.n; i++) {
        add_text(b, cfg->languages.items[i].extension);
        add_text(b, cfg->languages.items[i].kind);
    }
    add_number(b, cfg->limits.file_bytes);
    add_number(b, cfg->limits.file_seconds);
    add_number(b, cfg->limits.regex_match_limit);
    add_number(b, cfg->limits.regex_depth_limit);
}

/* The entry's path for snap, or NULL when some file has no facts key (no
 * facts cache, or content that could not be read); with `fresh`, also
 * NULL when some file's facts entry is missing or stale, unless
 * known_fresh[i] says it was just loaded (NULL: none was). */
static char *entry_path(const snapshot *snap, const gl_config *cfg, bool fresh,
                        const bool *known_fresh)
{
    const char *dir = facts_results_dir();
    if (!dir)
        return NULL;
    byte_buf b = {0};
    add_text(&b, RESULTS_FORMAT);
    add_config(&b, cfg);
    add_text(&b, snap->root);
    add_number(&b, snap->nfiles);
    for (size_t i = 0; i < snap->nfiles; i++) {
        bool check = fresh && !(known_fresh && known_fresh[i]);
        char *key = snap->files[i].not_checked ? NULL
                    : check                    ? facts_cached_key(snap, i, cfg)
                                               : facts_cache_key_of(snap, i, cfg);
        if (!key) {
            buf_free(&b);
            return NULL;
        }
        add_text(&b, snap->files[i].path);
        add_text(&b, key);
        free(key);
        /* Which files link together (rules/programs.h) is no file's facts. */
        add_number(&b, snap->files[i].ntargets);
        for (size_t t = 0; t < snap->files[i].ntargets; t++)
            add_text(&b, snap->files[i].targets[t]);
    }
    add_number(&b, snap->ncontext);
    for (size_t i = 0; i < snap->ncontext; i++) {
        add_text(&b, snap->context[i].path);
        add_text(&b, snap->context[i].abs_path);
        add_text(&b, snap->context[i].hash);
    }
    char hex[65];
    sha256_hex(b.data, b.len, hex);
    buf_free(&b);
    return xasprintf("%s/%s.json", dir, hex);
}

static bool take_finding(json_t *item, diag_finding *f)
{
    const char *rule = json_string_value(json_object_get(item, "rule"));
    const char *file = json_string_value(json_object_get(item, "file"));
    const char *message = json_string_value(json_object_get(item, "message"));
    json_t *line = json_object_get(item, "line"), *col = json_object_get(item, "col"),
           *sev = json_object_get(item, "sev");
    if (!rule || !file || !message || !json_is_integer(line) || !json_is_integer(col) ||
        !json_is_integer(sev) || json_integer_value(sev) < SEV_NONE ||
        json_integer_value(sev) > SEV_ERROR)
        return false;
    const char *reason = json_string_value(json_object_get(item, "suppress_reason"));
    *f = (diag_finding){
        .rule = xstrdup(rule),
        .file = xstrdup(file),
        .message = xstrdup(message),
        .line = (unsigned)json_integer_value(line),
        .col = (unsigned)json_integer_value(col),
        .sev = (severity)json_integer_value(sev),
        .suppressed = json_is_true(json_object_get(item, "suppressed")),
        .suppress_reason = reason ? xstrdup(reason) : NULL,
        .in_baseline = json_is_true(json_object_get(item, "in_baseline")),
    };
    return true;
}

/* The result in `root`, or false (nothing set) when it is not one. */
static bool take_result(json_t *root, diag_list *found, size_t *files_checked,
                        str_list *unbuilt)
{
    json_t *checked = json_object_get(root, "files_checked");
    json_t *items = json_object_get(root, "found"), *names = json_object_get(root, "unbuilt");
    if (!json_is_string(json_object_get(root, "format")) ||
        strcmp(json_string_value(json_object_get(root, "format")), RESULTS_FORMAT) != 0 ||
        !json_is_integer(checked) || json_integer_value(checked) < 0 || !json_is_array(items) ||
        !json_is_array(names))
        return false;
    for (size_t i = 0; i < json_array_size(names); i++)
        if (!json_is_string(json_array_get(names, i)))
            return false;
    diag_list list = {.items = xcalloc(json_array_size(items) + 1, sizeof *list.items)};
    for (; list.n < json_array_size(items); list.n++)
        if (!take_finding(json_array_get(items, list.n), &list.items[list.n])) {
            diag_list_free(&list);
            return false;
        }
    *found = list;
    *files_checked = (size_t)json_integer_value(checked);
    for (size_t i = 0; i < json_array_size(names); i++)
        str_list_push(unbuilt, json_string_value(json_array_get(names, i)));
    return true;
}

bool results_lookup(const snapshot *snap, const gl_config *cfg, diag_list *found,
                    size_t *files_checked, str_list *unbuilt)
{
    /* The keys alone first: reading every file's facts entry to check it
     * is fresh is worth it only when there is an entry to use. */
    char *path = entry_path(snap, cfg, false, NULL);
    struct stat st;
    if (!path || stat(path, &st) != 0) {
        free(path);
        return false;
    }
    char *fresh_path = entry_path(snap, cfg, true, NULL);
    bool fresh = fresh_path && strcmp(fresh_path, path) == 0;
    free(fresh_path);
    json_t *root = fresh ? json_load_file(path, 0, NULL) : NULL;
    bool taken = root && take_result(root, found, files_checked, unbuilt);
    json_decref(root);
    if (taken && getenv("GPULINT_TRACE"))   /* tests/analyzer/results_cache.bats */
        fprintf(stderr, "gpulint: trace: the rules' results of an earlier run\n");
    /* Used: kept (sweep). Once a day is enough for a lifetime of two weeks. */
    if (taken && time(NULL) - st.st_mtime > ENTRY_TOUCH_AFTER_S)
        utimensat(AT_FDCWD, path, NULL, 0);
    free(path);
    return taken;
}

typedef struct {
    char *path;
    time_t mtime;
} entry_age;

static int newest_first(const void *a, const void *b)
{
    const entry_age *x = a, *y = b;
    return (x->mtime < y->mtime) - (x->mtime > y->mtime);
}

/* Only the cache's own entries (<64 hex digits>.json) are ever removed. */
static bool is_entry_name(const char *name)
{
    size_t n = strlen(name);
    if (n != 64 + 5 || strcmp(name + 64, ".json") != 0)
        return false;
    for (size_t i = 0; i < 64; i++)
        if (!strchr("0123456789abcdef", name[i]))
            return false;
    return true;
}

static void sweep(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    entry_age *entries = NULL;
    size_t n = 0;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_entry_name(e->d_name))
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || now - st.st_mtime > ENTRY_LIFETIME_S) {
            unlink(path);
            free(path);
            continue;
        }
        *XPUSH(entries, n) = (entry_age){path, st.st_mtime};
    }
    closedir(d);
    if (n > 1)
        qsort(entries, n, sizeof *entries, newest_first);
    for (size_t i = 0; i < n; i++) {
        if (i >= RESULTS_KEPT)
            unlink(entries[i].path);
        free(entries[i].path);
    }
    free(entries);
}

static json_t *finding_json(const diag_finding *f)
{
    json_t *item = json_pack("{s:s, s:s, s:s, s:I, s:I, s:i, s:b, s:b}", "rule", f->rule, "file",
                             f->file, "message", f->message, "line", (json_int_t)f->line, "col",
                             (json_int_t)f->col, "sev", (int)f->sev, "suppressed", f->suppressed,
                             "in_baseline", f->in_baseline);
    if (item && f->suppress_reason)
        json_object_set_new(item, "suppress_reason", json_string(f->suppress_reason));
    return item;
}

void results_store(const snapshot *snap, const gl_config *cfg, const bool *from_cache,
                   const diag_list *found, size_t files_checked, const str_list *unbuilt)
{
    char *path = entry_path(snap, cfg, true, from_cache);
    if (!path)
        return;
    json_t *items = json_array(), *names = json_array();
    for (size_t i = 0; i < found->n; i++)
        json_array_append_new(items, finding_json(&found->items[i]));
    for (size_t i = 0; i < unbuilt->n; i++)
        json_array_append_new(names, json_string(unbuilt->items[i]));
    json_t *root = json_pack("{s:s, s:I, s:o, s:o}", "format", RESULTS_FORMAT, "files_checked",
                             (json_int_t)files_checked, "found", items, "unbuilt", names);
    const char *dir = facts_results_dir();
    char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
    /* A cache that cannot be written costs speed only. */
    if (root && (mkdir(dir, 0755) == 0 || access(dir, W_OK) == 0) &&
        json_dump_file(root, tmp, JSON_COMPACT) == 0 && rename(tmp, path) == 0)
        sweep(dir);
    else
        unlink(tmp);
    json_decref(root);
    free(tmp);
    free(path);
}
