#define _DEFAULT_SOURCE
#include "input/meson_links.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input/ninja_edges.h"
#include "util/files.h"
#include "util/paths.h"
#include "util/xalloc.h"

/* An introspection file over this is not one Meson wrote for a tree. */
#define INTRO_BYTES ((size_t)256 << 20)

typedef struct {
    const char *rel;   /* the target's file, relative to the build directory */
    size_t index;      /* into the targets */
} by_file;

static int compare_rel(const void *a, const void *b)
{
    return strcmp(((const by_file *)a)->rel, ((const by_file *)b)->rel);
}

static bool is_one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

/* The target whose file `input` is, or in whose object directory
 * (<file>.p/) it is; -1 when none. */
static long target_of_input(const by_file *files, size_t n, const char *input)
{
    by_file key = {.rel = input};
    const by_file *hit = bsearch(&key, files, n, sizeof *files, compare_rel);
    for (const char *p = input; !hit && (p = strstr(p, ".p/")); p += 3) {
        char *dir = xstrndup(input, (size_t)(p - input));
        key.rel = dir;
        hit = bsearch(&key, files, n, sizeof *files, compare_rel);
        free(dir);
    }
    return hit ? (long)hit->index : -1;
}

/* The targets of intro-targets.json, with their files relative to `build`
 * in *rels (same order); false with *error. */
static bool read_targets(const char *path, const char *build, link_target **ts, size_t *n,
                         char ***rels, char **error)
{
    static const char *const programs[] = {"executable", "shared library", "shared module", NULL};
    static const char *const libraries[] = {"static library", "shared library", NULL};
    json_t *doc = files_load_json(path, "Meson introspection of targets", INTRO_BYTES, error);
    if (!doc)
        return false;
    if (!json_is_array(doc))
        *error = xasprintf("%s: error: Meson's intro-targets.json is a JSON array of targets",
                           path);
    size_t k;
    json_t *t;
    json_array_foreach(*error ? NULL : doc, k, t) {
        const char *id = json_string_value(json_object_get(t, "id"));
        const char *type = json_string_value(json_object_get(t, "type"));
        json_t *files = json_object_get(t, "filename");
        if (!id || !type || !json_is_array(files)) {
            *error = xasprintf("%s: error: Meson target %zu needs \"id\", \"type\" (strings) and "
                               "\"filename\" (an array)", path, k);
            break;
        }
        const char *file = json_string_value(json_array_get(files, 0));
        if (!file)
            continue;   /* a target that makes no file (an alias, a run target) */
        char *abs = path_normalise(file);
        const char *rel = path_below(build, abs);
        size_t nrels = *n;
        *XPUSH(*rels, nrels) = xstrdup(rel ? rel : abs);
        *XPUSH(*ts, *n) = (link_target){
            .id = xstrdup(id),
            .key = xasprintf("%s.p", abs),
            .program = is_one_of(type, programs),
            .library = is_one_of(type, libraries),
        };
        free(abs);
    }
    json_decref(doc);
    return !*error;
}

/* Each target's dependencies: the targets its link step's inputs name. */
static void add_links(const ninja_edges *edges, link_target *ts, char **rels, size_t n)
{
    by_file *files = xcalloc(n + 1, sizeof *files);
    for (size_t i = 0; i < n; i++)
        files[i] = (by_file){.rel = rels[i], .index = i};
    qsort(files, n, sizeof *files, compare_rel);
    for (size_t e = 0; e < edges->n; e++) {
        const ninja_edge *edge = &edges->edges[e];
        for (size_t o = 0; o < edge->noutputs; o++) {
            by_file key = {.rel = edge->outputs[o]};
            const by_file *out = bsearch(&key, files, n, sizeof *files, compare_rel);
            if (!out)
                continue;
            link_target *t = &ts[out->index];
            for (size_t i = 0; i < edge->ninputs; i++) {
                long d = target_of_input(files, n, edge->inputs[i]);
                if (d >= 0 && (size_t)d != out->index)
                    *XPUSH(t->deps, t->ndeps) = xstrdup(ts[d].id);
            }
        }
    }
    free(files);
}

int meson_links_load(const char *build_dir, build_links *map, char **error)
{
    memset(map, 0, sizeof *map);
    *error = NULL;
    char *info_path = path_join(build_dir, "meson-info/meson-info.json");
    struct stat st;
    if (stat(info_path, &st) != 0 && errno == ENOENT) {
        free(info_path);
        return 1;
    }
    json_t *info = files_load_json(info_path, "Meson build information", INTRO_BYTES, error);
    const char *build =
        json_string_value(json_object_get(json_object_get(info, "directories"), "build"));
    if (info && !build)
        *error = xasprintf("%s: error: Meson's meson-info.json has no \"directories\".\"build\" "
                           "(a string)", info_path);
    char *build_norm = build ? path_normalise(build) : NULL;
    char *targets_path = path_join(build_dir, "meson-info/intro-targets.json");
    char *ninja_path = path_join(build_dir, "build.ninja");
    link_target *ts = NULL;
    char **rels = NULL;
    size_t n = 0;
    ninja_edges edges = {0};
    if (!*error && read_targets(targets_path, build_norm, &ts, &n, &rels, error) &&
        ninja_edges_load(ninja_path, &edges, error) == 0) {
        add_links(&edges, ts, rels, n);
        build_links_from(ts, n, map);
    }
    ninja_edges_free(&edges);
    link_targets_free(ts, n);
    str_array_free(rels, n);
    json_decref(info);
    free(build_norm);
    free(targets_path);
    free(ninja_path);
    free(info_path);
    return *error ? -1 : 0;
}
