#define _DEFAULT_SOURCE
#include "input/cmake_links.h"

#include <dirent.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/files.h"
#include "util/paths.h"
#include "util/xalloc.h"

/* A reply file over this is not CMake's (cuda-samples' 171 targets: 2 MB). */
#define REPLY_BYTES ((size_t)256 << 20)

typedef struct {
    char *id;
    char *key;   /* its object directory: <build>/CMakeFiles/<name>.dir */
    bool program, library;
    char **deps;   /* the ids it depends on */
    size_t ndeps;
} cm_target;

/* CMake names each reply index index-<time>.json; a client reads the one
 * that sorts last, the newest (cmake-file-api(7), "Reply Index File"). */
static char *newest_index(const char *reply_dir)
{
    DIR *d = opendir(reply_dir);
    if (!d)
        return NULL;
    char *best = NULL;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > 11 && strncmp(e->d_name, "index-", 6) == 0 &&
            strcmp(e->d_name + n - 5, ".json") == 0 && (!best || strcmp(e->d_name, best) > 0)) {
            free(best);
            best = xstrdup(e->d_name);
        }
    }
    closedir(d);
    char *path = best ? path_join(reply_dir, best) : NULL;
    free(best);
    return path;
}

static const char *text_at(json_t *obj, const char *a, const char *b)
{
    json_t *v = json_object_get(obj, a);
    return json_string_value(b ? json_object_get(v, b) : v);
}

static bool is_one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

/* One target's reply file into t; false with *error when a member that the
 * codemodel's "target" object always has is missing. */
static bool read_target(const char *reply_dir, const char *file, const char *top, cm_target *t,
                        char **error)
{
    static const char *const programs[] = {"EXECUTABLE", "SHARED_LIBRARY", "MODULE_LIBRARY", NULL};
    static const char *const libraries[] = {"STATIC_LIBRARY", "SHARED_LIBRARY", "OBJECT_LIBRARY",
                                            NULL};
    char *path = path_join(reply_dir, file);
    json_t *doc = files_load_json(path, "CMake file API reply", REPLY_BYTES, error);
    const char *id = doc ? text_at(doc, "id", NULL) : NULL;
    const char *name = doc ? text_at(doc, "name", NULL) : NULL;
    const char *type = doc ? text_at(doc, "type", NULL) : NULL;
    const char *build = doc ? text_at(doc, "paths", "build") : NULL;
    bool ok = id && name && type && build;
    if (doc && !ok)
        *error = xasprintf("%s: error: CMake file API reply: a target needs \"id\", \"name\", "
                           "\"type\" and \"paths\".\"build\" (strings)", path);
    if (ok) {
        t->id = xstrdup(id);
        char *dir = path_join(top, build);
        char *objects = xasprintf("CMakeFiles/%s.dir", name);
        t->key = path_join(dir, objects);
        free(objects);
        free(dir);
        t->program = is_one_of(type, programs);
        t->library = is_one_of(type, libraries);
        size_t k;
        json_t *dep;
        json_array_foreach(json_object_get(doc, "dependencies"), k, dep) {
            const char *on = text_at(dep, "id", NULL);
            if (on)
                *XPUSH(t->deps, t->ndeps) = xstrdup(on);
        }
    }
    json_decref(doc);
    free(path);
    return ok;
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const cm_target *)a)->id, ((const cm_target *)b)->id);
}

static int by_member(const void *a, const void *b)
{
    const cmake_link *x = a, *y = b;
    int c = strcmp(x->member, y->member);
    return c ? c : strcmp(x->program, y->program);
}

static long find_id(const cm_target *ts, size_t n, const char *id)
{
    cm_target key = {.id = (char *)id};
    const cm_target *hit = bsearch(&key, ts, n, sizeof *ts, by_id);
    return hit ? hit - ts : -1;
}

/* Each program's members: itself and the libraries it reaches through
 * library dependencies. */
static void link_programs(const cm_target *ts, size_t n, cmake_links *map)
{
    bool *seen = xcalloc(n + 1, sizeof *seen);
    size_t *stack = xcalloc(n + 1, sizeof *stack);
    for (size_t p = 0; p < n; p++) {
        if (!ts[p].program)
            continue;
        memset(seen, 0, n * sizeof *seen);
        size_t top = 0;
        stack[top++] = p;
        seen[p] = true;
        while (top) {
            const cm_target *m = &ts[stack[--top]];
            *XPUSH(map->links, map->n) =
                (cmake_link){.member = xstrdup(m->key), .program = xstrdup(ts[p].key)};
            for (size_t k = 0; k < m->ndeps; k++) {
                long d = find_id(ts, n, m->deps[k]);
                if (d >= 0 && !seen[d] && ts[d].library) {
                    seen[d] = true;
                    stack[top++] = (size_t)d;
                }
            }
        }
    }
    free(stack);
    free(seen);
    if (map->n)
        qsort(map->links, map->n, sizeof *map->links, by_member);
}

int cmake_links_load(const char *build_dir, cmake_links *map, char **error)
{
    memset(map, 0, sizeof *map);
    *error = NULL;
    char *reply_dir = path_join(build_dir, ".cmake/api/v1/reply");
    char *index_path = newest_index(reply_dir);
    json_t *index = index_path ? files_load_json(index_path, "CMake file API reply index",
                                                 REPLY_BYTES, error)
                               : NULL;
    json_t *model = NULL;
    const char *model_file =
        index ? text_at(json_object_get(index, "reply"), "codemodel-v2", "jsonFile") : NULL;
    char *model_path = model_file ? path_join(reply_dir, model_file) : NULL;
    if (model_path)
        model = files_load_json(model_path, "CMake file API codemodel", REPLY_BYTES, error);
    /* One configuration: Makefile and Ninja generators have one. */
    json_t *config = json_array_get(json_object_get(model, "configurations"), 0);
    const char *top = text_at(model, "paths", "build");
    json_t *targets = json_object_get(config, "targets");
    if (model && (!top || !json_is_array(targets)))
        *error = xasprintf("%s: error: CMake file API codemodel: no \"paths\".\"build\" or "
                           "no \"targets\" in its first configuration", model_path);
    cm_target *ts = NULL;
    size_t n = 0;
    size_t k;
    json_t *t;
    json_array_foreach(*error ? NULL : targets, k, t) {
        const char *file = text_at(t, "jsonFile", NULL);
        if (!file) {
            *error = xasprintf("%s: error: CMake file API codemodel: target %zu has no "
                               "\"jsonFile\"", model_path, k);
            break;
        }
        cm_target one = {0};
        if (!read_target(reply_dir, file, top, &one, error))
            break;
        *XPUSH(ts, n) = one;
    }
    if (!*error && n) {
        qsort(ts, n, sizeof *ts, by_id);
        link_programs(ts, n, map);
    }
    for (size_t i = 0; i < n; i++) {
        free(ts[i].id);
        free(ts[i].key);
        str_array_free(ts[i].deps, ts[i].ndeps);
    }
    free(ts);
    json_decref(model);
    json_decref(index);
    free(model_path);
    free(index_path);
    free(reply_dir);
    if (*error) {
        cmake_links_free(map);
        return -1;
    }
    return model ? 0 : 1;
}

void cmake_links_free(cmake_links *map)
{
    for (size_t i = 0; i < map->n; i++) {
        free(map->links[i].member);
        free(map->links[i].program);
    }
    free(map->links);
    memset(map, 0, sizeof *map);
}

const cmake_link *cmake_links_of(const cmake_links *map, const char *member, size_t *n)
{
    size_t lo = 0, hi = map->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(map->links[mid].member, member) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < map->n && strcmp(map->links[end].member, member) == 0)
        end++;
    *n = end - lo;
    return *n ? &map->links[lo] : NULL;
}
