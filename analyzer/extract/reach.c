#define _GNU_SOURCE
#include "extract/reach.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "input/directive.h"
#include "input/include_names.h"
#include "util/paths.h"
#include "util/xalloc.h"

struct snapshot_reach {
    const snapshot *snap;
    size_t *by_path;    /* file indices sorted by abs_path */
    size_t *by_name;    /* file indices sorted by the last part of abs_path */
    size_t **edges;     /* edges[i]: the files an include of file i can name */
    size_t *nedges;
    bool *computed;     /* file i includes a macro's expansion that names
                           no file gpulint can tell (input/include_names.h) */
    macro_names *macros;
    signed char *memo;  /* reach_any_file per file: 0 not yet asked, 1 yes,
                           -1 no */
};

static const snapshot *sort_snap;   /* qsort has no context argument */

/* Files and then context files (source.h) are numbered as one list. */
static size_t count_of(const snapshot *snap)
{
    return snap->nfiles + snap->ncontext;
}

static const source_file *file_at(const snapshot *snap, size_t i)
{
    return i < snap->nfiles ? &snap->files[i] : &snap->context[i - snap->nfiles];
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int by_path_cmp(const void *a, const void *b)
{
    return strcmp(file_at(sort_snap, *(const size_t *)a)->abs_path,
                  file_at(sort_snap, *(const size_t *)b)->abs_path);
}

static int by_name_cmp(const void *a, const void *b)
{
    return strcmp(base_name(file_at(sort_snap, *(const size_t *)a)->abs_path),
                  base_name(file_at(sort_snap, *(const size_t *)b)->abs_path));
}

/* Every file an include of `spelling` can open, whatever directory it is
 * searched from: those whose path ends with the spelling (after its leading
 * ".." parts, which point above any directory), each given to fn. A
 * superset is harmless: a parse is only told more files' contents. */
static void each_candidate(const snapshot_reach *r, const char *spelling, size_t len,
                           void (*fn)(void *ctx, size_t file), void *ctx)
{
    char *raw = xstrndup(spelling, len);
    char *norm = path_normalise(raw);
    free(raw);
    const char *tail = norm;
    while (strncmp(tail, "../", 3) == 0)
        tail += 3;
    const char *name = base_name(tail);
    const snapshot *snap = r->snap;
    size_t lo = 0, hi = count_of(snap);
    while (lo < hi) {   /* the first file whose name is not below `name` */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(base_name(file_at(snap, r->by_name[mid])->abs_path), name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t tail_len = strlen(tail);
    for (size_t k = lo; k < count_of(snap); k++) {
        size_t j = r->by_name[k];
        const char *path = file_at(snap, j)->abs_path;
        if (strcmp(base_name(path), name) != 0)
            break;
        size_t plen = strlen(path);
        if (plen >= tail_len && strcmp(path + plen - tail_len, tail) == 0 &&
            (plen == tail_len || tail[0] == '/' || path[plen - tail_len - 1] == '/'))
            fn(ctx, j);
    }
    free(norm);
}

typedef struct {
    snapshot_reach *r;
    size_t from;
} edge_ctx;

static void add_edge(void *ctx, size_t to)
{
    edge_ctx *e = ctx;
    if (to != e->from)
        *XPUSH(e->r->edges[e->from], e->r->nedges[e->from]) = to;
}

static void add_candidates(snapshot_reach *r, size_t from, const char *spelling, size_t len)
{
    edge_ctx e = {r, from};
    each_candidate(r, spelling, len, add_edge, &e);
}

static void note_found(void *ctx, size_t file)
{
    (void)file;
    *(bool *)ctx = true;
}

bool reach_may_name(const snapshot_reach *r, const char *spelling, size_t len)
{
    bool found = false;
    each_candidate(r, spelling, len, note_found, &found);
    return found;
}

typedef struct {
    size_t count, file;
} only_ctx;

static void note_only(void *ctx, size_t file)
{
    only_ctx *o = ctx;
    o->count++;
    o->file = file;
}

const source_file *reach_only_candidate(const snapshot_reach *r, const char *spelling,
                                        size_t len)
{
    only_ctx o = {0, 0};
    each_candidate(r, spelling, len, note_only, &o);
    return o.count == 1 ? file_at(r->snap, o.file) : NULL;
}

static void add_named_candidates(const char *name, size_t len, bool quoted, void *ctx)
{
    (void)quoted;
    edge_ctx *e = ctx;
    each_candidate(e->r, name, len, add_edge, e);
}

/* The file names of the include operand at text offset `at` ("x.h", <x.h>
 * or a macro naming files); one it cannot tell makes file i reach every
 * file. */
static void add_named(snapshot_reach *r, size_t i, size_t at, size_t line_end)
{
    const source_file *f = file_at(r->snap, i);
    edge_ctx e = {r, i};
    if (!include_operand_names(r->macros, NULL, f->text + at, f->text + line_end,
                               add_named_candidates, &e))
        r->computed[i] = true;
}

/* #include, #include_next, #import and __has_include(...) of file i. The
 * masked text finds directives outside comments; names are read from the
 * text (the masked text blanks "x.h"). */
static void scan_includes(snapshot_reach *r, size_t i)
{
    const source_file *f = file_at(r->snap, i);
    const char *m = f->masked;
    static const char *const keywords[] = {"include_next", "include", "import"};
    text_line line;
    text_lines_begin(&line, m, f->len);
    while (text_lines_next(&line)) {
        const char *line_end = line.end;
        for (size_t k = 0; line.directive && k < sizeof keywords / sizeof keywords[0]; k++) {
            const char *operand = operand_after(line.directive, line_end, keywords[k]);
            if (operand) {
                add_named(r, i, (size_t)(operand - m), (size_t)(line_end - m));
                break;
            }
        }
        for (const char *h = line.start;
             (h = memmem(h, (size_t)(line_end - h), "__has_include", 13));) {
            h += 13;
            if (h + 5 <= line_end && memcmp(h, "_next", 5) == 0)
                h += 5;
            const char *open = skip_directive_blanks(h, line_end);
            if (open < line_end && *open == '(')
                add_named(r, i, (size_t)(skip_directive_blanks(open + 1, line_end) - m),
                          (size_t)(line_end - m));
        }
    }
    /* -include FILE (and -includeFILE) among the file's own arguments. */
    for (size_t a = 0; a < f->nargs; a++) {
        const char *arg = f->args[a];
        if (strcmp(arg, "-include") == 0 && a + 1 < f->nargs)
            add_candidates(r, i, f->args[a + 1], strlen(f->args[a + 1]));
        else if (strncmp(arg, "-include", 8) == 0 && arg[8] && strcmp(arg, "-include-pch") != 0)
            add_candidates(r, i, arg + 8, strlen(arg + 8));
    }
}

snapshot_reach *reach_build(const snapshot *snap, const gl_config *cfg)
{
    snapshot_reach *r = xcalloc(1, sizeof *r);
    size_t n = count_of(snap);
    r->snap = snap;
    r->by_path = xmalloc((n ? n : 1) * sizeof *r->by_path);
    r->by_name = xmalloc((n ? n : 1) * sizeof *r->by_name);
    for (size_t i = 0; i < n; i++)
        r->by_path[i] = r->by_name[i] = i;
    sort_snap = snap;
    qsort(r->by_path, n, sizeof *r->by_path, by_path_cmp);
    qsort(r->by_name, n, sizeof *r->by_name, by_name_cmp);
    sort_snap = NULL;
    r->edges = xcalloc(n ? n : 1, sizeof *r->edges);
    r->nedges = xcalloc(n ? n : 1, sizeof *r->nedges);
    r->computed = xcalloc(n ? n : 1, sizeof *r->computed);
    r->memo = xcalloc(n ? n : 1, sizeof *r->memo);
    r->macros = macro_names_build(snap, cfg);
    for (size_t i = 0; i < n; i++)
        scan_includes(r, i);
    return r;
}

void reach_free(snapshot_reach *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < count_of(r->snap); i++)
        free(r->edges[i]);
    free(r->memo);
    macro_names_free(r->macros);
    free(r->edges);
    free(r->nedges);
    free(r->computed);
    free(r->by_path);
    free(r->by_name);
    free(r);
}

const source_file *reach_find(const snapshot_reach *r, const char *abs_path)
{
    size_t lo = 0, hi = count_of(r->snap);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const source_file *f = file_at(r->snap, r->by_path[mid]);
        int c = strcmp(f->abs_path, abs_path);
        if (c == 0)
            return f;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The files file `index` reaches through include directives that name
 * them (*out, malloc'd; returns the count), and whether one of those
 * includes a macro that names no file gpulint can tell. */
static size_t reach_named(const snapshot_reach *r, size_t index, size_t **out, bool *computed)
{
    size_t n = count_of(r->snap), count = 0;
    bool *seen = xcalloc(n, sizeof *seen);
    size_t *list = NULL;
    *XPUSH(list, count) = index;
    seen[index] = true;
    *computed = false;
    for (size_t k = 0; k < count; k++) {
        size_t i = list[k];
        *computed = *computed || r->computed[i];
        for (size_t e = 0; e < r->nedges[i]; e++)
            if (!seen[r->edges[i][e]]) {
                seen[r->edges[i][e]] = true;
                *XPUSH(list, count) = r->edges[i][e];
            }
    }
    free(seen);
    *out = list;
    return count;
}

size_t reach_files(const snapshot_reach *r, size_t index, size_t **out)
{
    bool computed;
    size_t count = reach_named(r, index, out, &computed);
    if (computed) {
        /* Any file may be the one the macro names. */
        size_t n = count_of(r->snap);
        bool *seen = xcalloc(n, sizeof *seen);
        for (size_t k = 0; k < count; k++)
            seen[(*out)[k]] = true;
        for (size_t i = 0; i < n; i++)
            if (!seen[i])
                *XPUSH(*out, count) = i;
        free(seen);
    }
    return count;
}

bool reach_unresolved(const snapshot_reach *r, size_t index)
{
    size_t *files;
    bool computed;
    reach_named(r, index, &files, &computed);
    free(files);
    return computed;
}

const macro_names *reach_macros(const snapshot_reach *r)
{
    return r->macros;
}

bool reach_any_file(const snapshot_reach *r, size_t index,
                    bool (*holds)(const source_file *f, void *ctx), void *ctx)
{
    size_t *files;
    size_t n = reach_files(r, index, &files);
    bool found = false;
    for (size_t k = 0; k < n && !found; k++) {
        size_t i = files[k];
        if (r->memo[i] == 0)
            r->memo[i] = holds(file_at(r->snap, i), ctx) ? 1 : -1;
        found = r->memo[i] == 1;
    }
    free(files);
    return found;
}
