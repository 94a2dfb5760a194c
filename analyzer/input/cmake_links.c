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
static bool read_target(const char *reply_dir, const char *file, const char *top, link_target *t,
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

int cmake_links_load(const char *build_dir, build_links *map, char **error)
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
    link_target *ts = NULL;
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
        link_target one = {0};
        if (!read_target(reply_dir, file, top, &one, error))
            break;
        *XPUSH(ts, n) = one;
    }
    if (!*error)
        build_links_from(ts, n, map);
    link_targets_free(ts, n);
    json_decref(model);
    json_decref(index);
    free(model_path);
    free(index_path);
    free(reply_dir);
    if (*error) {
        build_links_free(map);
        return -1;
    }
    return model ? 0 : 1;
}
