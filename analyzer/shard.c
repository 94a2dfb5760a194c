#define _GNU_SOURCE
#include "shard.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hash.h"
#include "util/xalloc.h"
#include "version.h"

#define MAX_SHARDS 4096

bool shard_parse(const char *text, shard_spec *spec)
{
    char *end;
    errno = 0;
    unsigned long k = strtoul(text, &end, 10);
    if (end == text || *end != '/' || errno)
        return false;
    const char *n_text = end + 1;
    unsigned long n = strtoul(n_text, &end, 10);
    if (end == n_text || *end || errno || k < 1 || n > MAX_SHARDS || k > n)
        return false;
    spec->k = (unsigned)k;
    spec->n = (unsigned)n;
    return true;
}

bool shard_owns(const shard_spec *spec, const char *path)
{
    return fnv1a(FNV1A_SEED, path, strlen(path)) % spec->n == spec->k - 1;
}

static char *shard_path(const char *dir, unsigned k, unsigned n)
{
    return xasprintf("%s/shard-%u-of-%u.json", dir, k, n);
}

int shard_write(const char *dir, const shard_spec *spec, const snapshot *snap,
                file_facts *const *facts, size_t *written, char **error)
{
    json_t *files = json_array();
    *written = 0;
    for (size_t i = 0; i < snap->nfiles; i++) {
        if (!shard_owns(spec, snap->files[i].path))
            continue;
        json_t *entry = json_pack("{ss ss}", "path", snap->files[i].path, "hash",
                                  snap->files[i].hash);
        char *text = facts_save(facts[i]);
        json_object_set_new(entry, "facts", json_string(text));
        free(text);
        json_array_append_new(files, entry);
        (*written)++;
    }
    json_t *doc = json_pack("{ss ss si si so}", "tool", "gpulint-shard", "version",
                            GPULINT_VERSION, "shard", (int)spec->k, "of", (int)spec->n,
                            "files", files);
    char *path = shard_path(dir, spec->k, spec->n);
    char *tmp = xasprintf("%s.tmp", path);
    int rc = 0;
    if ((mkdir(dir, 0755) != 0 && errno != EEXIST) ||
        json_dump_file(doc, tmp, JSON_COMPACT) != 0 || rename(tmp, path) != 0) {
        *error = xasprintf("cannot write the shard file %s: %s", path, strerror(errno));
        unlink(tmp);
        rc = -1;
    }
    json_decref(doc);
    free(tmp);
    free(path);
    return rc;
}

/* The shard's entries by path, checked against the snapshot. */
static int merge_one(const char *path, unsigned k, unsigned n, const snapshot *snap,
                     file_facts **facts, bool *seen, char **error)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc) {
        *error = xasprintf("%s: shard %u of %u is missing or unreadable: %s", path, k, n,
                           jerr.text);
        return -1;
    }
    int rc = 0;
    const char *version = json_string_value(json_object_get(doc, "version"));
    json_t *files = json_object_get(doc, "files");
    if (!version || strcmp(version, GPULINT_VERSION) != 0 || !json_is_array(files) ||
        json_integer_value(json_object_get(doc, "shard")) != (json_int_t)k ||
        json_integer_value(json_object_get(doc, "of")) != (json_int_t)n) {
        *error = xasprintf("%s: not shard %u of %u of gpulint %s", path, k, n, GPULINT_VERSION);
        json_decref(doc);
        return -1;
    }
    size_t i;
    json_t *entry;
    json_array_foreach(files, i, entry) {
        const char *file = json_string_value(json_object_get(entry, "path"));
        const char *hash = json_string_value(json_object_get(entry, "hash"));
        long at = file ? snapshot_find(snap, file) : -1;
        if (at < 0 || !hash || strcmp(hash, snap->files[at].hash) != 0) {
            *error = xasprintf("%s: %s %s: the shards analysed other files than this "
                               "checkout has (run every shard and the merge on one commit)",
                               path, file ? file : "(an entry without a path)",
                               at < 0 ? "is not among the files here" : "has other content here");
            rc = -1;
            break;
        }
        const char *text = json_string_value(json_object_get(entry, "facts"));
        char *load_error = NULL;
        if (seen[at] || !text || !(facts[at] = facts_load(text, &load_error))) {
            *error = xasprintf("%s: the facts of %s %s%s", path, file,
                               seen[at] ? "are in two shards" : "do not load: ",
                               seen[at] ? "" : load_error ? load_error : "none");
            free(load_error);
            rc = -1;
            break;
        }
        seen[at] = true;
    }
    json_decref(doc);
    return rc;
}

int shard_merge(const char *dir, const snapshot *snap, file_facts **facts, char **error)
{
    /* N from the first shard file: shard-1-of-N.json. */
    unsigned n = 0;
    for (unsigned candidate = 1; candidate <= MAX_SHARDS && !n; candidate++) {
        char *path = shard_path(dir, 1, candidate);
        struct stat st;
        if (stat(path, &st) == 0)
            n = candidate;
        free(path);
    }
    if (!n) {
        *error = xasprintf("%s: no shard files (shard-1-of-N.json): run gpulint --shard K/N "
                           "--shard-dir %s for each K first", dir, dir);
        return -1;
    }
    bool *seen = xcalloc(snap->nfiles ? snap->nfiles : 1, sizeof *seen);
    int rc = 0;
    for (unsigned k = 1; k <= n && rc == 0; k++) {
        char *path = shard_path(dir, k, n);
        rc = merge_one(path, k, n, snap, facts, seen, error);
        free(path);
    }
    for (size_t i = 0; i < snap->nfiles && rc == 0; i++)
        if (!seen[i]) {
            *error = xasprintf("%s: no shard analysed %s (run every shard and the merge on "
                               "one commit, with the same paths)", dir, snap->files[i].path);
            rc = -1;
        }
    free(seen);
    return rc;
}
