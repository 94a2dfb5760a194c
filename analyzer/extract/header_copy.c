#include "extract/header_copy.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "extract/internal.h"
#include "util/paths.h"
#include "util/xalloc.h"

typedef struct {
    CXTranslationUnit tu;
    const source_file *src;
    const snapshot_reach *reach;
    CXFile itself;      /* clang's file of src->abs_path, NULL if none */
    CXFile opened;      /* what the unit opened for src, once found */
    char *differing;
} copy_search;

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Whether the #include at `at` (the location clang gives an inclusion: its
 * file name, "x.h" or <x.h>) names src's path, as reach.c matches names:
 * the name without its leading ./ and ../ ends src's path. An #include of
 * a macro has no name there: false. */
static bool include_names_src(const copy_search *s, CXSourceLocation at)
{
    CXFile includer;
    unsigned offset;
    clang_getSpellingLocation(at, &includer, NULL, NULL, &offset);
    size_t size = 0;
    const char *text = includer ? clang_getFileContents(s->tu, includer, &size) : NULL;
    if (!text || offset >= size || (text[offset] != '"' && text[offset] != '<'))
        return false;
    char close = text[offset] == '"' ? '"' : '>';
    const char *start = text + offset + 1, *end = start;
    while (end < text + size && *end != close && *end != '\n')
        end++;
    if (end == text + size || *end != close)
        return false;
    char *spelled = xstrndup(start, (size_t)(end - start));
    char *norm = path_normalise(spelled);
    const char *tail = norm;
    while (strncmp(tail, "./", 2) == 0 || strncmp(tail, "../", 3) == 0)
        tail += tail[1] == '/' ? 2 : 3;
    const char *path = s->src->abs_path;
    size_t n = strlen(path), t = strlen(tail);
    bool names = t && t < n && path[n - t - 1] == '/' && strcmp(path + n - t, tail) == 0;
    free(norm);
    free(spelled);
    return names;
}

static void find_opened(CXFile included, CXSourceLocation *stack, unsigned depth,
                        CXClientData data)
{
    copy_search *s = data;
    if (depth == 0 || s->opened)
        return;
    if (s->itself && clang_File_isEqual(included, s->itself)) {
        s->opened = included;
        return;
    }
    char *name = cx_take(clang_getFileName(included));
    if (strcmp(base_name(name), base_name(s->src->abs_path)) != 0 ||
        !include_names_src(s, stack[0])) {
        free(name);
        return;
    }
    char *canonical = path_canonical(name);
    free(name);
    size_t size = 0;
    /* A file of the snapshot has facts of its own: no copy. */
    const char *text = reach_find(s->reach, canonical)
                           ? NULL
                           : clang_getFileContents(s->tu, included, &size);
    if (text && size == s->src->len && memcmp(text, s->src->text, size) == 0)
        s->opened = included;
    else if (text && !s->differing)
        s->differing = xstrdup(canonical);
    free(canonical);
}

CXFile header_opened_by_unit(CXTranslationUnit tu, const source_file *src,
                             const snapshot_reach *reach, char **differing)
{
    /* clang_getFile alone also knows the files a parse was handed unsaved
     * (every file its includes can name: extract/reach.h), included or not,
     * so a header behind an #if the build does not take passed for one the
     * unit reached and had no facts at all. */
    copy_search s = {tu, src, reach, clang_getFile(tu, src->abs_path), NULL, NULL};
    clang_getInclusions(tu, find_opened, &s);
    if (s.opened || !differing)
        free(s.differing);
    else
        *differing = s.differing;
    if (differing && s.opened)
        *differing = NULL;
    return s.opened;
}
