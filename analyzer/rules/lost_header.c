/* lost_header_find (rules/lost_header.h): from the header's own facts (a
 * unit that did not include it), the #include and #define lines of the
 * other files, and their not-checked facts, each "'name' not found"
 * matched against the header's path. */
#define _GNU_SOURCE
#include "rules/lost_header.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "util/xalloc.h"

/* An absolute path as gpulint prints paths: relative to the root inside it. */
static const char *shown(const snapshot *snap, const char *abs)
{
    size_t n = snap->root ? strlen(snap->root) : 0;
    if (n && strncmp(abs, snap->root, n) == 0 && abs[n] == '/')
        return abs + n + 1;
    return abs;
}

/* Whether abs_path is `spelling` below some directory: ".../host/x.h" for
 * "host/x.h". */
static bool names(const char *abs_path, const char *spelling)
{
    size_t n = strlen(abs_path), s = strlen(spelling);
    return s && s < n && abs_path[n - s - 1] == '/' && strcmp(abs_path + n - s, spelling) == 0;
}

/* The directory of `abs_path` that `spelling` is below, as printed. */
static char *dir_below(const snapshot *snap, const char *abs_path, const char *spelling)
{
    const char *abs_dir = shown(snap, abs_path);
    size_t n = strlen(abs_dir), s = strlen(spelling);
    return n > s ? xstrndup(abs_dir, n - s - 1) : xstrdup(".");
}

char *lost_header_dir(const snapshot *snap, const char *spelling)
{
    for (size_t i = 0; i < snap->nfiles; i++)
        if (names(snap->files[i].abs_path, spelling))
            return dir_below(snap, snap->files[i].abs_path, spelling);
    return NULL;
}

/* A spelling as the suffix of a path it names: without its leading "./"
 * and "../" parts, which point above any directory. */
static const char *spelling_tail(const char *spelling)
{
    while (strncmp(spelling, "./", 2) == 0 || strncmp(spelling, "../", 3) == 0)
        spelling += spelling[1] == '/' ? 2 : 3;
    return spelling;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* Whether `directive` (a word) starts at p. */
static bool directive_at(const char *p, const char *end, const char *directive)
{
    size_t n = strlen(directive);
    return (size_t)(end - p) > n && memcmp(p, directive, n) == 0 &&
           (p[n] == ' ' || p[n] == '\t' || p[n] == '"' || p[n] == '<');
}

/* The first line of a snapshot file other than file fi that names fi's
 * path ("x/h.hpp" or <x/h.hpp>): an #include, or (macro not NULL) a
 * `#define NAME "x/h.hpp"`, whose NAME goes to *macro. "path:line" and
 * the spelling (malloc'd), or false. */
static bool naming_line(const snapshot *snap, size_t fi, char **macro, char **where,
                        char **spelling)
{
    const char *abs_path = snap->files[fi].abs_path;
    for (size_t j = 0; j < snap->nfiles; j++) {
        const source_file *f = &snap->files[j];
        if (j == fi)
            continue;
        const char *m = f->masked, *end = m + f->len;
        unsigned line_no = 1;
        for (const char *line = m; line < end; line_no++) {
            const char *nl = memchr(line, '\n', (size_t)(end - line));
            const char *line_end = nl ? nl : end;
            const char *p = skip_blanks(line, line_end);
            line = line_end + 1;
            if (p == line_end || *p != '#')
                continue;
            p = skip_blanks(p + 1, line_end);
            const char *name = NULL;
            size_t name_len = 0;
            if (macro && directive_at(p, line_end, "define")) {
                name = skip_blanks(p + 6, line_end);
                while (name + name_len < line_end &&
                       (isalnum((unsigned char)name[name_len]) || name[name_len] == '_'))
                    name_len++;
                p = name + name_len;
                if (!name_len || (p < line_end && *p == '('))
                    continue;   /* a function-like macro */
                p = skip_blanks(p, line_end);
            } else if (!macro && directive_at(p, line_end, "include")) {
                p = skip_blanks(p + 7, line_end);
            } else {
                continue;
            }
            /* The name is blanked in the masked text: read it from the text. */
            const char *t = f->text + (p - m), *t_end = f->text + (line_end - m);
            char close = t < t_end && *t == '"' ? '"' : t < t_end && *t == '<' ? '>' : 0;
            const char *q = close ? memchr(t + 1, close, (size_t)(t_end - t - 1)) : NULL;
            if (!q)
                continue;
            char *spelled = xstrndup(t + 1, (size_t)(q - t - 1));
            if (names(abs_path, spelling_tail(spelled))) {
                if (macro)
                    *macro = xstrndup(name, name_len);
                *where = xasprintf("%s:%u", f->path, line_no);
                *spelling = spelled;
                return true;
            }
            free(spelled);
        }
    }
    return false;
}

bool lost_header_find(const analysis *a, size_t fi, lost_header *out)
{
    const source_file *h = &a->snap->files[fi];
    const file_facts *hf = a->facts[fi];
    *out = (lost_header){0};
    if (!hf->n_parse_errors || hf->n_not_checked)
        return false;
    if (hf->n_outside_unit) {
        out->reason = LOST_UNTAKEN_BRANCH;
        out->unit = xstrdup(hf->outside_unit[0].unit);
        if (!naming_line(a->snap, fi, NULL, &out->includer, &out->spelling) &&
            !naming_line(a->snap, fi, &out->macro, &out->includer, &out->spelling)) {
            out->includer = xstrdup(out->unit);   /* named through other files */
            out->spelling = xstrdup(h->path);
        }
        return true;
    }
    if (!h->is_header || h->context >= 0)
        return false;
    for (size_t j = 0; j < a->snap->nfiles; j++) {
        const file_facts *f = a->facts[j];
        for (size_t k = 0; j != fi && k < f->n_not_checked; k++) {
            const fact_not_checked *u = &f->not_checked[k];
            if (u->cause == UNCHECKED_MACRO_INCLUDE && strcmp(u->detail, h->path) == 0) {
                out->reason = LOST_UNFOLLOWED;
                out->includer = u->via ? xstrdup(shown(a->snap, u->via))
                                       : xasprintf("%s:%u", a->snap->files[j].path, u->loc.line);
                out->spelling = xstrdup(h->path);
                return true;
            }
            if (u->cause != UNCHECKED_MISSING_INCLUDE || !names(h->abs_path, u->detail))
                continue;
            out->reason = LOST_NOT_FOUND;
            out->includer = u->via ? xstrdup(shown(a->snap, u->via))
                                   : xasprintf("%s:%u", a->snap->files[j].path, u->loc.line);
            out->spelling = xstrdup(u->detail);
            out->dir = dir_below(a->snap, h->abs_path, u->detail);
            return true;
        }
    }
    if (naming_line(a->snap, fi, NULL, &out->includer, &out->spelling)) {
        out->reason = LOST_NO_UNIT;
        return true;
    }
    if (naming_line(a->snap, fi, &out->macro, &out->includer, &out->spelling)) {
        out->reason = LOST_MACRO;
        return true;
    }
    return false;
}

void lost_header_free(lost_header *h)
{
    free(h->includer);
    free(h->spelling);
    free(h->dir);
    free(h->unit);
    free(h->macro);
}
